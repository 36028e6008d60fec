"""The motion node: walk engine, skills, kicks, get-up and head control behind the motion topics (thin wiring).

One output per incoming `joint_states` (one per server cycle): all joint targets, odometry and motion status.
A fall (fall_state from perception, §8) interrupts everything: arms out on a side fall, then the get-up skill the
accelerometer picked (front or back), repeated until upright. Parameters: config/motion.yaml.

Kicks (villa_motion.kick, §13.1): a MotionRequest with skill ``kick`` (choose by the §13.1.1 cost) or ``kick_<name>``
(``kick_forward`` picks the foot, ``kick_forward_L`` is exact) and parameters ``ball_x``, ``ball_y`` (m, the ball in
the robot frame) and optionally ``direction`` (rad, robot frame, for ``kick``). The walk stops first (§10.4.3); the
ball position is carried over by odometry; then the kick engine runs (weight shift, curve, back to standing) and
MotionStatus reports ``kick_<name>`` until done. A kick the IK cannot reach is refused: logged, reported done, and
the walk commands resume.
"""

from __future__ import annotations

import math
import sys
import threading

import rclpy
from geometry_msgs.msg import Quaternion
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState

from villa_motion import head as H
from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets, load_skill_variables
from villa_motion.skills import SkillError, SkillPlayer, load_dir
from villa_motion.walk import WalkEngine
from villa_msgs.msg import FallState, HeadCommand, JointCommand, MotionRequest, MotionStatus, WalkCommand
from villa_nao import field as F
from villa_nao.params import config_path, declare_from_yaml, share_path

QOS = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
GETUP = {FallState.FALLEN_FRONT: "getup_front", FallState.FALLEN_BACK: "getup_back",
         FallState.FALLEN_SIDE: "fall_arms_out"}


def _t(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


class MotionNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("motion", **kwargs)
        p = declare_from_yaml(self, "villa_motion", "motion.yaml")
        self.robot_type = int(p["robot_type"])
        sets_file = str(p["walk_parameter_sets"]) or str(config_path("villa_motion", "walk_params.yaml"))
        simulator = str(p["simulator"]) or None
        sets = load_parameter_sets(sets_file, simulator)
        self.walk = WalkEngine(sets, str(p["walk_parameter_set"]) or None, self.robot_type)
        skills_dir = str(p["skills_dir"]) or str(share_path("villa_motion", "skills"))
        self.skills = load_dir(skills_dir)
        missing = {"stand", *GETUP.values()} - set(self.skills)
        if missing:
            raise ValueError(f"skills missing from {skills_dir}: {', '.join(sorted(missing))}")
        skill_params = str(p["skill_params"]) or config_path("villa_motion", "skill_params.yaml")
        self.skill_vars = load_skill_variables(skill_params, simulator)
        self.auto_getup = bool(p["auto_getup"])
        self.kicks = KK.load_kick_set(str(p["kick_parameter_set"]), str(p["kicks_dir"]) or None,
                                      str(p["kick_params"]) or None, simulator)
        self.kicker: KK.KickEngine | None = None
        self.pending_kick: tuple[KK.KickDef, tuple[float, float], list[float]] | None = None
        self.head = H.HeadController()
        self.head_cmd = HeadCommand(mode=HeadCommand.MODE_SCAN)
        self.player: SkillPlayer | None = None
        self.player_name = ""
        self.request_id = 0
        self.done = False
        self.fall_state = FallState.UPRIGHT
        self.last_t: float | None = None
        self.odom = [0.0, 0.0, 0.0]
        self._lock = threading.Lock()
        self.pub_targets = self.create_publisher(JointCommand, "joint_targets", QOS)
        self.pub_odom = self.create_publisher(Odometry, "odom", QOS)
        self.pub_status = self.create_publisher(MotionStatus, "motion_status", QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, QOS)
        self.create_subscription(WalkCommand, "cmd_walk", self._on_walk, QOS)
        self.create_subscription(MotionRequest, "motion_request", self._on_request, QOS)
        self.create_subscription(HeadCommand, "head_command", self._on_head, QOS)
        self.create_subscription(FallState, "fall_state", self._on_fall, QOS)
        self.get_logger().info(f"motion: robot type {self.robot_type}, walk sets {', '.join(sets)}, "
                               f"skills {', '.join(sorted(self.skills))}, kicks {', '.join(sorted(self.kicks))}")

    # --- commands ------------------------------------------------------------------------------------
    def _on_walk(self, msg: WalkCommand) -> None:
        with self._lock:
            if self.kicker is not None or self.pending_kick is not None:
                return          # a kick owns the legs; the strategy repeats its walk command every cycle
            try:
                if msg.mode == WalkCommand.MODE_STAND:
                    self.walk.command_stand()
                elif msg.mode == WalkCommand.MODE_VELOCITY:
                    self.walk.command_velocity(msg.x, msg.y, msg.theta, msg.parameter_set)
                else:
                    self.walk.command_normalized(msg.x, msg.y, msg.theta, msg.parameter_set)
            except ValueError as e:
                self.get_logger().warning(f"motion: walk command refused: {e}", throttle_duration_sec=5.0)

    def _on_head(self, msg: HeadCommand) -> None:
        self.head_cmd = msg

    def _on_fall(self, msg: FallState) -> None:
        self.fall_state = msg.state

    def _on_request(self, msg: MotionRequest) -> None:
        with self._lock:
            if msg.skill == "walk":
                self.player, self.player_name = None, ""
                self.kicker = self.pending_kick = None
                self.request_id, self.done = msg.request_id, True
                return
            if msg.skill == "kick" or msg.skill.startswith("kick_"):
                self._request_kick(msg)
                return
            if msg.skill not in self.skills:
                have = ", ".join(sorted(self.skills))
                self.get_logger().warning(f"motion: unknown skill {msg.skill!r} (have {have})")
                return
            if self.player is not None and not self.player.done and not msg.interrupt:
                return
            self._start(msg.skill, dict(zip(msg.parameter_names, msg.parameter_values, strict=False)))
            self.request_id = msg.request_id

    def _request_kick(self, msg: MotionRequest) -> None:
        busy = self.player is not None and not self.player.done
        if self.kicker is not None or (busy and (not msg.interrupt or self.player_name in GETUP.values())) \
                or self.fall_state != FallState.UPRIGHT:
            return      # a running kick or get-up is never interrupted by a kick
        params = dict(zip(msg.parameter_names, msg.parameter_values, strict=False))
        self.request_id = msg.request_id
        try:
            ball = (float(params["ball_x"]), float(params["ball_y"]))
            kick = self._pick_kick(msg.skill, ball, float(params.get("direction", 0.0)))
        except (KeyError, ValueError) as e:
            self.get_logger().warning(f"motion: kick request {msg.skill!r} refused: {e}")
            self.done = True
            return
        self.player, self.kicker, self.done = None, None, False
        self.pending_kick = (kick, ball, list(self.odom))
        self.walk.command_stand()

    def _pick_kick(self, skill: str, ball: tuple[float, float], direction: float) -> KK.KickDef:
        name = skill[len("kick_"):] if skill.startswith("kick_") else ""
        if name in self.kicks:
            return self.kicks[name]
        pool = [k for k in self.kicks.values() if not name or k.base == name]
        if not pool:
            raise ValueError(f"no kick {name!r} (have {', '.join(sorted(self.kicks))})")
        return KK.choose_kick(pool, (0.0, 0.0), 0.0, ball, direction)[0]

    def _begin_kick(self) -> None:
        """The walk has stopped: move the requested ball position by the odometry since the request, then start."""
        kick, (bx, by), (ox, oy, oth) = self.pending_kick
        self.pending_kick = None
        x, y, th = self.odom
        ball = F.to_local(F.from_local((bx, by), (ox, oy), oth), (x, y), th)     # through the odom frame
        p = self.walk.sets[self.walk.set_name]
        engine = KK.KickEngine(kick, KK.StandPose.from_walk(p), self.robot_type)
        if engine.start(ball):
            self.kicker = engine
            self.get_logger().info(f"motion: kick {kick.name} at ball ({ball[0]:.3f}, {ball[1]:.3f}) m")
        else:
            self.done = True
            self.get_logger().warning(f"motion: {engine.reason}; back to walking")

    def _start(self, name: str, variables: dict[str, float]) -> None:
        try:
            merged = {**self.skill_vars.get(name, {}), **variables}
            self.player = SkillPlayer(self.skills[name], dict(self._last_targets), merged)
            self.player_name, self.done = name, False
        except SkillError as e:
            self.get_logger().error(f"motion: cannot start {name}: {e}")

    # --- the cycle -------------------------------------------------------------------------------------
    _last_targets: dict[str, float] = {}

    def _on_joints(self, msg: JointState) -> None:
        t = _t(msg.header.stamp)
        dt = 0.02 if self.last_t is None or not 0 < t - self.last_t < 0.2 else t - self.last_t
        self.last_t = t
        sensed = dict(zip(msg.name, msg.position, strict=False))
        with self._lock:
            phase, com_error, unstable = 0.0, self.walk.com_error, False
            if self.auto_getup and self.fall_state in GETUP and (self.player is None or self.player.done
                                                                  or self.player_name not in GETUP.values()):
                self._start(GETUP[self.fall_state], {})
                self.walk.walking = False
            if self.player is not None and self.player_name in GETUP.values():
                self.kicker = self.pending_kick = None          # a fall ends any kick
            if self.pending_kick is not None and not self.walk.walking:
                self._begin_kick()
            if self.player is not None and not self.player.done:
                targets = dict(self.player.update(dt))
                active = self.player_name
            elif self.kicker is not None:
                targets = self.kicker.update(dt, sensed)
                active = f"kick_{self.kicker.kick.name}"
                if self.kicker.done:
                    self.kicker, self.done = None, True
                    self.walk.walking = False
            else:
                if self.player is not None and self.player.done:
                    self.done = True
                    self.player = None
                out = self.walk.update(dt, sensed)
                targets = dict(out.joints)
                phase, com_error, unstable = out.phase, out.com_error, out.unstable
                self._integrate(out.odometry)
                active = "walk" if self.walk.walking else "stand"
                if self.pending_kick is not None:
                    active = f"kick_{self.pending_kick[0].name}"
            yaw, pitch = self._head(dt)
            targets["HeadYaw"], targets["HeadPitch"] = yaw, pitch
            self._last_targets = targets
        cmd = JointCommand(name=list(targets), position=[float(v) for v in targets.values()])
        cmd.header.stamp = msg.header.stamp
        self.pub_targets.publish(cmd)
        self._publish_odom(msg.header.stamp)
        st = MotionStatus(active=active, request_id=self.request_id, done=self.done, walk_phase=float(phase),
                          com_error=float(com_error), unstable=bool(unstable))
        st.header.stamp = msg.header.stamp
        self.pub_status.publish(st)

    def _head(self, dt: float) -> tuple[float, float]:
        c = self.head_cmd
        bearing = distance = None
        if c.mode in (HeadCommand.MODE_BALL_FOCUS, HeadCommand.MODE_LOOK_AT):
            bearing, distance = math.atan2(c.target.y, c.target.x), math.hypot(c.target.x, c.target.y)
        return self.head.update(dt, c.mode, bearing, distance, c.yaw, c.pitch if c.mode == HeadCommand.MODE_FIXED
                                else None)

    def _integrate(self, odo) -> None:
        dx, dy, dth = odo
        x, y, th = self.odom
        c, s = math.cos(th), math.sin(th)
        self.odom = [x + c * dx - s * dy, y + s * dx + c * dy, math.remainder(th + dth, 2 * math.pi)]

    def _publish_odom(self, stamp) -> None:
        o = Odometry()
        o.header.stamp, o.header.frame_id, o.child_frame_id = stamp, "odom", "base_link"
        x, y, th = self.odom
        o.pose.pose.position.x, o.pose.pose.position.y = x, y
        o.pose.pose.orientation = Quaternion(x=0.0, y=0.0, z=math.sin(th / 2), w=math.cos(th / 2))
        self.pub_odom.publish(o)


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
        node = MotionNode()
        executor = EventsExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except (ValueError, SkillError) as e:
        print(f"motion: {e}", file=sys.stderr)
        return 2
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
