"""villa_nao.params: parameter files in ROS 2's form, flattened and declared with their defaults."""

import pytest

from villa_nao.params import ParameterFileError, declare_from_yaml, flatten, load_parameters


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
