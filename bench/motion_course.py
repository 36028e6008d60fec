#!/usr/bin/env python3
"""Benchmark: the walk on 10 m forward and on a goToTarget course of the §10.3 trajectory kinds (in-process villa
simulation, vision noise irrelevant here: the course steers on the server's ground-truth pose), through the game's
motion arbiter (the head scans as in a game).

    source scripts/env.sh && python bench/motion_course.py [--robot-type 0] [--runs 3] [--params FILE --set NAME]

--params/--set evaluate another walk parameter set (e.g. one written by `villa optimize walk`); default: villa_motion's
config/walk_params.yaml, set goToTarget.

Course (Figure 4 kinds): long walks forward / backward / left / right, a curve, quick direction changes, stop-and-go,
a spiral. Each segment is a command held for a time (MoveOptPhase / StopOptPhase of §10.4.2); the robot turns toward
waypoints for the curve and spiral. Prints forward speed (m/s) and falls per course. The simulation is deterministic:
run 0 starts at the nominal pose, every further run within 5 cm and 5° of it (its seed), so runs are distinct trials.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace

import numpy as np

from villa_motion import arbiter as A
from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize.tasks import start_jitter
from villa_sim.inprocess import InProcessNao

COURSE = [  # (name, seconds, command(t) -> (x, y, theta) normalized, or None = stop)
    ("long forward", 6.0, lambda t: (1, 0, 0)),
    ("stop", 1.5, None),
    ("long backward", 4.0, lambda t: (-1, 0, 0)),
    ("long left", 4.0, lambda t: (0, 1, 0)),
    ("long right", 4.0, lambda t: (0, -1, 0)),
    ("curve", 5.0, lambda t: (1, 0, 0.4)),
    ("quick direction changes", 4.0,
     lambda t: ((1, 0.5, 0), (-1, -0.5, 0), (0.3, 1, 0), (0.3, -1, 0))[int(t / 0.5) % 4]),
    ("stop and go", 4.0, lambda t: (1, 0, 0) if int(t / 1.0) % 2 == 0 else None),
    ("weave 45 deg", 4.0, lambda t: (1, 0.7 if int(t / 1.0) % 2 else -0.7, 0)),
    ("spiral clockwise", 5.0, lambda t: (1, 0, -max(0.2, 1 - t / 5))),
    ("spiral counter-clockwise", 5.0, lambda t: (1, 0, max(0.2, 1 - t / 5))),
    ("stop", 2.0, None),
]


PARAMS = {"file": None, "set": "goToTarget"}


def walk_engine(rt: int, sets=None, name: str | None = None) -> A.MotionArbiter:
    """The game's motion arbiter with walk sets `sets` (default: PARAMS' file, villa_motion's walk_params.yaml) on set
    `name` (PARAMS'), the head scanning as in a game."""
    if sets is None:
        sets = load_parameter_sets(PARAMS["file"] or config_path("villa_motion", "walk_params.yaml"))
    return A.MotionArbiter(replace(A.shipped_config(rt), walk_sets=sets, walk_set=name or PARAMS["set"]))


def cycle(nao, motion: A.MotionArbiter) -> None:
    nao.command(motion.update(nao.time, nao.joint_angles()).targets)
    nao.step()


def start_pose(x: float, seed: int) -> tuple[float, float, float]:
    """Run `seed`'s start pose: run 0 starts exactly at (x, 0, 0); the others within 5 cm and 5° of it, since the
    simulation is deterministic and identical starts would repeat one trial."""
    if seed == 0:
        return x, 0.0, 0.0
    dx, dy, dth = start_jitter(np.random.default_rng(seed))
    return x + dx, dy, dth


def run_forward(rt: int, seed: int, sets=None, name: str | None = None) -> tuple[float | None, bool]:
    """10 m straight forward at full speed: (mean speed m/s or None, fell)."""
    x, y, th = start_pose(-10.0, seed)
    nao = InProcessNao(x=x, y=y, theta=th, robot_type=rt, seed=seed, vision_noise=True)
    w = walk_engine(rt, sets, name)
    for _ in range(25):
        cycle(nao, w)
    start = nao.torso_pose()[0]
    w.walk_request(A.WalkRequest(A.WALK_NORMALIZED, 1.0, 0.0, 0.0))
    t = 0.0
    while t < 60.0:
        cycle(nao, w)
        t += 0.02
        p, _, up = nao.torso_pose()
        if up < 0.5:
            return None, True
        if math.hypot(*(p[:2] - start[:2])) >= 10.0:
            return 10.0 / t, False
    return None, False


def run_course(rt: int, seed: int, sets=None, name: str | None = None) -> tuple[int, str | None]:
    """The 48 s course of COURSE: (falls, the segment of the fall); the course ends at the first fall."""
    x, y, th = start_pose(-8.0, seed)
    nao = InProcessNao(x=x, y=y, theta=th, robot_type=rt, seed=seed)
    w = walk_engine(rt, sets, name)
    falls, down = 0, False
    for seg, secs, cmd in COURSE:
        t = 0.0
        while t < secs:
            c = cmd(t) if cmd is not None else None
            w.walk_request(A.WalkRequest(A.WALK_STAND) if c is None else A.WalkRequest(A.WALK_NORMALIZED, *c))
            cycle(nao, w)
            t += 0.02
            up = nao.torso_pose()[2]
            if up < 0.5 and not down:
                falls += 1
            down = up < 0.5
            if down:  # a fallen robot cannot continue the course
                return falls, seg
    return falls, None


def measure(rt: int, runs: int, sets=None, name: str | None = None) -> dict:
    """Both walks `runs` times (run i from start_pose(.., i)): mean 10 m speed of the completed ones, their count,
    forward falls, falls per course and the segments fallen in; ok = every run completed without a fall."""
    speeds, fwd_falls, course_falls, where = [], 0, [], []
    for seed in range(runs):
        v, fell = run_forward(rt, seed, sets, name)
        fwd_falls += fell
        if v is not None:
            speeds.append(v)
        falls, seg = run_course(rt, seed, sets, name)
        course_falls.append(falls)
        if seg:
            where.append(seg)
    return {"speed": float(np.mean(speeds)) if speeds else float("nan"), "completed": len(speeds),
            "forward_falls": fwd_falls, "course_falls": course_falls, "where": where,
            "ok": len(speeds) == runs and fwd_falls == 0 and not any(course_falls)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot-type", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")
    ap.add_argument("--set", default="goToTarget", help="parameter set to walk with (default goToTarget)")
    args = ap.parse_args()
    PARAMS.update(file=args.params, set=args.set)
    try:
        walk_engine(args.robot_type)
    except ValueError as e:
        ap.error(str(e))
    m = measure(args.robot_type, args.runs)
    print(f"robot type {args.robot_type}, {args.runs} runs, set {args.set} of {args.params or 'walk_params.yaml'}")
    print(f"  10 m forward: {m['speed']:.3f} m/s mean ({m['completed']}/{args.runs} completed, "
          f"{m['forward_falls']} falls)")
    print(f"  goToTarget course ({sum(s for _, s, _ in COURSE):.0f} s, {len(COURSE)} segments): "
          f"falls per course {np.mean(m['course_falls']):.2f} ({m['course_falls']})"
          + (f", in: {', '.join(m['where'])}" if m["where"] else ""))


if __name__ == "__main__":
    main()
