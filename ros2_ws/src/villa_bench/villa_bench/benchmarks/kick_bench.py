"""Kick figures from standing on villa sim or the real SimSpark (UT Austin Villa 2011 report §13; villa_motion.kick).

Per kick: N attempts from a standing robot with the ball at the kick's own offset (its BALL line) plus a random
offset of up to +-2 cm in x and y (drawn from --seed, afresh per robot type), as after an imperfect approach
(villa_optimize.standing_kick). Each attempt: stand 0.8 s, kick, let the ball roll 3 s. Prints per robot type and kick
the ball's travel distance (mean, std, m), the direction error against the kick's direction (mean, std, degrees),
refused kicks (IK reaches <= 90 % of the curve) and falls.

    villa bench kick_bench [--world villa|simspark [--socket]] [--robot-types 0] [--runs 10] [--seed 0] [--set tuned]
        [--params FILE] [--kicks forward_L,...] [--offset 0.02]
"""

from __future__ import annotations

import math
import time

import numpy as np

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 30 s on villa sim in process (14 kicks x 10 attempts; measured under load), about 1 min on "
            "SimSpark (estimated from one kick)")
SMOKE = ["--runs", "1", "--kicks", "forward_L"]


def add_arguments(ap) -> None:
    from villa_optimize.standing_kick import STANDING_ERROR

    common.add_common(ap, runs=10, what="attempts per kick and robot type", seed=0)
    ap.add_argument("--set", default="tuned", help="kick parameter set of config/kick_params.yaml ('' = files)")
    ap.add_argument("--params", default=None, help="kick parameter sets file (default villa_motion's)")
    ap.add_argument("--kicks", default="", help="comma-separated kick names (default: all)")
    ap.add_argument("--offset", type=float, default=STANDING_ERROR,
                    help=f"m: ball offsets drawn from +-offset in x and y (default {STANDING_ERROR})")


def run(args) -> int:
    from villa_motion import kick as KK
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path
    from villa_optimize.standing_kick import KickTrial, StandingKickEpisode

    if args.offset < 0:
        return common.fail("kick_bench", f"--offset must be >= 0, not {args.offset}")
    t0 = time.time()
    for rt in args.robot_types:
        try:
            kicks = KK.load_kick_set(args.set, params_path=args.params, simulator=args.world, robot_type=rt)
        except (OSError, ValueError, KK.KickError) as e:
            return common.fail("kick_bench", f"--set/--params: {e}")
        names = args.kicks.split(",") if args.kicks else sorted(kicks)
        unknown = [n for n in names if n not in kicks]
        if unknown:
            return common.fail("kick_bench", f"unknown kicks {', '.join(unknown)}; have {', '.join(sorted(kicks))}")
        stand = KK.StandPose.from_walk(load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
                                       ["goToTarget"])
        rng = np.random.default_rng(args.seed)
        print(f"{common.world_label(args)}: robot type {rt}, kick set {args.set or '(files)'}, {args.runs} attempts "
              f"per kick, ball offset +-{args.offset * 100:.0f} cm (seed {args.seed})", flush=True)
        print(f"{'kick':<11} {'dist mean':>9} {'std':>5} {'dir err mean':>12} {'std':>5} {'refused':>7} {'falls':>5}")
        world = common.make_world(args, rt)
        try:
            for name in names:
                dists, errs, refused, falls = [], [], 0, 0
                for _ in range(args.runs):
                    err = tuple(float(v) for v in rng.uniform(-args.offset, args.offset, 2))
                    r = world.run_episode(StandingKickEpisode(KickTrial(kicks[name], err), stand, rt))
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
    return 0
