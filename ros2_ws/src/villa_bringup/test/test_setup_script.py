"""scripts/setup.sh stops with one clear line and leaves no stamp that would pass for a good setup."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
pytestmark = pytest.mark.integration


def _copy_scripts(dst: Path) -> None:
    (dst / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "setup.sh", dst / "scripts" / "setup.sh")
    shutil.copy(REPO / "requirements.txt", dst / "requirements.txt")
    shutil.copytree(REPO / "third_party", dst / "third_party")      # the archives setup.sh builds (tf2_msgs)
    (dst / "ros2_ws" / "src").mkdir(parents=True)


def _run(root: Path, env_extra: dict, timeout=180):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    env.update(env_extra)
    return subprocess.run(["bash", str(root / "scripts" / "setup.sh")], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_unsupported_python_is_refused_in_one_line(tmp_path):
    _copy_scripts(tmp_path)
    fake = tmp_path / "python3.9"
    fake.write_text("#!/bin/sh\necho 3.9\n")
    fake.chmod(0o755)
    res = _run(tmp_path, {"VILLA_PYTHON": str(fake)})
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Python 3.9" in lines[0] and "not supported" in lines[0]
    assert not (tmp_path / ".venv").exists()


def test_unreachable_registry_leaves_no_ready_stamp(tmp_path):
    _copy_scripts(tmp_path)
    res = _run(tmp_path, {
        "PIP_CONFIG_FILE": os.devnull,              # ignore the machine's mirrors and wheel folders
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",  # nothing listens on port 9
        "PIP_RETRIES": "0", "PIP_TIMEOUT": "2",
    })
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1
    assert "cannot be reached" in res.stderr and "rerun" in res.stderr
    assert not (tmp_path / ".venv" / ".villa-ready").exists()


def test_failed_colcon_build_names_the_package_and_leaves_no_build_stamp(tmp_path):
    _copy_scripts(tmp_path)
    (tmp_path / ".venv").symlink_to(REPO / ".venv")  # the good environment, so only the build fails
    pkg = tmp_path / "ros2_ws" / "src" / "broken_pkg"
    pkg.mkdir()
    (pkg / "package.xml").write_text(
        '<?xml version="1.0"?><package format="3"><name>broken_pkg</name><version>0.0.0</version>'
        "<description>d</description><maintainer email=\"dev@example.org\">m</maintainer>"
        "<license>Apache-2.0</license><buildtool_depend>ament_cmake</buildtool_depend>"
        "<export><build_type>ament_cmake</build_type></export></package>"
    )
    cmake = "cmake_minimum_required(VERSION 3.8)\nproject(broken_pkg)\nthis is not cmake(\n"
    (pkg / "CMakeLists.txt").write_text(cmake)
    res = _run(tmp_path, {})
    assert res.returncode == 1, res.stdout + res.stderr
    assert "colcon build failed for: broken_pkg" in res.stderr
    assert not (tmp_path / "ros2_ws" / "install" / ".villa-built").exists()


def test_launch_kit_without_its_sources_says_so_in_one_line(tmp_path):
    # what a fresh clone without ../shared/ros2_launch_kit gets: the launch tests skip with this line as the reason
    res = subprocess.run(["bash", str(REPO / "scripts" / "launch_kit.sh")], capture_output=True, text=True,
                         env={**os.environ, "VILLA_LAUNCH_KIT": str(tmp_path / "absent")}, timeout=60)
    assert res.returncode == 3 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and str(tmp_path / "absent") in lines[0] and "VILLA_LAUNCH_KIT" in lines[0]
