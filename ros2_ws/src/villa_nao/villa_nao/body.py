"""The simulated Nao's rigid bodies (SimSpark rcssserver3d 0.7.3, robot types 0-4) as one link table.

UT Austin Villa 2011 report, section 2 (the simulated Nao the agent controls); facts from
shared/simspark/NAO_MODEL_FACTS.md and the rsg files (nao_hetero.rsg, naoneckhead.rsg, naoarm.rsg,
naoleg.rsg, naolegtoe.rsg, naorobottypes.rb). Kinematics (villa_nao.kinematics), the MJCF for
rcssservermj (villa_nao.mjcf) and the URDF (villa_nao.urdf) are all built from this table, so they
cannot drift apart.

Frames. SimSpark's model frame is x right, y forward, z up; everything here is REP-103 (x forward,
y left, z up), converted once by ``SS_TO_REP``. Every SimSpark body has the torso's orientation at zero
joint angles, so each link frame here is a translate of the torso frame at zero angles, with its origin
at the body's centre (which is also its centre of mass). Joint axes are given in NAOqi's sign
(``naoqi_angle = sign * simspark_angle``, villa_nao.joints): a positive NAOqi angle is a right-handed
rotation of the child about ``axis`` through the point ``anchor`` (child frame).

Massless frames (no SimSpark body): ``camera`` (where the RestrictedVisionPerceptor sits: the head
centre, x = view direction), ``{l,r}hand`` (end of the lower arm), ``{l,r}sole`` (foot frame: on the
sole plane directly below the ankle-pitch joint, axes of the foot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from villa_nao.joints import BY_NAME, ROBOT_TYPES, check_robot_type

# p_rep = SS_TO_REP @ p_simspark: (x right, y forward, z up) -> (x forward, y left, z up).
SS_TO_REP = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])

TOTAL_FOOT_LENGTH = 0.16        # naolegtoe.rsg $TotalFootLength
TOE_LENGTH = 0.035517656        # naorobottypes.rb type 4 'ToeLength'
SOLE_BELOW_ANKLE = 0.05         # ankle centre to sole plane: foot centre 0.04 below + half its 0.02 height


@dataclass(frozen=True)
class Link:
    """One rigid body (or massless frame) of the Nao, REP-103, at zero joint angles."""

    name: str                                   # SimSpark node name (torso, rthigh, ...) or frame name
    parent: str | None
    pos: tuple[float, float, float]             # origin relative to the parent's origin (parent frame), m
    joint: str | None = None                    # NAOqi joint moving this link relative to its parent
    axis: tuple[float, float, float] = (0.0, 0.0, 0.0)    # unit joint axis (this frame), NAOqi sign
    anchor: tuple[float, float, float] = (0.0, 0.0, 0.0)  # a point on the joint axis (this frame), m
    shape: str | None = None                    # "box", "sphere", "capsule" or None (massless frame)
    size: tuple[float, ...] = ()                # box: extents (x, y, z); sphere: (r,); capsule: (r, length) on z
    mass: float = 0.0                           # kg
    collides: bool = False                      # SimSpark gives the body a collider
    marker: bool = False                        # SimSpark ObjectState: other robots see this part

    @property
    def inertia(self) -> np.ndarray:
        """Principal moments (Ixx, Iyy, Izz) about the centre, kg m^2 (uniform solid)."""
        m = self.mass
        if self.shape == "box":
            x, y, z = self.size
            return m / 12.0 * np.array([y * y + z * z, x * x + z * z, x * x + y * y])
        if self.shape == "sphere":
            return np.full(3, 0.4 * m * self.size[0] ** 2)
        if self.shape == "capsule":
            return _capsule_inertia(m, *self.size)
        return np.zeros(3)


def _capsule_inertia(m: float, r: float, length: float) -> np.ndarray:
    # Solid cylinder plus two hemispheres, uniform density (as ODE's dMassSetCapsuleTotal), axis z.
    vc, vs = math.pi * r * r * length, 4.0 / 3.0 * math.pi * r ** 3
    mc, ms = m * vc / (vc + vs), m * vs / (vc + vs)
    iz = mc * r * r / 2 + ms * 2 * r * r / 5
    ix = (mc * (3 * r * r + length * length) / 12
          + ms * (2 * r * r / 5 + length * length / 4 + 3 * length * r / 8))
    return np.array([ix, ix, iz])


def _rep(v) -> tuple[float, float, float]:
    x, y, z = (SS_TO_REP @ np.asarray(v, dtype=float)).tolist()
    return (x + 0.0, y + 0.0, z + 0.0)  # no negative zeros in generated files


def _box(lx: float, ly: float, lz: float) -> tuple[float, float, float]:
    # SimSpark box lengths (x right, y forward, z up) -> REP extents (forward, left, up).
    return (ly, lx, lz)


def _axis(joint: str, axis_ss) -> tuple[float, float, float]:
    a = BY_NAME[joint].sign * (SS_TO_REP @ np.asarray(axis_ss, dtype=float))
    a = a / np.linalg.norm(a)  # ODE normalises hinge axes; the rsg's 0.7071 is 1/sqrt(2)
    x, y, z = a.tolist()
    return (x + 0.0, y + 0.0, z + 0.0)


def _build(robot_type: int) -> tuple[Link, ...]:
    rt = ROBOT_TYPES[robot_type]
    links: list[Link] = []

    def add(name, parent, pos_ss, joint=None, axis_ss=(0, 0, 0), anchor_ss=(0, 0, 0), shape=None, size=(),
            mass=0.0, collides=False, marker=False):
        links.append(Link(name, parent, _rep(pos_ss), joint, _axis(joint, axis_ss) if joint else (0.0, 0.0, 0.0),
                          _rep(anchor_ss), shape, tuple(float(s) for s in size), float(mass), collides, marker))

    # nao_hetero.rsg: torso (AgentAspect "body"), box 0.1 x 0.1 x 0.18, 1.2171 kg.
    add("torso", None, (0, 0, 0), shape="box", size=_box(0.1, 0.1, 0.18), mass=1.2171, collides=True)
    # naoneckhead.rsg
    add("neck", "torso", (0, 0, 0.09), "HeadYaw", (0, 0, 1), (0, 0, 0), "capsule", (0.015, 0.08), 0.05, True)
    add("head", "neck", (0, 0, 0.065), "HeadPitch", (1, 0, 0), (0, 0, -0.005), "sphere", (0.065,), 0.35, True,
        marker=True)
    add("camera", "head", (0, 0, 0))  # RestrictedVisionPerceptor: child of the head Transform, no offset

    # naoarm.rsg, right (LRFactor +1) then left (-1), as SimSpark builds them.
    for s, lr in (("r", 1), ("l", -1)):
        side = "R" if s == "r" else "L"
        add(f"{s}shoulder", "torso", (lr * 0.098, 0, 0.075), f"{side}ShoulderPitch", (1, 0, 0), (0, 0, 0),
            "sphere", (0.01,), 0.07)
        add(f"{s}upperarm", f"{s}shoulder", (lr * 0.01, 0.02, 0), f"{side}ShoulderRoll", (0, 0, 1),
            (-lr * 0.01, -0.02, 0), "box", _box(0.07, 0.08, 0.06), 0.15, True)
        add(f"{s}elbow", f"{s}upperarm", (-lr * 0.01, rt.elbow_rel_upperarm_y, 0.009), f"{side}ElbowYaw",
            (0, 1, 0), (0, 0, 0), "sphere", (0.01,), 0.035)
        add(f"{s}lowerarm", f"{s}elbow", (0, 0.05, 0), f"{side}ElbowRoll", (0, 0, 1), (0, -0.05, 0), "box",
            _box(0.05, 0.11, 0.05), 0.2, True, marker=True)
        add(f"{s}hand", f"{s}lowerarm", (0, 0.055, 0))  # the far end of the lower-arm box

    # naoleg.rsg / naolegtoe.rsg (type 4), right then left.
    for s, lr in (("r", 1), ("l", -1)):
        side = "R" if s == "r" else "L"
        if rt.toe:
            foot_len = TOTAL_FOOT_LENGTH - TOE_LENGTH
            toe_mass_ratio = TOE_LENGTH / TOTAL_FOOT_LENGTH * 0.5
            foot_mass = (1 - toe_mass_ratio) * 0.2
            foot_y = foot_len * 0.5 - 0.05
        else:
            foot_len, foot_mass, foot_y = TOTAL_FOOT_LENGTH, 0.2, 0.03
        add(f"{s}hip1", "torso", (lr * rt.hip1_rel_torso_x, -0.01, rt.hip1_rel_torso_z), f"{side}HipYawPitch",
            (-0.7071, 0, lr * 0.7071), (0, 0, 0), "sphere", (0.01,), 0.09)
        add(f"{s}hip2", f"{s}hip1", (0, 0, 0), f"{side}HipRoll", (0, 1, 0), (0, 0, 0), "sphere", (0.01,), 0.125)
        add(f"{s}thigh", f"{s}hip2", (0, 0.01, rt.thigh_rel_hip2_z), f"{side}HipPitch", (1, 0, 0),
            (0, -0.01, -rt.thigh_rel_hip2_z), "box", _box(0.07, 0.07, 0.14), 0.275, True)
        add(f"{s}shank", f"{s}thigh", (0, 0.005, -0.125), f"{side}KneePitch", (1, 0, 0), (0, -0.01, 0.045), "box",
            _box(0.08, 0.07, 0.11), 0.225, True)
        add(f"{s}ankle", f"{s}shank", (0, -0.01, rt.ankle_rel_shank_z), f"{side}AnklePitch", (1, 0, 0), (0, 0, 0),
            "sphere", (0.01,), 0.125)
        add(f"{s}foot", f"{s}ankle", (0, foot_y, -0.04), f"{side}AnkleRoll", (0, 1, 0), (0, -0.03, 0.035), "box",
            _box(0.08, foot_len, 0.02), foot_mass, True, marker=True)
        # Foot frame: on the sole plane, straight below the ankle-pitch joint at zero angles.
        add(f"{s}sole", f"{s}foot", (0, -foot_y, -(SOLE_BELOW_ANKLE - 0.04)))
        if rt.toe:
            add(f"{s}toe", f"{s}foot", (0, TOTAL_FOOT_LENGTH * 0.5, -0.005), f"{side}ToePitch", (1, 0, 0),
                (0, -0.5 * TOE_LENGTH, -0.005), "box", _box(0.08, TOE_LENGTH, 0.01),
                toe_mass_ratio * 0.2, True)
    return tuple(links)


@cache
def links(robot_type: int = 0) -> tuple[Link, ...]:
    """The link table of a SimSpark robot type (0-4); parents come before their children."""
    return _build(check_robot_type(robot_type))


def link_map(robot_type: int = 0) -> dict[str, Link]:
    return {lk.name: lk for lk in links(robot_type)}


def total_mass(robot_type: int = 0) -> float:
    return float(sum(lk.mass for lk in links(robot_type)))


def zero_pose_positions(robot_type: int = 0) -> dict[str, np.ndarray]:
    """Origin of every link in the torso frame at zero joint angles."""
    out: dict[str, np.ndarray] = {}
    for lk in links(robot_type):
        out[lk.name] = np.asarray(lk.pos) + (out[lk.parent] if lk.parent else 0.0)
    return out


def standing_height(robot_type: int = 0) -> float:
    """Torso centre above the ground when the robot stands straight (all joints 0) on flat ground, m."""
    return float(-zero_pose_positions(robot_type)["lsole"][2])
