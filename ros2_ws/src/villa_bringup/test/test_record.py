"""`villa record` writes MCAP with ROS 2 encoding that mcap_ros2 reads back with the right values (integration)."""

import re
import signal
import subprocess
import sys
import threading
import time

import pytest

pytestmark = pytest.mark.integration


def test_record_std_and_villa_messages_and_read_them_back(tmp_path, ros_domain):
    import rclpy
    from geometry_msgs.msg import Pose2D
    from mcap_ros2.reader import read_ros2_messages

    from villa_msgs.msg import GameState, TrackedObject, WorldModel

    out = tmp_path / "t.mcap"
    rclpy.init()
    node = rclpy.create_node("pub", namespace="/villa/p1")
    pubs = {"game_state": node.create_publisher(GameState, "game_state", 10),
            "beam": node.create_publisher(Pose2D, "beam", 10),
            "world_model": node.create_publisher(WorldModel, "world_model", 10)}
    stop = threading.Event()

    def publish():
        k = 0
        while not stop.is_set():
            k += 1
            pubs["game_state"].publish(GameState(play_mode=GameState.PLAY_ON, game_time=float(k), unum=1,
                                                 team_name="villa"))
            pubs["beam"].publish(Pose2D(x=-1.5, y=float(k), theta=0.25))
            wm = WorldModel(localized=True)
            wm.self_pose.x = 2.0
            wm.teammates.append(TrackedObject(unum=3))
            pubs["world_model"].publish(wm)
            time.sleep(0.05)

    t = threading.Thread(target=publish, daemon=True)
    t.start()
    # Stopped with Ctrl-C once its progress line shows messages on all three topics: discovery takes seconds on a
    # loaded machine, so a fixed --duration could end before the first message arrived.
    proc = subprocess.Popen([sys.executable, "-m", "villa_bringup.cli", "record", "-o", str(out), "/villa/p1/.*"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    watchdog = threading.Timer(60.0, proc.kill)
    watchdog.start()
    try:
        for line in proc.stdout:
            lines.append(line)
            m = re.search(r"(\d+) messages on (\d+) topics", line)
            if m and int(m.group(1)) >= 10 and int(m.group(2)) >= 3:
                proc.send_signal(signal.SIGINT)
                break
        stdout, stderr = proc.communicate(timeout=30)
        lines.append(stdout)
    finally:
        watchdog.cancel()
        proc.kill()
        stop.set()
        t.join()
        node.destroy_node()
        rclpy.try_shutdown()
    text = "".join(lines)
    assert proc.returncode == 0, text + stderr
    assert "recording /villa/p1/world_model" in text
    assert "wrote" in text
    got = {}
    for m in read_ros2_messages(str(out)):
        got.setdefault(m.channel.topic, []).append(m.ros_msg)
    assert {"/villa/p1/game_state", "/villa/p1/beam", "/villa/p1/world_model"} <= set(got)
    gs = got["/villa/p1/game_state"][-1]
    assert gs.team_name == "villa" and gs.play_mode == 4 and gs.game_time >= 1.0
    assert got["/villa/p1/beam"][-1].x == pytest.approx(-1.5) and got["/villa/p1/beam"][-1].theta == 0.25
    wm = got["/villa/p1/world_model"][-1]
    assert wm.localized and wm.self_pose.x == 2.0 and wm.teammates[0].unum == 3


def test_record_errors(tmp_path, ros_domain):
    f = tmp_path / "x.mcap"
    f.write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "record", "-o", str(f), "/a"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "exists" in r.stderr
    r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "record", "-o", str(tmp_path / "y.mcap"),
                        "/nothing/here", "--wait", "2"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "no topic matches /nothing/here" in r.stderr
