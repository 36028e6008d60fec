"""The link table against NAO_MODEL_FACTS.md (numbers copied from the facts, converted to REP-103 by hand)."""

import numpy as np
import pytest

from villa_nao import body, joints


def _rep(x_right, y_forward, z):  # SimSpark model frame -> REP-103, written out independently of body.py
    return np.array([y_forward, -x_right, z])


# "Body parts (robot type 0)": centre of each part relative to the torso centre at zero angles.
FACTS_TYPE0 = {
    "torso": (0, 0, 0), "neck": (0, 0, 0.09), "head": (0, 0, 0.155),
    "rshoulder": (0.098, 0, 0.075), "lshoulder": (-0.098, 0, 0.075),
    "rupperarm": (0.108, 0.02, 0.075), "lupperarm": (-0.108, 0.02, 0.075),
    "relbow": (0.098, 0.09, 0.084), "lelbow": (-0.098, 0.09, 0.084),
    "rlowerarm": (0.098, 0.14, 0.084), "llowerarm": (-0.098, 0.14, 0.084),
    "rhip1": (0.055, -0.01, -0.115), "lhip1": (-0.055, -0.01, -0.115),
    "rhip2": (0.055, -0.01, -0.115), "lhip2": (-0.055, -0.01, -0.115),
    "rthigh": (0.055, 0, -0.155), "lthigh": (-0.055, 0, -0.155),
    "rshank": (0.055, 0.005, -0.28), "lshank": (-0.055, 0.005, -0.28),
    "rankle": (0.055, -0.005, -0.335), "lankle": (-0.055, -0.005, -0.335),
    "rfoot": (0.055, 0.025, -0.375), "lfoot": (-0.055, 0.025, -0.375),
}
MASSES = {"torso": 1.2171, "neck": 0.05, "head": 0.35, "shoulder": 0.07, "upperarm": 0.15, "elbow": 0.035,
          "lowerarm": 0.2, "hip1": 0.09, "hip2": 0.125, "thigh": 0.275, "shank": 0.225, "ankle": 0.125,
          "foot": 0.2}


def test_type0_body_centres_and_masses_match_the_facts():
    z = body.zero_pose_positions(0)
    for name, p in FACTS_TYPE0.items():
        assert z[name] == pytest.approx(_rep(*p), abs=1e-12), name
    for lk in body.links(0):
        kind = lk.name if lk.name in MASSES else lk.name[1:]
        assert lk.mass == pytest.approx(MASSES.get(kind, 0.0)), lk.name


@pytest.mark.parametrize("robot_type,height", [(0, 0.385), (1, 0.42164), (2, 0.385), (3, 0.440737), (4, 0.385)])
def test_total_mass_and_sole_below_torso(robot_type, height):
    assert body.total_mass(robot_type) == pytest.approx(4.6071, abs=1e-9)
    assert body.standing_height(robot_type) == pytest.approx(height, abs=1e-6)


def test_derived_geometry_of_other_types():
    # "Lowerarm centre y: type 1 0.17664; type 3 0.195737"; type 3 hips 0.072954143 to the side.
    assert body.zero_pose_positions(1)["llowerarm"][0] == pytest.approx(0.17664)
    assert body.zero_pose_positions(3)["rlowerarm"][0] == pytest.approx(0.195737, abs=1e-6)
    assert body.zero_pose_positions(3)["rhip1"] == pytest.approx(_rep(0.072954143, -0.01, -0.115))


def test_type4_toe_and_shorter_foot():
    lm = body.link_map(4)
    foot, toe = lm["lfoot"], lm["ltoe"]
    assert foot.size == pytest.approx((0.124482, 0.08, 0.02), abs=1e-6)   # 0.08 x 0.124482 x 0.02 (x right)
    assert foot.mass == pytest.approx(0.1778, abs=1e-4) and toe.mass == pytest.approx(0.0222, abs=1e-4)
    assert toe.size == pytest.approx((0.035517656, 0.08, 0.01))
    assert toe.joint == "LToePitch" and toe.axis == pytest.approx((0, 1, 0))   # SimSpark (1,0,0), sign -1
    z = body.zero_pose_positions(4)
    # the toe sits in front of the foot, both on the sole plane, and the toe hinge at the toe's back edge
    assert z["ltoe"][0] - toe.size[0] / 2 == pytest.approx(z["lfoot"][0] + foot.size[0] / 2)
    assert z["ltoe"][2] - 0.005 == pytest.approx(z["lfoot"][2] - 0.01) == pytest.approx(-0.385)
    assert np.asarray(toe.anchor) == pytest.approx((-TOE_HALF, 0, -0.005))


TOE_HALF = 0.035517656 / 2


def test_joint_axes_are_the_rsg_axes_in_naoqi_sign():
    lm = body.link_map(0)
    ss = {  # rsg axis (x right, y forward, z up) per NAOqi joint
        "HeadYaw": (0, 0, 1), "HeadPitch": (1, 0, 0), "LShoulderPitch": (1, 0, 0), "LShoulderRoll": (0, 0, 1),
        "LElbowYaw": (0, 1, 0), "LElbowRoll": (0, 0, 1), "LHipYawPitch": (-1, 0, -1), "RHipYawPitch": (-1, 0, 1),
        "LHipRoll": (0, 1, 0), "LHipPitch": (1, 0, 0), "LKneePitch": (1, 0, 0), "LAnklePitch": (1, 0, 0),
        "LAnkleRoll": (0, 1, 0)}
    by_joint = {lk.joint: lk for lk in lm.values() if lk.joint}
    for name, axis in ss.items():
        expect = joints.BY_NAME[name].sign * _rep(*axis)
        assert by_joint[name].axis == pytest.approx(expect / np.linalg.norm(expect)), name
    # HeadPitch positive = look down, HipPitch negative = leg forward (NAOqi)
    assert by_joint["HeadPitch"].axis == pytest.approx((0, 1, 0))
    # anchors (child frame) from the rsg: hj2 (0,0,-0.005), aj2 (-+0.01,-0.02,0), lj3, lj4, lj6
    assert lm["head"].anchor == pytest.approx((0, 0, -0.005))
    assert lm["rupperarm"].anchor == pytest.approx(_rep(-0.01, -0.02, 0))
    assert lm["lthigh"].anchor == pytest.approx(_rep(0, -0.01, 0.04))
    assert lm["lshank"].anchor == pytest.approx(_rep(0, -0.01, 0.045))
    assert lm["lfoot"].anchor == pytest.approx(_rep(0, -0.03, 0.035))


def test_frames_camera_sole_hand():
    z = body.zero_pose_positions(0)
    assert z["camera"] == pytest.approx(z["head"])                       # the vision perceptor: head centre
    assert z["lsole"] == pytest.approx(z["lankle"] + [0, 0, -0.05])      # straight below the ankle, on the sole
    assert z["rhand"] == pytest.approx(z["rlowerarm"] + [0.055, 0, 0])   # far end of the lower-arm box
    assert all(body.link_map(0)[n].mass == 0 for n in ("camera", "lsole", "rsole", "lhand", "rhand"))


def test_inertia_formulas():
    lm = body.link_map(0)
    assert lm["torso"].inertia == pytest.approx(1.2171 / 12 * np.array([0.1**2 + 0.18**2, 0.1**2 + 0.18**2, 0.02]))
    assert lm["head"].inertia == pytest.approx(np.full(3, 0.4 * 0.35 * 0.065**2))
    ix, iy, iz = lm["neck"].inertia
    assert ix == iy and iz < ix  # a slender capsule along z


def test_unknown_robot_type_is_a_clear_error():
    with pytest.raises(ValueError, match="robot type"):
        body.links(7)
