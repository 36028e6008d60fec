"""What the frame tree costs a player: CPU of the motion and localization nodes' callbacks with publish_tf off, on
with nobody subscribing to /tf, and on with a /tf subscriber (the frames built and sent), no simulator.

The real nodes (villa_motion's MotionNode, villa_localization's LocalizationNode, robot type --robot-type) in this
process get --cycles 20-ms cycles of IMU and joint readings (a swaying stand posture) and every 2nd cycle an
observation frame (villa sim's vision rate), their callbacks called directly, timed with the process's CPU clock (the
DDS threads' sends included), alternating the three modes over --rounds rounds. Prints per mode the median CPU s per
simulated s of the two nodes together, the extra over publish_tf off and that as a share of --player-cpu (a whole
player's CPU s per simulated s, `villa bench cpu`; docs/status.md).

    villa bench tf_cost [--cycles 1000] [--rounds 5] [--robot-type 0] [--player-cpu 0.235]
"""

from __future__ import annotations

import math
import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 40 s"
SMOKE = ["--cycles", "20", "--rounds", "1"]
MODES = ("off", "idle", "subscribed")


def add_arguments(ap) -> None:
    ap.add_argument("--cycles", type=common.positive_int, default=1000, help="20-ms cycles a round (default 1000)")
    ap.add_argument("--rounds", type=common.positive_int, default=5, help="rounds of the three modes (default 5)")
    ap.add_argument("--robot-type", type=int, choices=common.ROBOT_TYPES, default=0, help="the Nao type (default 0)")
    ap.add_argument("--player-cpu", type=common.positive_float, default=0.235,
                    help="a player's CPU s per simulated s, for the share (default 0.235: villa bench cpu, villa sim)")


def _messages(cycles: int, robot_type: int):
    """Per cycle (imu, joint_states, observations or None) stamped 0.02 s apart."""
    from sensor_msgs.msg import Imu, JointState

    from villa_msgs.msg import Observations
    from villa_nao.kinematics import joint_names

    names = list(joint_names(robot_type))
    out = []
    for k in range(cycles):
        sec, nsec = divmod(k * 20_000_000, 1_000_000_000)
        imu = Imu()
        imu.header.stamp.sec, imu.header.stamp.nanosec = sec, nsec
        imu.angular_velocity.x = 0.2 * math.sin(0.3 * k)
        imu.linear_acceleration.x, imu.linear_acceleration.z = 0.5 * math.sin(0.3 * k), 9.81
        js = JointState(name=names, position=[0.2 * math.sin(0.3 * k + i) for i in range(len(names))])
        js.header.stamp = imu.header.stamp
        obs = None
        if k % 2 == 0:
            obs = Observations()
            obs.header.stamp = imu.header.stamp
        out.append((imu, js, obs))
    return out


def _round(motion, localization, messages) -> float:
    """CPU s of the nodes' callbacks over the messages."""
    from nav_msgs.msg import Odometry

    odom = Odometry()
    t0 = time.process_time()
    for imu, js, obs in messages:
        motion._on_imu(imu)
        motion._on_joints(js)
        odom.header.stamp = js.header.stamp
        localization._on_odom(odom)
        if obs is not None:
            localization._on_observations(obs)
    return time.process_time() - t0


def run(args) -> int:
    import rclpy
    from rclpy.parameter import Parameter
    from tf2_msgs.msg import TFMessage

    from villa_localization.node import LocalizationNode
    from villa_motion.node import MotionNode

    print(f"no simulator: motion and localization nodes (robot type {args.robot_type}), {args.cycles} cycles of "
          f"20 ms a round, {args.rounds} rounds; CPU s per simulated s", flush=True)
    rclpy.init()
    nodes = []
    try:
        def pair(tf: bool, ns: str):
            params = [Parameter("use_sim_time", value=False), Parameter("publish_tf", value=tf)]
            m = MotionNode(namespace=ns, parameter_overrides=[*params, Parameter("robot_type", value=args.robot_type)])
            loc = LocalizationNode(namespace=ns, parameter_overrides=[*params, Parameter("seed", value=1)])
            nodes.extend([m, loc])
            return m, loc

        off, on = pair(False, "/bench/p1"), pair(True, "/bench/p2")
        messages = _messages(args.cycles, args.robot_type)
        listener = None
        times: dict[str, list[float]] = {m: [] for m in MODES}
        sim_s = 0.02 * args.cycles
        for _ in range(args.rounds):
            for mode in MODES:
                if mode == "subscribed" and listener is None:
                    listener = rclpy.create_node("bench_tf_listener")
                    nodes.append(listener)
                    listener.create_subscription(TFMessage, "/tf", lambda m: None, 100)
                    deadline = time.monotonic() + 10
                    while not (on[0].tf.wanted() and on[1].tf.wanted()) and time.monotonic() < deadline:
                        time.sleep(0.05)
                elif mode != "subscribed" and listener is not None:
                    listener.destroy_node()
                    nodes.remove(listener)
                    listener = None
                    deadline = time.monotonic() + 10
                    while (on[0].tf.wanted() or on[1].tf.wanted()) and time.monotonic() < deadline:
                        time.sleep(0.05)
                times[mode].append(_round(*(off if mode == "off" else on), messages) / sim_s)
        base = float(np.median(times["off"]))
        print(f"{'mode':<11} {'CPU s/sim s':>11} {'extra':>9} {'of a player':>11}")
        for mode in MODES:
            v = float(np.median(times[mode]))
            print(f"{mode:<11} {v:11.4f} {v - base:+9.4f} {100 * (v - base) / args.player_cpu:+10.1f} %", flush=True)
    finally:
        for n in nodes:
            n.destroy_node()
        rclpy.try_shutdown()
    return 0
