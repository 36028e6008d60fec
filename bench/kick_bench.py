"""Kick figures in the in-process villa simulation (UT Austin Villa 2011 report §13; villa_motion/kick.py).

Per kick: 10 attempts from a standing robot with the ball at the kick's own offset (its BALL line) plus a random
offset of up to +-2 cm in x and y (seeded), as after an imperfect approach. Each attempt: a fresh simulation, stand
0.8 s, kick, let the ball roll 4 s. Prints ball travel distance (mean, std, m), direction error against the kick's
direction (mean, std, degrees), refused kicks (IK reaches <= 90 % of the curve) and falls.

    python bench/kick_bench.py [--set tuned] [--runs 10] [--kicks forward_L,forward_R] [--offset 0.02]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from villa_motion import kick as KK
from villa_sim.inprocess import InProcessNao


def attempt(kick: KK.KickDef, dx: float, dy: float) -> KK.KickResult:
    nao = InProcessNao(x=-3.0, y=0.0, theta=0.0)
    still = KK.stand_joints()
    for _ in range(30):
        nao.command(still)
        nao.step()
    p, yaw, _ = nao.torso_pose()
    bx, by = kick.ball[0] + dx, kick.ball[1] + dy
    c, s = math.cos(yaw), math.sin(yaw)
    KK.place_ball(nao, p[0] + c * bx - s * by, p[1] + s * bx + c * by)
    return KK.run_kick(nao, kick, settle=0.2, roll_time=4.0), yaw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="tuned", help="kick parameter set of config/kick_params.yaml ('' = files)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--kicks", default="", help="comma-separated kick names (default: all)")
    ap.add_argument("--offset", type=float, default=0.02, help="m: ball offsets drawn from +-offset in x and y")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    kicks = KK.load_kick_set(a.set)
    names = a.kicks.split(",") if a.kicks else sorted(kicks)
    rng = np.random.default_rng(a.seed)
    print(f"kick set {a.set or '(files)'}, {a.runs} attempts per kick, ball offset +-{a.offset * 100:.0f} cm")
    print(f"{'kick':<11} {'dist mean':>9} {'std':>5} {'dir err mean':>12} {'std':>5} {'refused':>7} {'falls':>5}")
    t0 = time.time()
    for name in names:
        k = kicks[name]
        dists, errs, refused, falls = [], [], 0, 0
        for _ in range(a.runs):
            dx, dy = rng.uniform(-a.offset, a.offset, 2)
            r, yaw = attempt(k, float(dx), float(dy))
            if not r.started:
                refused += 1
                continue
            falls += r.fell
            dists.append(r.distance)
            errs.append(math.degrees(math.remainder(r.heading - (yaw + k.direction), 2 * math.pi)))
        d, e = np.array(dists), np.array(errs)
        if len(d):
            print(f"{name:<11} {d.mean():9.2f} {d.std():5.2f} {e.mean():12.1f} {e.std():5.1f} {refused:7d} {falls:5d}",
                  flush=True)
        else:
            print(f"{name:<11} {'-':>9} {'-':>5} {'-':>12} {'-':>5} {refused:7d} {falls:5d}", flush=True)
    print(f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
