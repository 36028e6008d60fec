"""The world model: our pose (particle filter, §5), the ball (Kalman filter, §9.2, kept in the robot frame and placed
in the field with our pose), teammates and opponents with their last-seen times (§4.2-4.3), in the team-relative field
frame. Pure Python: the localization node wraps it.

Falls (§8): while the robot is down its camera looks at the sky or the grass through a torso the accelerometer no
longer levels, and the walk engine's odometry means nothing, so nothing is observed or predicted; the particles
spread by `fall_sigma` when it goes down, by `blind_sigma` per square root of a second while it lies, and by
`getup_sigma` when it stands again, and the next observations (and the filter's sensor resetting) pull them in."""

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
    fall_sigma: tuple[float, float, float] = (0.3, 0.3, 0.5)      # m, m, rad: spread added when the robot falls
    getup_sigma: tuple[float, float, float] = (0.2, 0.2, 0.35)    # ... when it stands up again
    blind_sigma: tuple[float, float, float] = (0.1, 0.1, 0.1)     # ... per sqrt(s) while it lies (vision ignored)
    seed: int | None = None

    def __post_init__(self) -> None:
        self.pf = ParticleFilter(self.pf_params, self.seed)
        self.ball = BallFilter(self.ball_params)
        self.ball_seen: float | None = None
        self.teammates: dict[int, Tracked] = {}
        self.opponents: dict[str, Tracked] = {}
        self.down = False                   # fallen (or falling): observations and odometry are ignored
        self._blind_since: float | None = None
        self.pose, self.cov = self.pf.estimate()

    def known_pose(self, x: float, y: float, theta: float) -> None:
        """A beam: the robot is at (x, y, theta); the ball stays where it was in the field."""
        ox, oy, oth = self.pose
        self.ball.move(*F.to_local((x, y), (ox, oy), oth), math.remainder(theta - oth, math.tau))
        self.pf.seed_pose(x, y, theta)
        self.pose, self.cov = np.array([x, y, theta]), np.diag([0.01, 0.01, 0.03])

    def fallen(self, down: bool, t: float) -> None:
        """The fall state (§8): spread the particles on a fall and on the get-up; see the module docstring."""
        if down and not self.down:
            self.pf.widen(self.fall_sigma)
            self._blind_since = t
        elif not down and self.down:
            self.pf.widen(self.getup_sigma)
        if down != self.down:
            self.down = down
            self.pose, self.cov = self.pf.estimate()

    def odometry(self, dx: float, dy: float, dtheta: float) -> None:
        if not self.down:
            self.pf.predict(dx, dy, dtheta)
            self.ball.move(dx, dy, dtheta)

    def observe(self, observations: list[Observed], t: float) -> None:
        if self.down:
            dt = max(0.0, t - (self._blind_since if self._blind_since is not None else t))
            self._blind_since = t
            if dt > 0:
                self.pf.widen(np.asarray(self.blind_sigma) * math.sqrt(dt))
            self.pose, self.cov = self.pf.estimate()
            return
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
                z, r = BallFilter.measurement(o.xy, o.distance_sigma, o.bearing_sigma)
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

    def ball_in_field(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The ball's (x, y, vx, vy) in the field frame and its 4x4 covariance (our pose's included); None: never
        seen."""
        return None if self.ball.x is None else self.ball.in_field(self.pose, self.cov)

    @property
    def localized(self) -> bool:
        return bool(self.pf.updates > 0 and not self.down
                    and math.sqrt(max(self.cov[0, 0], self.cov[1, 1])) < self.localized_sigma)

    def ball_valid(self, t: float) -> bool:
        return self.ball.x is not None and self.ball_seen is not None and t - self.ball_seen < self.valid_for

    def is_valid(self, tracked: Tracked, t: float) -> bool:
        return t - tracked.last_seen < self.valid_for
