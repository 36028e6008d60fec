"""Fall detection from the accelerometer: UT Austin Villa 2011 report §8.

The accelerometer measures the specific force in the torso frame (REP-103: x forward, y left, z up): at rest it
reads the "up" direction times g. Thresholding its x and y components says whether the robot is upright, falling,
or lying on its front (up = -x), back (up = +x) or side (up = +-y). A short low-pass filter ignores impacts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UPRIGHT, FALLING, FALLEN_FRONT, FALLEN_BACK, FALLEN_SIDE = 0, 1, 2, 3, 4
NAMES = {UPRIGHT: "upright", FALLING: "falling", FALLEN_FRONT: "fallen_front", FALLEN_BACK: "fallen_back",
         FALLEN_SIDE: "fallen_side"}


@dataclass(frozen=True)
class FallParams:
    upright_tilt: float = math.radians(30)    # tilt of "up" from the torso z axis below which we are upright
    lying_xy: float = 6.5                     # m/s^2: |acc_x| or |acc_y| above this (and settled) means lying
    settled: float = 2.5                      # m/s^2: |‖acc‖ - g| below this means not being thrown around
    smoothing: float = 0.3                    # low-pass weight of a new reading (0..1]
    g: float = 9.81


class FallDetector:
    def __init__(self, params: FallParams = FallParams()) -> None:
        self.p = params
        self.acc: np.ndarray | None = None
        self.state = UPRIGHT
        self.since = 0.0

    def update(self, acc, t: float) -> tuple[int, float]:
        """One accelerometer reading (m/s^2, torso frame) at time t (s) -> (state, seconds in that state)."""
        a = np.asarray(acc, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)):
            return self.state, max(0.0, t - self.since)
        self.acc = a if self.acc is None else (1 - self.p.smoothing) * self.acc + self.p.smoothing * a
        state = self.classify(self.acc)
        if state != self.state:
            self.state, self.since = state, t
        return self.state, max(0.0, t - self.since)

    def classify(self, a: np.ndarray) -> int:
        n = float(np.linalg.norm(a))
        if n < 1e-6:
            return self.state  # no reading (SimSpark's first perception reads 0 0 0)
        tilt = math.acos(max(-1.0, min(1.0, a[2] / n)))
        if tilt < self.p.upright_tilt:
            return UPRIGHT
        if abs(n - self.p.g) < self.p.settled:
            if a[0] < -self.p.lying_xy:
                return FALLEN_FRONT
            if a[0] > self.p.lying_xy:
                return FALLEN_BACK
            if abs(a[1]) > self.p.lying_xy:
                return FALLEN_SIDE
        return FALLING
