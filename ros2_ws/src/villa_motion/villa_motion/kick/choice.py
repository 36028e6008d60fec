"""Kick choice (§13.1.1): where to stand and face for a kick (approach_pose), whether the way there crosses the ball
(§12.4), the §13.1.1 cost and the cheapest kick (choose_kick); and the kick-off kick's direction (§11.2.1)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from villa_motion.kick.definition import KickDef


def approach_pose(kick: KickDef, ball, direction: float) -> tuple[np.ndarray, float]:
    """Where to stand (field x, y) and which way to face so that this kick sends the ball toward ``direction``."""
    theta = math.remainder(direction - kick.direction, 2 * math.pi)
    c, s = math.cos(theta), math.sin(theta)
    bx, by = kick.ball
    return np.asarray(ball, float)[:2] - np.array([c * bx - s * by, s * bx + c * by]), theta


PATH_CLEARANCE = 0.01       # m: a way that comes no nearer the ball than this does not cross it


def ball_in_path(me, target, ball, radius: float = 0.15) -> bool:
    """§12.4: walking straight from `me` to `target` passes within `radius` of the ball, coming nearer it than we are
    (by PATH_CLEARANCE): a way that leads away from or past a ball we stand close to does not cross it, so that a
    player lining up a kick close behind the ball corrects sideways or back without a detour around it."""
    seg = target - me
    n2 = float(seg @ seg)
    if n2 < 1e-12:
        return False
    t = min(1.0, max(0.0, float((ball - me) @ seg) / n2))
    closest = float(np.linalg.norm(me + t * seg - ball))
    return closest < radius and t < 0.999 and closest < float(np.linalg.norm(me - ball)) - PATH_CLEARANCE


def kick_cost(kick: KickDef, me, theta: float, ball, direction: float) -> float:
    """§13.1.1: distCost + turnCost + ballPenalty = |agent - target| / m + |dtheta| / 360 deg + (0.5 if the ball
    is in the path to the target offset)."""
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    target, heading = approach_pose(kick, ball, direction)
    dist = float(np.linalg.norm(me - target))
    turn = abs(math.remainder(theta - heading, 2 * math.pi)) / (2 * math.pi)
    return dist + turn + (0.5 if ball_in_path(me, target, ball) else 0.0)


def choose_kick(kicks: Mapping[str, KickDef] | list[KickDef], me, theta: float, ball, direction: float
                ) -> tuple[KickDef, np.ndarray, float, float]:
    """§13.1.1: the kick whose target offset costs least to reach: (kick, stand-at (x, y), face theta, cost)."""
    pool = list(kicks.values()) if isinstance(kicks, Mapping) else list(kicks)
    if not pool:
        raise ValueError("choose_kick: no kicks to choose from")
    best = min(pool, key=lambda k: kick_cost(k, me, theta, ball, direction))
    target, heading = approach_pose(best, ball, direction)
    return best, target, heading, kick_cost(best, me, theta, ball, direction)


def kickoff_direction(rng: np.random.Generator | None = None, base: float = 0.0, side: float | None = None,
                      degrees: tuple[float, float] = (5.0, 20.0)) -> float:
    """§11.2.1: a random angle between 5 and 20 degrees (``degrees``) to the left or right of ``base`` (rad); to the
    left for ``side`` > 0, to the right for ``side`` < 0 (None: drawn too)."""
    rng = rng if rng is not None else np.random.default_rng()
    sign = float(rng.choice([-1.0, 1.0])) if side is None else math.copysign(1.0, side)
    return base + sign * math.radians(float(rng.uniform(*degrees)))
