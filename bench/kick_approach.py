"""Kick figures with the approach (UT Austin Villa 2011 report §13.1.1, §13.2): the optimizer's kick task, per kick.

Per kick: the §13.2 starts (villa_optimize.kick_objective.approach_trials: 10 poses on a half circle 1 m around the
ball, facing it), the game's approach (villa_strategy.behaviours.kick_approach), the stop, the kick from standing and
4 s... of rolling, in the in-process villa simulation (ground truth, no vision noise), one simulation per kick. Prints
per kick the outcomes, the ball's travel (mean, std, m) and its direction error against the direction to the target
(mean, std, degrees) over the kicked attempts, the time from the approach's start to the kick, and the §13.2 fitness
(mean score: progress toward the target, -1 per fall, ball run into or timeout).

    python bench/kick_approach.py [--set tuned] [--kicks forward_L,side_R] [--attempts 10]
    python bench/kick_approach.py --params runs/kick/kick_params.yaml --set optimized --kicks forward_L
    python bench/kick_approach.py --walk-params runs/pos/walk_params.yaml     # a learned positioning set's approach

--params: a kick parameter YAML (e.g. written by `villa optimize kick`); its sets may inherit from the shipped
config/kick_params.yaml's.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path, read_yaml
from villa_optimize.kick_objective import KickEpisode, approach_trials
from villa_optimize.worlds import InProcessWorld


def load_kicks(set_name: str, params: str | None, robot_type: int = 0) -> dict[str, KK.KickDef]:
    """The kicks with `set_name` of `params` applied, whose sets may inherit from the shipped file's."""
    if not params:
        return KK.load_kick_set(set_name, robot_type=robot_type)
    shipped = read_yaml(config_path("villa_motion", "kick_params.yaml"), "the kick parameter sets", KK.KickError)
    extra = read_yaml(params, "the kick parameter sets", KK.KickError) or {}
    with tempfile.TemporaryDirectory() as d:
        merged = Path(d) / "kick_params.yaml"
        merged.write_text(yaml.safe_dump({"sets": {**shipped["sets"], **(extra.get("sets") or {})},
                                          "robot_types": {**(shipped.get("robot_types") or {}),
                                                          **(extra.get("robot_types") or {})}}))
        return KK.load_kick_set(set_name, params_path=merged, robot_type=robot_type)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="tuned", help="kick parameter set (default tuned)")
    ap.add_argument("--params", default=None, help="kick parameter YAML with --set in it (default: the shipped one)")
    ap.add_argument("--kicks", default="", help="comma-separated kick names (default: every left-foot kick)")
    ap.add_argument("--attempts", type=int, default=10)
    ap.add_argument("--robot-type", type=int, default=0)
    ap.add_argument("--walk-params", default=None,
                    help="walk parameter sets the approach walks (default villa_motion's walk_params.yaml)")
    ap.add_argument("--spread", type=float, default=0.0,
                    help="rad either side of the target's direction the kick may go (the game's kick_spread; "
                         "default 0: exactly at the target, as the §13.2 task)")
    a = ap.parse_args()
    kicks = load_kicks(a.set, a.params, a.robot_type)
    names = a.kicks.split(",") if a.kicks else sorted(k for k in kicks if k.endswith("_L"))
    unknown = [n for n in names if n not in kicks]
    if unknown:
        raise SystemExit(f"unknown kicks {', '.join(unknown)}; have {', '.join(sorted(kicks))}")
    walk_sets = load_parameter_sets(a.walk_params or config_path("villa_motion", "walk_params.yaml"),
                                    robot_type=a.robot_type)
    print(f"kick set {a.set}{' of ' + a.params if a.params else ''}, {a.attempts} approaches per kick "
          f"(half circle 1 m around the ball), robot type {a.robot_type}, "
          f"window +-{math.degrees(a.spread):.0f} deg")
    print(f"{'kick':<10} {'kicked':>6} {'fell':>4} {'ran':>3} {'t/o':>3} {'dist':>5} {'std':>4} {'dir err':>7} "
          f"{'std':>5} {'t kick':>6} {'fitness':>7}")
    t0 = time.time()
    for name in names:
        world = InProcessWorld(a.robot_type, seed=1)
        res = [world.run_episode(KickEpisode(t, kicks[name], walk_sets, a.robot_type, a.spread))
               for t in approach_trials(kicks[name], a.attempts)]
        kicked = [r for r in res if r.outcome == "kicked"]
        count = {o: sum(r.outcome == o for r in res) for o in ("kicked", "fell", "ran_into_ball", "timeout")}
        d = np.array([r.distance for r in kicked]) if kicked else np.full(1, math.nan)
        e = np.degrees([r.direction_error for r in kicked]) if kicked else np.full(1, math.nan)
        tk = np.mean([r.time_to_kick for r in kicked]) if kicked else math.nan
        print(f"{name:<10} {count['kicked']:>6} {count['fell']:>4} {count['ran_into_ball']:>3} {count['timeout']:>3} "
              f"{d.mean():5.2f} {d.std():4.2f} {e.mean():7.1f} {e.std():5.1f} {tk:6.1f} "
              f"{np.mean([r.score for r in res]):7.2f}", flush=True)
        world.close()
    print(f"({time.time() - t0:.0f} s wall; direction error: degrees, + = left of the target; t kick: s from the "
          f"approach's start to the kick's start)")


if __name__ == "__main__":
    main()
