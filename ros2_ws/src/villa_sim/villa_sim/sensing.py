"""The agents' perceptions of one cycle as rcssservermj makes them (rcsssmj.sim.simulation.BaseSimulation.
generate_perceptions), read from MuJoCo's arrays at once instead of sensor by sensor and site by site.

rcssservermj looks every sensor up by name (``data.sensor(name)``) and every vision marker by name each cycle: with four
robots that was 15 % of a `villa games` game. Here each agent's sensors are resolved to addresses in ``sensordata``
once per compiled model, the markers to site indices, and the perceptions are built in rcssservermj's order with the
same truncations, so the wire messages are the same bytes (``test_sensing.py`` compares them with rcssservermj's, cycle
by cycle, in a game). The audio part is rcssservermj's, unchanged in substance (it draws from numpy's global generator
in the same order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import mujoco
import numpy as np
from rcsssmj.sim.perceptions import (
    AccelerometerPerception,
    AgentDetection,
    GyroPerception,
    JointStatePerception,
    MicrophonePerception,
    ObjectDetection,
    OrientationPerception,
    PositionPerception,
    TimePerception,
    TouchPerception,
    VisionPerception,
)

_S = mujoco.mjtSensor
HALF_RANGE = 60.0          # degrees: rcssservermj's horizontal and vertical view range, each side


def _trunc2(val: float) -> float:
    return int(val * 100) / 100.0


def _trunc2_vec(vec):
    return np.trunc(vec * 100) / 100.0


def joint_degrees(sensordata: np.ndarray, adrs: np.ndarray) -> np.ndarray:
    """The joint angles (or velocities) at sensordata addresses `adrs` as rcssservermj sends them: degrees truncated
    to 0.01."""
    return _trunc2_vec(np.degrees(sensordata[adrs]))


def _trunc3_vec(vec):
    return np.trunc(vec * 1000) / 1000.0


@dataclass
class _AgentPlan:
    """One agent's sensors as (kind, name without prefix, sensordata address) in its spec's order (joints apart)."""

    others: list[tuple[int, str, int]]
    joint_names: list[str]
    joint_pos: np.ndarray           # sensordata addresses of the joint angles, in the spec's order
    joint_vel: np.ndarray
    camera: int                     # site id, -1 if none
    markers: np.ndarray             # site ids of the agent's vision markers


class Sensing:
    """Per compiled model: the plans of the agents and the world's marker sites."""

    def __init__(self) -> None:
        self._model = None
        self._plans: dict[str, _AgentPlan] = {}
        self._world_sites: np.ndarray | None = None

    def _plan(self, model, agent) -> _AgentPlan:
        prefix = agent.agent_id.prefix
        plan = self._plans.get(prefix)
        if plan is not None:
            return plan
        n = len(prefix)
        others, names, pos, vel = [], [], [], []
        for spec in agent.spec.sensors:
            adr = int(model.sensor_adr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, spec.name)])
            if spec.type == _S.mjSENS_JOINTPOS:
                names.append(spec.name[n:])
                pos.append(adr)
            elif spec.type == _S.mjSENS_JOINTVEL:
                vel.append(adr)
            elif spec.type in (_S.mjSENS_GYRO, _S.mjSENS_ACCELEROMETER, _S.mjSENS_TOUCH, _S.mjSENS_FRAMEQUAT,
                               _S.mjSENS_FRAMEPOS):
                others.append((int(spec.type), spec.name[n:], adr))
        camera = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, prefix + "camera")
        markers = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, s[0]) for s in agent.markers], dtype=int)
        plan = self._plans[prefix] = _AgentPlan(others, names, np.array(pos, dtype=int), np.array(vel, dtype=int),
                                                camera, markers)
        return plan

    def generate(self, sim, gen_vision: bool | None = None) -> None:
        """rcssservermj's generate_perceptions for `sim` (a rcsssmj BaseSimulation)."""
        model, data = sim._mj_model, sim._mj_data
        if model is not self._model:
            self._model, self._plans = model, {}
            self._world_sites = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, s[0])
                                          for s in sim._world_markers], dtype=int)
        if gen_vision is None:
            gen_vision = sim._frame_id % sim.vision_interval == 0
        agents = [*sim.sim_agents]
        plans = [self._plan(model, a) for a in agents]
        time_perception = TimePerception("now", _trunc2(data.time))
        game_state = sim._generate_game_state_perception()
        sensordata = data.sensordata
        if gen_vision:
            obj_markers = list(sim._world_markers)
            for a in agents:
                obj_markers.extend(a.markers)
            n_world = len(sim._world_markers)
            sites = np.concatenate([self._world_sites, *(p.markers for p in plans)]).astype(int)
            obj_pos = data.site_xpos[sites].T.astype(np.float64)
        for agent, plan in zip(agents, plans, strict=True):
            out = [time_perception, game_state]
            for kind, name, adr in plan.others:
                if kind == _S.mjSENS_GYRO:
                    rvx, rvy, rvz = _trunc2_vec(np.degrees(sensordata[adr:adr + 3]))
                    out.append(GyroPerception(name, rvx, rvy, rvz))
                elif kind == _S.mjSENS_ACCELEROMETER:
                    ax, ay, az = _trunc2_vec(sensordata[adr:adr + 3])
                    out.append(AccelerometerPerception(name, ax, ay, az))
                elif kind == _S.mjSENS_TOUCH:
                    out.append(TouchPerception(name, int(sensordata[adr])))
                elif kind == _S.mjSENS_FRAMEQUAT:
                    qw, qx, qy, qz = _trunc3_vec(sensordata[adr:adr + 4])
                    out.append(OrientationPerception(name, qw, qx, qy, qz))
                else:
                    px, py, pz = _trunc3_vec(sensordata[adr:adr + 3])
                    out.append(PositionPerception(name, px, py, pz))
            if plan.joint_names:
                out.append(JointStatePerception(list(plan.joint_names),
                                                joint_degrees(sensordata, plan.joint_pos),
                                                joint_degrees(sensordata, plan.joint_vel)))
            heard = _microphone(sim, agent)
            if heard is not None:
                out.append(heard)
            if gen_vision and plan.camera >= 0:
                out.append(_vision(agents, agent, data, plan.camera, obj_markers, obj_pos, n_world))
            agent.set_perceptions(out)


def _microphone(sim, agent):
    """rcssservermj's audio perception (messages of others, length-limited, the three loudest always heard)."""
    prefix = agent.agent_id.prefix
    a_sensor = sim._a_data.sensors.get(prefix + "hear", None)
    if a_sensor is None or not a_sensor.messages:
        return None
    n_msgs = len(a_sensor.messages)
    other_msg_mask = [not s.startswith(prefix) for s in a_sensor.sources]
    len_limit_msg_mask = [len(msg) <= 10 for msg in a_sensor.messages]
    noise_volumes = a_sensor.volumes[len_limit_msg_mask]
    if len(noise_volumes) <= 3:
        loss_msg_mask = np.full(n_msgs, True)
    else:
        noise_floor = np.sort(noise_volumes)[-3]
        loss_msg_mask = np.random.rand(n_msgs) < np.clip(  # noqa: NPY002  (rcssservermj's global generator)
            np.log(a_sensor.volumes * (np.e - 1) / noise_floor + 1), 0, 1)
    msg_indices = cast(Sequence[int], np.nonzero(loss_msg_mask & other_msg_mask & len_limit_msg_mask)[0])
    azimuths = cast(Sequence[int], np.degrees(np.atan2(a_sensor.origins[1, msg_indices],
                                                       a_sensor.origins[0, msg_indices])).astype(np.int64))
    return MicrophonePerception(a_sensor.name[len(prefix):], azimuths, [a_sensor.messages[i] for i in msg_indices])


def _vision(agents, agent, data, camera: int, obj_markers, obj_pos, n_world: int) -> VisionPerception:
    """rcssservermj's ideal camera: polar coordinates of every marker within the view range, world objects first."""
    camera_pos = data.site_xpos[camera].astype(np.float64)
    camera_rot = data.site_xmat[camera].astype(np.float64).reshape((3, 3))
    local = np.matmul(camera_rot.T, obj_pos - camera_pos[:, np.newaxis])
    azimuths = _trunc2_vec(np.degrees(np.atan2(local[1], local[0])))
    distances = np.linalg.norm(local, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):     # a marker at the camera: NaN, not visible
        elevations = _trunc2_vec(np.degrees(np.asin(local[2] / distances)))
    distances = _trunc2_vec(distances)
    visible = (azimuths >= -HALF_RANGE) & (azimuths <= HALF_RANGE) & (elevations >= -HALF_RANGE) & \
        (elevations <= HALF_RANGE)
    detections = [ObjectDetection(obj_markers[i][1], azimuths[i], elevations[i], distances[i])
                  for i in range(n_world) if visible[i]]
    idx = n_world
    for player in agents:
        n = len(player.markers)
        parts = [ObjectDetection(obj_markers[i][1], azimuths[i], elevations[i], distances[i])
                 for i in range(idx, idx + n) if visible[i]]
        if parts:
            detections.append(AgentDetection("P", player.team_name, player.agent_id.player_no, parts))
        idx += n
    return VisionPerception("See", detections)
