"""The perception node: villa_perception.stage.PerceptionStage behind the perception topics (wiring only).

vision + joint states + IMU -> observations, fall state, markers. Head angles come from the joint state nearest in
time to the image (§4.2); fall state from every IMU reading (§8). Parameters: config/perception.yaml.
"""

from __future__ import annotations

import sys

from geometry_msgs.msg import Point
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState
from visualization_msgs.msg import Marker, MarkerArray

from villa_msgs.msg import FallState, GameState, Observation, Observations, VisionFrame
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin, stamp_seconds, wanted
from villa_perception import perception as P
from villa_perception.stage import PerceptionParams, PerceptionStage

TYPES = {"flag": Observation.TYPE_FLAG, "goal_post": Observation.TYPE_GOAL_POST, "ball": Observation.TYPE_BALL,
         "teammate": Observation.TYPE_TEAMMATE, "opponent": Observation.TYPE_OPPONENT, "line": Observation.TYPE_LINE}


def _polar(p) -> P.Polar:
    return P.Polar(p.distance, p.azimuth, p.elevation)


def frame_from_msg(msg: VisionFrame) -> P.Frame:
    return P.Frame(
        landmarks={o.name: _polar(o.position) for o in list(msg.flags) + list(msg.goal_posts)},
        ball=_polar(msg.ball) if msg.ball_seen else None,
        players=[P.PlayerSeen(pl.team, pl.id, pl.teammate, {s.name: _polar(s.position) for s in pl.parts})
                 for pl in msg.players],
        lines=[(_polar(ln.start), _polar(ln.end)) for ln in msg.lines])


def observations_message(seen) -> Observations:
    out = Observations()
    out.header.frame_id = "base_footprint"
    for s in seen:
        o = Observation(type=TYPES[s.kind], name=s.name, distance=s.distance, bearing=s.bearing,
                        distance_sigma=s.distance_sigma, bearing_sigma=s.bearing_sigma)
        o.position = Point(x=float(s.position[0]), y=float(s.position[1]), z=0.0)
        if s.end is not None:
            o.end = Point(x=float(s.end[0]), y=float(s.end[1]), z=0.0)
        out.observations.append(o)
    return out


class PerceptionNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("perception", **kwargs)
        self.stage = PerceptionStage(PerceptionParams.from_params(declare_from_yaml(self, "villa_perception",
                                                                                    "perception.yaml")))
        self.pub_obs = self.create_publisher(Observations, "observations", QOS)
        self.pub_fall = self.create_publisher(FallState, "fall_state", QOS)
        self.pub_markers = self.create_publisher(MarkerArray, "perception_markers", QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, QOS)
        self.create_subscription(Imu, "imu", self._on_imu, QOS)
        self.create_subscription(VisionFrame, "vision", self._on_vision, QOS)
        self.create_subscription(GameState, "game_state", self._on_game_state, QOS)

    def _on_game_state(self, msg: GameState) -> None:
        self.stage.game_state(msg.unum, msg.team_name)

    def _on_joints(self, msg: JointState) -> None:
        names = list(msg.name)
        try:
            yaw, pitch = msg.position[names.index("HeadYaw")], msg.position[names.index("HeadPitch")]
        except (ValueError, IndexError):
            return
        self.stage.joints(stamp_seconds(msg.header.stamp), yaw, pitch)

    def _on_imu(self, msg: Imu) -> None:
        a = msg.linear_acceleration
        state, duration = self.stage.imu(stamp_seconds(msg.header.stamp), (a.x, a.y, a.z))
        out = FallState(state=state, duration=float(duration))
        out.header = msg.header
        self.pub_fall.publish(out)

    def _on_vision(self, msg: VisionFrame) -> None:
        seen = self.stage.vision(stamp_seconds(msg.header.stamp), frame_from_msg(msg))
        if seen is None:
            return  # no joint state yet: the camera pose is unknown
        out = observations_message(seen)
        out.header.stamp = msg.header.stamp
        self.pub_obs.publish(out)
        self._markers(out)

    def _markers(self, obs: Observations) -> None:
        if not wanted(self.pub_markers):
            return
        arr = MarkerArray()
        clear = Marker(action=Marker.DELETEALL, ns="observations")
        clear.header = obs.header
        arr.markers.append(clear)
        colours = {Observation.TYPE_BALL: (1.0, 0.5, 0.0), Observation.TYPE_FLAG: (1.0, 1.0, 0.0),
                   Observation.TYPE_GOAL_POST: (1.0, 1.0, 1.0), Observation.TYPE_TEAMMATE: (0.0, 0.4, 1.0),
                   Observation.TYPE_OPPONENT: (1.0, 0.0, 0.0), Observation.TYPE_LINE: (0.8, 0.8, 0.8)}
        for i, o in enumerate(obs.observations):
            m = Marker(ns="observations", id=i, action=Marker.ADD)
            m.header = obs.header
            m.pose.orientation.w = 1.0
            if o.type == Observation.TYPE_LINE:
                m.type, m.scale.x = Marker.LINE_STRIP, 0.03
                m.points = [o.position, o.end]
            else:
                m.type = Marker.SPHERE
                m.pose.position = o.position
                m.scale.x = m.scale.y = m.scale.z = 0.15
            m.color.r, m.color.g, m.color.b = colours[o.type]
            m.color.a = 0.9
            arr.markers.append(m)
        self.pub_markers.publish(arr)


def main(args=None) -> int:
    return spin(PerceptionNode, "perception", args)


if __name__ == "__main__":
    sys.exit(main())
