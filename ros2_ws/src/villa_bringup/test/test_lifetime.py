"""A `villa match` or `villa games` that is killed with SIGKILL (or crashes) takes its servers, players and workers
with it: its own clean stop never runs then (villa_sim.lifetime)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from villa_sim.testing import dds_port_segments, outlives_killed_parent, remove_stale_dds_ports


@pytest.fixture(autouse=True)
def _dds_segments_of_killed_nodes():
    """A node killed with SIGKILL cannot remove its Fast DDS shared memory: the test does (after `fastdds shm clean`,
    the port segments that only such a node used are still there)."""
    before = dds_port_segments()
    yield
    remove_stale_dds_ports(before)


def _kill_and_count_survivors(cmd: list[str], ready, timeout: float = 120.0) -> tuple[list[str], list[str]]:
    """Start `cmd`, wait until `ready(descendants)` holds, SIGKILL that process alone (not its group), and return
    (the command lines it had started, those still running 20 s later)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    kids: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + timeout
        while not ready(kids):
            assert p.poll() is None, f"{cmd} exited with {p.returncode} before it was ready"
            assert time.monotonic() < deadline, f"{cmd}: not ready within {timeout:.0f} s: {_lines(kids)}"
            time.sleep(0.2)
            kids = psutil.Process(p.pid).children(recursive=True)
        started = _lines(kids)
        p.kill()
        p.wait()
        _, alive = psutil.wait_procs(kids, timeout=20)
        return started, _lines(alive)
    finally:                                     # the test's own clean-up, whatever happened
        if p.poll() is None:
            p.kill()
        for k in kids:
            try:
                k.kill()
            except psutil.NoSuchProcess:
                pass


def _lines(procs) -> list[str]:
    out = []
    for k in procs:
        try:
            out.append(" ".join(k.cmdline()[:4]))
        except psutil.NoSuchProcess:
            pass
    return out


def _running(kids, needle: str) -> int:
    return len(_lines([k for k in kids if needle in " ".join(_lines([k]))]))


def test_a_match_killed_with_sigkill_leaves_no_server_or_player(tmp_path, ros_domain):
    cmd = [sys.executable, "-m", "villa_bringup.cli", "match", "--players", "1", "--duration", "300",
           "--log-dir", str(tmp_path)]
    started, alive = _kill_and_count_survivors(
        cmd, lambda kids: _running(kids, "villa_sim.cli") == 1 and _running(kids, "villa_bringup.player") == 2)
    assert any("villa_sim.cli" in c for c in started) and sum("villa_bringup.player" in c for c in started) == 2
    assert alive == [], alive


def test_games_killed_with_sigkill_leave_no_worker_or_server(tmp_path):
    cmd = [sys.executable, "-m", "villa_bringup.cli", "games", "--games", "4", "--jobs", "2", "--players", "1",
           "--duration", "300", "--socket", "--out", str(tmp_path)]
    started, alive = _kill_and_count_survivors(cmd, lambda kids: _running(kids, "villa_sim.cli") == 2)
    assert sum("villa_sim.cli" in c for c in started) == 2 and len(started) >= 4      # two workers, two servers
    assert alive == [], alive


def test_a_process_whose_parent_is_gone_before_it_asks_ends_at_once():
    """The parent-death signal set after the parent ended would never come: die_with_parent sends it itself."""
    code = ("import os, signal, time; from villa_sim.lifetime import die_with_parent; "
            "die_with_parent(os.getppid() + 1_000_000, signal.SIGTERM); time.sleep(60)")
    r = subprocess.run([sys.executable, "-c", code], timeout=30)
    assert r.returncode == -signal.SIGTERM


def test_a_child_started_with_tied_to_parent_ends_with_it():
    code = ("import subprocess, sys; from villa_sim.lifetime import tied_to_parent; "
            "c = subprocess.Popen(['sleep', '600'], preexec_fn=tied_to_parent()); print(c.pid, flush=True); "
            "sys.stdin.read()")
    assert not outlives_killed_parent(code, "sleep", timeout=10)


def _stopping(body: str) -> subprocess.Popen:
    """A process that calls stop_on_signals(1.0, 'probe'), prints 'ready' and runs `body` (with `stop` the event);
    numpy imported first, as in a player: its BLAS threads, which the kernel may pick to take the signal."""
    code = ("import numpy, sys, time; from villa_sim.lifetime import stop_on_signals; "
            "stop = stop_on_signals(1.0, 'probe'); "
            "print('ready', flush=True); " + body)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "ready\n"
    return p


def test_a_stop_signal_sets_the_stop_event_and_a_clean_stop_ends_the_process_normally():
    p = _stopping("stop.wait(30); print('clean', flush=True); sys.exit(3)")
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert (p.returncode, out, err) == (3, "clean\n", "")


def test_a_clean_stop_that_hangs_ends_after_the_grace_period():
    # the main thread in one long native call (a middleware call that never returns): no Python handler would run
    p = _stopping("stop.wait(30); time.sleep(60)")
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM and "probe: its clean stop took more than 1 s" in err, err


def test_a_second_signal_ends_the_process_at_once():
    p = _stopping("stop.wait(30); print('stopping', flush=True); time.sleep(60)")
    p.send_signal(signal.SIGINT)
    assert p.stdout.readline() == "stopping\n"        # the first one taken (two at once would merge into one)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGINT and "probe: a second SIGINT" in err, err
