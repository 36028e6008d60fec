"""Walks through the game's motion arbiter that several benchmarks measure (motion_course, odometry, walk_turn,
run_challenge, walk_validate, dribble): the world task of a start pose, jittered starts, the arbiter with a walk
parameter file, the 10 m forward walk and the goToTarget course of the §10.3 trajectory kinds, and the dribble trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from villa_bench import common

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

# in-place turns (the walk's turn set) handing over to walks each way and to standing
TURN_COURSE = [
    ("turn left", 2.0, lambda t: (0, 0, 1)),
    ("forward after a turn", 2.0, lambda t: (1, 0, 0)),
    ("turn right", 2.0, lambda t: (0, 0, -1)),
    ("stop after a turn", 1.0, None),
    ("turn left from standing", 1.5, lambda t: (0, 0, 1)),
    ("backward after a turn", 2.0, lambda t: (-1, 0, 0)),
    ("turn right", 1.5, lambda t: (0, 0, -1)),
    ("left after a turn", 2.0, lambda t: (0, 1, 0)),
    ("half turn", 1.0, lambda t: (0, 0, 0.5)),
    ("right after a turn", 2.0, lambda t: (0, -1, 0)),
    ("stop", 1.5, None),
]


def walk_engine(rt: int, world: str = "villa", sets=None, name: str = "goToTarget", params: str | None = None):
    """The game's motion arbiter with walk sets `sets` (default: the file `params`, or villa_motion's
    walk_params.yaml, with `world`'s overlays, as a player there loads them) on set `name`, the head scanning as in a
    game. ValueError for a parameter file that does not load."""
    from villa_motion import arbiter as A
    from villa_motion.params import load_parameter_sets, walk_sets_path

    if sets is None:
        sets = load_parameter_sets(walk_sets_path(params or ""), world, rt)
    return A.MotionArbiter(replace(A.shipped_config(rt, world), walk_sets=sets, walk_set=name))


def start_pose(x: float, seed: int) -> tuple[float, float, float]:
    """Run `seed`'s start pose: seed 0 starts exactly at (x, 0, 0); the others within 5 cm and 5° of it, since the
    simulation is deterministic and identical starts would repeat one trial."""
    from villa_optimize.tasks import start_jitter

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

    def __init__(self, start, engine, segments=None, distance: float | None = None,
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
        from villa_motion import arbiter as A
        from villa_optimize.tasks import motion_cycle

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
        from villa_strategy import behaviours as B

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


def measure_course(args, rt: int, sets=None, name: str = "goToTarget", game_sets: bool = False,
                   course: bool = True, segments=COURSE, forward: bool = True) -> dict:
    """The 10 m forward walk (with `forward`) and (with `course`) the course `segments` (default the goToTarget
    course), args.runs times each (run i from
    start_pose(.., args.seed + i)) in the world of `args` (--world, --socket; walk sets `sets`, else args.params' file
    or the shipped one): mean 10 m speed of the completed walks, their count, forward falls, falls per course and the
    segments fallen in; ok = every run completed without a fall."""
    from villa_nao.joints import joints_for_type

    speeds, headings, to_half, fwd_falls, course_falls, where = [], [], [], 0, [], []
    at_limit, lag = [], []
    pitch = {j.name: j.max_speed for j in joints_for_type(rt)
             if j.name.endswith(("HipPitch", "KneePitch", "AnklePitch"))}
    params = getattr(args, "params", None)
    w = common.make_world(args, rt)
    try:
        for run in range(args.runs):
            seed = args.seed + run
            if forward:
                r = w.run_episode(Walk(start_pose(-10.0, seed), walk_engine(rt, args.world, sets, name, params),
                                       distance=10.0, game_sets=game_sets, max_speed=pitch))
                fwd_falls += r.fell_in is not None
                at_limit += r.at_limit
                lag += r.lag
                if r.speed is not None:
                    speeds.append(r.speed)
                    headings.append(math.degrees(r.heading))
                to_half.append(math.inf if r.to_half is None else r.to_half)
            if course:
                c = w.run_episode(Walk(start_pose(-8.0, seed), walk_engine(rt, args.world, sets, name, params),
                                       segments=segments, game_sets=game_sets))
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
            "ok": len(speeds) == (args.runs if forward else 0) and fwd_falls == 0 and not any(course_falls)}


def dribble_trials(args, robot_type: int, task_name: str, params=None,
                   verbose: bool = True) -> list[tuple[float, bool]]:
    """(ball progress m, fell) per trial of the villa_optimize task `task_name` in the world of `args`, args.runs
    trials: trial i at the task's i-th start within 5 cm and 5 deg of it, drawn from args.seed + i (trial 0 at the
    task's pose). `params`: a walk parameter file, or the sets themselves (None: the shipped file)."""
    from villa_motion.params import load_parameter_sets, walk_sets_path
    from villa_optimize import tasks as T

    if params is None or not isinstance(params, dict):
        params = load_parameter_sets(walk_sets_path(params or ""), args.world, robot_type=robot_type)
    task = T.get_task(task_name)
    w = common.make_world(args, robot_type)
    out = []
    try:
        for run in range(args.runs):
            t = task.trial(run, np.random.default_rng(args.seed + run))
            r = w.run_episode(T.Episode(t, params, robot_type, args.world))
            out.append((r.fitness, r.fell))
            if verbose:
                print(f"  trial {run}: ball {r.fitness:+.2f} m toward the goal" + (" (robot fell)" if r.fell else ""),
                      flush=True)
    finally:
        w.close()
    return out
