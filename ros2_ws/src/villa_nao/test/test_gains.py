"""config/pd_gains.yaml and its loader."""

import pytest
import yaml

from villa_nao import joints
from villa_nao.gains import default_path, load_pd_gains, parse_pd_gains


def test_shipped_gains_cover_every_joint():
    g = load_pd_gains()
    assert set(g) == {j.name for j in joints.JOINTS + joints.TOE_JOINTS}
    assert g["LKneePitch"] == g["RToePitch"] and g["HeadYaw"][0] > 0
    with open(default_path()) as f:
        shipped = set(yaml.safe_load(f))
    assert shipped == {"head", "larm", "rarm", "lleg", "rleg", "LHipYawPitch", "RHipYawPitch"}
    # the hip yaw-pitch joints are stiffer than the rest of the leg (the walk's heading, pd_gains.yaml)
    assert g["LHipYawPitch"] == g["RHipYawPitch"] and g["LHipYawPitch"][0] > g["LHipPitch"][0]


def test_joint_entries_override_their_chain(tmp_path):
    table = {c: {"kp": 10, "kd": 1} for c in ("head", "larm", "rarm", "lleg", "rleg")}
    table["LKneePitch"] = {"kp": 99.0, "kd": 3.0}
    g = parse_pd_gains(table)
    assert g["LKneePitch"] == (99.0, 3.0) and g["RKneePitch"] == (10.0, 1.0)
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(table))
    assert load_pd_gains(path) == g


@pytest.mark.parametrize("bad,match", [
    ({"head": {"kp": 1, "kd": 1}}, "no entry"),
    ({"legs": {"kp": 1, "kd": 1}}, "unknown chain"),
    ({"head": {"kp": 1}}, "exactly kp and kd"),
    ({"head": {"kp": -1, "kd": 1}}, ">= 0"),
    ({"head": {"kp": float("nan"), "kd": 1}}, "finite"),
    ({"head": {"kp": "high", "kd": 1}}, "number"),
    ([1, 2], "mapping"),
])
def test_bad_tables_are_clear_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        parse_pd_gains(bad)
