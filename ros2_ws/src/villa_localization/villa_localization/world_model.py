"""The world model: our pose (particle filter, §5), the ball (Kalman filter, §9.2), teammates and opponents with their
last-seen times (§4.2-4.3), all in the team-relative field frame. Pure Python: the localization node wraps it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from villa_localization.ball_filter import BallFilter, BallParams
from villa_localization.particle_filter import Landmark, ParticleFilter, PFParams
from villa_nao import field as F


@dataclass
class Tracked:
    position: np.ndarray
    last_seen: float


@dataclass
class Observed:
    """One observation in base_footprint (what villa_msgs/Observation carries)."""

    kind: str                  # flag, goal_post, ball, teammate, opponent, line
    name: str
    xy: tuple[float, float]
    distance: float
    bearing: float
    distance_sigma: float
    bearing_sigma: float
    end: tuple[float, float] | None = None


@dataclass
class WorldModel:
    pf_params: PFParams = field(default_factory=PFParams)
    ball_params: BallParams = field(default_factory=BallParams)
    valid_for: float = 3.0                 # s an unseen object stays valid
    localized_sigma: float = 0.5           # m: position std below which we call ourselves localized
    seed: int | None = None

    def __post_init__(self) -> None:
        self.pf = ParticleFilter(self.pf_params, self.seed)
        self.ball = BallFilter(self.ball_params)
        self.ball_seen: float | None = None
        self.teammates: dict[int, Tracked] = {}
        self.opponents: dict[str, Tracked] = {}
        self.pose, self.cov = self.pf.estimate()

    def known_pose(self, x: float, y: float, theta: float) -> None:
        self.pf.seed_pose(x, y, theta)
        self.pose, self.cov = np.array([x, y, theta]), np.diag([0.01, 0.01, 0.03])

    def odometry(self, dx: float, dy: float, dtheta: float) -> None:
        self.pf.predict(dx, dy, dtheta)

    def observe(self, observations: list[Observed], t: float) -> None:
        lms = [Landmark(*F.LANDMARKS[o.name][:2], o.distance, o.bearing, o.distance_sigma, o.bearing_sigma)
               for o in observations if o.kind in ("flag", "goal_post") and o.name in F.LANDMARKS]
        lines = [(o.xy, o.end) for o in observations if o.kind == "line" and o.end is not None]
        self.pf.update(lms, lines)
        self.pose, self.cov = self.pf.estimate()
        x, y, th = self.pose
        c, s = math.cos(th), math.sin(th)

        def to_field(xy):
            return np.array([x + c * xy[0] - s * xy[1], y + s * xy[0] + c * xy[1]])

        for o in observations:
            if o.kind == "ball":
                z, r = BallFilter.measurement(self.pose, self.cov, o.xy, o.distance_sigma, o.bearing_sigma)
                self.ball.update(z, r, t)
                self.ball_seen = t
            elif o.kind == "teammate":
                try:
                    unum = int(o.name.rsplit("/", 1)[1])
                except (IndexError, ValueError):
                    continue
                self.teammates[unum] = Tracked(to_field(o.xy), t)
            elif o.kind == "opponent":
                self.opponents[o.name] = Tracked(to_field(o.xy), t)

    def predict_ball(self, t: float) -> None:
        self.ball.predict(t)

    @property
    def localized(self) -> bool:
        return bool(self.pf.updates > 0 and math.sqrt(max(self.cov[0, 0], self.cov[1, 1])) < self.localized_sigma)

    def ball_valid(self, t: float) -> bool:
        return self.ball.x is not None and self.ball_seen is not None and t - self.ball_seen < self.valid_for

    def is_valid(self, tracked: Tracked, t: float) -> bool:
        return t - tracked.last_seen < self.valid_for
