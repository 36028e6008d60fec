"""rcssservermj (rcsssmj 0.2.1, our `villa sim`) adapter: ``(init nao <team> <unum>)`` and PD joint commands.

UT Austin Villa 2011 report §3: a controller per joint turns the desired angle into torque. rcssservermj runs
that PD controller itself: ``(<eff> q dq kp kd tau)`` gives torque = tau + kp (q - q_now) + kd (dq - dq_now).
Gains come from villa_nao's config/pd_gains.yaml (villa_nao.gains), scaled by the command's stiffness 0..1
(stiffness 0 = limp). Joints that never received a target are not commanded: the model's default gains
hold them at 0. The server has no unum/side in GS: the player is confirmed by its first perception naming
our team as ``tl`` (left) or ``tr`` (right); a refused init closes the connection instead.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from villa_bridge import effectors
from villa_bridge.backend import Backend
from villa_bridge.joint_io import HeldTargets
from villa_bridge.perception import Perception
from villa_nao.joints import joints_for_type


class RcssservermjBackend(Backend):
    name = "rcssservermj"

    def __init__(self, team: str, unum: int, robot_type: int = 0, sync: bool = True,
                 gains: Mapping[str, tuple[float, float]] | None = None) -> None:
        super().__init__(team, unum, robot_type, sync)
        if robot_type not in range(5):
            raise ValueError(f"robot type must be 0..4, got {robot_type}")
        if not 1 <= unum <= 11:
            raise ValueError(f"rcssservermj unum must be 1..11, got {unum}")
        if gains is None:
            from villa_nao.gains import load_pd_gains

            gains = load_pd_gains()
        self.joints = joints_for_type(robot_type)
        missing = [j.name for j in self.joints if j.name not in gains]
        if missing:
            raise ValueError(f"pd gains missing for {', '.join(missing)}")
        self.kp = np.array([gains[j.name][0] for j in self.joints])
        self.kd = np.array([gains[j.name][1] for j in self.joints])
        self.signs = np.array([j.sign for j in self.joints], dtype=float)
        self.effector_names = [j.simspark_effector for j in self.joints]
        # villa_sim serves robot types as models "nao0".."nao4" ("nao" = type 0)
        self.model = "nao" if robot_type == 0 else f"nao{robot_type}"

    def hello(self) -> list[str]:
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
        idx = np.array([held.index[j.name] for j in self.joints])
        pos = held.position[idx]
        have = np.isfinite(pos)
        if not have.any():
            return ""
        s = held.stiffness[idx]
        sel = np.flatnonzero(have)
        return effectors.rcssservermj_joints([self.effector_names[i] for i in sel], (self.signs * pos)[sel],
                                             (self.signs * held.velocity[idx])[sel], (s * self.kp)[sel],
                                             (s * self.kd)[sel])
