"""villa_nao.params: parameter files in ROS 2's form, flattened and declared with their defaults."""

import pytest

from villa_nao.params import (
    PackageDataError,
    ParameterFileError,
    config_path,
    declare_from_yaml,
    flatten,
    load_parameters,
    share_path,
)


def test_flatten_nested_names():
    assert flatten({"a": 1, "walk": {"x": 0.1, "set": {"y": [1, 2]}}}) == {"a": 1, "walk.x": 0.1, "walk.set.y": [1, 2]}


def test_node_section_overrides_wildcard(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("/**:\n  ros__parameters:\n    a: 1\n    b: 2\nmotion:\n  ros__parameters:\n    b: 3\n")
    assert load_parameters(f) == {"a": 1, "b": 2}
    assert load_parameters(f, "motion") == {"a": 1, "b": 3}


@pytest.mark.parametrize("text, words", [("a: [", "not valid YAML"), ("- 1\n", "expected a mapping"),
                                          ("/**:\n  x: 1\n", "no 'ros__parameters'")])
def test_bad_files_say_what_is_wrong(tmp_path, text, words):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ParameterFileError, match=words):
        load_parameters(f)
    with pytest.raises(ParameterFileError, match="no such parameter file"):
        load_parameters(tmp_path / "missing.yaml")


def test_declare_uses_file_defaults_and_keeps_overrides(tmp_path, monkeypatch):
    f = tmp_path / "motion.yaml"
    f.write_text("/**:\n  ros__parameters:\n    cycle: 0.02\n    head:\n      kp: 20.0\n")
    monkeypatch.setattr("villa_nao.params.config_path", lambda package, filename: f)

    class FakeParam:
        def __init__(self, value):
            self.value = value

    class Node:  # what a rclpy node does on declare: an override given at construction wins
        overrides = {"head.kp": 99.0}

        def declare_parameter(self, name, default):
            return FakeParam(self.overrides.get(name, default))

    assert declare_from_yaml(Node(), "villa_motion", "motion.yaml") == {"cycle": 0.02, "head.kp": 99.0}


def test_package_data_comes_from_the_ament_index_and_never_the_source_tree(tmp_path, monkeypatch):
    # an install that has villa_motion's skills but not its kicks, and no villa_nao at all
    prefix = tmp_path / "install"
    marker = prefix / "share" / "ament_index" / "resource_index" / "packages" / "villa_motion"
    marker.parent.mkdir(parents=True)
    marker.touch()
    (prefix / "share" / "villa_motion" / "skills").mkdir(parents=True)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    assert share_path("villa_motion", "skills") == prefix / "share" / "villa_motion" / "skills"
    with pytest.raises(PackageDataError, match=r"share/villa_motion/kicks is not installed -- rebuild"):
        share_path("villa_motion", "kicks")               # the source tree has kicks/: it must not be used
    with pytest.raises(PackageDataError, match="villa_nao is not in the ament index .* source its install/setup"):
        config_path("villa_nao", "pd_gains.yaml")


def test_per_simulator_overlays_replace_what_differs(tmp_path):
    """walk_params.simspark.yaml beside walk_params.yaml: its fields win on SimSpark only; skills are replaced whole;
    a kick set's values too."""
    from villa_motion import kick as KK
    from villa_motion.params import load_parameter_sets, load_skill_variables
    from villa_nao.params import overlay_path

    base = tmp_path / "walk_params.yaml"
    base.write_text("sets:\n  goToTarget: {max_step_x: 0.05, phase_length: 0.3}\n  sprint: {inherit: goToTarget}\n")
    (tmp_path / "walk_params.simspark.yaml").write_text("sets:\n  goToTarget: {max_step_x: 0.07}\n")
    assert overlay_path(base, "villa") is None                   # the file itself is villa sim's
    assert load_parameter_sets(base)["goToTarget"].max_step_x == 0.05
    ss = load_parameter_sets(base, "simspark")
    assert ss["goToTarget"].max_step_x == 0.07 and ss["goToTarget"].phase_length == 0.3
    assert ss["sprint"].max_step_x == 0.05                      # the overlay names goToTarget only
    for bad in ("gazebo", "rcssservermj", "", None):
        with pytest.raises(ValueError, match="unknown world .*; known: villa, simspark, naoqi"):
            load_parameter_sets(base, bad)
    skills = tmp_path / "skill_params.yaml"
    skills.write_text("getup_back: {a1: 1, a2: 2}\nstand: {x: 3}\n")
    (tmp_path / "skill_params.simspark.yaml").write_text("getup_back: {b1: 5}\n")
    assert load_skill_variables(skills, "simspark") == {"getup_back": {"b1": 5.0}, "stand": {"x": 3.0}}
    # per robot type: base common < base type < overlay common < overlay type; other types keep the common skills
    skills.write_text("getup_back: {a1: 1}\nstand: {x: 3}\nrobot_types:\n  1: {stand: {x: 4}, getup_back: {a1: 2}}\n")
    (tmp_path / "skill_params.simspark.yaml").write_text("getup_back: {b1: 5}\nrobot_types:\n  2: {stand: {x: 6}}\n")
    assert load_skill_variables(skills, "villa", 1) == {"getup_back": {"a1": 2.0}, "stand": {"x": 4.0}}
    assert load_skill_variables(skills, "simspark", 1) == {"getup_back": {"b1": 5.0}, "stand": {"x": 4.0}}
    assert load_skill_variables(skills, "simspark", 2) == {"getup_back": {"b1": 5.0}, "stand": {"x": 6.0}}
    assert load_skill_variables(skills, "simspark", 0) == {"getup_back": {"b1": 5.0}, "stand": {"x": 3.0}}
    skills.write_text("robot_types:\n  7: {stand: {x: 4}}\n")
    with pytest.raises(ValueError, match="robot type 0..4"):
        load_skill_variables(skills)
    skills.write_text("robot_types:\n  1: {stand: {x: fast}}\n")
    with pytest.raises(ValueError, match="robot_types.1: every value must be a number"):
        load_skill_variables(skills)
    kicks = tmp_path / "kick_params.yaml"
    kicks.write_text("sets:\n  tuned:\n    forward: {duration: 0.3, lift: 0.01}\n")
    (tmp_path / "kick_params.simspark.yaml").write_text("sets:\n  tuned:\n    forward: {duration: 0.6}\n")
    plain, ss = KK.load_kick_set("tuned", params_path=kicks), KK.load_kick_set("tuned", params_path=kicks,
                                                                                simulator="simspark")
    assert plain["forward_L"].duration == pytest.approx(0.3) and ss["forward_L"].duration == pytest.approx(0.6)
    assert ss["forward_R"].lift == pytest.approx(plain["forward_R"].lift)
