"""Forward/inverse kinematics, camera and centre of mass (pure numpy; MuJoCo cross-checks are in test_mjcf.py)."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transforms3d.euler import euler2mat

from villa_nao import body, compiled, joints
from villa_nao import kinematics as K

LEGS = {"L": joints.LEFT_LEG, "R": joints.RIGHT_LEG}
ARMS = {"L": joints.LEFT_ARM, "R": joints.RIGHT_ARM}
CROUCH = np.array([0.0, 0.0, -0.45, 0.9, -0.45, 0.0])


def _pose(rot, pos):
    t = np.eye(4)
    t[:3, :3], t[:3, 3] = rot, pos
    return t


def _rot_angle(a, b):
    return float(np.linalg.norm(K._rotation_vector(a @ b.T)))


def _cost(res, target, side, robot_type=0, w=K.ORIENTATION_WEIGHT):
    t = K.leg_fk(side, res.angles, robot_type)
    return math.hypot(np.linalg.norm(t[:3, 3] - target[:3, 3]), w * _rot_angle(target[:3, :3], t[:3, :3]))


def _within(angles, names):
    lo, hi = joints.sim_limits(names)
    return bool(np.all(angles >= lo - 1e-12) and np.all(angles <= hi + 1e-12))


# ---------------------------------------------------------------------------------------------------- FK


@pytest.mark.parametrize("robot_type", range(5))
def test_fk_at_zero_is_the_body_table(robot_type):
    fk = K.forward_kinematics({}, robot_type)
    z = body.zero_pose_positions(robot_type)
    assert set(fk) == set(z)
    for name, t in fk.items():
        assert t[:3, 3] == pytest.approx(z[name], abs=1e-12) and t[:3, :3] == pytest.approx(np.eye(3)), name
    expected = {"torso", "neck", "head", "camera"} | {
        f"{s}{p}" for s in "lr" for p in ("shoulder", "upperarm", "elbow", "lowerarm", "hand", "hip1", "hip2",
                                          "thigh", "shank", "ankle", "foot", "sole")}
    assert set(fk) == expected | ({"ltoe", "rtoe"} if robot_type == 4 else set())


def test_fk_inputs_dict_array_and_errors():
    q = np.zeros(22)
    q[joints.INDEX["LKneePitch"]] = 0.7
    by_array = K.forward_kinematics(q)["lsole"]
    by_dict = K.forward_kinematics({"LKneePitch": 0.7})["lsole"]
    assert by_array == pytest.approx(by_dict)
    assert by_dict[2, 3] > -0.385 + 0.01  # a bent knee lifts the sole
    # type 4: 24 values (toes last) or a dict with the toe names
    q4 = np.zeros(24)
    q4[-1] = 0.5
    assert K.forward_kinematics(q4, 4)["ltoe"] == pytest.approx(K.forward_kinematics({"LToePitch": 0.5}, 4)["ltoe"])
    with pytest.raises(ValueError, match="unknown joint"):
        K.forward_kinematics({"LKnee": 1.0})
    with pytest.raises(ValueError, match="unknown joint"):
        K.forward_kinematics({"LToePitch": 1.0}, 0)
    with pytest.raises(ValueError, match="22"):
        K.forward_kinematics(np.zeros(5))
    with pytest.raises(ValueError, match="finite"):
        K.forward_kinematics({"HeadYaw": float("nan")})


def test_joint_directions_follow_naoqi():
    fk = K.forward_kinematics({"LHipPitch": -0.5, "RKneePitch": 0.5, "HeadYaw": 0.5, "LShoulderPitch": 0.5,
                               "RShoulderRoll": -0.5})
    z = body.zero_pose_positions(0)
    assert fk["lsole"][0, 3] > z["lsole"][0] + 0.05            # HipPitch < 0: leg forward
    assert fk["rsole"][0, 3] < z["rsole"][0] - 0.02            # KneePitch > 0: shank back
    assert fk["camera"][1, 0] > 0.4                            # HeadYaw > 0: look left
    assert fk["lhand"][2, 3] < z["lhand"][2] - 0.05            # ShoulderPitch > 0: arm down
    assert fk["rhand"][1, 3] < z["rhand"][1] - 0.05            # RShoulderRoll < 0: right arm out
    roll = K.forward_kinematics({"LAnkleRoll": 0.3})["lsole"][:3, :3]
    assert roll @ [0, 1, 0] == pytest.approx([0, math.cos(0.3), math.sin(0.3)])   # about +x (forward)


def test_leg_fk_matches_full_fk_and_batches():
    rng = np.random.default_rng(3)
    for t in (0, 3, 4):
        for side in "LR":
            lo, hi = joints.sim_limits(LEGS[side])
            qs = rng.uniform(lo, hi, size=(20, 6))
            batch = K.leg_fk(side, qs, t)
            assert batch.shape == (20, 4, 4)
            for q, tb in zip(qs, batch, strict=True):
                full = K.forward_kinematics(dict(zip(LEGS[side], q, strict=True)), t)[f"{side.lower()}sole"]
                assert tb == pytest.approx(full, abs=1e-12)
                assert K.leg_fk(side, q, t) == pytest.approx(full, abs=1e-12)
    with pytest.raises(ValueError, match="6 leg angles"):
        K.leg_fk("L", np.zeros(5))
    with pytest.raises(ValueError, match="side"):
        K.leg_fk("left", np.zeros(6))


def test_camera_pose():
    assert K.head_to_camera(0) == pytest.approx(np.eye(4))
    c = K.camera_pose(0.0, 0.0)
    assert c == pytest.approx(_pose(np.eye(3), [0, 0, 0.155]))
    # yaw left 90 deg: the view axis (x) points left
    assert K.camera_pose(math.pi / 2, 0.0)[:3, 0] == pytest.approx([0, 1, 0], abs=1e-12)
    # pitch down 0.4 rad: view axis tilts down, and the camera swings about the pitch axis 5 mm below it
    c = K.camera_pose(0.0, 0.4)
    assert c[:3, 0] == pytest.approx([math.cos(0.4), 0, -math.sin(0.4)])
    assert c[:3, 3] == pytest.approx([0.005 * math.sin(0.4), 0, 0.15 + 0.005 * math.cos(0.4)])
    rng = np.random.default_rng(0)
    for _ in range(20):
        y, p = rng.uniform(-2, 2), rng.uniform(-0.7, 0.7)
        fk = K.forward_kinematics({"HeadYaw": y, "HeadPitch": p})
        assert K.camera_pose(y, p) == pytest.approx(fk["camera"], abs=1e-12)
        assert fk["head"] @ K.head_to_camera() == pytest.approx(fk["camera"], abs=1e-12)


def test_center_of_mass():
    com = K.center_of_mass({})
    z = body.zero_pose_positions(0)
    expect = sum(lk.mass * z[lk.name] for lk in body.links(0)) / 4.6071
    assert com == pytest.approx(expect, abs=1e-12)
    assert com[1] == pytest.approx(0, abs=1e-12)                # symmetric pose
    assert K.center_of_mass({"LHipPitch": -1.0})[0] > com[0] + 0.005
    assert K.center_of_mass({"LShoulderRoll": 1.5})[1] > com[1] + 0.005
    assert K.center_of_mass({}, 3)[2] < K.center_of_mass({}, 0)[2]   # longer legs: lower CoM in the torso frame


# ---------------------------------------------------------------------------------------------------- leg IK


@pytest.mark.parametrize("robot_type", [0, 1, 3, 4])
@pytest.mark.parametrize("side", ["L", "R"])
def test_leg_ik_fk_round_trip(robot_type, side):
    rng = np.random.default_rng(robot_type * 10 + (side == "R"))
    lo, hi = joints.sim_limits(LEGS[side])
    worst_p = worst_r = worst_q = 0.0
    for q in rng.uniform(lo, hi, size=(400, 6)):
        target = K.leg_fk(side, q, robot_type)
        res = K.leg_ik(side, target, robot_type)
        assert res.reachable and _within(res.angles, LEGS[side])
        back = K.leg_fk(side, res.angles, robot_type)
        worst_p = max(worst_p, float(np.linalg.norm(back[:3, 3] - target[:3, 3])))
        worst_r = max(worst_r, _rot_angle(back[:3, :3], target[:3, :3]))
        worst_q = max(worst_q, float(np.abs(res.angles - q).max()))
        assert res.error == pytest.approx(np.linalg.norm(back[:3, 3] - target[:3, 3]), abs=1e-15)
    assert worst_p < 1e-6 and worst_r < 1e-6
    assert worst_q < 1e-6  # within the simulated Nao's limits the solution is unique


@pytest.mark.parametrize("robot_type", [0, 1, 3])
@pytest.mark.parametrize("side", ["L", "R"])
def test_the_batched_reach_checks_agree_with_leg_ik(robot_type, side):
    """leg_closed_form_reaches and leg_reaches (the kick's reach check, vectorised): for reachable poses (from random
    angles within the limits) and poses about the limits' edge alike, at the kick's tolerances and at leg_ik's own,
    the closed form answers as leg_ik's first stage does (True only where leg_ik reaches the pose too), and
    leg_reaches as leg_ik itself."""
    rng = np.random.default_rng(robot_type * 10 + (side == "R"))
    g = K._leg(robot_type, side)
    lo, hi = joints.sim_limits(LEGS[side])
    inside = K.leg_fk(side, rng.uniform(lo, hi, size=(300, 6)), robot_type)
    # the limits' edge: reachable poses moved up to 4 cm and turned up to 0.3 rad (about half stay reachable)
    around = np.array([_pose(t[:3, :3] @ euler2mat(*rng.uniform(-0.3, 0.3, 3)), t[:3, 3] + rng.uniform(-0.04, 0.04, 3))
                       for t in inside])
    for targets in (inside, around):
        for pos_tol, rot_tol in ((0.005, 0.05), (K.REACH_TOL, K.REACH_TOL)):
            batch = K.leg_closed_form_reaches(side, targets, robot_type, pos_tol, rot_tol)
            for t, fast in zip(targets, batch, strict=True):
                q, ok = K._leg_analytic(g, t[:3, :3], t[:3, 3])
                perr, oerr = K._pose_errors(g, q, t[:3, :3], t[:3, 3])
                first = (ok or pos_tol > K.REACH_TOL or rot_tol > K.REACH_TOL) and perr < pos_tol and oerr < rot_tol
                assert fast == first
                if fast:
                    assert K.leg_ik(side, t, robot_type, pos_tol=pos_tol, rot_tol=rot_tol).reachable
            full = [K.leg_ik(side, t, robot_type, pos_tol=pos_tol, rot_tol=rot_tol).reachable for t in targets]
            assert K.leg_reaches(side, targets, robot_type, pos_tol, rot_tol).tolist() == full
    assert K.leg_closed_form_reaches(side, inside, robot_type).all()    # within the limits: all reached exactly
    assert 0.2 < K.leg_closed_form_reaches(side, around, robot_type, 0.005, 0.05).mean() < 0.8
    with pytest.raises(ValueError):
        K.leg_closed_form_reaches(side, np.eye(4), robot_type)


def test_leg_ik_walking_poses_and_zero():
    res = K.leg_ik("L", K.leg_fk("L", np.zeros(6)))
    assert res.reachable and res.angles == pytest.approx(np.zeros(6), abs=1e-9)
    # a foot 4 cm forward, 2 cm up, turned 20 degrees, under a crouched torso
    base = K.leg_fk("R", CROUCH)
    target = _pose(euler2mat(0, 0, -0.35) @ base[:3, :3], base[:3, 3] + [0.04, -0.01, 0.02])
    res = K.leg_ik("R", target)
    assert res.reachable and res.error < 1e-9 and res.orientation_error < 1e-9
    assert res.angles[0] < -0.1  # turning the right foot outward opens the hip yaw-pitch joint


def test_leg_ik_projects_non_rotation_targets():
    base = K.leg_fk("L", CROUCH)
    skewed = base.copy()
    skewed[:3, :3] *= 3.0  # a scaled rotation: projected back onto the rotation
    res = K.leg_ik("L", skewed)
    assert res.reachable and res.angles == pytest.approx(CROUCH, abs=1e-9)
    with pytest.raises(ValueError, match="4x4"):
        K.leg_ik("L", np.eye(3))
    with pytest.raises(ValueError, match="finite"):
        K.leg_ik("L", np.full((4, 4), np.nan))


@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("direction", [(0, 0, -1), (0.5, 0, -1), (-0.3, 0, -1), (0, 0.4, -1)])
def test_far_targets_point_the_straight_leg_at_them(side, direction):
    g = K._leg(0, side)
    u = np.asarray(direction, float)
    u[1] *= 1 if side == "L" else -1   # outward
    u /= np.linalg.norm(u)
    for dist in (2.0, 1e6):
        target = _pose(np.eye(3), g.hip + dist * u)
        res = K.leg_ik(side, target)
        assert not res.reachable and _within(res.angles, LEGS[side]) and np.all(np.isfinite(res.angles))
        sole = K.leg_fk(side, res.angles)[:3, 3]
        # nearest: the sole lies on the ray from the hip to the target, as far out as the leg reaches
        assert res.error == pytest.approx(dist - np.linalg.norm(sole - g.hip), rel=1e-9, abs=2e-4)
        assert res.angles[3] < 0.01                                                   # knee stretched


@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("direction", [(0, 0, -1), (0.6, 0, -1), (0, 1, -0.2), (-1, 0, 0)])
def test_error_grows_smoothly_along_a_ray_out_of_reach(side, direction):
    """Moving the target away from the workspace never lowers the error, by no more than it moves."""
    base = K.leg_fk(side, CROUCH)
    u = np.asarray(direction, float)
    u /= np.linalg.norm(u)
    costs, reach = [], []
    for s in np.linspace(0.0, 0.4, 41):
        target = base.copy()
        target[:3, 3] += s * u
        res = K.leg_ik(side, target)
        assert _within(res.angles, LEGS[side])
        costs.append(_cost(res, target, side))
        reach.append(res.reachable)
    costs = np.array(costs)
    assert reach[0] and not reach[-1]
    assert np.all(costs[np.array(reach)] < 1e-6)
    assert np.all(np.diff(costs) > -1e-7)                 # monotone: the error decreases toward the workspace
    assert np.all(np.diff(costs) < 0.01 + 1e-7)           # 1-Lipschitz in the target (steps of 1 cm)
    assert costs[-1] > 0.01


@pytest.mark.parametrize("case", ["yaw", "roll", "crossed", "high", "tilted"])
def test_joint_limit_violations_give_the_nearest_pose(case):
    base = K.leg_fk("L", CROUCH)
    rot, pos = base[:3, :3], base[:3, 3].copy()
    if case == "yaw":        # foot turned 120 degrees outward: beyond the hip yaw-pitch joint
        rot = euler2mat(0, 0, 2.1) @ rot
    elif case == "roll":     # foot rolled 70 degrees
        rot = euler2mat(1.2, 0, 0) @ rot
    elif case == "crossed":  # left foot far across to the right
        pos += [0, -0.25, 0]
    elif case == "high":     # foot above the hip
        pos += [0, 0, 0.4]
    else:                    # foot pitched 100 degrees
        rot = euler2mat(0, 1.75, 0) @ rot
    target = _pose(rot, pos)
    res = K.leg_ik("L", target)
    assert not res.reachable and _within(res.angles, joints.LEFT_LEG)
    assert np.isfinite(res.error) and (res.error > 1e-6 or res.orientation_error > 1e-6)
    # locally optimal: no small in-limit change of the angles gets closer to the target
    c0 = _cost(res, target, "L")
    rng = np.random.default_rng(1)
    lo, hi = joints.sim_limits(joints.LEFT_LEG)
    for _ in range(200):
        q = np.clip(res.angles + rng.normal(0, 2e-3, 6), lo, hi)
        alt = K.IKResult(q, False, 0.0)
        assert _cost(alt, target, "L") > c0 - 1e-6 * max(c0, 1e-3)


def test_nearest_pose_is_as_good_as_a_many_start_search():
    """Against 40 random starts on random unreachable targets: the same cost in at least 90% of cases."""
    rng = np.random.default_rng(11)
    g = K._leg(0, "L")
    n = good = 0
    while n < 25:
        target = _pose(euler2mat(*rng.uniform(-0.7, 0.7, 3)), g.hip + rng.uniform(-0.35, 0.35, 3))
        if K._leg_analytic(g, target[:3, :3], target[:3, 3])[1]:
            continue
        n += 1
        res = K.leg_ik("L", target)
        w = K.ORIENTATION_WEIGHT

        def rj(qq, target=target, w=w):
            t, jac = K._chain_jacobians(g.chain, qq)
            rv = K._rotation_vectors(target[:3, :3] @ t[:, :3, :3].transpose(0, 2, 1))
            jac[:, 3:] *= w
            return np.concatenate([target[:3, 3] - t[:, :3, 3], w * rv], axis=1), jac

        ref = math.sqrt(K._bounded_lm(rj, rng.uniform(g.lo, g.hi, (40, 6)), g.lo, g.hi, iters=100)[1].min())
        good += _cost(res, target, "L") <= ref * 1.01 + 1e-9
    assert good >= 0.9 * n


@pytest.mark.parametrize("robot_type", [0, 4])
def test_the_compiled_search_takes_the_batched_searchs_steps(robot_type):
    """leg_ik's compiled single-target search (compiled) lands where the vectorised _bounded_lm on _leg_residual
    does from the same starts, on out-of-reach targets (some with rotation errors near pi) and start postures."""
    rng = np.random.default_rng(5 + robot_type)
    g = K._leg(robot_type, "R")
    n = near_pi = 0
    while n < 30:
        target = _pose(euler2mat(*rng.uniform(-0.9, 0.9, 3)), g.hip + rng.uniform(-0.4, 0.4, 3))
        rt, pt = np.ascontiguousarray(target[:3, :3]), target[:3, 3].copy()
        if K._leg_analytic(g, rt, pt)[1]:
            continue
        n += 1
        starts = rng.uniform(g.lo, g.hi, (3, 6))
        qs, costs = K._bounded_lm(K._leg_residual(g, np.tile(rt, (3, 1, 1)), np.tile(pt, (3, 1)), 0.4),
                                  starts, g.lo, g.hi)
        for s, qb, cb in zip(starts, qs, costs, strict=True):
            q, c = compiled.search(g.chain.links, g.chain.jmask, rt, pt, 0.4, s.copy(), g.lo, g.hi,
                                     compiled.ITERATIONS)
            assert c == pytest.approx(cb, rel=1e-9, abs=1e-15)
            assert np.allclose(q, qb, atol=1e-9)
        for s in starts:
            r, cols = np.empty(6), np.empty((6, 6))
            compiled.residual(g.chain.links, g.chain.jmask, rt, pt, 0.4, s, r, cols)
            rb, jb = K._leg_residual(g, rt[None], pt[None], 0.4)(s[None])
            assert np.allclose(r, rb[0], atol=1e-12) and np.allclose(cols.T, jb[0], atol=1e-12)
            end = K._chain_jacobians(g.chain, s[None])[0][0]
            near_pi += np.linalg.norm(K._rotation_vector(rt @ end[:3, :3].T)) > math.acos(-0.9)
    assert near_pi > 0        # the quaternion branch (rotation errors beyond acos(-0.9)) was compared too


def test_the_compiled_solve_takes_the_lower_triangle_and_falls_back_on_a_bad_pivot():
    """compiled.solve_spd (the search's step) solves h x = b from h's lower triangle: a damped normal matrix as
    the search builds it, sizes 1-6, against numpy; a symmetric matrix with a non-positive pivot goes to a
    pivoting solve with the full matrix rebuilt from the triangle."""
    rng = np.random.default_rng(11)
    for n in range(1, 7):
        for _ in range(20):
            j = rng.standard_normal((6, n))
            h = j.T @ j + 1e-3 * np.diag(np.diag(j.T @ j))
            b = rng.standard_normal(n)
            x = compiled.solve_spd(np.tril(h) + np.triu(rng.standard_normal((n, n)), 1), b)   # above: ignored
            assert np.allclose(x, np.linalg.solve(h, b), rtol=1e-9, atol=1e-12)
    h = np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, -1.0]])      # zero first pivot, invertible
    b = np.array([1.0, -2.0, 0.5])
    x = compiled.solve_spd(np.tril(h), b)
    assert np.allclose(x, np.linalg.solve(h, b), rtol=1e-12)


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
moderate = st.floats(allow_nan=False, allow_infinity=False, min_value=-2.0, max_value=2.0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(finite, moderate), min_size=16, max_size=16), st.sampled_from(["L", "R"]),
       st.sampled_from([0, 1, 3, 4]))
def test_leg_ik_never_fails_on_a_finite_target(values, side, robot_type):
    res = K.leg_ik(side, np.array(values).reshape(4, 4), robot_type)
    assert np.all(np.isfinite(res.angles)) and _within(res.angles, LEGS[side])
    assert math.isfinite(res.error) and math.isfinite(res.orientation_error)


@pytest.mark.parametrize("robot_type", [0, 1, 3, 4])
def test_the_walks_leg_angles_are_leg_ik_s_answers(robot_type):
    """leg_angles (the closed form straight away when it is within the limits) gives leg_ik's angles and reachability,
    reachable poses and out-of-reach ones alike."""
    rng = np.random.default_rng(robot_type)
    for side in "LR":
        y0 = 0.05 if side == "L" else -0.05
        for _ in range(300):
            yaw, pitch = rng.uniform(-0.8, 0.8), rng.uniform(-0.5, 0.5)
            t = np.eye(4)
            t[:3, :3] = euler2mat(yaw, pitch, 0.0, "rzyx")
            t[:3, 3] = rng.uniform(-0.2, 0.2), y0 + rng.uniform(-0.12, 0.12), rng.uniform(-0.42, -0.15)
            a, b = K.leg_angles(side, t, robot_type), K.leg_ik(side, t, robot_type)
            assert a.reachable == b.reachable
            assert np.allclose(a.angles, b.angles, atol=1e-12)


def test_centers_of_mass_in_one_pass_are_each_postures():
    rng = np.random.default_rng(3)
    for robot_type in (0, 4):
        names = K.joint_names(robot_type)
        qs = [{n: rng.uniform(-0.8, 0.8) for n in names} for _ in range(3)]
        both = K.centers_of_mass(np.array([K.joint_vector(q, robot_type) for q in qs]), robot_type)
        for q, c in zip(qs, both, strict=True):
            assert np.allclose(c, K.center_of_mass(q, robot_type), atol=1e-12)
    assert np.array_equal(K.joint_vector({"LKneePitch": 0.5, "NoSuchJoint": 1.0}, 0),
                          K._joint_vector({"LKneePitch": 0.5}, 0))


@pytest.mark.parametrize("robot_type", range(5))
def test_the_compiled_centre_of_mass_is_the_links_mass_weighted_origins(robot_type):
    """compiled.centers_of_mass composes the links as forward_kinematics (numpy) does: the mass-weighted mean of
    every link frame's origin, for random postures over the joints' whole range."""
    rng = np.random.default_rng(20 + robot_type)
    lks = body.links(robot_type)
    mass = np.array([lk.mass for lk in lks])
    qv = rng.uniform(-2.0, 2.0, (20, len(K.joint_names(robot_type))))
    got = K.centers_of_mass(qv, robot_type)
    for q, c in zip(qv, got, strict=True):
        tf = K.forward_kinematics(q, robot_type)
        want = sum(m * tf[lk.name][:3, 3] for m, lk in zip(mass, lks, strict=True)) / mass.sum()
        assert np.allclose(c, want, atol=1e-12)


# ---------------------------------------------------------------------------------------------------- arm IK


@pytest.mark.parametrize("robot_type", [0, 1, 3])
@pytest.mark.parametrize("side", ["L", "R"])
def test_arm_ik_fk_round_trip(robot_type, side):
    rng = np.random.default_rng(robot_type + 7 * (side == "R"))
    lo, hi = joints.sim_limits(ARMS[side])
    worst = 0.0
    for q in rng.uniform(lo, hi, size=(300, 4)):
        p = K.arm_fk(side, q, robot_type)[:3, 3]
        res = K.arm_ik(side, p, robot_type)
        assert res.reachable and _within(res.angles, ARMS[side])
        worst = max(worst, float(np.linalg.norm(K.arm_fk(side, res.angles, robot_type)[:3, 3] - p)))
        # the same target with the sample's own elbow yaw keeps that elbow yaw
        res2 = K.arm_ik(side, p, robot_type, elbow_yaw=q[2])
        assert res2.reachable and res2.angles[2] == pytest.approx(q[2], abs=1e-9)
    assert worst < 1e-6
    hand = K.forward_kinematics(dict(zip(ARMS[side], q, strict=True)), robot_type)[f"{side.lower()}hand"]
    assert K.arm_fk(side, q, robot_type) == pytest.approx(hand, abs=1e-12)


@pytest.mark.parametrize("side", ["L", "R"])
def test_arm_ik_unreachable(side):
    g = K._arm(0, side)
    reach = np.linalg.norm(g.u) + g.f
    out = np.array([0.0, 1.0 if side == "L" else -1.0, 0.0])
    for direction in ([1, 0, 0], [0, 0, -1], out):
        u = np.asarray(direction, float)
        for dist in (1.0, 1e6):
            res = K.arm_ik(side, g.shoulder + dist * u)
            assert not res.reachable and _within(res.angles, ARMS[side])
            if direction is out:  # the elbow's 9 mm offset cannot point straight sideways at full reach
                assert dist - reach - 1e-9 * dist <= res.error < dist - reach + 1e-3
            else:                 # stretched toward the target: elbow yaw -+90, roll bent 5.7 deg onto the line
                assert res.error == pytest.approx(dist - reach, rel=1e-9, abs=1e-6)
    # too close to the shoulder: the nearest the bent arm gets
    res = K.arm_ik(side, g.shoulder + [0.02, 0, 0])
    assert not res.reachable and 0 < res.error < 0.2 and _within(res.angles, ARMS[side])
    with pytest.raises(ValueError, match="3-vector"):
        K.arm_ik(side, [0, 0])
    with pytest.raises(ValueError, match="finite"):
        K.arm_ik(side, [0, np.inf, 0])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(finite, moderate), min_size=3, max_size=3), st.sampled_from(["L", "R"]))
def test_arm_ik_never_fails_on_a_finite_target(values, side):
    res = K.arm_ik(side, np.array(values))
    assert np.all(np.isfinite(res.angles)) and _within(res.angles, ARMS[side]) and math.isfinite(res.error)


def test_ik_result_is_frozen_and_chain_names():
    res = K.leg_ik("L", K.leg_fk("L", CROUCH))
    with pytest.raises(AttributeError):
        res.reachable = False
    assert K.chain_joint_names("L", "leg") == joints.LEFT_LEG and K.chain_joint_names("r", "arm") == joints.RIGHT_ARM


@pytest.mark.parametrize("side", ["L", "R"])
def test_a_warm_start_finds_the_same_nearest_pose_along_a_smooth_motion(side):
    """A walk turning its feet past the hip yaw-pitch stop: starting each cycle's search from the last answer gives
    the cost of the full search from the fixed postures."""
    base = K.leg_fk(side, CROUCH)
    last, out_of_reach = None, 0
    for k, yaw in enumerate(np.concatenate([np.linspace(0.0, 0.6, 16), np.linspace(0.6, -0.6, 31)])):
        target = _pose(euler2mat(0, 0, yaw) @ base[:3, :3], base[:3, 3] + [0.02 * math.sin(k / 5), 0.01, 0])
        full = K.leg_ik(side, target)
        warm = K.leg_ik(side, target, start=last)
        assert _within(warm.angles, LEGS[side]) and warm.reachable == full.reachable
        assert _cost(warm, target, side) <= _cost(full, target, side) * 1.01 + 1e-9, yaw
        out_of_reach += not full.reachable
        last = warm.angles
    assert 10 < out_of_reach < 40                # the sweep crosses the stop both ways
    with pytest.raises(ValueError, match="start"):
        K.leg_ik(side, base, start=[0.0] * 5)
    with pytest.raises(ValueError, match="start"):
        K.leg_ik(side, base, start=[math.nan] * 6)
