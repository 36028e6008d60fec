"""The kick engine (§13.1, Fig. 14): one kick's weight shift, the curve through the ball and the return to
standing, as joint targets per 20 ms cycle (KickEngine); stand_joints, the stand a kick starts from and ends in."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from villa_motion.kick.definition import KickDef
from villa_motion.kick.trajectory import (
    REACH_FRACTION,
    StandPose,
    Trajectory,
    leg_angles,
    reachable_fraction,
    shifted_feet,
    sole_pose,
    stand_feet,
    trajectory,
)
from villa_nao import kinematics as K

LEFT = ("LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll")
RIGHT = ("RHipYawPitch", "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll")
ARMS = {"LShoulderPitch": 1.6, "RShoulderPitch": 1.6, "LShoulderRoll": 0.15, "RShoulderRoll": -0.15,
        "LElbowYaw": -1.4, "RElbowYaw": 1.4, "LElbowRoll": -0.4, "RElbowRoll": 0.4}


def _smooth(a: float) -> float:
    a = min(1.0, max(0.0, a))
    return 0.5 - 0.5 * math.cos(math.pi * a)


class KickEngine:
    """Runs one kick: weight shift, the curve through the ball, return to standing (§13.1, Fig. 14)."""

    def __init__(self, kick: KickDef, stand: StandPose = StandPose(), robot_type: int = 0) -> None:
        self.kick, self.stand, self.robot_type = kick, stand, robot_type
        self.phase = "idle"
        self.t = 0.0
        self.reason = ""
        self.fraction = 0.0
        self.traj: Trajectory | None = None
        self._last: dict[str, float] = {}

    @property
    def done(self) -> bool:
        return self.phase in ("done", "refused")

    @property
    def refused(self) -> bool:
        return self.phase == "refused"

    def start(self, ball_rel) -> bool:
        """Check reachability (§13.1.1) and commit; False (phase 'refused', ``reason`` set) when the IK reaches too
        little of the curve for this ball position (robot frame, m)."""
        b = np.asarray(ball_rel, dtype=float).ravel()[:2]
        if b.size != 2 or not np.all(np.isfinite(b)):
            self.phase, self.reason = "refused", f"ball position must be 2 finite numbers, got {ball_rel!r}"
            return False
        self.fraction = reachable_fraction(self.kick, b, self.stand, self.robot_type)
        if self.fraction <= REACH_FRACTION:
            self.phase = "refused"
            self.reason = (f"kick {self.kick.name} refused: the IK reaches {100 * self.fraction:.0f} % of the curve "
                           f"(needs > {100 * REACH_FRACTION:.0f} %) for the ball at ({b[0]:.3f}, {b[1]:.3f}) m")
            return False
        self.traj = trajectory(self.kick, b, self.stand)
        self.phase, self.t, self.reason = "shift", 0.0, ""
        return True

    def _feet(self) -> dict[str, np.ndarray]:
        """Both sole poses (4x4, torso frame) at the current time."""
        k, lean = self.kick, self.stand.torso_lean
        stand, shifted = stand_feet(self.stand), shifted_feet(k, self.stand)
        support = "R" if k.foot == "L" else "L"
        zero = (0.0, 0.0, 0.0)
        if self.phase == "shift":      # §13.1: shift the weight onto the support foot
            a = _smooth(self.t / k.shift_time)
            return {s: sole_pose(stand[s] + a * (shifted[s] - stand[s]), zero, lean) for s in ("L", "R")}
        if self.phase == "kick":       # §13.1.3: sample the curve at the normalized time
            u = self.t / k.duration
            return {support: sole_pose(shifted[support], zero, lean), k.foot: self.traj.pose(u)}
        # return: the kicking foot back over the lifted start (first half), then the weight back (second half)
        a = self.t / k.return_time
        end = self.traj.pose(1.0)
        if a < 0.5:
            b = _smooth(2 * a)
            pos = end[:3, 3] + b * (shifted[k.foot] - end[:3, 3])
            rpy = (1 - b) * self.traj.rpy(1.0)
            return {support: sole_pose(shifted[support], zero, lean), k.foot: sole_pose(pos, rpy, lean)}
        b = _smooth(2 * a - 1)
        return {s: sole_pose(shifted[s] + b * (stand[s] - shifted[s]), zero, lean) for s in ("L", "R")}

    def update(self, dt: float = 0.02, sensed_joints: Mapping[str, float] | None = None) -> dict[str, float]:
        """Advance dt seconds; the joint targets (NAOqi names, rad) of legs and arms for this cycle."""
        if self.phase == "idle":
            raise RuntimeError("KickEngine.update before start()")
        if self.done:
            return dict(self._last)
        self.t += dt
        lengths = {"shift": self.kick.shift_time, "kick": self.kick.duration, "return": self.kick.return_time}
        nxt = {"shift": "kick", "kick": "return", "return": "done"}
        while self.phase in lengths and self.t >= lengths[self.phase]:
            self.t -= lengths[self.phase]
            self.phase = nxt[self.phase]
        if self.phase == "done":
            self.phase, self.t = "return", self.kick.return_time
            out = self._targets()
            self.phase = "done"
            return out
        return self._targets()

    def _targets(self) -> dict[str, float]:
        joints = dict(ARMS)
        feet = self._feet()
        for side, names in (("L", LEFT), ("R", RIGHT)):
            q, _ = leg_angles(side, feet[side], self.robot_type)
            joints.update(zip(names, (float(a) for a in q), strict=True))
        self._last = joints
        return joints


def stand_joints(stand: StandPose = StandPose(), robot_type: int = 0) -> dict[str, float]:
    """The standing joint targets the kick starts from and returns to."""
    joints = dict(ARMS)
    for side, names in (("L", LEFT), ("R", RIGHT)):
        r = K.leg_ik(side, sole_pose(stand_feet(stand)[side], (0.0, 0.0, 0.0), stand.torso_lean), robot_type)
        joints.update(zip(names, (float(a) for a in r.angles), strict=True))
    return joints
