"""Monte Carlo self-localization: UT Austin Villa 2011 report §5, vectorized over particles with numpy.

Particles are (x, y, theta) in the team-relative field frame. Each vision frame: (1) odometry update
(x, y, θ) += (a·Δx, b·Δy, c·Δθ) rotated into each particle's heading, with noise; (2) landmark update with Gaussian
log-likelihoods on distance and on bearing, done whenever at least one landmark is seen (one is enough when roughly
localized); field lines as further observations (a step beyond the seed: each seen segment's endpoints should lie on
a field line); (3) only after a landmark update: resample, 5 % of particles uniformly at random over the field (for a
kidnapped robot), then a small random walk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from villa_nao import field as F

SEGMENTS = np.array(F.LINES, dtype=float)          # (m, 2, 2) field lines


@dataclass(frozen=True)
class PFParams:
    particles: int = 1000
    odom_factors: tuple[float, float, float] = (1.0, 1.0, 1.0)  # a, b, c of §5
    odom_noise: tuple[float, float, float] = (0.1, 0.1, 0.1)   # relative 1-sigma of each odometry step
    odom_noise_abs: tuple[float, float, float] = (0.002, 0.002, 0.004)  # m, m, rad per step
    random_fraction: float = 0.05                              # uniformly random particles at resampling
    walk_sigma: tuple[float, float, float] = (0.02, 0.02, 0.01)  # random walk after resampling (m, m, rad)
    line_sigma: float = 0.15                                   # m, endpoint-to-field-line distance 1-sigma
    line_weight: float = 0.5                                   # a line endpoint counts this much of a landmark
    min_distance_sigma: float = 0.05
    min_bearing_sigma: float = math.radians(1.0)


@dataclass(frozen=True)
class Landmark:
    x: float
    y: float
    distance: float          # m, horizontal
    bearing: float           # rad, body frame
    distance_sigma: float
    bearing_sigma: float


def _wrap(a: np.ndarray) -> np.ndarray:
    return (a + np.pi) % (2 * np.pi) - np.pi


_A = SEGMENTS[:, 0]                                 # (m, 2) segment starts
_AB = SEGMENTS[:, 1] - _A                           # (m, 2) segment vectors
_AB2 = np.sum(_AB * _AB, axis=1)                    # (m,)


def _point_segment_distance(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Distance of each point (any shape) to the nearest field line."""
    rx = px[..., None] - _A[:, 0]                   # (..., m)
    ry = py[..., None] - _A[:, 1]
    t = np.clip((rx * _AB[:, 0] + ry * _AB[:, 1]) / _AB2, 0.0, 1.0)
    ex, ey = rx - t * _AB[:, 0], ry - t * _AB[:, 1]
    return np.sqrt(np.min(ex * ex + ey * ey, axis=-1))


class ParticleFilter:
    def __init__(self, params: PFParams = PFParams(), seed: int | None = None) -> None:
        self.p = params
        self.rng = np.random.default_rng(seed)
        self.particles = self.uniform(params.particles)
        self.weights = np.full(params.particles, 1.0 / params.particles)
        self.updates = 0

    # --- initialization ---------------------------------------------------------------------------------
    def uniform(self, n: int) -> np.ndarray:
        r = self.rng.random((n, 3))
        return np.column_stack([(r[:, 0] - 0.5) * F.FIELD_LENGTH, (r[:, 1] - 0.5) * F.FIELD_WIDTH,
                                (r[:, 2] - 0.5) * 2 * np.pi])

    def reset_uniform(self) -> None:
        self.particles = self.uniform(self.p.particles)
        self.weights[:] = 1.0 / self.p.particles

    def seed_pose(self, x: float, y: float, theta: float, sigma=(0.1, 0.1, 0.175)) -> None:
        """A known pose (beam, kick-off position) re-seeds the filter around it."""
        n = self.p.particles
        self.particles = np.column_stack([self.rng.normal(x, sigma[0], n), self.rng.normal(y, sigma[1], n),
                                          _wrap(self.rng.normal(theta, sigma[2], n))])
        self.weights[:] = 1.0 / n

    # --- (1) odometry -----------------------------------------------------------------------------------
    def predict(self, dx: float, dy: float, dtheta: float) -> None:
        a, b, c = self.p.odom_factors
        n = len(self.particles)
        rel, ab = self.p.odom_noise, self.p.odom_noise_abs
        mx = a * dx + self.rng.normal(0, 1, n) * (rel[0] * abs(dx) + ab[0])
        my = b * dy + self.rng.normal(0, 1, n) * (rel[1] * abs(dy) + ab[1])
        mt = c * dtheta + self.rng.normal(0, 1, n) * (rel[2] * abs(dtheta) + ab[2])
        th = self.particles[:, 2]
        cos, sin = np.cos(th), np.sin(th)
        self.particles[:, 0] += cos * mx - sin * my
        self.particles[:, 1] += sin * mx + cos * my
        self.particles[:, 2] = _wrap(th + mt)

    # --- (2) observations -------------------------------------------------------------------------------
    def log_likelihood(self, landmarks: list[Landmark], lines=()) -> np.ndarray:
        x, y, th = self.particles.T
        logw = np.zeros(len(x))
        for lm in landmarks:
            dxl, dyl = lm.x - x, lm.y - y
            d = np.hypot(dxl, dyl)
            b = _wrap(np.arctan2(dyl, dxl) - th)
            sd = max(lm.distance_sigma, self.p.min_distance_sigma)
            sb = max(lm.bearing_sigma, self.p.min_bearing_sigma)
            logw += -0.5 * ((d - lm.distance) / sd) ** 2 - 0.5 * (_wrap(b - lm.bearing) / sb) ** 2
        if len(lines):
            pts = np.asarray(lines, dtype=float).reshape(-1, 2)      # body-frame endpoints
            cos, sin = np.cos(th)[:, None], np.sin(th)[:, None]
            fx = x[:, None] + cos * pts[:, 0] - sin * pts[:, 1]
            fy = y[:, None] + sin * pts[:, 0] + cos * pts[:, 1]
            dist = _point_segment_distance(fx, fy)                    # (n, k)
            logw += -0.5 * self.p.line_weight * np.sum((dist / self.p.line_sigma) ** 2, axis=1)
        return logw

    def update(self, landmarks: list[Landmark], lines=()) -> bool:
        """Weight by the observations (log space), then resample. Returns False (nothing done) without landmarks."""
        if not landmarks and not len(lines):
            return False
        logw = self.log_likelihood(landmarks, lines)
        logw -= logw.max()
        w = np.exp(logw)
        w /= w.sum()
        self.weights = w
        self._resample()
        self.updates += 1
        return True

    # --- (3) resampling ---------------------------------------------------------------------------------
    def _resample(self) -> None:
        n = self.p.particles
        n_random = int(round(self.p.random_fraction * n))
        k = n - n_random
        positions = (self.rng.random() + np.arange(k)) / k          # systematic resampling
        idx = np.minimum(np.searchsorted(np.cumsum(self.weights), positions), len(self.weights) - 1)
        kept = self.particles[idx]
        walk = self.rng.normal(0, 1, (k, 3)) * np.asarray(self.p.walk_sigma)
        kept = kept + walk
        kept[:, 2] = _wrap(kept[:, 2])
        self.particles = np.vstack([kept, self.uniform(n_random)])
        self.weights = np.full(n, 1.0 / n)

    # --- estimate -----------------------------------------------------------------------------------------
    def estimate(self, core: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
        """Weighted mean pose and 3x3 covariance (x, y, theta) of the particles near the mode.

        The random kidnapping particles would drag a plain mean toward the field centre, so the mean is taken over
        the particles within `core` m of the best cluster (the densest particle's neighbourhood)."""
        p, w = self.particles, self.weights
        bins = (np.arange(-F.HALF_LENGTH - 1, F.HALF_LENGTH + 1 + core, core),
                np.arange(-F.HALF_WIDTH - 1, F.HALF_WIDTH + 1 + core, core))
        hist, xe, ye = np.histogram2d(p[:, 0], p[:, 1], bins=bins, weights=w)
        # the densest 3x3 block of cells
        padded = np.pad(hist, 1)
        block = sum(padded[i:i + hist.shape[0], j:j + hist.shape[1]] for i in range(3) for j in range(3))
        i, j = np.unravel_index(int(np.argmax(block)), block.shape)
        centre = np.array([(xe[i] + xe[i + 1]) / 2, (ye[j] + ye[j + 1]) / 2])
        mask = ((p[:, :2] - centre) ** 2).sum(-1) < (2 * core) ** 2
        if mask.sum() < 5:
            mask[:] = True
        q, wq = p[mask], w[mask] / w[mask].sum()
        mx, my = wq @ q[:, 0], wq @ q[:, 1]
        mt = math.atan2(wq @ np.sin(q[:, 2]), wq @ np.cos(q[:, 2]))
        dev = np.column_stack([q[:, 0] - mx, q[:, 1] - my, _wrap(q[:, 2] - mt)])
        cov = (dev * wq[:, None]).T @ dev
        return np.array([mx, my, mt]), cov
