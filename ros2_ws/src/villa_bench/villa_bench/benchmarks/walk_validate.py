"""A `villa optimize walk` run's candidates on held-out walks (the check before adopting a learned set).

    villa bench walk_validate --run runs/g2t [--every 5] [--runs 3] [--world villa|simspark [--socket]] [--seed 0]
    villa bench walk_validate --run runs/g2t --export 40 mean /tmp/walk_params.yaml     # write one candidate
    villa bench walk_validate [--start-params FILE] [--set goToTarget] [--robot-types 0]  # a file's set alone

For every `--every`-th generation of the run's history.jsonl (and the last), two candidates: the generation's best
sample and CMA-ES's mean after it (the distribution's centre: no winner's luck in it). Each walks `villa bench
motion_course`'s 10 m forward and its 48 s course, `--runs` times from jittered starts (run i from seed S + i, seed 0
nominal), on --world (a sprint run's with the game's set rule: sprint straight ahead, goToTarget otherwise); the start
set is measured first. Prints a row per candidate (task fitness, 10 m speed, completed walks, forward falls, courses
with a fall and where); a candidate qualifies when no run falls, and the table ends with the qualifying candidate of
the best 10 m speed. A run of a dribbling task (positioning, driveBallToGoal) is checked by dribbling instead: `villa
bench dribble`'s task, `--runs` trials from the task's starts with held-out jitter (drawn from seed S + 1 + i, as
`villa bench dribble`'s default seed 1 at S = 0); it qualifies without a fall and ranks by the ball's mean progress.
A turnInPlace run (the walk's turn set) is checked by turning in place both ways (`villa bench walk_turn`) and by a
course of in-place turns handing over to walks and stops, goToTarget asking as in a game; it qualifies without a
fall and ranks by its slower turn.
`--export` writes one candidate as a complete walk parameter file (the start file's sets plus the learned set under
the task's name), as `villa optimize` writes its best. Without --run the start file's set --set alone walks the table's
first row, per robot type of --robot-types (a run's candidates walk the run's own robot type).
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
import warnings
from pathlib import Path

import numpy as np

from villa_bench import common, courses

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 4 s per candidate on villa sim in process at --runs 3 (a 40-generation run at --every "
            "5, 17 candidates, about 70 s); dribbling runs longer")
SMOKE = ["--runs", "1"]


class RunError(Exception):
    """A directory that is not a walk optimization run with candidates."""


def load_run(run: Path) -> tuple[dict, list[dict]]:
    try:
        with open(run / "state.pkl", "rb") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")                # cma warns that matplotlib is missing
            st = pickle.load(f)
        hist = [json.loads(line) for line in (run / "history.jsonl").read_text().splitlines() if line.strip()]
    except FileNotFoundError as e:
        raise RunError(f"{run}: not a villa optimize run ({e.filename} missing)") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, json.JSONDecodeError) as e:
        raise RunError(f"{run}: not a readable villa optimize run ({e})") from None
    desc = getattr(st, "description", None) or {}
    if desc.get("kind") != "walk":
        raise RunError(f"{run}: not a walk optimization run")
    if not hist or "x_mean" not in hist[-1]:
        raise RunError(f"{run}: its history has no candidates (a run before x_mean was recorded)")
    return desc, hist


def run_objective(desc: dict, base_file: Path, world: str = "villa"):
    """The run's objective as far as its candidates go (space, task, start set, the world whose overlay its start
    sets had: the run's, else `world`), for its parameter_sets(x)."""
    from villa_optimize.space import Space
    from villa_optimize.tasks import get_task
    from villa_optimize.walk_objective import WalkObjective

    space = Space(tuple(desc["parameters"]), np.array(desc["lower"]), np.array(desc["upper"]))
    name = get_task(desc["task"]).optimized_set
    return WalkObjective(desc["task"], space, base_file, desc["start_set"], name, base_file,   # (nothing is written)
                         robot_type=int(desc.get("robot_type", 0)), world=desc.get("world", world))


def candidates(gens: list[int], by_gen: dict):
    """(generation, "best" | "mean", normalized x, the best's task fitness or None) for each generation of `gens`:
    its best sample and CMA-ES's mean after it."""
    for g in gens:
        h = by_gen[g]
        yield g, "best", h["x_generation_best"], h["generation_best"]
        yield g, "mean", h["x_mean"], None


HEADER = f"{'candidate':<22} {'task fitness':>12} {'10 m m/s':>9} {'done':>5} {'fwd falls':>9} {'course falls':>12}"


def _row(label: str, fit: float | None, m: dict) -> str:
    fit_s = f"{fit:12.3f}" if fit is not None else f"{'':>12}"
    return (f"{label:<22} {fit_s} {m['speed']:9.3f} {m['completed']:>5} {m['forward_falls']:>9} "
            f"{sum(f > 0 for f in m['course_falls']):>12}  {', '.join(sorted(set(m['where'])))}")


def add_arguments(ap) -> None:
    ap.add_argument("--run", type=Path, default=None, help="a `villa optimize walk` run directory")
    common.add_world(ap)
    common.add_runs(ap, 3, "trials per candidate and walk")
    common.add_seed(ap, 0)
    common.add_robot_types(ap)
    ap.add_argument("--every", type=common.positive_int, default=5,
                    help="every N-th generation (default 5; the last always)")
    ap.add_argument("--start-params", type=Path, default=None,
                    help="the run's --start-params (default villa_motion's config/walk_params.yaml)")
    ap.add_argument("--set", default="goToTarget", help="without --run: the start file's set to walk (default "
                                                        "goToTarget)")
    ap.add_argument("--export", nargs=3, metavar=("GENERATION", "best|mean", "FILE"),
                    help="write that candidate as a walk parameter file and stop")


def run(args) -> int:
    from villa_nao.params import config_path

    base = args.start_params or Path(config_path("villa_motion", "walk_params.yaml"))
    if args.run is None:
        if args.export:
            return common.fail("walk_validate", "--export needs --run")
        return validate_start(args, base)
    try:
        desc, hist = load_run(args.run)
    except RunError as e:
        return common.fail("walk_validate", str(e))
    rt = int(desc.get("robot_type", 0))
    objective = run_objective(desc, base, args.world)
    name = objective.task().optimized_set
    by_gen = {h["generation"]: h for h in hist}

    if args.export:
        from villa_optimize.space import write_parameter_set

        gen, which, out = args.export
        if which not in ("best", "mean") or not gen.isdigit() or int(gen) not in by_gen:
            return common.fail("walk_validate", f"--export: need a generation of the run "
                                                f"(1..{hist[-1]['generation']}) and best or mean")
        h = by_gen[int(gen)]
        x = h["x_generation_best"] if which == "best" else h["x_mean"]
        write_parameter_set(out, base, name, objective.parameter_sets(x)[name],
                            f"walk set {name!r}: generation {gen}'s {which} of the villa optimize run {args.run}",
                            robot_type=rt)
        print(f"wrote {out}: set {name!r} (generation {gen}, {which})")
        return 0

    gens = sorted({g for g in by_gen if g % args.every == 0} | {hist[-1]["generation"]})
    if desc["task"] in ("positioning", "driveBallToGoal"):
        return validate_dribble(args, desc, hist, gens, by_gen, objective, base, rt)
    if desc["task"] == "turnInPlace":
        return validate_turn(args, desc, hist, gens, by_gen, objective, base, rt)
    from villa_motion.params import load_parameter_sets

    print(f"{common.world_label(args)}: run {args.run}: task {desc['task']}, {hist[-1]['evaluations']} evaluations, "
          f"robot type {rt}; {args.runs} trials per walk (villa bench motion_course, seed {args.seed})", flush=True)
    print(HEADER)
    rows = []
    t0 = time.monotonic()
    game_sets = desc["task"] == "sprint"          # sprint is walked where the game walks it (its §10.3 rule)
    start = courses.measure_course(args, rt, load_parameter_sets(base, args.world, robot_type=rt), name,
                                   game_sets=game_sets)
    print(_row(f"start set {desc['start_set']}", None, start), flush=True)
    for g, which, x, fit in candidates(gens, by_gen):
        m = courses.measure_course(args, rt, objective.parameter_sets(x), name, game_sets=game_sets)
        rows.append((g, which, fit, m))
        print(_row(f"gen {g} {which}", fit, m), flush=True)
    ok = [r for r in rows if r[3]["ok"]]
    print(f"({len(rows)} candidates in {time.monotonic() - t0:.0f} s)")
    if not ok:
        print("no candidate walks both without a fall")
        return 0
    g, which, _, m = max(ok, key=lambda r: r[3]["speed"])
    print(f"fastest without a fall: generation {g} {which}, {m['speed']:.3f} m/s "
          f"(start set {start['speed']:.3f} m/s); export: --export {g} {which} FILE")
    return 0


def validate_start(args, base: Path) -> int:
    """Without a run: the start file's set --set on the held-out walks, per robot type (the table's first row)."""
    from villa_motion.params import load_parameter_sets

    for rt in args.robot_types:
        try:
            sets = load_parameter_sets(base, args.world, robot_type=rt)
        except (OSError, ValueError) as e:
            return common.fail("walk_validate", f"--start-params: {e}")
        if args.set not in sets:
            return common.fail("walk_validate", f"no set {args.set!r} in {base} (sets: {', '.join(sorted(sets))})")
        print(f"{common.world_label(args)}: {base.name} set {args.set}, robot type {rt}; {args.runs} trials per walk "
              f"(villa bench motion_course, seed {args.seed})", flush=True)
        print(HEADER)
        print(_row(f"start set {args.set}", None, courses.measure_course(args, rt, sets, args.set)), flush=True)
    return 0


def validate_dribble(args, desc: dict, hist: list[dict], gens: list[int], by_gen: dict, objective, base: Path,
                     rt: int) -> int:
    """A dribbling run's candidates on `villa bench dribble`'s task (held-out starts): mean ball progress and falls."""
    from villa_motion.params import load_parameter_sets

    task = desc["task"]
    trials = argparse.Namespace(**{**vars(args), "seed": args.seed + 1})
    print(f"{common.world_label(args)}: run {args.run}: task {task}, {hist[-1]['evaluations']} evaluations, robot type "
          f"{rt}; {args.runs} trials per candidate (villa bench dribble --task {task} --seed {trials.seed})",
          flush=True)
    print(f"{'candidate':<22} {'task fitness':>12} {'ball m':>7} {'min':>6} {'falls':>5}")

    def row(label, fit, res):
        prog = np.array([p for p, _ in res])
        falls = sum(f for _, f in res)
        fit_s = f"{fit:12.3f}" if fit is not None else f"{'':>12}"
        print(f"{label:<22} {fit_s} {prog.mean():7.2f} {prog.min():6.2f} {falls:>5}", flush=True)
        return float(prog.mean()), falls

    t0 = time.monotonic()
    start = row(f"start set {desc['start_set']}", None,
                courses.dribble_trials(trials, rt, task, load_parameter_sets(base, args.world, robot_type=rt),
                                       verbose=False))
    rows = []
    for g, which, x, fit in candidates(gens, by_gen):
        res = courses.dribble_trials(trials, rt, task, objective.parameter_sets(x), verbose=False)
        rows.append((g, which, *row(f"gen {g} {which}", fit, res)))
    print(f"({len(rows)} candidates in {time.monotonic() - t0:.0f} s)")
    ok = [r for r in rows if r[3] == 0]
    if not ok:
        print("no candidate dribbles without a fall")
        return 0
    g, which, prog, _ = max(ok, key=lambda r: r[2])
    print(f"best without a fall: generation {g} {which}, ball {prog:.2f} m (start set {start[0]:.2f} m); "
          f"export: --export {g} {which} FILE")
    return 0


def validate_turn(args, desc: dict, hist: list[dict], gens: list[int], by_gen: dict, objective, base: Path,
                  rt: int) -> int:
    """A turning run's candidates: `villa bench walk_turn`'s full turn each way for 5 s and courses.TURN_COURSE
    (in-place turns handing over to walks each way and to standing), --runs times each, goToTarget asking as in a
    game, so that the walk's turn set walks every in-place turn: turn rates and falls. (The goToTarget course and
    the 10 m walk turn in place nowhere: the turn set does not change them.)"""
    from villa_bench.benchmarks import walk_turn
    from villa_motion.params import load_parameter_sets

    turns = argparse.Namespace(**{**vars(args), "seconds": 5.0, "set": "goToTarget", "params": None})
    print(f"{common.world_label(args)}: run {args.run}: task turnInPlace, {hist[-1]['evaluations']} evaluations, "
          f"robot type {rt}; {args.runs} trials per turn and walk (villa bench walk_turn --set goToTarget --seconds 5 "
          f"--commands 6, its last two; courses.TURN_COURSE; seed {args.seed})", flush=True)
    print(f"{'candidate':<22} {'task fitness':>12} {'left rad/s':>10} {'right':>6} {'turn falls':>10} "
          f"{'course falls':>12}")

    def row(label, fit, sets):
        res = list(walk_turn.measure(turns, rt, walk_turn.COMMANDS[4:6], sets))
        left = np.mean([r["rate"] for r in res if r["command"][2] > 0])
        right = -np.mean([r["rate"] for r in res if r["command"][2] < 0])
        falls = sum(bool(r["fell"]) for r in res)
        m = courses.measure_course(args, rt, sets, "goToTarget", segments=courses.TURN_COURSE, forward=False)
        fit_s = f"{fit:12.3f}" if fit is not None else f"{'':>12}"
        print(f"{label:<22} {fit_s} {left:10.2f} {right:6.2f} {falls:>10} {sum(m['course_falls']):>12}  "
              f"{', '.join(sorted(set(m['where'])))}", flush=True)
        return min(left, right), falls == 0 and m["ok"]

    t0 = time.monotonic()
    start = row("start file's sets", None, load_parameter_sets(base, args.world, robot_type=rt))
    rows = []
    for g, which, x, fit in candidates(gens, by_gen):
        rows.append((g, which, *row(f"gen {g} {which}", fit, objective.parameter_sets(x))))
    print(f"({len(rows)} candidates in {time.monotonic() - t0:.0f} s)")
    ok = [r for r in rows if r[3]]
    if not ok:
        print("no candidate turns and walks without a fall")
        return 0
    g, which, rate, _ = max(ok, key=lambda r: r[2])
    print(f"fastest without a fall: generation {g} {which}, {rate:.2f} rad/s the slower way (start file's sets "
          f"{start[0]:.2f}); export: --export {g} {which} FILE")
    return 0
