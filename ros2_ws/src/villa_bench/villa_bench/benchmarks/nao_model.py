"""The MJCF Nao against villa_nao.kinematics, and how well the PD gains hold it up in MuJoCo.

    villa bench nao_model [--runs 200] [--robot-types 0,1,2,3,4] [--seed 0] [--seconds 10]

1. FK vs MuJoCo: worst difference of every body/site position (m) and orientation (matrix entry) and of
   the centre of mass (torso subtree_com) over --runs random joint vectors within the limits, per robot type.
2. Standing in rcssservermj's soccer world (plain MuJoCo, 5 ms step, the server's PD formula with
   config/pd_gains.yaml): --seconds holding the zero pose (the first and the last robot type given) and a 0.3 rad
   crouch, and as long of 1 Hz squats (the first type; targets updated every 20 ms like an agent): lowest torso
   height, final uprightness, drift, and the knee tracking error.
Neither villa sim nor SimSpark runs: the model in MuJoCo alone.
"""

from __future__ import annotations

import math

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 4 s (200 samples per type, four 10 s standing runs)"
SMOKE = ["--runs", "5", "--robot-types", "0", "--seconds", "2"]

def fk_agreement(robot_type: int, samples: int, rng) -> tuple[float, float, float]:
    """Worst position, orientation and centre-of-mass differences of MuJoCo's kinematics of the generated MJCF from
    villa_nao.kinematics over `samples` random joint vectors."""
    import mujoco

    from villa_nao import joints
    from villa_nao import kinematics as K
    from villa_nao.mjcf import make_mjcf

    m = mujoco.MjModel.from_xml_string(make_mjcf(robot_type))
    d = mujoco.MjData(m)
    jts = joints.joints_for_type(robot_type)
    wp = wr = wc = 0.0
    for _ in range(samples):
        q = np.array([rng.uniform(j.sim_min, j.sim_max) for j in jts])
        d.qpos[:7] = [0, 0, 0, 1, 0, 0, 0]
        for j, a in zip(jts, q, strict=True):
            d.joint(j.simspark_perceptor).qpos[0] = j.sign * a
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        for name, t in K.forward_kinematics(q, robot_type).items():
            x = d.body(name) if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name) >= 0 else d.site(name)
            wp = max(wp, float(np.abs(x.xpos - t[:3, 3]).max()))
            wr = max(wr, float(np.abs(x.xmat.reshape(3, 3) - t[:3, :3]).max()))
        wc = max(wc, float(np.abs(d.subtree_com[1] - K.center_of_mass(q, robot_type)).max()))
    return wp, wr, wc


def stand(robot_type: int, crouch: float, squat_hz: float = 0.0, seconds: float = 10.0):
    """`seconds` of holding a crouch (or of squats at `squat_hz`) in rcssservermj's soccer world: lowest torso height,
    final up-z, drift (m), knee error max and rms (deg)."""
    import mujoco
    from rcsssmj.resources.spec_provider import ModelSpecProvider

    from villa_nao import joints
    from villa_nao import kinematics as K
    from villa_nao.gains import load_pd_gains
    from villa_nao.mjcf import make_mjcf

    world = ModelSpecProvider().load_environment_spec("soccer", "world")
    world.worldbody.add_frame().attach_body(mujoco.MjSpec.from_string(make_mjcf(robot_type)).body("torso"), "p-", "")
    m = world.compile()
    d = mujoco.MjData(m)
    gains = load_pd_gains()
    jts = joints.joints_for_type(robot_type)

    def pose(c):
        return {f"{s}{n}": a * c for s in "LR" for n, a in (("HipPitch", -1), ("KneePitch", 2), ("AnklePitch", -1))}

    def command(c):
        p = pose(c)
        for j in jts:
            d.actuator(f"p-{j.simspark_effector}_pos").ctrl = j.sign * p.get(j.name, 0.0)

    for j in jts:
        kp, kd = gains[j.name]
        m.actuator(f"p-{j.simspark_effector}_pos").gainprm[0] = kp
        m.actuator(f"p-{j.simspark_effector}_pos").biasprm[1] = -kp
        m.actuator(f"p-{j.simspark_effector}_vel").gainprm[0] = kd
        m.actuator(f"p-{j.simspark_effector}_vel").biasprm[2] = -kd
        d.joint(f"p-{j.simspark_perceptor}").qpos[0] = j.sign * pose(crouch).get(j.name, 0.0)
    d.joint("p-root").qpos[:3] = [-5, 2, -K.forward_kinematics(pose(crouch), robot_type)["lsole"][2, 3] + 0.002]
    command(crouch)
    hmin, knee_err = math.inf, []
    target = crouch
    for i in range(int(seconds / m.opt.timestep)):
        if squat_hz and i % 4 == 0:  # an agent's 20 ms cycle
            target = crouch * (1 - math.cos(2 * math.pi * squat_hz * i * m.opt.timestep)) / 2
            command(target)
        mujoco.mj_step(m, d)
        hmin = min(hmin, d.body("p-torso").xpos[2])
        if i > 200:
            knee_err.append(abs(d.joint("p-llj4").qpos[0] + 2 * target))
    up = d.body("p-torso").xmat.reshape(3, 3)[2, 2]
    drift = float(np.linalg.norm(d.body("p-torso").xpos[:2] - [-5, 2]))
    return hmin, up, drift, math.degrees(max(knee_err)), math.degrees(float(np.sqrt(np.mean(np.square(knee_err)))))


def add_arguments(ap) -> None:
    common.add_robot_types(ap, "0,1,2,3,4")
    common.add_runs(ap, 200, "random joint vectors per robot type")
    common.add_seed(ap, 0)
    ap.add_argument("--seconds", type=common.positive_float, default=10.0,
                    help="simulated s of each standing run (default 10)")


def run(args) -> int:
    if args.seconds <= 1.5:
        return common.fail("nao_model", f"--seconds must be more than 1.5 (the knee error is measured after the "
                                        f"first second), not {args.seconds:g}")
    n = args.runs
    rng = np.random.default_rng(args.seed)
    print(f"FK vs MuJoCo (mj_kinematics of the generated MJCF), {n} random joint vectors per type:", flush=True)
    for t in args.robot_types:
        wp, wr, wc = fk_agreement(t, n, rng)
        print(f"  type {t}: positions {wp:.1e} m, orientations {wr:.1e}, centre of mass {wc:.1e} m", flush=True)
    first, last = args.robot_types[0], args.robot_types[-1]
    cases = [(f"zero pose, type {first}", first, 0.0, 0)]
    if last != first:
        cases.append((f"zero pose, type {last}", last, 0.0, 0))
    cases += [(f"0.3 rad crouch, type {first}", first, 0.3, 0), ("1 Hz squats to 0.35 rad", first, 0.35, 1.0)]
    print(f"Standing in rcssservermj's world, 5 ms step, PD gains from config/pd_gains.yaml, {args.seconds:g} s each:",
          flush=True)
    for label, t, c, hz in cases:
        hmin, up, drift, emax, erms = stand(t, c, hz, args.seconds)
        print(f"  {label:24s} lowest torso {hmin:.3f} m, final up-z {up:.4f}, drift {drift * 1000:.1f} mm, "
              f"knee error max {emax:.2f} deg rms {erms:.2f} deg", flush=True)
    return 0
