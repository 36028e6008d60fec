"""Vision frames to body-relative observations on the ground: UT Austin Villa 2011 report §4.2.

A polar reading (distance, azimuth, elevation in the camera frame) becomes a point in the camera frame, then in the
torso frame through the head chain's forward kinematics at the time of the image (villa_nao.kinematics.camera_pose),
then in `base_footprint`: the torso levelled with the gravity direction the accelerometer measures and projected to
the ground (x forward, y left), where distance and bearing are what localization uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from villa_nao.kinematics import camera_pose


@dataclass(frozen=True)
class Seen:
    kind: str                     # flag, goal_post, ball, teammate, opponent, line
    name: str
    position: np.ndarray          # (x, y) in base_footprint, m
    end: np.ndarray | None        # a line's other endpoint
    distance: float               # m, horizontal
    bearing: float                # rad
    distance_sigma: float
    bearing_sigma: float


@dataclass(frozen=True)
class NoiseModel:
    """SimSpark's vision noise (SIMSPARK_FACTS.md) as 1-sigma figures for the likelihoods downstream."""

    distance_rel: float = 0.0965 / 100 * 10     # relative distance sigma, inflated for head motion and projection
    distance_abs: float = 0.05                  # m
    angle: float = math.radians(1.5)            # rad, with the head chain's and tilt estimate's errors


def polar_to_camera(distance, azimuth, elevation) -> np.ndarray:
    """(n,) arrays -> (n, 3) points in the camera frame (x along the view axis, y left, z up)."""
    d, az, el = (np.asarray(v, dtype=float) for v in (distance, azimuth, elevation))
    ce = np.cos(el)
    return np.stack([d * ce * np.cos(az), d * ce * np.sin(az), d * np.sin(el)], axis=-1)


def level_rotation(acc) -> np.ndarray:
    """Rotation taking torso-frame vectors to a frame with the same heading whose z is up (from the accelerometer).
    Identity when the reading is missing or the robot is lying (no meaningful ground plane then)."""
    a = np.asarray(acc, dtype=float) if acc is not None else np.zeros(3)
    n = np.linalg.norm(a)
    if n < 1e-6 or a[2] / n < 0.5:
        return np.eye(3)
    up = a / n
    # roll and pitch of the torso from the up vector (yaw is unobservable and irrelevant here)
    pitch = math.atan2(-up[0], math.hypot(up[1], up[2]))
    roll = math.atan2(up[1], up[2])
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    # torso = Rz(yaw) Ry(pitch) Rx(roll) in the level frame: level = Ry(pitch) Rx(roll) torso
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return ry @ rx


def camera_to_footprint(points_cam: np.ndarray, head_yaw: float, head_pitch: float, acc=None,
                        robot_type: int = 0) -> np.ndarray:
    """(n, 3) camera-frame points -> (n, 3) points in the levelled torso frame (x forward, y left, z up)."""
    t = camera_pose(head_yaw, head_pitch, robot_type)
    torso = points_cam @ t[:3, :3].T + t[:3, 3]
    return torso @ level_rotation(acc).T


def ground_observation(p_level: np.ndarray, kind: str, name: str, noise: NoiseModel, end=None) -> Seen:
    xy = np.asarray(p_level[:2], dtype=float)
    d = float(np.hypot(*xy))
    return Seen(kind, name, xy, None if end is None else np.asarray(end[:2], dtype=float), d,
                float(math.atan2(xy[1], xy[0])), noise.distance_abs + noise.distance_rel * d, noise.angle)
