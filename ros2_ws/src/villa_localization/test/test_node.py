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
