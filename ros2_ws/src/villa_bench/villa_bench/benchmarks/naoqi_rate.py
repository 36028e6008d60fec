"""The NAOqi bridge's sensor rate and command rate through the real libqi protocol (no robot, no simulator).

A standalone qi.Session on loopback hosts the NAOqi test doubles (villa_bridge.naoqi_doubles); the real
`naoqi_bridge` node connects to it, a probe node publishes 22-joint targets at the simulator's 50 Hz for --seconds
wall s and counts the joint_states / imu / foot_contacts it receives. Prints the rates achieved and the commands
that reached ALMotion/DCM. No physical Nao is involved: a real robot's ALMemory answers more slowly than the double.
Needs the `qi` package (libqi's Python binding).

    villa bench naoqi_rate [--seconds 10] [--mode setangles|dcm] [--rate 50]
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import threading
import time

WORLDS = ()
RUN_TIME = "about 15 s (10 s measured)"
SMOKE = ["--seconds", "2"]


def add_arguments(ap) -> None:
    ap.add_argument("--seconds", type=float, default=10.0, help="wall s measured (default 10)")
    ap.add_argument("--mode", choices=("setangles", "dcm"), default="setangles", help="the bridge's command path")
    ap.add_argument("--rate", type=float, default=50.0, help="rate_hz of the bridge (default 50, the simulator's)")


def run(a) -> int:
    if a.seconds <= 0 or a.rate <= 0:
        print("naoqi_rate: --seconds and --rate must be positive", file=sys.stderr)
        return 2
    if importlib.util.find_spec("qi") is None:
        print("naoqi_rate: needs the qi package (libqi's Python binding), which is not installed", file=sys.stderr)
        return 2
    print(f"no simulator: NAOqi doubles over libqi on loopback, robot type 0, mode {a.mode}, rate_hz {a.rate:.0f}, "
          f"{a.seconds:.0f} s", flush=True)

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import Imu, JointState

    from villa_bridge.naoqi_doubles import serve
    from villa_bridge.naoqi_node import NaoqiBridgeNode
    from villa_msgs.msg import FootContacts, JointCommand
    from villa_nao.joints import joints_for_type

    server, fakes = serve()
    host, port = server.endpoints()[0].removeprefix("tcp://").split(":")
    rclpy.init()
    try:
        node = NaoqiBridgeNode(namespace="/bench/p1", parameter_overrides=[
            Parameter("nao_ip", value=host), Parameter("port", value=int(port)), Parameter("mode", value=a.mode),
            Parameter("rate_hz", value=a.rate)])
        probe = rclpy.create_node("probe", namespace="/bench/p1")
        counts = {"joint_states": 0, "imu": 0, "foot_contacts": 0}
        for topic, typ in (("joint_states", JointState), ("imu", Imu), ("foot_contacts", FootContacts)):
            probe.create_subscription(typ, topic, lambda m, t=topic: counts.__setitem__(t, counts[t] + 1), 10)
        pub = probe.create_publisher(JointCommand, "joint_targets", 10)
        names = [j.name for j in joints_for_type(0)]
        ex = SingleThreadedExecutor()  # EventsExecutor deadlocked with this thread publishing meanwhile
        ex.add_node(node)
        ex.add_node(probe)
        spinner = threading.Thread(target=ex.spin, daemon=True)
        spinner.start()
        time.sleep(1.0)                                   # discovery, wake-up
        c0, r0 = dict(counts), node.reads
        sent0 = len(fakes["ALMotion"].calls) + len(fakes["DCM"].sets)
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < a.seconds:
            pub.publish(JointCommand(name=names, position=[0.0] * len(names)))
            n += 1
            time.sleep(max(0.0, t0 + n / 50.0 - time.monotonic()))
        dt = time.monotonic() - t0
        got = {k: (counts[k] - c0[k]) / dt for k in counts}
        sent = (len(fakes["ALMotion"].calls) + len(fakes["DCM"].sets) - sent0) / dt
        print(f"NAOqi bridge over libqi on loopback, mode {a.mode}, rate_hz {a.rate:.0f}, {dt:.1f} s")
        print(f"  ALMemory reads          {(node.reads - r0) / dt:7.1f} /s")
        for k, v in got.items():
            print(f"  {k:<22}  {v:7.1f} msg/s received")
        print(f"  targets published       {n / dt:7.1f} /s; commands reaching the robot {sent:7.1f} /s")
        ex.shutdown()
        spinner.join(timeout=5.0)      # a spin still under way at the interpreter's exit aborts it (std::terminate)
        node.destroy_node()
        probe.destroy_node()
    finally:
        rclpy.try_shutdown()
        server.close()
        # libqi's objects destroyed by the interpreter's exit, while libqi's threads still run, abort it at times
        # ("terminate called without an active exception"): release them here, while everything is alive
        del server, fakes
        gc.collect()
        time.sleep(0.5)                # the closed sessions' network threads wind down (an exit meanwhile aborted)
    return 0
