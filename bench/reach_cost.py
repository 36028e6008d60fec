#!/usr/bin/env python3
"""Benchmark: what the kick approach's reachability check costs a cycle (UT Austin Villa 2011 report §13.1.1).

While a player lines up a kick, the strategy asks villa_motion.kick.reachable every cycle whether the kick engine
reaches the ball from here, for the ball estimate and four points 1 cm around it (the approach's margin), each rounded
to a 5 mm cell and remembered. A noisy estimate keeps landing in new cells, so the cost that matters is the check of
cells not seen before: here each check gets a fresh cache, for --balls ball positions jittered by --jitter m around the
kick's own offset, per robot type and world. In real-time matches a decision over the 20 ms cycle makes the answer late.

    source scripts/env.sh && python bench/reach_cost.py [--types 0,1] [--kicks forward_L,forward_R] [--balls 60]
        [--jitter 0.015] [--simulator ""|simspark] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from villa_motion import kick as KK
from villa_strategy import behaviours as B


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--types", default="0,1", help="robot types, comma-separated")
    ap.add_argument("--kicks", default="forward_L,forward_R")
    ap.add_argument("--balls", type=int, default=60, help="ball positions per type and kick")
    ap.add_argument("--jitter", type=float, default=0.015, help="m, 1-sigma of the ball around the kick's offset")
    ap.add_argument("--simulator", default="simspark", help='the kick data\'s world: "" (villa sim) or simspark')
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    world = args.simulator or "villa sim"
    print(f"reach check with the approach's 1 cm margin, a cold cache per check; world {world}, "
          f"ball jitter {args.jitter} m, {args.balls} balls")
    print("type kick        reachable   mean ms  p50 ms  p90 ms  max ms")
    for rt in (int(t) for t in args.types.split(",")):
        body = B.default_body(rt)
        stand = body.stand(body.kick_set())
        kicks = KK.load_kick_set("tuned", robot_type=rt, simulator=args.simulator)
        rng = np.random.default_rng(args.seed + rt)
        for name in args.kicks.split(","):
            k = kicks[name]
            times, hits = [], []
            for _ in range(args.balls):
                ball = (k.ball[0] + rng.normal(0.0, args.jitter), k.ball[1] + rng.normal(0.0, args.jitter))
                cache = getattr(KK, "_REACH_CACHE", None)          # a cold cache for every check
                if cache is not None:
                    cache.clear()
                elif hasattr(KK, "_reachable_on_grid"):            # the older per-cell cache
                    KK._reachable_on_grid.cache_clear()
                t = time.perf_counter()
                hits.append(KK.reachable(k, ball, stand, rt, margin=0.01))
                times.append((time.perf_counter() - t) * 1e3)
            ms = np.array(times)
            print(f"{rt:>4} {name:<11} {np.mean(hits):>8.0%}  {ms.mean():>8.1f} {np.median(ms):>7.1f} "
                  f"{np.percentile(ms, 90):>7.1f} {ms.max():>7.1f}")


if __name__ == "__main__":
    main()
