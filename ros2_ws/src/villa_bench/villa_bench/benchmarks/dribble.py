"""The game's dribble alone: ball progress toward the goal with nobody contesting it.

villa_strategy.behaviours.dribble (§12.4-12.6), no opponents, ground truth for the player's pose and the ball, on a
villa_optimize task: driveBallToGoal (§10.3.1, 30 s from 0.4 m behind the ball at (-5.6, 0), one walk set) or
positioning (§10.3.3, 15 s from six poses around the ball, the game's walk sets). Prints per trial how far the ball
got toward the opponent goal (m; the task's reward) and whether the robot fell; trial 0 starts at the task's pose,
trial i at the task's i-th start (cycling) within 5 cm and 5 deg of it, drawn from seed + i (not the optimizer's
streams: held-out starts). The ceiling of a game's ball progress.

    villa bench dribble [--world villa|simspark] [--runs 4] [--robot-types 0] [--task driveBallToGoal|positioning]
        [--params WALK_PARAMS.yaml]
"""

from __future__ import annotations

import numpy as np

from villa_bench import common, courses

WORLDS = ("villa", "simspark")
RUN_TIME = "about 1 min per trial on villa sim, 30 s on SimSpark (driveBallToGoal)"
SMOKE = ["--runs", "1", "--task", "positioning"]


def add_arguments(ap) -> None:
    common.add_common(ap, runs=4, what="trials per robot type")
    ap.add_argument("--task", choices=("driveBallToGoal", "positioning"), default="driveBallToGoal")
    ap.add_argument("--params", default=None, help="walk parameter sets (default villa_motion's walk_params.yaml)")


def run(args) -> int:
    from villa_optimize import tasks as T

    task = T.get_task(args.task)
    for rt in args.robot_types:
        print(f"{common.world_label(args)}: {args.task} ({task.duration() - task.settle:.0f} s), robot type {rt}, "
              f"{args.runs} trials, walk sets {args.params or 'shipped'}", flush=True)
        res = courses.dribble_trials(args, rt, args.task, args.params)
        prog = np.array([p for p, _ in res])
        print(f"  ball progress: mean {prog.mean():.2f} m (min {prog.min():.2f}, max {prog.max():.2f}), "
              f"{sum(f for _, f in res)} falls", flush=True)
    return 0
