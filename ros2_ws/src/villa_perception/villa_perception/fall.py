"""Fall detection from the accelerometer: UT Austin Villa 2011 report §8, as a state machine with hysteresis.

The accelerometer measures the specific force in the torso frame (REP-103: x forward, y left, z up): at rest it
reads the "up" direction times g. Thresholding its x and y components says whether the robot is upright, falling,
or lying on its front (up = -x), back (up = +x) or side (up = +-y). A short low-pass filter ignores impacts.

One fall is one event: UPRIGHT -> FALLING -> FALLEN_* -> UPRIGHT. A state is left only on evidence held for a while
(dwell times), and with hysteresis on the tilt: the robot is falling beyond `upright_tilt` but upright again only
below `recover_tilt`. Once FALLEN_* the robot stays down (get-up included) until it stands again; a lying robot
that is shaken (a get-up attempt, a collision) never flickers back to FALLING. It may turn over to another lying
side (a failed get-up), which needs `switch_time` of the new side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UPRIGHT, FALLING, FALLEN_FRONT, FALLEN_BACK, FALLEN_SIDE = 0, 1, 2, 3, 4
NAMES = {UPRIGHT: "upright", FALLING: "falling", FALLEN_FRONT: "fallen_front", FALLEN_BACK: "fallen_back",
         FALLEN_SIDE: "fallen_side"}
FALLEN = (FALLEN_FRONT, FALLEN_BACK, FALLEN_SIDE)


@dataclass(frozen=True)
class FallParams:
    upright_tilt: float = math.radians(30)    # tilt of "up" from the torso z axis above which we are falling
    recover_tilt: float = math.radians(20)    # ... and below which (for recover_time) we are upright again
    recover_time: float = 0.3                 # s
    lying_xy: float = 6.5                     # m/s^2: |acc_x| or |acc_y| above this (and settled) means lying
    settled: float = 2.5                      # m/s^2: |‖acc‖ - g| below this means not being thrown around
    lying_time: float = 0.1                   # s of a settled lying reading before FALLEN_*
    lying_tilt: float = math.radians(60)      # tilt beyond which a robot that never settles is lying anyway ...
    unsettled_time: float = 1.0               # ... after this long (shaking on the ground, a get-up kicking)
    switch_time: float = 0.2                  # s of another lying side before FALLEN_* changes side (< a lie skill)
    airborne: float = 0.5                     # ‖acc‖ below this many g: in the air (dropped, bouncing): no evidence
    smoothing: float = 0.3                    # low-pass weight of a new reading (0..1]
    g: float = 9.81


class FallDetector:
    def __init__(self, params: FallParams = FallParams()) -> None:
        self.p = params
        self.acc: np.ndarray | None = None
        self.state = UPRIGHT
        self.since = 0.0
        self.falls = 0                          # falls so far (FALLING -> FALLEN_*: one per fall)
        self._cand: int | None = None           # the state the evidence points to, and since when
        self._cand_since = 0.0

    def update(self, acc, t: float) -> tuple[int, float]:
        """One accelerometer reading (m/s^2, torso frame) at time t (s) -> (state, seconds in that state)."""
        a = np.asarray(acc, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)):
            return self.state, max(0.0, t - self.since)
        if float(np.linalg.norm(a)) < 1e-6:
            return self.state, max(0.0, t - self.since)   # no reading (SimSpark's first perception reads 0 0 0)
        self.acc = a if self.acc is None else (1 - self.p.smoothing) * self.acc + self.p.smoothing * a
        if float(np.linalg.norm(self.acc)) < self.p.airborne * self.p.g:
            return self.state, max(0.0, t - self.since)   # a robot placed by the referee drops: no tilt to read
        nxt = self._next(self.acc, t)
        if nxt != self.state:
            if self.state == FALLING and nxt in FALLEN:
                self.falls += 1
            self.state, self.since = nxt, t
            self._cand = None
        return self.state, max(0.0, t - self.since)

    def _held(self, cand: int | None, t: float, dwell: float) -> bool:
        """True once `cand` has been what the evidence says for `dwell` s without interruption."""
        if cand is None:
            self._cand = None
            return False
        if cand != self._cand:
            self._cand, self._cand_since = cand, t
        return t - self._cand_since >= dwell - 1e-9

    def _next(self, a: np.ndarray, t: float) -> int:
        tilt = self.tilt(a)
        if self.state == UPRIGHT:
            return FALLING if tilt > self.p.upright_tilt else UPRIGHT
        if tilt < self.p.recover_tilt:
            return UPRIGHT if self._held(UPRIGHT, t, self.p.recover_time) else self.state
        side = self.lying_side(a)
        if self.state == FALLING:
            if side is not None:
                return side if self._held(side, t, self.p.lying_time) else FALLING
            if tilt > self.p.lying_tilt:     # lying but never settled: the dominant axis after unsettled_time
                return self.dominant_side(a) if self._held(-1, t, self.p.unsettled_time) else FALLING
            self._held(None, t, 0.0)
            return FALLING
        # FALLEN_*: down until upright again; another side only when held
        if side is not None and side != self.state:
            return side if self._held(side, t, self.p.switch_time) else self.state
        self._held(None, t, 0.0)
        return self.state

    def tilt(self, a: np.ndarray) -> float:
        n = float(np.linalg.norm(a))
        return math.acos(max(-1.0, min(1.0, a[2] / n))) if n > 1e-6 else 0.0

    def lying_side(self, a: np.ndarray) -> int | None:
        """FALLEN_* for a settled reading of a lying torso, else None."""
        if abs(float(np.linalg.norm(a)) - self.p.g) >= self.p.settled:
            return None
        if a[0] < -self.p.lying_xy:
            return FALLEN_FRONT
        if a[0] > self.p.lying_xy:
            return FALLEN_BACK
        if abs(a[1]) > self.p.lying_xy:
            return FALLEN_SIDE
        return None

    @staticmethod
    def dominant_side(a: np.ndarray) -> int:
        if abs(a[0]) >= abs(a[1]):
            return FALLEN_FRONT if a[0] < 0 else FALLEN_BACK
        return FALLEN_SIDE

    def classify(self, a: np.ndarray) -> int:
        """The memoryless §8 threshold rule on one (filtered) reading: what the state machine's evidence is."""
        if self.tilt(a) < self.p.upright_tilt:
            return UPRIGHT
        return self.lying_side(a) or FALLING
