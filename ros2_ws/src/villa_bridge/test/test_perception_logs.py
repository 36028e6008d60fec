"""Every recorded SimSpark message parses; exact values for known ones (logs/README.md)."""

from __future__ import annotations

import math
import re

import pytest

from villa_bridge.perception import parse_perception
from villa_bridge.recorded import FILES, agent_messages, find, log_dir
from villa_bridge.sexp import parse
from villa_bridge.teamframe import landmark_name

pytestmark = pytest.mark.skipif(not log_dir().is_dir(), reason="shared/simspark/logs not present")


@pytest.mark.parametrize("name", FILES)
def test_every_recorded_perception_parses(name):
    msgs = agent_messages(name, "in")
    assert len(msgs) > 500
    for msg in msgs:
        p = parse_perception(msg)
        assert p.unknown == 0
        assert p.time is not None and p.game is not None
        assert p.gyro is not None and p.acc is not None
        assert len(p.joint_names) in (22, 24) and p.joint_velocities is None


@pytest.mark.parametrize("name", FILES)
def test_without_vision_a_perception_is_the_same_but_for_its_vision(name):
    seen = 0
    for msg in agent_messages(name, "in"):
        data = msg.encode() if isinstance(msg, str) else msg
        full, lean = parse_perception(data), parse_perception(data, vision=False)
        assert lean.vision is None and lean.unknown == 0
        seen += full.vision is not None
        for field in ("time", "game", "gyro", "acc", "joint_names", "joint_angles", "frp", "heard", "touch"):
            assert getattr(lean, field) == getattr(full, field), field
    assert seen > 100


@pytest.mark.parametrize("name", FILES)
def test_every_recorded_effector_message_is_an_s_expression(name):
    for msg in agent_messages(name, "out"):
        assert parse(msg)


def test_confirmation_message():
    p = parse_perception(find("single_right_mirrored.jsonl.gz", "villaA/1", "35.82"))
    assert p.time == pytest.approx(35.82)
    g = p.game
    assert (g.unum, g.side, g.play_mode, g.game_time, g.score_left, g.score_right) == (1, "left", "BeforeKickOff",
                                                                                         0.0, 0, 0)
    assert p.acc == (0.0, 0.0, 29.42)
    assert p.joint_names[:3] == ["hj1", "hj2", "raj1"] and p.joint_names[-1] == "llj6"


def test_right_agent_view_and_team_relative_names():
    p = parse_perception(find("single_right_mirrored.jsonl.gz", "villaB/1", "37.02"))
    objs = p.vision.objects
    assert objs["G1L"] == (20.07, -9.00, 0.79)
    assert objs["G2L"] == (20.09, -2.75, 0.73)
    assert objs["B"] == (5.06, -5.78, -5.77)
    assert [pl.team for pl in p.vision.players][0] == "villaA"
    # README: own-frame pose (-5.037, -0.036, 6.1 deg); in the team-relative naming G1L is G2R at (15, -1.05)
    assert landmark_name("G1L", "right") == "G2R"
    x, y, yaw = -5.037, -0.036, math.radians(6.1)
    bearing = math.degrees(math.atan2(-1.05 - y, 15 - x) - yaw)
    assert bearing == pytest.approx(objs["G1L"][1], abs=0.3)


def test_walkish_values_frp_gyr_acc_hj():
    p = parse_perception(find("single_left_walkish.jsonl.gz", "villaA/1", "41.60"))
    assert p.gyro == (0.0, -0.0, -0.03)
    assert p.acc == (0.0, -0.04, 9.79)
    assert p.joint_angles[p.joint_names.index("hj1")] == 70.38
    assert p.frp["rf"] == ((-0.0, -0.02, -0.01), (0.0, 0.15, 22.34))
    assert p.frp["lf"] == ((-0.0, -0.01, -0.01), (0.0, 0.09, 22.84))


def test_hear_other_and_self():
    p = parse_perception(find("teams_3v3_hear.jsonl.gz", "villaA/1", "55.54"))
    h = [x for x in p.heard if x.message == "B1_c1"][0]
    assert (h.team, h.game_time, h.from_self, h.direction_deg) == ("villaB", 0.0, False, 19.38)
    p = parse_perception(find("teams_3v3_hear.jsonl.gz", "villaA/3", "58.74"))
    mine = [x for x in p.heard if x.from_self]
    assert len(mine) == 1 and mine[0].message == "bad" and math.isnan(mine[0].direction_deg)
    assert mine[0].game_time == pytest.approx(1.22)


def test_type4_toes_and_toe_pressure():
    msgs = [m for m in agent_messages("teams_3v3_hear.jsonl.gz", "in", "villaB/3") if "(FRP (n rf1)" in m]
    p = parse_perception(msgs[0])
    assert "rlj7" in p.joint_names and "llj7" in p.joint_names
    assert p.frp["rf1"][1] == (0.0, -0.14, 32.22)


def test_rcssservermj_items():
    msg = ("(time (now 0.04))(GS (t 0.0)(pm BeforeKickOff)(tl villaA)(tr villaB)(sl 1)(sr 2))"
           "(GYR (n torso) (rt 0.0 0.0 0.0))(ACC (n torso_acc) (a -0.0 0.0 9.8))(pos (n torso_pos) (p -3.0 11.0 0.385))"
           "(quat (n torso_quat) (q 0.707 0.0 0.0 -0.707))(TCH n lf val 25)(HJ (n hj1)(ax 10.0)(vx -2.5))"
           "(HJ (n hj2)(ax 0.0)(vx 0.33))(See (F2L (pol 24.16 -29.65 -1.31))(P (team villaA)(id 1)"
           "(rlowerarm (pol 0.18 -33.72 -24.14))))(MIC mic (12 aGk=))")
    p = parse_perception(msg)
    assert p.game.team_left == "villaA" and p.game.team_right == "villaB" and p.game.score_right == 2
    assert p.pos == (-3.0, 11.0, 0.385) and p.quat == (0.707, 0.0, 0.0, -0.707)
    assert p.touch == {"lf": 25.0}
    assert p.joint_velocities == [-2.5, 0.33]
    assert p.vision.players[0].parts["rlowerarm"] == (0.18, -33.72, -24.14)
    assert p.heard[0].message == "hi" and not p.heard[0].team_frame


def test_a_non_finite_value_spoils_only_its_own_element():
    """SimSpark sends a field line as (L (pol nan nan nan) ...) now and then (8 in 68,614 perceptions): that line
    goes, the joints, IMU, game state and the rest of the vision stay."""
    msg = find("single_left_walkish.jsonl.gz", "villaA/1", "41.60")
    ref = parse_perception(msg)
    assert ref.vision is not None and ref.vision.lines and ref.spoiled == 0
    bad = msg.replace("(L ", "(L (pol nan nan nan) (pol 1.0 2.0 3.0)) (L ", 1)
    bad = bad.replace("(HJ (n hj2) (ax ", "(HJ (n hj2) (ax nan)) (HJ (n hjX) (ax ", 1)   # one joint reading
    p = parse_perception(bad)
    assert p.spoiled == 2
    assert p.vision.lines == ref.vision.lines and p.vision.objects == ref.vision.objects
    assert "hj2" not in p.joint_names and len(p.joint_names) == len(ref.joint_names)   # hjX is the old hj2 value
    assert p.game == ref.game and p.gyro == ref.gyro and p.acc == ref.acc and p.frp == ref.frp
    gyr = parse_perception(re.sub(r"\(GYR \(n torso\) \(rt [^)]*\)\)", "(GYR (n torso) (rt inf 0 0))", msg))
    assert gyr.gyro is None and gyr.spoiled == 1 and gyr.acc == ref.acc
