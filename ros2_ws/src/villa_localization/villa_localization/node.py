"""The localization node: observations + odometry -> pose, particles, world model, markers (thin wiring).

Odometry (the walk engine's, on `odom`) is accumulated between vision frames and applied before each observation
update (§5). Beams re-seed the filter at the known pose; `fall_state` (§8) makes the model ignore vision and
odometry while the robot is down and spread its particles. Parameters: config/localization.yaml.
"""

from __future__ import annotations

import math
import sys
import threading

import rclpy
from geometry_msgs.msg import Point, Pose, Pose2D, PoseArray, PoseWithCovarianceStamped, Quaternion
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from visualization_msgs.msg import Marker, MarkerArray

from villa_localization.ball_filter import BallParams
from villa_localization.particle_filter import PFParams
from villa_localization.world_model import Observed
from villa_localization.world_model import WorldModel as Model
from villa_msgs.msg import FallState, GameState, Observation, Observations, TrackedObject, WorldModel
from villa_nao import field as F
from villa_nao.params import declare_from_yaml

QOS = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
KINDS = {Observation.TYPE_FLAG: "flag", Observation.TYPE_GOAL_POST: "goal_post", Observation.TYPE_BALL: "ball",
         Observation.TYPE_TEAMMATE: "teammate", Observation.TYPE_OPPONENT: "opponent", Observation.TYPE_LINE: "line"}


def _t(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def _yaw(q) -> float:
    return F.yaw_upright((q.w, q.x, q.y, q.z))[0]


def _quat(yaw: float) -> Quaternion:
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2))


class LocalizationNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("localization", **kwargs)
        p = declare_from_yaml(self, "villa_localization", "localization.yaml")
        pf = PFParams(particles=int(p["particles"]),
                      odom_factors=tuple(float(v) for v in p["odom_factors"]),
                      random_fraction=float(p["random_fraction"]),
                      line_sigma=float(p["line_sigma"]),
                      reset_fraction_max=float(p["reset_fraction_max"]),
                      lost_ratio=float(p["lost_ratio"]),
                      lost_sigma=float(p["lost_sigma"]))
        if pf.particles < 10:
            raise ValueError(f"particles must be at least 10, got {pf.particles}")
        self.model = Model(pf_params=pf, ball_params=BallParams(accel_sigma=float(p["ball_accel_sigma"])),
                           valid_for=float(p["valid_for"]),
                           fall_sigma=tuple(float(v) for v in p["fall_sigma"]),
                           getup_sigma=tuple(float(v) for v in p["getup_sigma"]),
                           blind_sigma=tuple(float(v) for v in p["blind_sigma"]))
        self.publish_particles = int(p["publish_particles"])
        self.unum = int(p["unum"])
        self._odom_prev: tuple[float, float, float] | None = None
        self._odom_acc = [0.0, 0.0, 0.0]
        self._lock = threading.Lock()
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
        if msg.unum:
            self.unum = msg.unum

    def _on_fall(self, msg: FallState) -> None:
        with self._lock:
            self.model.fallen(msg.state != FallState.UPRIGHT, _t(msg.header.stamp))

    def _on_beam(self, msg: Pose2D) -> None:
        with self._lock:
            self.model.known_pose(msg.x, msg.y, msg.theta)

    def _on_odom(self, msg: Odometry) -> None:
        p = msg.pose.pose
        cur = (p.position.x, p.position.y, _yaw(p.orientation))
        with self._lock:
            if self._odom_prev is not None:
                px, py, pth = self._odom_prev
                # the step in the robot frame at the previous pose, accumulated in the current robot frame
                step = F.to_local(cur, (px, py), pth)
                ax, ay, ath = self._odom_acc
                self._odom_acc = [*F.from_local(step, (ax, ay), ath), ath + math.remainder(cur[2] - pth, 2 * math.pi)]
            self._odom_prev = cur

    def _on_observations(self, msg: Observations) -> None:
        t = _t(msg.header.stamp)
        obs = [Observed(KINDS.get(o.type, "?"), o.name, (o.position.x, o.position.y), o.distance, o.bearing,
                        o.distance_sigma, o.bearing_sigma,
                        (o.end.x, o.end.y) if o.type == Observation.TYPE_LINE else None)
               for o in msg.observations]
        with self._lock:
            dx, dy, dth = self._odom_acc
            self._odom_acc = [0.0, 0.0, 0.0]
            self.model.odometry(dx, dy, dth)
            self.model.observe(obs, t)
            self.model.predict_ball(t)
        self._publish(msg.header.stamp, t)

    def _publish(self, stamp, t: float) -> None:
        m = self.model
        x, y, th = (float(v) for v in m.pose)
        pose = PoseWithCovarianceStamped()
        pose.header.stamp, pose.header.frame_id = stamp, "field"
        pose.pose.pose = Pose(position=Point(x=x, y=y, z=0.0), orientation=_quat(th))
        cov = [0.0] * 36
        for i, a in enumerate((0, 1, 5)):
            for j, b in enumerate((0, 1, 5)):
                cov[a * 6 + b] = float(m.cov[i, j])
        pose.pose.covariance = cov
        self.pub_pose.publish(pose)
        if self.publish_particles:
            arr = PoseArray()
            arr.header = pose.header
            step = max(1, len(m.pf.particles) // self.publish_particles)
            arr.poses = [Pose(position=Point(x=float(p[0]), y=float(p[1]), z=0.0), orientation=_quat(float(p[2])))
                         for p in m.pf.particles[::step]]
            self.pub_particles.publish(arr)
        wm = WorldModel(self_pose=Pose2D(x=x, y=y, theta=th), localized=m.localized)
        wm.header = pose.header
        wm.self_covariance = [float(v) for v in m.cov.reshape(-1)]
        if m.ball.x is not None:
            bx = m.ball.x
            wm.ball_position = Point(x=float(bx[0]), y=float(bx[1]), z=0.042)
            wm.ball_velocity.x, wm.ball_velocity.y = float(bx[2]), float(bx[3])
            wm.ball_covariance = [float(v) for v in m.ball.P.reshape(-1)]
            wm.ball_valid = m.ball_valid(t)
            if m.ball_seen is not None:
                wm.ball_last_seen.sec = int(m.ball_seen)
                wm.ball_last_seen.nanosec = int((m.ball_seen % 1) * 1e9)
        for unum, tr in m.teammates.items():
            if unum != self.unum:
                wm.teammates.append(self._tracked(unum, tr, t))
        for name, tr in m.opponents.items():
            try:
                unum = int(name.rsplit("/", 1)[1])
            except (IndexError, ValueError):
                unum = 0
            wm.opponents.append(self._tracked(unum, tr, t))
        self.pub_world.publish(wm)
        mk = Marker(ns="self", id=0, type=Marker.ARROW, action=Marker.ADD)
        mk.header = pose.header
        mk.pose = pose.pose.pose
        mk.scale.x, mk.scale.y, mk.scale.z = 0.5, 0.08, 0.08
        mk.color.g, mk.color.a = 1.0, 1.0
        arr = MarkerArray(markers=[mk])
        if m.ball.x is not None:
            b = Marker(ns="ball", id=0, type=Marker.SPHERE, action=Marker.ADD)
            b.header = pose.header
            b.pose.position = wm.ball_position
            b.pose.orientation.w = 1.0
            b.scale.x = b.scale.y = b.scale.z = 0.15
            b.color.r, b.color.g, b.color.a = 1.0, 0.5, 1.0 if wm.ball_valid else 0.3
            arr.markers.append(b)
        self.pub_markers.publish(arr)

    def _tracked(self, unum: int, tr, t: float) -> TrackedObject:
        o = TrackedObject(unum=unum, pose=Pose2D(x=float(tr.position[0]), y=float(tr.position[1]), theta=0.0),
                          valid=self.model.is_valid(tr, t))
        o.last_seen.sec, o.last_seen.nanosec = int(tr.last_seen), int((tr.last_seen % 1) * 1e9)
        o.covariance = [0.09, 0, 0, 0, 0.09, 0, 0, 0, 10.0]
        return o


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
        node = LocalizationNode()
        executor = EventsExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except ValueError as e:
        print(f"localization: {e}", file=sys.stderr)
        return 2
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
