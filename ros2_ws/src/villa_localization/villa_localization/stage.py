"""Localization as one object per player (what the localization node wraps; the in-process player calls it).

The walk engine's odometry (poses in its `odom` frame) is accumulated between vision frames and applied before each
observation update (§5); beams re-seed the filter at the known pose; the fall state (§8) makes the model ignore
vision and odometry while the robot is down. Each observation update gives a WorldEstimate: the plain form of
villa_msgs/WorldModel (team-relative field frame, m, rad). Parameters: config/localization.yaml's names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from villa_localization.ball_filter import BallParams
from villa_localization.particle_filter import PFParams
from villa_localization.world_model import Observed, Tracked, WorldModel
from villa_nao import field as F

TRACKED_COVARIANCE = (0.09, 0.0, 0.0, 0.0, 0.09, 0.0, 0.0, 0.0, 10.0)


@dataclass(frozen=True)
class TrackedEstimate:
    unum: int
    position: tuple[float, float]
    valid: bool
    last_seen: float


@dataclass(frozen=True)
class WorldEstimate:
    """What villa_msgs/WorldModel carries (the strategy's input)."""

    t: float
    pose: tuple[float, float, float]
    covariance: tuple[float, ...]                      # 3x3 row-major (x, y, theta)
    localized: bool
    ball: tuple[float, float] | None = None            # None: never seen
    ball_velocity: tuple[float, float] = (0.0, 0.0)
    ball_covariance: tuple[float, ...] = ()            # 4x4 row-major (x, y, vx, vy)
    ball_valid: bool = False
    ball_last_seen: float | None = None
    teammates: tuple[TrackedEstimate, ...] = ()
    opponents: tuple[TrackedEstimate, ...] = ()
    particles: np.ndarray | None = field(default=None, compare=False)   # (n, 3), a subsample, for rviz


def _unum(name: str) -> int:
    try:
        return int(name.rsplit("/", 1)[1])
    except (IndexError, ValueError):
        return 0


class LocalizationStage:
    def __init__(self, model: WorldModel, unum: int = 1, publish_particles: int = 0) -> None:
        self.model = model
        self.unum = unum
        self.publish_particles = publish_particles
        self._odom_prev: tuple[float, float, float] | None = None
        self._odom_acc = [0.0, 0.0, 0.0]

    @classmethod
    def from_params(cls, p: Mapping[str, Any], seed: int | None = None) -> LocalizationStage:
        """From the localization node's parameters (config/localization.yaml names); `seed` (default: the `seed`
        parameter, -1 = a fresh generator): the particle filter's."""
        if seed is None and int(p.get("seed", -1)) >= 0:
            seed = int(p["seed"])
        pf = PFParams(particles=int(p["particles"]), odom_factors=tuple(float(v) for v in p["odom_factors"]),
                      random_fraction=float(p["random_fraction"]), line_sigma=float(p["line_sigma"]),
                      reset_fraction_max=float(p["reset_fraction_max"]), lost_ratio=float(p["lost_ratio"]),
                      lost_sigma=float(p["lost_sigma"]), field_margin=float(p["field_margin"]),
                      outlier=float(p["outlier"]))
        if not 0.0 <= pf.outlier < 1.0:
            raise ValueError(f"outlier must be in [0, 1), got {pf.outlier}")
        if pf.particles < 10:
            raise ValueError(f"particles must be at least 10, got {pf.particles}")
        model = WorldModel(pf_params=pf, ball_params=BallParams(accel_sigma=float(p["ball_accel_sigma"]),
                                                                    friction=float(p["ball_friction"]),
                                                                    gate=float(p["ball_gate"]),
                                                                    odom_sigma=float(p["ball_odom_sigma"])),
                           valid_for=float(p["valid_for"]), fall_sigma=tuple(float(v) for v in p["fall_sigma"]),
                           getup_sigma=tuple(float(v) for v in p["getup_sigma"]),
                           blind_sigma=tuple(float(v) for v in p["blind_sigma"]), seed=seed)
        return cls(model, int(p["unum"]), int(p["publish_particles"]))

    # --- inputs ------------------------------------------------------------------------------------------------
    def game_state(self, unum: int) -> None:
        if unum:
            self.unum = unum

    def fall(self, down: bool, t: float) -> None:
        self.model.fallen(down, t)

    def beam(self, x: float, y: float, theta: float) -> None:
        self.model.known_pose(x, y, theta)

    def odom(self, x: float, y: float, theta: float) -> None:
        """The walk's odometry pose (its `odom` frame): the step since the last one, kept for the next frame."""
        cur = (x, y, theta)
        if self._odom_prev is not None:
            px, py, pth = self._odom_prev
            # the step in the robot frame at the previous pose, accumulated in the current robot frame
            step = F.to_local(cur, (px, py), pth)
            ax, ay, ath = self._odom_acc
            self._odom_acc = [*F.from_local(step, (ax, ay), ath), ath + math.remainder(cur[2] - pth, 2 * math.pi)]
        self._odom_prev = cur

    @property
    def odom_pose(self) -> tuple[float, float, float] | None:
        """The walk odometry's latest pose (its `odom` frame), the one the estimate has taken in; None before any:
        with the estimate's pose it gives REP-105's ``field -> odom`` (villa_nao.frames.odom_correction)."""
        return self._odom_prev

    def observe(self, observations: list[Observed], t: float) -> WorldEstimate:
        """One vision frame's observations (base_footprint) at time t: odometry, update, ball prediction (§5)."""
        dx, dy, dth = self._odom_acc
        self._odom_acc = [0.0, 0.0, 0.0]
        m = self.model
        m.odometry(dx, dy, dth)
        m.observe(observations, t)
        m.predict_ball(t)
        return self.estimate(t)

    # --- output ------------------------------------------------------------------------------------------------
    def _tracked(self, unum: int, tr: Tracked, t: float) -> TrackedEstimate:
        return TrackedEstimate(unum, (float(tr.position[0]), float(tr.position[1])), self.model.is_valid(tr, t),
                               float(tr.last_seen))

    def estimate(self, t: float) -> WorldEstimate:
        m = self.model
        ball = vel = None
        ball_cov: tuple[float, ...] = ()
        if (b := m.ball_in_field()) is not None:
            bx, bp = b
            ball, vel = (float(bx[0]), float(bx[1])), (float(bx[2]), float(bx[3]))
            ball_cov = tuple(float(v) for v in bp.reshape(-1))
        particles = None
        if self.publish_particles:
            particles = m.pf.particles[::max(1, len(m.pf.particles) // self.publish_particles)]
        return WorldEstimate(
            t=t, pose=tuple(float(v) for v in m.pose), covariance=tuple(float(v) for v in m.cov.reshape(-1)),
            localized=m.localized, ball=ball, ball_velocity=vel or (0.0, 0.0), ball_covariance=ball_cov,
            ball_valid=ball is not None and m.ball_valid(t),
            ball_last_seen=None if m.ball_seen is None else float(m.ball_seen),
            teammates=tuple(self._tracked(u, tr, t) for u, tr in m.teammates.items() if u != self.unum),
            opponents=tuple(self._tracked(_unum(n), tr, t) for n, tr in m.opponents.items()),
            particles=particles)
