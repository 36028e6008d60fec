"""Simulated seconds per wall second of `villa sim` (sync, no real-time pacing) with N standing Naos.

    villa bench sim_speed [--counts 1 4 11 22] [--seconds 10] [--noise simspark|off]

villa sim runs as its own process (`villa sim`). Each Nao is a trivial agent answering every perception with a PD
hold of the zero pose (the cheapest possible agent), so the figure is the simulator's own cost plus protocol overhead
on this machine. The trainer that reads the simulated time asks for the ground truth alone
(villa_sim.server.VillaMonitor); a viewer such as RoboViz, which takes the whole scene graph every other cycle, costs
more. Prints per count the simulated s per wall s and the CPU the agents' process (this one) took, in cores.
"""

from __future__ import annotations

import os
import time

from villa_bench import common

WORLDS = ("villa",)
RUN_TIME = "about 1 min (1, 4, 11 and 22 Naos for 10 simulated s each, 22 Naos at about 1 simulated s per wall s)"
SMOKE = ["--counts", "1", "--seconds", "1"]

def hold_command() -> str:
    """The PD hold of the zero pose for every joint, one agent message."""
    import yaml
    from ament_index_python.packages import get_package_share_directory

    from villa_nao import joints

    with open(os.path.join(get_package_share_directory("villa_nao"), "config", "pd_gains.yaml")) as f:
        gains = yaml.safe_load(f)
    parts = []
    for j in joints.JOINTS:
        g = gains.get(j.name) or gains[j.chain]
        parts.append(f"({j.simspark_effector} 0 0 {g['kp']} {g['kd']} 0)")
    return "".join(parts) + "(syn)"


def measure(n: int, seconds: float, noise: bool) -> tuple[float, float]:
    """(simulated s per wall s, this process's CPU in cores) with `n` holding Naos for `seconds` simulated s."""
    from villa_sim.testing import HoldingAgent, SimProcess
    from villa_sim.trainer import Trainer

    hold = hold_command()
    with SimProcess(noise=noise) as sim, Trainer(port=sim.monitor_port) as trainer:
        agents = []
        for i in range(n):
            team, unum = ("villaA", i + 1) if i < 11 else ("villaB", i - 10)
            x, y = -1.0 - 1.2 * (unum % 6), -8.0 + 2.5 * (unum // 2)
            agents.append(HoldingAgent(sim.agent_port, "nao", team, unum, hold, first=f"(beam {x} {y} 0)"))
            agents[-1].wait_confirmed()
        trainer.wait_for(lambda g: len(g.players) == n, timeout=60)
        g0, w0 = trainer.truth().sim_time, time.monotonic()
        c0 = os.times()
        g1 = trainer.wait_sim_time(g0 + seconds, timeout=seconds * 50 + 60).sim_time
        w1 = time.monotonic()
        c1 = os.times()
        for a in agents:
            a.stop()
        client_cpu = (c1.user - c0.user + c1.system - c0.system) / (w1 - w0)
        return (g1 - g0) / (w1 - w0), client_cpu


def add_arguments(ap) -> None:
    ap.add_argument("--counts", type=common.positive_int, nargs="+", default=[1, 4, 11, 22], metavar="N",
                    help="numbers of Naos, one measurement each (default 1 4 11 22; at most 22)")
    ap.add_argument("--seconds", type=common.positive_float, default=10.0,
                    help="simulated seconds per measurement (default 10)")
    ap.add_argument("--noise", choices=("simspark", "off"), default="simspark",
                    help="villa sim's perception noise (default simspark's)")


def run(args) -> int:
    if max(args.counts) > 22:
        return common.fail("sim_speed", f"--counts: at most 22 Naos (two teams of 11), not {max(args.counts)}")
    print(f"villa sim speed (sync, no real-time, noise {args.noise}, {os.cpu_count()} cores), counts "
          f"{' '.join(map(str, args.counts))}, {args.seconds:g} simulated s each", flush=True)
    print(f"{'Naos':>5} {'sim s / wall s':>15} {'client CPU (cores)':>19}")
    for n in args.counts:
        rtf, cpu = measure(n, args.seconds, args.noise == "simspark")
        print(f"{n:>5} {rtf:>15.2f} {cpu:>19.2f}", flush=True)
    return 0
