#!/usr/bin/env python3
"""Benchmark: particle filter time per vision frame (1000 particles: odometry, landmarks, lines, resample, estimate).

    source scripts/env.sh && python bench/localization_pf.py [--frames 500] [--particles 1000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from villa_localization.particle_filter import Landmark, ParticleFilter, PFParams
from villa_nao import field as F


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--particles", type=int, default=1000)
    args = ap.parse_args()
    pf = ParticleFilter(PFParams(particles=args.particles), seed=0)
    pose = np.array([-5.0, 1.0, 0.2])
    lms = []
    for n in ("G1R", "G2R", "F1R"):
        lx, ly = F.LANDMARKS[n][:2]
        d = math.hypot(lx - pose[0], ly - pose[1])
        lms.append(Landmark(lx, ly, d, math.atan2(ly - pose[1], lx - pose[0]) - pose[2], 0.1, 0.03))
    line = np.array([[3.0, -1.0], [3.0, 1.0]])
    for label, lines in (("3 landmarks", []), ("3 landmarks + 1 line", [line])):
        times = {"predict": [], "update": [], "estimate": []}
        for _ in range(args.frames):
            t0 = time.perf_counter()
            pf.predict(0.01, 0.0, 0.001)
            t1 = time.perf_counter()
            pf.update(lms, lines)
            t2 = time.perf_counter()
            pf.estimate()
            t3 = time.perf_counter()
            times["predict"].append(t1 - t0)
            times["update"].append(t2 - t1)
            times["estimate"].append(t3 - t2)
        total = np.sum([times[k] for k in times], axis=0) * 1e3
        parts = ", ".join(f"{k} {np.mean(v) * 1e3:.3f}" for k, v in times.items())
        print(f"{args.particles} particles, {label}: {np.mean(total):.3f} ms per frame "
              f"(p95 {np.percentile(total, 95):.3f} ms; {parts} ms)")


if __name__ == "__main__":
    main()
