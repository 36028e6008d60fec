"""Walk optimization tasks built from OptPhases and run as episodes: UT Austin Villa 2011 report §10.3, §10.4.2.

- goToTarget (§10.3.2): a course of targets and stop targets covering Figure 4's kinds (long walks forward /
  backward / left / right, quick direction changes, weaving at 45°, a noisy target, stop and go, a spiral both
  clockwise and counter-clockwise, quick alternation between left and right), one active at a time for its own
  duration; fitness = sum of reward_target and reward_stop.
- sprint (§10.3.2): the same course with goToTarget fixed, its long forward walk 10 m; the optimized sprint set is
  used whenever the robot faces within 15° of its target (and it is over 1 m away), so the two sets are learned
  compatible.
- sprint10 (§10.3.2): 10 s forward from a complete stop, a stop, then a target beside and behind (goToTarget's), the
  sprint rule as in sprint: the transitions at a fifth of the course's cost.
- sprintStops (§10.3.2): sprint10 after two bursts of stop and go from standing (1 s forward, 1 s stop, twice): the
  sprint's starts and stops at low speed, where sets learned on sprint10 alone fell in goToTarget courses.
- driveBallToGoal (§10.3.1): drive the ball toward the opponent goal for 30 s; fitness = distance the ball travels
  toward the goal (minus Fall if the robot fell).
- positioning (§10.3.3, the report's driveBallToGoal2): dribble for 15 s from a variety of positions and
  orientations around the ball (trial i starts from the i-th of them, cycling); the candidate is the `positioning`
  set, which the game's dribble uses within 0.8 m of the ball, with goToTarget and sprint fixed and every command
  in the set the game would use, so that the transitions between the sets are part of the task.

An Episode runs one task on one robot: it turns ground-truth observations into course-frame samples, feeds the
phases, drives villa_motion's motion arbiter (the game's) with their walk commands and returns the joint targets for
the cycle. The walk parameter set each command uses follows the game's §10.3 rule (villa_strategy.behaviours.walk_set),
with the candidate in the place the task optimizes.
Deviation from §10.4.2: the optimization agent has no get-up, so a fall ends the episode; the phase in which the
robot fell scores its reward - Fall and every phase not started scores -Fall (the later the fall, the less bad).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from villa_motion import arbiter as A
from villa_motion.walk import WalkParams
from villa_nao import field as F
from villa_optimize.phases import (
    FALL,
    DribbleOptPhase,
    MoveOptPhase,
    OptPhase,
    Sample,
    StopOptPhase,
    TurnOptPhase,
    WaypointOptPhase,
    wrap,
)
from villa_strategy import behaviours as B

FIELD_GOAL_X = 15.0          # opponent goal line (SimSpark field, 30 m long), global frame
UPRIGHT_FALLEN = 0.5         # z of the torso's up axis below which the robot counts as fallen (as bench/motion_course)


def start_jitter(rng, position: float = 0.05, heading_deg: float = 5.0) -> tuple[float, float, float]:
    """(dx m, dy m, dtheta rad) uniform within `position` m and `heading_deg` degrees: one trial's start offset (a
    deterministic simulation repeats a trial exactly from an identical start)."""
    return (float(rng.uniform(-position, position)), float(rng.uniform(-position, position)),
            math.radians(rng.uniform(-heading_deg, heading_deg)))


@dataclass(frozen=True)
class Observation:
    """One cycle of ground truth and joint readings (global field frame, NAOqi joint names)."""

    t: float
    x: float
    y: float
    yaw: float
    upright: float
    joints: dict[str, float]
    ball: tuple[float, float] | None = None
    z: float = math.nan                                # torso height, m
    feet: tuple[bool, bool] | None = None              # (left, right) foot touching the ground, where known
    acc: tuple[float, float, float] | None = None      # accelerometer, m/s^2, REP-103 torso axes, where known
    gyro: tuple[float, float, float] | None = None     # angular rate, rad/s, REP-103 torso axes, where known


def motion_cycle(motion, o: Observation):
    """One cycle of the game's motion arbiter on an observation, as the game's hosts run it: the IMU's angular rate
    (the walk's balance feedback), then the joint states. Returns the arbiter's output."""
    motion.imu(o.gyro, o.acc)
    return motion.update(o.t, o.joints)


@dataclass(frozen=True)
class Task:
    name: str
    make_phases: Callable[[], list[OptPhase]]
    start: tuple[float, float, float]                 # robot pose on the field (x, y, theta), global frame
    optimized_set: str                                # the walk parameter set the candidate fills
    base_set: str = "goToTarget"                      # the set the walk uses outside the sprint rule
    ball: tuple[float, float] | None = None           # ball position, global frame (None: ball out of the way)
    sprint_rule: bool = False                         # use optimized_set when facing within 15° of the target
    settle: float = 1.0                               # s standing after placement before the first phase
    time_limit: float | None = None                   # s of phases, None = the phases' full durations
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)   # placement minus `start` (a trial's start jitter); the
    #                                                   course stays in `start`'s frame
    variants: tuple[tuple[float, float, float], ...] = ()   # offsets of further start poses, field frame (x, y m,
    #                                                   theta rad): trial i starts from variant i (cycling, 0 = start)
    game_sets: bool = False                           # every command in the set the game's behaviour names
    space: str = "walk_space.yaml"                    # villa_optimize config/ file of the searched parameters
    walk_rule: bool = False                           # commands name base_set; the walk's own rule walks
    #                                                   optimized_set (its turn set, for in-place turns)

    def placement(self) -> tuple[float, float, float]:
        """Where the robot is put: `start` moved by `offset` (x, y in m, theta in rad)."""
        return (self.start[0] + self.offset[0], self.start[1] + self.offset[1], self.start[2] + self.offset[2])

    def jittered(self, rng) -> Task:
        """The same task with the robot placed within 5 cm and 5° of `start` (start_jitter)."""
        return replace(self, offset=start_jitter(rng))

    def trial(self, i: int, rng) -> Task:
        """Trial `i` of an evaluation: trial 0 from `start` exactly, trial i > 0 from start pose i (cycling through
        `start` and the variants) jittered within 5 cm and 5°."""
        if i == 0:
            return self
        starts = ((0.0, 0.0, 0.0), *self.variants)
        base, jit = starts[i % len(starts)], start_jitter(rng)
        return replace(self, offset=tuple(a + b for a, b in zip(base, jit, strict=True)))

    def duration(self) -> float:
        total = sum(p.duration for p in self.make_phases())
        return self.settle + (total if self.time_limit is None else min(total, self.time_limit))

    def truncated(self, seconds: float) -> Task:
        """The same task stopped after `seconds` of phases (a short evaluation)."""
        return replace(self, time_limit=float(seconds))


def _circle(centre: tuple[float, float], radius: float, start_deg: float, step_deg: float, n: int,
            seconds: float) -> list[OptPhase]:
    """n waypoints on a circle, `step_deg` apart from `start_deg` (negative: clockwise): a spiral/curve walked by
    moving and turning at once."""
    a = [math.radians(start_deg + step_deg * (i + 1)) for i in range(n)]
    return [WaypointOptPhase((centre[0] + radius * math.cos(t), centre[1] + radius * math.sin(t)), seconds)
            for t in a]


def go_to_target_phases(long_walk: float = 6.0) -> list[OptPhase]:
    """§10.3.2 Figure 4 kinds in the course frame (start at the origin facing +x). The long forward walk is
    `long_walk` m (the rest of the course moves along with its end): 6 m for goToTarget (with 3 m CMA-ES found sets
    that won the course and fell on villa bench motion_course's 10 m walk), 10 m for sprint, which is the set that walks
    it. The circles and the left-right alternation (Figure 4's spiral both ways and quick alternation) were added after
    sets learned without them fell in villa bench motion_course's spirals."""
    s = long_walk - 6.0
    return [WaypointOptPhase((long_walk, 0.0), 2.0 * long_walk)] + [  # long walk forward, then the course from its end
        _shifted(p, s) for p in _go_to_target_rest()]


def sprint_phases() -> list[OptPhase]:
    """sprint (§10.3.2): goToTarget's course with a 10 m long walk (the held-out walk of villa bench walk_validate)."""
    return go_to_target_phases(long_walk=10.0)


def sprint10_phases() -> list[OptPhase]:
    """§10.3.2's first sprint task, walking straight forwards for ten seconds from a complete stop, followed by a stop
    and a target beside and behind the robot: the sprint set learned there must also stop and hand over to goToTarget
    (the report's sets learned apart were incompatible; its answer, the whole goToTarget course per evaluation, costs
    five times as much simulated time). The forward target lies 16 m ahead, beyond what 10 s of walking reach, so the
    sprint stops at full speed (as at a referee's call or a lost ball in play), not after the set rule handed over to
    goToTarget a metre before a nearer target."""
    return [WaypointOptPhase((16.0, 0.0), 10.0), StopOptPhase(1.5), WaypointOptPhase((8.5, 1.5), 2.5)]


def sprint_stops_phases() -> list[OptPhase]:
    """sprint10 after two bursts of stop and go from standing: 1 s toward the far forward target (the sprint rule walks
    the sprint set from a stop), a 1 s stop, twice, then sprint10's phases. Sprint sets learned on sprint10 alone for
    robot types 1 and 2 walked 10 m at 1.0-1.05 m/s on SimSpark and fell in 10-18 of 20 goToTarget courses of
    villa bench motion_course, at the stops and at stop and go; a stop at full speed alone does not select for
    these."""
    burst = [WaypointOptPhase((16.0, 0.0), 1.0), StopOptPhase(1.0)]
    return [*burst, *burst, *sprint10_phases()]


def turn_phases() -> list[OptPhase]:
    """Turning in place at full speed each way, from standing and from walks forward, backward and sideways, each
    turn handing over to a walk or a stop: the walk's turn set (the in-place turn of goToTarget, villa_motion's
    walk_turn_set) with its hand-overs to and from goToTarget's walk and standing."""
    return [TurnOptPhase(1.0, 3.0), MoveOptPhase((1.0, 0.0, 0.0), 1.5), TurnOptPhase(-1.0, 3.0), StopOptPhase(1.0),
            TurnOptPhase(1.0, 2.0), MoveOptPhase((-1.0, 0.0, 0.0), 1.5), TurnOptPhase(-1.0, 2.0),
            MoveOptPhase((0.0, 1.0, 0.0), 1.5), StopOptPhase(1.0)]


def _shifted(p: OptPhase, dx: float) -> OptPhase:
    if isinstance(p, WaypointOptPhase) and dx:
        return WaypointOptPhase((p.target[0] + dx, p.target[1]), p.duration, face=p.face, reach=p.reach)
    return p


def _go_to_target_rest() -> list[OptPhase]:
    return [
        StopOptPhase(1.0),                                 # stop
        WaypointOptPhase((4.5, 0.0), 4.0, face=0.0),       # long walk backward
        WaypointOptPhase((4.5, 1.2), 3.5, face=0.0),       # walk left
        WaypointOptPhase((4.5, -0.6), 3.5, face=0.0),      # switch to walking right
        StopOptPhase(1.0),                                 # stop and go
        WaypointOptPhase((6.0, 1.0), 3.0),                 # quick direction change
        WaypointOptPhase((7.0, 0.0), 2.0),                 # weave at 45°
        WaypointOptPhase((8.0, 1.0), 2.0),                 # ... and back
        WaypointOptPhase((6.5, 2.0), 1.0),                 # a target that changes quickly (noisy target)
        WaypointOptPhase((9.0, -1.0), 4.0),                # extreme change of direction
        StopOptPhase(1.5),                                 # quick movement combined with stopping
        *_circle((9.0, -2.0), 1.0, 90.0, -90.0, 4, 2.0),   # spiral clockwise (a circle of 1 m around (9, -2))
        *_circle((9.0, 0.0), 1.0, -90.0, 90.0, 4, 2.0),    # ... and counter-clockwise around (9, 0)
        WaypointOptPhase((9.0, -0.5), 1.0, face=0.0),      # quick alternation between walking left and right
        WaypointOptPhase((9.0, -1.5), 1.0, face=0.0),
        WaypointOptPhase((9.0, -0.5), 1.0, face=0.0),
        WaypointOptPhase((9.0, -1.5), 1.0, face=0.0),
        StopOptPhase(1.5),
    ]


def drive_ball_phases() -> list[OptPhase]:
    start_x = -6.0
    return [DribbleOptPhase((FIELD_GOAL_X - start_x, 0.0), 30.0, origin=(start_x, 0.0, 0.0))]


def positioning_phases() -> list[OptPhase]:
    start_x = -6.0
    return [DribbleOptPhase((FIELD_GOAL_X - start_x, 0.0), 15.0, origin=(start_x, 0.0, 0.0))]


# §10.3.3's "variety of positions and orientations from the ball" (ball at (-5.6, 0), the start 0.4 m behind it
# facing the goal): beside it facing it, in front of it facing it (the way round it, §12.4), diagonally behind,
# diagonally in front facing away (ball behind), and 2 m off at an angle (goToTarget hands over to positioning)
POSITIONING_STARTS = (
    (0.4, 0.8, -math.pi / 2),
    (1.4, 0.0, math.pi),
    (-0.3, -0.7, 0.0),
    (0.6, 0.6, 0.0),
    (-1.1, 1.5, -math.pi / 4),
)

TASKS: dict[str, Task] = {
    "goToTarget": Task("goToTarget", go_to_target_phases, (-5.0, 0.0, 0.0), "goToTarget"),
    "sprint": Task("sprint", sprint_phases, (-7.0, 0.0, 0.0), "sprint", sprint_rule=True),
    "sprint10": Task("sprint10", sprint10_phases, (-10.0, 0.0, 0.0), "sprint", sprint_rule=True,
                     space="sprint_space.yaml"),
    "sprintStops": Task("sprintStops", sprint_stops_phases, (-10.0, 0.0, 0.0), "sprint", sprint_rule=True,
                        space="sprint_space.yaml"),
    "turnInPlace": Task("turnInPlace", turn_phases, (-10.0, 0.0, 0.0), "turn", space="turn_space.yaml",
                        walk_rule=True),
    "driveBallToGoal": Task("driveBallToGoal", drive_ball_phases, (-6.0, 0.0, 0.0), "driveBallToGoal",
                            ball=(-5.6, 0.0)),
    "positioning": Task("positioning", positioning_phases, (-6.0, 0.0, 0.0), "positioning", ball=(-5.6, 0.0),
                        variants=POSITIONING_STARTS, game_sets=True, space="positioning_space.yaml"),
}


def get_task(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown walk task {name!r}; known: {', '.join(TASKS)}") from None


@dataclass
class EpisodeResult:
    fitness: float
    fell: bool
    fall_time: float | None                           # s after the first phase started
    utilities: list[tuple[str, float]] = field(default_factory=list)
    sim_time: float = 0.0                             # s simulated, settling included
    completed: int = 0                                # phases whose action finished early (targets reached)

    def summary(self) -> dict:
        return {"fitness": self.fitness, "fell": self.fell, "fall_time": self.fall_time, "sim_time": self.sim_time,
                "completed": self.completed, "utilities": [[k, round(u, 4)] for k, u in self.utilities]}


class Episode:
    """One evaluation of a task: call `step` once per 20 ms cycle with the observation, send back its joints."""

    CYCLE = 0.02

    def __init__(self, task: Task, parameter_sets: dict[str, WalkParams], robot_type: int = 0,
                 simulator: str = "villa") -> None:
        self.task = task
        initial = task.base_set if task.base_set in parameter_sets else task.optimized_set
        self.motion = A.MotionArbiter(replace(A.shipped_config(robot_type, simulator), walk_sets=parameter_sets,
                                              walk_set=initial))
        self.walk = self.motion.walk
        if task.walk_rule and self.walk.turn_set != task.optimized_set:
            raise ValueError(f"{task.name}: the walk turns in place with set {self.walk.turn_set!r}, not "
                             f"{task.optimized_set!r} (villa_motion's walk_turn_set)")
        self.phases = task.make_phases()
        if task.game_sets:                            # the dribble names each order's set as in a game
            body = B.Body.from_walk_sets(parameter_sets, robot_type)
            for p in self.phases:
                if hasattr(p, "body"):
                    p.body = body
        self.index = -1                # -1 while settling
        self.t_first: float | None = None
        self.t_phases: float | None = None
        self.t_last = 0.0
        self.fell = False
        self.fall_time: float | None = None
        self.done = False
        self.ball0 = task.ball
        self.leg_stiffness = 1.0                     # the legs' servo gain scale of the last cycle's targets
        self._duration = task.duration()

    # --- frames --------------------------------------------------------------------------------------------
    def to_course(self, o: Observation) -> Sample:
        sx, sy, st = self.task.start
        ball = None if o.ball is None else F.to_local(o.ball, (sx, sy), st)
        return Sample(o.t, *F.to_local((o.x, o.y), (sx, sy), st), wrap(o.yaw - st), ball)

    # --- the cycle -------------------------------------------------------------------------------------------
    def step(self, o: Observation) -> dict[str, float]:
        if self.t_first is None:
            self.t_first = o.t
        self.t_last = o.t
        if not self.done:
            self._advance(o)
        out = motion_cycle(self.motion, o)
        self.leg_stiffness = out.leg_stiffness
        return out.targets

    def _advance(self, o: Observation) -> None:
        s = self.to_course(o)
        fallen = o.upright < UPRIGHT_FALLEN
        if self.index < 0:                                   # settling: stand after placement
            self.motion.walk_request(A.WalkRequest(A.WALK_STAND))
            if fallen:
                self._fall(o.t)
                return
            if o.t - self.t_first < self.task.settle - 1e-9:
                return
            self.t_phases = o.t
            self._next(s)
            if self.done:
                return
        phase = self.phases[self.index]
        if fallen:
            self._fall(o.t)
            return
        over = phase.observe(s)
        limit = self.task.time_limit
        if limit is not None and o.t - self.t_phases >= limit - 1e-9:
            self.done = True
            return
        if over:
            self._next(s)
            if self.done:
                return
            phase = self.phases[self.index]
        self._command(phase, s)

    def _next(self, s: Sample) -> None:
        self.index += 1
        if self.index >= len(self.phases):
            self.done = True
            self.motion.walk_request(A.WalkRequest(A.WALK_STAND))
            return
        self.phases[self.index].start(s)

    def _command(self, phase: OptPhase, s: Sample) -> None:
        max_x, max_y, _ = self.walk.max_speed()
        cmd = phase.command(s, max_x, max_y)
        if cmd.stand:
            self.motion.walk_request(A.WalkRequest(A.WALK_STAND))
            return
        name = self.task.base_set
        if self.task.game_sets and cmd.parameter_set:
            name = cmd.parameter_set                                           # the game's choice (§10.3)
        elif self.task.sprint_rule:
            if B.walk_set(cmd.bearing, cmd.distance) == "sprint":              # the game's §10.3.2 sprint rule
                name = self.task.optimized_set
        elif self.task.optimized_set in self.walk.sets and not self.task.walk_rule:
            name = self.task.optimized_set
        self.motion.walk_request(A.WalkRequest(A.WALK_NORMALIZED, cmd.x, cmd.y, cmd.theta, name))

    def _fall(self, t: float) -> None:
        self.fell = True
        self.fall_time = t - (self.t_phases if self.t_phases is not None else t)
        if self.index < 0:
            self.index = 0
            self.phases[0].start(Sample(t, 0.0, 0.0, 0.0, self.ball0))
        self.phases[self.index].fall()
        self.done = True

    def timed_out(self) -> bool:
        """True when more simulated time passed than the task can take (a guard for the worlds' loops)."""
        return self.t_first is not None and self.t_last - self.t_first > self._duration + 2.0

    def result(self) -> EpisodeResult:
        utilities = []
        for p in self.phases:
            if p.t0 is None:
                if self.fell:
                    utilities.append((p.kind, -FALL))      # not started: the fallen robot cannot do it
                continue
            utilities.append((p.kind, p.utility()))
        return EpisodeResult(fitness=float(sum(u for _, u in utilities)), fell=self.fell, fall_time=self.fall_time,
                             utilities=utilities, sim_time=(self.t_last - (self.t_first or 0.0)),
                             completed=sum(p.completed for p in self.phases))
