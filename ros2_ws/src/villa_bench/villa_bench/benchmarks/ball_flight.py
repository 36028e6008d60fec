"""How far a ball travels from a given launch, rolled or lofted, on villa sim and on the real SimSpark.

    villa bench ball_flight [--world villa --world simspark] [--shots 4:0,4:20,4:35,8:0,8:30]

Each shot is speed:elevation (m/s, degrees): the trainer places the ball at (-10, 0), just above the grass, with that
velocity along +x, and the ball's x is read 8 simulated s later (it has stopped by then). Prints per shot the travel
(m) on each world given (--world once per world; default both, side by side): the two servers' ball models beyond
the rolling ball that villa sim is calibrated on (`test_a_rolling_ball_slows_as_on_simspark`), what a lofted kick would
gain on each (kick reach). No robot is on the field; villa sim runs as its own process (`villa sim`).

SimSpark with no agent, unpaced, applied only the trainer's first commands here: a ball placement or a play mode sent
a second later was ignored (with ODE's auto-disable on or off), so each SimSpark shot gets a fresh server and is
launched at once; villa sim plays every shot on one server.
"""

from __future__ import annotations

import argparse
import math
import time

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = "about 50 s (5 shots of 8 s on villa sim, then 5 fresh SimSpark servers; estimated from one shot each)"
SMOKE = ["--world", "villa", "--shots", "4:0"]

START_X = -10.0
ROLL = 8.0                    # simulated s after the launch


def parse_shots(text: str) -> list[tuple[float, float]]:
    """'4:0,8:30' -> [(4.0, 0.0), (8.0, 30.0)]; argparse error for anything else."""
    shots = []
    for item in filter(None, text.split(",")):
        try:
            speed, elevation = (float(v) for v in item.split(":"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected speed:elevation pairs such as 4:20, got {item!r}") from None
        if not (0.0 < speed <= 30.0 and 0.0 <= elevation < 90.0):
            raise argparse.ArgumentTypeError(f"speed in (0, 30] m/s and elevation in [0, 90) degrees, got {item!r}")
        shots.append((speed, elevation))
    if not shots:
        raise argparse.ArgumentTypeError("no shot given")
    return shots


def shoot(trainer, speed: float, elevation: float) -> float:
    """Launch one ball; its travel along x (m). (SimSpark's monitor, running unpaced, reports too seldom to see the
    ball's flight itself.)"""
    from villa_nao import field as F

    e = math.radians(elevation)
    t0 = trainer.wait_for(lambda g: True).sim_time
    trainer.place_ball(START_X, 0.0, F.BALL_RADIUS + 0.005, velocity=(speed * math.cos(e), 0.0, speed * math.sin(e)))
    trainer.wait_for(lambda g: g.ball[0] > START_X + 0.01, timeout=30)
    return trainer.wait_sim_time(t0 + ROLL, timeout=60).ball[0] - START_X


def run_villa(shots) -> list[float]:
    from villa_sim.testing import SimProcess
    from villa_sim.trainer import Trainer

    with SimProcess() as sim, Trainer(port=sim.monitor_port) as trainer:
        trainer.play_mode("PlayOn")
        return [shoot(trainer, *s) for s in shots]


def run_simspark(shots) -> list[float]:
    from villa_sim.simspark import SimSparkServer, SimSparkTrainer

    out = []
    for s in shots:
        # no agent: the server runs as fast as it can
        with SimSparkServer(sync=False, realtime=False) as server, \
                SimSparkTrainer(port=server.monitor_port) as trainer:
            trainer.wait_updates(2)
            trainer.play_mode("PlayOn")
            out.append(shoot(trainer, *s))
    return out


def add_arguments(ap) -> None:
    ap.add_argument("--world", choices=common.WORLDS, action="append", default=None,
                    help="villa (villa sim) or simspark (the real rcssserver3d); once per world, in that order "
                         "(default both: --world villa --world simspark)")
    ap.add_argument("--shots", type=parse_shots, default=parse_shots("4:0,4:20,4:35,8:0,8:30"),
                    help="speed:elevation pairs (m/s:degrees), comma-separated (default 4:0,4:20,4:35,8:0,8:30)")


def run(args) -> int:
    worlds = list(dict.fromkeys(args.world or common.WORLDS))
    runners = {"villa": run_villa, "simspark": run_simspark}
    print(f"ball flight on {', '.join(worlds)}: {len(args.shots)} shots from ({START_X:g}, 0), travel after "
          f"{ROLL:g} simulated s", flush=True)
    t0 = time.time()
    results = {}
    for w in worlds:
        results[w] = runners[w](args.shots)
        print(f"({w} done, {time.time() - t0:.0f} s)", flush=True)
    print(f"{'speed m/s':>9} {'elevation':>9} " + " ".join(f"{w + ' travel m':>17}" for w in worlds))
    for i, (speed, elevation) in enumerate(args.shots):
        cells = " ".join(f"{results[w][i]:17.2f}" for w in worlds)
        print(f"{speed:9.1f} {elevation:9.0f} {cells}")
    return 0
