"""A tiny villa_msgs talker/listener used by `villa doctor` and the DDS round-trip test.

    python -m villa_bringup.dds_probe talk   --topic T --token X [--timeout S]
    python -m villa_bringup.dds_probe listen --topic T [--timeout S]

The talker publishes a villa_msgs/GameState carrying the token (as team_name) every 50 ms. The
listener prints the first message it receives as one JSON line and exits 0, or exits 3 on timeout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def _qos():
    from rclpy.qos import QoSDurabilityPolicy, QoSProfile, QoSReliabilityPolicy

    return QoSProfile(
        depth=10,
        reliability=QoSReliabilityPolicy.RELIABLE,
        durability=QoSDurabilityPolicy.VOLATILE,
    )


def probe_message(token: str):
    """The message the talker sends: every kind of field, so the round trip exercises them all."""
    from villa_msgs.msg import GameState

    msg = GameState()
    msg.header.frame_id = "probe"
    msg.play_mode = GameState.PLAY_ON
    msg.play_mode_name = "PlayOn"
    msg.game_time = 12.34
    msg.unum = 7
    msg.side = GameState.SIDE_RIGHT
    msg.team_name = token
    msg.score_own = 2
    msg.score_opp = 1
    return msg


def talk(topic: str, token: str, timeout: float) -> int:
    import rclpy

    rclpy.init()
    try:
        node = rclpy.create_node("villa_dds_probe_talker")
        from villa_msgs.msg import GameState

        pub = node.create_publisher(GameState, topic, _qos())
        msg = probe_message(token)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg.header.stamp = node.get_clock().now().to_msg()
            pub.publish(msg)
            rclpy.spin_once(node, timeout_sec=0.05)
        return 0
    finally:
        rclpy.try_shutdown()


def listen(topic: str, timeout: float) -> int:
    import rclpy

    from villa_msgs.msg import GameState

    rclpy.init()
    try:
        node = rclpy.create_node("villa_dds_probe_listener")
        received: list[GameState] = []
        node.create_subscription(GameState, topic, received.append, _qos())
        deadline = time.monotonic() + timeout
        while not received and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.05)
        if not received:
            print(json.dumps({"error": f"nothing received on {topic} within {timeout} s"}))
            return 3
        m = received[0]
        print(json.dumps({
            "topic": topic,
            "frame_id": m.header.frame_id,
            "play_mode": m.play_mode,
            "play_mode_name": m.play_mode_name,
            "game_time": m.game_time,
            "unum": m.unum,
            "side": m.side,
            "team_name": m.team_name,
            "score_own": m.score_own,
            "score_opp": m.score_opp,
        }))
        return 0
    finally:
        rclpy.try_shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dds_probe", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="role", required=True)
    t = sub.add_parser("talk")
    t.add_argument("--topic", required=True)
    t.add_argument("--token", required=True)
    t.add_argument("--timeout", type=float, default=20.0)
    lst = sub.add_parser("listen")
    lst.add_argument("--topic", required=True)
    lst.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args(argv)
    if args.role == "talk":
        return talk(args.topic, args.token, args.timeout)
    return listen(args.topic, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
