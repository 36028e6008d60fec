"""Bridge cycle latency (perception received -> effectors sent) with 1 and 11 players on `villa sim`.

Each player is a villa_bridge BridgeNode plus an echo "motion" node that answers every joint_states with a
joint_targets (hold the zero pose), all in this one process on one EventsExecutor, or with --processes one
process per player (the `player` composition), against `villa sim` as its own process (sync, headless) on free
ports and a leased ROS domain. Players connect one at a time, each after the previous bridge's confirmation, and are
measured for --seconds wall s. Latency is what each bridge publishes on bridge_latency; printed per player count:
cycles, late cycles (targets missed the deadline), p50/p90/p99/max in ms, simulated seconds per wall s.

    villa bench bridge_latency [--players 1 11] [--seconds 10] [--processes]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from villa_bench import common

WORLDS = ("villa",)
RUN_TIME = "about 1 min (1 and 11 players, 10 s each, plus connecting them one at a time; estimated)"
SMOKE = ["--players", "1", "--seconds", "2"]


def measure(n_players: int, seconds: float) -> dict:
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64

    from villa_bridge.node import QOS, BridgeNode
    from villa_bringup.domain import lease_domain
    from villa_msgs.msg import JointCommand
    from villa_sim.testing import SimProcess

    with lease_domain() as lease, SimProcess() as sim:
        ctx = rclpy.Context()
        rclpy.init(context=ctx, domain_id=lease.domain_id)
        executor = EventsExecutor(context=ctx)
        latencies: list[float] = []
        recording = [False]
        nodes, bridges = [], []

        def echo(pub):
            def cb(msg: JointState) -> None:
                pub.publish(JointCommand(header=msg.header, name=list(msg.name), position=[0.0] * len(msg.name)))
            return cb

        def keep(msg: Float64) -> None:
            if recording[0]:
                latencies.append(msg.data)

        try:
            for unum in range(1, n_players + 1):
                ns = f"/bench/p{unum}"
                bridge = BridgeNode(context=ctx, namespace=ns, parameter_overrides=[
                    Parameter("port", value=sim.agent_port), Parameter("team", value="bench"),
                    Parameter("unum", value=unum), Parameter("stats_period", value=0.0)])
                motion = rclpy.create_node("motion", namespace=ns, context=ctx)
                pub = motion.create_publisher(JointCommand, "joint_targets", QOS)
                motion.create_subscription(JointState, "joint_states", echo(pub), QOS)
                motion.create_subscription(Float64, "bridge_latency", keep, QOS)
                for node in (bridge, motion):
                    executor.add_node(node)
                    nodes.append(node)
                bridges.append(bridge)
                deadline = time.monotonic() + 30
                while not bridge.session.confirmed and time.monotonic() < deadline:
                    executor.spin_once(timeout_sec=0.05)
                if not bridge.session.confirmed:
                    raise RuntimeError(f"player {unum} not confirmed: {sim.log()}")
            t_end = time.monotonic() + 2.0                 # settle
            while time.monotonic() < t_end:
                executor.spin_once(timeout_sec=0.05)
            c0 = sum(b.session.stats.cycles for b in bridges)
            late0 = sum(b.session.stats.late_cycles for b in bridges)
            recording[0] = True
            t0 = time.monotonic()
            t_end = t0 + seconds
            while time.monotonic() < t_end:
                executor.spin_once(timeout_sec=0.05)
            wall = time.monotonic() - t0
            recording[0] = False
            cycles = sum(b.session.stats.cycles for b in bridges) - c0
            late = sum(b.session.stats.late_cycles for b in bridges) - late0
        finally:
            executor.shutdown()
            for node in nodes:
                node.destroy_node()
            rclpy.try_shutdown(context=ctx)
    lat = np.array(latencies) * 1e3
    return {"players": n_players, "cycles": cycles, "late": late, "sim_per_wall": cycles / n_players * 0.02 / wall,
            "p50": np.percentile(lat, 50), "p90": np.percentile(lat, 90), "p99": np.percentile(lat, 99),
            "max": lat.max(), "samples": len(lat)}


def child(port: int, unum: int, seconds: float) -> int:
    """One player in its own process: READY once confirmed, records after GO on stdin, prints JSON at the end."""
    import json

    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64

    from villa_bridge.node import QOS, BridgeNode
    from villa_msgs.msg import JointCommand

    rclpy.init()
    ns = f"/bench/p{unum}"
    bridge = BridgeNode(namespace=ns, parameter_overrides=[
        Parameter("port", value=port), Parameter("team", value="bench"), Parameter("unum", value=unum),
        Parameter("stats_period", value=0.0)])
    motion = rclpy.create_node("motion", namespace=ns)
    pub = motion.create_publisher(JointCommand, "joint_targets", QOS)
    motion.create_subscription(JointState, "joint_states", lambda m: pub.publish(
        JointCommand(header=m.header, name=list(m.name), position=[0.0] * len(m.name))), QOS)
    lat: list[float] = []
    recording = [False]
    motion.create_subscription(Float64, "bridge_latency", lambda m: recording[0] and lat.append(m.data), QOS)
    executor = EventsExecutor()
    executor.add_node(bridge)
    executor.add_node(motion)
    deadline = time.monotonic() + 30
    while not bridge.session.confirmed and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    print("READY" if bridge.session.confirmed else "FAILED", flush=True)
    import select

    while not select.select([sys.stdin], [], [], 0)[0]:
        executor.spin_once(timeout_sec=0.05)
    sys.stdin.readline()
    recording[0] = True
    c0, l0 = bridge.session.stats.cycles, bridge.session.stats.late_cycles
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        executor.spin_once(timeout_sec=0.05)
    recording[0] = False
    print(json.dumps({"lat": lat, "cycles": bridge.session.stats.cycles - c0,
                      "late": bridge.session.stats.late_cycles - l0}), flush=True)
    executor.shutdown()
    bridge.destroy_node()
    motion.destroy_node()
    rclpy.try_shutdown()
    return 0


def run_processes(n_players: int, seconds: float) -> dict:
    import json
    import subprocess

    from villa_bringup.domain import lease_domain
    from villa_sim.testing import SimProcess

    with lease_domain() as lease, SimProcess() as sim:
        env = {**os.environ, "ROS_DOMAIN_ID": str(lease.domain_id)}
        procs = []
        try:
            for unum in range(1, n_players + 1):   # one at a time, each after the previous confirmation
                p = subprocess.Popen([sys.executable, "-m", "villa_bench", "bridge_latency", "--child",
                                      str(sim.agent_port), str(unum), str(seconds)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
                procs.append(p)
                if p.stdout.readline().strip() != "READY":
                    raise RuntimeError(f"player {unum} not confirmed: {sim.log()}")
            time.sleep(2.0)                           # settle
            for p in procs:
                p.stdin.write("GO\n")
                p.stdin.flush()
            results = [json.loads(p.stdout.readline()) for p in procs]
            for p in procs:
                p.wait(timeout=30)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    lat = np.array([x for r in results for x in r["lat"]]) * 1e3
    cycles = sum(r["cycles"] for r in results)
    return {"players": n_players, "cycles": cycles, "late": sum(r["late"] for r in results),
            "sim_per_wall": cycles / n_players * 0.02 / seconds, "p50": np.percentile(lat, 50),
            "p90": np.percentile(lat, 90), "p99": np.percentile(lat, 99), "max": lat.max(), "samples": len(lat)}


def add_arguments(ap) -> None:
    common.add_world(ap, worlds=("villa",), socket=False)
    ap.add_argument("--players", type=int, nargs="+", default=[1, 11], help="player counts, one run each "
                                                                             "(default 1 11)")
    ap.add_argument("--seconds", type=float, default=10.0, help="wall s measured per run (default 10)")
    ap.add_argument("--processes", action="store_true", help="one process per player (default: all in one)")
    ap.add_argument("--child", nargs=3, metavar=("PORT", "UNUM", "SECONDS"), help=argparse.SUPPRESS)


def run(args) -> int:
    if args.child:
        return child(int(args.child[0]), int(args.child[1]), float(args.child[2]))
    if args.seconds <= 0 or not all(1 <= n <= 11 for n in args.players):
        print("bridge_latency: --seconds must be positive and --players 1..11", file=sys.stderr)
        return 2
    mode = "one process per player" if args.processes else "one process"
    print(f"villa sim (own process, sync, noise on): bridge cycle latency, robot type 0, players "
          f"{' '.join(map(str, args.players))}, echo motion, {mode}, {os.cpu_count()} CPUs, {args.seconds:.0f} s wall "
          "per run", flush=True)
    print(f"{'players':>8}{'cycles':>9}{'late':>7}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}"
          f"{'sim s/wall s':>14}")
    for n in args.players:
        try:
            r = run_processes(n, args.seconds) if args.processes else measure(n, args.seconds)
        except RuntimeError as e:
            print(f"bridge_latency: {n} players: {e}", file=sys.stderr)
            return 1
        print(f"{r['players']:>8}{r['cycles']:>9}{r['late']:>7}{r['p50']:>9.2f}{r['p90']:>9.2f}{r['p99']:>9.2f}"
              f"{r['max']:>9.2f}{r['sim_per_wall']:>14.2f}", flush=True)
    return 0
