"""From a fall back to walking through the game's chain (§8), as a game sees the get-up skills.

Perception's fall state from the accelerometer, the motion arbiter's lie skill, get-up, hold, stand, then walk
commands, as in a game.

    villa bench motion_recover [--world villa|simspark [--socket]] [--robot-types 0] [--runs 20] [--seed 0]
        [--timeout 30] [--folded S]

Each trial lays the robot on its back or front (alternating; villa_optimize's forced falls at the spots of `villa
bench motion_getup`, drawn from --seed) and then runs the game's motion with a walk command toward a point 2 m away the
whole time (the arbiter ignores it until the robot stands). A trial recovers when the torso has been upright (up-axis
z > 0.9) for 2 s with the arbiter walking; it fails after --timeout s. Prints per trial the seconds to recover and the
falls in between (a get-up that stood up and fell again counts one), then per robot type the mean, the worst and the
failures. Where `villa bench motion_getup` scores the get-up skills alone, this is what a game sees of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 40 s on villa sim in process (20 trials; measured under load), about 1.5 min on SimSpark "
            "(estimated from 2 trials)")
SMOKE = ["--runs", "1"]

UPRIGHT = 0.9           # torso up-axis z of a robot that stands
DOWN = 0.5              # ... and of one that lies (a new fall once it stood)
STAND_FOR = 2.0         # s upright and walking: recovered


@dataclass(frozen=True)
class Fall:
    """A world task: the robot lies on `lying` at `start` when the episode begins."""

    lying: str
    start: tuple[float, float, float]
    seconds: float
    ball = None

    def placement(self) -> tuple[float, float, float]:
        return self.start

    def duration(self) -> float:
        return self.seconds


class Recover:
    """The game's chain from lying to walking, one trial (module docstring)."""

    def __init__(self, task: Fall, robot_type: int, world: str, folded: float = 0.0) -> None:
        from villa_motion import arbiter as A
        from villa_perception.stage import PerceptionParams, PerceptionStage

        self.task = task
        self.folded = folded
        self.motion = A.MotionArbiter(A.shipped_config(robot_type, world))
        self.perception = PerceptionStage(PerceptionParams())
        self.t0: float | None = None
        self.t_last = 0.0
        self.stood_since: float | None = None
        self.was_up = False
        self.falls = 0
        self.recovered: float | None = None
        self.done = False

    def step(self, o) -> dict[str, float]:
        from villa_motion import arbiter as A
        from villa_optimize.tasks import motion_cycle

        if self.t0 is None:
            self.t0 = o.t
        self.t_last = o.t
        if o.acc is not None:
            state, _ = self.perception.imu(o.t, o.acc)
            # --folded: "falling" for that long, so the robot lies in the walk's stand crouch first
            self.motion.fall(A.FALLING if o.t - self.t0 < self.folded else state)
        self.motion.walk_request(A.WalkRequest(A.WALK_NORMALIZED, 1.0, 0.3, 0.2, "goToTarget"))
        out = motion_cycle(self.motion, o)
        up = o.upright > UPRIGHT
        if o.upright < DOWN and self.was_up:
            self.falls += 1
        self.was_up = (self.was_up or up) and o.upright >= DOWN
        walking = out.mode == A.Mode.WALK and self.motion.walk.walking
        self.stood_since = (self.stood_since if self.stood_since is not None else o.t) if up and walking else None
        if self.stood_since is not None and o.t - self.stood_since >= STAND_FOR - 1e-9:
            self.recovered, self.done = self.stood_since - self.t0, True
        return out.targets

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.task.seconds

    def result(self):
        return self



def add_arguments(ap) -> None:
    common.add_common(ap, runs=20, what="trials per robot type (falls on the back and the front, alternating)", seed=0)
    ap.add_argument("--timeout", type=common.positive_float, default=30.0,
                    help="s a trial may take before it counts as a failure (default 30)")
    ap.add_argument("--folded", type=common.non_negative_float, default=0.0,
                    help="s the robot lies in the walk's stand crouch before the chain starts (as after a failed "
                         "get-up; default 0: from the forced fall's pose)")


def run(args) -> int:
    from villa_optimize.getup_objective import trial_starts

    for rt in args.robot_types:
        print(f"{common.world_label(args)}: robot type {rt}, {args.runs} trials (seed {args.seed}), timeout "
              f"{args.timeout:g} s, folded {args.folded:g} s", flush=True)
        world = common.make_world(args, rt)
        times, falls, failed = [], [], 0
        try:
            for i, start in enumerate(trial_starts(np.random.default_rng(args.seed), args.runs)):
                side = ("back", "front")[i % 2]
                r = world.run_episode(Recover(Fall(side, start, args.timeout), rt, args.world, args.folded))
                falls.append(r.falls)
                if r.recovered is None:
                    failed += 1
                    print(f"  trial {i:2d} ({side:5}): not walking after {args.timeout:.0f} s, {r.falls} falls in "
                          f"between", flush=True)
                else:
                    times.append(r.recovered)
                    print(f"  trial {i:2d} ({side:5}): walking after {r.recovered:5.1f} s, {r.falls} falls in between",
                          flush=True)
        finally:
            world.close()
        worst = max(times) if times else math.nan
        print(f"{args.world}, robot type {rt}: {args.runs - failed}/{args.runs} walking again, mean "
              f"{np.mean(times) if times else math.nan:.1f} s, worst {worst:.1f} s; falls in between {sum(falls)} "
              f"({sum(f > 0 for f in falls)} trials)", flush=True)
    return 0
