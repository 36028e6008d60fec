"""Optimization phases: UT Austin Villa 2011 report §10.4.2 (OptPhase: waypoint, stop, move) with the §10.3 rewards.

A task is a list of phases run in order; each phase has a maximum duration, commands the walk from what the agent
observes, and scores itself; the task's fitness is the sum of the phases' utilities. Rewards (§10.3.2), with
Fall = 5 when the robot fell during the phase:

    reward_target = d_target * t_total / t_taken - Fall      (WaypointOptPhase; t_taken = t_total if not reached)
    reward_stop   = -d_moved - Fall                          (StopOptPhase; d_moved = path length of the torso)
    reward_move   = distance along the commanded direction - Fall   (MoveOptPhase)

Samples are in the course frame: origin at the robot's start pose, x along its heading then (metres, radians).
Pure module: no ROS, no simulator; the episode (tasks.py) feeds it samples and turns commands into walk inputs. The
dribble phase runs the game's dribble behaviour (villa_strategy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from villa_motion.kick import StandPose
from villa_motion.walk import normalized_walk, turn_input  # §10.4.1 walk inputs (re-exported for the tasks)
from villa_nao import field as F
from villa_strategy import behaviours as B

FALL = 5.0          # §10.3.2: "Fall is 5 if the robot fell and 0 otherwise"


def wrap(a: float) -> float:
    return math.remainder(a, 2 * math.pi)


@dataclass(frozen=True)
class Sample:
    """What a phase observes in one cycle (ground truth, course frame)."""

    t: float                                   # s, simulation time
    x: float
    y: float
    yaw: float
    ball: tuple[float, float] | None = None    # ball position when the task has one


@dataclass(frozen=True)
class WalkCmd:
    """A phase's walk request: normalized x/y/theta (§10.4.1, fractions of the maximum step) or stand."""

    x: float = 0.0
    y: float = 0.0
    theta: float = 0.0
    stand: bool = False
    bearing: float = math.inf                  # rad, target direction relative to the heading (set selection)
    distance: float = 0.0                      # m to the target
    parameter_set: str = ""                    # the walk set the game's behaviour names ("": the task decides)


STAND = WalkCmd(stand=True)


class OptPhase:
    """§10.4.2: one logically distinct action, its utility, and the observations the utility needs."""

    kind = "phase"

    def __init__(self, duration: float) -> None:
        if not (math.isfinite(duration) and duration > 0):
            raise ValueError(f"{self.kind}: the maximum duration must be a positive number of seconds, got {duration}")
        self.duration = float(duration)
        self.t0: float | None = None
        self.first: Sample | None = None
        self.last: Sample | None = None
        self.fell = False
        self.completed = False      # the phase's action finished before its maximum duration

    def start(self, s: Sample) -> None:
        self.t0, self.first, self.last = s.t, s, s

    def observe(self, s: Sample) -> bool:
        """Record a sample; True when the phase is over (action done or maximum duration reached)."""
        self.last = s
        return s.t - self.t0 >= self.duration - 1e-9

    def command(self, s: Sample, max_x: float, max_y: float) -> WalkCmd:
        return STAND

    def fall(self) -> None:
        self.fell = True

    def reward(self) -> float:
        return 0.0

    def utility(self) -> float:
        return self.reward() - (FALL if self.fell else 0.0)

    def elapsed(self) -> float:
        return 0.0 if self.first is None else self.last.t - self.first.t


class WaypointOptPhase(OptPhase):
    """Walk to a point (moving and turning toward it at once, §10.2, or keeping a heading `face`); rewarded by the
    distance walked toward it, extrapolated to the whole phase when the point is reached early (§10.3.2)."""

    kind = "waypoint"

    def __init__(self, target: tuple[float, float], duration: float, face: float | None = None,
                 reach: float = 0.15) -> None:
        super().__init__(duration)
        self.target = (float(target[0]), float(target[1]))
        self.face = face
        self.reach = reach
        self.d0 = 0.0
        self.t_taken: float | None = None

    def _dist(self, s: Sample) -> float:
        return math.hypot(self.target[0] - s.x, self.target[1] - s.y)

    def start(self, s: Sample) -> None:
        super().start(s)
        self.d0 = self._dist(s)

    def observe(self, s: Sample) -> bool:
        over = super().observe(s)
        if self.t_taken is None and self._dist(s) <= self.reach:
            self.t_taken = max(s.t - self.t0, 0.02)
            self.completed = True
            return True
        return over

    def command(self, s: Sample, max_x: float, max_y: float) -> WalkCmd:
        dx, dy = self.target[0] - s.x, self.target[1] - s.y
        dist = math.hypot(dx, dy)
        heading = math.atan2(dy, dx)
        rel = wrap(heading - s.yaw)
        x, y = normalized_walk(rel, max_x, max_y)
        want = heading if self.face is None else self.face
        return WalkCmd(x, y, turn_input(wrap(want - s.yaw)), bearing=rel, distance=dist)

    def reward(self) -> float:
        if self.last is None:
            return 0.0
        d_target = self.d0 - self._dist(self.last)
        if self.t_taken is not None:
            return d_target * self.duration / self.t_taken
        return d_target


class StopOptPhase(OptPhase):
    """Stand still (the walk jogs in place 0.5 s first, §10.4.3); punished by the distance the torso moves."""

    kind = "stop"

    def __init__(self, duration: float) -> None:
        super().__init__(duration)
        self.moved = 0.0

    def observe(self, s: Sample) -> bool:
        if self.last is not None:
            self.moved += math.hypot(s.x - self.last.x, s.y - self.last.y)
        return super().observe(s)

    def reward(self) -> float:
        return -self.moved


class MoveOptPhase(OptPhase):
    """Walk with a fixed command (x, y, theta normalized, robot frame); rewarded by the distance travelled along
    the commanded direction of travel, taken in the robot's frame when the phase starts."""

    kind = "move"

    def __init__(self, command: tuple[float, float, float], duration: float) -> None:
        super().__init__(duration)
        x, y, th = (float(v) for v in command)
        if math.hypot(x, y) < 1e-9:
            raise ValueError("move: the command needs a direction of travel (x or y non-zero)")
        self.cmd = (x, y, th)
        self.maxes = (1.0, 1.0)

    def command(self, s: Sample, max_x: float, max_y: float) -> WalkCmd:
        self.maxes = (max_x, max_y)
        return WalkCmd(*self.cmd)

    def direction(self) -> float:
        """Direction of travel in the robot frame (rad) the command asks for (with the walk's maximum speeds)."""
        return math.atan2(self.cmd[1] * self.maxes[1], self.cmd[0] * self.maxes[0])

    def reward(self) -> float:
        if self.first is None:
            return 0.0
        d = self.first.yaw + self.direction()
        return (self.last.x - self.first.x) * math.cos(d) + (self.last.y - self.first.y) * math.sin(d)


class TurnOptPhase(OptPhase):
    """Turn in place with a fixed turn command (normalized, + = left); rewarded by the heading turned the commanded way
    (rad, summed cycle by cycle so a full turn counts) less `drift` per metre the torso moved."""

    kind = "turn"

    def __init__(self, theta: float, duration: float, drift: float = 2.0) -> None:
        super().__init__(duration)
        if not (math.isfinite(theta) and 0 < abs(theta) <= 1):
            raise ValueError(f"turn: the command must be a normalized turn in [-1, 1] other than 0, got {theta}")
        self.theta, self.drift = float(theta), float(drift)
        self.turned = self.moved = 0.0

    def observe(self, s: Sample) -> bool:
        if self.last is not None:
            self.turned += wrap(s.yaw - self.last.yaw)
            self.moved += math.hypot(s.x - self.last.x, s.y - self.last.y)
        return super().observe(s)

    def command(self, s: Sample, max_x: float, max_y: float) -> WalkCmd:
        return WalkCmd(0.0, 0.0, self.theta)

    def reward(self) -> float:
        return math.copysign(1.0, self.theta) * self.turned - self.drift * self.moved


class DribbleOptPhase(OptPhase):
    """§10.3.1 driveBallToGoal: drive the ball toward the goal; rewarded by the distance the ball travels toward it.
    Walking is the game's dribble (villa_strategy.behaviours.dribble, §12.4-12.6), run in the field frame: `origin`
    is the course frame's pose on the field (the task's start), `goal` the opponent goal in the course frame."""

    kind = "dribble"

    def __init__(self, goal: tuple[float, float], duration: float,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        super().__init__(duration)
        self.goal = (float(goal[0]), float(goal[1]))
        self.origin = tuple(float(v) for v in origin)
        self.ball0: tuple[float, float] | None = None
        self.ball1: tuple[float, float] | None = None
        # the walk sets as the game has them (behaviours.Body.from_walk_sets): the dribble then names the set of
        # every order as in a game (§10.3: positioning near the ball); None: one set, the maximum speeds given
        self.body: B.Body | None = None

    def _goal_dist(self, b) -> float:
        return math.hypot(self.goal[0] - b[0], self.goal[1] - b[1])

    def start(self, s: Sample) -> None:
        if s.ball is None:
            raise ValueError("dribble: the task has no ball")
        super().start(s)
        self.ball0 = self.ball1 = s.ball

    def observe(self, s: Sample) -> bool:
        over = super().observe(s)
        if s.ball is not None:
            if math.hypot(s.ball[0] - self.ball1[0], s.ball[1] - self.ball1[1]) > 1.0:
                return True             # the referee moved the ball (out of the field, goal): stop measuring
            self.ball1 = s.ball
        return over

    def command(self, s: Sample, max_x: float, max_y: float) -> WalkCmd:
        ox, oy, oth = self.origin
        me = F.from_local((s.x, s.y), (ox, oy), oth)
        theta = wrap(s.yaw + oth)
        ball = F.from_local(s.ball, (ox, oy), oth)
        body = self.body or B.Body(0, {"": (max_x, max_y)}, {"": StandPose()})   # one set: the task's (its speeds)
        target, order = B.dribble(me, theta, ball, body=body)
        if order.stop:
            return STAND
        rel = wrap(math.atan2(target[1] - me[1], target[0] - me[0]) - theta)
        return WalkCmd(order.x, order.y, order.theta, bearing=rel, distance=math.hypot(target[0] - me[0],
                                                                                          target[1] - me[1]),
                       parameter_set=order.parameter_set if self.body is not None else "")

    def reward(self) -> float:
        if self.ball0 is None:
            return 0.0
        return self._goal_dist(self.ball0) - self._goal_dist(self.ball1)
