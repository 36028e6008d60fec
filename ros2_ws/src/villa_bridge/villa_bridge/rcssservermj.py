"""rcssservermj (rcsssmj 0.2.1, our `villa sim`) adapter: ``(init nao <team> <unum>)`` and hinge-velocity commands.

villa sim's Nao has SimSpark's velocity-controlled hinges (villa_sim.simulation: ``(<eff> v)``, rad/s), so the joint
targets become velocities through the same controller as on SimSpark (villa_bridge.joint_control, UT Austin Villa 2011
report §3): a joint target sequence moves the robot the same way on both servers (villa bench calibrate). The server has
no unum/side in GS: the player is confirmed by its first perception naming our team as ``tl`` (left) or ``tr``
(right); a refused init closes the connection instead.
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


class RcssservermjBackend(Backend):
    name = "rcssservermj"

    def __init__(self, team: str, unum: int, robot_type: int = 0, sync: bool = True, gain: float = 40.0,
                 delay: int = 1, stop_margin: float = np.radians(1.0)) -> None:
        super().__init__(team, unum, robot_type, sync)
        if not 1 <= unum <= 11:
            raise ValueError(f"rcssservermj unum must be 1..11, got {unum}")
        self.joints = joints_for_type(robot_type)
        self.control = HingeVelocityControl(self.joints, gain, delay, stop_margin)
        self.signs = np.array([j.sign for j in self.joints], dtype=float)
        self.effector_names = [j.simspark_effector for j in self.joints]
        # villa_sim serves robot types as models "nao0".."nao4" ("nao" = type 0)
        self.model = "nao" if robot_type == 0 else f"nao{robot_type}"

    def hello(self) -> list[str]:
        self.control.reset()                 # a new robot: no command in flight
        return [effectors.rcssservermj_init(self.model, self.team, self.unum)]

    def confirmation(self, p: Perception) -> tuple[int, str] | None:
        g = p.game
        if g is None:
            return None
        if g.team_left == self.team:
            return self.unum, "left"
        if g.team_right == self.team:
            return self.unum, "right"
        return None

    def joint_commands(self, held: HeldTargets, angles: Mapping[str, float]) -> str:
        if not held.has_targets():
            return ""                        # a robot without targets yet holds still (velocity 0)
        return effectors.simspark_joints(self.effector_names, self.signs * self.control.velocities(held, angles))
