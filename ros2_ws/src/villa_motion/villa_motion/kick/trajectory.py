"""The kicking foot's trajectory (§13.1.2-13.1.4): the waypoints plus the ball after the weight shift, a Hermite
spline of positions and linear Euler angles, and whether the leg IK reaches it (§13.1.1: more than 90 % of it)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.interpolate import CubicHermiteSpline
from transforms3d.euler import euler2mat

from villa_motion.kick.definition import KickDef
from villa_nao import kinematics as K

REACH_FRACTION = 0.9        # §13.1.1: the IK must reach more than this fraction of the trajectory
REACH_SAMPLES = 40
REACH_POS_TOL = 0.005       # m: a sample counts as reached when the IK's nearest pose is this close ...
REACH_ROT_TOL = 0.05        # rad: ... and this close in orientation


@dataclass(frozen=True)
class StandPose:
    """The standing feet the kick starts from and returns to (the walk's stand: WalkParams fields)."""

    z_torso: float = 0.34
    x_offset: float = -0.0393
    y_sep: float = 0.11
    torso_lean: float = 0.0447

    @classmethod
    def from_walk(cls, p) -> StandPose:
        return cls(p.z_torso, p.x_offset, p.y_sep, p.torso_lean)


def sole_pose(pos, rpy, lean: float) -> np.ndarray:
    """A sole's pose (4x4, torso frame): `pos`, roll/pitch/yaw `rpy` with the torso's `lean` added to the pitch."""
    t = np.eye(4)
    t[:3, :3] = euler2mat(rpy[0], rpy[1] + lean, rpy[2], "sxyz")
    t[:3, 3] = pos
    return t


@dataclass
class Trajectory:
    """The kicking foot's curve in the torso frame: a Hermite spline of positions, linear Euler angles (§13.1.3)."""

    knots: np.ndarray           # (n,) normalized times, 0 first
    points: np.ndarray          # (n, 3) torso frame
    tangents: np.ndarray        # (n, 3) per unit u
    angles: np.ndarray          # (n, 3) roll pitch yaw
    lean: float
    spline: CubicHermiteSpline = field(init=False)

    def __post_init__(self) -> None:
        self.spline = CubicHermiteSpline(self.knots, self.points, self.tangents)

    def position(self, u: float) -> np.ndarray:
        return self.spline(min(1.0, max(0.0, u)))

    def rpy(self, u: float) -> np.ndarray:
        u = min(1.0, max(0.0, u))
        return np.array([np.interp(u, self.knots, self.angles[:, i]) for i in range(3)])

    def pose(self, u: float) -> np.ndarray:
        return sole_pose(self.position(u), self.rpy(u), self.lean)

    def poses(self, us) -> np.ndarray:
        """``pose`` at each of `us` at once: (N, 4, 4)."""
        us = np.clip(np.asarray(us, dtype=float), 0.0, 1.0)
        rpy = np.stack([np.interp(us, self.knots, self.angles[:, i]) for i in range(3)], -1)
        out = np.zeros((len(us), 4, 4))
        # euler2mat(roll, pitch + lean, yaw, "sxyz") = Rz(yaw) Ry(pitch + lean) Rx(roll)
        cr, sr = np.cos(rpy[:, 0]), np.sin(rpy[:, 0])
        cp, sp = np.cos(rpy[:, 1] + self.lean), np.sin(rpy[:, 1] + self.lean)
        cy, sy = np.cos(rpy[:, 2]), np.sin(rpy[:, 2])
        out[:, 0, :3] = np.stack([cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr], -1)
        out[:, 1, :3] = np.stack([sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr], -1)
        out[:, 2, :3] = np.stack([-sp, cp * sr, cp * cr], -1)
        out[:, :3, 3] = self.spline(us)
        out[:, 3, 3] = 1.0
        return out


def stand_feet(stand: StandPose) -> dict[str, np.ndarray]:
    """Both sole positions (torso frame) standing."""
    return {"L": np.array([stand.x_offset, 0.5 * stand.y_sep, -stand.z_torso]),
            "R": np.array([stand.x_offset, -0.5 * stand.y_sep, -stand.z_torso])}


def shifted_feet(kick: KickDef, stand: StandPose) -> dict[str, np.ndarray]:
    """Sole positions (torso frame) after the weight shift: the torso over the support foot, the kicking foot lifted."""
    feet = stand_feet(stand)
    sign = 1.0 if kick.foot == "R" else -1.0        # the support foot's side (+y: left)
    out = {s: p + np.array([0.0, -sign * kick.shift_y, 0.0]) for s, p in feet.items()}
    out[kick.foot] = out[kick.foot] + np.array([0.0, 0.0, kick.lift])
    return out


def ball_after_shift(kick: KickDef, ball_rel, stand: StandPose) -> np.ndarray:
    """§13.1.2: where the ball is relative to the torso once the weight is shifted (the support foot stays planted)."""
    support = "R" if kick.foot == "L" else "L"
    before, after = stand_feet(stand)[support], shifted_feet(kick, stand)[support]
    b = np.array([float(ball_rel[0]), float(ball_rel[1]), before[2]])
    return b - before + after


def trajectory(kick: KickDef, ball_rel, stand: StandPose) -> Trajectory:
    """§13.1.2: the kick's waypoints plus the ball's position (torso frame, after the shift); the curve starts at the
    kicking foot's shifted pose with zero velocity. Missing tangents: Catmull-Rom; the last one-sided."""
    ball = ball_after_shift(kick, ball_rel, stand)
    start = shifted_feet(kick, stand)[kick.foot]
    knots = np.array([0.0] + [w.u for w in kick.waypoints])
    pts = np.vstack([start] + [ball + np.array(w.pos) for w in kick.waypoints])
    angles = np.vstack([np.zeros(3)] + [np.array(w.rpy) for w in kick.waypoints])
    tan = np.zeros_like(pts)
    for i, w in enumerate(kick.waypoints, 1):
        if w.tangent is not None:
            tan[i] = w.tangent
        elif i < len(pts) - 1:
            tan[i] = (pts[i + 1] - pts[i - 1]) / (knots[i + 1] - knots[i - 1])
        else:
            tan[i] = (pts[i] - pts[i - 1]) / (knots[i] - knots[i - 1])
    return Trajectory(knots, pts, tan, angles, stand.torso_lean)


def leg_angles(side: str, target: np.ndarray, robot_type: int = 0, pos_tol: float = 0.001,
               rot_tol: float = 0.01) -> tuple[np.ndarray, bool]:
    """§13.1.4: leg joint angles for a sole pose and whether it is reached within the tolerances (m, rad): villa_nao's
    leg IK, whose closed-form answer skips the nearest-pose search (about 5 ms) when within them."""
    r = K.leg_ik(side, target, robot_type, pos_tol=pos_tol, rot_tol=rot_tol)
    return r.angles, r.reachable


def reachable_fraction(kick: KickDef, ball_rel, stand: StandPose = StandPose(), robot_type: int = 0,
                       samples: int = REACH_SAMPLES) -> float:
    """§13.1.1: the fraction of trajectory samples the leg IK reaches (within 5 mm and 0.05 rad)."""
    return float(_reached(kick, ball_rel, stand, robot_type, samples).mean())


def _reached(kick: KickDef, ball_rel, stand: StandPose, robot_type: int, samples: int) -> np.ndarray:
    """Whether the leg IK reaches each of `samples` poses along the kick's curve (within 5 mm and 0.05 rad), all at
    once (leg_reaches' vectorised search: pose by pose with leg_ik a check costs 4-60 ms, and the strategy checks
    every cycle while a kick is lined up)."""
    return _reached_poses(kick.foot, _curve_poses(kick, ball_rel, stand, samples), robot_type)


def _curve_poses(kick: KickDef, ball_rel, stand: StandPose, samples: int = REACH_SAMPLES) -> np.ndarray:
    """The sole's poses at `samples` evenly spaced points of the kick's curve for this ball: (samples, 4, 4)."""
    return trajectory(kick, ball_rel, stand).poses(np.linspace(0.0, 1.0, samples))


def _reached_poses(foot: str, poses: np.ndarray, robot_type: int) -> np.ndarray:
    """The reach test of a kick's poses: villa_nao's leg_reaches, its quick search (a few ms for a ball position)."""
    return K.leg_reaches(foot, poses, robot_type, REACH_POS_TOL, REACH_ROT_TOL, quick=True)


REACH_GRID = 0.005          # m: reachable() answers for the ball position rounded to this grid


def reachable(kick: KickDef, ball_rel, stand: StandPose = StandPose(), robot_type: int = 0,
              margin: float = 0.0) -> bool:
    """§13.1.1 "close enough to kick" for the approach, checked every cycle: reachable_fraction > 90 % for the ball
    position rounded to 5 mm, and for it moved `margin` m forward, back, left and right (inside the reachable region,
    not on its edge), remembered per kick; the cells not remembered yet are checked in one vectorised pass
    (KickEngine.start checks the ball itself)."""
    x, y = float(ball_rel[0]), float(ball_rel[1])
    points = [(x, y)] + ([(x + margin, y), (x - margin, y), (x, y + margin), (x, y - margin)] if margin > 0 else [])
    keys = [(kick, stand, robot_type, (round(px / REACH_GRID), round(py / REACH_GRID))) for px, py in points]
    known = {k: _REACH_CACHE.get(k) for k in keys}      # read once: players on other threads share the cache
    new = [k for k, v in known.items() if v is None]
    if new:
        poses = np.concatenate([_curve_poses(kick, (q[0] * REACH_GRID, q[1] * REACH_GRID), stand)
                                for _, _, _, q in new])
        hits = _reached_poses(kick.foot, poses, robot_type).reshape(len(new), -1)
        known.update(zip(new, (bool(f > REACH_FRACTION) for f in hits.mean(axis=1)), strict=True))
        if len(_REACH_CACHE) + len(new) > REACH_CACHE_SIZE:
            _REACH_CACHE.clear()
        _REACH_CACHE.update((k, known[k]) for k in new)
    return all(known[k] for k in keys)


REACH_CACHE_SIZE = 16384
_REACH_CACHE: dict[tuple, bool] = {}     # (kick, stand, robot type, grid cell) -> reachable

