"""SimSpark's vision noise model (RestrictedVisionPerceptor, rcssserver3d 0.7.3).

Facts: shared/simspark/SIMSPARK_FACTS.md, "Vision". Per perceptor, a calibration offset drawn once from
uniform(-0.005, 0.005) m per axis is added to every relative position in the head frame before the
conversion to polar; then distance += N(0, 0.0965) * d / 100, horizontal angle += N(0, 0.1480) deg,
vertical angle += N(0, 0.1225) deg. Values are printed with 2 decimals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIGMA_DIST_PERCENT = 0.0965
SIGMA_THETA_DEG = 0.1480   # horizontal angle
SIGMA_PHI_DEG = 0.1225     # vertical angle
CALIBRATION_RANGE = 0.005  # m per axis
MIN_DISTANCE = 0.1         # m: closer objects are not reported


@dataclass
class VisionNoise:
    """Noise of one robot's camera: a fixed calibration offset plus per-reading Gaussian noise."""

    rng: np.random.Generator
    calibration: np.ndarray  # (3,) m, camera frame

    @classmethod
    def draw(cls, rng: np.random.Generator) -> VisionNoise:
        return cls(rng, rng.uniform(-CALIBRATION_RANGE, CALIBRATION_RANGE, size=3))

    def apply(self, dist: np.ndarray, az_deg: np.ndarray, el_deg: np.ndarray):
        """Noisy (distance m, azimuth deg, elevation deg), rounded to 2 decimals, and a keep mask."""
        dist = np.asarray(dist, dtype=float)
        az, el = np.radians(az_deg), np.radians(el_deg)
        rel = np.stack([dist * np.cos(el) * np.cos(az), dist * np.cos(el) * np.sin(az), dist * np.sin(el)])
        rel = rel + self.calibration[:, None]
        d = np.linalg.norm(rel, axis=0)
        theta = np.degrees(np.arctan2(rel[1], rel[0]))
        phi = np.degrees(np.arcsin(np.clip(rel[2] / np.maximum(d, 1e-12), -1.0, 1.0)))
        n = dist.shape[0]
        d = d + self.rng.normal(0.0, SIGMA_DIST_PERCENT, n) * d / 100.0
        theta = theta + self.rng.normal(0.0, SIGMA_THETA_DEG, n)
        phi = phi + self.rng.normal(0.0, SIGMA_PHI_DEG, n)
        return np.round(d, 2), np.round(theta, 2), np.round(phi, 2), d >= MIN_DISTANCE
