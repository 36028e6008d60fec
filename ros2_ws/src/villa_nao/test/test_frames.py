"""villa_nao.frames: frame names, the field -> odom correction, and the Nao's links from villa_nao's FK as the URDF
(and so rviz, robot_state_publisher) places them."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from transforms3d.axangles import axangle2mat
from transforms3d.euler import euler2mat, mat2euler
from transforms3d.quaternions import mat2quat

from villa_nao import body
from villa_nao import frames as Fr
from villa_nao.kinematics import forward_kinematics, joint_names
from villa_nao.urdf import make_urdf

PREFIX = "villa/p3/"


def _random_joints(rng, robot_type: int) -> dict[str, float]:
    return {n: float(rng.uniform(-0.8, 0.8)) for n in joint_names(robot_type)}


def _translation(xyz) -> np.ndarray:
    t = np.eye(4)
    t[:3, 3] = xyz
    return t


def test_frame_prefix_is_the_namespace_unless_configured():
    assert Fr.frame_prefix("/villa/p1") == "villa/p1/"
    assert Fr.frame_prefix("/allball/p11/") == "allball/p11/"
    assert Fr.frame_prefix("/") == ""
    assert Fr.frame_prefix("/villa/p1", "robot7/") == "robot7/"
    frames = Fr.RobotFrames(0, "villa/p1/")
    assert (frames.odom, frames.base_link, frames.base_footprint) == \
        ("villa/p1/odom", "villa/p1/base_link", "villa/p1/base_footprint")


def _planar_pose(rng, reach: float) -> tuple[float, float, float]:
    """A random planar pose within `reach` m of the origin in x and y, any heading."""
    return (*rng.uniform(-reach, reach, 2), rng.uniform(-3.1, 3.1))


def test_planar_compose_and_inverse():
    rng = np.random.default_rng(3)
    for _ in range(100):
        a, b = _planar_pose(rng, 5), _planar_pose(rng, 5)
        ab = Fr.compose(a, b)
        np.testing.assert_allclose(Fr.planar_matrix(ab), Fr.planar_matrix(a) @ Fr.planar_matrix(b), atol=1e-12)
        np.testing.assert_allclose(Fr.compose(Fr.inverse(a), a), (0.0, 0.0, 0.0), atol=1e-12)


def test_odom_correction_composes_with_the_odometry_into_the_field_pose():
    """field -> odom -> base_link is the estimate: the correction composed with the odometry pose gives it back."""
    rng = np.random.default_rng(4)
    for _ in range(100):
        field_pose, odom_pose = _planar_pose(rng, 7), _planar_pose(rng, 20)
        c = Fr.odom_correction(field_pose, odom_pose)
        np.testing.assert_allclose(Fr.compose(c, odom_pose), field_pose, atol=1e-9)
    # numbers: the robot walked 1 m forward in odom while the filter puts it at (2, 0) facing +y
    c = Fr.odom_correction((2.0, 0.0, math.pi / 2), (1.0, 0.0, 0.0))
    np.testing.assert_allclose(c, (2.0, -1.0, math.pi / 2), atol=1e-12)


def test_field_to_odom_turns_the_right_team_by_pi():
    pose, odom = (1.0, 2.0, 0.3), (0.5, -0.2, 0.1)
    left = Fr.field_to_odom(pose, odom, "left")
    right = Fr.field_to_odom(pose, odom, "right")
    np.testing.assert_allclose(left, Fr.field_to_odom(pose, odom, None))
    # the right team's (1, 2) facing 0.3 is the shared field's (-1, -2) facing 0.3 + pi
    base = right @ Fr.planar_matrix(odom)
    np.testing.assert_allclose(base[:2, 3], (-1.0, -2.0), atol=1e-12)
    assert math.remainder(math.atan2(base[1, 0], base[0, 0]) - (0.3 + math.pi), 2 * math.pi) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="side"):
        Fr.side_yaw("north")


def test_quaternions_equal_transforms3d_including_half_turns():
    rng = np.random.default_rng(5)
    rots = [euler2mat(*rng.uniform(-math.pi, math.pi, 3)) for _ in range(500)]
    rots += [axangle2mat(rng.normal(size=3), a) for a in (math.pi, math.pi - 1e-7, 2.6, 2.4, 1e-9, 0.0)]
    rots += [np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0])]
    q = Fr.quaternions(np.stack(rots))
    ref = np.array([mat2quat(r) for r in rots])
    ref *= np.where(ref[:, :1] < 0, -1.0, 1.0)
    # q and -q are one rotation (w = 0 for a half turn): compare up to sign
    err = np.minimum(np.abs(q - ref).max(axis=1), np.abs(q + ref).max(axis=1))
    assert err.max() < 1e-9
    assert np.all(q[:, 0] >= 0.0)


def _tree_poses(frames: Fr.RobotFrames, moving: np.ndarray) -> dict[str, np.ndarray]:
    """Every link's pose in base_link, composing the published parent -> child transforms along the tree."""
    edges = {child: (parent, m) for (parent, child), m in zip(frames.moving_frames, moving, strict=True)}
    edges.update({child: (parent, m) for parent, child, m in frames.static})
    poses = {frames.base_link: np.eye(4)}

    def pose(name):
        if name not in poses:
            parent, m = edges[name]
            poses[name] = pose(parent) @ m
        return poses[name]

    for name in edges:
        pose(name)
    return poses


@pytest.mark.parametrize("robot_type", [0, 1, 2, 3, 4])
def test_links_composed_along_the_tree_are_villa_nao_fk(robot_type):
    """base_link -> every link, composed from the published joints, is villa_nao's FK pose of the link moved to its
    joint point (the URDF frame); the visuals the URDF hangs there land on FK's body centres."""
    rng = np.random.default_rng(robot_type)
    frames = Fr.RobotFrames(robot_type, PREFIX)
    root = ET.fromstring(make_urdf(robot_type, PREFIX))
    visuals = {lk.get("name"): lk.find("visual/origin") for lk in root.iter("link")}
    for _ in range(5):
        q = _random_joints(rng, robot_type)
        names, moving = frames.transforms(q, (0.0, 0.0, 0.0))
        assert names[2:] == frames.moving_frames
        poses = _tree_poses(frames, moving[2:])
        fk = forward_kinematics(q, robot_type)
        for lk in body.links(robot_type):
            link = PREFIX + {"torso": "base_link", "lsole": "l_sole", "rsole": "r_sole", "lhand": "l_hand",
                             "rhand": "r_hand"}.get(lk.name, lk.name)
            np.testing.assert_allclose(poses[link], fk[lk.name] @ _translation(lk.anchor), atol=1e-12)
            if visuals[link] is not None:      # the visual's origin: the body centre
                xyz = [float(v) for v in visuals[link].get("xyz").split()]
                np.testing.assert_allclose(poses[link] @ _translation(xyz), fk[lk.name], atol=1e-9)


@pytest.mark.parametrize("robot_type", [0, 4])
def test_tf_edges_are_the_urdf_joints_as_robot_state_publisher_computes_them(robot_type):
    """Link names and parents in TF equal the URDF's; each transform is the URDF joint's origin and its axis turned by
    the joint angle (what robot_state_publisher publishes from the same URDF), fixed joints on /tf_static."""
    rng = np.random.default_rng(10 + robot_type)
    frames = Fr.RobotFrames(robot_type, PREFIX)
    root = ET.fromstring(make_urdf(robot_type, PREFIX))
    joints = {j.find("child").get("link"): j for j in root.iter("joint")}
    links = {lk.get("name") for lk in root.iter("link")}
    tf_children = [c for _, c in frames.moving_frames] + [c for _, c, _ in frames.static]
    assert sorted(tf_children) == sorted(joints) and set(tf_children) | {frames.base_link} == links
    q = _random_joints(rng, robot_type)
    _, moving = frames.transforms(q, (0.0, 0.0, 0.0))
    published = {(p, c): m for (p, c), m in zip(frames.moving_frames, moving[2:], strict=True)}
    published.update({(p, c): m for p, c, m in frames.static})
    for child, j in joints.items():
        parent = j.find("parent").get("link")
        origin = _translation([float(v) for v in j.find("origin").get("xyz").split()])
        if j.get("type") == "revolute":
            axis = [float(v) for v in j.find("axis").get("xyz").split()]
            origin[:3, :3] = axangle2mat(axis, q[j.get("name")])
        else:
            assert (parent, child) in {(p, c) for p, c, _ in frames.static}
        np.testing.assert_allclose(published[(parent, child)], origin, atol=1e-12)


def _lowest_corner(frames: Fr.RobotFrames, fk, level) -> float:
    """The lowest point of every body, brute force: box corners, sphere bottoms, capsule end spheres."""
    low = math.inf
    for lk in body.links(frames.robot_type):
        t = fk[lk.name]
        r, c = level @ t[:3, :3], level @ t[:3, 3]
        if lk.shape == "box":
            for sx in (-1, 1):
                for sy in (-1, 1):
                    for sz in (-1, 1):
                        low = min(low, (c + r @ (np.array([sx, sy, sz]) * np.asarray(lk.size) / 2))[2])
        elif lk.shape == "sphere":
            low = min(low, c[2] - lk.size[0])
        elif lk.shape == "capsule":
            for s in (-1, 1):
                low = min(low, (c + r @ np.array([0.0, 0.0, s * lk.size[1] / 2]))[2] - lk.size[0])
    return -low


def test_floor_depth_is_the_lowest_body_point():
    frames = Fr.RobotFrames(0)
    zero = frames.link_frames(forward_kinematics({}, 0))
    assert frames.floor_depth(zero, np.eye(3)) == pytest.approx(body.standing_height(0))   # standing on the soles
    # lying on its back (nose up, pitch -pi/2): the head (radius 0.065) lowest, the torso's 0.05 half depth above it
    assert frames.floor_depth(zero, euler2mat(0.0, -math.pi / 2, 0.0)) == pytest.approx(0.065)
    rng = np.random.default_rng(6)
    for _ in range(30):
        q = _random_joints(rng, 0)
        level = euler2mat(*rng.uniform(-1.5, 1.5, 2), 0.0)
        fk = forward_kinematics(q, 0)
        assert frames.floor_depth(frames.link_frames(fk), level) == pytest.approx(_lowest_corner(frames, fk, level))


def test_base_link_stands_on_the_floor_and_base_footprint_lies_on_it_below_the_torso():
    frames = Fr.RobotFrames(1, PREFIX)
    q = {"LHipPitch": -0.5, "LKneePitch": 1.0, "LAnklePitch": -0.5, "RHipPitch": -0.5, "RKneePitch": 1.0,
         "RAnklePitch": -0.5}
    roll, pitch = 0.05, 0.15
    odom = (1.5, -0.7, 2.0)
    names, m = frames.transforms(q, odom, roll, pitch)
    assert names[:2] == [(PREFIX + "odom", PREFIX + "base_link"), (PREFIX + "base_link", PREFIX + "base_footprint")]
    base, footprint = m[0], m[1]
    # planar part: the odometry; height: the lowest point (the soles, crouched and tilted) on z = 0
    np.testing.assert_allclose(base[:2, 3], odom[:2])
    r, p, y = mat2euler(base[:3, :3], "sxyz")
    assert (r, p, y) == pytest.approx((roll, pitch, odom[2]))
    poses = _tree_poses(frames, m[2:])
    soles = [(base @ poses[PREFIX + s])[2, 3] for s in ("l_sole", "r_sole")]
    assert min(soles) == pytest.approx(0.0, abs=0.02)        # a sole corner touches; its centre is within 2 cm
    assert min(soles) >= -1e-9
    fp = base @ footprint                                     # base_footprint in odom: level, on the floor
    np.testing.assert_allclose(fp[:3, :3], Fr.planar_matrix(odom)[:3, :3], atol=1e-12)
    np.testing.assert_allclose(fp[:3, 3], (*base[:2, 3], 0.0), atol=1e-12)


def test_unknown_joints_are_ignored_and_non_finite_ones_refused():
    frames = Fr.RobotFrames(0)
    _, a = frames.transforms({"LKneePitch": 0.4, "LHand": 0.7, "LWristYaw": 1.0}, (0.0, 0.0, 0.0))   # a real Nao's
    _, b = frames.transforms({"LKneePitch": 0.4}, (0.0, 0.0, 0.0))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="finite"):
        frames.transforms({"LKneePitch": math.nan}, (0.0, 0.0, 0.0))


def test_throttle_passes_every_fourth_cycle_at_12_5_hz_and_restarts_with_the_clock():
    th = Fr.Throttle(12.5)
    stamps = [round(0.02 * k, 10) for k in range(100)]
    due = [t for t in stamps if th.due(t)]
    assert due == stamps[::4]
    assert th.due(0.0)                        # a clock that went back (a restarted server)
    assert not th.due(0.04)
    with pytest.raises(ValueError):
        Fr.Throttle(0.0)
