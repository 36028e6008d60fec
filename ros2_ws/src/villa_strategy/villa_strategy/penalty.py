"""Penalty kicks: UT Austin Villa 2011 report §14 (striker and goalie). Team-relative: we attack +x."""

from __future__ import annotations

import math

import numpy as np

from villa_nao import field as F
from villa_strategy.goalie import goalie_position

SHOT_POST_MARGIN = 0.2      # m inside a post: the nearest a shot's window goes to it
SHOT_KEEPER_HALF = 0.3      # m beside the goalie's centre: the nearest a shot's window goes to it


def shot_window(ball, opp_goalie=None) -> tuple[float, float]:
    """§14's shot, into the larger gap between their goalie and a post (the seed bisects the angle between them; here
    with margins at both), as a window of directions: the penalty kick's, and every shot on goal's and the
    dribble's aim near their goal. Returns (its middle, its half width) in rad, field frame, seen from the ball,
    SHOT_POST_MARGIN m inside the post and SHOT_KEEPER_HALF m beside the goalie; half width 0 (the gap's middle) when
    the gap is narrower than that. A goalie outside the goal
    mouth leaves the whole mouth (between the margins) open, as does none (None)."""
    b = np.asarray(ball, float)[:2]
    g = None if opp_goalie is None else np.asarray(opp_goalie, float)[:2]
    inner = F.GOAL_WIDTH / 2 - SHOT_POST_MARGIN
    if g is None or abs(g[1]) > F.GOAL_WIDTH / 2 + SHOT_KEEPER_HALF:
        edges = (inner, -inner)
    else:
        left = (inner, g[1] + SHOT_KEEPER_HALF)                 # the gap on the left of the goalie (+y), ...
        right = (g[1] - SHOT_KEEPER_HALF, -inner)               # ... and on its right
        edges = max(left, right, key=lambda e: e[0] - e[1])
    if edges[0] <= edges[1]:                                    # no gap wider than the margins: its middle
        mid = (edges[0] + edges[1]) / 2
        return math.atan2(mid - b[1], F.HALF_LENGTH - b[0]), 0.0
    a0, a1 = (math.atan2(y - b[1], F.HALF_LENGTH - b[0]) for y in edges)
    return (a0 + a1) / 2, abs(a0 - a1) / 2


def striker_plan(ball, elapsed: float) -> str:
    """§14: dribble to ~1 m outside the goal box, then shoot; after 25 s with < 15 s left, just dribble in."""
    b = np.asarray(ball, float)[:2]
    if elapsed > 25.0:
        return "dribble_into_goal"
    return "shoot" if b[0] >= F.PENALTY_AREA_X - 1.2 else "dribble_to_box"


def penalty_goalie_target(ball) -> np.ndarray:
    """§14: normal positioning; with the ball within 3.5 m of the goal (outside the box) step up to the box's top
    edge; with the ball inside the box, go to it (and dribble it out)."""
    b = np.asarray(ball, float)[:2]
    if F.in_own_penalty_area(b):
        return b
    if np.linalg.norm(b - F.OWN_GOAL) < 3.5:
        p = goalie_position(b)
        return np.array([-F.PENALTY_AREA_X - 0.1, p[1]])
    return goalie_position(b)
