"""A kick from standing, in any world (UT Austin Villa 2011 report §13.1-§13.2): the robot stands with the ball at the
kick's own offset (its BALL line) plus a small random error, as after an imperfect approach, kicks with
villa_motion's KickEngine, stands while the ball rolls, and the attempt is scored.

Used by villa bench kick_bench (kick figures on villa sim or the real SimSpark) and by `villa optimize kick --standing`
(§13.2's CMA-ES on the kick's parameters without the walked approach: a much cheaper evaluation than the approach
task of villa_optimize.kick_objective, for tuning the swing itself on a server). Score of an attempt: the distance
the ball travelled along the kick's direction; -3 when the robot fell, -1 when the kick refused its ball.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from villa_motion import kick as KK
from villa_nao import field as F
from villa_optimize.tasks import UPRIGHT_FALLEN

START = (-3.0, 0.0, 0.0)     # where the robot stands (global frame)
SETTLE = 0.8                 # s standing before the kick
ROLL = 3.0                   # s standing after it while the ball rolls
FELL, REFUSED = -3.0, -1.0
STANDING_ERROR = 0.02        # m: the ball up to this far off the kick's offset in x and y (an imperfect approach)


@dataclass(frozen=True)
class KickTrial:
    """The robot at `start`, the ball at the kick's offset + `error` (robot frame, m)."""

    kick: KK.KickDef
    error: tuple[float, float] = (0.0, 0.0)
    start: tuple[float, float, float] = START
    lying = None

    @property
    def ball(self) -> tuple[float, float]:
        bx, by = self.kick.ball[0] + self.error[0], self.kick.ball[1] + self.error[1]
        return F.from_local((bx, by), self.start[:2], self.start[2])

    def placement(self) -> tuple[float, float, float]:
        return self.start

    def duration(self) -> float:
        return SETTLE + 3.0 + ROLL


@dataclass
class KickOutcome:
    started: bool
    fell: bool
    distance: float = 0.0             # m the ball travelled
    along: float = 0.0                # m along the kick's direction (from the robot's heading at the kick)
    direction_error: float = 0.0      # rad, the ball's heading minus the kick's
    reason: str = ""

    @property
    def score(self) -> float:
        if not self.started:
            return REFUSED
        return FELL if self.fell else self.along

    def summary(self) -> dict:
        return {"started": self.started, "fell": self.fell, "distance": round(self.distance, 3),
                "along": round(self.along, 3), "direction_error_deg": round(math.degrees(self.direction_error), 1),
                "reason": self.reason, "score": round(self.score, 3)}


@dataclass
class StandingKickEpisode:
    trial: KickTrial
    stand: KK.StandPose = field(default_factory=KK.StandPose)
    robot_type: int = 0
    CYCLE = 0.02

    def __post_init__(self) -> None:
        self.task = self.trial
        self.still = KK.stand_joints(self.stand, self.robot_type)
        self.engine = KK.KickEngine(self.trial.kick, self.stand, self.robot_type)
        self.state = "settle"
        self.t0: float | None = None
        self.t_state = 0.0
        self.t_last = 0.0
        self.ball0: np.ndarray | None = None
        self.heading = 0.0
        self.fell = False
        self.done = False
        self.outcome: KickOutcome | None = None

    def step(self, o) -> dict[str, float]:
        if self.t0 is None:
            self.t0 = self.t_state = o.t
        self.t_last = o.t
        self.fell = self.fell or o.upright < UPRIGHT_FALLEN
        ball = np.array(o.ball if o.ball is not None else self.trial.ball, dtype=float)
        if self.state == "settle" and o.t - self.t_state >= SETTLE - 1e-9:
            self.ball0, self.heading = ball, o.yaw
            if not self.engine.start(F.to_local(ball, (o.x, o.y), o.yaw)):
                self.outcome = KickOutcome(False, self.fell, reason=self.engine.reason)
                self.done = True
                return self.still
            self.state, self.t_state = "kick", o.t
        if self.state == "kick":
            joints = self.engine.update(self.CYCLE, o.joints)
            if self.engine.done:
                self.state, self.t_state = "roll", o.t
            return joints
        if self.state == "roll" and o.t - self.t_state >= ROLL - 1e-9:
            travel = ball - self.ball0
            direction = self.heading + self.trial.kick.direction
            err = math.remainder(math.atan2(travel[1], travel[0]) - direction, 2 * math.pi)
            self.outcome = KickOutcome(True, self.fell, float(np.linalg.norm(travel)),
                                       float(travel @ np.array([math.cos(direction), math.sin(direction)])), err)
            self.done = True
        return self.still

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.trial.duration() + 2.0

    def result(self) -> KickOutcome:
        return self.outcome or KickOutcome(self.state != "settle", self.fell, reason="timed out")
