"""The socket loop against a scripted fake server: handshake, confirmation, bad input, reconnect, late cycles."""

from __future__ import annotations

import logging
import socket
import struct
import threading

import pytest

from villa_bridge.framing import encode, recv_frame
from villa_bridge.joint_io import command_to_targets
from villa_bridge.rcssservermj import RcssservermjBackend
from villa_bridge.session import Backoff, BridgeSession, SessionConfig
from villa_bridge.sexp import parse
from villa_bridge.simspark import SimSparkBackend
from villa_sim.testing import free_ports

HJ = "".join(f"(HJ (n {n}) (ax 0.00))" for n in ("hj1", "hj2"))
PLAIN = "(time (now {t:.2f}))(GS (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))(GYR (n torso) (rt 0 0 0))" + HJ
CONFIRM = "(time (now {t:.2f}))(GS (unum 7) (team right) (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))" + HJ


class FakeServer:
    def __init__(self):
        self.port = free_ports(1)[0]
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.listener.settimeout(10)
        self.conn = None

    def accept(self):
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(10)

    def send(self, msg: str | bytes):
        self.conn.sendall(encode(msg) if isinstance(msg, str) else msg)

    def recv(self) -> str:
        return recv_frame(self.conn).decode()

    def close(self):
        for s in (self.conn, self.listener):
            if s is not None:
                s.close()


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.close()


def start(session):
    th = threading.Thread(target=session.run, daemon=True)
    th.start()
    return th


def test_simspark_handshake_confirmation_malformed_and_reconnect(server, caplog):
    caplog.set_level(logging.INFO, logger="villa_bridge.session")
    confirmed = []
    perceptions = []
    backend = SimSparkBackend("villa", 7, robot_type=0)
    session = BridgeSession(backend, SessionConfig(port=server.port, retry_initial=0.05, retry_max=0.1,
                                                   max_message_size=4096),
                            on_perception=lambda p, t: perceptions.append(p),
                            on_confirmed=lambda u, s: confirmed.append((u, s)))
    th = start(session)
    try:
        server.accept()
        assert server.recv() == "(scene rsg/agent/nao/nao_hetero.rsg 0)"
        server.send(PLAIN.format(t=1.0))
        assert server.recv() == "(init (unum 7)(teamname villa))(syn)"
        server.send(CONFIRM.format(t=1.02))
        reply = parse(server.recv())
        assert reply[-1] == ["syn"] and len(reply) == 23            # 22 hinge velocities + syn
        assert confirmed == [(7, "right")] and session.side == "right"
        # beam and say go out with the next cycle, team-relative beam as given (SimSpark converts)
        session.submit_beam(-3.0, 1.0, 0.0)
        session.submit_say("hello")
        server.send(PLAIN.format(t=1.04))
        reply = parse(server.recv())
        assert ["beam", "-3", "1", "0"] in reply and ["say", "hello"] in reply and reply[-1] == ["syn"]
        # malformed: counted, logged, still answered with (syn) so a sync server does not hang
        server.send("(time (now 1.06))(HJ (n hj1) (ax oops))")
        assert parse(server.recv())[-1] == ["syn"]
        assert session.stats.malformed == 1
        assert "malformed perception skipped" in caplog.text
        # oversized but plausible frame: skipped, counted, answered
        server.send(encode("(x " + "y" * 5000 + ")"))
        assert parse(server.recv())[-1] == ["syn"]
        assert session.stats.malformed == 2
        server.send(PLAIN.format(t=1.08))                                # still in sync afterwards
        assert parse(server.recv())[-1] == ["syn"] and session.stats.malformed == 2
        # absurd length prefix: the stream is out of sync, connection dropped, reconnect, new scene + init
        server.send(struct.pack(">I", 1 << 30))
        server.conn.close()
        server.accept()
        assert server.recv() == "(scene rsg/agent/nao/nao_hetero.rsg 0)"
        assert session.unum is None
        server.send(PLAIN.format(t=2.0))
        assert server.recv().startswith("(init (unum 7)")
        assert session.stats.connects == 2
    finally:
        session.stop()
        th.join(5)
    assert not th.is_alive()


def test_server_not_up_retries_with_one_line_per_attempt(caplog):
    caplog.set_level(logging.INFO, logger="villa_bridge.session")
    port = free_ports(1)[0]
    session = BridgeSession(SimSparkBackend("villa", 1), SessionConfig(port=port, retry_initial=0.01, retry_max=0.02,
                                                                      max_attempts=3))
    session.run()   # returns after giving up
    lines = [r.getMessage() for r in caplog.records]
    assert sum("not reachable" in m for m in lines) == 2
    assert any("giving up after 3 attempts" in m for m in lines)


def test_backoff_doubles_up_to_its_cap_and_bounds_the_attempts():
    b = Backoff(0.5, 2.0, max_attempts=5)
    assert [b.failed() for _ in range(5)] == [0.5, 1.0, 2.0, 2.0, None]    # the 5th failure gives up
    b.reset()
    assert b.attempt == 0 and b.failed() == 0.5
    assert all(Backoff(0.1, 0.1).failed() == 0.1 for _ in range(100))     # 0 = keep trying
    for bad in ((0.0, 1.0, 0), (2.0, 1.0, 0), (0.5, 1.0, -1)):
        with pytest.raises(ValueError, match="retry_initial|max_attempts"):
            Backoff(*bad)


def test_late_motion_holds_targets_and_counts_late_cycles(server):
    backend = SimSparkBackend("villa", 7)
    cycles = []
    session = BridgeSession(backend, SessionConfig(port=server.port, target_deadline=0.02, motion_timeout_cycles=3),
                            on_cycle=lambda lat, late: cycles.append(late))
    backend.sync = False                    # real-time mode: a wall-clock deadline per cycle
    th = start(session)
    try:
        server.accept()
        server.recv()
        server.send(PLAIN.format(t=1.0))
        server.recv()
        # targets that arrive between cycles (late for the previous one) prove motion alive; then it falls silent
        session.submit_targets(command_to_targets(["HeadYaw"], [0.1]))
        for k in range(7):
            server.send(CONFIRM.format(t=1.02 + 0.02 * k))
            reply = {e[0]: e[1:] for e in parse(server.recv())}
            assert "syn" not in reply                                     # real-time mode
            assert float(reply["he1"][0]) > 0.0                           # the held target still drives the joint
        # 3 cycles wait in vain (late, held targets sent), then the bridge stops waiting for silent motion
        assert cycles[:6] == [True, True, True, False, False, False]
        assert session.stats.late_cycles == 3
    finally:
        session.stop()
        th.join(5)


def test_a_failing_callback_does_not_stop_the_loop(server):
    def boom(p, t):
        raise RuntimeError("publisher gone")

    session = BridgeSession(SimSparkBackend("villa", 7), SessionConfig(port=server.port), on_perception=boom)
    th = start(session)
    try:
        server.accept()
        server.recv()
        for k in range(4):
            server.send(CONFIRM.format(t=1.0 + 0.02 * k))
            assert parse(server.recv())[-1] == ["syn"]
        assert session.stats.callback_errors == 3        # the first perception is answered with init only
    finally:
        session.stop()
        th.join(5)


def test_sync_mode_waits_for_alive_motion_and_a_watchdog_answers_for_dead_motion(server):
    """In sync mode the server waits for us anyway: no wall-clock deadline cuts alive motion short (a slow motion
    layer is never late); a motion layer that stops answering is declared dead after the watchdog, and from then on
    the bridge answers at once until motion sends again."""
    cycles = []
    done = threading.Condition()

    def on_cycle(latency, late):
        with done:
            cycles.append((latency, late))
            done.notify_all()

    def cycle(t: float, answer=None):
        """Send a perception at server time t, optionally answer it from another thread; (latency, late)."""
        n = len(cycles)
        server.send((CONFIRM if n == 0 else PLAIN).format(t=t))
        if answer is not None:
            threading.Timer(answer[0], lambda: session.submit_targets(command_to_targets(["HeadYaw"], [0.2]),
                                                                      answer[1])).start()
        reply = {e[0]: e[1:] for e in parse(server.recv())}
        assert float(reply["he1"][0]) != 0.0
        with done:
            assert done.wait_for(lambda: len(cycles) > n, 5)
            return cycles[-1]

    session = BridgeSession(SimSparkBackend("villa", 7, sync=True),
                            SessionConfig(port=server.port, sync_watchdog=0.3, idle_cycle_period=0.0),
                            on_cycle=on_cycle)
    th = start(session)
    try:
        server.accept()
        server.recv()
        server.send(PLAIN.format(t=1.0))
        server.recv()
        session.submit_targets(command_to_targets(["HeadYaw"], [0.1]))     # motion alive
        # slow motion: targets 0.15 s after the perception (a 0.1 s deadline would have sent without them)
        latency, late = cycle(1.02, answer=(0.15, 1.02))
        assert latency >= 0.14 and not late
        # a stale answer (for an earlier perception) is held but does not answer this one: the watchdog expires
        latency, late = cycle(1.04, answer=(0.0, 1.02))
        assert latency >= 0.3 and late and session.stats.late_cycles == 1
        # motion is dead now: answered at once, not late
        latency, late = cycle(1.06)
        assert latency < 0.2 and not late
        # motion back: waited for again
        session.submit_targets(command_to_targets(["HeadYaw"], [0.3]), 1.06)
        latency, late = cycle(1.08, answer=(0.1, 1.08))
        assert latency >= 0.09 and not late and session.stats.late_cycles == 1
    finally:
        session.stop()
        th.join(5)


def test_on_answered_comes_after_the_answer_went_out(server):
    """The owner's on_answered gets the perception after its answer was sent (the ROS bridge publishes all but motion's
    inputs then): the server has the answer before the callback runs, and the callback never delays it."""
    sent_before = []
    answered = []
    done = threading.Event()

    def on_answered(p):
        server.conn.settimeout(0.5)
        try:                                   # the answer is already on the wire: readable without waiting
            sent_before.append(parse(server.recv())[-1] == ["syn"])
        finally:
            server.conn.settimeout(10)
        answered.append(p.time)
        if len(answered) >= 2:
            done.set()

    session = BridgeSession(SimSparkBackend("villa", 7), SessionConfig(port=server.port, target_deadline=0.01),
                            on_answered=on_answered)
    th = start(session)
    try:
        server.accept()
        server.recv()                                            # scene
        server.send(PLAIN.format(t=1.0))                         # the first perception: answered with init
        server.recv()
        for t in (1.02, 1.04):
            server.send(CONFIRM.format(t=t))
        assert done.wait(5)
        assert answered == [pytest.approx(1.02), pytest.approx(1.04)] and all(sent_before)
    finally:
        session.stop()
        th.join(5)


def test_real_time_mode_sends_no_empty_frame_before_motion_targets(server):
    """rcssservermj in real-time mode: a robot without targets has nothing to say, and says nothing. An empty frame
    (length 0) made rcssservermj read a whole buffer as one message and drop the player 2.7 s after it joined (every
    `villa match --realtime` start, until the bridge's reconnect)."""
    backend = RcssservermjBackend("villa", 7, sync=False)
    cycles = threading.Semaphore(0)
    session = BridgeSession(backend, SessionConfig(port=server.port, target_deadline=0.01, motion_timeout_cycles=2),
                            on_cycle=lambda latency, late: cycles.release())
    th = start(session)
    try:
        server.accept()
        assert server.recv().startswith("(init nao villa 7)")
        for k in range(5):                                   # no targets yet: every cycle passes in silence
            server.send(PLAIN.format(t=1.0 + 0.02 * k))
            assert cycles.acquire(timeout=5)
        session.submit_targets(command_to_targets(["HeadYaw"], [0.1]))
        server.send(PLAIN.format(t=1.1))
        first = server.recv()                                # the first frame after init answers the last perception
        assert first and "he1" in first and "syn" not in first
        assert cycles.acquire(timeout=5) and session.stats.cycles == 6 and session.stats.connects == 1
    finally:
        session.stop()
        th.join(5)
