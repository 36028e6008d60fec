"""The goalie: positioning (UT Austin Villa 2011 report §9.1) and the dive decision (§9.3).

Team-relative field frame (our goal at -x). The goalie stands on a line 0.5 m in front of our goal line, between the
ball and the goal, on the bisector of the angle the goal posts make at the ball (which minimizes the larger of the two
post-ball-goalie angles), inside the goal width. It dives only when the tracked ball (Kalman filter, §9.2) is headed
into the goal faster than a threshold; otherwise it intercepts by walking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from villa_nao import field as F

GOALIE_LINE = -F.HALF_LENGTH + 0.5


def goalie_position(ball) -> np.ndarray:
    b = np.asarray(ball, dtype=float)[:2]
    left = np.array([-F.HALF_LENGTH, F.GOAL_WIDTH / 2])
    right = np.array([-F.HALF_LENGTH, -F.GOAL_WIDTH / 2])
    ul, ur = left - b, right - b
    nl, nr = np.linalg.norm(ul), np.linalg.norm(ur)
    if nl < 1e-6 or nr < 1e-6 or b[0] <= GOALIE_LINE:
        return np.array([GOALIE_LINE, float(np.clip(b[1], -F.GOAL_WIDTH / 2, F.GOAL_WIDTH / 2))])
    bis = ul / nl + ur / nr
    if abs(bis[0]) < 1e-9:
        y = b[1]
    else:
        s = (GOALIE_LINE - b[0]) / bis[0]
        y = b[1] + s * bis[1]
    return np.array([GOALIE_LINE, float(np.clip(y, -F.GOAL_WIDTH / 2, F.GOAL_WIDTH / 2))])


@dataclass(frozen=True)
class DiveParams:
    min_speed: float = 0.8          # m/s toward the goal before a dive is considered
    horizon: float = 1.5            # s: the ball must reach the goalie line within this time
    reach_center: float = 0.25      # m: |offset| below this -> central split
    reach_split: float = 0.6        # m: up to this -> left/right split; beyond (within the goal) -> lunge
    margin: float = 0.2             # m beyond the posts still worth a dive


def dive_decision(goalie_xy, ball_xy, ball_velocity, params: DiveParams = DiveParams()) -> str | None:
    """The dive skill for a ball headed into our goal, or None (§9.3): dive_center, dive_left, dive_right,
    lunge_left, lunge_right. Left/right are the goalie's own (it faces the field: +y is its left)."""
    b, v = np.asarray(ball_xy, float)[:2], np.asarray(ball_velocity, float)[:2]
    g = np.asarray(goalie_xy, float)[:2]
    if v[0] >= -params.min_speed or b[0] <= GOALIE_LINE:
        return None
    t = (g[0] - b[0]) / v[0]
    if not 0 <= t <= params.horizon:
        return None
    y = b[1] + v[1] * t
    if abs(y) > F.GOAL_WIDTH / 2 + params.margin:
        return None                       # going wide
    off = y - g[1]
    if abs(off) < params.reach_center:
        return "dive_center"
    side = "left" if off > 0 else "right"
    return f"dive_{side}" if abs(off) < params.reach_split else f"lunge_{side}"
