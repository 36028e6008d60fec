#!/usr/bin/env python3
"""Benchmark: the walk on 10 m forward and on a goToTarget course of the §10.3 trajectory kinds through the game's
motion arbiter (the head scans as in a game), on villa sim (in process by default) or the real SimSpark (vision
irrelevant here: the course is open loop, the ground truth scores).

    source scripts/env.sh && python bench/motion_course.py [--world inprocess|sim|simspark] [--robot-type 0]
                                                           [--runs 3] [--params FILE --set NAME | --game-sets]

--params/--set evaluate another walk parameter set (e.g. one written by `villa optimize walk`); default: villa_motion's
config/walk_params.yaml, set goToTarget. --game-sets walks each command in the set the game's §10.3 rule would pick
(sprint straight ahead, goToTarget otherwise): how a learned sprint set is checked.

The 10 m walk also reports how often the leg pitch joints (hips, knees, ankles) run at their speed limit after its
first 2 s (a joint's sensed speed within 5 % of the limit) and how far they lag the walk's targets: where the walk asks
for more than the motors give, the feet do not go where the engine puts them.

Course (Figure 4 kinds): long walks forward / backward / left / right, a curve, quick direction changes, stop-and-go,
a spiral. Each segment is a command held for a time (MoveOptPhase / StopOptPhase of §10.4.2); the robot turns toward
waypoints for the curve and spiral. Prints forward speed (m/s) and falls per course. The simulation is deterministic:
run 0 starts at the nominal pose, every further run within 5 cm and 5° of it (its seed), so runs are distinct trials.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, replace

import numpy as np

from villa_motion import arbiter as A
from villa_motion.params import load_parameter_sets, walk_sets_path
from villa_nao.joints import joints_for_type
from villa_optimize.tasks import motion_cycle, start_jitter
from villa_optimize.worlds import make_world
from villa_strategy import behaviours as B

COURSE = [  # (name, seconds, command(t) -> (x, y, theta) normalized, or None = stop)
    ("long forward", 6.0, lambda t: (1, 0, 0)),
    ("stop", 1.5, None),
    ("long backward", 4.0, lambda t: (-1, 0, 0)),
    ("long left", 4.0, lambda t: (0, 1, 0)),
    ("long right", 4.0, lambda t: (0, -1, 0)),
    ("curve", 5.0, lambda t: (1, 0, 0.4)),
    ("quick direction changes", 4.0,
     lambda t: ((1, 0.5, 0), (-1, -0.5, 0), (0.3, 1, 0), (0.3, -1, 0))[int(t / 0.5) % 4]),
    ("stop and go", 4.0, lambda t: (1, 0, 0) if int(t / 1.0) % 2 == 0 else None),
    ("weave 45 deg", 4.0, lambda t: (1, 0.7 if int(t / 1.0) % 2 else -0.7, 0)),
    ("spiral clockwise", 5.0, lambda t: (1, 0, -max(0.2, 1 - t / 5))),
    ("spiral counter-clockwise", 5.0, lambda t: (1, 0, max(0.2, 1 - t / 5))),
    ("stop", 2.0, None),
]


PARAMS = {"file": None, "set": "goToTarget"}


def walk_engine(rt: int, sets=None, name: str | None = None, world: str = "inprocess") -> A.MotionArbiter:
    """The game's motion arbiter with walk sets `sets` (default: PARAMS' file, villa_motion's walk_params.yaml, with
    the overlays of `world`'s simulator, as a player there loads them) on set `name` (PARAMS'), the head scanning as
    in a game."""
    simulator = "simspark" if world == "simspark" else "rcssservermj"
    if sets is None:
        sets = load_parameter_sets(walk_sets_path(PARAMS["file"] or ""), simulator, rt)
    return A.MotionArbiter(replace(A.shipped_config(rt, simulator), walk_sets=sets, walk_set=name or PARAMS["set"]))


def start_pose(x: float, seed: int) -> tuple[float, float, float]:
    """Run `seed`'s start pose: run 0 starts exactly at (x, 0, 0); the others within 5 cm and 5° of it, since the
    simulation is deterministic and identical starts would repeat one trial."""
    if seed == 0:
        return x, 0.0, 0.0
    dx, dy, dth = start_jitter(np.random.default_rng(seed))
    return x + dx, dy, dth


@dataclass(frozen=True)
class Start:
    """A world task: where the robot starts (villa_optimize.worlds)."""

    start: tuple[float, float, float]
    seconds: float
    ball = None
    lying = None

    def placement(self) -> tuple[float, float, float]:
        return self.start

    def duration(self) -> float:
        return self.seconds


class Walk:
    """Stand 0.5 s, then follow `segments` [(name, seconds, command(t) or None)] with the walk engine (the course),
    or with `distance` walk (1, 0, 0) until the torso is that far from where it started. Ends at the first fall."""

    def __init__(self, start, engine: A.MotionArbiter, segments=None, distance: float | None = None,
                 game_sets: bool = False, max_speed: dict[str, float] | None = None) -> None:
        self.game_sets = game_sets
        self.max_speed = max_speed or {}      # leg pitch joints' speed limits (rad/s): the saturation figures
        self.at_limit: list[float] = []       # per cycle, the share of those joints at their limit
        self.lag: list[float] = []            # per cycle, their mean |target of the cycle before - sensed| (rad)
        self._before = None                   # (time, sensed joints, targets) of the cycle before
        self.segments = segments or [("forward", 60.0, lambda t: (1, 0, 0))]
        self.distance = distance
        self.task = Start(start, 0.5 + sum(s for _, s, _ in self.segments))
        self.w = engine
        self.t0: float | None = None
        self.t_last = 0.0
        self.origin = None
        self.done = False
        self.fell_in: str | None = None
        self.speed: float | None = None
        self.heading: float | None = None     # rad the heading changed from the start of walking to the end
        self.track: list[tuple[float, float, float]] = []   # (t, x, y) while walking
        self.to_half: float | None = None     # s from the first walk command to 0.5 m/s (over the last 0.4 s)

    def step(self, o) -> dict[str, float]:
        if self.t0 is None:
            self.t0 = o.t
        self.t_last = o.t
        t = o.t - self.t0 - 0.5
        if o.upright < 0.5 and not self.done:
            self.fell_in, self.done = self._segment(t)[0] if t >= 0 else "stand", True
        if t < 0 or self.done:
            self.w.walk_request(A.WalkRequest(A.WALK_STAND))
        else:
            if self.origin is None:
                self.origin = (o.x, o.y, t, o.yaw)
            self._accelerating(t, o)
            name, local, cmd = self._segment(t)
            c = cmd(local) if cmd is not None else None
            self.w.walk_request(A.WalkRequest(A.WALK_STAND) if c is None else
                                A.WalkRequest(A.WALK_NORMALIZED, *c, parameter_set=self._set(c)))
            if self.distance is not None and math.hypot(o.x - self.origin[0], o.y - self.origin[1]) >= self.distance:
                self.speed, self.done = self.distance / (t - self.origin[2]), True
                self.heading = math.remainder(o.yaw - self.origin[3], 2 * math.pi)
            elif t >= sum(s for _, s, _ in self.segments):
                self.done = True
        targets = motion_cycle(self.w, o).targets
        self._saturation(t, o, targets)
        return targets

    def _saturation(self, t: float, o, targets) -> None:
        if (self.distance is not None and not self.done and self.origin is not None and self._before is not None
                and t - self.origin[2] >= 2.0):
            t_before, joints, before = self._before
            names = [n for n in self.max_speed if n in o.joints and n in joints and n in before]
            if names and o.t > t_before:
                speed = np.array([abs(o.joints[n] - joints[n]) / (o.t - t_before) for n in names])
                self.at_limit.append(float(np.mean(speed >= 0.95 * np.array([self.max_speed[n] for n in names]))))
                self.lag.append(float(np.mean([abs(before[n] - o.joints[n]) for n in names])))
        self._before = (o.t, dict(o.joints), dict(targets))

    def _set(self, c) -> str:
        """With game_sets, the set the game's §10.3 rule walks command c with: sprint straight ahead (within 15°,
        hardly turning: a target within 15° turns the game's walk by at most 15/180), goToTarget otherwise; without,
        the engine's set ("")."""
        if not self.game_sets:
            return ""
        if c[0] > 0 and abs(c[2]) <= 0.1:
            return B.walk_set(math.atan2(c[1], c[0]), math.inf)
        return "goToTarget"

    def _accelerating(self, t: float, o) -> None:
        if self.to_half is not None or self.distance is None:
            return
        self.track.append((t, o.x, o.y))
        back = [p for p in self.track if p[0] <= t - 0.4]
        if back and math.dist(back[-1][1:], (o.x, o.y)) / (t - back[-1][0]) >= 0.5:
            self.to_half = t

    def _segment(self, t: float):
        for name, secs, cmd in self.segments:
            if t < secs:
                return name, t, cmd
            t -= secs
        return self.segments[-1][0], t, None

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.task.duration() + 2.0

    def result(self):
        return self


def measure(rt: int, runs: int, sets=None, name: str | None = None, world: str = "inprocess",
            game_sets: bool = False) -> dict:
    """The 10 m forward walk and the course `runs` times each (run i from start_pose(.., i)) in `world`: mean 10 m
    speed of the completed walks, their count, forward falls, falls per course and the segments fallen in; ok = every
    run completed without a fall."""
    speeds, headings, to_half, fwd_falls, course_falls, where = [], [], [], 0, [], []
    at_limit, lag = [], []
    pitch = {j.name: j.max_speed for j in joints_for_type(rt)
             if j.name.endswith(("HipPitch", "KneePitch", "AnklePitch"))}
    w = make_world(world, rt)
    try:
        for seed in range(runs):
            r = w.run_episode(Walk(start_pose(-10.0, seed), walk_engine(rt, sets, name, world), distance=10.0,
                                   game_sets=game_sets, max_speed=pitch))
            fwd_falls += r.fell_in is not None
            at_limit += r.at_limit
            lag += r.lag
            if r.speed is not None:
                speeds.append(r.speed)
                headings.append(math.degrees(r.heading))
            to_half.append(math.inf if r.to_half is None else r.to_half)
            c = w.run_episode(Walk(start_pose(-8.0, seed), walk_engine(rt, sets, name, world), segments=COURSE,
                                   game_sets=game_sets))
            course_falls.append(int(c.fell_in is not None))
            if c.fell_in:
                where.append(c.fell_in)
    finally:
        w.close()
    return {"speed": float(np.mean(speeds)) if speeds else float("nan"), "completed": len(speeds),
            "heading_deg": headings, "to_half": to_half,
            "at_limit": float(np.mean(at_limit)) if at_limit else float("nan"),
            "lag_deg": math.degrees(float(np.mean(lag))) if lag else float("nan"),
            "forward_falls": fwd_falls, "course_falls": course_falls, "where": where,
            "ok": len(speeds) == runs and fwd_falls == 0 and not any(course_falls)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", choices=("inprocess", "sim", "simspark"), default="inprocess",
                    help="villa sim in process (default), over its socket, or the real SimSpark")
    ap.add_argument("--robot-type", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")
    ap.add_argument("--set", default="goToTarget", help="parameter set to walk with (default goToTarget)")
    ap.add_argument("--game-sets", action="store_true",
                    help="each command in the set the game's §10.3 rule picks: sprint straight ahead (within 15°, "
                         "hardly turning), goToTarget otherwise (instead of --set)")
    args = ap.parse_args()
    PARAMS.update(file=args.params, set="goToTarget" if args.game_sets else args.set)
    try:
        walk_engine(args.robot_type)
    except ValueError as e:
        ap.error(str(e))
    m = measure(args.robot_type, args.runs, world=args.world, game_sets=args.game_sets)
    print(f"{args.world}: robot type {args.robot_type}, {args.runs} runs, "
          f"{'the game sets (sprint straight ahead)' if args.game_sets else 'set ' + args.set} of "
          f"{args.params or 'walk_params.yaml'}")
    print(f"  10 m forward: {m['speed']:.3f} m/s mean ({m['completed']}/{args.runs} completed, "
          f"{m['forward_falls']} falls); heading change over it (deg): "
          + (", ".join(f"{h:+.1f}" for h in m["heading_deg"]) or "-"))
    print(f"  leg pitch joints at their speed limit (after its first 2 s): {100 * m['at_limit']:.0f} % of "
          f"joint-cycles; behind the walk's targets by {m['lag_deg']:.1f} deg on average")
    print("  standing to 0.5 m/s (s, over 0.4 s): " + ", ".join(f"{h:.2f}" for h in m["to_half"]))
    print(f"  goToTarget course ({sum(s for _, s, _ in COURSE):.0f} s, {len(COURSE)} segments): "
          f"falls per course {np.mean(m['course_falls']):.2f} ({m['course_falls']})"
          + (f", in: {', '.join(m['where'])}" if m["where"] else ""))


if __name__ == "__main__":
    main()
