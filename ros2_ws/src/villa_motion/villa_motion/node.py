"""The motion node: villa_motion.arbiter.MotionArbiter behind the motion topics (wiring only).

One output per incoming `joint_states` (one per server cycle): all joint targets, odometry and motion status. The
arbiter decides who owns the joints (walk, stop-for-a-kick, kick, skill, get-up, fallen); see its docstring for the
requests: `cmd_walk`, `motion_request` (a skill, ``kick`` / ``kick_<name>`` with ``ball_x``, ``ball_y`` [,
``direction``], or ``walk``), `head_command`, `fall_state`, and `imu` (the walk's balance feedback uses the latest
angular rate). With `publish_tf`, the walk odometry's frames on /tf: ``odom -> base_link`` (the torso's height over the
floor and its tilt from the IMU), ``base_footprint`` and every link of the Nao from the sensed joints
(villa_nao.frames), at `tf_frequency` of simulated time while /tf has a subscriber; the fixed links on /tf_static and
the URDF on `robot_description` (villa_nao.tf_ros). Parameters: config/motion.yaml.
"""

from __future__ import annotations

import math
import sys
import threading

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose2D, Quaternion
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from villa_motion import arbiter as A
from villa_motion.skills import SkillError
from villa_motion.walk import TiltEstimate
from villa_msgs.msg import FallState, HeadCommand, JointCommand, MotionRequest, MotionStatus, WalkCommand
from villa_nao.frames import RobotFrames, Throttle, frame_prefix
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin, stamp_seconds
from villa_nao.tf_ros import TfPublisher, publish_robot_description
from villa_nao.urdf import make_urdf


def walk_request(msg: WalkCommand) -> A.WalkRequest:
    return A.WalkRequest(msg.mode, msg.x, msg.y, msg.theta, msg.parameter_set)


def skill_request(msg: MotionRequest) -> A.SkillRequest:
    return A.SkillRequest(msg.skill, dict(zip(msg.parameter_names, msg.parameter_values, strict=False)),
                          msg.request_id, msg.interrupt)


def head_request(msg: HeadCommand) -> A.HeadRequest:
    return A.HeadRequest(msg.mode, msg.yaw, msg.pitch, (msg.target.x, msg.target.y))


def status_message(s: A.MotionStatus) -> MotionStatus:
    return MotionStatus(active=s.active, request_id=s.request_id, done=s.done, walk_phase=s.walk_phase,
                        com_error=s.com_error, unstable=s.unstable)


def odometry_message(pose: tuple[float, float, float]) -> Odometry:
    o = Odometry()
    o.header.frame_id, o.child_frame_id = "odom", "base_link"
    x, y, th = pose
    o.pose.pose.position.x, o.pose.pose.position.y = x, y
    o.pose.pose.orientation = Quaternion(x=0.0, y=0.0, z=math.sin(th / 2), w=math.cos(th / 2))
    return o


class MotionNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("motion", **kwargs)
        p = declare_from_yaml(self, "villa_motion", "motion.yaml")
        self.arbiter = A.load(p, self._log)
        self._lock = threading.Lock()
        self.pub_targets = self.create_publisher(JointCommand, "joint_targets", QOS)
        self.pub_odom = self.create_publisher(Odometry, "odom", QOS)
        self.pub_status = self.create_publisher(MotionStatus, "motion_status", QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, QOS)
        self.create_subscription(WalkCommand, "cmd_walk", self._on_walk, QOS)
        self.create_subscription(MotionRequest, "motion_request", self._on_request, QOS)
        self.create_subscription(HeadCommand, "head_command", self._on_head, QOS)
        self.create_subscription(FallState, "fall_state", self._on_fall, QOS)
        self.create_subscription(Imu, "imu", self._on_imu, QOS)
        if p.get("simulator", "villa") != "naoqi":      # the strategy's beam moves a simulated robot (a Nao ignores it)
            self.create_subscription(Pose2D, "beam", self._on_beam, QOS)
        a = self.arbiter
        self.tf: TfPublisher | None = None
        if p["publish_tf"]:
            prefix = frame_prefix(self.get_namespace(), str(p["frame_prefix"]))
            self.frames = RobotFrames(a.robot_type, prefix)
            self.tilt = TiltEstimate()                  # the torso's roll and pitch for odom -> base_link
            self._imu_t: float | None = None
            self._tf_throttle = Throttle(float(p["tf_frequency"]))
            self.tf = TfPublisher(self)
            self.tf.publish_static(Time(), self.frames.static)
            self._description = publish_robot_description(self, make_urdf(a.robot_type, prefix))
        self.get_logger().info(f"motion: robot type {a.robot_type}, walk sets {', '.join(a.walk.sets)}, "
                               f"skills {', '.join(sorted(a.skills))}, kicks {', '.join(sorted(a.kicks))}"
                               + (f", frames {self.frames.base_link}..." if self.tf else ""))

    def _log(self, level: str, text: str) -> None:
        """The arbiter's log lines at their severity. rclpy ties one severity to each line that logs and raises
        ValueError at another from the same line: one call per severity (a refused kick's warning, then a kick's
        info, ended players mid-match in real-time SimSpark matches)."""
        logger = self.get_logger()
        if level == "error":
            logger.error(text)
        elif level == "warning":
            logger.warning(text)
        else:
            logger.info(text)

    def _on_walk(self, msg: WalkCommand) -> None:
        with self._lock:
            v = self.arbiter.walk_request(walk_request(msg))
        if v.outcome == "refused":
            self.get_logger().warning(f"motion: {v.reason}", throttle_duration_sec=5.0)

    def _on_request(self, msg: MotionRequest) -> None:
        with self._lock:
            v = self.arbiter.request(skill_request(msg))
        if v.outcome == "refused" and not msg.skill.startswith("kick"):     # the arbiter logs refused kicks
            self.get_logger().warning(f"motion: {v.reason}")

    def _on_head(self, msg: HeadCommand) -> None:
        with self._lock:
            self.arbiter.head(head_request(msg))

    def _on_beam(self, msg: Pose2D) -> None:
        with self._lock:
            self.arbiter.beamed()

    def _on_fall(self, msg: FallState) -> None:
        with self._lock:
            self.arbiter.fall(msg.state)

    def _on_imu(self, msg: Imu) -> None:
        w, a = msg.angular_velocity, msg.linear_acceleration
        with self._lock:
            self.arbiter.imu((w.x, w.y, w.z), (a.x, a.y, a.z))
        if self.tf is not None:
            t = stamp_seconds(msg.header.stamp)
            dt = 0.0 if self._imu_t is None else min(max(t - self._imu_t, 0.0), 0.1)
            self._imu_t = t
            gyro = (w.x, w.y, w.z)
            self.tilt.update(dt, gyro if all(math.isfinite(v) for v in gyro) else None, (a.x, a.y, a.z))

    def _on_joints(self, msg: JointState) -> None:
        joints = dict(zip(msg.name, msg.position, strict=False))
        with self._lock:
            out = self.arbiter.update(stamp_seconds(msg.header.stamp), joints)
        cmd = JointCommand(name=list(out.targets), position=[float(v) for v in out.targets.values()],
                           stiffness=out.stiffness())
        cmd.header.stamp = msg.header.stamp
        self.pub_targets.publish(cmd)
        odom = odometry_message(out.odometry)
        odom.header.stamp = msg.header.stamp
        self.pub_odom.publish(odom)
        st = status_message(out.status)
        st.header.stamp = msg.header.stamp
        self.pub_status.publish(st)
        if self.tf is not None and self.tf.wanted() and self._tf_throttle.due(stamp_seconds(msg.header.stamp)):
            self._publish_tf(msg.header.stamp, joints, out.odometry)

    def _publish_tf(self, stamp, joints: dict[str, float], odometry: tuple[float, float, float]) -> None:
        try:
            frames, matrices = self.frames.transforms(joints, odometry, self.tilt.roll, self.tilt.pitch)
        except ValueError as e:      # a non-finite joint reading: no frames this time
            self.get_logger().warning(f"motion: no frames: {e}", throttle_duration_sec=5.0)
            return
        self.tf.publish(stamp, frames, matrices)


def main(args=None) -> int:
    return spin(MotionNode, "motion", args, (ValueError, SkillError))


if __name__ == "__main__":
    sys.exit(main())
