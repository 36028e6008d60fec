"""The Nao as a URDF for rviz / robot_state_publisher, generated from villa_nao.body.

UT Austin Villa 2011 report, section 2 (the simulated Nao). Joints carry the NAOqi names and signs
(URDF joint angle = NAOqi angle, so ``sensor_msgs/JointState`` from the bridge drives it as is) and
the simulated Nao's limits; the type-4 toes are ``RToePitch`` / ``LToePitch``. Links: ``base_link``
(the torso frame: origin at the torso centre, REP-103), ``camera`` (x along the view axis), ``l_sole`` /
``r_sole`` (the foot frames of villa_nao.kinematics) and ``l_hand`` / ``r_hand``, with the same poses as
``kinematics.forward_kinematics`` gives for ``camera``, ``lsole``, ``rsole``, ``lhand``, ``rhand``; the
other links are named after SimSpark's parts (``lthigh``, ``head``, ...) but, URDF-style, their frames
sit on their joint axes (the body centre is the visual's origin). ``prefix`` is prepended to link
names only (joint names stay NAOqi's, as on the joint_states topic).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from villa_nao import body
from villa_nao.joints import joints_for_type
from villa_nao.mjcf import FMAX

FRAME_NAMES = {"torso": "base_link", "lsole": "l_sole", "rsole": "r_sole", "lhand": "l_hand", "rhand": "r_hand"}
_RGBA = {"team": "0.2 0.3 0.8 1", "grey": "0.6 0.6 0.6 1", "dark": "0.25 0.25 0.25 1", "joint": "0.9 0.75 0.1 1"}


def _num(x: float) -> str:
    s = f"{float(x):.10g}"
    return "0" if s == "-0" else s


def _vec(v) -> str:
    return " ".join(_num(x) for x in v)


def urdf_link_name(name: str, prefix: str = "") -> str:
    """URDF link name of a villa_nao.body link (``torso`` -> ``base_link``, ``lsole`` -> ``l_sole``)."""
    return prefix + FRAME_NAMES.get(name, name)


def _geometry(parent: ET.Element, lk: body.Link) -> None:
    geom = ET.SubElement(parent, "geometry")
    if lk.shape == "box":
        ET.SubElement(geom, "box", size=_vec(lk.size))
    elif lk.shape == "sphere":
        ET.SubElement(geom, "sphere", radius=_num(lk.size[0]))
    else:  # URDF has no capsule: the cylinder part
        ET.SubElement(geom, "cylinder", radius=_num(lk.size[0]), length=_num(lk.size[1]))


def make_urdf(robot_type: int = 0, prefix: str = "") -> str:
    """URDF text of SimSpark's Nao of ``robot_type`` (0-4); see the module docstring."""
    links = body.links(robot_type)                                   # checks the robot type
    lmap = {lk.name: lk for lk in links}
    jmap = {j.name: j for j in joints_for_type(robot_type)}  # per-type speeds (type 2's ankles)
    root = ET.Element("robot", name=f"villa_nao{robot_type}")
    for name, rgba in _RGBA.items():
        ET.SubElement(ET.SubElement(root, "material", name=name), "color", rgba=rgba)
    for lk in links:
        link = ET.SubElement(root, "link", name=urdf_link_name(lk.name, prefix))
        if lk.shape is not None:
            origin = {"xyz": _vec(-np.asarray(lk.anchor)), "rpy": "0 0 0"}  # frame on the joint axis
            visual = ET.SubElement(link, "visual")
            ET.SubElement(visual, "origin", origin)
            _geometry(visual, lk)
            kind = lk.name[1:] if lk.name[0] in "lr" else lk.name
            mat = "team" if kind in ("torso", "upperarm", "thigh") else "grey" if lk.collides else "joint"
            ET.SubElement(visual, "material", name=mat)
            if lk.collides:
                collision = ET.SubElement(link, "collision")
                ET.SubElement(collision, "origin", origin)
                _geometry(collision, lk)
            inertial = ET.SubElement(link, "inertial")
            ET.SubElement(inertial, "origin", origin)
            ET.SubElement(inertial, "mass", value=_num(lk.mass))
            ixx, iyy, izz = lk.inertia
            ET.SubElement(inertial, "inertia", ixx=_num(ixx), ixy="0", ixz="0", iyy=_num(iyy), iyz="0",
                          izz=_num(izz))
        if lk.parent is None:
            continue
        # URDF frame of a link = its joint point; the parent's frame sits on the parent's joint point.
        origin = np.asarray(lk.pos) + np.asarray(lk.anchor) - np.asarray(lmap[lk.parent].anchor)
        if lk.joint:
            j = jmap[lk.joint]
            joint = ET.SubElement(root, "joint", name=j.name, type="revolute")
            ET.SubElement(joint, "axis", xyz=_vec(lk.axis))
        else:
            joint = ET.SubElement(root, "joint", name=f"{urdf_link_name(lk.name)}_joint", type="fixed")
        ET.SubElement(joint, "parent", link=urdf_link_name(lk.parent, prefix))
        ET.SubElement(joint, "child", link=urdf_link_name(lk.name, prefix))
        ET.SubElement(joint, "origin", xyz=_vec(origin), rpy="0 0 0")
        if lk.joint:
            ET.SubElement(joint, "limit", lower=_num(j.sim_min), upper=_num(j.sim_max), effort=_num(FMAX),
                          velocity=_num(j.max_speed))
    ET.indent(root, space="  ")
    header = (f'<?xml version="1.0"?>\n<!-- SimSpark\'s Nao, robot type {robot_type}. Generated by villa_nao.urdf '
              "from villa_nao.body; do not edit. -->\n")
    return header + ET.tostring(root, encoding="unicode") + "\n"


def write_urdf(path: str | Path, robot_type: int = 0, prefix: str = "") -> Path:
    """Write ``make_urdf(robot_type, prefix)`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(make_urdf(robot_type, prefix))
    return path
