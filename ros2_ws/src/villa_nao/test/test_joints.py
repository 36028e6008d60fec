import math

import numpy as np
import pytest

from villa_nao import field, joints


def test_22_joints_in_simspark_wire_order():
    assert len(joints.JOINTS) == 22
    pers = [j.simspark_perceptor for j in joints.JOINTS]
    assert pers == ["hj1", "hj2", "raj1", "raj2", "raj3", "raj4", "laj1", "laj2", "laj3", "laj4",
                    "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6", "llj1", "llj2", "llj3", "llj4", "llj5", "llj6"]
    assert all(j.simspark_effector == j.simspark_perceptor.replace("j", "e", 1) for j in joints.JOINTS)


@pytest.mark.parametrize("name,lo,hi", [
    ("HeadPitch", -45, 45),          # hj2 [-45, 45] flipped
    ("LHipPitch", -100, 25),         # llj3 [-25, 100] flipped: NAOqi negative = leg forward
    ("LKneePitch", -1, 130),         # llj4 [-130, 1] flipped: NAOqi positive = bent
    ("RAnklePitch", -75, 45),        # rlj5 [-45, 75] flipped
    ("LShoulderRoll", -1, 95),       # laj2 kept
    ("RElbowRoll", -1, 90),          # raj4 kept
])
def test_sim_limits_in_naoqi_sign(name, lo, hi):
    j = joints.BY_NAME[name]
    assert (math.degrees(j.sim_min), math.degrees(j.sim_max)) == pytest.approx((lo, hi))


def test_pitch_joints_flip_sign_and_naoqi_ranges_overlap_sim_ranges():
    for j in joints.JOINTS:
        assert j.sign == (-1 if "Pitch" in j.name and "YawPitch" not in j.name else 1), j.name
        # Same-sign ranges: the physical and simulated Nao bend the same way.
        overlap = min(j.sim_max, j.naoqi_max) - max(j.sim_min, j.naoqi_min)
        assert overlap > 0, j.name


def test_robot_types_and_toes():
    assert len(joints.joints_for_type(4)) == 24
    t2 = {j.name: j for j in joints.joints_for_type(2)}
    assert t2["LAnklePitch"].max_speed == pytest.approx(8.80667)
    assert t2["RAnkleRoll"].max_speed == pytest.approx(3.47234)
    assert t2["LKneePitch"].max_speed == pytest.approx(6.1395, abs=1e-4)


def test_field_landmarks_and_rotation_names():
    assert field.LANDMARKS["G1R"] == (15.0, 1.05, 0.8)
    for name, other in field.ROTATED_NAME.items():
        p, q = np.array(field.LANDMARKS[name]), np.array(field.LANDMARKS[other])
        assert np.allclose(p[:2], -q[:2]) and p[2] == q[2]


def test_to_local_and_from_local():
    # a robot at (1, 2) facing +y sees (1, 3) one metre ahead and (0, 2) one metre to its left
    assert field.to_local((1.0, 3.0), (1.0, 2.0), math.pi / 2) == pytest.approx((1.0, 0.0))
    assert field.to_local((0.0, 2.0), (1.0, 2.0), math.pi / 2) == pytest.approx((0.0, 1.0))
    rng = np.random.default_rng(0)
    for _ in range(20):
        p, o, yaw = rng.uniform(-10, 10, 2), rng.uniform(-10, 10, 2), rng.uniform(-4, 4)
        assert field.from_local(field.to_local(p, o, yaw), o, yaw) == pytest.approx(tuple(p))
