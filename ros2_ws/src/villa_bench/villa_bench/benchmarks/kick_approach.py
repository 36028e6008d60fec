"""Kick figures with the approach (UT Austin Villa 2011 report §13.1.1, §13.2): the optimizer's kick task, per kick.

Per kick: the §13.2 starts (villa_optimize.kick_objective.approach_trials: --runs poses on a half circle 1 m around
the ball, facing it), the game's approach (villa_strategy.behaviours.kick_approach), the stop, the kick from standing
and 4 s of rolling, on villa sim (ground truth, no vision noise) or the real SimSpark, one simulation per kick. Prints
per robot type and kick the outcomes, the ball's travel (mean, std, m) and its direction error against the direction
to the target (mean, std, degrees) over the kicked attempts, the time from the approach's start to the kick, and the
§13.2 fitness (mean score: progress toward the target, -1 per fall, ball run into or timeout).

    villa bench kick_approach [--world villa|simspark [--socket]] [--robot-types 0] [--runs 10] [--set tuned]
        [--kicks forward_L,side_R]
    villa bench kick_approach --params runs/kick/kick_params.yaml --set optimized --kicks forward_L
    villa bench kick_approach --walk-params runs/pos/walk_params.yaml      # a learned positioning set's approach

--params: a kick parameter YAML (e.g. written by `villa optimize kick`); its sets may inherit from the shipped
config/kick_params.yaml's. --seed seeds the world (villa sim's noise).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import numpy as np

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 2 min on villa sim in process (7 left-foot kicks x 10 approaches; measured under load), "
            "about 5 min on SimSpark (estimated from one approach)")
SMOKE = ["--runs", "1", "--kicks", "forward_L"]


def load_kicks(set_name: str, params: str | None, robot_type: int = 0, world: str = "villa"):
    """The kicks with `set_name` of `params` applied, whose sets may inherit from the shipped file's."""
    import yaml

    from villa_motion import kick as KK
    from villa_nao.params import config_path, read_yaml

    if not params:
        return KK.load_kick_set(set_name, simulator=world, robot_type=robot_type)
    shipped = read_yaml(config_path("villa_motion", "kick_params.yaml"), "the kick parameter sets", KK.KickError)
    extra = read_yaml(params, "the kick parameter sets", KK.KickError) or {}
    with tempfile.TemporaryDirectory() as d:
        merged = Path(d) / "kick_params.yaml"
        merged.write_text(yaml.safe_dump({"sets": {**shipped["sets"], **(extra.get("sets") or {})},
                                          "robot_types": {**(shipped.get("robot_types") or {}),
                                                          **(extra.get("robot_types") or {})}}))
        return KK.load_kick_set(set_name, params_path=merged, simulator=world, robot_type=robot_type)


def add_arguments(ap) -> None:
    common.add_common(ap, runs=10, what="approaches per kick and robot type")
    ap.add_argument("--set", default="tuned", help="kick parameter set (default tuned)")
    ap.add_argument("--params", default=None, help="kick parameter YAML with --set in it (default: the shipped one)")
    ap.add_argument("--kicks", default="", help="comma-separated kick names (default: every left-foot kick)")
    ap.add_argument("--walk-params", default=None,
                    help="walk parameter sets the approach walks (default villa_motion's walk_params.yaml)")
    ap.add_argument("--spread", type=float, default=0.0,
                    help="rad either side of the target's direction the kick may go (the game's kick_spread; "
                         "default 0: exactly at the target, as the §13.2 task)")


def run(args) -> int:
    from villa_motion.kick import KickError
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path
    from villa_optimize.kick_objective import KickEpisode, approach_trials

    for rt in args.robot_types:
        try:
            kicks = load_kicks(args.set, args.params, rt, args.world)
            walk_sets = load_parameter_sets(args.walk_params or config_path("villa_motion", "walk_params.yaml"),
                                            args.world, robot_type=rt)
        except (OSError, ValueError, KickError) as e:
            return common.fail("kick_approach", str(e))
        names = args.kicks.split(",") if args.kicks else sorted(k for k in kicks if k.endswith("_L"))
        unknown = [n for n in names if n not in kicks]
        if unknown:
            return common.fail("kick_approach", f"unknown kicks {', '.join(unknown)}; have {', '.join(sorted(kicks))}")
        print(f"{common.world_label(args)}: robot type {rt}, kick set {args.set}"
              f"{' of ' + args.params if args.params else ''}, {args.runs} approaches per kick (half circle 1 m "
              f"around the ball), window +-{math.degrees(args.spread):.0f} deg", flush=True)
        print(f"{'kick':<10} {'kicked':>6} {'fell':>4} {'ran':>3} {'t/o':>3} {'dist':>5} {'std':>4} {'dir err':>7} "
              f"{'std':>5} {'t kick':>6} {'fitness':>7}")
        t0 = time.time()
        for name in names:
            world = common.make_world(args, rt)
            try:
                res = [world.run_episode(KickEpisode(t, kicks[name], walk_sets, rt, args.spread,
                                                     simulator=args.world))
                       for t in approach_trials(kicks[name], args.runs)]
            finally:
                world.close()
            kicked = [r for r in res if r.outcome == "kicked"]
            count = {o: sum(r.outcome == o for r in res) for o in ("kicked", "fell", "ran_into_ball", "timeout")}
            d = np.array([r.distance for r in kicked]) if kicked else np.full(1, math.nan)
            e = np.degrees([r.direction_error for r in kicked]) if kicked else np.full(1, math.nan)
            tk = np.mean([r.time_to_kick for r in kicked]) if kicked else math.nan
            print(f"{name:<10} {count['kicked']:>6} {count['fell']:>4} {count['ran_into_ball']:>3} "
                  f"{count['timeout']:>3} {d.mean():5.2f} {d.std():4.2f} {e.mean():7.1f} {e.std():5.1f} {tk:6.1f} "
                  f"{np.mean([r.score for r in res]):7.2f}", flush=True)
        print(f"({time.time() - t0:.0f} s wall; direction error: degrees, + = left of the target; t kick: s from the "
              f"approach's start to the kick's start)")
    return 0
