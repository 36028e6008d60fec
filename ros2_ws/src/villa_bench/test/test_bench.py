"""Every benchmark runs at a tiny size (its SMOKE arguments) and the tool around them holds together."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import villa_bench
from villa_bench import common

README = Path(__file__).resolve().parents[1] / "README.md"


def _simspark_available() -> tuple[bool, str]:
    from villa_sim.simspark import available

    return available()


@pytest.mark.parametrize("name", villa_bench.names())
def test_benchmark_contract(name):
    """Each module says what it measures, where it runs, how long it takes and how to run it small."""
    m = villa_bench.load(name)
    assert villa_bench.summary(name), f"{name}: no docstring"
    assert isinstance(m.WORLDS, tuple) and set(m.WORLDS) <= {"villa", "simspark"}, name
    assert isinstance(m.RUN_TIME, str) and m.RUN_TIME, name
    assert isinstance(m.SMOKE, list), name
    assert callable(m.add_arguments) and callable(m.run), name


def test_readme_lists_every_benchmark():
    text = README.read_text()
    missing = [n for n in villa_bench.names() if f"`{n}`" not in text]
    assert not missing, f"README.md does not list {missing}"


def test_common_flags_reject_bad_input():
    import argparse

    ap = argparse.ArgumentParser()
    common.add_common(ap, runs=3)
    a = ap.parse_args(["--robot-types", "0,4", "--world", "simspark"])
    assert a.robot_types == [0, 4] and a.world == "simspark" and a.runs == 3 and a.seed == 1
    for bad in (["--robot-types", "5"], ["--robot-types", "x"], ["--runs", "0"], ["--world", "sim"]):
        with pytest.raises(SystemExit):
            ap.parse_args(bad)


def test_unknown_benchmark_is_an_error_listing_the_known_ones(capsys):
    from villa_bench.cli import run

    assert run("no_such_bench", []) == 2
    assert "dribble" in capsys.readouterr().err


@pytest.mark.integration
@pytest.mark.parametrize("name", villa_bench.names())
def test_benchmark_runs_at_a_tiny_size(name, tmp_path, ros_domain):
    """The benchmark at its SMOKE size: exits 0 and prints figures (on villa sim where it runs there, else on
    SimSpark when this machine has it)."""
    m = villa_bench.load(name)
    argv = list(m.SMOKE)
    if m.WORLDS and "villa" not in m.WORLDS:
        ok, why = _simspark_available()
        if not ok:
            pytest.skip(why)
    env = dict(os.environ, ROS_DOMAIN_ID=str(ros_domain))
    r = subprocess.run([sys.executable, "-m", "villa_bench", name, *argv], capture_output=True, text=True,
                       timeout=420, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert any(ch.isdigit() for ch in r.stdout), r.stdout[-2000:]


def test_walk_validate_builds_a_runs_candidates_on_the_sets_of_the_runs_world(tmp_path):
    """A SimSpark run's candidates replace the searched fields of SimSpark's start set (its overlay: the sprint there
    is goToTarget), not villa sim's, whatever world the validation is asked to walk in."""
    from villa_bench.benchmarks.walk_validate import run_objective
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path
    from villa_optimize.walk_objective import WalkObjective

    base = config_path("villa_motion", "walk_params.yaml")
    desc = WalkObjective.for_task("sprint10", tmp_path, world="simspark").describe()
    assert desc["world"] == "simspark"
    objective = run_objective(desc, base, "villa")
    x = objective.x0()
    unsearched = [f for f in ("max_step_y", "delta_stop", "heading_gain") if f not in desc["parameters"]]
    on_simspark = load_parameter_sets(base, "simspark")["goToTarget"]
    on_villa = load_parameter_sets(base, "villa")["sprint"]
    assert any(getattr(on_simspark, f) != getattr(on_villa, f) for f in unsearched)
    sprint = objective.parameter_sets(x)["sprint"]
    assert all(getattr(sprint, f) == getattr(on_simspark, f) for f in unsearched)


@pytest.mark.integration
def test_walk_validate_checks_a_turning_runs_candidates_by_turning_and_walking(tmp_path, ros_domain):
    """A turnInPlace run (the walk's turn set) is validated by turning in place both ways and by the walks, the
    table's rows ending in the fastest candidate without a fall or in saying there is none."""
    env = dict(os.environ, ROS_DOMAIN_ID=str(ros_domain))
    run = tmp_path / "turn"
    r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "optimize", "walk", "--task", "turnInPlace",
                        "--world", "villa", "--generations", "1", "--popsize", "4", "--workers", "1", "--trials", "1",
                        "--out", str(run)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    r = subprocess.run([sys.executable, "-m", "villa_bench", "walk_validate", "--run", str(run), "--runs", "1"],
                       capture_output=True, text=True, timeout=420, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert "left rad/s" in r.stdout and sum(line.startswith("gen 1 ") for line in lines) == 2, r.stdout
    assert lines[-1].startswith(("fastest without a fall: generation 1", "no candidate turns")), r.stdout
