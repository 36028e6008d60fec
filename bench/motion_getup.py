#!/usr/bin/env python3
"""Benchmark: get-up success rate and time over N forced falls each on the back and on the front (§8).

    source scripts/env.sh && python bench/motion_getup.py [--trials 20]

In-process villa simulation. Each trial lays the Nao down (different spot and heading, then lets it settle),
plays the get-up skill the accelerometer picks (getup_back when it reads "up" along +x, getup_front along -x) and
counts a success when the torso stands upright (up-axis z > 0.9, height > 0.3 m) 1 s after the skill ended.
Unsuccessful get-ups are repeated (§8), up to 3 attempts.
"""

from __future__ import annotations

import argparse

import numpy as np

from villa_motion.params import load_skill_variables
from villa_motion.skills import SkillPlayer, load_dir
from villa_nao.params import config_path, share_path
from villa_sim.inprocess import InProcessNao


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    args = ap.parse_args()
    skills = load_dir(share_path("villa_motion", "skills"))
    learned = load_skill_variables(config_path("villa_motion", "skill_params.yaml"))
    rng = np.random.default_rng(0)
    for face_up in (True, False):
        ok, first, times = 0, 0, []
        for trial in range(args.trials):
            nao = InProcessNao(seed=trial)
            nao.lay(face_up, x=rng.uniform(-10, 10), y=rng.uniform(-8, 8))
            nao.step(int(rng.integers(15, 40)))
            t = 0.0
            for attempt in range(3):
                name = "getup_back" if nao.accelerometer()[0] > 0 else "getup_front"
                p = SkillPlayer(skills[name], nao.joint_angles(), learned[name])
                while not p.done:
                    nao.command(p.update(0.02))
                    nao.step()
                    t += 0.02
                nao.step(50)
                pos, _, up = nao.torso_pose()
                if up > 0.9 and pos[2] > 0.3:
                    ok += 1
                    first += attempt == 0
                    times.append(t)
                    break
                t += 1.0
        label = "back " if face_up else "front"
        print(f"get up from the {label}: {ok}/{args.trials} succeeded ({first} at the first attempt), "
              f"mean time {np.mean(times) if times else float('nan'):.2f} s (skill time, retries included)")


if __name__ == "__main__":
    main()
