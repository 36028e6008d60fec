"""villa_nao kinematics speed (microseconds per call) and IK round-trip accuracy.

    villa bench nao_ik [--runs 2000] [--robot-types 0,1,2,3,4] [--seed 0]

Speed (robot type 0), on walk-like leg targets: left soles under a crouched torso, stepping +-6 cm, lifted up to
4 cm, turned outward up to 25 degrees (all reachable; the simulated hip yaw-pitch joint cannot turn a foot inward),
and --runs samples per function. Round trip: random joint vectors within the simulated Nao's limits, FK -> IK -> FK,
worst position (m) and orientation (rad) error per robot type over both sides, and the targets IK did not reach.
No simulator runs.
"""

from __future__ import annotations

import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 4 s (2000 samples, 5 robot types)"
SMOKE = ["--runs", "40", "--robot-types", "0"]

CROUCH = np.array([0.0, 0.0, -0.45, 0.9, -0.45, 0.0])


def per_call_us(fn, args_list) -> float:
    t0 = time.perf_counter()
    for a in args_list:
        fn(*a)
    return (time.perf_counter() - t0) / len(args_list) * 1e6


def walk_targets(n: int, rng) -> list:
    from transforms3d.euler import euler2mat

    from villa_nao import kinematics as K

    base = K.leg_fk("L", CROUCH)
    out = []
    for _ in range(n):
        t = np.eye(4)
        t[:3, :3] = euler2mat(0, 0, rng.uniform(0.0, 0.45))
        t[:3, 3] = base[:3, 3] + [rng.uniform(-0.06, 0.06), rng.uniform(-0.02, 0.03), rng.uniform(0, 0.04)]
        out.append(t)
    return out


def add_arguments(ap) -> None:
    common.add_robot_types(ap, "0,1,2,3,4")
    common.add_runs(ap, 2000, "samples: timed calls per function; the round trip takes a quarter per leg and an "
                              "eighth per arm and side")
    common.add_seed(ap, 0)


def run(args) -> int:
    from villa_nao import joints
    from villa_nao import kinematics as K

    n = args.runs
    rng = np.random.default_rng(args.seed)
    print(f"villa_nao kinematics: {n} samples (seed {args.seed}), round trip for robot types "
          f"{','.join(map(str, args.robot_types))}", flush=True)
    targets = walk_targets(n, rng)
    if not all(K.leg_ik("L", t).reachable for t in targets):
        print("a walk-like target was not reachable: the benchmark's target set is wrong", flush=True)
        return 1
    far = []
    for t in targets[: max(n // 20, 20)]:
        f = t.copy()
        f[2, 3] -= 0.15  # 15 cm below the reachable sole: leg over-stretched
        far.append(f)
    lo, hi = joints.sim_limits(joints.LEFT_LEG)
    leg_q = rng.uniform(lo, hi, size=(n, 6))
    alo, ahi = joints.sim_limits(joints.LEFT_ARM)
    hands = [K.arm_fk("L", q)[:3, 3] for q in rng.uniform(alo, ahi, size=(n, 4))]
    full_q = rng.uniform(*joints.sim_limits(), size=(n, 22))

    def leg_ik(t):
        return K.leg_ik("L", t)

    def leg_fk(q):
        return K.leg_fk("L", q)

    def arm_ik(p):
        return K.arm_ik("L", p)

    print("villa_nao kinematics, microseconds per call (robot type 0, single thread, this machine):")
    print(f"  leg_ik, walk-like reachable target   {per_call_us(leg_ik, [(t,) for t in targets]):9.1f}")
    print(f"  leg_ik, unreachable (15 cm too low)  {per_call_us(leg_ik, [(t,) for t in far]):9.1f}")
    print(f"  leg_fk, one pose                     {per_call_us(leg_fk, [(q,) for q in leg_q]):9.1f}")
    t0 = time.perf_counter()
    K.leg_fk("L", leg_q)
    print(f"  leg_fk, batch of {n}, per pose     {(time.perf_counter() - t0) / n * 1e6:9.2f}")
    print(f"  arm_ik, reachable                    {per_call_us(arm_ik, [(p,) for p in hands]):9.1f}")
    print(f"  forward_kinematics (all links)       {per_call_us(K.forward_kinematics, [(q,) for q in full_q]):9.1f}")
    print(f"  center_of_mass                       {per_call_us(K.center_of_mass, [(q,) for q in full_q]):9.1f}")
    print(f"  camera_pose                          {per_call_us(K.camera_pose, [(q[0], q[1]) for q in full_q]):9.1f}")

    print("IK round trip (FK -> IK -> FK) over random joint vectors within the limits:")
    for robot_type in args.robot_types:
        wp = wr = wa = 0.0
        bad = 0
        for side, names, arm in (("L", joints.LEFT_LEG, joints.LEFT_ARM), ("R", joints.RIGHT_LEG, joints.RIGHT_ARM)):
            lo, hi = joints.sim_limits(names)
            for q in rng.uniform(lo, hi, size=(n // 4, 6)):
                t = K.leg_fk(side, q, robot_type)
                r = K.leg_ik(side, t, robot_type)
                b = K.leg_fk(side, r.angles, robot_type)
                wp = max(wp, float(np.linalg.norm(b[:3, 3] - t[:3, 3])))
                wr = max(wr, float(np.linalg.norm(K._rotation_vector(b[:3, :3] @ t[:3, :3].T))))
                bad += not r.reachable
            lo, hi = joints.sim_limits(arm)
            for q in rng.uniform(lo, hi, size=(n // 8, 4)):
                p = K.arm_fk(side, q, robot_type)[:3, 3]
                r = K.arm_ik(side, p, robot_type)
                wa = max(wa, float(np.linalg.norm(K.arm_fk(side, r.angles, robot_type)[:3, 3] - p)))
                bad += not r.reachable
        print(f"  type {robot_type}: legs worst position {wp:.1e} m, orientation {wr:.1e} rad; "
              f"arms worst position {wa:.1e} m; not reached: {bad}", flush=True)
    return 0

