"""villa_nao.ros: `wanted` tells whether anything subscribes to a publisher's topic (the nodes build their
visualization and diagnostic messages only then)."""

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


_SPIN = """
import sys
from rclpy.node import Node
from villa_nao.ros import spin

def make(where):
    def node():
        if where == "constructor":
            raise ValueError("bad parameter")
        n = Node("spin_test")
        n.create_timer(0.01, lambda: int("not a number"))      # a callback's ValueError
        return n
    return node

sys.exit(spin(make(sys.argv[1]), "spin_test"))
"""


@pytest.mark.parametrize("where", ["constructor", "callback"])
def test_spin_exits_2_with_one_line_only_for_a_constructor_error(where, ros_domain):
    """A node's bad parameters end its process with exit code 2 and one line; a callback's ValueError ends it with its
    traceback instead (caught together, it looked like bad parameters, saying nothing of where it came from)."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _SPIN, where], capture_output=True, text=True, timeout=60)
    if where == "constructor":
        assert r.returncode == 2 and r.stderr.strip() == "spin_test: bad parameter"
    else:
        assert r.returncode not in (0, 2) and "Traceback" in r.stderr and "invalid literal for int()" in r.stderr
