"""`villa team`: run a team configuration without a ROS 2 distro (what team.launch.py does with one).

- Players start one at a time: each player's bridge must report the server's confirmation (its `game_state` carries
  our unum) before the next starts, because SimSpark can hang when robots are created at once (SIMSPARK_FACTS.md);
  a player that never confirms is reported and the others start anyway.
- A node (or player) process that dies is restarted with one clear log line, with a growing delay; one that keeps
  dying (5 times within 60 s) is left down, said so, and the others keep playing.
- Ctrl-C / SIGTERM: SIGINT to every process group, SIGKILL after a grace period: nothing is left running.
- Killed with SIGKILL or crashed: every process gets SIGTERM from the kernel (villa_sim.lifetime).
- Logs: one file per process in <log-dir>/<team>/p<unum>/<node or player>.log.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from villa_bringup.team_config import ConfigError, NodeSpec, Player, TeamConfig, default_path, load, swap_to_nao
from villa_sim.lifetime import tied_to_parent

RESTART_LIMIT = 5          # restarts ...
RESTART_WINDOW = 60.0      # ... within this many seconds, then the process is left down
GRACE = 8.0                # s between SIGINT and SIGKILL at shutdown


def _log(msg: str) -> None:
    print(f"villa team: {msg}", flush=True)


def ros_param_arg(name: str, value: Any) -> str:
    """`-p name:=value` with the value in the YAML form ROS 2's argument parser reads."""
    return f"{name}:={json.dumps(value) if isinstance(value, str | list | bool) else value}"


def process_command(config: TeamConfig, player: Player, specs: list[NodeSpec]) -> list[str]:
    """The command line of one process: a whole player (composition player) or one node."""
    if config.composition == "player" and len(specs) > 1:
        cmd = [sys.executable, "-m", "villa_bringup.player", "--config", config.source, "--unum", str(player.unum)]
        return cmd + (["--nao", f"{player.unum}@{player.nao_ip}:{player.port}"] if player.backend == "naoqi" else [])
    (spec,) = specs
    module = spec.kind.cls.split(":")[0]
    cmd = [sys.executable, "-c", f"import sys; from {module} import main; sys.exit(main())",
           "--ros-args", "-r", f"__ns:={spec.namespace}", "-r", f"__node:={spec.name}",
           "-r", ":=".join(spec.clock_remap),
           "--params-file", str(spec.params_file)]
    for k, v in spec.overrides.items():
        if v is not None:
            cmd += ["-p", ros_param_arg(k, v)]
    return cmd


@dataclass
class Managed:
    """One supervised process."""

    label: str                      # /<team>/p<unum>/<node> or /<team>/p<unum> (a whole player)
    command: list[str]
    log_path: Path
    env: dict[str, str]
    proc: subprocess.Popen | None = None
    restarts: deque = field(default_factory=deque)
    given_up: bool = False
    next_start: float = 0.0

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "a")
        log.write(f"--- {time.strftime('%H:%M:%S')} start: {' '.join(self.command)}\n")
        log.flush()
        self.proc = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=self.env, start_new_session=True, preexec_fn=tied_to_parent())
        log.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass


class TeamRunner:
    """Starts, supervises and stops the processes of one team configuration."""

    def __init__(self, config: TeamConfig, log_dir: str | Path, env: dict[str, str] | None = None,
                 ready_timeout: float = 30.0, only: list[int] | None = None) -> None:
        self.config = config
        self.log_dir = Path(log_dir)
        self.env = dict(os.environ if env is None else env)
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.ready_timeout = ready_timeout
        self.players = [p for p in config.players if only is None or p.unum in only]
        self.managed: list[Managed] = []
        self.ready: dict[int, bool] = {}
        self._stop = threading.Event()
        self._watch = None

    # --- start ------------------------------------------------------------------------------------
    def processes_for(self, player: Player) -> list[Managed]:
        specs = self.config.nodes(player)
        groups = [specs] if self.config.composition == "player" else [[s] for s in specs]
        out = []
        for group in groups:
            label = player.namespace(self.config.team) + ("" if len(group) > 1 else f"/{group[0].name}")
            name = "player" if len(group) > 1 else group[0].name
            out.append(Managed(label, process_command(self.config, player, group),
                               self.log_dir / self.config.team / f"p{player.unum}" / f"{name}.log", self.env))
        return out

    def start(self) -> None:
        """Start every player in turn, each after the previous one's bridge confirmed (or timed out)."""
        self._watch = _ReadyWatcher(self.config.team, [p.unum for p in self.players], self.env)
        for i, player in enumerate(self.players):
            if self._stop.is_set():
                return
            if i and self.config.stagger:
                time.sleep(self.config.stagger)
            procs = self.processes_for(player)
            for m in procs:
                m.start()
                self.managed.append(m)
            _log(f"{player.namespace(self.config.team)}: started ({player.backend}, robot type {player.robot_type}, "
                 f"{len(procs)} process{'es' if len(procs) > 1 else ''}, logs in "
                 f"{procs[0].log_path.parent})")
            ok = self._watch.wait(player.unum, self.ready_timeout,
                                  lambda procs=procs: self._stop.is_set() or not any(m.alive() for m in procs))
            self.ready[player.unum] = ok
            if ok:
                _log(f"{player.namespace(self.config.team)}: the server confirmed player {player.unum}")
            elif self._stop.is_set():
                _log(f"{player.namespace(self.config.team)}: stopping before the server confirmed player "
                     f"{player.unum}")
                return
            elif not any(m.alive() for m in procs):
                _log(f"{player.namespace(self.config.team)}: exited before the server confirmed player "
                     f"{player.unum} (see its log); starting the others anyway")
            else:
                _log(f"{player.namespace(self.config.team)}: no confirmation from the server within "
                     f"{self.ready_timeout:.0f} s (see its log); starting the others anyway")
        # every player started: stop listening to their game_state (50 messages a simulated second each, delivered
        # to this process for nothing from here on)
        self._close_watch()

    def _close_watch(self) -> None:
        """Close the readiness watcher once (start and stop may both get here)."""
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.close()

    # --- supervise ---------------------------------------------------------------------------------
    def poll(self) -> None:
        """Restart processes that died (with back-off), give up on ones that keep dying."""
        now = time.monotonic()
        for m in self.managed:
            if m.given_up or m.alive() or self._stop.is_set():
                continue
            if m.next_start == 0.0:  # just noticed the exit
                code = m.proc.returncode if m.proc else None
                while m.restarts and now - m.restarts[0] > RESTART_WINDOW:
                    m.restarts.popleft()
                if len(m.restarts) >= RESTART_LIMIT:
                    m.given_up = True
                    _log(f"{m.label} exited with code {code} {RESTART_LIMIT} times within {RESTART_WINDOW:.0f} s; "
                         f"leaving it down (log: {m.log_path})")
                    continue
                delay = min(1.0 * 2 ** len(m.restarts), 10.0)
                m.next_start = now + delay
                _log(f"{m.label} exited with code {code}; restarting in {delay:.0f} s "
                     f"(restart {len(m.restarts) + 1} of at most {RESTART_LIMIT}; log: {m.log_path})")
            elif now >= m.next_start:
                m.restarts.append(now)
                m.next_start = 0.0
                m.start()

    def run_until_stopped(self, period: float = 0.5) -> None:
        while not self._stop.wait(period):
            self.poll()

    # --- stop --------------------------------------------------------------------------------------
    def stop(self) -> None:
        """SIGINT to every process group, then SIGKILL after GRACE seconds; returns when all are gone."""
        self._stop.set()
        for m in self.managed:
            m.signal(signal.SIGINT)
        deadline = time.monotonic() + GRACE
        for m in self.managed:
            if m.proc is None:
                continue
            try:
                m.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _log(f"{m.label} did not stop within {GRACE:.0f} s; killing it")
                m.signal(signal.SIGKILL)
                m.proc.wait()
            try:  # anything the process left in its group (it had its own session)
                os.killpg(m.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._close_watch()

    def pids(self) -> list[int]:
        return [m.proc.pid for m in self.managed if m.proc is not None]


class _ReadyWatcher:
    """Subscribes to each player's `game_state` and notes when the bridge reports the server's confirmation."""

    def __init__(self, team: str, unums: list[int], env: dict[str, str]) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        from villa_msgs.msg import GameState

        os.environ["ROS_DOMAIN_ID"] = env.get("ROS_DOMAIN_ID", os.environ.get("ROS_DOMAIN_ID", "0"))
        self._ctx = Context()
        rclpy.init(context=self._ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self._node = rclpy.create_node(f"villa_team_watch_{team}", context=self._ctx)
        self._ready = {u: threading.Event() for u in unums}
        for u in unums:
            self._node.create_subscription(GameState, f"/{team}/p{u}/game_state",
                                           lambda msg, u=u: self._ready[u].set() if msg.unum else None, 5)
        self._exec = SingleThreadedExecutor(context=self._ctx)
        self._exec.add_node(self._node)
        self._thread = threading.Thread(target=self._spin, daemon=True, name="team-ready-watch")
        self._thread.start()

    def _spin(self) -> None:
        try:
            while self._ctx.ok():
                self._exec.spin_once(timeout_sec=0.1)
        except Exception:  # context shut down while spinning
            pass

    def wait(self, unum: int, timeout: float, abort) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._ready[unum].wait(0.2):
                return True
            if abort():
                return False
        return False

    def close(self) -> None:
        import rclpy

        rclpy.try_shutdown(context=self._ctx)
        self._thread.join(timeout=2)
        self._node.destroy_node()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default=None, help="team configuration YAML (default: villa_bringup config/team.yaml)")
    p.add_argument("--log-dir", default=".villa-logs/team", help="per-process log files (default .villa-logs/team)")
    p.add_argument("--nao", default="", metavar="UNUM@IP",
                   help="drive that player with a physical Nao through NAOqi, e.g. 3@192.168.1.12")
    p.add_argument("--players", default="", help="comma-separated uniform numbers to start (default: all)")
    p.add_argument("--ready-timeout", type=float, default=30.0,
                   help="s to wait for the server to confirm each player before starting the next (default 30)")
    p.add_argument("--check", action="store_true", help="validate the configuration, print the processes, exit")


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa team", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args()
    try:
        config = load(args.config or default_path())
        if args.nao:
            config = swap_to_nao(config, args.nao)
        only = [int(u) for u in args.players.split(",") if u.strip()] if args.players else None
        for u in only or []:
            config.player(u)
    except ConfigError as e:
        print(f"villa team: {e}", file=sys.stderr)
        return 2
    except ValueError:
        print(f"villa team: --players {args.players!r}: expected uniform numbers such as 1,2,5", file=sys.stderr)
        return 2
    runner = TeamRunner(config, args.log_dir, ready_timeout=args.ready_timeout, only=only)
    if args.check:
        for p in runner.players:
            for m in runner.processes_for(p):
                print(f"{m.label}: {' '.join(m.command)}")
        return 0
    stopping = threading.Event()

    def on_signal(signum, frame):
        if not stopping.is_set():
            stopping.set()
            _log(f"{signal.Signals(signum).name}: stopping every process")
            runner._stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    _log(f"team {config.team}: {len(runner.players)} players, composition {config.composition}, "
         f"ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID', '0')}")
    try:
        runner.start()
        runner.run_until_stopped()
    finally:
        runner.stop()
        _log("stopped; no process left running")
    return 0
