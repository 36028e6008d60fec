"""Field markers for rviz: the SimSpark field (lines, centre circle, goals, flags) in the `field` frame, latched, and
each player's belief (pose, ball) from its `world_model`, for one or more teams.

    field_markers --ros-args -p teams:="[villa]" -p players:=5
"""

from __future__ import annotations

import sys
import threading

from geometry_msgs.msg import Point
from visualization_msgs.msg import Marker, MarkerArray

from villa_nao import field as F


def _marker(ns: str, mid: int, kind: int, rgba, scale) -> Marker:
    m = Marker(ns=ns, id=mid, type=kind, action=Marker.ADD)
    m.header.frame_id = "field"
    m.pose.orientation.w = 1.0
    m.scale.x, m.scale.y, m.scale.z = scale
    m.color.r, m.color.g, m.color.b, m.color.a = rgba
    return m


def field_marker_array() -> MarkerArray:
    """The field from villa_nao.field: every line segment, the goals (posts and bar), the corner flags."""
    arr = MarkerArray()
    lines = _marker("field_lines", 0, Marker.LINE_LIST, (1.0, 1.0, 1.0, 1.0), (0.05, 0.0, 0.0))
    for (x0, y0), (x1, y1) in F.LINES:
        lines.points += [Point(x=x0, y=y0, z=0.0), Point(x=x1, y=y1, z=0.0)]
    arr.markers.append(lines)
    goals = _marker("goals", 0, Marker.LINE_LIST, (1.0, 1.0, 0.2, 1.0), (0.04, 0.0, 0.0))
    for gx in (-F.HALF_LENGTH, F.HALF_LENGTH):
        y = F.GOAL_WIDTH / 2
        goals.points += [Point(x=gx, y=y, z=0.0), Point(x=gx, y=y, z=F.GOAL_HEIGHT),
                         Point(x=gx, y=-y, z=0.0), Point(x=gx, y=-y, z=F.GOAL_HEIGHT),
                         Point(x=gx, y=y, z=F.GOAL_HEIGHT), Point(x=gx, y=-y, z=F.GOAL_HEIGHT)]
    arr.markers.append(goals)
    for i, name in enumerate(F.FLAGS):
        x, y, _ = F.LANDMARKS[name]
        flag = _marker("flags", i, Marker.CYLINDER, (1.0, 0.5, 0.0, 1.0), (0.1, 0.1, 0.4))
        flag.pose.position = Point(x=x, y=y, z=0.2)
        arr.markers.append(flag)
    return arr


def main(args=None) -> int:
    import signal

    import rclpy
    from rclpy.node import Node
    from rclpy.qos import DurabilityPolicy, QoSProfile

    from villa_msgs.msg import WorldModel

    class FieldMarkersNode(Node):
        def __init__(self, **kwargs) -> None:
            super().__init__("field_markers", **kwargs)
            teams = self.declare_parameter("teams", ["villa"]).value
            n = int(self.declare_parameter("players", 11).value)
            latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
            self.create_publisher(MarkerArray, "/field_markers", latched).publish(field_marker_array())
            self.pub = self.create_publisher(MarkerArray, "/team_markers", 5)
            for k, team in enumerate(teams):
                for u in range(1, n + 1):
                    self.create_subscription(WorldModel, f"/{team}/p{u}/world_model",
                                             lambda m, t=team, u=u, k=k: self._on_world(t, u, k, m), 5)

        def _on_world(self, team: str, unum: int, k: int, msg) -> None:
            colour = (0.1, 0.3, 1.0, 1.0) if k == 0 else (1.0, 0.1, 0.1, 1.0)
            me = _marker(f"{team}/players", unum, Marker.ARROW, colour, (0.4, 0.08, 0.08))
            me.header.stamp = msg.header.stamp
            me.pose.position = Point(x=msg.self_pose.x, y=msg.self_pose.y, z=0.1)
            import math

            me.pose.orientation.z, me.pose.orientation.w = math.sin(msg.self_pose.theta / 2), math.cos(
                msg.self_pose.theta / 2)
            ball = _marker(f"{team}/ball", unum, Marker.SPHERE, (1.0, 0.6, 0.0, 0.8 if msg.ball_valid else 0.2),
                           (0.084, 0.084, 0.084))
            ball.header.stamp = msg.header.stamp
            ball.pose.position = msg.ball_position
            self.pub.publish(MarkerArray(markers=[me, ball]))

    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    node = FieldMarkersNode()
    try:
        while not stop.is_set() and rclpy.ok():
            rclpy.spin_once(node, timeout_sec=0.1)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
