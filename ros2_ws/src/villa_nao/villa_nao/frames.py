"""The frame tree of a player: REP-105 (field, odom, base_link) and REP-120 (base_footprint, the soles) for the Nao.

    field ─► <prefix>odom ─► <prefix>base_link ─► <prefix>base_footprint
                                  └─► every link of the URDF (villa_nao.urdf), through its joints

``field`` is the one root every player shares: the field of the left team (the server's global frame, origin at the
centre spot, x toward the right team's goal), so both teams show in one tree. A player's estimates are team-relative
(the right team's field is turned by pi), so its ``field -> odom`` carries that turn. Every other frame is the
player's own, prefixed (``villa/p1/odom``, ...): by default the player's namespace (``frame_prefix``).

- ``field -> odom``: localization's correction, the filter's pose estimate composed with the inverse of the walk
  odometry pose it has taken in (``odom_correction``), both planar.
- ``odom -> base_link``: the walk odometry (x, y, heading) with the torso's height above the floor and its roll and
  pitch (the IMU's tilt estimate), so the robot stands on the floor (``RobotFrames.transforms``).
- ``base_link -> base_footprint``: REP-120's orientation (level, base_link's heading) on the floor, straight below the
  torso centre (the frame perception's observations are in), not the feet's barycentre.
- ``base_link -> links``: each URDF joint's parent -> child transform from ``kinematics.forward_kinematics``; the
  URDF frame of a link sits on its joint axis (``body.Link.anchor``), the fixed joints (camera, hands, soles) are
  static.

Planar poses are (x, y, theta) in m and rad; transforms are 4x4 homogeneous matrices, parent <- child.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation
from transforms3d.euler import euler2mat

from villa_nao import body
from villa_nao.field import from_local
from villa_nao.kinematics import forward_kinematics, joint_vector
from villa_nao.urdf import urdf_link_name

FIELD = "field"
ODOM = "odom"
BASE_LINK = "base_link"
BASE_FOOTPRINT = "base_footprint"
SIDES = ("left", "right")

Pose2D = tuple[float, float, float]
Transform = tuple[str, str, np.ndarray]        # (parent frame, child frame, 4x4 parent <- child)


def frame_prefix(namespace: str, configured: str = "") -> str:
    """A player's frame prefix: `configured` when set, else its node namespace without the leading slash and with a
    trailing one (``/villa/p1`` -> ``villa/p1/``; the root namespace gives none)."""
    if configured:
        return configured
    ns = namespace.strip("/")
    return f"{ns}/" if ns else ""


def side_yaw(side: str | None) -> float:
    """The turn from the shared field frame to a team's own: 0 for the left team (and an unknown side), pi for the
    right one."""
    if side is not None and side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)} or None, got {side!r}")
    return math.pi if side == "right" else 0.0


# --- planar poses ----------------------------------------------------------------------------------------------------
def compose(a: Pose2D, b: Pose2D) -> Pose2D:
    """The pose b given in frame a, in a's parent frame (a * b)."""
    x, y = from_local((b[0], b[1]), (a[0], a[1]), a[2])
    return x, y, math.remainder(a[2] + b[2], 2 * math.pi)


def inverse(a: Pose2D) -> Pose2D:
    """The pose whose composition with `a` is the identity."""
    c, s = math.cos(a[2]), math.sin(a[2])
    return -c * a[0] - s * a[1], s * a[0] - c * a[1], math.remainder(-a[2], 2 * math.pi)


def odom_correction(field_pose: Pose2D, odom_pose: Pose2D) -> Pose2D:
    """REP-105's ``field -> odom``: the robot's pose in the field composed with the inverse of its odometry pose at the
    same time, so that ``field -> odom -> base_link`` is the field pose."""
    return compose(field_pose, inverse(odom_pose))


def planar_matrix(pose: Pose2D, z: float = 0.0) -> np.ndarray:
    """4x4 of a planar pose (a turn about z, then the translation; at height z)."""
    c, s = math.cos(pose[2]), math.sin(pose[2])
    return np.array([[c, -s, 0.0, pose[0]], [s, c, 0.0, pose[1]], [0.0, 0.0, 1.0, z], [0.0, 0.0, 0.0, 1.0]])


def field_to_odom(field_pose: Pose2D, odom_pose: Pose2D, side: str | None) -> np.ndarray:
    """The transform ``field -> odom`` of a player of `side` (its estimate is in its team's field frame)."""
    return planar_matrix(compose((0.0, 0.0, side_yaw(side)), odom_correction(field_pose, odom_pose)))


def quaternions(r: np.ndarray) -> np.ndarray:
    """(w, x, y, z) unit quaternions (n, 4), w >= 0, of rotation matrices (n, 3, 3), all at once (scipy's
    Rotation: Shepperd's method, exact at half turns too)."""
    return Rotation.from_matrix(np.asarray(r, dtype=float)).as_quat(scalar_first=True, canonical=True)


class Throttle:
    """At most `frequency` Hz of a stream of stamps (s): due() once the period has passed since the last due stamp
    (a stamp going back, a restarted clock, is due at once)."""

    def __init__(self, frequency: float) -> None:
        if not frequency > 0:
            raise ValueError(f"frequency must be > 0 Hz, got {frequency}")
        self.period = 1.0 / frequency
        self._last: float | None = None

    def due(self, t: float) -> bool:
        if self._last is not None and self._last <= t < self._last + self.period - 1e-6:
            return False
        self._last = t
        return True


# --- the Nao's links -------------------------------------------------------------------------------------------------
class RobotFrames:
    """The transforms of one Nao of `robot_type` below ``odom``, frame names with `prefix` (the URDF's link names of
    ``urdf.make_urdf(robot_type, prefix)``)."""

    def __init__(self, robot_type: int = 0, prefix: str = "") -> None:
        self.robot_type = robot_type
        self.prefix = prefix
        links = body.links(robot_type)
        self._names = [lk.name for lk in links]
        self._index = {n: i for i, n in enumerate(self._names)}
        self._anchor = np.array([lk.anchor for lk in links])
        moving = [lk for lk in links if lk.parent is not None and lk.joint]
        fixed = [lk for lk in links if lk.parent is not None and not lk.joint]
        self._moving = (np.array([self._index[lk.parent] for lk in moving]), np.array([self._index[lk.name]
                                                                                      for lk in moving]))
        self.odom, self.base_link, self.base_footprint = (prefix + n for n in (ODOM, BASE_LINK, BASE_FOOTPRINT))
        self.moving_frames = [(urdf_link_name(lk.parent, prefix), urdf_link_name(lk.name, prefix)) for lk in moving]
        zero = self.link_frames(forward_kinematics({}, robot_type))
        self.static = [(urdf_link_name(lk.parent, prefix), urdf_link_name(lk.name, prefix),
                        np.linalg.solve(zero[self._index[lk.parent]], zero[self._index[lk.name]])) for lk in fixed]
        # the bodies' shapes, for the robot's lowest point: half extents along each body axis and a radius
        shaped = [lk for lk in links if lk.shape is not None]
        self._shaped = np.array([self._index[lk.name] for lk in shaped])
        self._half = np.array([np.asarray(lk.size) / 2 if lk.shape == "box" else
                               (0.0, 0.0, lk.size[1] / 2 if lk.shape == "capsule" else 0.0) for lk in shaped])
        self._radius = np.array([0.0 if lk.shape == "box" else lk.size[0] for lk in shaped])

    def fk(self, joints) -> dict[str, np.ndarray]:
        """``kinematics.forward_kinematics`` of a joint reading (dict NAOqi name -> rad; names the robot type lacks,
        such as a physical Nao's hands, are ignored, missing joints are 0)."""
        return forward_kinematics(joint_vector(joints, self.robot_type), self.robot_type)

    def link_frames(self, fk: dict[str, np.ndarray]) -> np.ndarray:
        """(n, 4, 4) URDF frames of every link in the torso frame (base_link): the FK pose of each body (its centre)
        moved to its joint point, where the URDF puts the link's frame."""
        t = np.stack([fk[n] for n in self._names])
        t[:, :3, 3] += (t[:, :3, :3] @ self._anchor[:, :, None])[:, :, 0]
        return t

    def joint_transforms(self, frames: np.ndarray) -> np.ndarray:
        """(m, 4, 4) parent <- child of every moving joint (``moving_frames`` order) from ``link_frames``."""
        parent, child = frames[self._moving[0]], frames[self._moving[1]]
        rt = parent[:, :3, :3].transpose(0, 2, 1)
        out = np.zeros_like(child)
        out[:, :3, :3] = rt @ child[:, :3, :3]
        out[:, :3, 3] = (rt @ (child[:, :3, 3] - parent[:, :3, 3])[:, :, None])[:, :, 0]
        out[:, 3, 3] = 1.0
        return out

    def floor_depth(self, frames: np.ndarray, level: np.ndarray) -> float:
        """How far below the torso centre the lowest point of the robot's bodies is in the frame `level` (3x3: torso
        -> a frame of the torso's heading with z up), from ``link_frames``: the floor under a robot standing,
        kneeling or lying (m). Boxes, spheres and capsules as SimSpark's (villa_nao.body)."""
        t = frames[self._shaped]
        centre = t[:, :3, 3] - (t[:, :3, :3] @ self._anchor[self._shaped][:, :, None])[:, :, 0]
        up = np.abs(level[2] @ t[:, :3, :3])              # |the level frame's z| along each body's axes
        return float(-(centre @ level[2] - (up * self._half).sum(axis=1) - self._radius).min())

    def transforms(self, joints, odom_pose: Pose2D, roll: float = 0.0, pitch: float = 0.0
                   ) -> tuple[list[tuple[str, str]], np.ndarray]:
        """Every moving transform below odom: ([(parent, child)], (k, 4, 4)) for ``odom -> base_link``,
        ``base_link -> base_footprint`` and each moving joint, from a joint reading, the walk odometry's pose and the
        torso's roll and pitch (rad; torso = Ry(pitch) Rx(roll) in a level frame of its heading)."""
        frames = self.link_frames(self.fk(joints))
        level = euler2mat(roll, pitch, 0.0)                # torso -> level (sxyz: Ry(pitch) Rx(roll))
        depth = self.floor_depth(frames, level)
        base = planar_matrix(odom_pose, depth)
        base[:3, :3] = base[:3, :3] @ level
        footprint = np.eye(4)
        footprint[:3, :3] = level.T
        footprint[:3, 3] = level.T @ np.array([0.0, 0.0, -depth])
        out = np.concatenate([np.stack([base, footprint]), self.joint_transforms(frames)])
        return [(self.odom, self.base_link), (self.base_link, self.base_footprint), *self.moving_frames], out
