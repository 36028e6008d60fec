"""Particle filter time per vision frame (odometry, landmarks, lines, resample, estimate), no simulator.

villa_localization's ParticleFilter (--particles, default 1000) on a fixed pose seeing three landmarks, then three
landmarks and one field line, --frames frames each. Prints per case the mean ms per frame, its p95 and the mean of
each step (predict, update, estimate).

    villa bench localization_pf [--frames 500] [--particles 1000] [--seed 0]
"""

from __future__ import annotations

import math
import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 3 s"
SMOKE = ["--frames", "20", "--particles", "200"]


def add_arguments(ap) -> None:
    ap.add_argument("--frames", type=common.positive_int, default=500, help="vision frames per case (default 500)")
    ap.add_argument("--particles", type=common.positive_int, default=1000, help="particles (default 1000)")
    common.add_seed(ap, default=0)


def run(args) -> int:
    from villa_localization.particle_filter import Landmark, ParticleFilter, PFParams
    from villa_nao import field as F

    print(f"no simulator: particle filter, {args.particles} particles, {args.frames} frames a case, seed {args.seed}",
          flush=True)
    pf = ParticleFilter(PFParams(particles=args.particles), seed=args.seed)
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
              f"(p95 {np.percentile(total, 95):.3f} ms; {parts} ms)", flush=True)
    return 0
