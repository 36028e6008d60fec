"""The motion node's wiring around the arbiter (a real rclpy node; the run's own ROS_DOMAIN_ID, conftest.py)."""

from __future__ import annotations

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
