"""The motion node's wiring around the arbiter (a real rclpy node; the run's own ROS_DOMAIN_ID, conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")


@pytest.fixture
def motion_node():
    from villa_motion.node import MotionNode

    rclpy.init()
    node = MotionNode()
    try:
        yield node
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


def test_the_arbiter_logs_a_refusal_then_a_kick_without_raising(motion_node):
    """rclpy ties one severity to each line that logs: the node's one log line for the arbiter raised ValueError at
    the first kick after a refused one (a warning, then an info), and the player process ended mid-match (real-time
    SimSpark matches)."""
    from villa_motion import arbiter as A

    arbiter = motion_node.arbiter
    verdict = arbiter.request(A.SkillRequest("kick_forward_L", {}))   # no ball: refused, logged as a warning
    assert verdict.outcome == "refused"
    assert arbiter.stats.refused == 1
    arbiter.log("info", "motion: kick forward_L at ball (0.180, 0.000) m")     # what _begin_kick logs next
    arbiter.log("error", "motion: cannot start stand: test")
    arbiter.log("warning", "motion: a second refusal")


def _spin_until(executor, done, timeout: float = 20.0) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not done():
        executor.spin_once(timeout_sec=0.05)
    return done()


def test_the_frames_go_on_tf_tf_static_and_robot_description(ros_domain):
    """publish_tf (default on): the fixed links latched on /tf_static and the URDF on robot_description (a subscriber
    that comes later gets both), the moving frames on /tf at 12.5 Hz of the joint readings' stamps, and only while
    /tf has a subscriber."""
    import xml.etree.ElementTree as ET

    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from sensor_msgs.msg import Imu, JointState
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage

    from villa_motion.node import MotionNode

    rclpy.init()
    ex = SingleThreadedExecutor()
    nodes = []
    try:
        node = MotionNode(namespace="/villa/p2", parameter_overrides=[Parameter("use_sim_time", value=False)])
        probe = rclpy.create_node("probe", namespace="/villa/p2")
        nodes += [node, probe]
        for n in nodes:
            ex.add_node(n)
        pub_j = probe.create_publisher(JointState, "joint_states", 5)
        pub_i = probe.create_publisher(Imu, "imu", 5)
        built = []
        publish = node.tf.publish
        node.tf.publish = lambda *a: (built.append(a[0]), publish(*a))

        def cycle(k: int) -> None:
            imu = Imu()
            imu.header.stamp.sec, imu.header.stamp.nanosec = divmod(k * 20_000_000, 1_000_000_000)
            imu.linear_acceleration.z = 9.81
            pub_i.publish(imu)
            crouch = {f"{s}{j}": a for s in "LR" for j, a in (("HipPitch", -0.5), ("KneePitch", 1.0),
                                                               ("AnklePitch", -0.5))}
            js = JointState(name=[*crouch, "LHand"], position=[*crouch.values(), 0.3])   # and a real Nao's hand
            js.header.stamp = imu.header.stamp
            pub_j.publish(js)
            t = k * 0.02
            assert _spin_until(ex, lambda: node.arbiter.last_t is not None and abs(node.arbiter.last_t - t) < 1e-9)

        _spin_until(ex, lambda: pub_j.get_subscription_count() > 0 and pub_i.get_subscription_count() > 0)
        for k in range(20):                     # nobody subscribes to /tf: nothing is built
            cycle(k)
        assert built == []

        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        got = {"tf": [], "static": [], "urdf": []}
        probe.create_subscription(TFMessage, "/tf", lambda m: got["tf"].append(m), 50)
        probe.create_subscription(TFMessage, "/tf_static", lambda m: got["static"].append(m), latched)
        probe.create_subscription(String, "robot_description", lambda m: got["urdf"].append(m), latched)
        assert _spin_until(ex, lambda: got["static"] and got["urdf"] and node.tf.wanted())
        for k in range(20, 60):
            cycle(k)
        assert _spin_until(ex, lambda: len(got["tf"]) >= 10)

        static = {(t.header.frame_id, t.child_frame_id) for t in got["static"][0].transforms}
        assert ("villa/p2/lfoot", "villa/p2/l_sole") in static and ("villa/p2/head", "villa/p2/camera") in static
        urdf = ET.fromstring(got["urdf"][0].data)
        links = {lk.get("name") for lk in urdf.iter("link")}
        assert "villa/p2/base_link" in links and "villa/p2/r_sole" in links
        assert node.get_parameter("robot_description").value == got["urdf"][0].data
        msg = got["tf"][-1]
        edges = {(t.header.frame_id, t.child_frame_id): t for t in msg.transforms}
        base = edges[("villa/p2/odom", "villa/p2/base_link")]
        assert 0.3 < base.transform.translation.z < 0.37     # crouched, the soles flat: below the straight 0.385
        assert ("villa/p2/base_link", "villa/p2/base_footprint") in edges
        assert ("villa/p2/lankle", "villa/p2/lfoot") in edges
        assert links <= {c for _, c in edges} | {c for _, c in static}     # every URDF link is a TF frame
        stamps = sorted({t.header.stamp.sec + t.header.stamp.nanosec * 1e-9 for m in got["tf"] for t in m.transforms})
        assert len(built) == len(got["tf"]) and np.allclose(np.diff(stamps), 0.08)   # every 4th 20-ms cycle
    finally:
        for n in nodes:
            n.destroy_node()
        rclpy.try_shutdown()
