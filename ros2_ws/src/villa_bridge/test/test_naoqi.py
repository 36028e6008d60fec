"""The NAOqi bridge through the real libqi protocol: a standalone qi.Session on loopback hosts test doubles of
ALMotion, ALMemory, ALRobotPosture and DCM that record calls and serve sensor values (integration)."""

import math
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from villa_bridge import naoqi as N
from villa_bridge.naoqi_doubles import serve
from villa_sim.testing import free_ports

pytestmark = pytest.mark.integration


@pytest.fixture
def robot():
    server, fakes = serve()
    yield server.endpoints()[0], fakes, server
    server.close()


def test_targets_arrive_with_naoqi_names_limits_and_the_coupled_hip(robot):
    url, fakes, _ = robot
    body = N.NaoqiBody(N.connect(url, 2.0), "setangles", 0.4)
    sent = body.command({"HeadYaw": 0.3, "LKneePitch": 3.0, "LHipYawPitch": -0.2, "RHipYawPitch": -0.4,
                         "Nonsense": 1.0, "HeadPitch": float("nan")})
    call = fakes["ALMotion"].calls[-1]
    assert call[0] == "setAngles" and call[3] == pytest.approx(0.4)
    got = dict(zip(call[1], call[2], strict=True))
    assert got["HeadYaw"] == pytest.approx(0.3)
    assert got["LKneePitch"] == pytest.approx(math.radians(121.04))         # physical limit
    assert got["LHipYawPitch"] == pytest.approx(-0.3) and "RHipYawPitch" not in got   # one motor, the mean
    assert "Nonsense" not in got and "HeadPitch" not in got and sent == got


def test_dcm_mode_uses_an_alias_and_timed_commands(robot):
    url, fakes, _ = robot
    body = N.NaoqiBody(N.connect(url, 2.0), "dcm")
    body.command({"HeadYaw": 0.1})
    alias = fakes["DCM"].aliases[0]
    assert alias[0] == "villa_joints" and len(alias[1]) == len(N.COMMANDED)
    cmd = fakes["DCM"].sets[-1]
    assert cmd[:4] == ["villa_joints", "ClearAll", "time-separate", 0] and cmd[4] == [1000 + 20]
    assert cmd[5][N.COMMANDED.index("HeadYaw")] == [pytest.approx(0.1)]


def test_sensors_come_out_in_si_units(robot):
    url, fakes, _ = robot
    mem = fakes["ALMemory"].values
    mem["Device/SubDeviceList/LKneePitch/Position/Sensor/Value"] = 0.5
    mem["Device/SubDeviceList/LHipYawPitch/Position/Sensor/Value"] = -0.1
    mem["Device/SubDeviceList/InertialSensor/AccelerometerZ/Sensor/Value"] = -9.81
    mem["Device/SubDeviceList/InertialSensor/GyroscopeX/Sensor/Value"] = 0.2
    for c in N.FSR_CELLS:
        mem[f"Device/SubDeviceList/LFoot/FSR/{c}/Sensor/Value"] = 0.6
    r = N.NaoqiBody(N.connect(url, 2.0)).read()
    pos = dict(zip(r.names, r.positions, strict=True))
    assert pos["LKneePitch"] == 0.5 and pos["RHipYawPitch"] == -0.1
    assert r.acc == pytest.approx([0, 0, 9.81]) and r.gyro[0] == pytest.approx(0.2)
    contact, cop, force = r.foot("L")
    assert contact and force[2] == pytest.approx(4 * 0.6 * N.G) and abs(cop[1]) < 0.01
    assert r.foot("R")[0] is False


def test_closing_the_body_closes_its_session(robot):
    url, _, _ = robot
    session = N.connect(url, 2.0)
    body = N.NaoqiBody(session)
    assert session.isConnected()
    body.close()
    assert not session.isConnected() and body.session is None and body.motion is None
    body.close()                                          # twice: nothing left to close


def test_unreachable_address_fails_within_the_timeout():
    t0 = time.monotonic()
    with pytest.raises(N.NaoqiError, match="tcp://127.0.0.1:1"):
        N.connect("tcp://127.0.0.1:1", 1.0)
    assert time.monotonic() - t0 < 2.0


def _wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not condition():
        time.sleep(0.02)
    return condition()


def test_no_robot_at_the_address_bounded_retry_then_one_line_and_the_node_stays_up(ros_domain):
    port = free_ports(1)[0]                      # nothing listens there
    cmd = [sys.executable, "-m", "villa_bridge.naoqi_node", "--ros-args", "-r", "__ns:=/villa/p3",
           "-p", "nao_ip:=127.0.0.1", "-p", f"port:={port}", "-p", "max_attempts:=3", "-p", "retry_initial:=0.1",
           "-p", "retry_max:=0.2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        assert _wait(lambda: any("giving up" in ln for ln in lines) or proc.poll() is not None, 60), "".join(lines)
        time.sleep(0.5)                          # nothing follows the give-up: no exit, no further attempt
        assert proc.poll() is None, "".join(lines)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(timeout=5)
        proc.stdout.close()
    text = "".join(lines)
    assert proc.returncode == 0 and "Traceback" not in text, text
    attempts = [ln for ln in lines if "retrying in" in ln]
    assert len(attempts) == 2 and "attempt 1 of 3" in attempts[0] and "attempt 2 of 3" in attempts[1], text
    (give_up,) = [ln for ln in lines if "giving up" in ln]
    assert f"tcp://127.0.0.1:{port}" in give_up and "after 3 attempts" in give_up
    assert "switched on" in give_up and "127.0.0.1 is its address" in give_up and "restart this player" in give_up


def test_watchdog():
    w = N.Watchdog(0.2)
    assert not w.check(10.0)            # nothing commanded yet
    w.feed(10.0)
    assert not w.check(10.15)
    assert w.check(10.25) and not w.check(10.3)   # fires once
    w.feed(10.4)
    assert not w.check(10.5)


def test_node_publishes_watchdog_fires_and_reconnects(robot, ros_domain):
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import Imu, JointState

    from villa_bridge.naoqi_node import NaoqiBridgeNode
    from villa_msgs.msg import GameState, JointCommand

    url, fakes, server = robot
    host, port = url.removeprefix("tcp://").split(":")
    rclpy.init()
    try:
        node = NaoqiBridgeNode(namespace="/villa/p3", parameter_overrides=[
            Parameter("nao_ip", value=host), Parameter("port", value=int(port)), Parameter("unum", value=3),
            Parameter("retry_initial", value=0.5)])
        probe = rclpy.create_node("probe", namespace="/villa/p3")
        got = {"js": [], "imu": [], "gs": []}
        probe.create_subscription(JointState, "joint_states", lambda m: got["js"].append(m), 5)
        probe.create_subscription(Imu, "imu", lambda m: got["imu"].append(m), 5)
        probe.create_subscription(GameState, "game_state", lambda m: got["gs"].append(m), 5)
        pub = probe.create_publisher(JointCommand, "joint_targets", 5)
        ex = SingleThreadedExecutor()
        ex.add_node(node)
        ex.add_node(probe)
        threading.Thread(target=ex.spin, daemon=True).start()
        assert _wait(lambda: node.body is not None, 10)      # connecting runs in a thread of its own
        assert ("wakeUp",) in fakes["ALMotion"].calls
        t0 = time.monotonic()
        while time.monotonic() - t0 < 1.5:
            pub.publish(JointCommand(name=["HeadYaw"], position=[0.2]))
            time.sleep(0.02)
        assert got["js"] and len(got["js"][-1].name) == 22 and got["gs"][-1].unum == 3
        assert any(c[0] == "setAngles" and c[1] == ["HeadYaw"] for c in fakes["ALMotion"].calls)
        rate = node.reads / (time.monotonic() - t0)
        assert rate > 20                                   # ~50 Hz requested
        time.sleep(0.5)                                    # targets stopped: the watchdog crouches the robot
        assert fakes["ALRobotPosture"].calls[-1][0] == "Crouch"
        assert ("setStiffnesses", "Body", 0.3) in fakes["ALMotion"].calls
        ex.shutdown()
        node.destroy_node()
        assert fakes["ALMotion"].calls[-1] == ("rest",)
        probe.destroy_node()
    finally:
        rclpy.try_shutdown()


def test_dropped_session_reconnects(ros_domain):
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from villa_bridge.naoqi_node import NaoqiBridgeNode

    first, _ = serve("tcp://127.0.0.1:0", dcm=False)
    host, port = first.endpoints()[0].removeprefix("tcp://").split(":")
    rclpy.init()
    try:
        node = NaoqiBridgeNode(namespace="/villa/p4", parameter_overrides=[
            Parameter("nao_ip", value=host), Parameter("port", value=int(port)), Parameter("retry_initial", value=0.3),
            Parameter("retry_max", value=0.3), Parameter("max_attempts", value=0),   # a lost robot: keep trying
            Parameter("connect_timeout_s", value=0.5)])
        ex = SingleThreadedExecutor()
        ex.add_node(node)
        spinner = threading.Thread(target=ex.spin, daemon=True)
        spinner.start()
        assert _wait(lambda: node.body is not None, 10)
        first.close()                                            # the robot goes away
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and node.body is not None:
            time.sleep(0.05)
        assert node.body is None
        second, fakes = serve(f"tcp://127.0.0.1:{port}", dcm=False)         # and comes back on the same address
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and node.body is None:
            time.sleep(0.05)
        assert node.body is not None and ("wakeUp",) in fakes["ALMotion"].calls
        ex.shutdown()
        spinner.join(timeout=5)                  # no timer callback still running when the node goes
        node.destroy_node()
        second.close()
    finally:
        rclpy.try_shutdown()
