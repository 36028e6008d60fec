"""The bridge as its own process (console script in lib/villa_bridge): server not up -> one log line per retry;
Ctrl-C -> clean exit."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from villa_sim.testing import free_ports

pytestmark = pytest.mark.integration


def test_retries_then_exits_cleanly_on_sigint(ros_domain, tmp_path):
    from ament_index_python.packages import get_package_prefix

    # the console script where `ros2 run villa_bridge bridge` finds it (not on PATH, where `bridge` is iproute2's)
    cmd = [os.path.join(get_package_prefix("villa_bridge"), "lib", "villa_bridge", "bridge")]
    port = free_ports(1)[0]
    log = tmp_path / "bridge.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd + ["--ros-args", "-p", f"port:={port}", "-p", "retry_initial:=0.2",
                                       "-p", "retry_max:=0.4"], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and log.read_text().count("not reachable") < 3:
                time.sleep(0.2)
            os.killpg(proc.pid, signal.SIGINT)
            rc = proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    text = log.read_text()
    assert text.count("not reachable") >= 3, text
    assert f"127.0.0.1:{port} not reachable" in text and "retrying in" in text
    assert "Traceback" not in text, text
    assert rc == 0, text


def test_bad_parameters_are_refused_with_a_clear_error(ros_domain):
    import rclpy
    from rclpy.parameter import Parameter

    from villa_bridge.node import BridgeNode

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    try:
        with pytest.raises(ValueError, match="backend must be"):
            BridgeNode(context=ctx, parameter_overrides=[Parameter("backend", value="ode")])
        with pytest.raises(ValueError, match="robot type"):
            BridgeNode(context=ctx, parameter_overrides=[Parameter("backend", value="simspark"),
                                                         Parameter("robot_type", value=7)])
        with pytest.raises(ValueError, match="team name"):
            BridgeNode(context=ctx, parameter_overrides=[Parameter("team", value="a b")])
    finally:
        rclpy.try_shutdown(context=ctx)
