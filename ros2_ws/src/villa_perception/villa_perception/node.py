"""The perception node: vision + joint states + IMU -> observations, fall state, markers (thin wiring).

Head angles come from the joint state nearest in time to the image (§4.2); fall state from every IMU reading (§8).
Parameters: config/perception.yaml.
"""

from __future__ import annotations

import bisect
import math
import sys
import threading
from collections import deque

import rclpy
from geometry_msgs.msg import Point
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Imu, JointState
from visualization_msgs.msg import Marker, MarkerArray

from villa_msgs.msg import FallState, GameState, Observation, Observations, VisionFrame
from villa_nao.params import declare_from_yaml
from villa_perception import perception as P
from villa_perception.fall import FallDetector, FallParams
from villa_perception.memory import VisualMemory
from villa_perception.vision import NoiseModel

QOS = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
TYPES = {"flag": Observation.TYPE_FLAG, "goal_post": Observation.TYPE_GOAL_POST, "ball": Observation.TYPE_BALL,
         "teammate": Observation.TYPE_TEAMMATE, "opponent": Observation.TYPE_OPPONENT, "line": Observation.TYPE_LINE}


def _t(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def _polar(p) -> P.Polar:
    return P.Polar(p.distance, p.azimuth, p.elevation)


def frame_from_msg(msg: VisionFrame) -> P.Frame:
    return P.Frame(
        landmarks={o.name: _polar(o.position) for o in list(msg.flags) + list(msg.goal_posts)},
        ball=_polar(msg.ball) if msg.ball_seen else None,
        players=[P.PlayerSeen(pl.team, pl.id, pl.teammate, {s.name: _polar(s.position) for s in pl.parts})
                 for pl in msg.players],
        lines=[(_polar(ln.start), _polar(ln.end)) for ln in msg.lines])


class PerceptionNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("perception", **kwargs)
        p = declare_from_yaml(self, "villa_perception", "perception.yaml")
        self.robot_type = int(p["robot_type"])
        self.unum = int(p["unum"])
        self.team = str(p["team"])
        self.noise = NoiseModel(float(p["distance_sigma_rel"]), float(p["distance_sigma_abs"]),
                                math.radians(float(p["angle_sigma_deg"])))
        self.fall = FallDetector(FallParams(upright_tilt=math.radians(float(p["fall.upright_tilt_deg"])),
                                            recover_tilt=math.radians(float(p["fall.recover_tilt_deg"])),
                                            recover_time=float(p["fall.recover_time"]),
                                            lying_xy=float(p["fall.lying_xy"]),
                                            lying_time=float(p["fall.lying_time"]),
                                            switch_time=float(p["fall.switch_time"])))
        self.memory = VisualMemory()
        self.heads: deque[tuple[float, float, float]] = deque(maxlen=int(p["joint_buffer"]))
        self.acc = None
        self._lock = threading.Lock()
        self.pub_obs = self.create_publisher(Observations, "observations", QOS)
        self.pub_fall = self.create_publisher(FallState, "fall_state", QOS)
        self.pub_markers = self.create_publisher(MarkerArray, "perception_markers", QOS)
        self.create_subscription(JointState, "joint_states", self._on_joints, QOS)
        self.create_subscription(Imu, "imu", self._on_imu, QOS)
        self.create_subscription(VisionFrame, "vision", self._on_vision, QOS)
        self.create_subscription(GameState, "game_state", self._on_game_state, QOS)

    def _on_game_state(self, msg: GameState) -> None:
        if msg.unum:
            self.unum = msg.unum
        if msg.team_name:
            self.team = msg.team_name

    def _on_joints(self, msg: JointState) -> None:
        try:
            yaw = msg.position[list(msg.name).index("HeadYaw")]
            pitch = msg.position[list(msg.name).index("HeadPitch")]
        except (ValueError, IndexError):
            return
        with self._lock:
            self.heads.append((_t(msg.header.stamp), yaw, pitch))

    def _head_at(self, t: float) -> tuple[float, float] | None:
        with self._lock:
            if not self.heads:
                return None
            times = [h[0] for h in self.heads]
            i = bisect.bisect_left(times, t)
            cands = [self.heads[j] for j in (i - 1, i) if 0 <= j < len(self.heads)]
        best = min(cands, key=lambda h: abs(h[0] - t))
        return best[1], best[2]

    def _on_imu(self, msg: Imu) -> None:
        a = msg.linear_acceleration
        self.acc = (a.x, a.y, a.z)
        state, duration = self.fall.update(self.acc, _t(msg.header.stamp))
        out = FallState(state=state, duration=float(duration))
        out.header = msg.header
        self.pub_fall.publish(out)

    def _on_vision(self, msg: VisionFrame) -> None:
        t = _t(msg.header.stamp)
        head = self._head_at(t)
        if head is None:
            return  # no joint state yet: the camera pose is unknown
        seen = P.process(frame_from_msg(msg), head[0], head[1], self.acc, self.team, self.unum, self.robot_type,
                         self.noise)
        self.memory.update({s.name: s.position for s in seen if s.kind in ("ball", "teammate", "opponent")}, t,
                           head[0])
        out = Observations()
        out.header.stamp, out.header.frame_id = msg.header.stamp, "base_footprint"
        for s in seen:
            o = Observation(type=TYPES[s.kind], name=s.name, distance=s.distance, bearing=s.bearing,
                            distance_sigma=s.distance_sigma, bearing_sigma=s.bearing_sigma)
            o.position = Point(x=float(s.position[0]), y=float(s.position[1]), z=0.0)
            if s.end is not None:
                o.end = Point(x=float(s.end[0]), y=float(s.end[1]), z=0.0)
            out.observations.append(o)
        self.pub_obs.publish(out)
        self._markers(out)

    def _markers(self, obs: Observations) -> None:
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
    import signal

    from rclpy.executors import ExternalShutdownException
    from rclpy.experimental import EventsExecutor

    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    node = None
    try:
        node = PerceptionNode()
        executor = EventsExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except ValueError as e:
        print(f"perception: {e}", file=sys.stderr)
        return 2
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
