"""The bridge node: a simulated Nao (rcssservermj or SimSpark) behind the topic table of docs/architecture.md.

Thin wiring: the socket loop (session.py) runs in its own thread and calls back to publish; ROS callbacks only
store the latest joint targets, beam and say. Parameters: config/bridge.yaml.
"""

from __future__ import annotations

import math
import sys
import threading

from geometry_msgs.msg import Pose2D, PoseStamped
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64, String

from villa_bridge import messages
from villa_bridge.config import make_backend, session_config
from villa_bridge.effectors import SayError
from villa_bridge.joint_io import CommandError, command_to_targets
from villa_bridge.perception import Perception
from villa_bridge.session import BridgeSession
from villa_msgs.msg import FootContacts, GameState, HeardMessage, JointCommand, VisionFrame
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin, wanted


class BridgeNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("bridge", **kwargs)
        self.params = declare_from_yaml(self, "villa_bridge", "bridge.yaml")
        self.backend = make_backend(self.params)
        self.team = self.backend.team
        self.toes = int(self.params["robot_type"]) == 4
        self.rejected_commands = 0
        self._pub_clock = self.create_publisher(Clock, "/clock", QOS)
        self._pub_js = self.create_publisher(JointState, "joint_states", QOS)
        self._pub_imu = self.create_publisher(Imu, "imu", QOS)
        self._pub_vision = self.create_publisher(VisionFrame, "vision", QOS)
        self._pub_feet = self.create_publisher(FootContacts, "foot_contacts", QOS)
        self._pub_gs = self.create_publisher(GameState, "game_state", QOS)
        self._pub_heard = self.create_publisher(HeardMessage, "heard", QOS)
        self._pub_gt = self.create_publisher(PoseStamped, "ground_truth", QOS)
        self._pub_latency = self.create_publisher(Float64, "bridge_latency", QOS)
        self.create_subscription(JointCommand, "joint_targets", self._on_targets, QOS)
        self.create_subscription(Pose2D, "beam", self._on_beam, QOS)
        self.create_subscription(String, "say", self._on_say, QOS)
        self._allowed = {j.name for j in self.backend.joints}
        self.session = BridgeSession(self.backend, session_config(self.params), on_perception=self._publish,
                                     on_cycle=self._on_cycle, on_answered=self._publish_rest,
                                     log=self.get_logger())
        self._last_stats = (0, 0, 0)
        period = float(self.params["stats_period"])
        if period > 0:
            self.create_timer(period, self._log_stats)
        self._thread = threading.Thread(target=self._run, name="bridge-socket", daemon=True)
        self._thread.start()
        self.get_logger().info(f"bridge: {self.backend.name} at {self.session.config.host}:"
                               f"{self.session.config.port}, {self.team} #{self.backend.unum}, "
                               f"robot type {self.backend.robot_type}, sync={self.backend.sync}")

    # --- socket thread -------------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self.session.run()
        except Exception as e:  # the loop itself handles wire errors; anything else is a bug worth a clear line
            self.get_logger().error(f"bridge: socket loop stopped: {type(e).__name__}: {e}")

    def _publish(self, p: Perception, _t0: float) -> None:
        """Before the cycle's answer: the clock and motion's inputs. Everything else waits for the answer
        (_publish_rest): published now, its callbacks (the strategy's decision on game_state, perception's vision
        frame) would run in the player's executor before the bridge's joint-target callback and make answers late
        in real-time mode (docs/architecture.md, "Timing")."""
        if p.time is None:
            return
        t = messages.stamp(p.time)
        self._pub_clock.publish(messages.clock(p.time))
        imu = messages.imu(p, t)                      # before the joint states: motion's cycle balances on this
        if imu is not None:                           # cycle's angular rate
            self._pub_imu.publish(imu)
        if p.joint_names:
            self._pub_js.publish(messages.joint_state(p, t))

    def _publish_rest(self, p: Perception) -> None:
        """After the cycle's answer went out: the rest of the perception."""
        if p.time is None:
            return
        t = messages.stamp(p.time)
        side = self.session.side
        self._pub_feet.publish(messages.foot_contacts(p, t, self.toes))
        gs = messages.game_state(p, t, self.session.unum, side, self.team)
        if gs is not None:
            self._pub_gs.publish(gs)
        frame = messages.vision(p, t, side, self.team)
        if frame is not None:
            self._pub_vision.publish(frame)
        for h in messages.heard(p, t):
            self._pub_heard.publish(h)
        if wanted(self._pub_gt):
            gt = messages.ground_truth(p, t, side)
            if gt is not None:
                self._pub_gt.publish(gt)

    def _on_cycle(self, latency: float, late: bool) -> None:
        if wanted(self._pub_latency):
            self._pub_latency.publish(Float64(data=latency))

    # --- ROS callbacks: store only -------------------------------------------------------------------------
    def _on_targets(self, msg: JointCommand) -> None:
        try:
            targets = command_to_targets(msg.name, msg.position, msg.velocity, msg.stiffness, limits="sim",
                                         allowed=self._allowed)
        except CommandError as e:
            self.rejected_commands += 1
            self.get_logger().error(f"bridge: {e} (command ignored)", throttle_duration_sec=2.0)
            return
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9      # the perception these targets answer
        self.session.submit_targets(targets, stamp or None)

    def _on_beam(self, msg: Pose2D) -> None:
        if not all(math.isfinite(v) for v in (msg.x, msg.y, msg.theta)):
            self.get_logger().error("bridge: beam with a non-finite value ignored")
            return
        self.session.submit_beam(msg.x, msg.y, msg.theta)

    def _on_say(self, msg: String) -> None:
        try:
            self.session.submit_say(msg.data)
        except SayError as e:
            self.session.stats.say_rejected += 1
            self.get_logger().error(f"bridge: {e} (not sent)")

    def _log_stats(self) -> None:
        s = self.session.stats
        now = (s.cycles, s.late_cycles, s.malformed)
        if now != self._last_stats:
            self.get_logger().info(f"bridge: {s.cycles} cycles, {s.late_cycles} late, {s.malformed} malformed, "
                                   f"{self.rejected_commands} rejected commands, {s.say_rejected} rejected says, "
                                   f"{s.callback_errors} publish errors")
            self._last_stats = now

    def shutdown(self) -> None:
        """Stop the socket thread (called before destroy_node) and log the cycle counts a last time."""
        self.session.stop()
        self._log_stats()
        self._thread.join(timeout=3.0)

    def destroy_node(self) -> None:
        self.shutdown()
        super().destroy_node()


def main(args=None) -> int:
    return spin(BridgeNode, "bridge", args, (ValueError,))


if __name__ == "__main__":
    sys.exit(main())
