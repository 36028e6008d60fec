"""The MJCF Nao: what rcssservermj needs, agreement with villa_nao.kinematics, and a plain-MuJoCo stand test."""

import itertools
import math

import mujoco
import numpy as np
import pytest
from rcsssmj.resources.spec_provider import ModelSpecProvider

from villa_nao import body, joints
from villa_nao import kinematics as K
from villa_nao.gains import load_pd_gains
from villa_nao.mjcf import FMAX, WIRE_NAMES, make_mjcf

WIRE_ORDER = ["hj1", "hj2", "raj1", "raj2", "raj3", "raj4", "laj1", "laj2", "laj3", "laj4",
              "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6", "llj1", "llj2", "llj3", "llj4", "llj5", "llj6"]


@pytest.fixture(scope="module", params=range(5))
def typed_model(request):
    return request.param, mujoco.MjModel.from_xml_string(make_mjcf(request.param))


def _names(m, obj, n):
    return [mujoco.mj_id2name(m, obj, i) for i in range(n)]


def _set_naoqi(m, d, q: dict, robot_type: int, prefix=""):
    for j in joints.joints_for_type(robot_type):
        d.joint(prefix + j.simspark_perceptor).qpos[0] = j.sign * q.get(j.name, 0.0)


def test_joints_ranges_axes_and_wire_sign(typed_model):
    t, m = typed_model
    hinges = [i for i in range(m.njnt) if m.jnt_type[i] == mujoco.mjtJoint.mjJNT_HINGE]
    assert len(hinges) == (24 if t == 4 else 22)
    assert m.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE and m.joint(0).name == "root"
    for j in joints.joints_for_type(t):
        mj = m.joint(j.simspark_perceptor)
        lo, hi = sorted((j.sign * j.sim_min, j.sign * j.sim_max))
        assert mj.range == pytest.approx([lo, hi]), j.name          # SimSpark's stops, wire sign
        assert bool(m.jnt_limited[mj.id])
        assert m.jnt_actfrcrange[mj.id] == pytest.approx([-FMAX, FMAX])
    # positive MJCF angle = positive SimSpark angle: the axis is the rsg axis, converted to REP-103
    expect = {"hj1": (0, 0, 1), "hj2": (1, 0, 0), "raj2": (0, 0, 1), "laj3": (0, 1, 0), "rlj1": (-1, 0, 1),
              "llj1": (-1, 0, -1), "llj2": (0, 1, 0), "rlj3": (1, 0, 0), "llj6": (0, 1, 0)}
    for name, ss in expect.items():
        a = body.SS_TO_REP @ np.asarray(ss, float)
        assert m.joint(name).axis == pytest.approx(a / np.linalg.norm(a)), name


def test_mass_root_and_spawn_height(typed_model):
    t, m = typed_model
    assert m.body_mass.sum() == pytest.approx(4.6071, abs=1e-9)
    torso = m.body("torso")
    assert torso.parentid[0] == 0 and torso.pos[2] == pytest.approx(body.standing_height(t))
    assert m.geom("torso").bodyid[0] == torso.id
    # inertia from the geoms equals the link table's (principal moments, any axis order)
    for lk in body.links(t):
        if lk.shape:
            assert sorted(m.body(lk.name).inertia) == pytest.approx(sorted(lk.inertia), rel=1e-6), lk.name


def test_names_the_server_uses(typed_model):
    t, m = typed_model
    jts = joints.joints_for_type(t)
    wire = WIRE_ORDER if t != 4 else WIRE_ORDER[:16] + ["rlj7"] + WIRE_ORDER[16:] + ["llj7"]
    actuators = _names(m, mujoco.mjtObj.mjOBJ_ACTUATOR, m.nu)
    assert set(actuators) == {f"{j.simspark_effector}_{k}" for j in jts for k in ("tau", "pos", "vel")}
    for j in jts:
        assert m.actuator(f"{j.simspark_effector}_tau").trntype == mujoco.mjtTrn.mjTRN_JOINT
        assert m.actuator(f"{j.simspark_effector}_pos").trnid[0] == m.joint(j.simspark_perceptor).id
    sensors = [(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SENSOR, i), m.sensor_type[i]) for i in range(m.nsensor)]
    pos = [n for n, ty in sensors if ty == mujoco.mjtSensor.mjSENS_JOINTPOS]
    vel = [m.sensor(n).objid[0] for n, ty in sensors if ty == mujoco.mjtSensor.mjSENS_JOINTVEL]
    assert pos == wire and vel == [m.joint(n).id for n in wire]
    by_type = {ty: n for n, ty in sensors}
    assert by_type[mujoco.mjtSensor.mjSENS_GYRO] == "torso"
    assert WIRE_NAMES[by_type[mujoco.mjtSensor.mjSENS_ACCELEROMETER]] == "torso"
    assert {n for n, ty in sensors if ty in (mujoco.mjtSensor.mjSENS_FRAMEPOS, mujoco.mjtSensor.mjSENS_FRAMEQUAT)} \
        == {"torso_pos", "torso_quat"}
    touch = {n for n, ty in sensors if ty == mujoco.mjtSensor.mjSENS_TOUCH}
    assert touch == ({"lf", "rf", "lf1", "rf1"} if t == 4 else {"lf", "rf"})
    sites = set(_names(m, mujoco.mjtObj.mjOBJ_SITE, m.nsite))
    assert {"camera", "torso", "imu", "lsole", "rsole", "lhand", "rhand", "head-vismarker", "rlowerarm-vismarker",
            "llowerarm-vismarker", "rfoot-vismarker", "lfoot-vismarker"} <= sites
    assert sum(s.endswith("-vismarker") for s in sites) == 5
    geoms = _names(m, mujoco.mjtObj.mjOBJ_GEOM, m.ngeom)
    assert {"torso", "lfoot", "rfoot"} <= set(geoms) and ({"ltoe", "rtoe"} <= set(geoms)) == (t == 4)
    assert not [g for g in geoms if "hand" in g or "forearm" in g]
    team = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_MATERIAL, "team")
    assert team >= 0 and (m.geom_matid == team).sum() >= 3
    # default gains = config/pd_gains.yaml, so an idle robot holds its zero pose
    gains = load_pd_gains()
    for j in jts:
        assert m.actuator(f"{j.simspark_effector}_pos").gainprm[0] == pytest.approx(gains[j.name][0])
        assert m.actuator(f"{j.simspark_effector}_vel").gainprm[0] == pytest.approx(gains[j.name][1])


def test_no_self_collision(typed_model):
    t, m = typed_model
    colliding = [lk.name for lk in body.links(t) if lk.collides]
    assert m.nexclude == len(list(itertools.combinations(colliding, 2)))
    d = mujoco.MjData(m)
    # arms folded into the torso, legs crossed: SimSpark would not collide these, neither may MuJoCo
    _set_naoqi(m, d, {"LShoulderRoll": -0.0, "RShoulderRoll": 0.0, "LElbowRoll": -1.5, "RElbowRoll": 1.5,
                      "LElbowYaw": -1.5, "RElbowYaw": 1.5, "LHipRoll": -0.4, "RHipRoll": 0.4,
                      "LHipPitch": -1.5, "RHipPitch": -1.5, "LKneePitch": 2.2, "RKneePitch": 2.2}, t)
    d.qpos[2] = 5.0  # far above the ground (no floor in this model anyway)
    mujoco.mj_forward(m, d)
    assert d.ncon == 0


@pytest.mark.parametrize("robot_type", range(5))
def test_fk_and_com_agree_with_mujoco(robot_type):
    m = mujoco.MjModel.from_xml_string(make_mjcf(robot_type))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(robot_type)
    jts = joints.joints_for_type(robot_type)
    lo, hi = np.array([j.sim_min for j in jts]), np.array([j.sim_max for j in jts])
    worst_p = worst_r = worst_com = 0.0
    for q in rng.uniform(lo, hi, size=(40, len(jts))):
        d.qpos[:7] = [0, 0, 0, 1, 0, 0, 0]  # torso frame = world frame
        _set_naoqi(m, d, dict(zip([j.name for j in jts], q, strict=True)), robot_type)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        fk = K.forward_kinematics(q, robot_type)
        for name, t in fk.items():
            kind = mujoco.mjtObj.mjOBJ_BODY if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name) >= 0 \
                else mujoco.mjtObj.mjOBJ_SITE
            x = d.body(name) if kind == mujoco.mjtObj.mjOBJ_BODY else d.site(name)
            worst_p = max(worst_p, float(np.abs(x.xpos - t[:3, 3]).max()))
            worst_r = max(worst_r, float(np.abs(x.xmat.reshape(3, 3) - t[:3, :3]).max()))
        worst_com = max(worst_com, float(np.abs(d.subtree_com[m.body("torso").id] - K.center_of_mass(q, robot_type))
                                         .max()))
        cam = d.site("camera")
        pose = K.camera_pose(q[joints.INDEX["HeadYaw"]], q[joints.INDEX["HeadPitch"]], robot_type)
        assert cam.xpos == pytest.approx(pose[:3, 3], abs=1e-9)
        assert cam.xmat.reshape(3, 3) == pytest.approx(pose[:3, :3], abs=1e-9)
    assert worst_p < 1e-3 and worst_com < 1e-3   # the brief's bound; in fact both agree to ~1e-15 m
    assert worst_p < 1e-12 and worst_r < 1e-12 and worst_com < 1e-12


def test_imu_axes_are_simsparks():
    m = mujoco.MjModel.from_xml_string(make_mjcf(0))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    assert d.site("imu").xmat.reshape(3, 3) == pytest.approx(body.SS_TO_REP)  # x right, y forward, z up
    d.qvel[3:6] = [0.3, 0.0, 1.0]   # roll about the robot's forward axis, yaw about up
    mujoco.mj_forward(m, d)
    assert d.sensor("torso").data == pytest.approx([0.0, 0.3, 1.0])          # SimSpark: forward is +y
    d.qvel[:] = 0
    mujoco.mj_forward(m, d)
    assert d.sensor("torso_acc").data == pytest.approx([0, 0, 0], abs=1e-9)   # free fall (standing: the stand test)


# ---------------------------------------------------------------------------------------------------- physics


def _scene(robot_type):
    """rcssservermj's soccer world with the robot attached the way the server attaches it."""
    world = ModelSpecProvider().load_environment_spec("soccer", "world")
    robot = mujoco.MjSpec.from_string(make_mjcf(robot_type))
    world.worldbody.add_frame().attach_body(robot.body("torso"), "p1-", "")
    return world.compile()


def _stand(robot_type, pose, seconds=10.0):
    m = _scene(robot_type)
    assert m.opt.timestep == pytest.approx(0.005)
    d = mujoco.MjData(m)
    gains = load_pd_gains()
    _set_naoqi(m, d, pose, robot_type, "p1-")
    sole = K.forward_kinematics(pose, robot_type)["lsole"]
    d.joint("p1-root").qpos[:3] = [-5.0, 2.0, -sole[2, 3] + 0.002]
    for j in joints.joints_for_type(robot_type):
        # what the server does for "(eff q dq kp kd tau)": tau + kp (q - q_now) + kd (dq - dq_now)
        kp, kd = gains[j.name]
        eff = "p1-" + j.simspark_effector
        m.actuator(eff + "_pos").gainprm[0], m.actuator(eff + "_pos").biasprm[1] = kp, -kp
        m.actuator(eff + "_vel").gainprm[0], m.actuator(eff + "_vel").biasprm[2] = kd, -kd
        d.actuator(eff + "_pos").ctrl = j.sign * pose.get(j.name, 0.0)
    heights, touch = [], []
    for _ in range(int(seconds / m.opt.timestep)):
        mujoco.mj_step(m, d)
        heights.append(d.body("p1-torso").xpos[2])
        touch.append(min(d.sensor("p1-lf").data[0], d.sensor("p1-rf").data[0]))
    up = d.body("p1-torso").xmat.reshape(3, 3)[2, 2]
    drift = np.linalg.norm(d.body("p1-torso").xpos[:2] - [-5.0, 2.0])
    return np.array(heights), up, drift, np.array(touch), d


@pytest.mark.parametrize("robot_type", range(5))
def test_stands_for_10_seconds_holding_the_zero_pose(robot_type):
    heights, up, drift, touch, d = _stand(robot_type, {})
    assert heights.min() > 0.3 and up > 0.999 and drift < 0.02
    assert heights[-1] == pytest.approx(body.standing_height(robot_type), abs=0.005)
    assert np.all(touch[100:] > 0)                                 # both feet on the ground throughout
    # SimSpark reads about (0, 0, 9.8) standing; the PD joints let the torso lean ~0.5 degrees
    assert d.sensor("p1-torso_acc").data == pytest.approx([0, 0, 9.81], abs=0.15)
    assert np.all(np.isfinite(d.qpos))


def test_stands_in_a_crouch():
    pose = {f"{s}{j}": a for s in "LR" for j, a in (("HipPitch", -0.3), ("KneePitch", 0.6), ("AnklePitch", -0.3))}
    heights, up, drift, touch, d = _stand(0, pose)
    expect = -K.forward_kinematics(pose)["lsole"][2, 3]
    assert heights.min() > 0.3 and up > 0.999 and drift < 0.02
    assert heights[-1] == pytest.approx(expect, abs=0.005)
    knee = d.joint("p1-llj4").qpos[0]
    assert math.degrees(abs(knee - -0.6)) < 1.0    # the PD holds the knee under the robot's weight within 1 deg
