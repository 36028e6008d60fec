"""The real SimSpark server (rcssserver3d 0.7.3) for tests, benchmarks, games and the optimizer: start it headless
on free ports with a configuration directory of its own, and be its trainer over the monitor port.

- ``SimSparkServer``: finds ``rcssserver3d`` (``$VILLA_SIMSPARK_PREFIX``, then ``/opt/rcssserver3d``, then ``PATH``),
  writes its ``~/.simspark/spark.rb`` (sync mode, ports, single-threaded: the multi-threaded server crashes when a
  monitor connects) and a copy of ``rcssserver3d.rb`` (real-time pacing on or off, no internal monitor) into a
  directory of its own, starts it with ``HOME`` there and stops it with SIGINT (SIGTERM breaks its embedded Ruby).
  ``available()`` says whether a server is installed; tests skip with its reason when not.
- ``SimSparkTrainer``: the monitor protocol (shared/simspark/SIMSPARK_FACTS.md, "Network protocol"): a full scene
  graph ``(RSG 0 1)`` when a client connects or the scene changes (a robot joins or leaves), deltas ``(RDS 0 1)``
  every 2 cycles that repeat the tree's shape and carry a node's ``(SLT m0..m15)`` (column-major 4x4, local to its
  parent) only when it moved. The trainer keeps that tree and derives the ground truth villa_sim's Trainer gives
  (``villa_sim.trainer.GroundTruth``): the ball is the transform whose mesh is ``models/soccerball.obj``, a robot's
  torso the transform whose mesh is ``models/naobody<type>.obj`` with materials ``matNum<unum>`` and
  ``matLeft``/``matRight``. Commands are the TrainerCommandParser's: play mode, kick-off, ball, agent move.

The monitor stream must be read continuously: a server whose monitor socket fills up stops stepping. The stream has
no simulation clock: in sync mode the server also sends monitor messages while it waits for its agents, so a message
is not a step. ``GroundTruth.sim_time`` is therefore the game time (it runs from the kick-off; 0 in BeforeKickOff);
an agent has the simulation time in its perceptions.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from villa_bridge.sexp import ParseError, parse
from villa_sim.lifetime import tied_to_parent
from villa_sim.testing import free_ports, stop_group
from villa_sim.trainer import GroundTruth, PlayerTruth, Trainer, TrainerError

DEFAULT_PREFIX = Path("/opt/rcssserver3d")
PLAY_MODES = ("BeforeKickOff", "KickOff_Left", "KickOff_Right", "PlayOn", "KickIn_Left", "KickIn_Right",
              "corner_kick_left", "corner_kick_right", "goal_kick_left", "goal_kick_right", "offside_left",
              "offside_right", "GameOver", "Goal_Left", "Goal_Right", "free_kick_left", "free_kick_right",
              "direct_free_kick_left", "direct_free_kick_right", "pass_left", "pass_right")


def _quaternion(r) -> tuple[float, float, float, float]:
    """(w, x, y, z) of a rotation matrix (Shepperd's method: from the largest of the four squares). transforms3d's
    mat2quat, which takes the eigenvector of a 4x4, costs a few hundred microseconds; the trainer converts every robot
    of every monitor message."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = r.tolist()
    tr = m00 + m11 + m22
    if tr > 0.0:
        s = 2.0 * math.sqrt(tr + 1.0)
        q = (0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s)
    elif m00 > m11 and m00 > m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = ((m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s)
    elif m11 > m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s)
    return q if q[0] >= 0.0 else (-q[0], -q[1], -q[2], -q[3])


class SimSparkError(RuntimeError):
    """The server is missing, did not start, or died; the message says which and where its log is."""


def find_prefix() -> Path | None:
    """The installation prefix of rcssserver3d (bin/, lib/simspark, share/), or None when it is not installed."""
    candidates = []
    if os.environ.get("VILLA_SIMSPARK_PREFIX"):
        candidates.append(Path(os.environ["VILLA_SIMSPARK_PREFIX"]))
    candidates.append(DEFAULT_PREFIX)
    on_path = shutil.which("rcssserver3d")
    if on_path:
        candidates.append(Path(on_path).resolve().parent.parent)
    for prefix in candidates:
        if (prefix / "bin" / "rcssserver3d").is_file() and (prefix / "share" / "simspark" / "spark.rb").is_file():
            return prefix
    return None


def available() -> tuple[bool, str]:
    """(True, prefix) when a SimSpark server is installed, else (False, why) for a test's skip reason."""
    prefix = find_prefix()
    if prefix is None:
        return False, ("SimSpark (rcssserver3d 0.7.3) is not installed: set VILLA_SIMSPARK_PREFIX or install it at "
                       f"{DEFAULT_PREFIX} (in this repository's CI: ../shared/simspark_server/install.sh)")
    return True, str(prefix)


def _listening(port: int) -> bool:
    """Whether some process listens on TCP ``port`` (from /proc: a test connection would count as an agent)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 3 and parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def _set_ruby_globals(text: str, values: dict[str, str]) -> str:
    """Set ``$name = value`` lines of a Ruby configuration; names it lacks are added at the top."""
    for name, value in values.items():
        pattern = re.compile(rf"^\${name}\s*=.*$", re.MULTILINE)
        line = f"${name} = {value}"
        text, n = pattern.subn(line, text)
        if n == 0:
            text = line + "\n" + text
    return text


class SimSparkServer:
    """rcssserver3d headless in a subprocess with its own configuration directory and free ports.

    sync: the server steps only after every agent sent (syn) (tests, benchmarks, games); realtime: 20 ms pacing;
    monitor_step: simulated s between monitor messages (the server's $monitorStep, 0.04; serializing the scene for
    its monitor costs the server about a third of a walking robot's cycle, so the optimizer asks for fewer).
    """

    def __init__(self, *, sync: bool = True, realtime: bool = False, agent_port: int | None = None,
                 monitor_port: int | None = None, directory: str | Path | None = None,
                 start_timeout: float = 30.0, monitor_step: float = 0.04) -> None:
        if not 0.02 <= monitor_step <= 10.0:
            raise ValueError(f"monitor_step must be within 0.02..10 s, got {monitor_step}")
        self.monitor_step = monitor_step
        prefix = find_prefix()
        if prefix is None:
            raise SimSparkError(available()[1])
        self.prefix = prefix
        ports = free_ports(2)
        self.agent_port = agent_port or ports[0]
        self.monitor_port = monitor_port or ports[1]
        self.sync, self.realtime = sync, realtime
        self._own_dir = directory is None                 # a temporary directory, removed by a clean stop()
        self.dir = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="villa-simspark-"))
        self.log_path = self.dir / "server.log"
        self._write_config()
        env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        env.update(HOME=str(self.dir), SPARK_DIR=str(prefix),
                   LD_LIBRARY_PATH=":".join([str(prefix / "lib" / "simspark"), str(prefix / "lib" / "rcssserver3d"),
                                             *filter(None, [os.environ.get("LD_LIBRARY_PATH")])]))
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [str(prefix / "bin" / "rcssserver3d"), "--agent-port", str(self.agent_port), "--server-port",
             str(self.monitor_port), "--script-path", str(self.dir / "rcssserver3d.rb")],
            cwd=self.dir, env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=tied_to_parent(signal.SIGINT))  # it ignores SIGTERM
        deadline = time.monotonic() + start_timeout
        while not (_listening(self.agent_port) and _listening(self.monitor_port)):
            if self.proc.poll() is not None:
                self._log.close()
                raise SimSparkError(f"rcssserver3d exited with {self.proc.returncode} at start; log {self.log_path}:"
                                    f"\n{self.log()}")
            if time.monotonic() > deadline:
                self.stop(keep_files=True)
                raise SimSparkError(f"rcssserver3d did not listen on {self.agent_port} within {start_timeout:.0f} s; "
                                    f"log {self.log_path}")
            time.sleep(0.1)

    def _write_config(self) -> None:
        (self.dir / ".simspark").mkdir(parents=True, exist_ok=True)
        spark = (self.prefix / "share" / "simspark" / "spark.rb").read_text()
        spark = _set_ruby_globals(spark, {
            "agentSyncMode": "true" if self.sync else "false", "agentPort": str(self.agent_port),
            "serverPort": str(self.monitor_port), "serverMultiThreadedMode": "false", "threadedAgentControl": "false",
            "monitorStep": repr(float(self.monitor_step))})
        (self.dir / ".simspark" / "spark.rb").write_text(spark)
        script = (self.prefix / "share" / "rcssserver3d" / "rcssserver3d.rb").read_text()
        script = _set_ruby_globals(script, {"enableRealTimeMode": "true" if self.realtime else "false",
                                            "enableInternalMonitor": "false"})
        (self.dir / "rcssserver3d.rb").write_text(script)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self, tail: int = 4000) -> str:
        if not self._log.closed:
            self._log.flush()
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    def stop(self, timeout: float = 10.0, keep_files: bool = False) -> int | None:
        """SIGINT (the server's clean exit), SIGKILL if it hangs (it can, inside ODE). The temporary directory (its
        configuration and server.log) is removed unless the server had already exited on its own (a crash: its log
        is kept for a look) or `keep_files`."""
        crashed = stop_group(self.proc, timeout)
        if not self._log.closed:
            self._log.close()
        if self._own_dir and not crashed and not keep_files:
            shutil.rmtree(self.dir, ignore_errors=True)
        return self.proc.returncode

    def __enter__(self) -> SimSparkServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# --- the monitor's scene graph ---------------------------------------------------------------------------------
@dataclass
class _Node:
    local: np.ndarray | None              # 4x4 transform relative to the parent (TRF nodes), else None
    children: list[_Node]
    mesh: str = ""                         # the mesh a StaticMesh/SMN child loads ("models/soccerball.obj")
    materials: tuple[str, ...] = ()


def _slt(item: list) -> np.ndarray:
    if len(item) != 17:
        raise ParseError(f"SLT: expected 16 numbers, got {len(item) - 1}")
    return np.array([float(v) for v in item[1:]]).reshape(4, 4).T      # column-major on the wire


def _build(expr: list) -> _Node:
    """A full-state node ``(nd KIND attrs... children...)``."""
    node = _Node(None, [])
    for item in expr[2:]:
        if not isinstance(item, list) or not item:
            continue
        head = item[0]
        if head == "nd":
            node.children.append(_build(item))
        elif head == "SLT":
            node.local = _slt(item)
        elif head == "load" and len(item) > 1:
            node.mesh = item[1]
        elif head in ("resetMaterials", "sMat"):
            node.materials = tuple(item[1:])
    return node


_HEADER_ITEM = re.compile(rb"\((\w+) ([^()]*)\)")
_SLT = re.compile(rb"\(SLT ([^)]*)\)")


class MonitorScene:
    """The server's scene graph as the monitor sees it, and the ground truth derived from it (no sockets)."""

    _UNUM = re.compile(r"^matNum(\d+)$")

    def __init__(self) -> None:
        self.root: _Node | None = None
        self.header: dict[str, str] = {}
        self.play_modes: tuple[str, ...] = PLAY_MODES
        self.messages = 0
        self._ball: tuple[int, ...] | None = None
        self._robots: dict[tuple[str, int], tuple[tuple[int, ...], int]] = {}  # (side, unum) -> (path, type)
        self._prev_ball: tuple[float, np.ndarray] | None = None
        self._count = 0                                  # nodes in the scene graph
        self._tracked: dict[int, _Node] = {}             # pre-order index -> node on a tracked chain

    def feed(self, data: bytes | str) -> None:
        """One monitor message (full state or delta). Raises ParseError on a message it cannot follow."""
        raw = data.encode("ascii") if isinstance(data, str) else bytes(data)
        rds = raw.find(b"(RDS ")
        if rds > 0 and self.root is not None:
            self._feed_delta(raw, rds)
            return
        exprs = parse(raw)
        if len(exprs) < 3:
            raise ParseError("monitor message: expected (header)(RSG|RDS 0 1)(scene)")
        header, kind, scene = exprs[0], exprs[1], exprs[2]
        for item in header:
            if isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str):
                if item[0] == "play_modes":
                    self.play_modes = tuple(item[1:])
                else:
                    self.header[item[0]] = item[1]
        if not isinstance(kind, list) or not kind:
            raise ParseError("monitor message: missing RSG/RDS")
        if kind[0] == "RSG":
            self.root = _Node(np.eye(4), [_build(e) for e in scene if isinstance(e, list) and e and e[0] == "nd"])
            self._index()
        elif kind[0] == "RDS":
            return                                      # a delta before the first full state: nothing to apply
        else:
            raise ParseError(f"monitor message: unknown scene kind {kind[0]!r}")
        self.messages += 1

    def _feed_delta(self, raw: bytes, rds: int) -> None:
        """A delta ``(RDS 0 1)``: the header's items, and the transforms of the tracked nodes (the ball's and the
        robots' chains). A delta repeats the full state's nodes in the same (pre-)order, each node's ``(SLT ...)``
        before its children, so the n-th ``(nd`` of the message is the n-th node of the tree: one scan of the text
        finds the tracked nodes' transforms without building the tree."""
        for m in _HEADER_ITEM.finditer(raw, 0, rds):
            self.header[m.group(1).decode()] = m.group(2).decode()
        node, at = -1, rds                               # pre-order index of the node the scan is in
        updates = []
        for m in _SLT.finditer(raw, rds):
            node += raw.count(b"(nd", at, m.start())
            at = m.start()
            if node in self._tracked:
                updates.append((node, m.group(1)))
        node += raw.count(b"(nd", at)
        if node + 1 != self._count:
            raise ParseError(f"monitor delta has {node + 1} nodes, the scene graph {self._count}")
        for index, values in updates:
            v = values.split()
            if len(v) != 16:
                raise ParseError(f"SLT: expected 16 numbers, got {len(v)}")
            self._tracked[index].local = np.array([float(x) for x in v]).reshape(4, 4).T
        self.messages += 1

    def _index(self) -> None:
        """Find the ball and the robots' torsos. A mesh node hangs under the transform of its body: the ball's
        directly (TRF ball -> mesh), a robot's torso through a display rotation (TRF torso -> TRF -> mesh)."""
        self._ball, self._robots = None, {}

        def walk(node: _Node, path: tuple[int, ...]) -> None:
            for i, child in enumerate(node.children):
                p = path + (i,)
                if child.mesh == "models/soccerball.obj":
                    self._ball = path
                elif child.mesh.startswith("models/naobody") and len(path) >= 2:
                    mats = child.materials
                    side = "left" if "matLeft" in mats else "right" if "matRight" in mats else ""
                    unum = next((int(m.group(1)) for m in map(self._UNUM.match, mats) if m), 0)
                    rtype = int(child.mesh[len("models/naobody"):].split(".")[0] or 0)
                    if side and unum:
                        self._robots[(side, unum)] = (path[:-1], rtype)
                walk(child, p)

        walk(self.root, ())
        order: dict[int, int] = {}                       # id(node) -> pre-order index (the root is not a node)

        def number(node: _Node) -> None:
            for child in node.children:
                order[id(child)] = len(order)
                number(child)

        number(self.root)
        self._count = len(order)
        self._tracked = {}
        for path in [self._ball] + [p for p, _ in self._robots.values()]:
            node = self.root
            for i in path or ():
                node = node.children[i]
                self._tracked[order[id(node)]] = node

    def _world(self, path: tuple[int, ...]) -> np.ndarray:
        m = np.eye(4)
        node = self.root
        for i in path:
            node = node.children[i]
            if node.local is not None:
                m = m @ node.local
        return m

    @property
    def game_time(self) -> float:
        return float(self.header.get("time", 0.0))

    @property
    def play_mode(self) -> str:
        try:
            return self.play_modes[int(self.header.get("play_mode", 0))]
        except (ValueError, IndexError):
            return ""

    def robot_types(self) -> dict[tuple[str, int], int]:
        return {k: t for k, (_, t) in self._robots.items()}

    def truth(self) -> GroundTruth | None:
        """The ground truth now, in villa_sim's GroundTruth (global frame: the left team's)."""
        if self.root is None:
            return None
        sim_time = self.game_time
        ball = np.zeros(3)
        vel = np.zeros(3)
        if self._ball is not None:
            ball = self._world(self._ball)[:3, 3].copy()
            if self._prev_ball is not None and sim_time > self._prev_ball[0]:
                vel = (ball - self._prev_ball[1]) / (sim_time - self._prev_ball[0])
            if self._prev_ball is None or sim_time > self._prev_ball[0]:
                self._prev_ball = (sim_time, ball)
        names = {"left": self.header.get("team_left", ""), "right": self.header.get("team_right", "")}
        players = {}
        for (side, unum), (path, _) in self._robots.items():
            m = self._world(path)
            r = m[:3, :3]
            # SimSpark's torso axes are x right, y forward, z up; REP-103's x forward, y left, z up
            rep = np.column_stack([r[:, 1], -r[:, 0], r[:, 2]])
            players[(side, unum)] = PlayerTruth(names[side], side, unum, tuple(float(v) for v in m[:3, 3]),
                                                _quaternion(rep))
        return GroundTruth(sim_time, self.game_time, self.play_mode, int(self.header.get("score_left", 0)),
                           int(self.header.get("score_right", 0)), tuple(float(v) for v in ball),
                           tuple(float(v) for v in vel), players)


class SimSparkTrainer(Trainer):
    """Trainer and ground truth over SimSpark's monitor port: villa_sim.trainer.Trainer's interface.

    ``move_player`` takes the global frame with theta in rad, 0 = facing +x (the server's own ``move`` angle
    has 0 facing +y, and stands the robot upright); ``team`` is Left or Right (or the side's team name).
    """

    SERVER = "SimSpark"
    HELLO = ""                          # SimSpark's monitor needs the scene graph: the ground truth is read from it

    def __init__(self, host: str = "127.0.0.1", port: int = 3200, connect_timeout: float = 10.0,
                 background: bool = True) -> None:
        self.scene = MonitorScene()
        self.errors = 0
        super().__init__(host, port, connect_timeout, background)

    # --- commands -----------------------------------------------------------------------------------
    def play_mode(self, mode: str) -> None:
        if mode not in PLAY_MODES:
            raise ValueError(f"unknown SimSpark play mode {mode!r}; known: {', '.join(PLAY_MODES)}")
        super().play_mode(mode)

    def place_ball(self, x: float, y: float, z: float | None = None, velocity=(0.0, 0.0, 0.0)) -> None:
        z = 0.042 if z is None else z
        vx, vy, vz = velocity
        self.send(f"(ball (pos {x:.4f} {y:.4f} {z:.4f}) (vel {vx:.4f} {vy:.4f} {vz:.4f}))")

    def _side(self, team: str) -> str:
        if team in ("Left", "Right"):
            return team
        if team.lower() in ("left", "right"):
            return team.capitalize()
        h = self.scene.header
        if h.get("team_left") == team:
            return "Left"
        if h.get("team_right") == team:
            return "Right"
        raise TrainerError(f"no team {team!r} on the server (left: {h.get('team_left')}, right: "
                           f"{h.get('team_right')})")

    def move_player(self, team: str, unum: int, x: float, y: float, theta: float, z: float = 0.4) -> None:
        """Place a robot upright at (x, y, z), facing theta (rad, global frame, 0 = +x); velocities are zeroed."""
        self.send(f"(agent (unum {unum}) (team {self._side(team)}) (move {x:.4f} {y:.4f} {z:.4f} "
                  f"{math.degrees(theta) - 90.0:.3f}))")

    # --- ground truth -------------------------------------------------------------------------------
    def wait_sim_time(self, t: float, timeout: float = 60.0) -> GroundTruth:
        """Wait until the game time reaches t (SimSpark's monitor has no other clock)."""
        return super().wait_sim_time(t, timeout)

    def wait_updates(self, n: int = 2, timeout: float = 30.0) -> GroundTruth:
        """Wait for n more monitor messages (at most one per 2 cycles; also sent while the server waits)."""
        start = self.scene.messages
        return self.wait_for(lambda g: self.scene.messages >= start + n, timeout)

    def _truth_of(self, data: bytes) -> GroundTruth | None:
        try:
            self.scene.feed(data)
        except ParseError:
            self.errors += 1                     # lost track of the tree: ask for a full state again
            self.send("(reqfullstate)")
            return None
        return self.scene.truth()
