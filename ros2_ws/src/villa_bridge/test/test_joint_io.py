import math

import numpy as np
import pytest

from villa_bridge.joint_io import (
    CommandError,
    HeldTargets,
    JointTarget,
    build_joint_state,
    command_to_targets,
    from_wire,
    to_wire,
)
from villa_nao.joints import BY_NAME


def test_targets_clamped_to_sim_limits():
    t = command_to_targets(["LKneePitch", "HeadYaw"], [10.0, 0.3], stiffness=[2.0, -1.0])
    assert t["LKneePitch"].position == pytest.approx(BY_NAME["LKneePitch"].sim_max)
    assert t["HeadYaw"] == JointTarget(0.3, None, 0.0)
    assert t["LKneePitch"].stiffness == 1.0


def test_naoqi_limits_differ():
    t = command_to_targets(["HeadPitch"], [1.0], limits="naoqi")
    assert t["HeadPitch"].position == pytest.approx(math.radians(29.5))


@pytest.mark.parametrize("kwargs, text", [
    (dict(names=["Nope"], position=[0.0]), "unknown joint"),
    (dict(names=["HeadYaw"], position=[0.0, 1.0]), "positions"),
    (dict(names=["HeadYaw"], position=[0.0], velocity=[1.0, 2.0]), "velocities"),
    (dict(names=["HeadYaw"], position=[float("nan")]), "non-finite position"),
    (dict(names=["HeadYaw", "HeadYaw"], position=[0.0, 0.0]), "twice"),
])
def test_bad_commands_raise(kwargs, text):
    with pytest.raises(CommandError, match=text):
        command_to_targets(**kwargs)


def test_held_targets_keep_last_value():
    h = HeldTargets()
    assert not h.has_targets()
    h.update(command_to_targets(["HeadYaw"], [0.5], velocity=[1.0], stiffness=[0.5]))
    h.update(command_to_targets(["HeadPitch"], [0.1]))
    i, k = h.index["HeadYaw"], h.index["HeadPitch"]
    assert h.position[i] == 0.5 and h.velocity[i] == 1.0 and h.stiffness[i] == 0.5
    assert h.position[k] == pytest.approx(0.1) and h.stiffness[k] == 1.0
    assert np.isnan(h.position[h.index["LKneePitch"]])


def test_wire_signs_roundtrip():
    names, pos, vel = from_wire(["hj2", "llj4", "bogus"], [10.0, -60.0, 3.0], [90.0, 0.0, 0.0])
    assert names == ["HeadPitch", "LKneePitch"]
    assert pos == pytest.approx([-math.radians(10), math.radians(60)])
    assert vel == pytest.approx([-math.pi / 2, 0.0])
    eff, wire = to_wire(names, pos)
    assert eff == ["he2", "lle4"]
    assert wire == pytest.approx(np.radians([10.0, -60.0]))


def test_build_joint_state():
    msg = build_joint_state(["HeadYaw"], [0.1], [float("nan")])
    assert msg.name == ["HeadYaw"] and list(msg.position) == [0.1] and len(msg.velocity) == 0
    msg = build_joint_state(["HeadYaw"], [0.1], [0.2])
    assert list(msg.velocity) == [0.2]
