"""Perception and localization nodes in a leased ROS domain: vision + joints -> observations -> pose (integration)."""

import math
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.integration


def test_vision_to_observations_to_pose(ros_domain):
    import rclpy
    from geometry_msgs.msg import Pose2D, PoseWithCovarianceStamped
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import Imu, JointState

    from villa_localization.node import LocalizationNode
    from villa_msgs.msg import Observations, Polar, SeenObject, VisionFrame, WorldModel
    from villa_nao import field as F
    from villa_nao import kinematics as K
    from villa_perception.node import PerceptionNode

    rclpy.init()
    try:
        no_sim = [Parameter("use_sim_time", value=False)]
        perc = PerceptionNode(namespace="/t/p1", parameter_overrides=no_sim)
        loc = LocalizationNode(namespace="/t/p1", parameter_overrides=no_sim)
        probe = rclpy.create_node("probe", namespace="/t/p1")
        got = {"obs": [], "pose": [], "wm": []}
        probe.create_subscription(Observations, "observations", lambda m: got["obs"].append(m), 5)
        probe.create_subscription(PoseWithCovarianceStamped, "pose", lambda m: got["pose"].append(m), 5)
        probe.create_subscription(WorldModel, "world_model", lambda m: got["wm"].append(m), 5)
        pub_j = probe.create_publisher(JointState, "joint_states", 5)
        pub_i = probe.create_publisher(Imu, "imu", 5)
        pub_v = probe.create_publisher(VisionFrame, "vision", 5)
        pub_b = probe.create_publisher(Pose2D, "beam", 5)
        ex = SingleThreadedExecutor()
        for n in (perc, loc, probe):
            ex.add_node(n)
        threading.Thread(target=ex.spin, daemon=True).start()
        time.sleep(1.0)
        pub_b.publish(Pose2D(x=-5.0, y=0.0, theta=0.0))           # a known pose near the truth
        truth = (-5.3, 0.4, 0.05)
        cam = K.camera_pose(0.0, 0.0)
        for _ in range(40):
            stamp = probe.get_clock().now().to_msg()
            js = JointState(name=["HeadYaw", "HeadPitch"], position=[0.0, 0.0])
            js.header.stamp = stamp
            pub_j.publish(js)
            imu = Imu()
            imu.header.stamp = stamp
            imu.linear_acceleration.z = 9.81
            pub_i.publish(imu)
            vf = VisionFrame()
            vf.header.stamp = stamp
            for name in ("G1R", "G2R", "F1R", "F2R"):
                lx, ly, lz = F.LANDMARKS[name]
                c, s = math.cos(truth[2]), math.sin(truth[2])
                dx, dy = lx - truth[0], ly - truth[1]
                body = [c * dx + s * dy, -s * dx + c * dy, lz - 0.36]     # torso 0.36 m above the ground
                p = cam[:3, :3].T @ (np.array(body) - cam[:3, 3])
                d = float((p ** 2).sum() ** 0.5)
                obj = SeenObject(name=name, position=Polar(distance=d, azimuth=math.atan2(p[1], p[0]),
                                                             elevation=math.asin(p[2] / d)))
                (vf.goal_posts if name.startswith("G") else vf.flags).append(obj)
            pub_v.publish(vf)
            time.sleep(0.05)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(got["pose"]) < 20:
            time.sleep(0.05)
        assert got["obs"] and len(got["obs"][-1].observations) == 4
        p = got["pose"][-1].pose.pose.position
        assert math.hypot(p.x - truth[0], p.y - truth[1]) < 0.25
        assert got["wm"][-1].localized
        ex.shutdown()
        for n in (perc, loc, probe):
            n.destroy_node()
    finally:
        rclpy.try_shutdown()


def test_field_to_odom_on_tf_is_the_estimate_over_the_odometry(ros_domain):
    """REP-105: field -> <prefix>odom composed with the odometry pose is the pose estimate published at the same stamp,
    in the shared field: the right team's estimate turned by pi (integration)."""
    import rclpy
    from geometry_msgs.msg import Pose2D, PoseWithCovarianceStamped
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from tf2_msgs.msg import TFMessage

    from villa_localization.node import LocalizationNode, _quat
    from villa_msgs.msg import GameState, Observations
    from villa_nao import field as F
    from villa_nao import frames as Fr

    rclpy.init()
    nodes = []
    try:
        loc = LocalizationNode(namespace="/allball/p1", parameter_overrides=[Parameter("use_sim_time", value=False),
                                                                              Parameter("seed", value=3)])
        probe = rclpy.create_node("probe", namespace="/allball/p1")
        nodes += [loc, probe]
        got = {"tf": [], "pose": {}}
        probe.create_subscription(TFMessage, "/tf", lambda m: got["tf"].append(m), 50)
        probe.create_subscription(PoseWithCovarianceStamped, "pose",
                                  lambda m: got["pose"].__setitem__(m.header.stamp.sec, m), 50)
        pubs = {"gs": probe.create_publisher(GameState, "game_state", 5),
                "odom": probe.create_publisher(Odometry, "odom", 5), "beam": probe.create_publisher(Pose2D, "beam", 5),
                "obs": probe.create_publisher(Observations, "observations", 5)}
        ex = SingleThreadedExecutor()
        for n in nodes:
            ex.add_node(n)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (all(p.get_subscription_count() for p in pubs.values())
                                                   and loc.tf.wanted()):
            ex.spin_once(timeout_sec=0.05)
        pubs["beam"].publish(Pose2D(x=-3.0, y=1.0, theta=0.4))
        pubs["gs"].publish(GameState(unum=1, side=GameState.SIDE_RIGHT, team_name="allball"))

        def spin_until(done, timeout=10.0):
            end = time.monotonic() + timeout
            while time.monotonic() < end and not done():
                ex.spin_once(timeout_sec=0.05)
            return done()

        assert spin_until(lambda: loc.side == "right")
        spin_until(lambda: False, timeout=0.5)                # the beam too
        odom_poses = []
        for k in range(1, 11):
            odom = (0.1 * k, 0.02 * k, 0.05 * k)          # walking forward, turning left
            odom_poses.append(odom)
            msg = Odometry()
            msg.pose.pose.position.x, msg.pose.pose.position.y = odom[:2]
            msg.pose.pose.orientation = _quat(odom[2])
            msg.header.stamp.sec = k
            pubs["odom"].publish(msg)
            assert spin_until(lambda x=odom[0]: loc.stage.odom_pose is not None and loc.stage.odom_pose[0] == x)
            obs = Observations()
            obs.header.stamp.sec = k
            pubs["obs"].publish(obs)
            assert spin_until(lambda k=k: len(got["tf"]) >= k and len(got["pose"]) >= k)
        assert len(got["tf"]) == 10 and len(got["pose"]) == 10
        assert loc.side == "right"
        for k, msg in enumerate(got["tf"], start=1):
            (t,) = msg.transforms
            assert (t.header.frame_id, t.child_frame_id) == ("field", "allball/p1/odom") and t.header.stamp.sec == k
            q = t.transform.rotation
            c = (t.transform.translation.x, t.transform.translation.y, F.yaw_upright((q.w, q.x, q.y, q.z))[0])
            base = Fr.compose(c, odom_poses[k - 1])                      # field -> odom -> base_link
            p = got["pose"][k].pose.pose
            est = (p.position.x, p.position.y, F.yaw_upright((p.orientation.w, p.orientation.x, p.orientation.y,
                                                                  p.orientation.z))[0])
            np.testing.assert_allclose(base, Fr.compose((0.0, 0.0, math.pi), est), atol=1e-6)
        walked = Fr.compose((-3.0, 1.0, 0.4), Fr.compose(Fr.inverse(odom_poses[0]), odom_poses[-1]))
        assert math.hypot(est[0] - walked[0], est[1] - walked[1]) < 0.2     # the beam moved by the odometry
    finally:
        for n in nodes:
            n.destroy_node()
        rclpy.try_shutdown()
