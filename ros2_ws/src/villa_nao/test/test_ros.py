"""villa_nao.ros: `wanted` tells whether anything subscribes to a publisher's topic (the nodes build their
visualization and diagnostic messages only then, issue 21)."""

import time

import pytest

rclpy = pytest.importorskip("rclpy")


def test_wanted_follows_the_subscribers_of_the_topic(ros_domain):
    from rclpy.context import Context
    from std_msgs.msg import Float64

    from villa_nao.ros import QOS, wanted

    ctx = Context()
    rclpy.init(context=ctx)
    try:
        node = rclpy.create_node("wanted_test", context=ctx)
        pub = node.create_publisher(Float64, "wanted_test_topic", QOS)
        assert not wanted(pub)
        sub = node.create_subscription(Float64, "wanted_test_topic", lambda m: None, QOS)
        deadline = time.monotonic() + 10                      # discovery is asynchronous, even in one node
        while not wanted(pub) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert wanted(pub)
        node.destroy_subscription(sub)
        deadline = time.monotonic() + 10
        while wanted(pub) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not wanted(pub)
        node.destroy_node()
    finally:
        rclpy.try_shutdown(context=ctx)
