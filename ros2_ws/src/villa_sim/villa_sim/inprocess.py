"""An in-process player of the villa simulation: no sockets, no ROS; command it with NAOqi joint targets.

For the walk engine's development, optimization and benchmarks: the same simulation class `villa sim` serves
(VillaSoccerSimulation, same Nao model, same PD actuators and 20 ms cycle), stepped directly. Joint angles and the
IMU come back in NAOqi names/signs and REP-103 axes, as the bridge would publish them.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
from rcsssmj.sim.actions import InitRequest

from villa_nao import field as F
from villa_nao.gains import load_pd_gains
from villa_nao.joints import joints_for_type
from villa_sim.simulation import VillaSoccerSimulation


class InProcessNao:
    """One Nao on the SimSpark field of the villa simulation, stepped 20 ms at a time."""

    CYCLE = 0.02

    def __init__(self, x: float = -3.0, y: float = 0.0, theta: float = 0.0, robot_type: int = 0,
                 vision_noise: bool = False, seed: int | None = 0, team: str = "villa", unum: int = 1) -> None:
        self.sim = VillaSoccerSimulation(vision_noise=vision_noise, seed=seed)
        if not self.sim.init():
            raise RuntimeError("the villa simulation did not initialise")
        (self.agent,) = self.sim.add_players([InitRequest(f"nao{robot_type}", team, unum)])
        if self.agent is None:
            raise RuntimeError(f"the simulation refused nao{robot_type} {team} #{unum}")
        self.prefix = self.agent.agent_id.prefix
        self.joints = joints_for_type(robot_type)
        self.names = [j.name for j in self.joints]
        self.signs = np.array([j.sign for j in self.joints], dtype=float)
        gains = load_pd_gains()
        self.kp = np.array([gains[j.name][0] for j in self.joints])
        self.kd = np.array([gains[j.name][1] for j in self.joints])
        data = self.sim.mj_data
        self._qpos = [data.joint(self.prefix + j.simspark_perceptor) for j in self.joints]
        self._qvel_adr = [self.sim.mj_model.joint(self.prefix + j.simspark_perceptor).dofadr[0] for j in self.joints]
        self.place(x, y, theta)

    # --- state ------------------------------------------------------------------------------------------
    def place(self, x: float, y: float, theta: float) -> None:
        self.agent.drop_at(x, y, theta)
        mujoco.mj_forward(self.sim.mj_model, self.sim.mj_data)

    def lay(self, face_up: bool, x: float = -3.0, y: float = 0.0) -> None:
        """Put the robot on the ground on its back (face up) or front, joints at zero, at rest."""
        self.agent.drop_at(x, y, 0.0)
        data = self.sim.mj_data
        root = self.sim.mj_model.body(self.prefix + "torso").jntadr[0]
        adr = self.sim.mj_model.jnt_qposadr[root]
        pitch = -math.pi / 2 if face_up else math.pi / 2      # about y: torso x axis up (back) or down (front)
        data.qpos[adr:adr + 3] = [x, y, 0.12]
        data.qpos[adr + 3:adr + 7] = [math.cos(pitch / 2), 0.0, math.sin(pitch / 2), 0.0]
        data.qvel[self.sim.mj_model.jnt_dofadr[root]:self.sim.mj_model.jnt_dofadr[root] + 6] = 0.0
        mujoco.mj_forward(self.sim.mj_model, data)

    @property
    def time(self) -> float:
        return float(self.sim.sim_time)

    def joint_angles(self) -> dict[str, float]:
        """NAOqi name -> angle (rad, NAOqi sign)."""
        return {n: float(s * q.qpos[0]) for n, s, q in zip(self.names, self.signs, self._qpos, strict=True)}

    def joint_array(self) -> np.ndarray:
        return self.signs * np.array([q.qpos[0] for q in self._qpos])

    def torso_pose(self) -> tuple[np.ndarray, float, float]:
        """(position (3,), yaw (rad), upright: z of the torso's up axis) in the global field frame."""
        p = np.array(self.agent.xpos, dtype=float)
        yaw, up = F.yaw_upright(self.agent.xquat)
        return p, yaw, up

    def accelerometer(self) -> np.ndarray:
        """m/s^2 in REP-103 torso axes (x forward, y left, z up), as the bridge publishes it."""
        a = self.sim.mj_data.sensor(self.prefix + "torso_acc").data
        return np.array([a[1], -a[0], a[2]], dtype=float)

    def gyro(self) -> np.ndarray:
        g = self.sim.mj_data.sensor(self.prefix + "torso").data
        return np.array([g[1], -g[0], g[2]], dtype=float)

    # --- commands -----------------------------------------------------------------------------------------
    def command(self, targets: dict[str, float], stiffness: float = 1.0) -> None:
        """PD targets for the named joints (NAOqi names and signs, rad); other joints keep their last command."""
        for i, name in enumerate(self.names):
            if name in targets:
                q = float(targets[name])
                if not math.isfinite(q):
                    continue
                self.sim.ctrl_motor(self.prefix + self.joints[i].simspark_effector, self.signs[i] * q, 0.0,
                                    stiffness * self.kp[i], stiffness * self.kd[i], 0.0)

    def step(self, cycles: int = 1) -> None:
        for _ in range(cycles):
            self.sim.step([])
