"""Monte Carlo self-localization: UT Austin Villa 2011 report §5, vectorized over particles with numpy.

Particles are (x, y, theta) in the team-relative field frame. Each vision frame: (1) odometry update
(x, y, θ) += (a·Δx, b·Δy, c·Δθ) rotated into each particle's heading, with noise; (2) landmark update with Gaussian
log-likelihoods on distance and on bearing, done whenever at least one landmark is seen (one is enough when roughly
localized); field lines as further observations (a step beyond the seed: each seen segment's endpoints should lie on
a field line); (3) only after a landmark update: resample, 5 % of particles uniformly at random over the field (for a
kidnapped robot), then a small random walk.

When the observations stop fitting the particles (a robot moved by the referee, a bad get-up), §5's 5 % random
particles rarely land near the truth. The filter tracks how well each update's observations fit (the particles' mean
likelihood per observation, averaged fast and slow: augmented MCL) and, as the fast average drops below the slow one,
draws up to `reset_fraction_max` of the particles from the seen landmarks themselves (sensor resetting: poses at the
observed distances and bearings, triangulated from two landmarks; never from one alone, whose poses form a ring of
its distance's radius that fits it perfectly and crowds out the truth). While the fit is collapsed the filter is
*lost*: it reports the whole particle set's covariance, never less than `lost_sigma`, instead of the tight cluster's.
A particle farther than `field_margin` outside the field lines gets no weight (robots play on the field).
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
    fit_prior: float = 0.3                                     # the observation fit expected before any update
    fit_alpha_slow: float = 0.05                               # averaging weights of the observation fit (per update)
    fit_alpha_fast: float = 0.4
    reset_fraction_max: float = 0.5                            # at most this share drawn from the observations
    lost_ratio: float = 0.2                                    # fast fit below this share of the slow one: lost
    lost_fit: float = 1e-3                                     # ... or below this (per-observation likelihood)
    lost_sigma: float = 2.0                                    # m, the smallest position sigma reported while lost
    field_margin: float = 1.5                                  # m outside the field lines a robot may stand
    outlier: float = 0.05                                      # share of a landmark's likelihood that is an outlier


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
    """Distance of each point (any shape) to the nearest field line (exact; _line_distance interpolates it)."""
    rx = px[..., None] - _A[:, 0]                   # (..., m)
    ry = py[..., None] - _A[:, 1]
    t = np.clip((rx * _AB[:, 0] + ry * _AB[:, 1]) / _AB2, 0.0, 1.0)
    ex, ey = rx - t * _AB[:, 0], ry - t * _AB[:, 1]
    return np.sqrt(np.min(ex * ex + ey * ey, axis=-1))


GRID_RES = 0.02                                     # m: the line-distance grid's cell
GRID_MARGIN = 2.0                                   # m around the field lines the grid covers
_GRID_X0, _GRID_Y0 = -F.HALF_LENGTH - GRID_MARGIN, -F.HALF_WIDTH - GRID_MARGIN
_GRID_NX = int(round(2 * (F.HALF_LENGTH + GRID_MARGIN) / GRID_RES)) + 1
_GRID_NY = int(round(2 * (F.HALF_WIDTH + GRID_MARGIN) / GRID_RES)) + 1
_grid: np.ndarray | None = None


def _distance_grid() -> np.ndarray:
    """The distance to the nearest field line at every GRID_RES node over the field and GRID_MARGIN around it,
    computed once per process (about a second, when the first filter that weighs lines is made)."""
    global _grid
    if _grid is None:
        xs = _GRID_X0 + GRID_RES * np.arange(_GRID_NX)
        ys = _GRID_Y0 + GRID_RES * np.arange(_GRID_NY)
        g = np.empty((_GRID_NX, _GRID_NY), dtype=np.float32)
        for i in range(0, _GRID_NX, 64):                      # in chunks: the exact distance's (n, m) temporaries
            gx, gy = np.meshgrid(xs[i:i + 64], ys, indexing="ij")
            g[i:i + 64] = _point_segment_distance(gx, gy)
        _grid = g
    return _grid


def _line_distance(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Distance of each point (any shape) to the nearest field line, interpolated bilinearly in the precomputed grid
    (within 1.5 cm of _point_segment_distance; the exact one takes 5 ms per frame for five seen lines and 1000
    particles); a point outside the grid adds its distance to the grid's edge."""
    g = _distance_grid()
    fx = (px - _GRID_X0) / GRID_RES
    fy = (py - _GRID_Y0) / GRID_RES
    cx = np.clip(fx, 0.0, _GRID_NX - 1.000001)
    cy = np.clip(fy, 0.0, _GRID_NY - 1.000001)
    ix, iy = cx.astype(np.intp), cy.astype(np.intp)
    ax, ay = cx - ix, cy - iy
    d = (g[ix, iy] * (1 - ax) + g[ix + 1, iy] * ax) * (1 - ay) \
        + (g[ix, iy + 1] * (1 - ax) + g[ix + 1, iy + 1] * ax) * ay
    outside = np.hypot(fx - cx, fy - cy) * GRID_RES
    return d + outside


class ParticleFilter:
    def __init__(self, params: PFParams = PFParams(), seed: int | None = None) -> None:
        self.p = params
        self.rng = np.random.default_rng(seed)
        self.particles = self.uniform(params.particles)
        self.weights = np.full(params.particles, 1.0 / params.particles)
        self.updates = 0
        self.fit: float | None = None               # last update's mean per-observation likelihood
        self.fit_slow = self.fit_fast = params.fit_prior
        self.resets = 0                              # particles drawn from observations so far
        self._unknown = True                         # uniform, not yet updated: lost
        if params.line_weight > 0:
            _distance_grid()                         # built now (about a second), not at the first frame with lines

    # --- initialization ---------------------------------------------------------------------------------
    def uniform(self, n: int) -> np.ndarray:
        r = self.rng.random((n, 3))
        return np.column_stack([(r[:, 0] - 0.5) * F.FIELD_LENGTH, (r[:, 1] - 0.5) * F.FIELD_WIDTH,
                                (r[:, 2] - 0.5) * 2 * np.pi])

    def reset_uniform(self) -> None:
        self.particles = self.uniform(self.p.particles)
        self.weights[:] = 1.0 / self.p.particles
        self._unknown = True

    def seed_pose(self, x: float, y: float, theta: float, sigma=(0.1, 0.1, 0.175)) -> None:
        """A known pose (beam, kick-off position) re-seeds the filter around it."""
        n = self.p.particles
        self.particles = np.column_stack([self.rng.normal(x, sigma[0], n), self.rng.normal(y, sigma[1], n),
                                          _wrap(self.rng.normal(theta, sigma[2], n))])
        self.weights[:] = 1.0 / n
        self._unknown = False

    def widen(self, sigma) -> None:
        """Spread every particle by Gaussian noise (m, m, rad): a fall, a get-up, time without vision."""
        self.particles = self.particles + self.rng.normal(0, 1, self.particles.shape) * np.asarray(sigma, float)
        self.particles[:, 2] = _wrap(self.particles[:, 2])

    def from_observations(self, landmarks: list[Landmark], n: int) -> np.ndarray:
        """n poses drawn from the seen landmarks (sensor resetting): with two or more, each pose is triangulated
        from a random pair at noisy distances (the mirror solution ruled out by the bearings); with one, it lies on
        the circle of the observed distance. The heading makes the first landmark's bearing match."""
        lm = np.array([(o.x, o.y, o.distance, o.bearing, max(o.distance_sigma, self.p.min_distance_sigma),
                        max(o.bearing_sigma, self.p.min_bearing_sigma)) for o in landmarks], dtype=float)
        m = len(lm)
        i = self.rng.integers(0, m, n)
        a = lm[i]
        ra = np.maximum(a[:, 2] + self.rng.normal(0, 1, n) * a[:, 4], 0.05)
        if m >= 2:
            j = (i + self.rng.integers(1, m, n)) % m                # another landmark
            b = lm[j]
            rb = np.maximum(b[:, 2] + self.rng.normal(0, 1, n) * b[:, 4], 0.05)
            ab = b[:, :2] - a[:, :2]
            d = np.maximum(np.hypot(ab[:, 0], ab[:, 1]), 1e-6)
            u = ab / d[:, None]
            along = (ra ** 2 - rb ** 2 + d ** 2) / (2 * d)
            h = np.sqrt(np.maximum(ra ** 2 - along ** 2, 0.0))
            perp = np.column_stack([-u[:, 1], u[:, 0]])
            base = a[:, :2] + u * along[:, None]
            p1, p2 = base + perp * h[:, None], base - perp * h[:, None]
            # the seen angle from a to b (bearing difference) must match the one from the candidate position
            seen = _wrap(b[:, 3] - a[:, 3])

            def turn(p):
                return _wrap(np.arctan2(b[:, 1] - p[:, 1], b[:, 0] - p[:, 0])
                             - np.arctan2(a[:, 1] - p[:, 1], a[:, 0] - p[:, 0]))

            pos = np.where((np.abs(_wrap(turn(p1) - seen)) <= np.abs(_wrap(turn(p2) - seen)))[:, None], p1, p2)
        else:
            phi = self.rng.uniform(-np.pi, np.pi, n)
            pos = a[:, :2] + ra[:, None] * np.column_stack([np.cos(phi), np.sin(phi)])
        bearing = a[:, 3] + self.rng.normal(0, 1, n) * a[:, 5]
        th = _wrap(np.arctan2(a[:, 1] - pos[:, 1], a[:, 0] - pos[:, 0]) - bearing)
        return np.column_stack([pos, th])

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
    def log_likelihoods(self, landmarks: list[Landmark], lines=()) -> tuple[np.ndarray, np.ndarray]:
        """Per particle, the observations' (Gaussian, robust) log-likelihoods. Robust: each landmark's likelihood
        mixed with an outlier share (`outlier`), so that one observation several sigmas off (a bearing 4-7 deg off,
        seen in games) costs the particles that are right at most log(outlier) instead of handing the weight to the
        few random particles it happens to fit. The lines' term (the costly part) is computed once for both."""
        x, y, th = self.particles.T
        gauss, mixed = np.zeros(len(x)), np.zeros(len(x))
        eps = self.p.outlier
        for lm in landmarks:
            dxl, dyl = lm.x - x, lm.y - y
            d = np.hypot(dxl, dyl)
            b = _wrap(np.arctan2(dyl, dxl) - th)
            sd = max(lm.distance_sigma, self.p.min_distance_sigma)
            sb = max(lm.bearing_sigma, self.p.min_bearing_sigma)
            term = -0.5 * ((d - lm.distance) / sd) ** 2 - 0.5 * (_wrap(b - lm.bearing) / sb) ** 2
            gauss += term
            mixed += np.logaddexp(math.log1p(-eps) + term, math.log(eps)) if eps > 0 else term
        if len(lines):
            pts = np.asarray(lines, dtype=float).reshape(-1, 2)      # body-frame endpoints
            cos, sin = np.cos(th)[:, None], np.sin(th)[:, None]
            fx = x[:, None] + cos * pts[:, 0] - sin * pts[:, 1]
            fy = y[:, None] + sin * pts[:, 0] + cos * pts[:, 1]
            dist = _line_distance(fx, fy)                             # (n, k)
            term = -0.5 * self.p.line_weight * np.sum((dist / self.p.line_sigma) ** 2, axis=1)
            gauss += term
            mixed += term
        return gauss, mixed

    def update(self, landmarks: list[Landmark], lines=()) -> bool:
        """Weight by the observations (log space), then resample. Returns False (nothing done) without landmarks."""
        if not landmarks and not len(lines):
            return False
        fit_logw, logw = self.log_likelihoods(landmarks, lines)
        x, y = self.particles[:, 0], self.particles[:, 1]
        off_field = (np.abs(x) > F.HALF_LENGTH + self.p.field_margin) | (np.abs(y) > F.HALF_WIDTH + self.p.field_margin)
        # how well the observations fit: the particles' mean likelihood per observation (0..1)
        terms = len(landmarks) + self.p.line_weight * 2 * len(lines)
        self.fit = float(np.mean(np.exp(fit_logw[~off_field] / terms))) if not off_field.all() else 0.0
        self.fit_slow += self.p.fit_alpha_slow * (self.fit - self.fit_slow)
        self.fit_fast += self.p.fit_alpha_fast * (self.fit - self.fit_fast)
        self._unknown = False
        logw[off_field] = -np.inf
        if off_field.all():                              # nothing on the field (cannot happen after a reset)
            logw[:] = 0.0
        logw -= logw.max()
        w = np.exp(logw)
        w /= w.sum()
        self.weights = w
        self._resample(landmarks)
        self.updates += 1
        return True

    @property
    def reset_fraction(self) -> float:
        """The share of particles to draw from the observations: 1 - fast/slow fit (augmented MCL), capped."""
        if self.fit_slow <= 0:
            return 0.0
        return float(min(self.p.reset_fraction_max, max(0.0, 1.0 - self.fit_fast / self.fit_slow)))

    @property
    def lost(self) -> bool:
        """The observations do not fit the particles: the fit collapsed against its average, or is tiny."""
        return self._unknown or bool(self.fit_fast < self.p.lost_ratio * self.fit_slow
                                     or self.fit_fast < self.p.lost_fit)

    # --- (3) resampling ---------------------------------------------------------------------------------
    def _resample(self, landmarks=()) -> None:
        n = self.p.particles
        n_random = int(round(self.p.random_fraction * n))
        n_reset = int(round(self.reset_fraction * n)) if len(landmarks) >= 2 else 0
        k = n - n_random - n_reset
        positions = (self.rng.random() + np.arange(k)) / k          # systematic resampling
        idx = np.minimum(np.searchsorted(np.cumsum(self.weights), positions), len(self.weights) - 1)
        kept = self.particles[idx]
        walk = self.rng.normal(0, 1, (k, 3)) * np.asarray(self.p.walk_sigma)
        kept = kept + walk
        kept[:, 2] = _wrap(kept[:, 2])
        parts = [kept, self.uniform(n_random)]
        if n_reset:
            parts.append(self.from_observations(landmarks, n_reset))
            self.resets += n_reset
        self.particles = np.vstack(parts)
        self.weights = np.full(n, 1.0 / n)

    # --- estimate -----------------------------------------------------------------------------------------
    def estimate(self, core: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
        """Weighted mean pose and 3x3 covariance (x, y, theta) of the particles near the mode.

        The random kidnapping particles would drag a plain mean toward the field centre, so the mean is taken over
        the particles within `core` m of the best cluster (the densest particle's neighbourhood). While lost, the
        covariance is the whole set's about that mean, with position sigmas of at least `lost_sigma`."""
        p, w = self.particles, self.weights
        xe = np.arange(-F.HALF_LENGTH - 1, F.HALF_LENGTH + 1 + core, core)
        ye = np.arange(-F.HALF_WIDTH - 1, F.HALF_WIDTH + 1 + core, core)
        nx, ny = len(xe) - 1, len(ye) - 1
        # a weighted 2-D histogram of the positions over those cells (np.histogram2d's, without its generality)
        ix = np.floor((p[:, 0] - xe[0]) / core).astype(int)
        iy = np.floor((p[:, 1] - ye[0]) / core).astype(int)
        inside = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
        hist = np.bincount(ix[inside] * ny + iy[inside], weights=w[inside], minlength=nx * ny).reshape(nx, ny)
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
        if self.lost:
            dev = np.column_stack([p[:, 0] - mx, p[:, 1] - my, _wrap(p[:, 2] - mt)])
            cov = (dev * w[:, None]).T @ dev
            for i in (0, 1):
                cov[i, i] = max(cov[i, i], self.p.lost_sigma ** 2)
        return np.array([mx, my, mt]), cov
