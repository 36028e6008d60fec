"""Fixtures for the ROS user's path (docs/developing.md): a workspace built the way a ROS distro user builds it
(plain `colcon build`, no --symlink-install), and ROS 2's launch and command-line tools from their upstream sources
(scripts/launch_kit.sh; the tests that need them skip, saying why, where ../shared/ros2_launch_kit is absent)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]


def sourced(script: Path, env: dict[str, str]) -> dict[str, str]:
    """`env` after `. script` in bash (a colcon setup.bash, the launch kit's env.sh)."""
    out = subprocess.run(["bash", "-c", 'set +u; . "$0" >/dev/null && env -0', str(script)], env=env,
                         capture_output=True, check=True, timeout=60).stdout.decode()
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


@pytest.fixture(scope="session")
def launch_kit() -> dict[str, str]:
    """This environment with `ros2` (launch, launch_ros, ros2cli) on top, built once per checkout."""
    res = subprocess.run([str(REPO / "scripts" / "launch_kit.sh")], capture_output=True, text=True, timeout=900)
    if res.returncode == 3:
        pytest.skip(f"ROS 2 launch tools not available: {res.stderr.strip()}")
    assert res.returncode == 0, res.stderr
    return sourced(REPO / ".villa-launch-kit" / "env.sh", dict(os.environ))


@pytest.fixture(scope="session")
def plain_workspace(tmp_path_factory) -> Path:
    """ros2_ws built with a plain `colcon build` (no --symlink-install) over this checkout's install (the underlay
    for villa_msgs, an ament_cmake package that installs the same either way); returns its install/ directory."""
    base = tmp_path_factory.mktemp("plain_ws")
    cmd = ["colcon", "--log-base", str(base / "log"), "build", "--base-paths", str(REPO / "ros2_ws" / "src"),
           "--build-base", str(base / "build"), "--install-base", str(base / "install"),
           "--packages-skip", "villa_msgs", "--event-handlers", "console_direct-"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=base)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return base / "install"


@pytest.fixture(scope="session")
def plain_env(plain_workspace) -> dict[str, str]:
    """This environment with the plain workspace sourced on top (its packages first)."""
    return sourced(plain_workspace / "setup.bash", dict(os.environ))


@pytest.fixture(scope="session")
def bash_source():
    """sourced(script, env): `env` after `. script` in bash."""
    return sourced
