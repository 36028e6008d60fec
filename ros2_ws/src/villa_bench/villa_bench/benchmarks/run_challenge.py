"""The run challenge (magmaChallenge's run benchmark protocol) per robot type: the §10.3 sprint's speed.

On villa sim or the real SimSpark.

    villa bench run_challenge [--world villa|simspark [--socket]] [--robot-types 0,1,2,3,4] [--runs 3] [--seed 0]
        [--time-limit 20] [--params FILE]

The protocol, as magmaChallenge's referee scores it: the robot starts at (-13.5, 0) facing the opponent goal; the clock
starts when it crosses x = -13.0 or 4 s after the start, whichever is first; the run ends after --time-limit s, at
x >= 14.5 or at a fall. Its speed is (end x - start line) / time, with 2 m taken off the end x after a fall (never
below the start line); its off-ground share is the fraction of timed cycles with neither foot touching the ground.
Score = speed + off-ground share. Prints per run the score, speed, off-ground share, end x and heading change, and per
robot type the mean score and speed and the falls.

The player runs with the game's walk: the motion arbiter on the §10.3 sets (`behaviours.go_to` toward (15, 0): sprint
within 15° of the target, goToTarget otherwise), steered on the ground-truth pose (a player that knows where it is;
the walk, not localization, is measured), with the walk sets of villa_motion's file (or --params) for each robot
type. Run i starts from seed S + i: seed 0 at the nominal pose, the others within 5 cm and 5° of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from villa_bench import common, courses

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 6 s per robot type on villa sim in process, about 25 s on SimSpark (3 runs; SimSpark "
            "estimated from a 3 s run)")
SMOKE = ["--runs", "1", "--time-limit", "2"]

START_X = -13.5            # m, the beam spot
START_LINE = START_X + 0.5  # m: the clock starts when the torso crosses it ...
START_WAIT = 4.0           # s: ... or this long after the start
FINISH_X = 14.5            # m
FALL_PENALTY = 2.0         # m taken off the end x after a fall
TARGET = (15.0, 0.0)       # where the runner heads
STAND = 0.5                # s standing after the placement before running


@dataclass
class RunResult:
    speed: float          # m/s as scored (fall penalty included)
    off_ground: float     # share of timed cycles with both feet off the ground
    time: float           # s timed
    end_x: float          # m, the torso's x at the end (before the penalty)
    fell: bool
    heading_change: float  # deg, the torso's heading at the end relative to the start (wrapped)

    @property
    def score(self) -> float:
        return self.speed + self.off_ground


class Run:
    """One run-challenge episode for a villa_optimize world (see the module docstring)."""

    def __init__(self, start, engine, body, time_limit: float) -> None:
        self.task = courses.Start(start, STAND + START_WAIT + time_limit + 1.0)
        self.w, self.body, self.time_limit = engine, body, time_limit
        self.t0: float | None = None
        self.t_last = 0.0
        self.clock: float | None = None       # sim time the timing started
        self.cycles = self.airborne = 0
        self.done = False
        self.fell = False
        self.end: tuple[float, float] | None = None   # (x, timed s)
        self.yaw0: float | None = None
        self.yaw_end = 0.0

    def step(self, o) -> dict[str, float]:
        from villa_motion import arbiter as A
        from villa_optimize.tasks import motion_cycle
        from villa_strategy import behaviours as B

        if self.t0 is None:
            self.t0 = o.t
        self.t_last = o.t
        t = o.t - self.t0
        if self.done or t < STAND:
            self.w.walk_request(A.WalkRequest(A.WALK_STAND))
            return motion_cycle(self.w, o).targets
        if self.yaw0 is None:
            self.yaw0 = o.yaw
        self.yaw_end = o.yaw
        if self.clock is None and (o.x > START_LINE or t - STAND > START_WAIT):
            self.clock = o.t
        if self.clock is not None:
            timed = o.t - self.clock
            self.cycles += 1
            self.airborne += int(o.feet is not None and not any(o.feet))
            fallen = o.upright < 0.5
            if fallen or o.x >= FINISH_X or timed >= self.time_limit:
                self.done, self.fell, self.end = True, fallen, (o.x, timed)
        order = B.go_to((o.x, o.y), o.yaw, TARGET, body=self.body, arrive=0.0)
        self.w.walk_request(A.WalkRequest(A.WALK_NORMALIZED, order.x, order.y, order.theta, order.parameter_set))
        return motion_cycle(self.w, o).targets

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.task.duration() + 2.0

    def result(self) -> RunResult:
        if self.end is None:
            raise RuntimeError("the run did not finish (the world timed out)")
        x, timed = self.end
        scored_x = max(START_LINE, x - (FALL_PENALTY if self.fell else 0.0))
        speed = (scored_x - START_LINE) / timed if timed > 0 else 0.0
        heading = math.degrees(math.remainder(self.yaw_end - (self.yaw0 or 0.0), 2 * math.pi))
        return RunResult(speed, self.airborne / max(self.cycles, 1), timed, x, self.fell, heading)


def measure(args, robot_type: int) -> list[RunResult]:
    """args.runs runs of robot type `robot_type` in the world of `args` (the worlds return each episode's result())
    with the walk sets of args.params (default villa_motion's file) for this robot type."""
    from villa_strategy import behaviours as B

    w = common.make_world(args, robot_type)
    out = []
    try:
        for run in range(args.runs):
            engine = courses.walk_engine(robot_type, args.world, params=args.params)
            body = B.Body.from_walk_sets(engine.walk.sets, robot_type)
            x, y, th = courses.start_pose(START_X, args.seed + run)
            out.append(w.run_episode(Run((x, y, th), engine, body, args.time_limit)))
            r = out[-1]
            print(f"  type {robot_type} run {run}: score {r.score:.3f} = speed {r.speed:.3f} m/s + off-ground "
                  f"{r.off_ground:.3f}; x {r.end_x:+.2f} after {r.time:.1f} s, heading {r.heading_change:+.0f} deg"
                  + (" FELL" if r.fell else ""), flush=True)
    finally:
        w.close()
    return out


def add_arguments(ap) -> None:
    common.add_common(ap, runs=3, what="runs per robot type", seed=0)
    ap.add_argument("--time-limit", type=common.positive_float, default=20.0,
                    help="s per run once timing started (default 20)")
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")


def run(args) -> int:
    if args.params:
        from villa_motion.params import load_parameter_sets

        try:
            for rt in args.robot_types:      # the file loads for every type asked (its robot_types layer included)
                load_parameter_sets(args.params, args.world, robot_type=rt)
        except (OSError, ValueError) as e:
            return common.fail("run_challenge", f"--params: {e}")
    print(f"{common.world_label(args)}: run challenge, robot types {','.join(map(str, args.robot_types))}, "
          f"{args.runs} runs per robot type (seed {args.seed}), {args.time_limit:g} s limit, walk sets "
          f"{args.params or 'shipped'}", flush=True)
    for rt in args.robot_types:
        res = measure(args, rt)
        print(f"  type {rt}: mean score {np.mean([r.score for r in res]):.3f}, speed "
              f"{np.mean([r.speed for r in res]):.3f} m/s, falls {sum(r.fell for r in res)} of {len(res)}", flush=True)
    return 0
