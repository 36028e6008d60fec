"""The Nao as an MJCF robot model for rcssservermj (rcsssmj 0.2.1), generated from villa_nao.body.

UT Austin Villa 2011 report, section 2: the simulated Nao (SimSpark's model, here in MuJoCo for the
rcssservermj server). What the server expects (rcsssmj: sim/simulation.py generate_perceptions,
games/soccer/sim/soccer_sim.py _add_player / beam_agent, soccer_agent.py) and how this model meets it:

- root body ``torso`` with ``<freejoint name="root"/>`` and a geom ``torso``; the root body's z is the
  height the server drops the robot at: the torso height with all joints at 0 and the soles on the
  ground. Robot forward = body +x (REP-103), which the server's beam angle 0 faces.
- material ``team`` (recoloured by the server) on the torso, upper arms and thighs.
- per joint (named with SimSpark's perceptor name, hj1 ... llj6, and SimSpark's sign: positive MJCF
  angle = positive SimSpark angle, range = SimSpark's stops), actuators ``<eff>_tau`` (motor),
  ``<eff>_pos`` (position), ``<eff>_vel`` (velocity) with ``<eff>`` the SimSpark effector name; the server
  sets their gains per command. SimSpark's FMax 10 is the joint's actuatorfrcrange, its maximum joint speed the
  velocity actuator's control range (villa sim's SimSpark-style velocity commands are clamped to it). Default
  gains: config/pd_gains.yaml (villa_nao.gains).
- sensors: ``jointpos`` named hj1 ... in SimSpark's HJ order, ``jointvel`` in the same order;
  ``gyro`` named ``torso`` on site ``imu`` whose axes are SimSpark's torso frame (x right, y forward,
  z up), so GYR on the wire matches SimSpark. MuJoCo refuses two sensors with one name, so the
  accelerometer (same site) is ``torso_acc`` and the ground truth is ``torso_pos`` / ``torso_quat``
  (framepos / framequat of site ``torso``, REP-103 axes): a server that wants SimSpark's wire name
  ``(ACC (n torso) ...)`` renames ``WIRE_NAMES``. ``touch`` sensors ``lf`` / ``rf`` on boxes around the
  feet (``lf1`` / ``rf1`` around the toes of type 4).
- sites ``camera`` (the vision perceptor: head centre, x = view direction, y left, z up) and
  ``head-vismarker``, ``{r,l}lowerarm-vismarker``, ``{r,l}foot-vismarker`` at the body centres, which
  is where SimSpark's ObjectState reports those parts; ``{l,r}sole`` and ``{l,r}hand`` frames as in
  villa_nao.kinematics; ``jersey`` (the server draws the player number there). No ``*_a-speaker`` /
  ``*_a-micro`` sites: rcsssmj 0.2.1's audio engine crashes (a_forward broadcasts a (0, 0) origins
  array) when the first robot with a microphone joins; villa_sim implements SimSpark's say/hear.
- geoms: SimSpark's primitives with its masses (MuJoCo derives the inertia); bodies SimSpark gives no
  collider (shoulders, elbows, hips, ankles) have non-colliding geoms for their mass. Geom names are
  the SimSpark part names (``lfoot``, ``rfoot``, ``ltoe``, ...); none contains "hand" or "forearm"
  (rcssservermj's referee treats those as hand fouls). No self-collision (SimSpark disables it):
  every pair of colliding bodies is excluded.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from transforms3d.quaternions import mat2quat

from villa_nao import body
from villa_nao.gains import load_pd_gains
from villa_nao.joints import BY_NAME, joints_for_type

FMAX = 10.0            # N m, SimSpark hingejoint.rsg setMaxMotorForce
# Motor-side joint properties (SimSpark's ODE hinges have none; these make MuJoCo's explicit PD stable
# at the server's 5 ms step): reflected rotor inertia and viscous friction per joint.
ARMATURE = 0.01        # kg m^2
DAMPING = 0.1          # N m s/rad
# SimSpark's contacts have unbounded Coulomb friction (mu = dInfinity) with force-dependent slip; with MuJoCo's
# mu = 1 the walking Nao spun about its stance foot (yaw 130 deg in 4 s, where SimSpark's drifts 3 deg); 2 matches
# SimSpark's walk, side steps and turns (villa bench calibrate).
FRICTION = (2.0, 0.005, 0.0001)
# SimSpark's hinge stops are stiff (ODE StopERP 0.8, StopCFM 1e-8); MuJoCo's default limit (time constant 0.02 s) let a
# hip yaw-pitch driven toward its 1 deg stop overshoot to 2 deg, where SimSpark's rule (villa sim keeps it) ignores
# every command: the joint stuck and the robot could no longer turn. 0.01 s is the stiffest stable at the 5 ms step.
STOP_SOLREF = "0.01 1"
TOUCH_MARGIN = 0.005   # m: the touch boxes reach this far around the foot and toe boxes

WIRE_NAMES = {"torso_acc": "torso"}   # sensor name -> SimSpark's perceptor name on the wire

_MATERIALS = {"team": "0.4 0.4 0.4 1", "grey": "0.6 0.6 0.6 1", "dark": "0.25 0.25 0.25 1",
              "joint": "0.9 0.75 0.1 1", "head": "0.85 0.85 0.85 1"}
_MATERIAL = {"torso": "team", "upperarm": "team", "thigh": "team", "head": "head", "neck": "dark",
             "lowerarm": "grey", "shank": "grey", "foot": "dark", "toe": "dark"}


def _num(x: float) -> str:
    s = f"{float(x):.10g}"
    return "0" if s == "-0" else s


def _vec(v) -> str:
    return " ".join(_num(x) for x in v)


def _part(name: str) -> str:
    """The SimSpark part kind of a link name (rthigh -> thigh)."""
    return name[1:] if name[0] in "lr" else name


def _geom_attrs(lk: body.Link) -> dict[str, str]:
    if lk.shape == "box":
        size = _vec(np.asarray(lk.size) / 2)
    elif lk.shape == "sphere":
        size = _num(lk.size[0])
    else:
        size = _vec((lk.size[0], lk.size[1] / 2))
    attrs = {"name": lk.name, "type": lk.shape, "size": size, "mass": _num(lk.mass),
             "material": _MATERIAL.get(_part(lk.name), "joint")}
    if not lk.collides:
        attrs["class"] = "massonly"
    return attrs


def make_mjcf(robot_type: int = 0) -> str:
    """MJCF text of SimSpark's Nao of ``robot_type`` (0-4) for rcssservermj (see the module docstring)."""
    links = body.links(robot_type)                                   # checks the robot type
    lmap = {lk.name: lk for lk in links}
    gains = load_pd_gains()
    joints = joints_for_type(robot_type)
    # SimSpark's HJ order: head, right arm, left arm, right leg (+ toe), left leg (+ toe).
    order = ("head", "rarm", "larm", "rleg", "lleg")
    wire = sorted(joints, key=lambda j: (order.index(j.chain), j.simspark_perceptor))

    root = ET.Element("mujoco", model=f"villa_nao{robot_type}")
    ET.SubElement(root, "compiler", angle="radian", autolimits="true")
    ET.SubElement(root, "option", timestep="0.005")
    default = ET.SubElement(root, "default")
    ET.SubElement(default, "joint", type="hinge", armature=_num(ARMATURE), damping=_num(DAMPING),
                  actuatorfrcrange=f"{_num(-FMAX)} {_num(FMAX)}", solreflimit=STOP_SOLREF)
    ET.SubElement(default, "geom", condim="3", friction=_vec(FRICTION))
    ET.SubElement(default, "site", group="4", size="0.005")
    massonly = ET.SubElement(default, "default", {"class": "massonly"})
    ET.SubElement(massonly, "geom", contype="0", conaffinity="0", group="1")
    asset = ET.SubElement(root, "asset")
    for name, rgba in _MATERIALS.items():
        ET.SubElement(asset, "material", name=name, rgba=rgba)

    world = ET.SubElement(root, "worldbody")
    elements: dict[str, ET.Element] = {}
    for lk in links:
        if lk.shape is None:
            continue  # massless frames become sites below
        parent = world if lk.parent is None else elements[lk.parent]
        pos = (0.0, 0.0, body.standing_height(robot_type)) if lk.parent is None else lk.pos
        el = ET.SubElement(parent, "body", name=lk.name, pos=_vec(pos))
        elements[lk.name] = el
        if lk.parent is None:
            ET.SubElement(el, "freejoint", name="root")
        else:
            j = BY_NAME[lk.joint]
            lo, hi = sorted((j.sign * j.sim_min, j.sign * j.sim_max))  # SimSpark's stops, wire sign
            ET.SubElement(el, "joint", name=j.simspark_perceptor, pos=_vec(lk.anchor),
                          axis=_vec(j.sign * np.asarray(lk.axis)), range=f"{_num(lo)} {_num(hi)}")
        ET.SubElement(el, "geom", _geom_attrs(lk))

    torso = elements["torso"]
    ET.SubElement(torso, "site", name="torso", pos="0 0 0")
    ET.SubElement(torso, "site", name="imu", pos="0 0 0", quat=_vec(mat2quat(body.SS_TO_REP)))
    ET.SubElement(torso, "site", name="jersey", type="box", pos="-0.051 0 0.02", size="0.001 0.035 0.045")
    head = elements["head"]
    ET.SubElement(head, "site", name="camera", pos=_vec(lmap["camera"].pos))
    ET.SubElement(head, "site", name="head-vismarker", pos="0 0 0")
    for s in "rl":
        ET.SubElement(elements[f"{s}lowerarm"], "site", name=f"{s}lowerarm-vismarker", pos="0 0 0")
        ET.SubElement(elements[f"{s}lowerarm"], "site", name=f"{s}hand", pos=_vec(lmap[f"{s}hand"].pos))
        foot = lmap[f"{s}foot"]
        ET.SubElement(elements[f"{s}foot"], "site", name=f"{s}foot-vismarker", pos="0 0 0")
        ET.SubElement(elements[f"{s}foot"], "site", name=f"{s}sole", pos=_vec(lmap[f"{s}sole"].pos))
        ET.SubElement(elements[f"{s}foot"], "site", name=f"{s}f", type="box", pos="0 0 0",
                      size=_vec(np.asarray(foot.size) / 2 + TOUCH_MARGIN))
        if f"{s}toe" in elements:
            ET.SubElement(elements[f"{s}toe"], "site", name=f"{s}f1", type="box", pos="0 0 0",
                          size=_vec(np.asarray(lmap[f"{s}toe"].size) / 2 + TOUCH_MARGIN))

    actuator = ET.SubElement(root, "actuator")
    for j in wire:
        kp, kd = gains[j.name]
        eff, jn = j.simspark_effector, j.simspark_perceptor
        ET.SubElement(actuator, "motor", name=f"{eff}_tau", joint=jn)
        ET.SubElement(actuator, "position", name=f"{eff}_pos", joint=jn, kp=_num(kp))
        ET.SubElement(actuator, "velocity", name=f"{eff}_vel", joint=jn, kv=_num(kd),
                      ctrlrange=f"{_num(-j.max_speed)} {_num(j.max_speed)}")

    sensor = ET.SubElement(root, "sensor")
    ET.SubElement(sensor, "gyro", name="torso", site="imu")
    ET.SubElement(sensor, "accelerometer", name="torso_acc", site="imu")
    ET.SubElement(sensor, "framepos", name="torso_pos", objtype="site", objname="torso")
    ET.SubElement(sensor, "framequat", name="torso_quat", objtype="site", objname="torso")
    for s in "lr":
        ET.SubElement(sensor, "touch", name=f"{s}f", site=f"{s}f")
        if f"{s}toe" in elements:
            ET.SubElement(sensor, "touch", name=f"{s}f1", site=f"{s}f1")
    for j in wire:
        ET.SubElement(sensor, "jointpos", name=j.simspark_perceptor, joint=j.simspark_perceptor)
    for j in wire:
        ET.SubElement(sensor, "jointvel", name=f"{j.simspark_perceptor}_vel", joint=j.simspark_perceptor)

    contact = ET.SubElement(root, "contact")
    colliding = [lk.name for lk in links if lk.collides]
    for a, b in itertools.combinations(colliding, 2):
        ET.SubElement(contact, "exclude", body1=a, body2=b)

    ET.indent(root, space="  ")
    header = (f"<!-- SimSpark's Nao, robot type {robot_type}, for rcssservermj. Generated by villa_nao.mjcf "
              "from villa_nao.body; do not edit. -->\n")
    return header + ET.tostring(root, encoding="unicode") + "\n"


def write_mjcf(path: str | Path, robot_type: int = 0) -> Path:
    """Write ``make_mjcf(robot_type)`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(make_mjcf(robot_type))
    return path
