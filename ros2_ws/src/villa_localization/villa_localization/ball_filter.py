"""The ball's Kalman filter on position and velocity in the field frame: UT Austin Villa 2011 report §9.2.

State (x, y, vx, vy); constant-velocity motion with a rolling-friction decay and white-acceleration process noise;
measurements are ball positions in the field frame (the body-relative observation placed with our pose), whose
covariance combines the observation's distance/bearing sigmas with our own position uncertainty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BallParams:
    accel_sigma: float = 1.0          # m/s^2, white acceleration (kicks, bounces, friction model error)
    friction: float = 0.9             # 1/s, velocity decay (0 = constant velocity; SimSpark's ball: about 0.9)
    init_velocity_sigma: float = 1.0  # m/s
    max_speed: float = 15.0           # m/s; a faster estimate is a bad fit and is reset


class BallFilter:
    def __init__(self, params: BallParams = BallParams()) -> None:
        self.p = params
        self.x: np.ndarray | None = None          # (4,)
        self.P = np.eye(4)
        self.t: float | None = None

    def predict(self, t: float) -> None:
        if self.x is None or self.t is None:
            self.t = t
            return
        dt = t - self.t
        if dt <= 0:
            return
        decay = math.exp(-self.p.friction * dt)
        roll = (1.0 - decay) / self.p.friction if self.p.friction > 0 else dt   # distance per unit velocity, exact
        f = np.array([[1, 0, roll, 0], [0, 1, 0, roll], [0, 0, decay, 0], [0, 0, 0, decay]], dtype=float)
        q = self.p.accel_sigma ** 2
        g = np.array([[0.5 * dt * dt, 0], [0, 0.5 * dt * dt], [dt, 0], [0, dt]])
        self.x = f @ self.x
        self.P = f @ self.P @ f.T + q * g @ g.T
        self.t = t

    def update(self, z, r: np.ndarray, t: float) -> None:
        """Measurement z = (x, y) with covariance r (2x2) at time t."""
        z = np.asarray(z, dtype=float)
        if self.x is None:
            self.x = np.array([z[0], z[1], 0.0, 0.0])
            self.P = np.diag([r[0, 0], r[1, 1], self.p.init_velocity_sigma ** 2, self.p.init_velocity_sigma ** 2])
            self.t = t
            return
        self.predict(t)
        h = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=float)
        s = h @ self.P @ h.T + r
        k = self.P @ h.T @ np.linalg.inv(s)
        self.x = self.x + k @ (z - h @ self.x)
        self.P = (np.eye(4) - k @ h) @ self.P
        self.P = 0.5 * (self.P + self.P.T)
        if np.hypot(self.x[2], self.x[3]) > self.p.max_speed:
            self.x[2:] = 0.0
            self.P[2:, 2:] = np.eye(2) * self.p.init_velocity_sigma ** 2

    @staticmethod
    def measurement(pose, cov_pose: np.ndarray, rel_xy, distance_sigma: float, bearing_sigma: float):
        """A body-relative ball observation -> field position and its 2x2 covariance."""
        x, y, th = pose
        c, s = math.cos(th), math.sin(th)
        rx, ry = rel_xy
        z = np.array([x + c * rx - s * ry, y + s * rx + c * ry])
        d = math.hypot(rx, ry)
        b = math.atan2(ry, rx) + th
        u = np.array([math.cos(b), math.sin(b)])
        v = np.array([-u[1], u[0]])
        r_obs = np.outer(u, u) * distance_sigma ** 2 + np.outer(v, v) * (d * bearing_sigma) ** 2
        j = np.array([[1, 0, -s * rx - c * ry], [0, 1, c * rx - s * ry]])   # d z / d pose
        return z, r_obs + j @ cov_pose @ j.T
