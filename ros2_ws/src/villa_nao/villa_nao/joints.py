"""The Nao's joints: canonical NAOqi names, limits, speeds, and each backend's wire names and signs.

Facts: shared/simspark/NAO_MODEL_FACTS.md (SimSpark rcssserver3d 0.7.3, robot types 0-4) and the
NAOqi documentation of the physical Nao (H25). Everything above the bridge speaks NAOqi: joint names
such as ``LHipPitch`` and NAOqi's signs (HeadPitch positive = down, HipPitch negative = leg forward).

Sign convention: ``naoqi_angle = sign * simspark_angle``. SimSpark's model frame is x right, y forward,
z up; NAOqi's is X forward, Y left, Z up. A SimSpark hinge about +x (right) is therefore a NAOqi
rotation about -Y: sign -1 for every pitch joint; hinges about +y (forward, NAOqi +X: rolls, elbow
yaw) and +z (up: yaws, shoulder roll, elbow roll) keep their sign. The hip yaw-pitch axes
(SimSpark (-1, 0, -+1)/sqrt2 -> NAOqi (0, 1, -+1)/sqrt2) are NAOqi's own, sign +1.
Our rcssservermj Nao model (villa_nao/models) uses SimSpark's names on the wire and the same signs.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

# SimSpark's maximum joint speed for every hinge (351.77 deg/s), NAO_MODEL_FACTS.md.
SIMSPARK_MAX_SPEED = math.pi * 351.77 / 180.0


@dataclass(frozen=True)
class Joint:
    """One hinge of the simulated Nao, with everything a backend needs to drive it."""

    name: str                      # NAOqi name (canonical, used on every topic)
    simspark_perceptor: str        # HJ name on the wire (hj1, raj1, ...)
    simspark_effector: str         # effector name on the wire (he1, rae1, ...)
    sign: int                      # naoqi_angle = sign * wire_angle
    sim_min: float                 # rad, NAOqi sign: limits of the simulated (SimSpark) Nao
    sim_max: float
    naoqi_min: float               # rad: limits of the physical Nao (H25, NAOqi documentation)
    naoqi_max: float
    max_speed: float               # rad/s, SimSpark's clamp (robot type 0)
    chain: str                     # head, larm, rarm, lleg, rleg


def _deg(a: float) -> float:
    return math.radians(a)


def _j(name, per, eff, sign, ss_min_deg, ss_max_deg, nq_min_deg, nq_max_deg, chain) -> Joint:
    # SimSpark limits are given in the wire's sign; flip them into NAOqi's sign.
    lo, hi = sorted((sign * ss_min_deg, sign * ss_max_deg))
    return Joint(name, per, eff, sign, _deg(lo), _deg(hi), _deg(nq_min_deg), _deg(nq_max_deg),
                 SIMSPARK_MAX_SPEED, chain)


# Order = SimSpark's HJ order on the wire (hj1, hj2, raj1..4, laj1..4, rlj1..6, llj1..6).
# Columns: NAOqi name, perceptor, effector, sign, SimSpark min/max (deg, wire sign),
# physical Nao min/max (deg, NAOqi), chain.
JOINTS: tuple[Joint, ...] = (
    _j("HeadYaw",        "hj1",  "he1",  +1, -120, 120, -119.52, 119.52, "head"),
    _j("HeadPitch",      "hj2",  "he2",  -1,  -45,  45,  -38.50,  29.50, "head"),
    _j("RShoulderPitch", "raj1", "rae1", -1, -120, 120, -119.50, 119.50, "rarm"),
    _j("RShoulderRoll",  "raj2", "rae2", +1,  -95,   1,  -76.00,  18.00, "rarm"),
    _j("RElbowYaw",      "raj3", "rae3", +1, -120, 120, -119.50, 119.50, "rarm"),
    _j("RElbowRoll",     "raj4", "rae4", +1,   -1,  90,    2.00,  88.50, "rarm"),
    _j("LShoulderPitch", "laj1", "lae1", -1, -120, 120, -119.50, 119.50, "larm"),
    _j("LShoulderRoll",  "laj2", "lae2", +1,   -1,  95,  -18.00,  76.00, "larm"),
    _j("LElbowYaw",      "laj3", "lae3", +1, -120, 120, -119.50, 119.50, "larm"),
    _j("LElbowRoll",     "laj4", "lae4", +1,  -90,   1,  -88.50,  -2.00, "larm"),
    _j("RHipYawPitch",   "rlj1", "rle1", +1,  -90,   1,  -65.62,  42.44, "rleg"),
    _j("RHipRoll",       "rlj2", "rle2", +1,  -45,  25,  -45.29,  21.74, "rleg"),
    _j("RHipPitch",      "rlj3", "rle3", -1,  -25, 100,  -88.00,  27.73, "rleg"),
    _j("RKneePitch",     "rlj4", "rle4", -1, -130,   1,   -5.90, 121.47, "rleg"),
    _j("RAnklePitch",    "rlj5", "rle5", -1,  -45,  75,  -67.97,  53.40, "rleg"),
    _j("RAnkleRoll",     "rlj6", "rle6", +1,  -25,  45,  -44.06,  22.80, "rleg"),
    _j("LHipYawPitch",   "llj1", "lle1", +1,  -90,   1,  -65.62,  42.44, "lleg"),
    _j("LHipRoll",       "llj2", "lle2", +1,  -25,  45,  -21.74,  45.29, "lleg"),
    _j("LHipPitch",      "llj3", "lle3", -1,  -25, 100,  -88.00,  27.73, "lleg"),
    _j("LKneePitch",     "llj4", "lle4", -1, -130,   1,   -5.29, 121.04, "lleg"),
    _j("LAnklePitch",    "llj5", "lle5", -1,  -45,  75,  -68.15,  52.86, "lleg"),
    _j("LAnkleRoll",     "llj6", "lle6", +1,  -45,  25,  -22.79,  44.06, "lleg"),
)

# Robot type 4 adds a toe hinge per leg (axis (1, 0, 0): a pitch joint, sign -1). The physical Nao
# has no toe; NAOqi names are ours, following NAOqi's pattern.
TOE_JOINTS: tuple[Joint, ...] = (
    _j("RToePitch", "rlj7", "rle7", -1, -1, 70, 0.0, 0.0, "rleg"),
    _j("LToePitch", "llj7", "lle7", -1, -1, 70, 0.0, 0.0, "lleg"),
)

NAMES: tuple[str, ...] = tuple(j.name for j in JOINTS)
INDEX: dict[str, int] = {n: i for i, n in enumerate(NAMES)}
BY_NAME: dict[str, Joint] = {j.name: j for j in JOINTS + TOE_JOINTS}
BY_PERCEPTOR: dict[str, Joint] = {j.simspark_perceptor: j for j in JOINTS + TOE_JOINTS}
BY_EFFECTOR: dict[str, Joint] = {j.simspark_effector: j for j in JOINTS + TOE_JOINTS}

HEAD = tuple(j.name for j in JOINTS if j.chain == "head")
LEFT_ARM = tuple(j.name for j in JOINTS if j.chain == "larm")
RIGHT_ARM = tuple(j.name for j in JOINTS if j.chain == "rarm")
# Legs: hip yaw-pitch, hip roll, hip pitch, knee, ankle pitch, ankle roll.
LEFT_LEG = tuple(j.name for j in JOINTS if j.chain == "lleg")
RIGHT_LEG = tuple(j.name for j in JOINTS if j.chain == "rleg")

# The physical Nao drives both hip yaw-pitch joints with one motor: RHipYawPitch follows LHipYawPitch.
NAOQI_COUPLED = {"RHipYawPitch": "LHipYawPitch"}


@dataclass(frozen=True)
class RobotType:
    """SimSpark's heterogeneous Nao types (naorobottypes.rb); lengths in m, speeds in rad/s."""

    type_id: int
    hip1_rel_torso_x: float
    hip1_rel_torso_z: float
    thigh_rel_hip2_z: float
    ankle_rel_shank_z: float
    elbow_rel_upperarm_y: float
    ankle_pitch_max_speed: float
    ankle_roll_max_speed: float
    toe: bool


ROBOT_TYPES: dict[int, RobotType] = {
    0: RobotType(0, 0.055, -0.115, -0.04, -0.055, 0.07, SIMSPARK_MAX_SPEED, SIMSPARK_MAX_SPEED, False),
    1: RobotType(1, 0.055, -0.115, -0.05832, -0.07332, 0.10664, SIMSPARK_MAX_SPEED, SIMSPARK_MAX_SPEED, False),
    2: RobotType(2, 0.055, -0.115, -0.04, -0.055, 0.07, 8.80667, 3.47234, False),
    3: RobotType(3, 0.072954143, -0.115, -0.067868424, -0.082868424, 0.125736848,
                 SIMSPARK_MAX_SPEED, SIMSPARK_MAX_SPEED, False),
    4: RobotType(4, 0.055, -0.115, -0.04, -0.055, 0.07, SIMSPARK_MAX_SPEED, SIMSPARK_MAX_SPEED, True),
}


def is_robot_type(value) -> bool:
    """A SimSpark robot type: an integer 0..4 (not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) in ROBOT_TYPES


def check_robot_type(value, what: str = "robot type") -> int:
    """`value` as a robot type, or ValueError naming `what` (one check for every layer: bridge, motion, strategy,
    team file, body model)."""
    if not is_robot_type(value):
        raise ValueError(f"{what} must be 0..4, got {value!r}")
    return int(value)


def joints_for_type(robot_type: int = 0) -> tuple[Joint, ...]:
    """The joints of a SimSpark robot type, with that type's ankle speeds and (type 4) toes."""
    rt = ROBOT_TYPES[robot_type]
    out = []
    for j in JOINTS + (TOE_JOINTS if rt.toe else ()):
        if j.name.endswith("AnklePitch"):
            j = Joint(**{**j.__dict__, "max_speed": rt.ankle_pitch_max_speed})
        elif j.name.endswith("AnkleRoll"):
            j = Joint(**{**j.__dict__, "max_speed": rt.ankle_roll_max_speed})
        out.append(j)
    return tuple(out)


def sim_limits(names=NAMES) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper limits (rad, NAOqi sign) of the simulated Nao for the given joints."""
    return (np.array([BY_NAME[n].sim_min for n in names]), np.array([BY_NAME[n].sim_max for n in names]))


def naoqi_limits(names=NAMES) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper limits (rad) of the physical Nao for the given joints."""
    return (np.array([BY_NAME[n].naoqi_min for n in names]), np.array([BY_NAME[n].naoqi_max for n in names]))
