"""The localization node: villa_localization.stage.LocalizationStage behind the localization topics (wiring only).

observations + odometry + beams + fall state -> pose, particles, world model, markers (§5), and with `publish_tf`
REP-105's ``field -> odom`` on /tf at each estimate while /tf has a subscriber (villa_nao.frames: the estimate composed
with the inverse of the odometry it has taken in, turned by pi for the right team). Parameters:
config/localization.yaml.
"""

from __future__ import annotations

import math
import sys

from geometry_msgs.msg import Point, Pose, Pose2D, PoseArray, PoseWithCovarianceStamped, Quaternion
from nav_msgs.msg import Odometry
from rclpy.node import Node
from visualization_msgs.msg import Marker, MarkerArray

from villa_localization.stage import TRACKED_COVARIANCE, LocalizationStage, TrackedEstimate, WorldEstimate
from villa_localization.world_model import Observed
from villa_msgs.msg import FallState, GameState, Observation, Observations, TrackedObject, WorldModel
from villa_nao import field as F
from villa_nao.frames import FIELD, ODOM, field_to_odom, frame_prefix
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin, stamp_seconds, wanted
from villa_nao.tf_ros import TfPublisher

SIDES = {GameState.SIDE_LEFT: "left", GameState.SIDE_RIGHT: "right"}
KINDS = {Observation.TYPE_FLAG: "flag", Observation.TYPE_GOAL_POST: "goal_post", Observation.TYPE_BALL: "ball",
         Observation.TYPE_TEAMMATE: "teammate", Observation.TYPE_OPPONENT: "opponent", Observation.TYPE_LINE: "line"}


def _yaw(q) -> float:
    return F.yaw_upright((q.w, q.x, q.y, q.z))[0]


def _quat(yaw: float) -> Quaternion:
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2))


def _time(t: float):
    from builtin_interfaces.msg import Time

    return Time(sec=int(t), nanosec=int((t % 1) * 1e9))


def observed(msg: Observations) -> list[Observed]:
    return [Observed(KINDS.get(o.type, "?"), o.name, (o.position.x, o.position.y), o.distance, o.bearing,
                     o.distance_sigma, o.bearing_sigma, (o.end.x, o.end.y) if o.type == Observation.TYPE_LINE else None)
            for o in msg.observations]


def _tracked(tr: TrackedEstimate) -> TrackedObject:
    o = TrackedObject(unum=tr.unum, pose=Pose2D(x=tr.position[0], y=tr.position[1], theta=0.0), valid=tr.valid)
    o.last_seen = _time(tr.last_seen)
    o.covariance = list(TRACKED_COVARIANCE)
    return o


def world_model_message(e: WorldEstimate) -> WorldModel:
    x, y, th = e.pose
    wm = WorldModel(self_pose=Pose2D(x=x, y=y, theta=th), localized=e.localized)
    wm.header.frame_id = "field"
    wm.self_covariance = list(e.covariance)
    if e.ball is not None:
        wm.ball_position = Point(x=e.ball[0], y=e.ball[1], z=F.BALL_RADIUS)
        wm.ball_velocity.x, wm.ball_velocity.y = e.ball_velocity
        wm.ball_covariance = list(e.ball_covariance)
        wm.ball_valid = e.ball_valid
        if e.ball_last_seen is not None:
            wm.ball_last_seen = _time(e.ball_last_seen)
    wm.teammates = [_tracked(t) for t in e.teammates]
    wm.opponents = [_tracked(t) for t in e.opponents]
    return wm


class LocalizationNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("localization", **kwargs)
        p = declare_from_yaml(self, "villa_localization", "localization.yaml")
        self.stage = LocalizationStage.from_params(p)
        self.side: str | None = None                    # the half we defend (game_state): our field's turn
        self.tf = TfPublisher(self) if p["publish_tf"] else None
        self._odom_frames = [(FIELD, frame_prefix(self.get_namespace(), str(p["frame_prefix"])) + ODOM)]
        self.pub_pose = self.create_publisher(PoseWithCovarianceStamped, "pose", QOS)
        self.pub_particles = self.create_publisher(PoseArray, "particles", QOS)
        self.pub_world = self.create_publisher(WorldModel, "world_model", QOS)
        self.pub_markers = self.create_publisher(MarkerArray, "localization_markers", QOS)
        self.create_subscription(Observations, "observations", self._on_observations, QOS)
        self.create_subscription(Odometry, "odom", self._on_odom, QOS)
        self.create_subscription(Pose2D, "beam", self._on_beam, QOS)
        self.create_subscription(GameState, "game_state", self._on_game_state, QOS)
        self.create_subscription(FallState, "fall_state", self._on_fall, QOS)

    def _on_game_state(self, msg: GameState) -> None:
        self.stage.game_state(msg.unum)
        self.side = SIDES.get(msg.side, self.side)

    def _on_fall(self, msg: FallState) -> None:
        self.stage.fall(msg.state != FallState.UPRIGHT, stamp_seconds(msg.header.stamp))

    def _on_beam(self, msg: Pose2D) -> None:
        self.stage.beam(msg.x, msg.y, msg.theta)

    def _on_odom(self, msg: Odometry) -> None:
        p = msg.pose.pose
        self.stage.odom(p.position.x, p.position.y, _yaw(p.orientation))

    def _on_observations(self, msg: Observations) -> None:
        e = self.stage.observe(observed(msg), stamp_seconds(msg.header.stamp))
        self._publish(msg.header.stamp, e)
        if self.tf is not None and self.stage.odom_pose is not None and self.tf.wanted():
            self.tf.publish(msg.header.stamp, self._odom_frames,
                            field_to_odom(e.pose, self.stage.odom_pose, self.side)[None])

    def _publish(self, stamp, e: WorldEstimate) -> None:
        x, y, th = e.pose
        pose = PoseWithCovarianceStamped()
        pose.header.stamp, pose.header.frame_id = stamp, "field"
        pose.pose.pose = Pose(position=Point(x=x, y=y, z=0.0), orientation=_quat(th))
        cov = [0.0] * 36
        for i, a in enumerate((0, 1, 5)):
            for j, b in enumerate((0, 1, 5)):
                cov[a * 6 + b] = e.covariance[3 * i + j]
        pose.pose.covariance = cov
        self.pub_pose.publish(pose)
        if e.particles is not None and wanted(self.pub_particles):
            arr = PoseArray()
            arr.header = pose.header
            arr.poses = [Pose(position=Point(x=float(p[0]), y=float(p[1]), z=0.0), orientation=_quat(float(p[2])))
                         for p in e.particles]
            self.pub_particles.publish(arr)
        wm = world_model_message(e)
        wm.header = pose.header
        self.pub_world.publish(wm)
        if not wanted(self.pub_markers):
            return
        mk = Marker(ns="self", id=0, type=Marker.ARROW, action=Marker.ADD)
        mk.header = pose.header
        mk.pose = pose.pose.pose
        mk.scale.x, mk.scale.y, mk.scale.z = 0.5, 0.08, 0.08
        mk.color.g, mk.color.a = 1.0, 1.0
        arr = MarkerArray(markers=[mk])
        if e.ball is not None:
            b = Marker(ns="ball", id=0, type=Marker.SPHERE, action=Marker.ADD)
            b.header = pose.header
            b.pose.position = wm.ball_position
            b.pose.orientation.w = 1.0
            b.scale.x = b.scale.y = b.scale.z = 0.15
            b.color.r, b.color.g, b.color.a = 1.0, 0.5, 1.0 if wm.ball_valid else 0.3
            arr.markers.append(b)
        self.pub_markers.publish(arr)


def main(args=None) -> int:
    return spin(LocalizationNode, "localization", args)


if __name__ == "__main__":
    sys.exit(main())
