"""The SimSpark soccer field (rcssserver3d 0.7.3, naosoccersim.rb), in the team-relative field frame.

Frame: origin at the centre spot, x toward the opponent goal, y to the left, z up, metres. Landmark
names are the left team's; above the bridge they are team-relative (the bridge renames the right
team's view), so "L" landmarks always stand on our own half. Facts: shared/simspark/SIMSPARK_FACTS.md.
"""

from __future__ import annotations

import math

import numpy as np

FIELD_LENGTH = 30.0
FIELD_WIDTH = 20.0
HALF_LENGTH = FIELD_LENGTH / 2
HALF_WIDTH = FIELD_WIDTH / 2
GOAL_WIDTH = 2.1
GOAL_DEPTH = 0.6
GOAL_HEIGHT = 0.8
GOAL_POST_RADIUS = 0.02
PENALTY_LENGTH = 1.8          # penalty-area depth from the goal line
PENALTY_HALF_WIDTH = 3.0      # penalty-area lines at |y| = 3.0
PENALTY_AREA_X = HALF_LENGTH - PENALTY_LENGTH   # |x| of the penalty areas' front lines
CENTER_CIRCLE_RADIUS = 2.0
FREE_KICK_DISTANCE = 2.0
BALL_RADIUS = 0.042
BALL_MASS = 0.026
AGENT_RADIUS = 0.4
HALF_TIME = 300.0             # s of play per half (RuleHalfTime); the left team kicks the first half off, the
                              # right team the second (the team that did not kick off first)

# Point landmarks: corner flags (z = 0) and goal-post tops (z = GOAL_HEIGHT).
LANDMARKS: dict[str, tuple[float, float, float]] = {
    "F1L": (-HALF_LENGTH, HALF_WIDTH, 0.0),
    "F2L": (-HALF_LENGTH, -HALF_WIDTH, 0.0),
    "F1R": (HALF_LENGTH, HALF_WIDTH, 0.0),
    "F2R": (HALF_LENGTH, -HALF_WIDTH, 0.0),
    "G1L": (-HALF_LENGTH, GOAL_WIDTH / 2, GOAL_HEIGHT),
    "G2L": (-HALF_LENGTH, -GOAL_WIDTH / 2, GOAL_HEIGHT),
    "G1R": (HALF_LENGTH, GOAL_WIDTH / 2, GOAL_HEIGHT),
    "G2R": (HALF_LENGTH, -GOAL_WIDTH / 2, GOAL_HEIGHT),
}
FLAGS = ("F1L", "F2L", "F1R", "F2R")
GOAL_POSTS = ("G1L", "G2L", "G1R", "G2R")

# The right team sees the field rotated by 180 degrees; in its team-relative frame each landmark
# stands where the left team's landmark of this name stands.
ROTATED_NAME: dict[str, str] = {
    "F1L": "F2R", "F2L": "F1R", "F1R": "F2L", "F2R": "F1L",
    "G1L": "G2R", "G2L": "G1R", "G1R": "G2L", "G2R": "G1L",
}


def _centre_circle(n: int = 10) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    # SimSpark draws the centre circle as 10 straight segments (soccer.rsg).
    a = np.linspace(0.0, 2 * np.pi, n + 1)
    p = CENTER_CIRCLE_RADIUS * np.stack([np.cos(a), np.sin(a)], axis=1)
    return [((float(p[i, 0]), float(p[i, 1])), (float(p[i + 1, 0]), float(p[i + 1, 1]))) for i in range(n)]


# Field lines as 2-D segments on the ground (z = 0).
LINES: list[tuple[tuple[float, float], tuple[float, float]]] = [
    ((-HALF_LENGTH, HALF_WIDTH), (HALF_LENGTH, HALF_WIDTH)),      # side lines
    ((-HALF_LENGTH, -HALF_WIDTH), (HALF_LENGTH, -HALF_WIDTH)),
    ((-HALF_LENGTH, -HALF_WIDTH), (-HALF_LENGTH, HALF_WIDTH)),    # goal lines
    ((HALF_LENGTH, -HALF_WIDTH), (HALF_LENGTH, HALF_WIDTH)),
    ((0.0, -HALF_WIDTH), (0.0, HALF_WIDTH)),                      # centre line
    ((-HALF_LENGTH + PENALTY_LENGTH, -PENALTY_HALF_WIDTH), (-HALF_LENGTH + PENALTY_LENGTH, PENALTY_HALF_WIDTH)),
    ((-HALF_LENGTH, PENALTY_HALF_WIDTH), (-HALF_LENGTH + PENALTY_LENGTH, PENALTY_HALF_WIDTH)),
    ((-HALF_LENGTH, -PENALTY_HALF_WIDTH), (-HALF_LENGTH + PENALTY_LENGTH, -PENALTY_HALF_WIDTH)),
    ((HALF_LENGTH - PENALTY_LENGTH, -PENALTY_HALF_WIDTH), (HALF_LENGTH - PENALTY_LENGTH, PENALTY_HALF_WIDTH)),
    ((HALF_LENGTH, PENALTY_HALF_WIDTH), (HALF_LENGTH - PENALTY_LENGTH, PENALTY_HALF_WIDTH)),
    ((HALF_LENGTH, -PENALTY_HALF_WIDTH), (HALF_LENGTH - PENALTY_LENGTH, -PENALTY_HALF_WIDTH)),
    *_centre_circle(),
]

OWN_GOAL = np.array([-HALF_LENGTH, 0.0])
OPP_GOAL = np.array([HALF_LENGTH, 0.0])


def in_own_penalty_area(point) -> bool:
    """Whether a field point (x, y) lies inside our own penalty area."""
    return point[0] < -PENALTY_AREA_X and abs(point[1]) < PENALTY_HALF_WIDTH


def in_their_penalty_area(point) -> bool:
    """Whether a field point (x, y) lies inside the opponent's penalty area."""
    return in_own_penalty_area((-point[0], point[1]))


def landmark_array(names) -> np.ndarray:
    """(n, 3) array of the named landmarks' positions."""
    return np.array([LANDMARKS[n] for n in names], dtype=float)


def inside_field(x: float, y: float, margin: float = 0.0) -> bool:
    return abs(x) <= HALF_LENGTH - margin and abs(y) <= HALF_WIDTH - margin


def to_local(point, origin, yaw: float) -> tuple[float, float]:
    """A point (x, y) of a plane frame seen from a pose at `origin` (x, y) facing `yaw` (rad): x ahead, y left."""
    dx, dy = float(point[0]) - float(origin[0]), float(point[1]) - float(origin[1])
    c, s = math.cos(yaw), math.sin(yaw)
    return c * dx + s * dy, -s * dx + c * dy


def from_local(point, origin, yaw: float) -> tuple[float, float]:
    """The inverse of `to_local`: a point given relative to the pose (origin, yaw) back in the plane frame."""
    px, py = float(point[0]), float(point[1])
    c, s = math.cos(yaw), math.sin(yaw)
    return float(origin[0]) + c * px - s * py, float(origin[1]) + s * px + c * py


def yaw_upright(quat) -> tuple[float, float]:
    """From a body's (w, x, y, z) orientation: the heading (rad) of its +x axis and the z component of its up axis
    (1 = upright, 0 = lying)."""
    w, x, y, z = (float(v) for v in quat)
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)), 1 - 2 * (x * x + y * y)
