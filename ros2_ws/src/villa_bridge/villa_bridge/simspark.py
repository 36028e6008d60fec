"""SimSpark (rcssserver3d 0.7.3) adapter: scene/init handshake and hinge-velocity joint control.

UT Austin Villa 2011 report §3: a controller per joint turns the desired joint angle into the motor command;
SimSpark's hinge effectors take a velocity (rad/s), so ours is a proportional controller on the angle error,
plus the command's feed-forward velocity, clamped to the joint's maximum speed (SIMSPARK_FACTS.md,
"Effector limits"). Stiffness (0..1) scales the gain: SimSpark has no limp motor, stiffness 0 holds still.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from villa_bridge import effectors
from villa_bridge.backend import Backend
from villa_bridge.joint_io import HeldTargets
from villa_bridge.perception import Perception
from villa_nao.joints import joints_for_type


def p_control(target: np.ndarray, current: np.ndarray, feed_forward: np.ndarray, stiffness: np.ndarray,
              gain: float, max_speed: np.ndarray) -> np.ndarray:
    """Joint velocities (rad/s, NAOqi sign): stiffness*gain*(target-current) + feed_forward, clamped.

    A joint without a target (NaN) or without a measured angle (NaN) gets 0 (the motor holds still).
    """
    v = stiffness * gain * (target - current) + feed_forward
    v = np.where(np.isfinite(v), v, 0.0)
    return np.clip(v, -max_speed, max_speed)


class SimSparkBackend(Backend):
    name = "simspark"

    def __init__(self, team: str, unum: int, robot_type: int = 0, sync: bool = True, gain: float = 40.0) -> None:
        super().__init__(team, unum, robot_type, sync)
        if robot_type not in range(5):
            raise ValueError(f"SimSpark robot type must be 0..4, got {robot_type}")
        if not 0 <= unum <= 11:
            raise ValueError(f"SimSpark unum must be 0..11 (0 = server assigns), got {unum}")
        if gain <= 0:
            raise ValueError(f"P gain must be > 0 (1/s), got {gain}")
        self.gain = gain
        self.joints = joints_for_type(robot_type)
        self.max_speed = np.array([j.max_speed for j in self.joints])
        self.signs = np.array([j.sign for j in self.joints], dtype=float)
        self.effector_names = [j.simspark_effector for j in self.joints]

    def hello(self) -> list[str]:
        return [effectors.simspark_scene(self.robot_type)]

    def first_reply(self) -> str | None:
        return effectors.simspark_init(self.unum, self.team, self.sync)

    def confirmation(self, p: Perception) -> tuple[int, str] | None:
        g = p.game
        if g is not None and g.unum is not None and g.side is not None:
            return g.unum, g.side
        return None

    def velocities(self, held: HeldTargets, angles: Mapping[str, float]) -> np.ndarray:
        """Per-joint wire velocities (rad/s, wire sign) in ``self.joints`` order."""
        idx = [held.index[j.name] for j in self.joints]
        current = np.array([angles.get(j.name, np.nan) for j in self.joints])
        v = p_control(held.position[idx], current, held.velocity[idx], held.stiffness[idx], self.gain,
                      self.max_speed)
        return self.signs * v

    def joint_commands(self, held: HeldTargets, angles: Mapping[str, float]) -> str:
        return effectors.simspark_joints(self.effector_names, self.velocities(held, angles))
