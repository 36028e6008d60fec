"""Head control: UT Austin Villa 2011 report §4.1.

- Scan: an 8-second cycle that moves the pan every 2 s: straight ahead, 120° left, straight ahead, 120° right,
  straight ahead (with the 120° view cone, a full 360° sweep). The pan is limited to the joint's range.
- Ball focus: pan centred on the ball's direction, moving 30° to either side of it.
- Fixed and look-at.
The head is tilted down as far as §4.1 asks (45°) or as the joint allows (SimSpark's HeadPitch is limited to ±45°).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCAN, BALL_FOCUS, FIXED, LOOK_AT = 0, 1, 2, 3       # villa_msgs/HeadCommand modes


@dataclass(frozen=True)
class HeadParams:
    cycle: float = 8.0                  # s, scan cycle
    scan_pan: float = math.radians(120)
    focus_pan: float = math.radians(30)
    focus_period: float = 2.0           # s, one left-right sweep around the ball
    tilt: float = math.radians(45)      # downward (NAOqi HeadPitch positive = down)
    yaw_limit: float = math.radians(119.5)
    pitch_limit: float = math.radians(45)
    max_speed: float = math.radians(200)  # rad/s of the pan, so the head does not whip


def _ramp(t: float, points: list[tuple[float, float]]) -> float:
    """Piecewise-linear through (time, value) points."""
    for (t0, v0), (t1, v1) in zip(points, points[1:], strict=False):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return points[-1][1]


class HeadController:
    def __init__(self, params: HeadParams = HeadParams()) -> None:
        self.p = params
        self.yaw = 0.0
        self.pitch = min(params.tilt, params.pitch_limit)
        self.t = 0.0

    def update(self, dt: float, mode: int, target_bearing: float | None = None, target_distance: float | None = None,
               yaw: float = 0.0, pitch: float | None = None, torso_height: float = 0.36) -> tuple[float, float]:
        """Returns (HeadYaw, HeadPitch) targets (rad, NAOqi signs) for this cycle."""
        p = self.p
        self.t += dt
        tilt = min(p.tilt, p.pitch_limit)
        if mode == FIXED:
            want_yaw, want_pitch = yaw, tilt if pitch is None else pitch
        elif mode in (BALL_FOCUS, LOOK_AT) and target_bearing is not None:
            if mode == BALL_FOCUS:
                phase = (self.t % p.focus_period) / p.focus_period
                want_yaw = target_bearing + p.focus_pan * math.sin(2 * math.pi * phase)
            else:
                want_yaw = target_bearing
            want_pitch = tilt
            if target_distance is not None and target_distance > 0.05:
                want_pitch = max(-p.pitch_limit, min(p.pitch_limit, math.atan2(torso_height, target_distance)))
        else:  # SCAN (and focus without a target)
            s = p.scan_pan
            q = p.cycle / 4
            want_yaw = _ramp(self.t % p.cycle, [(0, 0), (q, s), (2 * q, 0), (3 * q, -s), (4 * q, 0)])
            want_pitch = tilt
        want_yaw = max(-p.yaw_limit, min(p.yaw_limit, want_yaw))
        step = p.max_speed * dt
        self.yaw += max(-step, min(step, want_yaw - self.yaw))
        self.pitch = max(-p.pitch_limit, min(p.pitch_limit, want_pitch))
        return self.yaw, self.pitch
