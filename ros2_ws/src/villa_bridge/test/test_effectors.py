"""Effector messages: composed, re-parsed, say validation, SimSpark P control, team-relative conversions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from villa_bridge import effectors
from villa_bridge.joint_control import p_control
from villa_bridge.joint_io import HeldTargets, command_to_targets
from villa_bridge.rcssservermj import RcssservermjBackend
from villa_bridge.sexp import parse
from villa_bridge.simspark import SimSparkBackend
from villa_bridge.teamframe import beam_on_wire, field_pose, landmark_name, play_mode, scores
from villa_nao.joints import SIMSPARK_MAX_SPEED


@pytest.mark.parametrize("text", ["exactly_twenty_chars", "punct:ok,1.5+x=y!", "a"])
def test_say_accepts_what_simspark_broadcasts(text):
    assert effectors.say(text) == f"(say {text})"


@pytest.mark.parametrize("text, why", [("twenty_one_chars_xxx_", "over 20"), ("bad msg", "not allowed"),
                                       ("a(b", "not allowed"), ("", "empty"), ("caf\u00e9", "not allowed")])
def test_say_rejects_with_reason(text, why):
    with pytest.raises(effectors.SayError, match=why):
        effectors.validate_say(text)


def test_simspark_message_composes_and_reparses():
    b = SimSparkBackend("villa", 3, robot_type=4)
    held = HeldTargets(b.joints)
    held.update(command_to_targets(["HeadYaw", "LKneePitch"], [0.2, 1.0]))
    angles = {"HeadYaw": 0.0, "LKneePitch": 1.0}
    msg = effectors.compose(b.joint_commands(held, angles), effectors.beam(*beam_on_wire("simspark", "right", -3, 1,
                                                                                        math.pi / 2)),
                            effectors.say("hi"))
    exprs = parse(msg)
    heads = [e[0] for e in exprs]
    assert heads[-3:] == ["beam", "say", "syn"] and len(heads) == 24 + 3
    vals = {e[0]: float(e[1]) for e in exprs if len(e) == 2 and e[0] != "say"}
    assert vals["he1"] == pytest.approx(min(40 * 0.2, SIMSPARK_MAX_SPEED), abs=1e-4)
    assert vals["lle4"] == 0.0 and vals["rle7"] == 0.0          # at target / no target: hold still
    assert exprs[-3] == ["beam", "-3", "1", "90"]
    assert b.hello() == ["(scene rsg/agent/nao/nao_hetero.rsg 4)"]
    assert b.first_reply() == "(init (unum 3)(teamname villa))(syn)"


def test_simspark_joints_round_to_four_decimals_in_effector_order():
    names = ["he1", "he2", "lle1"]
    msg = effectors.simspark_joints(names, np.array([0.123456, -2.0, -0.0]))
    assert msg == "(he1 0.1235)(he2 -2.0000)(lle1 -0.0000)"
    assert [float(e[1]) for e in parse(msg)] == [0.1235, -2.0, 0.0]
    assert effectors.simspark_joints(("he1",), [6.14]) == "(he1 6.1400)"
    with pytest.raises(ValueError, match="3 effectors, 2 velocities"):
        effectors.simspark_joints(names, [0.0, 1.0])


def test_p_control_sign_clamp_and_stiffness():
    v = p_control(np.array([1.0, -1.0, np.nan, 0.5]), np.array([0.0, 0.0, 0.0, 0.4]), np.zeros(4),
                  np.array([1.0, 1.0, 1.0, 0.5]), 40.0, np.full(4, 6.0))
    assert v == pytest.approx([6.0, -6.0, 0.0, 0.5 * 40 * 0.1])
    b = SimSparkBackend("villa", 1)
    held = HeldTargets(b.joints)
    held.update(command_to_targets(["HeadPitch"], [0.1]))   # NAOqi pitch down = wire negative
    wire = b.velocities(held, {"HeadPitch": 0.0})
    assert wire[[j.name for j in b.joints].index("HeadPitch")] == pytest.approx(-4.0)


def test_rcssservermj_sends_the_same_hinge_velocities_as_simspark():
    """villa sim's Nao has SimSpark's velocity-controlled hinges: both backends command them alike."""
    b = RcssservermjBackend("villa", 2)
    ss = SimSparkBackend("villa", 2)
    held = HeldTargets(b.joints)
    assert b.joint_commands(held, {}) == ""                 # nothing commanded yet: the joints hold still
    held.update(command_to_targets(["HeadPitch", "LKneePitch"], [0.2, 0.5], velocity=[0.1, 0.0], stiffness=[0.5, 1]))
    angles = {"HeadPitch": 0.0, "LKneePitch": 0.4}
    assert b.joint_commands(held, angles) == ss.joint_commands(held, angles)
    vals = {e[0]: float(e[1]) for e in parse(b.joint_commands(held, angles))}
    assert len(vals) == 22 and vals["he2"] < 0 < -vals["lle4"]       # pitch joints: NAOqi sign -1 on the wire
    assert b.hello() == ["(init nao villa 2)"]
    with pytest.raises(ValueError):
        RcssservermjBackend("villa", 0)


def test_team_relative_conversions():
    assert landmark_name("F1L", "right") == "F2R" and landmark_name("F1L", "left") == "F1L"
    assert landmark_name("B", "right") == "B"
    assert play_mode("KickOff_Left", "left") == 2 and play_mode("KickOff_Left", "right") == 3
    assert play_mode("corner_kick_right", "right") == 7 and play_mode("Goal_Left", "right") == 15
    assert play_mode("PlayOn", None) == 4 and play_mode("Nonsense", "left") == 0
    assert scores(1, 2, "right") == (2, 1)
    pos, q = field_pose((5.0, 1.0, 0.38), (1.0, 0.0, 0.0, 0.0), "right")
    assert pos == (-5.0, -1.0, 0.38)
    yaw = math.atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] ** 2 + q[3] ** 2))
    assert abs(abs(yaw) - math.pi) < 1e-9
    # rcssservermj: global = (-|x|, y, rot) left, (|x|, y, rot + 180) right -> team frame rotated by 180
    assert beam_on_wire("rcssservermj", "left", -4, 2, 0.5) == (-4, 2, pytest.approx(math.degrees(0.5)))
    assert beam_on_wire("rcssservermj", "right", -4, 2, 0.5)[:2] == (4, -2)
    assert beam_on_wire("simspark", "right", -4, 2, 0.0) == (-4, 2, 0.0)


SIMSPARK_PLAY_MODES = ("BeforeKickOff KickOff_Left KickOff_Right PlayOn KickIn_Left KickIn_Right corner_kick_left "
                       "corner_kick_right goal_kick_left goal_kick_right offside_left offside_right GameOver "
                       "Goal_Left Goal_Right free_kick_left free_kick_right direct_free_kick_left "
                       "direct_free_kick_right pass_left pass_right").split()


def test_every_simspark_play_mode_maps_to_own_and_opp():
    left = [play_mode(m, "left") for m in SIMSPARK_PLAY_MODES]
    right = [play_mode(m, "right") for m in SIMSPARK_PLAY_MODES]
    assert 0 not in left and 0 not in right
    assert len(set(left)) == len(SIMSPARK_PLAY_MODES) and set(left) == set(right)
    for m, a, b in zip(SIMSPARK_PLAY_MODES, left, right, strict=True):
        assert (a == b) == (not m.lower().endswith(("_left", "_right")))


def test_simspark_control_predicts_the_command_in_flight():
    """A command acts one cycle late on the server: the next one accounts for the angle it will still add."""
    b = SimSparkBackend("villa", 1, gain=50.0)
    held = HeldTargets(b.joints)
    held.update(command_to_targets(["HeadYaw"], [0.1]))
    i = [j.name for j in b.joints].index("HeadYaw")
    first = b.velocities(held, {"HeadYaw": 0.0})[i]
    assert first == pytest.approx(0.1 / 0.02)                     # gain 1/dt: the whole error in one cycle
    second = b.velocities(held, {"HeadYaw": 0.0})[i]              # not moved yet: the first command is in flight
    assert second == pytest.approx(0.0, abs=1e-9)
    b.hello()                                                     # a new connection: nothing in flight
    assert b.velocities(held, {"HeadYaw": 0.0})[i] == pytest.approx(first)


def test_simspark_control_never_pushes_into_a_stop():
    """A joint beyond its stop ignores commands and keeps its last velocity: targets stay inside, and near a stop no
    velocity points further out."""
    b = SimSparkBackend("villa", 1)
    held = HeldTargets(b.joints)
    names = [j.name for j in b.joints]
    knee = b.joints[names.index("LKneePitch")]
    held.update(command_to_targets(["LKneePitch"], [knee.sim_max]))          # target on the stop itself
    v = b.signs * b.velocities(held, {"LKneePitch": knee.sim_max - math.radians(5)})
    target_inside = knee.sim_max - b.control.stop_margin
    assert v[names.index("LKneePitch")] == pytest.approx(min(40 * (target_inside - (knee.sim_max - math.radians(5))),
                                                             SIMSPARK_MAX_SPEED))
    b.hello()
    v = b.signs * b.velocities(held, {"LKneePitch": knee.sim_max + math.radians(0.5)})   # overshot past the stop
    assert v[names.index("LKneePitch")] <= 0.0
    with pytest.raises(ValueError, match="P gain"):
        SimSparkBackend("villa", 1, gain=60.0)
