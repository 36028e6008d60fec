"""The bridge's socket loop, free of ROS: connect, handshake, and one effector message per perception.

Per cycle (architecture.md "Timing"): blocking receive of a perception -> parse -> hand it to the owner
(``on_perception``: the node publishes the clock and motion's inputs) -> wait for this cycle's joint targets -> send
one message with every joint command, beam, say and (syn) -> hand the perception on again (``on_answered``: the node
publishes the rest, whose callbacks would otherwise run before its joint-target callback). How long to wait depends
on the server:

- sync mode (the server waits for every agent anyway): as long as motion is alive, up to a watchdog
  (``sync_watchdog`` wall s). A watchdog that expires counts the cycle late and marks motion dead: from then on the
  bridge answers at once (held targets) until motion sends again, so a dead motion layer never stalls the server.
- real-time mode: up to ``target_deadline`` after the perception; a miss sends the held targets and counts the
  cycle late. After ``motion_timeout_cycles`` cycles without targets the bridge stops waiting.

Targets carry the time of the perception they answer (the JointCommand's stamp); targets for an earlier cycle that
arrive late are held but do not answer the current one. Malformed perceptions are counted, logged and answered with
the held targets (in sync mode the server waits for an answer). An answer with nothing in it (real-time mode, before
motion's first targets) is not sent. A dropped connection reconnects with back-off and a new init.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from villa_bridge import effectors, framing
from villa_bridge.backend import Backend
from villa_bridge.joint_io import HeldTargets, JointTarget, from_wire
from villa_bridge.perception import Perception, parse_perception
from villa_bridge.sexp import ParseError
from villa_bridge.teamframe import beam_on_wire

logger = logging.getLogger("villa_bridge.session")
T = TypeVar("T")


@dataclass
class Backoff:
    """Connection attempts with exponential back-off: wait `initial` s after the first failure, doubling up to
    `maximum`; at most `max_attempts` attempts in all (0 = no limit). The simulator bridge's, and the NAOqi bridge's."""

    initial: float
    maximum: float
    max_attempts: int = 0
    attempt: int = field(default=0, init=False)        # failed attempts since the last success
    delay: float = field(default=0.0, init=False)      # s to wait after the next failure

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.maximum < self.initial:
            raise ValueError("retry_initial must be > 0 and retry_max >= retry_initial")
        if self.max_attempts < 0:
            raise ValueError(f"max_attempts must be >= 0 (0 = keep trying), got {self.max_attempts}")
        self.delay = self.initial

    def failed(self) -> float | None:
        """Count a failed attempt: the seconds to wait before the next one, or None when the attempts are used up."""
        self.attempt += 1
        if self.max_attempts and self.attempt >= self.max_attempts:
            return None
        delay, self.delay = self.delay, min(self.delay * 2, self.maximum)
        return delay

    def reset(self) -> None:
        self.attempt, self.delay = 0, self.initial


def retry(attempt: Callable[[], T], backoff: Backoff, stop: threading.Event,
          on_failure: Callable[[Exception, int, float | None], None],
          errors: tuple[type[Exception], ...] = (OSError,)) -> T | None:
    """`attempt()` until it returns, waiting `backoff`'s delays between failures (raising one of `errors`); after each
    failure ``on_failure(error, attempts so far, delay)`` with delay None when giving up. None when the attempts are
    used up or `stop` is set; a success resets the back-off."""
    while not stop.is_set():
        try:
            result = attempt()
        except errors as e:
            delay = backoff.failed()
            on_failure(e, backoff.attempt, delay)
            if delay is None:
                return None
            stop.wait(delay)
            continue
        backoff.reset()
        return result
    return None


@dataclass
class SessionConfig:
    host: str = "127.0.0.1"
    vision: bool = True              # parse the perceptions' vision (False: skipped, for hosts that need none)
    port: int = 3100
    reconnect: bool = True
    retry_initial: float = 0.5       # s, first back-off
    retry_max: float = 5.0           # s, back-off cap
    max_attempts: int = 0            # connection attempts before giving up; 0 = forever
    target_deadline: float = 0.015   # real-time mode: s after a perception arrived to wait for joint targets
    motion_timeout_cycles: int = 50  # real-time mode: stop waiting for targets after this many cycles without any
    sync_watchdog: float = 2.0       # sync mode: wall s to wait for alive motion before declaring it dead
    idle_cycle_period: float = 0.0   # s wall: without motion, answer no sooner than this after a perception
    max_message_size: int = framing.DEFAULT_MAX_SIZE
    recv_timeout: float = 5.0        # s without any message -> treat the connection as dead
    discard_limit: int = 64 << 20    # bytes: an oversized frame up to this is skipped, a larger one reconnects


@dataclass
class SessionStats:
    cycles: int = 0
    late_cycles: int = 0
    malformed: int = 0
    connects: int = 0
    say_rejected: int = 0
    callback_errors: int = 0         # exceptions raised by the owner's callbacks (logged, the loop goes on)
    spoiled: int = 0                 # perception elements dropped for a non-finite value (the rest was used)


class BridgeSession:
    """Runs in its own thread (``run``); other threads only call the ``submit_*`` methods and ``stop``."""

    def __init__(self, backend: Backend, config: SessionConfig,
                 on_perception: Callable[[Perception, float], None] | None = None,
                 on_cycle: Callable[[float, bool], None] | None = None,
                 on_confirmed: Callable[[int, str], None] | None = None,
                 on_answered: Callable[[Perception], None] | None = None,
                 log: logging.Logger | None = None) -> None:
        self.backend, self.config = backend, config
        self.on_perception = on_perception or (lambda p, t: None)
        self.on_answered = on_answered or (lambda p: None)
        self.on_cycle = on_cycle or (lambda latency, late: None)
        self.on_confirmed = on_confirmed or (lambda unum, side: None)
        self.log = log or logger
        self.held = HeldTargets(getattr(backend, "joints", None) or HeldTargets().joints)
        self.stats = SessionStats()
        self.unum: int | None = None
        self.side: str | None = None
        self._lock = threading.Lock()
        self._targets_event = threading.Event()
        self._pending_targets: dict[str, JointTarget] = {}
        self._pending_beam: tuple[float, float, float] | None = None
        self._pending_say: str | None = None
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._cycles_since_targets = 10**9
        self._targets_seq = 0        # incremented by every submit_targets
        self._seq_seen = 0           # _targets_seq when the previous cycle ended
        self._cycle_time: float | None = None     # server time of the perception being answered
        self._motion_dead = True                  # sync mode: the watchdog expired and no targets came since
        self._first = True                        # the next message is the connection's first
        self._answered: Perception | None = None  # the perception the last answer went to (for on_answered)
        self.angles: dict[str, float] = {}        # the perception being answered: joint angles, NAOqi names, rad

    # --- called from other threads -------------------------------------------------------------------
    def submit_targets(self, targets: Mapping[str, JointTarget], stamp: float | None = None) -> None:
        """Targets from motion; ``stamp`` = server time of the perception they answer (None or 0: unstamped, taken as
        answering the current one). Stale targets (an earlier cycle) are held but do not end this cycle's wait."""
        with self._lock:
            self._pending_targets.update(targets)
            self._targets_seq += 1
            current = self._cycle_time
            stale = bool(stamp) and current is not None and stamp < current - 1e-6
            self._motion_dead = False
        if not stale:
            self._targets_event.set()

    def submit_beam(self, x: float, y: float, theta: float) -> None:
        with self._lock:
            self._pending_beam = (x, y, theta)

    def submit_say(self, text: str) -> None:
        """Raises effectors.SayError (with the reason) for text the server would drop or split."""
        effectors.validate_say(text)
        with self._lock:
            self._pending_say = text

    def stop(self) -> None:
        self._stop.set()
        self._targets_event.set()
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    @property
    def confirmed(self) -> bool:
        return self.unum is not None

    # --- the loop --------------------------------------------------------------------------------------
    def run(self) -> None:
        backoff = Backoff(self.config.retry_initial, self.config.retry_max, self.config.max_attempts)
        address = (self.config.host, self.config.port)
        while not self._stop.is_set():
            sock = retry(lambda: socket.create_connection(address, timeout=2.0), backoff, self._stop,
                         self._connect_failed)
            if sock is None:
                return
            self.stats.connects += 1
            try:
                self._serve(sock)
            except (ConnectionError, OSError, framing.FrameTooLarge) as e:
                if self._stop.is_set():
                    break
                self.log.warning(f"bridge: connection to {self.backend.name} lost ({e})")
            finally:
                self._sock = None
                sock.close()
                self.unum = self.side = None
            if self._stop.is_set() or not self.config.reconnect:
                break
            self.log.info(f"bridge: reconnecting in {backoff.delay:.1f} s")
            self._stop.wait(backoff.delay)

    def _connect_failed(self, e: Exception, attempt: int, delay: float | None) -> None:
        where = f"{self.backend.name} at {self.config.host}:{self.config.port}"
        if delay is None:
            self.log.error(f"bridge: cannot reach {where} ({e}); giving up after {attempt} attempts")
        else:
            self.log.warning(f"bridge: {where} not reachable ({getattr(e, 'strerror', None) or e}); "
                             f"attempt {attempt}, retrying in {delay:.1f} s")

    def _send(self, sock: socket.socket, msg: str) -> None:
        sock.sendall(framing.encode(msg))

    def _serve(self, sock: socket.socket) -> None:
        self._sock = sock
        sock.settimeout(self.config.recv_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for msg in self.begin():
            self._send(sock, msg)
        while not self._stop.is_set():
            data = None
            try:
                data = framing.recv_frame(sock, self.config.max_message_size)
            except TimeoutError:
                raise ConnectionError(f"no message for {self.config.recv_timeout} s") from None
            except framing.FrameTooLarge as e:
                if e.size > self.config.discard_limit:
                    raise                          # not a plausible message: the stream is out of sync, reconnect
                framing.discard(sock, e.size)
                self.stats.malformed += 1
                self.log.warning(f"bridge: oversized message skipped ({e}); {self.stats.malformed} malformed so far")
            reply = self.answer(data)
            if reply:
                # nothing to say (real-time mode, no targets yet) sends no frame: rcssservermj reads a zero-length
                # frame as one as long as its buffer, swallows the next messages and drops the connection
                self._send(sock, reply)
            self.answered()

    # --- one exchange (the socket loop's, or an in-process server's: villa_sim.hosted) ---------------------------
    def begin(self) -> list[str]:
        """A new connection: the messages to send first; a new robot starts without targets."""
        self._first = True
        self.held = HeldTargets(self.held.joints)
        return self.backend.hello()

    def answer(self, data: bytes | None) -> str:
        """One message from the server (None: an oversized one that was skipped) -> the message to send back; the
        sender calls `answered()` once it went out."""
        t0 = time.monotonic()
        perception = None
        self._answered = None
        try:
            if data is not None:
                perception = parse_perception(data, self.config.vision)
        except ParseError as e:
            self.stats.malformed += 1
            self.log.warning(f"bridge: malformed perception skipped ({e}); {self.stats.malformed} so far")
        if self._first:
            self._first = False
            reply = self.backend.first_reply()
            if reply is not None:
                return reply
        with self._lock:
            self._targets_event.clear()
            if perception is not None and perception.time is not None:
                self._cycle_time = perception.time
        angles: dict[str, float] = {}
        if perception is not None:
            if self.unum is None:
                conf = self.backend.confirmation(perception)
                if conf is not None:
                    self.unum, self.side = conf
                    self.log.info(f"bridge: server confirmed {self.backend.team} #{conf[0]} on the {conf[1]}")
                    self.on_confirmed(*conf)
            names, pos, _ = from_wire(perception.joint_names, perception.joint_angles)
            angles = dict(zip(names, pos.tolist(), strict=True))
            self.angles = angles
            self._guarded(self.on_perception, perception, t0)
            self.stats.spoiled += perception.spoiled
            self._answered = perception
        # motion answers published joint states only: no perception, nothing to wait for
        late = self._wait_targets(t0) if perception is not None and angles else False
        reply = self._compose(angles)
        latency = time.monotonic() - t0
        self.stats.cycles += 1
        self._guarded(self.on_cycle, latency, late)
        return reply

    def answered(self) -> None:
        """The answer to the last perception went out: `on_answered` with that perception (what the owner hands on
        only after the cycle's answer)."""
        p, self._answered = self._answered, None
        if p is not None:
            self._guarded(self.on_answered, p)

    def _guarded(self, callback, *args) -> None:
        """Run an owner callback; an exception there must not stop the control loop (the server waits on us)."""
        try:
            callback(*args)
        except Exception as e:
            self.stats.callback_errors += 1
            if self.stats.callback_errors <= 10 or self.stats.callback_errors % 1000 == 0:
                self.log.error(f"bridge: callback failed ({type(e).__name__}: {e}); "
                               f"{self.stats.callback_errors} failures so far")

    def _wait_targets(self, t0: float) -> bool:
        """Wait for this cycle's targets while motion is alive (see the module docstring); True for a late cycle."""
        if self.backend.sync:
            return self._wait_sync(t0)
        if self._targets_seq != self._seq_seen and not self._targets_event.is_set():
            self._cycles_since_targets = 0               # targets came in after the previous deadline
        if self._cycles_since_targets <= self.config.motion_timeout_cycles:
            self._targets_event.wait(max(0.0, t0 + self.config.target_deadline - time.monotonic()))
        elif self.config.idle_cycle_period > 0:
            self._idle(t0)
        got = self._targets_event.is_set()
        self._cycles_since_targets = 0 if got else self._cycles_since_targets + 1
        self._seq_seen = self._targets_seq
        late = not got and self._cycles_since_targets <= self.config.motion_timeout_cycles
        if late:
            self.stats.late_cycles += 1
        return late

    def _wait_sync(self, t0: float) -> bool:
        """Sync mode: the server waits for us anyway, so wait for alive motion up to the watchdog."""
        if self._motion_dead:
            if self.config.idle_cycle_period > 0:
                self._idle(t0)
            return False
        if self._targets_event.wait(max(0.0, t0 + self.config.sync_watchdog - time.monotonic())):
            return False
        with self._lock:
            self._motion_dead = True
        self.stats.late_cycles += 1
        self.log.warning(f"bridge: no joint targets for {self.config.sync_watchdog:.1f} s; answering with the held "
                         "targets until motion sends again")
        return True

    def _idle(self, t0: float) -> None:
        """No motion: pace the (sync) server instead of spinning it as fast as the wire allows."""
        self._targets_event.wait(max(0.0, t0 + self.config.idle_cycle_period - time.monotonic()))

    def _compose(self, angles: Mapping[str, float]) -> str:
        with self._lock:
            targets, self._pending_targets = self._pending_targets, {}
            beam, self._pending_beam = self._pending_beam, None
            say, self._pending_say = self._pending_say, None
        if targets:
            self.held.update(targets)
        joints = self.backend.joint_commands(self.held, angles)
        beam_cmd = ""
        if beam is not None:
            beam_cmd = effectors.beam(*beam_on_wire(self.backend.name, self.side, *beam))
        say_cmd = ""
        if say is not None:
            try:
                say_cmd = effectors.say(say)
            except effectors.SayError as e:   # submit_say validated already; keep the loop alive regardless
                self.stats.say_rejected += 1
                self.log.error(str(e))
        return effectors.compose(joints, beam_cmd, say_cmd, self.backend.sync)
