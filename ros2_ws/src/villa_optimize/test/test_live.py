"""Live: an evaluation on a real `villa sim`, the command line, Ctrl-C leaves no simulator (integration)."""

import math
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize.tasks import get_task
from villa_optimize.worlds import VillaSocketWorld

pytestmark = pytest.mark.integration


def test_go_to_target_on_villa_sim_with_the_shipped_set():
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    world = VillaSocketWorld()
    try:
        sim_pid = world.server.pid
        r = world.run(get_task("goToTarget").truncated(4.0), sets)
    finally:
        world.close()
    assert math.isfinite(r.fitness) and not r.fell
    assert 4.5 <= r.sim_time <= 6.0
    assert r.utilities[0][0] == "waypoint" and r.utilities[0][1] > 0.5      # walked toward the first target
    assert not psutil.pid_exists(sim_pid) or psutil.Process(sim_pid).status() == psutil.STATUS_ZOMBIE


def test_a_worker_told_to_stop_mid_evaluation_stops_instead_of_failing_the_evaluation(monkeypatch):
    """SIGTERM raises SystemExit in the worker, inside an episode's cycle: it leaves run_episode as itself, so the
    worker stops (a RuntimeError would count as a failed evaluation and be retried on a fresh simulator)."""
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    world = VillaSocketWorld()

    def told_to_stop(*_):
        raise SystemExit(0)

    try:
        monkeypatch.setattr(world, "_episode_cycle", told_to_stop)
        with pytest.raises(SystemExit):
            world.run(get_task("goToTarget").truncated(1.0), sets)
        monkeypatch.setattr(world, "_episode_cycle", lambda *_: 1 / 0)
        with pytest.raises(RuntimeError, match="evaluation failed: ZeroDivisionError"):
            world.run(get_task("goToTarget").truncated(1.0), sets)
    finally:
        world.close()


def _villa(*args, **kw):
    return subprocess.run([sys.executable, "-m", "villa_bringup.cli", "optimize", *args], capture_output=True,
                          text=True, timeout=120, **kw)


def test_command_line_errors(tmp_path):
    r = _villa("walk", "--task", "nope", "--out", str(tmp_path))
    assert r.returncode == 2 and "unknown walk task 'nope'" in r.stderr
    r = _villa("walk", "--popsize", "x", "--out", str(tmp_path))
    assert r.returncode == 2 and "--popsize" in r.stderr
    r = _villa("walk", "--resume", "--out", str(tmp_path / "none"))
    assert r.returncode == 2 and "no saved run" in r.stderr
    r = _villa()
    assert r.returncode == 2


def _alive(procs):
    return [p.pid for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_ctrl_c_stops_workers_and_their_sims_and_keeps_results(tmp_path):
    """With --socket each worker runs its own `villa sim`: Ctrl-C stops both, and the generations done are kept."""
    out = tmp_path / "run"
    p = subprocess.Popen([sys.executable, "-m", "villa_bringup.cli", "optimize", "walk", "--socket", "--generations",
                          "50", "--popsize", "2", "--workers", "2", "--time-limit", "2", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    kids = []
    try:
        deadline = time.monotonic() + 120
        while not (out / "history.jsonl").exists():            # at least one generation done
            assert p.poll() is None and time.monotonic() < deadline, p.stdout.read() if p.poll() is not None else ""
            time.sleep(0.2)
        kids = psutil.Process(p.pid).children(recursive=True)
        sims = [k for k in kids if "villa_sim" in " ".join(k.cmdline())]
        assert len(sims) == 2
        os.killpg(p.pid, signal.SIGINT)                         # what Ctrl-C in a terminal does
        text, _ = p.communicate(timeout=60)
        psutil.wait_procs(kids, timeout=5)                      # zombies of the workers count as gone
        left = _alive(kids)
    finally:                                                    # the test's own clean-up, whatever happened
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        for k in kids:
            if k.is_running():
                k.kill()
    assert p.returncode == 130, text
    assert "interrupted" in text and "--resume" in text
    assert left == []
    assert (out / "state.pkl").exists() and (out / "walk_params.yaml").exists()
    load_parameter_sets(out / "walk_params.yaml")


def test_kick_task_approaches_from_the_arc_and_kicks_toward_the_target_in_process():
    """§13.2 with the game's approach (behaviours.kick_approach): from the middle and both ends of the half circle
    the robot reaches the forward kick's target offset within the 10 s and the ball travels toward the target (3 of
    3 kick, scores 0.53, 2.52 and 2.60; it needs villa sim's stiff hip yaw-pitch servos and the kickApproach set for
    the last half metre)."""
    from pathlib import Path

    from villa_optimize.kick_objective import KickObjective

    o = KickObjective("forward", "tuned", "optimized", Path("/nonexistent.yaml"), world="villa", attempts=3)
    ev = o.make_evaluator(0)
    try:
        f, info = ev.evaluate(o.x0())
    finally:
        ev.close()
    outcomes = [a["outcome"] for a in info["attempts"]]
    assert len(outcomes) == 3
    assert outcomes.count("kicked") == 3, info
    assert all(a["score"] > 0.3 for a in info["attempts"]) and f > 1.5, info
    assert f == pytest.approx(sum(a["score"] for a in info["attempts"]) / 3)
