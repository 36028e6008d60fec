"""Checked-in model files equal the generators' output; the URDF agrees with villa_nao.kinematics."""

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from transforms3d.axangles import axangle2mat

from villa_nao import body, joints
from villa_nao import kinematics as K
from villa_nao.generate_models import main as generate
from villa_nao.mjcf import make_mjcf
from villa_nao.urdf import make_urdf, urdf_link_name

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_checked_in_models_equal_the_generators():
    assert (MODELS / "nao.xml").read_text() == make_mjcf(0), "run: python -m villa_nao.generate_models"
    assert (MODELS / "nao.urdf").read_text() == make_urdf(0), "run: python -m villa_nao.generate_models"


def test_generate_models_writes_both(tmp_path):
    assert generate([str(tmp_path)]) == 0
    assert (tmp_path / "nao.xml").read_text() == make_mjcf(0)
    assert (tmp_path / "nao.urdf").read_text() == make_urdf(0)


def _urdf_fk(root: ET.Element, q: dict) -> dict[str, np.ndarray]:
    """A small independent URDF forward kinematics (zero rpy everywhere, revolute and fixed joints)."""
    parent_of, joint_of = {}, {}
    for j in root.findall("joint"):
        child = j.find("child").get("link")
        parent_of[child] = j.find("parent").get("link")
        joint_of[child] = j
    out = {}

    def pose(link):
        if link in out:
            return out[link]
        if link not in parent_of:
            out[link] = np.eye(4)
            return out[link]
        j = joint_of[link]
        assert j.find("origin").get("rpy") == "0 0 0"
        t = np.eye(4)
        t[:3, 3] = [float(v) for v in j.find("origin").get("xyz").split()]
        if j.get("type") == "revolute":
            axis = [float(v) for v in j.find("axis").get("xyz").split()]
            t[:3, :3] = axangle2mat(axis, q.get(j.get("name"), 0.0))
        out[link] = pose(parent_of[link]) @ t
        return out[link]

    for link in root.findall("link"):
        pose(link.get("name"))
    return out


@pytest.mark.parametrize("robot_type", [0, 3, 4])
def test_urdf_matches_forward_kinematics(robot_type):
    root = ET.fromstring(make_urdf(robot_type).split("\n", 2)[2])
    names = {j.get("name") for j in root.findall("joint") if j.get("type") == "revolute"}
    assert names == set(K.joint_names(robot_type))   # NAOqi names
    for j in root.findall("joint"):
        if j.get("type") == "revolute":
            jt = joints.BY_NAME[j.get("name")]
            lim = j.find("limit")
            assert (float(lim.get("lower")), float(lim.get("upper"))) == pytest.approx((jt.sim_min, jt.sim_max))
    links = {lk.get("name") for lk in root.findall("link")}
    assert {"base_link", "camera", "l_sole", "r_sole"} <= links
    rng = np.random.default_rng(robot_type)
    jts = joints.joints_for_type(robot_type)
    for _ in range(20):
        q = {j.name: rng.uniform(j.sim_min, j.sim_max) for j in jts}
        fk = K.forward_kinematics(q, robot_type)
        ufk = _urdf_fk(root, q)   # URDF angle = NAOqi angle
        for name in ("camera", "lsole", "rsole", "lhand", "rhand"):
            assert ufk[urdf_link_name(name)] == pytest.approx(fk[name], abs=1e-9), name
        # body centres: the link frame (on the joint axis) plus the visual's origin
        for link in root.findall("link"):
            vis = link.find("visual")
            if vis is None:
                continue
            centre = ufk[link.get("name")] @ np.r_[[float(v) for v in vis.find("origin").get("xyz").split()], 1]
            lk = "torso" if link.get("name") == "base_link" else link.get("name")
            assert centre[:3] == pytest.approx(fk[lk][:3, 3], abs=1e-9), lk


def test_urdf_prefix_and_masses():
    root = ET.fromstring(make_urdf(0, prefix="p3/").split("\n", 2)[2])
    assert all(lk.get("name").startswith("p3/") for lk in root.findall("link"))
    assert "LKneePitch" in {j.get("name") for j in root.findall("joint")}   # joint names stay NAOqi's
    total = sum(float(lk.find("inertial/mass").get("value")) for lk in root.findall("link")
                if lk.find("inertial") is not None)
    assert total == pytest.approx(body.total_mass(0))
    with pytest.raises(ValueError, match="robot type"):
        make_urdf(9)
    with pytest.raises(ValueError, match="robot type"):
        make_mjcf(-1)
