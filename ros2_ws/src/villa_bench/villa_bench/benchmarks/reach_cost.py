"""What the kick approach's reachability check costs a cycle (UT Austin Villa 2011 report §13.1.1).

While a player lines up a kick, the strategy asks villa_motion.kick.reachable every cycle whether the kick engine
reaches the ball from here, for the ball estimate and four points 1 cm around it (the approach's margin), each rounded
to a 5 mm cell and remembered. A noisy estimate keeps landing in new cells, so the cost that matters is the check of
cells not seen before: here each check gets a fresh cache, for --runs ball positions jittered by --jitter m around the
kick's own offset (drawn from --seed + robot type), per robot type and the kick data of --world (no simulator runs).
Prints per robot type and kick the share reachable and the check's mean, median, 90th percentile and worst time (ms).
In real-time matches a decision over the 20 ms cycle makes the answer late.

    villa bench reach_cost [--world villa|simspark] [--robot-types 0,1] [--kicks forward_L,forward_R] [--runs 60]
        [--jitter 0.015] [--seed 0]
"""

from __future__ import annotations

import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 5 s (2 robot types x 2 kicks x 60 checks, about 8 ms each)"
SMOKE = ["--robot-types", "0", "--kicks", "forward_L", "--runs", "3"]


def add_arguments(ap) -> None:
    ap.add_argument("--world", choices=common.WORLDS, default="simspark",
                    help="whose kick data: villa (villa sim's) or simspark (with SimSpark's overlay); default simspark")
    common.add_robot_types(ap, "0,1")
    common.add_runs(ap, 60, "ball positions per robot type and kick")
    common.add_seed(ap, 0)
    ap.add_argument("--kicks", default="forward_L,forward_R", help="comma-separated kick names")
    ap.add_argument("--jitter", type=common.positive_float, default=0.015,
                    help="m, 1-sigma of the ball around the kick's offset (default 0.015)")


def run(args) -> int:
    from villa_motion import kick as KK
    from villa_strategy import behaviours as B

    print(f"reach check with the approach's 1 cm margin, a cold cache per check; {args.world}'s kick data, "
          f"ball jitter {args.jitter} m, {args.runs} balls (seed {args.seed})", flush=True)
    print("type kick        reachable   mean ms  p50 ms  p90 ms  max ms")
    for rt in args.robot_types:
        body = B.default_body(rt)
        stand = body.stand(body.kick_set())
        kicks = KK.load_kick_set("tuned", robot_type=rt, simulator=args.world)
        unknown = [n for n in args.kicks.split(",") if n not in kicks]
        if unknown:
            return common.fail("reach_cost", f"unknown kicks {', '.join(unknown)}; have {', '.join(sorted(kicks))}")
        rng = np.random.default_rng(args.seed + rt)
        for name in args.kicks.split(","):
            k = kicks[name]
            times, hits = [], []
            for _ in range(args.runs):
                ball = (k.ball[0] + rng.normal(0.0, args.jitter), k.ball[1] + rng.normal(0.0, args.jitter))
                KK._REACH_CACHE.clear()                     # a cold cache for every check
                t = time.perf_counter()
                hits.append(KK.reachable(k, ball, stand, rt, margin=0.01))
                times.append((time.perf_counter() - t) * 1e3)
            ms = np.array(times)
            print(f"{rt:>4} {name:<11} {np.mean(hits):>8.0%}  {ms.mean():>8.1f} {np.median(ms):>7.1f} "
                  f"{np.percentile(ms, 90):>7.1f} {ms.max():>7.1f}", flush=True)
    return 0
