"""docker/ cannot be built here (no engine): check it names files, commands and configurations that exist."""

import re
from pathlib import Path

import yaml

from villa_bringup.team_config import load

ROOT = Path(__file__).resolve().parents[4]


def test_dockerfile_copies_and_runs_what_exists():
    text = (ROOT / "docker" / "Dockerfile").read_text()
    assert text.startswith("#") and "FROM ros:kilted" in text
    for src in re.findall(r"^COPY (\S+)", text, flags=re.M):
        assert (ROOT / src).exists(), src
    pins = dict(re.findall(r"([a-z0-9-]+)==([\d.]+)", text))
    req = dict(re.findall(r"^([A-Za-z0-9-]+)==([\d.]+)", (ROOT / "requirements.txt").read_text(), flags=re.M))
    for name, version in pins.items():
        assert req.get(name) == version, f"{name}=={version} differs from requirements.txt"
    assert "team.launch.py" in text and (ROOT / "ros2_ws/src/villa_bringup/launch/team.launch.py").exists()


def test_compose_services_and_team_configs():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    assert {"sim", "villa", "opponent"} <= set(compose["services"])
    assert compose["services"]["sim"]["command"][:2] == ["villa", "sim"]
    cfg = load(ROOT / "docker" / "allball.yaml")
    assert cfg.variant == "allball" and cfg.team != "villa"
