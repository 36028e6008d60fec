"""Perception (wire units, server frame) -> the ROS messages of the topic table (SI, NAOqi names, team frame).

Message classes only, no rclpy (docs/architecture.md: topics; villa_msgs/*.msg for the fields). Axes: SimSpark's
torso and foot frames are x right, y forward, z up; REP-103's base_link is x forward, y left, z up, so a
vector (x, y, z) on the wire is (y, -x, z) here. Degrees become radians.
"""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu
from std_msgs.msg import Header

from villa_bridge.joint_io import build_joint_state, from_wire
from villa_bridge.perception import Perception, Pol
from villa_bridge.teamframe import field_pose, gyro_rates, landmark_name, play_mode, scores, torso_axes
from villa_msgs.msg import (
    FootContact,
    FootContacts,
    GameState,
    HeardMessage,
    Polar,
    SeenLine,
    SeenObject,
    SeenPlayer,
    VisionFrame,
)

FOOT_SENSORS = {"lf": "left_foot", "rf": "right_foot", "lf1": "left_toe", "rf1": "right_toe"}
SIDES = {"left": GameState.SIDE_LEFT, "right": GameState.SIDE_RIGHT}


def stamp(sim_time: float) -> Time:
    sec = math.floor(sim_time)
    nsec = int(round((sim_time - sec) * 1e9))
    if nsec >= 1_000_000_000:
        sec, nsec = sec + 1, nsec - 1_000_000_000
    return Time(sec=int(sec), nanosec=nsec)


def clock(sim_time: float) -> Clock:
    return Clock(clock=stamp(sim_time))


def joint_state(p: Perception, t: Time):
    names, pos, vel = from_wire(p.joint_names, p.joint_angles, p.joint_velocities)
    return build_joint_state(names, pos, vel, stamp=t)


def imu(p: Perception, t: Time) -> Imu | None:
    if p.gyro is None and p.acc is None:
        return None
    msg = Imu()
    msg.header.stamp = t
    msg.header.frame_id = "base_link"
    msg.orientation_covariance[0] = -1.0
    if p.gyro is not None:
        msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z = gyro_rates(p.gyro)
    if p.acc is not None:
        msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z = torso_axes(p.acc)
    return msg


def foot_contacts(p: Perception, t: Time, toes: bool) -> FootContacts:
    msg = FootContacts()
    msg.header.stamp = t
    for wire in ("lf", "rf", "lf1", "rf1") if toes else ("lf", "rf"):
        c = FootContact(name=FOOT_SENSORS[wire])
        reading = p.frp.get(wire)
        if reading is not None:
            c.in_contact = True
            c.center.x, c.center.y, c.center.z = torso_axes(reading[0])
            c.force.x, c.force.y, c.force.z = torso_axes(reading[1])
        msg.contacts.append(c)
    return msg


def polar(pol: Pol) -> Polar:
    return Polar(distance=pol[0], azimuth=math.radians(pol[1]), elevation=math.radians(pol[2]))


def vision(p: Perception, t: Time, side: str | None, team: str) -> VisionFrame | None:
    v = p.vision
    if v is None:
        return None
    msg = VisionFrame()
    msg.header.stamp = t
    msg.header.frame_id = "camera"
    for name, pol in v.objects.items():
        if name == "B":
            msg.ball_seen = True
            msg.ball = polar(pol)
        elif name[:1] == "F":
            msg.flags.append(SeenObject(name=landmark_name(name, side), position=polar(pol)))
        elif name[:1] == "G":
            msg.goal_posts.append(SeenObject(name=landmark_name(name, side), position=polar(pol)))
    for pl in v.players:
        msg.players.append(SeenPlayer(team=pl.team, id=max(0, min(255, pl.id)), teammate=pl.team == team,
                                      parts=[SeenObject(name=k, position=polar(pp)) for k, pp in pl.parts.items()]))
    for a, b in v.lines:
        msg.lines.append(SeenLine(start=polar(a), end=polar(b)))
    return msg


def game_state(p: Perception, t: Time, unum: int | None, side: str | None, team: str) -> GameState | None:
    g = p.game
    if g is None:
        return None
    own, opp = scores(g.score_left, g.score_right, side)
    return GameState(header=_hdr(t), play_mode=play_mode(g.play_mode, side), play_mode_name=g.play_mode,
                     game_time=g.game_time, unum=unum or 0, side=SIDES.get(side, GameState.SIDE_UNKNOWN),
                     team_name=team, score_own=max(0, own), score_opp=max(0, opp))


def _hdr(t: Time) -> Header:
    return Header(stamp=t)


def heard(p: Perception, t: Time) -> list[HeardMessage]:
    out = []
    for h in p.heard:
        # SimSpark's and villa_sim's hear direction is already in the listener team's frame; rcssservermj's
        # MIC azimuth is not (its frame is the speaker array's), so it is published as NaN.
        direction = math.radians(h.direction_deg) if h.team_frame else math.nan
        out.append(HeardMessage(header=_hdr(t), team=h.team, game_time=h.game_time, from_self=h.from_self,
                                direction=math.nan if h.from_self else direction, message=h.message[:20]))
    return out


def ground_truth(p: Perception, t: Time, side: str | None) -> PoseStamped | None:
    if p.pos is None or p.quat is None:
        return None
    pos, q = field_pose(p.pos, p.quat, side)
    msg = PoseStamped()
    msg.header.stamp = t
    msg.header.frame_id = "field"
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = pos
    msg.pose.orientation.w, msg.pose.orientation.x, msg.pose.orientation.y, msg.pose.orientation.z = q
    return msg
