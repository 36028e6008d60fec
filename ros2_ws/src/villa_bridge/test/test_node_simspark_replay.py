"""The bridge node with the SimSpark backend against a fake server replaying recorded rcssserver3d traffic.

There is no SimSpark server on the test machines; the recorded right-team agent (single_right_mirrored, villaB/1)
is replayed perception by perception, each only after the bridge answered the previous one (sync mode).
"""

from __future__ import annotations

import math
import socket
import threading
import time

import pytest

from villa_bridge.framing import encode, recv_frame
from villa_bridge.perception import parse_perception
from villa_bridge.recorded import agent_messages, log_dir
from villa_bridge.sexp import parse
from villa_sim.testing import free_ports

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not log_dir().is_dir(), reason="shared/simspark/logs not present")]


def test_replayed_right_team_agent(ros_domain):
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    from villa_bridge.node import QOS, BridgeNode
    from villa_msgs.msg import FootContacts, GameState, VisionFrame

    perceptions = agent_messages("single_right_mirrored.jsonl.gz", "in", "villaB/1")[:60]
    port = free_ports(1)[0]
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(20)
    replies: list[str] = []
    got: dict[str, list] = {"gs": [], "vision": [], "js": [], "feet": []}
    errors: list[Exception] = []

    def serve():
        try:
            conn, _ = listener.accept()
            conn.settimeout(20)
            replies.append(recv_frame(conn).decode())           # scene
            for k, msg in enumerate(perceptions):
                conn.sendall(encode(msg))
                replies.append(recv_frame(conn).decode())
                # pace the replay to the probe (keep-last 5 would drop messages a busy test process reads late)
                stamp = round(parse_perception(msg).time * 1000)
                until = time.monotonic() + 0.5
                while k > 0 and time.monotonic() < until and not (got["js"] and round(
                        got["js"][-1].header.stamp.sec * 1000 + got["js"][-1].header.stamp.nanosec / 1e6) == stamp):
                    time.sleep(0.002)
            conn.close()
        except Exception as e:  # reported by the test below
            errors.append(e)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    bridge = BridgeNode(context=ctx, namespace="/villaB/p1", parameter_overrides=[
        Parameter("backend", value="simspark"), Parameter("port", value=port), Parameter("team", value="villaB"),
        Parameter("unum", value=1), Parameter("reconnect", value=False), Parameter("stats_period", value=0.0)])
    probe = rclpy.create_node("probe", namespace="/villaB/p1", context=ctx)
    probe.create_subscription(GameState, "game_state", got["gs"].append, QOS)
    probe.create_subscription(VisionFrame, "vision", got["vision"].append, QOS)
    probe.create_subscription(JointState, "joint_states", got["js"].append, QOS)
    probe.create_subscription(FootContacts, "foot_contacts", got["feet"].append, QOS)
    executor = EventsExecutor(context=ctx)
    executor.add_node(bridge)
    executor.add_node(probe)
    try:
        deadline = time.monotonic() + 40
        last = (37, 180_000_000)     # now=37.18, the 60th perception
        while time.monotonic() < deadline and (server.is_alive() or not got["js"] or (
                got["js"][-1].header.stamp.sec, got["js"][-1].header.stamp.nanosec) != last):
            executor.spin_once(timeout_sec=0.05)
        assert not errors, errors
        assert len(replies) == len(perceptions) + 1
        # every perception after the pre-init one is published (the first may precede DDS discovery)
        assert len(perceptions) - 5 <= len(got["js"]) <= len(perceptions) - 1
        assert replies[0] == "(scene rsg/agent/nao/nao_hetero.rsg 0)"
        assert replies[1] == "(init (unum 1)(teamname villaB))(syn)"
        for r in replies[2:]:
            exprs = parse(r)
            assert exprs[-1] == ["syn"] and len(exprs) == 23      # 22 hinge velocities + (syn)
        confirmed = [g for g in got["gs"] if g.unum == 1]
        assert confirmed and confirmed[-1].side == GameState.SIDE_RIGHT and confirmed[-1].team_name == "villaB"
        assert confirmed[-1].play_mode == GameState.BEFORE_KICK_OFF
        assert got["js"][-1].name[:2] == ["HeadYaw", "HeadPitch"] and len(got["js"][-1].name) == 22
        assert {c.name for c in got["feet"][-1].contacts} == {"left_foot", "right_foot"}
        # the frame at now=37.02: the server's G1L (pol 20.07 -9.00 0.79) is our team-relative G2R
        frame = [f for f in got["vision"] if f.header.stamp.sec == 37 and f.header.stamp.nanosec == 20_000_000][0]
        posts = {o.name: o.position for o in frame.goal_posts}
        assert set(posts) == {"G2R", "G1R"}
        assert posts["G2R"].distance == pytest.approx(20.07)
        assert posts["G2R"].azimuth == pytest.approx(math.radians(-9.0))
        assert bridge.session.stats.malformed == 0
    finally:
        executor.shutdown()
        bridge.destroy_node()
        probe.destroy_node()
        rclpy.try_shutdown(context=ctx)
        listener.close()
