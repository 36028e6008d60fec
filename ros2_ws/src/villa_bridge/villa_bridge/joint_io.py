"""Backend-independent joint I/O shared by every bridge (SimSpark, rcssservermj, NAOqi).

- ``command_to_targets``: a villa_msgs/JointCommand's arrays -> per-joint targets (NAOqi names), validated,
  positions clamped to the chosen limits (simulated Nao or physical Nao), stiffness clamped to 0..1.
- ``HeldTargets``: the latest target of every joint, held until motion replaces it (a late cycle repeats them).
- ``from_wire`` / ``to_wire``: SimSpark/rcssservermj wire names and signs <-> NAOqi names and signs
  (villa_nao.joints: ``naoqi_angle = sign * wire_angle``), degrees on the wire, radians here.
- ``build_joint_state``: a sensor_msgs/JointState from names, positions and velocities.

No rclpy here (message classes only); API kept stable for the NAOqi bridge.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from villa_nao.joints import BY_NAME, BY_PERCEPTOR, JOINTS, Joint, naoqi_limits, sim_limits


class CommandError(ValueError):
    """A joint command that cannot be applied (unknown joint, length mismatch, non-finite value)."""


@dataclass(frozen=True)
class JointTarget:
    """One joint's target: rad (NAOqi sign), optional feed-forward rad/s, optional stiffness 0..1."""

    position: float
    velocity: float | None = None
    stiffness: float | None = None


def limits_for(which: str, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Lower/upper limits (rad, NAOqi sign) of ``names``: ``which`` = "sim" (SimSpark Nao) or "naoqi" (H25)."""
    if which == "sim":
        return sim_limits(names)
    if which == "naoqi":
        return naoqi_limits(names)
    raise ValueError(f"unknown joint limit set {which!r} (expected 'sim' or 'naoqi')")


def command_to_targets(names: Sequence[str], position: Sequence[float], velocity: Sequence[float] = (),
                       stiffness: Sequence[float] = (), *, limits: str = "sim",
                       allowed: Iterable[str] | None = None) -> dict[str, JointTarget]:
    """Validate a JointCommand's arrays and return {NAOqi name: JointTarget} with positions clamped to limits.

    ``velocity`` and ``stiffness`` may be empty (none given) or as long as ``names``. ``allowed`` restricts the
    accepted names (e.g. the joints of one robot type); by default every joint villa_nao knows.
    Raises CommandError with one clear sentence on bad input; nothing is applied then.
    """
    names = list(names)
    n = len(names)
    if len(position) != n:
        raise CommandError(f"joint command: {n} names but {len(position)} positions")
    for label, arr in (("velocities", velocity), ("stiffness values", stiffness)):
        if len(arr) not in (0, n):
            raise CommandError(f"joint command: {n} names but {len(arr)} {label} (expected 0 or {n})")
    known = set(BY_NAME) if allowed is None else set(allowed)
    unknown = [nm for nm in names if nm not in known]
    if unknown:
        raise CommandError(f"joint command: unknown joint name(s) {', '.join(map(repr, unknown))}")
    if len(set(names)) != n:
        raise CommandError("joint command: a joint name appears twice")
    pos = np.asarray(position, dtype=float)
    vel = np.asarray(velocity, dtype=float) if len(velocity) else None
    stiff = np.asarray(stiffness, dtype=float) if len(stiffness) else None
    for label, arr in (("position", pos), ("velocity", vel), ("stiffness", stiff)):
        if arr is not None and not np.all(np.isfinite(arr)):
            bad = [names[i] for i in np.flatnonzero(~np.isfinite(arr))]
            raise CommandError(f"joint command: non-finite {label} for {', '.join(bad)}")
    if n == 0:
        return {}
    lo, hi = limits_for(limits, names)
    pos = np.clip(pos, lo, hi)
    if stiff is not None:
        stiff = np.clip(stiff, 0.0, 1.0)
    return {nm: JointTarget(float(pos[i]), None if vel is None else float(vel[i]),
                            None if stiff is None else float(stiff[i])) for i, nm in enumerate(names)}


class HeldTargets:
    """The latest target of each joint of one robot, kept until replaced.

    Arrays are in ``self.names`` order: ``position`` (rad, NaN = no target yet: hold where it is),
    ``velocity`` (rad/s feed-forward, 0 when none), ``stiffness`` (0..1, starts at ``default_stiffness``).
    """

    def __init__(self, joints: Sequence[Joint] = JOINTS, default_stiffness: float = 1.0) -> None:
        self.joints = tuple(joints)
        self.names = tuple(j.name for j in self.joints)
        self.index = {nm: i for i, nm in enumerate(self.names)}
        self.position = np.full(len(self.names), np.nan)
        self.velocity = np.zeros(len(self.names))
        self.stiffness = np.full(len(self.names), float(np.clip(default_stiffness, 0.0, 1.0)))

    def update(self, targets: Mapping[str, JointTarget]) -> None:
        """Apply targets (from command_to_targets); velocity resets to 0 for joints given without one."""
        for nm, t in targets.items():
            i = self.index.get(nm)
            if i is None:
                continue
            self.position[i] = t.position
            self.velocity[i] = 0.0 if t.velocity is None else t.velocity
            if t.stiffness is not None:
                self.stiffness[i] = t.stiffness

    def has_targets(self) -> bool:
        return bool(np.any(np.isfinite(self.position)))


def from_wire(perceptors: Sequence[str], angles_deg: Sequence[float],
              velocities_deg: Sequence[float] | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Wire joint readings (HJ names, degrees, deg/s) -> (NAOqi names, rad, rad/s) with NAOqi signs.

    Unknown perceptor names are skipped. Velocities are NaN when the wire gave none.
    """
    names, idx, signs = [], [], []
    for i, p in enumerate(perceptors):
        j = BY_PERCEPTOR.get(p)
        if j is None:
            continue
        names.append(j.name)
        idx.append(i)
        signs.append(j.sign)
    s = np.asarray(signs, dtype=float)
    pos = s * np.radians(np.asarray(angles_deg, dtype=float)[idx]) if idx else np.zeros(0)
    if velocities_deg is None:
        vel = np.full(len(idx), np.nan)
    else:
        vel = s * np.radians(np.asarray(velocities_deg, dtype=float)[idx]) if idx else np.zeros(0)
    return names, pos, vel


def to_wire(names: Sequence[str], angles: Sequence[float]) -> tuple[list[str], np.ndarray]:
    """NAOqi names and angles (rad, or rad/s) -> (wire effector names, values in the wire's sign, still rad)."""
    joints = [BY_NAME[n] for n in names]
    return [j.simspark_effector for j in joints], np.array([j.sign for j in joints], float) * np.asarray(angles, float)


def build_joint_state(names: Sequence[str], position: Sequence[float], velocity: Sequence[float] | None = None,
                      stamp=None, frame_id: str = ""):
    """A sensor_msgs/JointState (rad, rad/s); NaN velocities are sent as an empty velocity array."""
    from sensor_msgs.msg import JointState

    msg = JointState()
    if stamp is not None:
        msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    msg.name = list(names)
    msg.position = [float(v) for v in position]
    if velocity is not None and len(velocity) and not any(math.isnan(v) for v in velocity):
        msg.velocity = [float(v) for v in velocity]
    return msg
