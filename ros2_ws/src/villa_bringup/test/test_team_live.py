"""`villa team` against `villa sim`: two players come up one at a time, both send joint targets, Ctrl-C leaves
nothing running; a bad configuration stops with one line (integration)."""

import os
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest
import yaml

from villa_sim.testing import SimProcess

pytestmark = pytest.mark.integration


def _team_yaml(tmp_path, port, composition="player"):
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump({"team": "villa", "server": {"host": "127.0.0.1", "port": port},
                                    "composition": composition, "stagger": 0.2,
                                    "players": [{"unum": 1, "robot_type": 0}, {"unum": 2, "robot_type": 1}]}))
    return path


def _targets_seen(topics, timeout):
    """Subscribe to joint_targets of both players; return the set of topics that delivered within timeout."""
    import rclpy
    from rclpy.context import Context

    from villa_msgs.msg import JointCommand

    ctx = Context()
    rclpy.init(context=ctx)
    node = rclpy.create_node("team_test", context=ctx)
    got: dict[str, JointCommand] = {}
    for t in topics:
        node.create_subscription(JointCommand, t, lambda m, t=t: got.setdefault(t, m), 5)
    deadline = time.monotonic() + timeout
    from rclpy.executors import SingleThreadedExecutor

    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(node)
    while time.monotonic() < deadline and len(got) < len(topics):
        ex.spin_once(timeout_sec=0.1)
    node.destroy_node()
    rclpy.try_shutdown(context=ctx)
    return got


@pytest.mark.parametrize("composition", ["player", "node"])
def test_two_players_send_joint_targets_and_ctrl_c_leaves_nothing(tmp_path, ros_domain, composition):
    with SimProcess(noise=False) as sim:
        cfg = _team_yaml(tmp_path, sim.agent_port, composition)
        proc = subprocess.Popen([sys.executable, "-m", "villa_bringup.cli", "team", "--config", str(cfg),
                                 "--log-dir", str(tmp_path / "logs")], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        out: list[str] = []
        reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
        reader.start()
        try:
            got = _targets_seen(["/villa/p1/joint_targets", "/villa/p2/joint_targets"], timeout=60)
            assert set(got) == {"/villa/p1/joint_targets", "/villa/p2/joint_targets"}, "".join(out)
            assert len(got["/villa/p1/joint_targets"].name) == 22
            children = psutil.Process(proc.pid).children(recursive=True)
            assert len(children) >= (2 if composition == "player" else 10)
            # the supervisor may see player 2's confirmation a little after we saw its targets: wait for it
            deadline = time.monotonic() + 30
            while "confirmed player 2" not in "".join(out) and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            os.killpg(proc.pid, signal.SIGINT) if proc.poll() is None else None
            proc.wait(timeout=30)
            reader.join(timeout=5)
        text = "".join(out)
        assert proc.returncode == 0, text
        assert "the server confirmed player 1" in text and "the server confirmed player 2" in text
        assert text.index("confirmed player 1") < text.index("/villa/p2: started")  # one at a time
        assert "no process left running" in text
        assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
        assert (tmp_path / "logs" / "villa" / "p1").is_dir()


def test_bad_configuration_is_one_line_and_exit_2(tmp_path):
    cfg = tmp_path / "team.yaml"
    cfg.write_text("team: villa\nbackend: gazebo\nplayers: [{unum: 1}]\n")
    r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "team", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "backend" in lines[0] and "villa, simspark, naoqi" in lines[0]
