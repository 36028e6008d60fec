"""Team-relative view of the server's world: landmark names, play modes, scores, poses and beams.

Not a seed algorithm: the project's own decision (docs/architecture.md), so one landmark table serves both sides.

Decision in docs/architecture.md ("Team-relative everything above the bridge"): the right team's view is
SimSpark's 180-degree rotation (logs/README.md, single_right_mirrored), so the bridge renames landmarks as
the left team would name them (G1L -> G2R, F1L -> F2R, ...), maps play modes to OWN/OPP and rotates
ground-truth poses by 180 degrees. Beams are given team-relative and converted per server.
"""

from __future__ import annotations

import math

import numpy as np
from transforms3d.quaternions import qmult

# A right-team agent's landmark name -> the name the same landmark has in the team-relative (left) naming.
RIGHT_LANDMARK_NAMES = {"F1L": "F2R", "F2L": "F1R", "F1R": "F2L", "F2R": "F1L",
                        "G1L": "G2R", "G2L": "G1R", "G1R": "G2L", "G2R": "G1L"}

# Play modes whose name ends in a side: base name (lower case) -> (constant when it is ours, when theirs).
# Values are villa_msgs/GameState constants (kept as ints so this module needs no message import).
_SIDED = {"kickoff": (2, 3), "kickin": (5, 6), "corner_kick": (7, 8), "goal_kick": (9, 10),
          "offside": (11, 12), "goal": (14, 15), "free_kick": (16, 17), "direct_free_kick": (18, 19),
          "pass": (20, 21)}
_UNSIDED = {"beforekickoff": 1, "playon": 4, "gameover": 13}
PLAY_MODE_UNKNOWN = 0


def torso_axes(v) -> tuple[float, float, float]:
    """A vector in SimSpark's torso (or foot) frame, x right, y forward, z up -> REP-103's x forward, y left, z up."""
    return (float(v[1]), -float(v[0]), float(v[2]))


def gyro_rates(v) -> tuple[float, float, float]:
    """A gyro reading on the wire (deg/s, SimSpark's torso axes) -> rad/s in REP-103 torso axes (roll, pitch, yaw
    rates), what villa_msgs' imu topic carries."""
    x, y, z = torso_axes(v)
    return math.radians(x), math.radians(y), math.radians(z)


def landmark_name(name: str, side: str | None) -> str:
    """Team-relative landmark name for an agent on ``side`` ("left" keeps the server's names)."""
    if side == "right":
        return RIGHT_LANDMARK_NAMES.get(name, name)
    return name


def play_mode(name: str, side: str | None) -> int:
    """Server play-mode name (SimSpark or rcssservermj spelling) -> villa_msgs/GameState constant."""
    low = name.lower()
    if low in _UNSIDED:
        return _UNSIDED[low]
    for suffix, mode_side in (("_left", "left"), ("_right", "right")):
        if low.endswith(suffix):
            base = low[: -len(suffix)]
            if base in _SIDED and side in ("left", "right"):
                own, opp = _SIDED[base]
                return own if mode_side == side else opp
    return PLAY_MODE_UNKNOWN


def scores(score_left: int, score_right: int, side: str | None) -> tuple[int, int]:
    """(own, opponent) goals."""
    return (score_right, score_left) if side == "right" else (score_left, score_right)


_QZ_PI = np.array([0.0, 0.0, 0.0, 1.0])   # rotation by pi about z, (w, x, y, z)


def field_pose(pos, quat, side: str | None) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """Global (left team's) position and (w, x, y, z) orientation -> team-relative field frame."""
    if side != "right":
        return tuple(map(float, pos)), tuple(map(float, quat))
    q = qmult(_QZ_PI, np.asarray(quat, dtype=float))
    return (-float(pos[0]), -float(pos[1]), float(pos[2])), tuple(float(v) for v in q)


def beam_on_wire(backend: str, side: str | None, x: float, y: float, theta: float) -> tuple[float, float, float]:
    """Team-relative beam (m, m, rad; 0 = toward the opponent goal) -> what ``(beam x y deg)`` must carry.

    SimSpark takes the agent's own team frame (it applies global = (-x, -y, rot+180) for the right team).
    rcssservermj 0.2.1 (soccer_sim.beam_agent) computes global = (-|x|, y, rot) for the left team and
    (|x|, y, rot+180) for the right team: the right team's y is therefore negated here, and x is kept
    on the own half (x <= 0) as both servers require.
    """
    deg = math.degrees(math.remainder(theta, 2 * math.pi))
    if backend == "simspark":
        return (x, y, deg)
    if backend == "rcssservermj":
        x = min(x, 0.0)
        if side == "right":
            return (-x, -y, deg)
        return (x, y, deg)
    raise ValueError(f"unknown backend {backend!r}")
