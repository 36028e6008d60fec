"""The real SimSpark server (rcssserver3d 0.7.3) started headless, and villa's trainer over its monitor port.

Skipped with the reason when SimSpark is not installed (a user's fresh clone); CI installs it.
"""

from __future__ import annotations

import math
import socket
import threading

import pytest

from villa_bridge import framing
from villa_bridge.sexp import ParseError
from villa_sim.simspark import MonitorScene, SimSparkServer, SimSparkTrainer, available
from villa_sim.testing import outlives_killed_parent

OK, WHY = available()
pytestmark = pytest.mark.skipif(not OK, reason=WHY)


class SynAgent:
    """A bare SimSpark agent: handshake, then answers every perception with `(syn)` (plus `extra` once)."""

    def __init__(self, port: int, team: str, unum: int, robot_type: int = 0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(framing.encode(f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})"))
        framing.recv_frame(self.sock)
        self.sock.sendall(framing.encode(f"(init (unum {unum})(teamname {team}))(syn)"))
        self.confirmed = threading.Event()
        self.cycles = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop:
                msg = framing.recv_frame(self.sock)
                if b"(unum " in msg:
                    self.confirmed.set()
                self.cycles += 1
                # a tiny head velocity keeps ODE from disabling the robot's bodies (auto-disable)
                self.sock.sendall(framing.encode("(he1 0.001)(syn)"))
        except OSError:
            pass

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        self._thread.join(timeout=5)


@pytest.fixture(scope="module")
def server():
    with SimSparkServer() as srv:
        yield srv
    assert not srv.alive() and not srv.dir.exists()        # its temporary directory went with it


def test_server_runs_headless_on_its_own_ports_and_stops(server):
    assert server.alive()
    assert server.agent_port != server.monitor_port
    text = (server.dir / ".simspark" / "spark.rb").read_text()
    assert "$agentSyncMode = true" in text and "$serverMultiThreadedMode = false" in text


def test_a_server_ends_with_the_process_that_started_it_when_that_is_killed(tmp_path):
    """A villa killed with SIGKILL never runs its clean stop: the server must not play on alone (villa_sim.lifetime).
    Its directory is pytest's: nothing removes a killed villa's temporary one."""
    code = ("import sys; from villa_sim.simspark import SimSparkServer; "
            f"s = SimSparkServer(directory={str(tmp_path)!r}); print(s.proc.pid, flush=True); sys.stdin.read()")
    assert not outlives_killed_parent(code, "rcssserver3d")


def test_trainer_sees_the_robot_moves_it_and_places_the_ball(server):
    agent = SynAgent(server.agent_port, "villaT", 3, robot_type=1)
    try:
        assert agent.confirmed.wait(30)
        with SimSparkTrainer(port=server.monitor_port) as tr:
            g = tr.wait_for(lambda g: ("left", 3) in g.players, 20)
            assert tr.scene.robot_types() == {("left", 3): 1}
            assert g.players[("left", 3)].team == "villaT"
            for theta in (0.0, math.pi / 2, -2.0):
                tr.move_player("villaT", 3, -2.0, 1.5, theta, z=0.45)
                g = tr.wait_for(lambda g, th=theta: abs(math.remainder(g.players[("left", 3)].yaw - th, math.tau))
                                < 0.01 and math.dist(g.players[("left", 3)].position[:2], (-2.0, 1.5)) < 0.01, 10)
                assert g.players[("left", 3)].upright > 0.99
                tr.move_player("villaT", 3, -4.0, -1.0, 0.0, z=0.45)   # somewhere else before the next angle
                tr.wait_for(lambda g: math.dist(g.players[("left", 3)].position[:2], (-4.0, -1.0)) < 0.01, 10)
            tr.play_mode("PlayOn")
            g = tr.wait_for(lambda g: g.play_mode == "PlayOn", 10)
            tr.place_ball(3.0, -2.0)
            g = tr.wait_for(lambda g: math.dist(g.ball[:2], (3.0, -2.0)) < 0.01, 10)
            assert g.ball[2] == pytest.approx(0.042, abs=0.002)
            start = g.sim_time
            g = tr.wait_for(lambda g: g.sim_time > start + 0.5, 20)   # the game clock runs in PlayOn
            with pytest.raises(ValueError, match="unknown SimSpark play mode"):
                tr.play_mode("Playon")
            assert tr.errors == 0
    finally:
        agent.close()


def test_monitor_scene_follows_full_state_and_deltas():
    """A recorded stream: the ball's transform from the full state, then a delta that moves it."""
    full = ("((FieldLength 30)(time 0)(team_left a)(play_mode 3)(play_modes BeforeKickOff PlayOn Other PlayOn))"
            "(RSG 0 1)((nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1))"
            "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 1 2 0.042 1)(nd StaticMesh (load models/soccerball.obj)))"
            "(nd TRF (SLT 0 -1 0 0 1 0 0 0 0 0 1 0 -3 1 0.38 1)"
            "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)(nd StaticMesh (load models/naobody2.obj)"
            "(resetMaterials matNum4 matRight naowhite)))))")
    scene = MonitorScene()
    scene.feed(full)
    g = scene.truth()
    assert g.ball == pytest.approx((1.0, 2.0, 0.042))
    assert g.play_mode == "PlayOn"
    p = g.players[("right", 4)]
    assert p.position == pytest.approx((-3.0, 1.0, 0.38))
    # torso x (right) axis along world +y... (0,-1,0) column -> right = -y, forward = +x: facing 0 rad
    assert p.yaw == pytest.approx(0.0, abs=1e-9) and p.upright == pytest.approx(1.0)
    assert scene.robot_types() == {("right", 4): 2}
    scene.feed("((time 1.5))(RDS 0 1)((nd)(nd (SLT 1 0 0 0 0 1 0 0 0 0 1 0 4 5 0.042 1)(nd))(nd(nd(nd))))")
    g = scene.truth()
    assert g.ball == pytest.approx((4.0, 5.0, 0.042)) and g.game_time == 1.5
    assert g.players[("right", 4)].position == pytest.approx((-3.0, 1.0, 0.38))
    # a delta that moves the robot's outer transform and changes the play mode; the torso's own node is unchanged
    scene.feed("((time 1.54)(play_mode 1))(RDS 0 1)((nd)(nd(nd))(nd (SLT 1 0 0 0 0 1 0 0 0 0 1 0 -2 0.5 0.36 1)"
               "(nd(nd))))")
    g = scene.truth()
    assert g.players[("right", 4)].position == pytest.approx((-2.0, 0.5, 0.36)) and g.play_mode == "PlayOn"
    assert g.players[("right", 4)].yaw == pytest.approx(math.pi / 2)
    assert g.ball == pytest.approx((4.0, 5.0, 0.042)) and scene.messages == 3
    with pytest.raises(ParseError, match="2 nodes"):              # a delta of another tree's shape
        scene.feed("((time 1.56))(RDS 0 1)((nd)(nd))")
    with pytest.raises(ParseError, match="16 numbers"):
        scene.feed("((time 1.56))(RDS 0 1)((nd)(nd (SLT 1 0 0)(nd))(nd(nd(nd))))")
