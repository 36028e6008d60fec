"""Integration: two processes exchange a villa_msgs message over real Fast DDS."""

import json
import subprocess
import sys
import uuid

import pytest

pytestmark = pytest.mark.integration

PROBE = [sys.executable, "-m", "villa_bringup.dds_probe"]


def test_two_processes_exchange_a_game_state(ros_domain):
    topic = "/test_roundtrip"
    token = uuid.uuid4().hex[:10]
    talker = subprocess.Popen(PROBE + ["talk", "--topic", topic, "--token", token, "--timeout", "30"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        res = subprocess.run(PROBE + ["listen", "--topic", topic, "--timeout", "30"],
                             capture_output=True, text=True, timeout=60)
    finally:
        talker.terminate()
        talker.wait(timeout=10)
    assert res.returncode == 0, res.stdout + res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["team_name"] == token
    assert got["play_mode_name"] == "PlayOn"
    assert got["game_time"] == pytest.approx(12.34)
    assert (got["unum"], got["side"], got["score_own"], got["score_opp"]) == (7, 2, 2, 1)


def test_listener_times_out_cleanly_when_nobody_talks(ros_domain):
    res = subprocess.run(PROBE + ["listen", "--topic", "/nobody_talks_here", "--timeout", "1"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 3
    assert "nothing received" in json.loads(res.stdout.strip().splitlines()[-1])["error"]
