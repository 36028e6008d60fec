"""`villa optimize`: CMA-ES on walk (and kick) parameters, candidates evaluated in parallel (UT Austin Villa 2011
report §10.3, §13.2).

    villa optimize walk --task goToTarget --generations 20 --popsize 12 --workers 2 --out runs/g2t
    villa optimize walk ... --resume          # continue an interrupted run from its last generation

Every worker steps villa sim (`--world villa`, the default) in its own process, or with `--socket` runs its own
headless `villa sim` (sync, no real-time) on free ports; `--world simspark` runs the real rcssserver3d per worker.
The best parameter set so far is written after every generation to --params-out (default <out>/walk_params.yaml)
under --set-name, with the start file's other sets, ready for the motion node's `walk_parameter_sets` parameter.
See docs/optimize.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from villa_nao.interrupt import interruptible


def _int_at_least(lo: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        return v
    return parse


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (v > 0 and v < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return v


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--generations", type=_int_at_least(1), default=20,
                   help="total CMA-ES generations (with --resume: including those already run; default 20)")
    p.add_argument("--popsize", type=_int_at_least(2), default=12, help="candidates per generation (default 12)")
    p.add_argument("--workers", type=_int_at_least(1), default=2,
                   help="worker processes, each with its own simulator (default 2)")
    p.add_argument("--out", type=Path, required=True, help="run directory: state, history, best candidate")
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    p.add_argument("--seed", type=_int_at_least(1), default=1, help="CMA-ES random seed (default 1)")
    p.add_argument("--sigma", type=_positive_float, default=0.08,
                   help="initial step size as a fraction of each parameter's range (default 0.08)")
    p.add_argument("--world", choices=("villa", "simspark"), default="villa",
                   help="villa: villa sim (default, stepped in the worker); simspark: the real rcssserver3d per "
                        "worker (installed)")
    p.add_argument("--socket", action="store_true",
                   help="villa sim as its own headless `villa sim` process per worker, over TCP (about 3x slower)")
    p.add_argument("--robot-type", type=int, choices=range(5), default=0, help="SimSpark robot type 0..4")
    p.add_argument("--holdout", type=_int_at_least(0), default=0, metavar="N",
                   help="every --holdout-every generations, evaluate CMA-ES's mean on N held-out starts (the same "
                        "ones each time, never trained on) and show it in the progress (walk tasks; default 0: off)")
    p.add_argument("--holdout-every", type=_int_at_least(1), default=5, metavar="K",
                   help="generations between held-out evaluations (default 5; the last generation always)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="target", metavar="<walk|getup|kick>")
    w = sub.add_parser("walk", help="optimize a walk parameter set on a §10.3 task",
                       description="Optimize a walk parameter set with CMA-ES on a §10.3 task.")
    from villa_optimize.tasks import TASKS

    w.add_argument("--task", default="goToTarget", help=f"one of {', '.join(TASKS)} (default goToTarget)")
    _common(w)
    w.add_argument("--start-params", type=Path, default=None,
                   help="walk parameter sets to start from (default villa_motion's config/walk_params.yaml)")
    w.add_argument("--start-set", default=None, help="set whose values CMA-ES starts from (default: the task's set, "
                                                      "goToTarget when the file has none of that name)")
    w.add_argument("--set-name", default=None, help="name of the learned set in the output (default: the task's)")
    w.add_argument("--params-out", type=Path, default=None,
                   help="YAML the learned set is written to (default <out>/walk_params.yaml)")
    w.add_argument("--space", type=Path, default=None,
                   help="parameters and bounds (default villa_optimize's config/walk_space.yaml; for the "
                        "positioning task config/positioning_space.yaml, without the stand kicks start from)")
    w.add_argument("--trials", type=_int_at_least(1), default=3,
                   help="episodes per candidate, averaged: the nominal start and trials-1 starts jittered within 5 cm "
                        "and 5 degrees (default 3)")
    w.add_argument("--jitter-all", action="store_true",
                   help="jitter every trial's start, the first too (with --trials 1: a fresh start per candidate)")
    w.add_argument("--time-limit", type=_positive_float, default=None,
                   help="stop each evaluation after this many simulated seconds of the task (default: whole task)")
    g = sub.add_parser("getup", help="optimize a get-up skill's $variables (§8) on forced falls",
                       description="Optimize a get-up skill's $variables with CMA-ES on falls the world forces.")
    g.add_argument("--skill", default="getup_back", choices=("getup_back", "getup_front"),
                   help="the skill (default getup_back)")
    _common(g)
    g.add_argument("--trials", type=_int_at_least(1), default=3, help="falls per candidate, averaged (default 3)")
    g.add_argument("--robust", action="store_true",
                   help="fitness: the mean of the worse half of the trials' scores instead of the mean (needs "
                        "--trials >= 2)")
    g.add_argument("--goal", choices=("stand", "front"), default="stand",
                   help="stand (default), or front: the skill rolls the robot onto its front, where getup_front "
                        "takes over (§8)")
    g.add_argument("--skills-dir", type=Path, default=None, help="skill files (default villa_motion's skills/)")
    g.add_argument("--start-params", type=Path, default=None,
                   help="learned $variables to start from (default villa_motion's config/skill_params.yaml)")
    g.add_argument("--params-out", type=Path, default=None,
                   help="YAML the learned values are written to, with the other skills' (default "
                        "<out>/skill_params.yaml)")
    g.add_argument("--space", type=Path, default=None,
                   help="bounds overriding the automatic ones (joint stops, waits 0.04-1.5 s)")
    try:
        from villa_optimize.kick_objective import add_kick_arguments
    except ImportError:       # the kick task needs villa_motion.kick (the §13 kick engine)
        return
    add_kick_arguments(sub, _common)


def _walk_objective(args):
    from villa_optimize.walk_objective import WalkObjective

    return WalkObjective.for_task(args.task, args.out, base_file=args.start_params, start_set=args.start_set,
                                  space=args.space, set_name=args.set_name, params_out=args.params_out,
                                  world=args.world, socket=args.socket, robot_type=args.robot_type,
                                  time_limit=args.time_limit, trials=args.trials, seed=args.seed,
                                  jitter_all=args.jitter_all)


def _getup_objective(args):
    from villa_nao.params import config_path, share_path
    from villa_optimize.getup_objective import GetupObjective

    skills = args.skills_dir or share_path("villa_motion", "skills")
    return GetupObjective(skill_name=args.skill, skills_dir=skills,
                          variables_file=args.start_params or config_path("villa_motion", "skill_params.yaml"),
                          params_out=args.params_out or args.out / "skill_params.yaml", space_file=args.space,
                          world=args.world, socket=args.socket, robot_type=args.robot_type, trials=args.trials,
                          seed=args.seed, goal=args.goal, robust=args.robust)


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa optimize", description=__doc__)
        add_arguments(parser)
        args = parser.parse_args()
    if not getattr(args, "target", None):
        print("villa optimize: say what to optimize: `villa optimize walk --help`, `villa optimize getup --help`"
              + (" or `villa optimize kick --help`" if _kick_available() else ""), file=sys.stderr)
        return 2
    from villa_optimize.runner import RunConfig, run

    try:
        if args.target == "walk":
            objective = _walk_objective(args)
        elif args.target == "getup":
            objective = _getup_objective(args)
        else:
            from villa_optimize.kick_objective import kick_objective

            objective = kick_objective(args)
        cfg = RunConfig(out_dir=args.out, generations=args.generations, popsize=args.popsize, workers=args.workers,
                        sigma0=args.sigma, seed=args.seed, resume=args.resume, holdout=args.holdout,
                        holdout_every=args.holdout_every).validate()
        if args.workers > (os.cpu_count() or 1):
            print(f"villa optimize: note: {args.workers} workers on {os.cpu_count()} cores", file=sys.stderr)
        x0 = objective.x0()
    except ValueError as e:
        print(f"villa optimize: {e}", file=sys.stderr)
        return 2
    interruptible()                                     # Ctrl-C / kill -INT / SIGTERM, also from a background start
    try:
        st = run(objective, x0, cfg, live=True)
    except ValueError as e:
        print(f"villa optimize: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"villa optimize: stopped: {e}\n  results so far are in {args.out} (continue with --resume)",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"villa optimize: interrupted; every finished generation is saved in {args.out} "
              f"(continue with --resume)", file=sys.stderr)
        return 130
    where = getattr(objective, "params_out", None)
    learned = getattr(objective, "set_name", None) or getattr(objective, "skill_name", "")
    print(f"done: {st.generation} generations, {st.evaluations} evaluations, best fitness {st.best_fitness:.4f} "
          f"(generation {st.best_generation}), {st.evals_per_hour:.0f} evaluations/hour"
          + (f"; best {learned!r} in {where}" if where else ""))
    return 0


def _kick_available() -> bool:
    try:
        import villa_optimize.kick_objective  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
