"""villa sim stepped in process (villa_sim.hosted): robots joining leave MuJoCo no bad controls to warn about."""

import mujoco
import numpy as np
import pytest

from villa_bridge import effectors
from villa_sim.hosted import HostedServer


@pytest.fixture
def mujoco_warnings():
    """MuJoCo's warnings (mju_warning: printed and written to MUJOCO_LOG.TXT in the working directory otherwise)."""
    seen: list[str] = []
    before = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(seen.append)
    yield seen
    mujoco.set_mju_user_warning(before)


@pytest.mark.filterwarnings("error::RuntimeWarning")    # numpy's too: nothing to warn about in a normal start
def test_robots_join_without_a_bad_control_warning(mujoco_warnings):
    server = HostedServer(vision_noise=False, seed=3)
    for team, unum in (("villa", 1), ("villa", 2), ("other", 1), ("other", 2)):
        server.connect([effectors.rcssservermj_init("nao", team, unum)], lambda data: "(syn)")
        server.step()                    # joins one at a time, as players do: a recompile per robot
    for _ in range(10):
        server.step()
    assert len(server.agents) == 4
    assert mujoco_warnings == []
    assert np.all(np.isfinite(server.sim._mj_data.ctrl))


def test_commands_for_a_nao_joint_not_in_the_model_are_reported_only_if_they_go_on(caplog):
    """A joining robot's first joint commands can come before the model is rebuilt with it (every `villa match` start
    logged 22 warnings per robot): a Nao joint's name is reported once its commands went on for UNKNOWN_GRACE; a name
    that is no Nao joint at once. Each is reported once."""
    from villa_sim.simulation import UNKNOWN_GRACE, VillaSoccerSimulation

    sim = VillaSoccerSimulation(vision_noise=False, seed=1)
    assert sim.init()
    with caplog.at_level("WARNING", logger="villa_sim.simulation"):
        sim.villa_hinge_velocity("r-1-1-he1", 0.1)                     # a robot joining: not reported
        assert "unknown actuator" not in caplog.text
        for _ in range(UNKNOWN_GRACE - 2):
            sim.villa_hinge_velocity("r-1-1-he1", 0.1)
        assert "unknown actuator" not in caplog.text
        sim.villa_hinge_velocity("r-1-1-he1", 0.1)
        assert caplog.text.count("unknown actuator r-1-1-he1") == 1
        sim.villa_hinge_velocity("r-0-1-nosuchjoint", 0.1)
        assert caplog.text.count("unknown actuator r-0-1-nosuchjoint") == 1
        for _ in range(2 * UNKNOWN_GRACE):
            sim.villa_hinge_velocity("r-1-1-he1", 0.1)
            sim.villa_hinge_velocity("r-0-1-nosuchjoint", 0.1)
    assert caplog.text.count("ignoring commands for unknown actuator") == 2


def test_the_trainer_moves_a_player_and_the_ball_in_play_on_and_the_player_keeps_its_joint_angles():
    """`villa bench attack`'s situations: place_ball and move_player act now, in any play mode (a beam would be
    refused in play on), and the moved robot keeps its joint angles (a walking robot put straight fell)."""
    server = HostedServer(vision_noise=False, seed=3)
    server.connect([effectors.rcssservermj_init("nao", "villa", 2)], lambda data: "(syn)")
    for _ in range(20):
        server.step()
    server.drop_ball()
    server.step()
    assert server.truth().play_mode == "PlayOn"
    (player,) = server.sim.get_players(0).values()
    player._joints[3].qpos[:] = 0.3
    server.place_ball(6.0, -2.0)
    server.move_player("left", 2, 5.0, 1.5, 0.5)
    gt = server.truth()
    assert gt.ball[:2] == pytest.approx((6.0, -2.0), abs=1e-6)
    p = gt.players[("left", 2)]
    assert p.position[:2] == pytest.approx((5.0, 1.5), abs=1e-6)
    assert p.yaw == pytest.approx(0.5, abs=1e-3)
    assert float(player._joints[3].qpos[0]) == pytest.approx(0.3)
    with pytest.raises(Exception, match="no player 7"):
        server.move_player("left", 7, 0.0, 0.0, 0.0)


def test_half_time_goes_to_the_second_halfs_kick_off_and_the_game_ends_after_it():
    """SimSpark's half time on villa sim: at 300 s of play BeforeKickOff (clock at 300 s, ball on the centre spot,
    score kept) instead of GameOver; a host kicks the second half off; GameOver after 600 s. (A 600 s game waited at
    rcssservermj's first-half GameOver for ever.)"""
    server = HostedServer(vision_noise=False, seed=1)
    server.sim.game_state.left_team_score = 2
    server.set_game_time(299.5)                         # the trainer's (time t): near the end of the first half
    server.kick_off("Left")
    server.step()
    server.place_ball(2.0, -1.5)
    modes = set()
    for _ in range(40):                                 # 0.8 s: past 300 s
        server.step()
        modes.add(server.truth().play_mode)
    gt = server.truth()
    assert "GameOver" not in modes
    assert gt.play_mode == "BeforeKickOff" and gt.game_time == pytest.approx(300.0, abs=0.02)
    assert np.hypot(*gt.ball[:2]) < 0.01 and (gt.score_left, gt.score_right) == (2, 0)
    for _ in range(10):                                 # the clock stands before the kick-off
        server.step()
    assert server.truth().game_time == pytest.approx(300.0, abs=0.02)
    server.kick_off("Right")
    for _ in range(10):
        server.step()
    gt = server.truth()
    assert gt.play_mode == "KickOff_Right" and gt.game_time > 300.1
    server.set_game_time(599.7)                         # near the end of the second half; the play mode stays
    server.step()
    assert server.truth().play_mode == "KickOff_Right" and server.truth().game_time > 599.7
    for _ in range(30):
        server.step()
    gt = server.truth()
    assert gt.play_mode == "GameOver" and gt.game_time == pytest.approx(600.0, abs=0.02)
    assert (gt.score_left, gt.score_right) == (2, 0)
