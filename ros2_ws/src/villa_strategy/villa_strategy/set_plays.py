"""Set plays: UT Austin Villa 2011 report §11.2 (goal kicks Fig. 9-10, corner kicks Fig. 11, kick-ins).

Team-relative field frame (our goal at -x). Goal-kick formations are absolute positions (roles are meaningless
there, §11.2.2); for the opponents' free kicks every position keeps the free-kick distance (2 m) from the ball.
"""

from __future__ import annotations

import numpy as np

from villa_nao import field as F

BOX_X = F.PENALTY_AREA_X                        # |x| of the goal boxes' front lines
BOX_Y = F.PENALTY_HALF_WIDTH


def defensive_goal_kick() -> list[np.ndarray]:
    """§11.2.2 / Fig. 9, our goal kick: goalie 0.5 m above the end line; two agents ~2 m diagonally from the goal-box
    corners; two 0.75 m above the goal box ~1 m left/right of centre; two 2.6 m diagonally up-field from the corners;
    two ~3 m above the corners. (Nine positions; a smaller team uses the first n.)"""
    d = 2 ** -0.5
    gx = -F.HALF_LENGTH
    return [np.array(p) for p in (
        (gx + 0.5, 0.0),
        (-BOX_X + 0.75, 1.0), (-BOX_X + 0.75, -1.0),
        (-BOX_X + 2.0 * d, BOX_Y + 2.0 * d), (-BOX_X + 2.0 * d, -BOX_Y - 2.0 * d),
        (-BOX_X + 2.6 * d + 1.0, BOX_Y + 2.6 * d), (-BOX_X + 2.6 * d + 1.0, -BOX_Y - 2.6 * d),
        (-BOX_X + 3.0, BOX_Y), (-BOX_X + 3.0, -BOX_Y))]


def offensive_goal_kick() -> list[np.ndarray]:
    """§11.2.2 / Fig. 10, the opponents' goal kick: two above the centre of their box (0.75 m and 3.5 m), two 1 m
    inside and 2.5 m above its corners, two 1.77 m diagonally from its corners, the rest around our goal box."""
    d = 2 ** -0.5
    return [np.array(p) for p in (
        (-F.HALF_LENGTH + 0.5, 0.0),                      # goalie stays home
        (BOX_X - 0.75, 0.0), (BOX_X - 3.5, 0.0),
        (BOX_X - 2.5, BOX_Y - 1.0), (BOX_X - 2.5, -BOX_Y + 1.0),
        (BOX_X - 1.77 * d, BOX_Y + 1.77 * d), (BOX_X - 1.77 * d, -BOX_Y - 1.77 * d),
        (-BOX_X + 1.0, 1.5), (-BOX_X + 1.0, -1.5))]


def keep_free_kick_distance(points, ball, distance: float = F.FREE_KICK_DISTANCE, margin: float = 0.2):
    """Push every point out to `distance` + margin from the ball (the opponents' kick-offs, kick-ins, corners,
    goal kicks), then back inside the field."""
    b = np.asarray(ball, float)[:2]
    out = []
    for p in points:
        p = np.asarray(p, float)[:2].copy()
        v = p - b
        n = np.linalg.norm(v)
        if n < distance + margin:
            u = v / n if n > 1e-6 else np.array([-1.0, 0.0])
            p = b + u * (distance + margin)
        p[0] = np.clip(p[0], -F.HALF_LENGTH + 0.3, F.HALF_LENGTH - 0.3)
        p[1] = np.clip(p[1], -F.HALF_WIDTH + 0.3, F.HALF_WIDTH - 0.3)
        if np.linalg.norm(p - b) < distance + margin:  # clipping pulled it back in: go around along the line
            p[0] = b[0] - (distance + margin) if b[0] > -F.HALF_LENGTH + distance + 1 else b[0] + distance + margin
        out.append(p)
    return out


def kick_in_shift(points, ball, shift: float = 0.5):
    """§11.2.4: at a kick-in the other agents move half a meter away from the side line the ball is on."""
    b = np.asarray(ball, float)[:2]
    side = np.sign(b[1]) if abs(b[1]) > 1e-6 else 1.0
    out = []
    for p in points:
        p = np.asarray(p, float)[:2].copy()
        if abs(p[1]) > F.HALF_WIDTH - 1.0 - shift and np.sign(p[1]) == side:
            p[1] -= side * shift
        out.append(p)
    return out


def corner_kick_out_target(ball) -> np.ndarray:
    """§11.2.3, our corner: the onBall agent plays the ball over the opponents' end line (they get a goal kick while
    the others take the offensive goal-kick formation). The target: just behind their end line, away from the goal."""
    b = np.asarray(ball, float)[:2]
    return np.array([F.HALF_LENGTH + 1.0, np.sign(b[1] or 1.0) * (F.HALF_WIDTH - 1.0)])
