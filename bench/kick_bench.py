"""Kick figures from standing on villa sim or the real SimSpark (UT Austin Villa 2011 report §13; villa_motion/kick.py).

Per kick: N attempts from a standing robot with the ball at the kick's own offset (its BALL line) plus a random
offset of up to +-2 cm in x and y (seeded), as after an imperfect approach (villa_optimize.standing_kick). Each
attempt: stand 0.8 s, kick, let the ball roll 3 s. Prints ball travel distance (mean, std, m), direction error
against the kick's direction (mean, std, degrees), refused kicks (IK reaches <= 90 % of the curve) and falls.

    python bench/kick_bench.py [--world inprocess|sim|simspark] [--set tuned] [--runs 10] [--kicks forward_L,...]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize.standing_kick import STANDING_ERROR, KickTrial, StandingKickEpisode
from villa_optimize.worlds import SIMULATOR, make_world


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", choices=("inprocess", "sim", "simspark"), default="inprocess")
    ap.add_argument("--set", default="tuned", help="kick parameter set of config/kick_params.yaml ('' = files)")
    ap.add_argument("--params", default=None, help="kick parameter sets file (default villa_motion's)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--kicks", default="", help="comma-separated kick names (default: all)")
    ap.add_argument("--offset", type=float, default=STANDING_ERROR,
                    help="m: ball offsets drawn from +-offset in x and y")
    ap.add_argument("--robot-type", type=int, choices=range(5), default=0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    kicks = KK.load_kick_set(a.set, params_path=a.params, simulator=SIMULATOR[a.world],
                              robot_type=a.robot_type)
    stand = KK.StandPose.from_walk(load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))["goToTarget"])
    names = a.kicks.split(",") if a.kicks else sorted(kicks)
    rng = np.random.default_rng(a.seed)
    print(f"{a.world}: kick set {a.set or '(files)'}, {a.runs} attempts per kick, ball offset "
          f"+-{a.offset * 100:.0f} cm")
    print(f"{'kick':<11} {'dist mean':>9} {'std':>5} {'dir err mean':>12} {'std':>5} {'refused':>7} {'falls':>5}")
    t0 = time.time()
    world = make_world(a.world, a.robot_type)
    try:
        for name in names:
            dists, errs, refused, falls = [], [], 0, 0
            for _ in range(a.runs):
                err = tuple(float(v) for v in rng.uniform(-a.offset, a.offset, 2))
                r = world.run_episode(StandingKickEpisode(KickTrial(kicks[name], err), stand, a.robot_type))
                if not r.started:
                    refused += 1
                    continue
                falls += r.fell
                dists.append(r.distance)
                errs.append(math.degrees(r.direction_error))
            d, e = np.array(dists), np.array(errs)
            if len(d):
                print(f"{name:<11} {d.mean():9.2f} {d.std():5.2f} {e.mean():12.1f} {e.std():5.1f} {refused:7d} "
                      f"{falls:5d}", flush=True)
            else:
                print(f"{name:<11} {'-':>9} {'-':>5} {'-':>12} {'-':>5} {refused:7d} {falls:5d}", flush=True)
    finally:
        world.close()
    print(f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
