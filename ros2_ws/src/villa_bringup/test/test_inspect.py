"""rviz config and field markers: every display points at a topic the stack publishes; the field is complete."""

from pathlib import Path

import yaml

from villa_bringup.field_markers import field_marker_array
from villa_nao import field as F

RVIZ = Path(__file__).resolve().parents[1] / "rviz" / "villa.rviz"


def test_rviz_config_is_yaml_with_field_frame_and_known_topics():
    cfg = yaml.safe_load(RVIZ.read_text())
    vm = cfg["Visualization Manager"]
    assert vm["Global Options"]["Fixed Frame"] == "field"
    topics = {d["Topic"]["Value"] for d in vm["Displays"] if "Topic" in d}
    assert {"/field_markers", "/team_markers", "/villa/p1/particles", "/villa/p1/pose",
            "/villa/p1/localization_markers", "/villa/p1/strategy_markers"} == topics
    assert all(d["Class"].startswith("rviz_default_plugins/") for d in vm["Displays"])
    assert [d["Name"] for d in vm["Displays"] if d["Class"] == "rviz_default_plugins/TF"] == ["TF"]
    # each robot model reads its player's latched URDF, whose link names are the player's frames (no TF prefix)
    models = [d for d in vm["Displays"] if d["Class"] == "rviz_default_plugins/RobotModel"]
    assert [d["Description Topic"]["Value"] for d in models] == \
        [f"/villa/p{u}/robot_description" for u in range(1, 6)] + [f"/allball/p{u}/robot_description" for u in (1, 2)]
    assert all(d["Description Source"] == "Topic" and d["TF Prefix"] == "" and
               d["Description Topic"]["Durability Policy"] == "Transient Local" for d in models)


def test_field_markers_cover_lines_goals_and_flags():
    arr = field_marker_array()
    by_ns = {m.ns: m for m in arr.markers}
    assert len(by_ns["field_lines"].points) == 2 * len(F.LINES)
    assert len(by_ns["goals"].points) == 12
    flags = [m for m in arr.markers if m.ns == "flags"]
    assert {(m.pose.position.x, m.pose.position.y) for m in flags} == {F.LANDMARKS[n][:2] for n in F.FLAGS}
    assert all(m.header.frame_id == "field" for m in arr.markers)
