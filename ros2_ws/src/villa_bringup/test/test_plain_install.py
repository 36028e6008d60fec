"""A workspace built without --symlink-install (what a ROS distro user runs): every executable is where launch_ros and
`ros2 run` look, the package data comes from that install through the ament index, and the motion node started from
it finds its skills (integration; the launch tools are not needed here)."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

pytestmark = pytest.mark.integration


def test_plain_build_puts_executables_and_data_where_ros_looks(plain_workspace, plain_env):
    code = ("from villa_bringup import doctor; from villa_nao.params import share_path; c = doctor.check_install(); "
            "print(c.ok, c.detail); print(share_path('villa_motion', 'skills'))")
    res = subprocess.run([sys.executable, "-c", code], env=plain_env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    check, skills = res.stdout.strip().splitlines()
    assert check.startswith("True") and f"{plain_workspace}/villa_bringup" in check, check
    assert skills == f"{plain_workspace}/villa_motion/share/villa_motion/skills"
    for exe in ("villa_motion/lib/villa_motion/motion", "villa_bringup/lib/villa_bringup/player",
                "villa_bringup/bin/villa"):
        path = plain_workspace / exe
        assert path.is_file() and not path.is_symlink() and os.access(path, os.X_OK), path


def test_motion_node_of_a_plain_build_finds_its_skills(plain_workspace, plain_env, ros_domain, tmp_path):
    env = {**plain_env, "ROS_DOMAIN_ID": str(ros_domain), "ROS_LOG_DIR": str(tmp_path / "ros_log"),
           "PYTHONUNBUFFERED": "1"}
    exe = plain_workspace / "villa_motion" / "lib" / "villa_motion" / "motion"
    proc = subprocess.Popen([str(exe), "--ros-args", "-r", "__ns:=/villa/p1"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not any("skills" in ln for ln in lines):
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(timeout=5)
        proc.stdout.close()
    text = "".join(lines)
    assert "skills missing" not in text and proc.returncode == 0, text
    (started,) = [ln for ln in lines if "motion: robot type" in ln]
    assert "getup_back" in started and "kick" in started, started
