#!/usr/bin/env python3
"""Benchmark: the game's dribble alone (villa_strategy.behaviours.dribble, §12.4-12.6) on the §10.3.1 driveBallToGoal
task: 30 s from 0.4 m behind the ball at (-5.6, 0), no opponents, ground truth for the player's pose and the ball.

    source scripts/env.sh && python bench/dribble.py [--world inprocess|sim|simspark] [--runs 4] [--robot-type 0]

Prints per trial how far the ball got toward the opponent goal (m; the task's reward) and whether the robot fell;
trial 0 starts at the task's pose, the others within 5 cm and 5 deg of it. What a player on the ball can do when
nobody contests it: the ceiling of a game's ball progress.
"""

from __future__ import annotations

import argparse

import numpy as np

from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize import tasks as T
from villa_optimize.worlds import make_world


def measure(world: str, runs: int, rt: int) -> list[tuple[float, bool]]:
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    task = T.get_task("driveBallToGoal")
    w = make_world(world, rt)
    out = []
    try:
        for run in range(runs):
            t = task if run == 0 else task.jittered(np.random.default_rng(run))
            r = w.run_episode(T.Episode(t, sets, rt))
            out.append((r.fitness, r.fell))
            print(f"  trial {run}: ball {r.fitness:+.2f} m toward the goal" + (" (robot fell)" if r.fell else ""),
                  flush=True)
    finally:
        w.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", choices=("inprocess", "sim", "simspark"), default="inprocess")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--robot-type", type=int, default=0)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    print(f"{args.world}: driveBallToGoal (30 s), robot type {args.robot_type}, {args.runs} trials")
    res = measure(args.world, args.runs, args.robot_type)
    prog = np.array([p for p, _ in res])
    print(f"  ball progress: mean {prog.mean():.2f} m (min {prog.min():.2f}, max {prog.max():.2f}), "
          f"{sum(f for _, f in res)} falls")


if __name__ == "__main__":
    main()
