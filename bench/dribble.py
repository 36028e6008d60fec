#!/usr/bin/env python3
"""Benchmark: the game's dribble alone (villa_strategy.behaviours.dribble, §12.4-12.6), no opponents, ground truth for
the player's pose and the ball, on a villa_optimize task: driveBallToGoal (§10.3.1, 30 s from 0.4 m behind the ball at
(-5.6, 0), one walk set) or positioning (§10.3.3, 15 s from six poses around the ball, the game's walk sets).

    source scripts/env.sh && python bench/dribble.py [--world inprocess|sim|simspark] [--runs 4] [--robot-type 0]
        [--task driveBallToGoal|positioning] [--params WALK_PARAMS.yaml]

Prints per trial how far the ball got toward the opponent goal (m; the task's reward) and whether the robot fell;
trial 0 starts at the task's pose, trial i at the task's i-th start (cycling) within 5 cm and 5 deg of it, drawn
from seed i (not the optimizer's streams: held-out starts). What a player on the ball can do when nobody contests
it: the ceiling of a game's ball progress.
"""

from __future__ import annotations

import argparse

import numpy as np

from villa_motion.params import load_parameter_sets, walk_sets_path
from villa_optimize import tasks as T
from villa_optimize.worlds import make_world


def measure(world: str, runs: int, rt: int, task_name: str = "driveBallToGoal",
            params=None, verbose: bool = True) -> list[tuple[float, bool]]:
    """(ball progress m, fell) per trial; `params`: a walk parameter file, or the sets themselves (None: shipped)."""
    if params is None or not isinstance(params, dict):
        params = load_parameter_sets(walk_sets_path(params or ""), robot_type=rt)
    task = T.get_task(task_name)
    w = make_world(world, rt)
    out = []
    try:
        for run in range(runs):
            t = task.trial(run, np.random.default_rng(run))
            r = w.run_episode(T.Episode(t, params, rt))
            out.append((r.fitness, r.fell))
            if verbose:
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
    ap.add_argument("--task", choices=("driveBallToGoal", "positioning"), default="driveBallToGoal")
    ap.add_argument("--params", default=None, help="walk parameter sets (default villa_motion's walk_params.yaml)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    task = T.get_task(args.task)
    print(f"{args.world}: {args.task} ({task.duration() - task.settle:.0f} s), robot type {args.robot_type}, "
          f"{args.runs} trials, walk sets {args.params or 'shipped'}")
    res = measure(args.world, args.runs, args.robot_type, args.task, args.params)
    prog = np.array([p for p, _ in res])
    print(f"  ball progress: mean {prog.mean():.2f} m (min {prog.min():.2f}, max {prog.max():.2f}), "
          f"{sum(f for _, f in res)} falls")


if __name__ == "__main__":
    main()
