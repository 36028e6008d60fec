"""The strategy node in a leased ROS domain: game state + world model in, beam / walk / roles out (integration)."""

import threading
import time

import pytest

pytestmark = pytest.mark.integration


def test_strategy_node_beams_before_kickoff_and_walks_in_play(ros_domain):
    import rclpy
    from geometry_msgs.msg import Pose2D
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from villa_msgs.msg import GameState, MotionStatus, RoleAssignment, WalkCommand, WorldModel
    from villa_strategy.node import StrategyNode

    rclpy.init()
    try:
        node = StrategyNode(namespace="/villa/p2", parameter_overrides=[
            Parameter("unum", value=2), Parameter("team_size", value=2), Parameter("use_sim_time", value=False)])
        probe = rclpy.create_node("probe", namespace="/villa/p2")
        got = {"beam": [], "walk": [], "roles": []}
        probe.create_subscription(Pose2D, "beam", lambda m: got["beam"].append(m), 5)
        probe.create_subscription(WalkCommand, "cmd_walk", lambda m: got["walk"].append(m), 5)
        probe.create_subscription(RoleAssignment, "role_assignment", lambda m: got["roles"].append(m), 5)
        gs_pub = probe.create_publisher(GameState, "game_state", 5)
        wm_pub = probe.create_publisher(WorldModel, "world_model", 5)
        status_pub = probe.create_publisher(MotionStatus, "motion_status", 5)
        ex = SingleThreadedExecutor()
        ex.add_node(node)
        ex.add_node(probe)
        t = threading.Thread(target=ex.spin, daemon=True)
        t.start()
        time.sleep(1.0)
        status_pub.publish(MotionStatus(active="stand"))            # the first beam waits for the robot to stand
        time.sleep(0.2)
        gs = GameState(unum=2, side=GameState.SIDE_LEFT, play_mode=GameState.BEFORE_KICK_OFF, team_name="villa")
        for k in range(20):                                          # 1 s of server cycles, stamped 50 ms apart
            gs.header.stamp.sec, gs.header.stamp.nanosec = divmod(50_000_000 * k, 1_000_000_000)
            gs_pub.publish(gs)
            time.sleep(0.05)
        wm = WorldModel(localized=True, ball_valid=True)
        wm.self_pose.x, wm.self_pose.y = -3.0, 0.0
        wm.ball_position.x = 0.0
        wm_pub.publish(wm)
        time.sleep(0.2)
        gs.play_mode, gs.game_time = GameState.PLAY_ON, 1.0
        gs.header.stamp.sec = 2
        for _ in range(10):
            gs_pub.publish(gs)
            time.sleep(0.05)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (got["beam"] and got["walk"] and got["roles"]):
            time.sleep(0.05)
        assert got["beam"] and got["beam"][0].x <= 0.0
        walks = [w for w in got["walk"] if w.mode == WalkCommand.MODE_NORMALIZED]
        assert walks and walks[-1].x > 0.5                 # onBall: walk forward to the ball
        slots = {s.role: s.unum for s in got["roles"][-1].slots}
        assert slots == {"onBall": 2, "stopper": 0}        # a team of two keeps no goalie (formation.has_goalie)
        ex.shutdown()
        node.destroy_node()
        probe.destroy_node()
    finally:
        rclpy.try_shutdown()
