"""Get-up success rate and time over N forced falls each on the back and on the front (§8).

    villa bench motion_getup [--world villa|simspark [--socket]] [--robot-types 0] [--runs 20] [--seed 0]
        [--sides back,front] [--skills DIR] [--params skill_params.yaml]

Each trial falls at its own spot and heading on our half (villa_optimize.getup_objective.trial_starts, drawn from
--seed afresh per side and robot type): the real SimSpark and villa sim on its socket tip the robot over with joint
motions, villa sim in process lays it down; when it lies still the side's lie skill and then the get-up skill the fall
asks for run (villa_optimize's GetupEpisode, as `villa optimize getup` scores it and the motion arbiter runs them in a
game), with the world's learned $variables (skill_params.yaml and its overlay for that world). A success is the torso
upright (up-axis z > 0.9) at standing height (> 0.3 m) 1 s after the skill. A failed get-up is tried again from
where the robot lies, up to 3 attempts (§8: "the routine is repeated").
Prints per robot type and side the successes (and those at the first attempt) and the mean time of the successful
ones (the skills' time, retries included).
"""

from __future__ import annotations

import math

import numpy as np

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 30 s on villa sim in process (20 falls per side; measured under load), about 1.5 min on "
            "SimSpark (estimated from one fall per side)")
SMOKE = ["--runs", "1", "--sides", "back"]
SIDES = ("back", "front")


def sides_arg(text: str) -> list[str]:
    import argparse

    sides = [s.strip() for s in text.split(",") if s.strip()]
    if not sides or any(s not in SIDES for s in sides):
        raise argparse.ArgumentTypeError(f"sides are back and front, comma-separated, not {text!r}")
    return sides


def add_arguments(ap) -> None:
    common.add_common(ap, runs=20, what="falls per side and robot type", seed=0)
    ap.add_argument("--sides", type=sides_arg, default=list(SIDES), help="back, front or both (default back,front)")
    ap.add_argument("--skills", default=None, help="skill files (default villa_motion's skills/)")
    ap.add_argument("--params", default=None, help="learned $variables (default villa_motion's skill_params.yaml)")


def run(args) -> int:
    from villa_motion.params import load_skill_variables
    from villa_motion.skills import load_dir
    from villa_nao.params import config_path, share_path
    from villa_optimize.getup_objective import GetupEpisode, GetupTrial, get_up, lie_skill, trial_starts

    try:
        skills = load_dir(args.skills or share_path("villa_motion", "skills"))
    except (OSError, ValueError) as e:
        return common.fail("motion_getup", f"--skills: {e}")
    for rt in args.robot_types:
        try:
            learned = load_skill_variables(args.params or config_path("villa_motion", "skill_params.yaml"),
                                           args.world, rt)
        except (OSError, ValueError) as e:
            return common.fail("motion_getup", f"--params: {e}")
        print(f"{common.world_label(args)}: robot type {rt}, {args.runs} falls per side (seed {args.seed}), "
              f"skills {args.skills or 'shipped'}, $variables {args.params or 'shipped'}", flush=True)
        world = common.make_world(args, rt)
        try:
            for side in args.sides:
                rng = np.random.default_rng(args.seed)
                ok, first, times = 0, 0, []
                for start in trial_starts(rng, args.runs):
                    name = f"getup_{side}"     # a failed get-up: again from where it lies, as the accelerometer says
                    first_try = GetupEpisode(GetupTrial(side, start), skills[name], learned[name],
                                             lie=lie_skill(side, skills, learned))
                    tries = get_up(world, first_try, skills, learned)
                    if tries[-1].success:
                        ok += 1
                        first += len(tries) == 1
                        times.append(sum(r.time for r in tries))
                print(f"{args.world}, robot type {rt}: get up from the {side:<5}: {ok}/{args.runs} succeeded "
                      f"({first} at the first attempt), mean time {np.mean(times) if times else math.nan:.2f} s",
                      flush=True)
        finally:
            world.close()
    return 0
