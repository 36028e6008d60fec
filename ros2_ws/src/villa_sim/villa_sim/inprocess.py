"""An in-process player of the villa simulation: no sockets, no ROS; command it with NAOqi joint targets.

For the walk engine's development, optimization and benchmarks: the same simulation class `villa sim` serves
(VillaSoccerSimulation, same Nao model, same velocity-controlled hinges and 20 ms cycle), stepped directly. Joint
targets go through the bridge's own joint control (villa_bridge.joint_control) and act one cycle late, as a command
sent in reply to a perception does on the servers (it first shows in the perception after next). Joint angles and
the IMU come back in NAOqi names/signs and REP-103 axes, as the bridge would publish them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mujoco
import numpy as np
from rcsssmj.sim.actions import InitRequest

from villa_bridge.joint_control import HingeVelocityControl
from villa_bridge.joint_io import HeldTargets, JointTarget
from villa_nao import body
from villa_nao import field as F
from villa_nao.joints import joints_for_type
from villa_sim.sensing import joint_degrees
from villa_sim.simulation import VillaSoccerSimulation


class InProcessNao:
    """One Nao on the SimSpark field of the villa simulation, stepped 20 ms at a time."""

    CYCLE = 0.02

    def __init__(self, x: float = -3.0, y: float = 0.0, theta: float = 0.0, robot_type: int = 0,
                 vision_noise: bool = False, seed: int | None = 0, team: str = "villa", unum: int = 1) -> None:
        self.robot_type = robot_type
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
        self.effectors = [self.prefix + j.simspark_effector for j in self.joints]
        self.control = HingeVelocityControl(self.joints)
        self.held = HeldTargets(self.joints)
        self._pending: np.ndarray | None = None    # velocities in flight: they act during the coming step
        self._qvel_adr = [self.sim.mj_model.joint(self.prefix + j.simspark_perceptor).dofadr[0] for j in self.joints]
        # the joint angle sensors the server's perceptions read (MuJoCo computes them before a step's integration)
        self._sensor_adr = np.array([self.sim.mj_model.sensor(self.prefix + j.simspark_perceptor).adr[0]
                                     for j in self.joints], dtype=int)
        self.place(x, y, theta)

    # --- state ------------------------------------------------------------------------------------------
    def place(self, x: float, y: float, theta: float, keep_joints: bool = False) -> None:
        """Stand the robot upright at (x, y) facing theta (rad). Without keep_joints its joints are reset to 0 and its
        commands forgotten (rcssservermj's drop); with keep_joints the body is moved as it is, at rest, torso 2 cm
        above standing height, and commanding goes on (SimSpark's trainer move)."""
        if not keep_joints:
            self.agent.drop_at(x, y, theta)
            mujoco.mj_forward(self.sim.mj_model, self.sim.mj_data)
            self.reset_commands()
            return
        model, data = self.sim.mj_model, self.sim.mj_data
        root = model.body(self.prefix + "torso").jntadr[0]
        adr, dof = model.jnt_qposadr[root], model.jnt_dofadr[root]
        data.qpos[adr:adr + 3] = [x, y, body.standing_height(self.robot_type) + 0.02]
        data.qpos[adr + 3:adr + 7] = [math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2)]
        data.qvel[dof:dof + 6] = 0.0
        data.qvel[self._qvel_adr] = 0.0
        mujoco.mj_forward(model, data)

    def place_ball(self, x: float, y: float) -> None:
        """Put the ball at rest on the ground at field (x, y) (rcssservermj's ball drop), its pose updated at once."""
        self.sim.ball.drop_at(x, y)
        mujoco.mj_forward(self.sim.mj_model, self.sim.mj_data)

    def reset_commands(self) -> None:
        """Forget targets and commands in flight (a robot that was placed again holds still)."""
        self.control.reset()
        self.held = HeldTargets(self.joints)
        self._pending = None
        self._apply(np.zeros(len(self.joints)))

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
        self.reset_commands()

    @property
    def time(self) -> float:
        return float(self.sim.sim_time)

    def joint_angles(self) -> dict[str, float]:
        """NAOqi name -> angle (rad, NAOqi sign) as a player on the server perceives it: the joint sensors (MuJoCo
        evaluates them before the last substep's integration, 5 ms old) in degrees truncated to 0.01, as
        rcssservermj sends them. With the true angles (qpos) the walk turns in place at a quarter of the rate it turns
        at in games on the same server, which would hide that difference from the optimizer and the benches."""
        deg = joint_degrees(self.sim.mj_data.sensordata, self._sensor_adr)
        return dict(zip(self.names, (self.signs * np.radians(deg)).tolist(), strict=True))

    def torso_pose(self) -> tuple[np.ndarray, float, float]:
        """(position (3,), yaw (rad), upright: z of the torso's up axis) in the global field frame."""
        p = np.array(self.agent.xpos, dtype=float)
        yaw, up = F.yaw_upright(self.agent.xquat)
        return p, yaw, up

    def speed(self) -> float:
        """Linear speed of the torso, m/s."""
        root = self.sim.mj_model.body(self.prefix + "torso").jntadr[0]
        adr = self.sim.mj_model.jnt_dofadr[root]
        return float(np.linalg.norm(self.sim.mj_data.qvel[adr:adr + 3]))

    def feet(self) -> tuple[bool, bool]:
        """(left, right) foot touching something (the lf / rf touch sensors, as SimSpark's FRP)."""
        data = self.sim.mj_data
        return (bool(data.sensor(self.prefix + "lf").data[0] > 0), bool(data.sensor(self.prefix + "rf").data[0] > 0))

    def accelerometer(self) -> np.ndarray:
        """m/s^2 in REP-103 torso axes (x forward, y left, z up), as the bridge publishes it."""
        a = self.sim.mj_data.sensor(self.prefix + "torso_acc").data
        return np.array([a[1], -a[0], a[2]], dtype=float)

    def gyro(self) -> np.ndarray:
        g = self.sim.mj_data.sensor(self.prefix + "torso").data
        return np.array([g[1], -g[0], g[2]], dtype=float)

    # --- commands -----------------------------------------------------------------------------------------
    def command(self, targets: dict[str, float], stiffness: float | Mapping[str, float] = 1.0) -> None:
        """Angle targets for the named joints (NAOqi names and signs, rad); other joints keep their last target.
        `stiffness`: one for all of them, or per joint (1 for a joint it does not name).

        As the bridge does every cycle, ``step`` turns the held targets into velocities from the angles before it;
        those act from the step after, as a command sent in reply to a perception does on the servers."""
        per = stiffness.get if isinstance(stiffness, Mapping) else (lambda n, d, s=float(stiffness): s)
        self.held.update({n: JointTarget(float(q), None, per(n, 1.0)) for n, q in targets.items()
                          if n in self.held.index and math.isfinite(q)})

    def _apply(self, v: np.ndarray) -> None:
        for eff, s, vi in zip(self.effectors, self.signs, v, strict=True):
            self.sim.villa_hinge_velocity(eff, float(s * vi))

    def step(self, cycles: int = 1) -> None:
        for _ in range(cycles):
            answer = (self.control.velocities(self.held, self.joint_angles()) if self.held.has_targets()
                      else None)
            if self._pending is not None:
                self._apply(self._pending)
            self._pending = answer
            self.sim.step([])
