"""SimSpark (rcssserver3d 0.7.3) adapter: scene/init handshake and hinge-velocity joint commands.

The hinges take velocities (rad/s); villa_bridge.joint_control turns the held angle targets into them (prediction of
the command in flight, stop margins; UT Austin Villa 2011 report §3).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from villa_bridge import effectors
from villa_bridge.backend import Backend
from villa_bridge.joint_control import HingeVelocityControl
from villa_bridge.joint_io import HeldTargets
from villa_bridge.perception import Perception
from villa_nao.joints import joints_for_type


class SimSparkBackend(Backend):
    name = "simspark"

    def __init__(self, team: str, unum: int, robot_type: int = 0, sync: bool = True, gain: float = 40.0,
                 delay: int = 1, stop_margin: float = np.radians(1.0)) -> None:
        super().__init__(team, unum, robot_type, sync)
        if not 0 <= unum <= 11:
            raise ValueError(f"SimSpark unum must be 0..11 (0 = server assigns), got {unum}")
        self.joints = joints_for_type(robot_type)
        self.control = HingeVelocityControl(self.joints, gain, delay, stop_margin)
        self.signs = np.array([j.sign for j in self.joints], dtype=float)
        self.effector_names = [j.simspark_effector for j in self.joints]

    def hello(self) -> list[str]:
        self.control.reset()                 # a new robot: no command in flight
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
        return self.signs * self.control.velocities(held, angles)

    def joint_commands(self, held: HeldTargets, angles: Mapping[str, float]) -> str:
        return effectors.simspark_joints(self.effector_names, self.velocities(held, angles))
