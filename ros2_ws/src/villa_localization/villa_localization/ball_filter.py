"""The ball's Kalman filter on position and velocity in the robot frame: UT Austin Villa 2011 report §9.2.

State (x, y, vx, vy) in base_footprint; constant-velocity motion with a rolling-friction decay and white-acceleration
process noise; the walk's odometry moves the state into the new robot frame (`move`); measurements are the seen
ball's body-relative position with a covariance from the observation's distance and bearing sigmas.

Kept in the robot frame so that what the robot sees is what it kicks: our pose estimate's error and jumps (a beam,
a sensor reset, a fall) do not move the ball relative to the feet; the field-frame ball (`in_field`) is the pose
composed with it. A measurement that does not fit the prediction (Mahalanobis distance² above `gate`: the ball
was kicked, moved by the referee, or the estimate came from a stale frame) starts the filter again from it
instead of being averaged in (averaged in, a beam's stale first frame gave the ball a velocity of 6 m/s that
lasted 2 s and put the kick-off taker's ball 12 cm off).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BallParams:
    accel_sigma: float = 1.0          # m/s^2, white acceleration (friction model error, small kicks)
    friction: float = 0.9             # 1/s, velocity decay (0 = constant velocity; SimSpark's ball: about 0.9)
    init_velocity_sigma: float = 1.0  # m/s
    max_speed: float = 15.0           # m/s; a faster estimate is a bad fit and is reset
    gate: float = 25.0                # Mahalanobis distance² beyond which a measurement restarts the filter
    odom_sigma: float = 0.1           # relative 1-sigma of the odometry step moving the ball (m/m, rad/rad)


def _rotation4(th: float) -> np.ndarray:
    """The rotation by `th` of both the position and the velocity of a state (x, y, vx, vy)."""
    c, s = math.cos(th), math.sin(th)
    t = np.zeros((4, 4))
    t[:2, :2] = t[2:, 2:] = [[c, -s], [s, c]]
    return t


class BallFilter:
    def __init__(self, params: BallParams = BallParams()) -> None:
        self.p = params
        self.x: np.ndarray | None = None          # (4,) robot frame
        self.P = np.eye(4)
        self.t: float | None = None
        self.restarts = 0                          # measurements that did not fit (the filter started again)

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

    def move(self, dx: float, dy: float, dth: float) -> None:
        """The robot moved by (dx, dy) m and turned dth rad (in its previous frame): the ball into the new frame,
        with the step's uncertainty (`odom_sigma` of its length and turn) added to the position."""
        if self.x is None:
            return
        t = _rotation4(-dth)
        self.x = t @ (self.x - np.array([dx, dy, 0.0, 0.0]))
        self.P = t @ self.P @ t.T
        s = self.p.odom_sigma
        lateral = abs(dth) * math.hypot(*self.x[:2])            # the turn's error moves the ball across
        self.P[:2, :2] += np.eye(2) * (s * math.hypot(dx, dy)) ** 2 + np.eye(2) * (s * lateral) ** 2

    def update(self, z, r: np.ndarray, t: float) -> None:
        """Measurement z = (x, y) in the robot frame with covariance r (2x2) at time t."""
        z = np.asarray(z, dtype=float)
        if self.x is not None:
            self.predict(t)
            h = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=float)
            s = h @ self.P @ h.T + r
            innovation = z - h @ self.x
            if float(innovation @ np.linalg.solve(s, innovation)) <= self.p.gate:
                k = self.P @ h.T @ np.linalg.inv(s)
                self.x = self.x + k @ innovation
                self.P = (np.eye(4) - k @ h) @ self.P
                self.P = 0.5 * (self.P + self.P.T)
                if np.hypot(self.x[2], self.x[3]) > self.p.max_speed:
                    self.x[2:] = 0.0
                    self.P[2:, 2:] = np.eye(2) * self.p.init_velocity_sigma ** 2
                return
            self.restarts += 1
        self.x = np.array([z[0], z[1], 0.0, 0.0])
        self.P = np.zeros((4, 4))
        self.P[:2, :2] = r
        self.P[2:, 2:] = np.eye(2) * self.p.init_velocity_sigma ** 2
        self.t = t

    def in_field(self, pose, cov_pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The state in the field frame of `pose` (x, y, theta) and its 4x4 covariance, our pose's 3x3 covariance
        included (position block)."""
        x, y, th = pose
        t = _rotation4(th)
        state = t @ self.x + np.array([x, y, 0.0, 0.0])
        fx, fy = state[0] - x, state[1] - y                                 # the ball from us, field axes
        j = np.zeros((4, 3))
        j[:2] = [[1, 0, -fy], [0, 1, fx]]                                  # d position / d pose
        return state, t @ self.P @ t.T + j @ np.asarray(cov_pose) @ j.T

    @staticmethod
    def measurement(rel_xy, distance_sigma: float, bearing_sigma: float) -> tuple[np.ndarray, np.ndarray]:
        """A body-relative ball observation -> (z, its 2x2 covariance) in the robot frame."""
        z = np.asarray(rel_xy, dtype=float)
        d = math.hypot(*z)
        b = math.atan2(z[1], z[0])
        u = np.array([math.cos(b), math.sin(b)])
        v = np.array([-u[1], u[0]])
        return z, np.outer(u, u) * distance_sigma ** 2 + np.outer(v, v) * (d * bearing_sigma) ** 2
