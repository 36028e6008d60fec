"""A trainer/monitor client for `villa sim`: set the play mode, kick off, place ball and players, read ground truth.

It speaks rcssservermj's monitor protocol (length-prefixed S-expressions on the monitor port) and reads
the `(GT ...)` block our simulation adds to every monitor message (every 2 cycles); it asks villa sim to leave the
scene graph out of its messages (villa_sim.server.VillaMonitor). Poses are in the server's global frame (the left
team's field frame), metres and radians.
"""

from __future__ import annotations

import math
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from villa_bridge import framing
from villa_bridge.sexp import ParseError
from villa_nao import field as F

_GT = re.compile(rb"\(GT \(t ([^)]+)\)\(gt ([^)]+)\)\(pm ([^)]+)\)\(sl (\d+)\)\(sr (\d+)\)"
                 rb"\(ball ([^)]+)\)((?:\(P [^)]+\))*)\)")
_P = re.compile(rb"\(P (\S+) (left|right) (\d+) ([^)]+)\)")


@dataclass(frozen=True)
class PlayerTruth:
    team: str
    side: str
    unum: int
    position: tuple[float, float, float]
    quat: tuple[float, float, float, float]   # (w, x, y, z) of the torso

    @property
    def yaw(self) -> float:
        """Heading of the torso's forward (x) axis, rad, global frame."""
        return F.yaw_upright(self.quat)[0]

    @property
    def upright(self) -> float:
        """z component of the torso's up axis (1 = upright, 0 = lying)."""
        return F.yaw_upright(self.quat)[1]


@dataclass(frozen=True)
class GroundTruth:
    sim_time: float
    game_time: float
    play_mode: str
    score_left: int
    score_right: int
    ball: tuple[float, float, float]
    ball_velocity: tuple[float, float, float]
    players: dict[tuple[str, int], PlayerTruth] = field(default_factory=dict)


def parse_ground_truth(msg: bytes) -> GroundTruth | None:
    m = _GT.search(msg)
    if m is None:
        return None
    b = [float(v) for v in m.group(6).split()]
    players = {}
    for pm in _P.finditer(m.group(7)):
        v = [float(x) for x in pm.group(4).split()]
        p = PlayerTruth(pm.group(1).decode(), pm.group(2).decode(), int(pm.group(3)), tuple(v[:3]), tuple(v[3:7]))
        players[(p.side, p.unum)] = p
    return GroundTruth(float(m.group(1)), float(m.group(2)), m.group(3).decode(), int(m.group(4)),
                       int(m.group(5)), tuple(b[:3]), tuple(b[3:6]), players)


class TrainerError(RuntimeError):
    pass


class Trainer:
    """Connects to the monitor port; commands go out at once, ground truth arrives in the background.

    ``background=False``: no reader thread; the owner reads what has arrived with ``poll()`` (a single-threaded
    loop that knows when it needs the truth: the optimizer's episodes, which read it once a cycle).

    villa sim's trainer; villa_sim.simspark.SimSparkTrainer is the same over SimSpark's monitor, overriding what its
    server says differently (`_truth_of`, the commands' forms) and `SERVER` for the messages.
    """

    SERVER = "the simulation"           # in error messages
    MAX_FRAME = 16 << 20                # bytes: a monitor message
    HELLO = "(villaTruthOnly)"          # sent on connecting: villa sim's messages without the scene graph

    def __init__(self, host: str = "127.0.0.1", port: int = 3200, connect_timeout: float = 10.0,
                 background: bool = True) -> None:
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._sock = socket.create_connection((host, port), timeout=1.0)
                break
            except OSError as e:
                if time.monotonic() > deadline:
                    raise TrainerError(f"cannot reach {self.SERVER}'s monitor port {host}:{port}: {e}") from e
                time.sleep(0.1)
        self._sock.settimeout(None)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._lock = threading.Condition()
        self._send_lock = threading.Lock()
        self._truth: GroundTruth | None = None
        self._closed = False
        self._frames = framing.FrameReader(self.MAX_FRAME)
        self._reader = None
        if background:
            self._reader = threading.Thread(target=self._read_loop, name=f"{type(self).__name__}-reader",
                                            daemon=True)
            self._reader.start()
        if self.HELLO:
            self.send(self.HELLO)

    # --- commands -----------------------------------------------------------------------------------
    def send(self, command: str) -> None:
        try:
            with self._send_lock:
                self._sock.sendall(framing.encode(command))
        except OSError as e:
            raise TrainerError(f"monitor connection lost: {e}") from e

    def kick_off(self, side: str = "Left") -> None:
        self.send(f"(kickOff {side})")

    def set_game_time(self, play_time: float) -> None:
        """SimSpark's (time t), which villa sim takes too: the game clock at t s."""
        self.send(f"(time {play_time:g})")

    def play_mode(self, mode: str) -> None:
        self.send(f"(playMode {mode})")

    def drop_ball(self) -> None:
        self.send("(dropBall)")

    def place_ball(self, x: float, y: float, z: float | None = None, velocity=(0.0, 0.0, 0.0)) -> None:
        z = 0.042 if z is None else z
        vx, vy, vz = velocity
        self.send(f"(ball (pos {x} {y} {z}) (vel {vx} {vy} {vz}))")

    def move_player(self, team: str, unum: int, x: float, y: float, theta: float, z: float = 0.4) -> None:
        """Place a player (global frame); theta in rad, 0 = facing +x. `team` is a team name, Left or Right."""
        self.send(f"(agent (unum {unum}) (team {team}) (move {x} {y} {z} {math.degrees(theta)}))")

    # --- ground truth -------------------------------------------------------------------------------
    def truth(self) -> GroundTruth | None:
        with self._lock:
            return self._truth

    def poll(self, timeout: float = 0.0) -> GroundTruth | None:
        """Read every monitor message that has arrived (waiting up to `timeout` s for the first) and return the
        latest ground truth; for a trainer made with ``background=False``. TrainerError when the connection is lost."""
        if self._reader is not None:
            raise TrainerError("poll() is for a trainer without its background reader (background=False)")
        self._sock.settimeout(timeout if timeout > 0 else 0.0)
        try:
            while True:
                try:
                    chunk = self._sock.recv(1 << 20)
                except (BlockingIOError, TimeoutError):
                    break
                except OSError as e:
                    raise TrainerError(f"monitor connection lost: {e}") from e
                if not chunk:
                    self._closed = True
                    raise TrainerError(f"{self.SERVER}'s monitor connection closed")
                for data in self._frames.feed(chunk):
                    gt = self._truth_of(data)
                    if gt is not None:
                        self._truth = gt
                self._sock.settimeout(0.0)
        finally:
            self._sock.settimeout(None)
        return self._truth

    def wait_for(self, predicate: Callable[[GroundTruth], bool], timeout: float = 30.0) -> GroundTruth:
        """Block until a ground-truth update satisfies the predicate; raise TrainerError on timeout."""
        deadline = time.monotonic() + timeout
        if self._reader is None:                 # no reader thread: read here
            while True:
                gt = self.poll(timeout=0.1)
                if gt is not None and predicate(gt):
                    return gt
                if time.monotonic() > deadline:
                    raise TrainerError(f"timed out waiting for {self.SERVER}")
        with self._lock:
            while True:
                if self._truth is not None and predicate(self._truth):
                    return self._truth
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    raise TrainerError(f"timed out waiting for {self.SERVER}" if not self._closed
                                       else f"{self.SERVER}'s monitor connection closed")
                self._lock.wait(min(remaining, 0.5))

    def wait_sim_time(self, t: float, timeout: float = 60.0) -> GroundTruth:
        return self.wait_for(lambda g: g.sim_time >= t, timeout)

    def close(self) -> None:
        self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _next_truth(self) -> GroundTruth | None:
        """Read one monitor message: the ground truth it gives, or None."""
        return self._truth_of(framing.recv_frame(self._sock, self.MAX_FRAME))

    def _truth_of(self, data: bytes) -> GroundTruth | None:
        """The ground truth one monitor message gives, or None."""
        return parse_ground_truth(data)

    def _read_loop(self) -> None:
        try:
            while not self._closed:
                gt = self._next_truth()
                if gt is not None:
                    with self._lock:
                        self._truth = gt
                        self._lock.notify_all()
        except (OSError, ConnectionError, ParseError):
            pass
        finally:
            with self._lock:
                self._closed = True
                self._lock.notify_all()
