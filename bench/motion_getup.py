#!/usr/bin/env python3
"""Benchmark: get-up success rate and time over N forced falls each on the back and on the front (§8).

    source scripts/env.sh && python bench/motion_getup.py [--world simspark|inprocess|sim] [--trials 20]
                                                          [--skills DIR] [--params skill_params.yaml]

Each trial falls at its own spot and heading on our half (villa_optimize.getup_objective.trial_starts): the real
SimSpark and villa sim over its socket tip the robot over with joint motions, villa sim in process lays it down;
when it lies still the side's lie skill and then the get-up skill the fall asks for run (villa_optimize's
GetupEpisode, as `villa optimize getup` scores it and the motion arbiter runs them in a game). A success is the torso
upright (up-axis z > 0.9) at standing height (> 0.3 m) 1 s after the skill. A failed get-up is tried again from
where the robot lies, up to 3 attempts (§8: "the routine is repeated").
Prints successes (at the first attempt), mean time of the successful ones (the skills' time, retries included).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from villa_motion.params import load_skill_variables
from villa_motion.skills import load_dir
from villa_nao.params import config_path, share_path
from villa_optimize.getup_objective import GetupEpisode, GetupTrial, get_up, lie_skill, trial_starts
from villa_optimize.worlds import SIMULATOR, make_world


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", choices=("inprocess", "sim", "simspark"), default="inprocess")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--robot-type", type=int, choices=range(5), default=0)
    ap.add_argument("--skills", default=None, help="skill files (default villa_motion's skills/)")
    ap.add_argument("--params", default=None, help="learned $variables (default villa_motion's skill_params.yaml)")
    ap.add_argument("--sides", default="back,front")
    a = ap.parse_args()
    skills = load_dir(a.skills or share_path("villa_motion", "skills"))
    learned = load_skill_variables(a.params or config_path("villa_motion", "skill_params.yaml"), SIMULATOR[a.world],
                                   a.robot_type)
    world = make_world(a.world, a.robot_type)
    try:
        for side in a.sides.split(","):
            rng = np.random.default_rng(0)
            ok, first, times = 0, 0, []
            for start in trial_starts(rng, a.trials):
                name = f"getup_{side}"         # a failed get-up: again from where it lies, as the accelerometer says
                first_try = GetupEpisode(GetupTrial(side, start), skills[name], learned[name],
                                         lie=lie_skill(side, skills, learned))
                tries = get_up(world, first_try, skills, learned)
                if tries[-1].success:
                    ok += 1
                    first += len(tries) == 1
                    times.append(sum(r.time for r in tries))
            print(f"{a.world}, robot type {a.robot_type}: get up from the {side:<5}: {ok}/{a.trials} succeeded "
                  f"({first} at the first attempt), mean time {np.mean(times) if times else math.nan:.2f} s",
                  flush=True)
    finally:
        world.close()


if __name__ == "__main__":
    main()
