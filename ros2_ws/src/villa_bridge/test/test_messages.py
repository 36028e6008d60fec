"""Perception -> ROS messages: units, REP-103 axes, NAOqi names and signs, team-relative names and play modes."""

from __future__ import annotations

import math

import pytest

from villa_bridge import messages
from villa_bridge.perception import parse_perception
from villa_msgs.msg import GameState

MSG = ("(time (now 12.34))(GS (unum 4) (team right) (sl 1) (sr 3) (t 61.50) (pm KickOff_Right))"
       "(GYR (n torso) (rt 90.00 0.00 -45.00))(ACC (n torso) (a 0.00 9.81 0.50))(HJ (n hj2) (ax 10.00))"
       "(HJ (n llj4) (ax -60.00))(FRP (n lf) (c 0.01 0.02 -0.01) (f 1.00 2.00 20.00))"
       "(See (G1L (pol 20.07 -9.00 0.79)) (F2R (pol 3.00 45.00 -10.00)) (B (pol 5.06 -5.78 -5.77)) "
       "(P (team villa) (id 2) (head (pol 8.30 -19.94 -0.24))) (P (team other) (id 9) (lfoot (pol 4 0 0))) "
       "(L (pol 1.0 10.0 -30.0) (pol 2.0 -10.0 -20.0)))(hear villa 61.00 90.00 hi)(hear villa 61.00 self yo)")


@pytest.fixture
def p():
    return parse_perception(MSG)


def test_stamp_and_clock():
    t = messages.stamp(12.34)
    assert (t.sec, t.nanosec) == (12, 340000000)
    assert messages.clock(0.999999999999).clock.sec in (0, 1)


def test_joint_state_naoqi_signs(p):
    js = messages.joint_state(p, messages.stamp(p.time))
    assert js.name == ["HeadPitch", "LKneePitch"]
    assert js.position == pytest.approx([-math.radians(10), math.radians(60)])
    assert len(js.velocity) == 0


def test_imu_axes_units(p):
    imu = messages.imu(p, messages.stamp(p.time))
    assert imu.header.frame_id == "base_link" and imu.orientation_covariance[0] == -1.0
    # SimSpark (x right, y fwd, z up) -> REP-103 (x fwd, y left, z up)
    assert (imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z) == pytest.approx(
        (0.0, -math.pi / 2, -math.pi / 4))
    assert (imu.linear_acceleration.x, imu.linear_acceleration.y, imu.linear_acceleration.z) == pytest.approx(
        (9.81, 0.0, 0.5))


def test_foot_contacts_always_all_sensors(p):
    fc = messages.foot_contacts(p, messages.stamp(p.time), toes=True)
    by = {c.name: c for c in fc.contacts}
    assert set(by) == {"left_foot", "right_foot", "left_toe", "right_toe"}
    assert by["left_foot"].in_contact and not by["right_foot"].in_contact
    assert (by["left_foot"].force.x, by["left_foot"].force.y, by["left_foot"].force.z) == pytest.approx((2, -1, 20))
    assert by["left_foot"].center.x == pytest.approx(0.02)


def test_vision_right_team_names_and_radians(p):
    v = messages.vision(p, messages.stamp(p.time), "right", "villa")
    assert [o.name for o in v.goal_posts] == ["G2R"] and [o.name for o in v.flags] == ["F1L"]
    assert v.goal_posts[0].position.distance == pytest.approx(20.07)
    assert v.goal_posts[0].position.azimuth == pytest.approx(math.radians(-9.0))
    assert v.ball_seen and v.ball.elevation == pytest.approx(math.radians(-5.77))
    assert [(pl.team, pl.id, pl.teammate) for pl in v.players] == [("villa", 2, True), ("other", 9, False)]
    assert v.players[0].parts[0].name == "head"
    assert v.lines[0].start.azimuth == pytest.approx(math.radians(10))


def test_game_state_team_relative(p):
    gs = messages.game_state(p, messages.stamp(p.time), 4, "right", "villa")
    assert gs.play_mode == GameState.KICK_OFF_OWN and gs.play_mode_name == "KickOff_Right"
    assert (gs.score_own, gs.score_opp, gs.side, gs.unum) == (3, 1, GameState.SIDE_RIGHT, 4)
    assert gs.game_time == pytest.approx(61.5)
    unconfirmed = messages.game_state(p, messages.stamp(p.time), None, None, "villa")
    assert unconfirmed.unum == 0 and unconfirmed.play_mode == GameState.PLAY_MODE_UNKNOWN


def test_heard(p):
    hs = messages.heard(p, messages.stamp(p.time))
    assert hs[0].direction == pytest.approx(math.pi / 2) and not hs[0].from_self and hs[0].message == "hi"
    assert hs[1].from_self and math.isnan(hs[1].direction)


def test_ground_truth_only_when_offered(p):
    assert messages.ground_truth(p, messages.stamp(p.time), "left") is None
    q = parse_perception("(time (now 1))(pos (n torso_pos) (p 2.0 -1.0 0.38))(quat (n torso_quat) (q 1 0 0 0))")
    gt = messages.ground_truth(q, messages.stamp(1.0), "right")
    assert gt.header.frame_id == "field"
    assert (gt.pose.position.x, gt.pose.position.y) == (-2.0, 1.0)
    assert abs(gt.pose.orientation.z) == pytest.approx(1.0)
