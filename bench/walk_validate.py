#!/usr/bin/env python3
"""Benchmark: a `villa optimize walk` run's candidates on held-out walks (the check before adopting a learned set).

    source scripts/env.sh && python bench/walk_validate.py --run runs/g2t [--every 5] [--runs 3]
    python bench/walk_validate.py --run runs/g2t --export 40 mean /tmp/walk_params.yaml   # write one candidate

For every `--every`-th generation of the run's history.jsonl (and the last), two candidates: the generation's best
sample and CMA-ES's mean after it (the distribution's centre: no winner's luck in it). Each walks
bench/motion_course.py's 10 m forward and its 48 s course, `--runs` times from jittered starts (run 0 nominal), in
process (a sprint run's with the game's set rule: sprint straight ahead, goToTarget otherwise); the start set is
measured first. A candidate qualifies when no run falls; the table ends with the
qualifying candidate of the best 10 m speed. A run of a dribbling task (positioning, driveBallToGoal) is checked
by dribbling instead: bench/dribble.py's task, `--runs` trials from the task's starts with held-out jitter; it
qualifies without a fall and ranks by the ball's mean progress. `--export` writes one candidate as a complete walk
parameter file (the start file's sets plus the learned set under the task's name), as `villa optimize` writes its
best.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dribble as DR
import motion_course as MC

from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize.space import Space, write_parameter_set
from villa_optimize.tasks import get_task
from villa_optimize.walk_objective import WalkObjective


def load_run(run: Path) -> tuple[dict, list[dict]]:
    try:
        with open(run / "state.pkl", "rb") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")                # cma warns that matplotlib is missing
            st = pickle.load(f)
        hist = [json.loads(line) for line in (run / "history.jsonl").read_text().splitlines() if line.strip()]
    except FileNotFoundError as e:
        raise SystemExit(f"walk_validate: {run}: not a villa optimize run ({e.filename} missing)") from None
    desc = st.description or {}
    if desc.get("kind") != "walk":
        raise SystemExit(f"walk_validate: {run}: not a walk optimization run")
    if not hist or "x_mean" not in hist[-1]:
        raise SystemExit(f"walk_validate: {run}: its history has no candidates (a run before x_mean was recorded)")
    return desc, hist


def run_objective(desc: dict, base_file: Path) -> WalkObjective:
    """The run's objective as far as its candidates go (space, task, start set), for its parameter_sets(x)."""
    space = Space(tuple(desc["parameters"]), np.array(desc["lower"]), np.array(desc["upper"]))
    name = get_task(desc["task"]).optimized_set
    return WalkObjective(desc["task"], space, base_file, desc["start_set"], name, base_file,   # (nothing is written)
                         robot_type=int(desc.get("robot_type", 0)))


def _row(label: str, fit: float | None, m: dict) -> str:
    fit_s = f"{fit:12.3f}" if fit is not None else f"{'':>12}"
    return (f"{label:<22} {fit_s} {m['speed']:9.3f} {m['completed']:>5} {m['forward_falls']:>9} "
            f"{sum(f > 0 for f in m['course_falls']):>12}  {', '.join(sorted(set(m['where'])))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, required=True, help="a `villa optimize walk` run directory")
    ap.add_argument("--every", type=int, default=5, help="every N-th generation (default 5; the last always)")
    ap.add_argument("--runs", type=int, default=3, help="trials per candidate and walk (default 3)")
    ap.add_argument("--start-params", type=Path, default=None,
                    help="the run's --start-params (default villa_motion's config/walk_params.yaml)")
    ap.add_argument("--export", nargs=3, metavar=("GENERATION", "best|mean", "FILE"),
                    help="write that candidate as a walk parameter file and stop")
    args = ap.parse_args()
    if args.every < 1 or args.runs < 1:
        ap.error("--every and --runs must be >= 1")
    base = args.start_params or Path(config_path("villa_motion", "walk_params.yaml"))
    desc, hist = load_run(args.run)
    rt = int(desc.get("robot_type", 0))
    objective = run_objective(desc, base)
    name = objective.task().optimized_set
    by_gen = {h["generation"]: h for h in hist}

    if args.export:
        gen, which, out = args.export
        if which not in ("best", "mean") or not gen.isdigit() or int(gen) not in by_gen:
            ap.error(f"--export: need a generation of the run (1..{hist[-1]['generation']}) and best or mean")
        h = by_gen[int(gen)]
        x = h["x_generation_best"] if which == "best" else h["x_mean"]
        write_parameter_set(out, base, name, objective.parameter_sets(x)[name],
                            f"walk set {name!r}: generation {gen}'s {which} of the villa optimize run {args.run}",
                            robot_type=rt)
        print(f"wrote {out}: set {name!r} (generation {gen}, {which})")
        return

    gens = sorted({g for g in by_gen if g % args.every == 0} | {hist[-1]["generation"]})
    if desc["task"] in ("positioning", "driveBallToGoal"):
        validate_dribble(args, desc, hist, gens, by_gen, objective, base, rt)
        return
    print(f"run {args.run}: task {desc['task']}, {hist[-1]['evaluations']} evaluations, robot type {rt}; "
          f"{args.runs} trials per walk (bench/motion_course.py)")
    print(f"{'candidate':<22} {'task fitness':>12} {'10 m m/s':>9} {'done':>5} {'fwd falls':>9} {'course falls':>12}")
    rows = []
    t0 = time.monotonic()
    game_sets = desc["task"] == "sprint"          # sprint is walked where the game walks it (its §10.3 rule)
    start = MC.measure(rt, args.runs, load_parameter_sets(base, robot_type=rt), name, game_sets=game_sets)
    print(_row(f"start set {desc['start_set']}", None, start), flush=True)
    for g in gens:
        h = by_gen[g]
        for which, x, fit in (("best", h["x_generation_best"], h["generation_best"]), ("mean", h["x_mean"], None)):
            m = MC.measure(rt, args.runs, objective.parameter_sets(x), name, game_sets=game_sets)
            rows.append((g, which, fit, m))
            print(_row(f"gen {g} {which}", fit, m), flush=True)
    ok = [r for r in rows if r[3]["ok"]]
    print(f"({len(rows)} candidates in {time.monotonic() - t0:.0f} s)")
    if not ok:
        print("no candidate walks both without a fall")
        return
    g, which, _, m = max(ok, key=lambda r: r[3]["speed"])
    print(f"fastest without a fall: generation {g} {which}, {m['speed']:.3f} m/s "
          f"(start set {start['speed']:.3f} m/s); export: --export {g} {which} FILE")


def validate_dribble(args, desc: dict, hist: list[dict], gens: list[int], by_gen: dict, objective, base: Path,
                     rt: int) -> None:
    """A dribbling run's candidates on bench/dribble.py's task (held-out starts): mean ball progress and falls."""
    task = desc["task"]
    print(f"run {args.run}: task {task}, {hist[-1]['evaluations']} evaluations, robot type {rt}; {args.runs} trials "
          f"per candidate (bench/dribble.py --task {task})")
    print(f"{'candidate':<22} {'task fitness':>12} {'ball m':>7} {'min':>6} {'falls':>5}")

    def row(label, fit, res):
        prog = np.array([p for p, _ in res])
        falls = sum(f for _, f in res)
        fit_s = f"{fit:12.3f}" if fit is not None else f"{'':>12}"
        print(f"{label:<22} {fit_s} {prog.mean():7.2f} {prog.min():6.2f} {falls:>5}", flush=True)
        return float(prog.mean()), falls

    t0 = time.monotonic()
    start = row(f"start set {desc['start_set']}", None,
                DR.measure("inprocess", args.runs, rt, task, load_parameter_sets(base, robot_type=rt), verbose=False))
    rows = []
    for g in gens:
        h = by_gen[g]
        for which, x, fit in (("best", h["x_generation_best"], h["generation_best"]), ("mean", h["x_mean"], None)):
            res = DR.measure("inprocess", args.runs, rt, task, objective.parameter_sets(x), verbose=False)
            rows.append((g, which, *row(f"gen {g} {which}", fit, res)))
    print(f"({len(rows)} candidates in {time.monotonic() - t0:.0f} s)")
    ok = [r for r in rows if r[3] == 0]
    if not ok:
        print("no candidate dribbles without a fall")
        return
    g, which, prog, _ = max(ok, key=lambda r: r[2])
    print(f"best without a fall: generation {g} {which}, ball {prog:.2f} m (start set {start[0]:.2f} m); "
          f"export: --export {g} {which} FILE")


if __name__ == "__main__":
    main()
