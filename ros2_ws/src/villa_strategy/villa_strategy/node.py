"""The strategy node: villa_strategy.stage.StrategyStage behind the strategy topics (wiring only).

world model + game state + heard messages + fall state + motion status -> walk, skills, head, say, beam, roles; one
decision per `game_state` message (every server cycle). Parameters: config/strategy.yaml.
"""

from __future__ import annotations

import sys

from geometry_msgs.msg import Point, Pose2D
from rclpy.node import Node
from std_msgs.msg import String
from visualization_msgs.msg import Marker, MarkerArray

from villa_localization.stage import TrackedEstimate, WorldEstimate
from villa_motion import arbiter as A
from villa_msgs.msg import (
    FallState,
    GameState,
    HeadCommand,
    HeardMessage,
    MotionRequest,
    MotionStatus,
    RoleAssignment,
    RoleSlot,
    WalkCommand,
    WorldModel,
)
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin, stamp_seconds, wanted
from villa_strategy.stage import Commands, StrategyStage


def _tracked(t) -> TrackedEstimate:
    return TrackedEstimate(t.unum, (t.pose.x, t.pose.y), t.valid, stamp_seconds(t.last_seen))


def estimate_from_msg(w: WorldModel) -> WorldEstimate:
    """villa_msgs/WorldModel -> the plain WorldEstimate the stage reads (localization's world_model_message inverse)."""
    seen = any(v != 0.0 for v in w.ball_covariance)      # a ball estimate exists (its filter was initialised)
    return WorldEstimate(t=stamp_seconds(w.header.stamp), pose=(w.self_pose.x, w.self_pose.y, w.self_pose.theta),
                         covariance=tuple(float(v) for v in w.self_covariance), localized=w.localized,
                         ball=(w.ball_position.x, w.ball_position.y),
                         ball_velocity=(w.ball_velocity.x, w.ball_velocity.y),
                         ball_covariance=tuple(float(v) for v in w.ball_covariance) if seen else (),
                         ball_valid=w.ball_valid,
                         ball_last_seen=stamp_seconds(w.ball_last_seen) if seen else None,
                         teammates=tuple(_tracked(t) for t in w.teammates),
                         opponents=tuple(_tracked(t) for t in w.opponents))


def walk_message(r: A.WalkRequest) -> WalkCommand:
    return WalkCommand(mode=r.mode, x=r.x, y=r.y, theta=r.theta, parameter_set=r.parameter_set)


def request_message(r: A.SkillRequest) -> MotionRequest:
    return MotionRequest(request_id=r.request_id, skill=r.skill, interrupt=r.interrupt,
                         parameter_names=list(r.params), parameter_values=[float(v) for v in r.params.values()])


def head_message(r: A.HeadRequest) -> HeadCommand:
    return HeadCommand(mode=r.mode, yaw=r.yaw, pitch=r.pitch, target=Point(x=r.target[0], y=r.target[1], z=0.0))


class StrategyNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("strategy", **kwargs)
        self.stage = StrategyStage.from_params(declare_from_yaml(self, "villa_strategy", "strategy.yaml"))
        self.pub_walk = self.create_publisher(WalkCommand, "cmd_walk", QOS)
        self.pub_request = self.create_publisher(MotionRequest, "motion_request", QOS)
        self.pub_head = self.create_publisher(HeadCommand, "head_command", QOS)
        self.pub_say = self.create_publisher(String, "say", QOS)
        self.pub_beam = self.create_publisher(Pose2D, "beam", QOS)
        self.pub_roles = self.create_publisher(RoleAssignment, "role_assignment", QOS)
        self.pub_markers = self.create_publisher(MarkerArray, "strategy_markers", QOS)
        self.create_subscription(WorldModel, "world_model", self._on_world, QOS)
        self.create_subscription(GameState, "game_state", self._on_game_state, QOS)
        self.create_subscription(HeardMessage, "heard", self._on_heard, QOS)
        self.create_subscription(MotionStatus, "motion_status", self._on_motion_status, QOS)
        self.create_subscription(FallState, "fall_state", self._on_fall, QOS)
        s = self.stage
        self.get_logger().info(f"strategy: #{s.unum} of {s.params.team_size}, variant {s.params.variant}, robot type "
                               f"{s.player.body.robot_type}" + (f", penalty {s.params.penalty}" if s.params.penalty
                                                                else ""))

    def _on_world(self, msg: WorldModel) -> None:
        self.stage.world_estimate(estimate_from_msg(msg))

    def _on_fall(self, msg: FallState) -> None:
        self.stage.fall(msg.state)

    def _on_motion_status(self, msg: MotionStatus) -> None:
        self.stage.motion_status(msg.active, msg.done)

    def _on_heard(self, msg: HeardMessage) -> None:
        self.stage.hear(msg.message, msg.game_time, msg.from_self)

    def _on_game_state(self, gs: GameState) -> None:
        if gs.unum == 0:
            return  # the server has not confirmed us yet
        try:
            c = self.stage.decide(stamp_seconds(gs.header.stamp), gs.play_mode, gs.game_time,
                                  gs.side != GameState.SIDE_RIGHT)
        except Exception as e:  # a bug in one decision must not take the player down: log it, keep playing
            self.get_logger().error(f"strategy: decision failed: {type(e).__name__}: {e}", throttle_duration_sec=2.0)
            return
        self._publish(c, gs.header.stamp)

    def _publish(self, c: Commands, stamp) -> None:
        if c.beam is not None:
            self.pub_beam.publish(Pose2D(x=c.beam[0], y=c.beam[1], theta=c.beam[2]))
        if c.say:
            self.pub_say.publish(String(data=c.say))
        for msg, pub in ((c.request and request_message(c.request), self.pub_request),
                         (c.walk and walk_message(c.walk), self.pub_walk),
                         (c.head and head_message(c.head), self.pub_head)):
            if msg is not None:
                msg.header.stamp = stamp
                pub.publish(msg)
        roles = RoleAssignment(method=c.decision.method)
        roles.header.stamp, roles.header.frame_id = stamp, "field"
        for r in c.roles:
            slot = RoleSlot(role=r.role, unum=r.unum)
            if r.target is not None:
                slot.target = Point(x=r.target[0], y=r.target[1], z=0.0)
            roles.slots.append(slot)
        self.pub_roles.publish(roles)
        self._markers(c, stamp)

    def _markers(self, c: Commands, stamp) -> None:
        if not wanted(self.pub_markers):
            return
        d, unum = c.decision, self.stage.unum
        m = Marker(ns="role_target", id=unum, type=Marker.SPHERE, action=Marker.ADD)
        m.header.stamp, m.header.frame_id = stamp, "field"
        m.pose.position = Point(x=float(d.target[0]), y=float(d.target[1]), z=0.1)
        m.pose.orientation.w = 1.0
        m.scale.x = m.scale.y = m.scale.z = 0.3
        m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.8, 0.0, 0.8
        text = Marker(ns="role_name", id=unum, type=Marker.TEXT_VIEW_FACING, action=Marker.ADD, text=d.role)
        text.header = m.header
        text.pose.position = Point(x=float(d.target[0]), y=float(d.target[1]), z=0.5)
        text.pose.orientation.w = 1.0
        text.scale.z = 0.3
        text.color.r = text.color.g = text.color.b = text.color.a = 1.0
        self.pub_markers.publish(MarkerArray(markers=[m, text]))


def main(args=None) -> int:
    return spin(StrategyNode, "strategy", args)


if __name__ == "__main__":
    sys.exit(main())
