"""The strategy node: world model + game state + heard messages -> walk, skills, head, say, beam, roles.

Thin wiring around villa_strategy.decision.TeamPlayer; one decision per `game_state` message (every server cycle).
Parameters: config/strategy.yaml.
"""

from __future__ import annotations

import math
import sys
import threading

import rclpy
from geometry_msgs.msg import Point, Pose2D
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from visualization_msgs.msg import Marker, MarkerArray

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
from villa_strategy.decision import BEAM_MODES, StrategyParams, TeamPlayer, WorldView
from villa_strategy.formation import roles_for

QOS = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)


class StrategyNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("strategy", **kwargs)
        p = declare_from_yaml(self, "villa_strategy", "strategy.yaml")
        self.unum = int(p["unum"])
        if not 1 <= self.unum <= 11:
            raise ValueError(f"unum must be 1..11, got {self.unum}")
        self.params = StrategyParams(team_size=int(p["team_size"]), variant=str(p["variant"]),
                                     goalie_unum=int(p["goalie_unum"]), team_key=str(p["team_key"]),
                                     max_x_speed=float(p["max_x_speed"]), max_y_speed=float(p["max_y_speed"]),
                                     hysteresis=float(p["hysteresis"]), kicks=bool(p["kicks"]),
                                     kick_parameter_set=str(p["kick_parameter_set"]), simulator=str(p["simulator"]))
        self.player = TeamPlayer(self.unum, self.params)
        self.beam_period = float(p["beam_period"])
        self.world: WorldModel | None = None
        self.fallen = False
        self.skill_running = False
        self.request_id = 0
        self.last_beam = -math.inf
        self.side_left = True
        self._lock = threading.Lock()
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
        self.get_logger().info(f"strategy: #{self.unum} of {self.params.team_size}, variant {self.params.variant}")

    # --- inputs ----------------------------------------------------------------------------------------
    def _on_world(self, msg: WorldModel) -> None:
        self.world = msg

    def _on_fall(self, msg: FallState) -> None:
        self.fallen = msg.state != FallState.UPRIGHT

    def _on_motion_status(self, msg: MotionStatus) -> None:
        self.skill_running = msg.active not in ("walk", "stand", "") and not msg.done

    def _on_heard(self, msg: HeardMessage) -> None:
        if not msg.from_self:
            self.player.hear(msg.message, msg.game_time, self.side_left)

    def _view(self) -> WorldView:
        w = self.world
        if w is None:
            return WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0), ball_valid=False, localized=False,
                             fallen=self.fallen)
        mates = {t.unum: (t.pose.x, t.pose.y) for t in w.teammates if t.valid and t.unum}
        return WorldView(pose=(w.self_pose.x, w.self_pose.y, w.self_pose.theta),
                         ball=(w.ball_position.x, w.ball_position.y),
                         ball_velocity=(w.ball_velocity.x, w.ball_velocity.y), ball_valid=w.ball_valid,
                         localized=w.localized, fallen=self.fallen, teammates=mates,
                         opponents=[(t.pose.x, t.pose.y) for t in w.opponents if t.valid], sees_ball=w.ball_valid)

    # --- one decision per cycle -----------------------------------------------------------------------
    def _on_game_state(self, gs: GameState) -> None:
        if gs.unum == 0:
            return  # the server has not confirmed us yet
        try:
            self._decide(gs)
        except Exception as e:  # a bug in one decision must not take the player down: log it, keep playing
            self.get_logger().error(f"strategy: decision failed: {type(e).__name__}: {e}", throttle_duration_sec=2.0)

    def _decide(self, gs: GameState) -> None:
        self.side_left = gs.side != GameState.SIDE_RIGHT
        d = self.player.decide(self._view(), gs.play_mode, gs.game_time, self.side_left)
        stamp = gs.header.stamp
        if d.beam is not None:
            now = gs.header.stamp.sec + gs.header.stamp.nanosec * 1e-9
            if now - self.last_beam >= self.beam_period or gs.play_mode not in BEAM_MODES:
                self.last_beam = now
                self.pub_beam.publish(Pose2D(x=d.beam[0], y=d.beam[1], theta=d.beam[2]))
        if d.say:
            self.pub_say.publish(String(data=d.say))
        if d.skill and not self.skill_running:
            self.request_id += 1
            req = MotionRequest(request_id=self.request_id, skill=d.skill, interrupt=True,
                                parameter_names=list(d.skill_params),
                                parameter_values=[float(v) for v in d.skill_params.values()])
            req.header.stamp = stamp
            self.pub_request.publish(req)
        if d.walk is not None and not self.fallen:
            cmd = WalkCommand(mode=WalkCommand.MODE_STAND if d.walk.stop else WalkCommand.MODE_NORMALIZED,
                              x=float(d.walk.x), y=float(d.walk.y), theta=float(d.walk.theta),
                              parameter_set=d.walk.parameter_set)
            cmd.header.stamp = stamp
            self.pub_walk.publish(cmd)
        elif d.beam is not None:
            cmd = WalkCommand(mode=WalkCommand.MODE_STAND)
            cmd.header.stamp = stamp
            self.pub_walk.publish(cmd)
        head = HeadCommand(mode=HeadCommand.MODE_BALL_FOCUS if d.head_ball_focus and self._ball_known()
                           else HeadCommand.MODE_SCAN)
        head.header.stamp = stamp
        if head.mode == HeadCommand.MODE_BALL_FOCUS:
            head.target = self._ball_in_base()
        self.pub_head.publish(head)
        self._publish_roles(d, stamp)

    def _ball_known(self) -> bool:
        return self.world is not None and self.world.ball_valid

    def _ball_in_base(self) -> Point:
        w = self.world
        dx, dy = w.ball_position.x - w.self_pose.x, w.ball_position.y - w.self_pose.y
        c, s = math.cos(-w.self_pose.theta), math.sin(-w.self_pose.theta)
        return Point(x=c * dx - s * dy, y=s * dx + c * dy, z=0.0)

    def _publish_roles(self, d, stamp) -> None:
        from villa_strategy.formation import formation

        ball = (self.world.ball_position.x, self.world.ball_position.y) if self.world else (0.0, 0.0)
        targets = formation(ball, self.params.team_size)
        msg = RoleAssignment(method=d.method)
        msg.header.stamp, msg.header.frame_id = stamp, "field"
        for role in roles_for(self.params.team_size):
            t = targets.get(role)
            slot = RoleSlot(role=role, unum=int(d.assignment.get(role, 0)))
            if t is not None:
                slot.target = Point(x=float(t[0]), y=float(t[1]), z=0.0)
            msg.slots.append(slot)
        self.pub_roles.publish(msg)
        markers = MarkerArray()
        m = Marker(ns="role_target", id=self.unum, type=Marker.SPHERE, action=Marker.ADD)
        m.header.stamp, m.header.frame_id = stamp, "field"
        m.pose.position = Point(x=float(d.target[0]), y=float(d.target[1]), z=0.1)
        m.pose.orientation.w = 1.0
        m.scale.x = m.scale.y = m.scale.z = 0.3
        m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.8, 0.0, 0.8
        text = Marker(ns="role_name", id=self.unum, type=Marker.TEXT_VIEW_FACING, action=Marker.ADD, text=d.role)
        text.header = m.header
        text.pose.position = Point(x=float(d.target[0]), y=float(d.target[1]), z=0.5)
        text.pose.orientation.w = 1.0
        text.scale.z = 0.3
        text.color.r = text.color.g = text.color.b = text.color.a = 1.0
        markers.markers = [m, text]
        self.pub_markers.publish(markers)


def main(args=None) -> int:
    import signal

    from rclpy.executors import ExternalShutdownException
    from rclpy.experimental import EventsExecutor

    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    node = None
    try:
        node = StrategyNode()
        executor = EventsExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except ValueError as e:
        print(f"strategy: {e}", file=sys.stderr)
        return 2
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
