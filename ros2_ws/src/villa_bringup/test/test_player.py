"""The player process (composition: player) names every node after the team configuration, also when it is started
the way launch_ros starts a named Node (`--ros-args -r __node:=player -r __ns:=...`)."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import yaml

from villa_bringup.player import split_node_name_remaps


def test_global_node_name_remaps_are_taken_out():
    args = ["-r", "__node:=player", "-r", "__ns:=/villa/p1", "--remap", "__name:=x", "-r", "motion:__node:=m",
            "-p", "a:=1"]
    kept, dropped = split_node_name_remaps(args)
    assert kept == ["-r", "__ns:=/villa/p1", "-r", "motion:__node:=m", "-p", "a:=1"]
    assert dropped == ["-r __node:=player", "--remap __name:=x"]
    assert split_node_name_remaps([]) == ([], [])


@pytest.mark.integration
def test_player_started_like_a_named_launch_node_keeps_its_node_names(tmp_path, ros_domain):
    import rclpy
    from rclpy.context import Context

    cfg = tmp_path / "team.yaml"
    cfg.write_text(yaml.safe_dump({"team": "villa", "players": [{"unum": 1, "robot_type": 0}]}))
    proc = subprocess.Popen([sys.executable, "-m", "villa_bringup.player", "--config", str(cfg), "--unum", "1",
                             "--nodes", "perception,localization", "--ros-args", "-r", "__node:=player",
                             "-r", "__ns:=/villa/p1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    ctx = Context()
    rclpy.init(context=ctx)
    try:
        probe = rclpy.create_node("names_probe", context=ctx)
        names: set[tuple[str, str]] = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            names = {(ns, n) for n, ns in probe.get_node_names_and_namespaces() if ns == "/villa/p1"}
            if len(names) >= 2:
                break
            time.sleep(0.1)
        probe.destroy_node()
    finally:
        rclpy.try_shutdown(context=ctx)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert names == {("/villa/p1", "perception"), ("/villa/p1", "localization")}, out
    assert "ignoring -r __node:=player" in out and "Publisher already registered" not in out
    assert proc.returncode == 0, out


@pytest.mark.integration
def test_player_on_a_nao_that_is_not_there_says_so_once_and_stays_up(tmp_path, ros_domain):
    from villa_sim.testing import free_ports

    port = free_ports(1)[0]                      # no NAOqi listens there
    cfg = tmp_path / "team.yaml"
    cfg.write_text(yaml.safe_dump({"team": "villa", "players": [
        {"unum": 3, "robot_type": 0,
         "params": {"naoqi_bridge": {"max_attempts": 2, "retry_initial": 0.1, "retry_max": 0.1}}}]}))
    proc = subprocess.Popen([sys.executable, "-m", "villa_bringup.player", "--config", str(cfg), "--unum", "3",
                             "--nao", f"3@127.0.0.1:{port}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not any("giving up" in ln for ln in lines):
            time.sleep(0.05)
        time.sleep(0.5)
        alive = proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(timeout=5)
        proc.stdout.close()
    text = "".join(lines)
    assert alive, text                             # nothing for a supervisor to respawn
    assert "Traceback" not in text and proc.returncode == 0, text
    (give_up,) = [ln for ln in lines if "giving up" in ln]
    assert f"tcp://127.0.0.1:{port}" in give_up and "switched on" in give_up
