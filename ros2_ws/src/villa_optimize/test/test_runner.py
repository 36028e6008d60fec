"""The CMA-ES runner with 2 worker processes on a cheap analytic objective: convergence, state written every
generation, --resume continues from the saved generation and evaluation count."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from villa_optimize.runner import STATE, RunConfig, load_state, run

TARGET = np.array([0.3, 0.7, 0.5, 0.2])


class SphereEvaluator:
    def __init__(self, worker: int) -> None:
        self.worker = worker

    def evaluate(self, x):
        return -float(np.sum((np.asarray(x) - TARGET) ** 2)), {"worker": self.worker, "pid": os.getpid(),
                                                                "fell": False}

    def close(self) -> None:
        pass


class Sphere:
    dim = 4

    def describe(self):
        return {"kind": "sphere", "dim": 4}

    def make_evaluator(self, worker):
        return SphereEvaluator(worker)

    def write_best(self, x, fitness, info, out_dir: Path):
        p = Path(out_dir) / "best.json"
        p.write_text(json.dumps({"x": list(map(float, x)), "fitness": fitness}))
        return [p]


def test_converges_with_two_workers_and_saves_every_generation(tmp_path):
    lines = []
    cfg = RunConfig(out_dir=tmp_path, generations=25, popsize=8, workers=2, sigma0=0.2, seed=3)
    st = run(Sphere(), np.full(4, 0.5), cfg, progress=lines.append)
    assert st.generation == 25 and st.evaluations == 200
    assert st.best_fitness > -1e-3
    assert np.allclose(st.best_x, TARGET, atol=0.03)
    hist = [json.loads(x) for x in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert [h["generation"] for h in hist] == list(range(1, 26))
    assert [h["evaluations"] for h in hist] == [8 * g for g in range(1, 26)]
    assert all(np.isfinite(h["evals_per_hour"]) and h["evals_per_hour"] > 0 for h in hist)
    assert sum("gen " in line for line in lines) == 25
    assert json.loads((tmp_path / "best.json").read_text())["fitness"] == pytest.approx(st.best_fitness)
    # both workers (separate processes) evaluated candidates
    assert load_state(tmp_path).best_info["pid"] != os.getpid()


def test_resume_continues_from_saved_generation_and_count(tmp_path):
    cfg = RunConfig(out_dir=tmp_path, generations=3, popsize=6, workers=2, sigma0=0.2, seed=5)
    st = run(Sphere(), np.full(4, 0.5), cfg, progress=lambda s: None)
    assert st.generation == 3 and (tmp_path / STATE).exists()
    saved = load_state(tmp_path)
    assert saved.generation == 3 and saved.evaluations == 18
    with pytest.raises(ValueError, match="--resume"):
        run(Sphere(), np.full(4, 0.5), cfg, progress=lambda s: None)
    lines = []
    cfg2 = RunConfig(out_dir=tmp_path, generations=6, popsize=6, workers=2, sigma0=0.2, seed=5, resume=True)
    st2 = run(Sphere(), np.full(4, 0.5), cfg2, progress=lines.append)
    assert st2.generation == 6 and st2.evaluations == 36
    assert lines[0].startswith("resuming") and "generation 3, 18 evaluations" in lines[0]
    assert st2.best_fitness >= saved.best_fitness
    hist = [json.loads(x)["generation"] for x in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert hist == [1, 2, 3, 4, 5, 6]
    assert st2.es.countiter == 6                      # the CMA-ES itself continued, not a fresh one


class HeldOutSphereEvaluator(SphereEvaluator):
    def evaluate_heldout(self, x, i):
        f, info = self.evaluate(x)
        return f - 0.01 * i, {**info, "fell": i == 1, "heldout": i}


class HeldOutSphere(Sphere):
    heldout_starts = True

    def make_evaluator(self, worker):
        return HeldOutSphereEvaluator(worker)


def test_holdout_evaluates_the_mean_on_its_own_starts_every_k_generations_and_after_the_last(tmp_path):
    lines = []
    cfg = RunConfig(out_dir=tmp_path, generations=5, popsize=6, workers=2, sigma0=0.2, seed=3, holdout=3,
                    holdout_every=2)
    st = run(HeldOutSphere(), np.full(4, 0.5), cfg, progress=lines.append)
    hist = [json.loads(x) for x in (tmp_path / "history.jsonl").read_text().splitlines()]
    held = {h["generation"]: h["heldout"] for h in hist if "heldout" in h}
    assert sorted(held) == [2, 4, 5]                          # every 2nd generation and the last
    assert st.evaluations == 30 and st.heldout_evaluations == 9   # held-out ones are not the search's
    mean = -float(np.sum((np.array(hist[-1]["x_mean"]) - TARGET) ** 2))    # CMA-ES's mean, starts 0, 1, 2
    assert held[5]["mean"] == pytest.approx(mean - 0.01) and held[5]["min"] == pytest.approx(mean - 0.02)
    assert held[5]["falls"] == 1 and held[5]["n"] == 3 and st.heldout == held[5]
    assert sum("held-out mean" in line for line in lines) == 3


def test_holdout_needs_an_objective_with_held_out_starts(tmp_path):
    cfg = RunConfig(out_dir=tmp_path, generations=2, popsize=4, workers=1, holdout=2)
    with pytest.raises(ValueError, match="held-out starts"):
        run(Sphere(), np.full(4, 0.5), cfg, progress=lambda s: None)
    assert not (tmp_path / STATE).exists()
    with pytest.raises(ValueError, match="holdout"):
        RunConfig(out_dir=tmp_path, generations=2, popsize=4, holdout=-1).validate()


def test_bad_configuration_and_missing_state(tmp_path):
    with pytest.raises(ValueError, match="popsize"):
        RunConfig(out_dir=tmp_path, generations=2, popsize=1).validate()
    with pytest.raises(ValueError, match="generations"):
        RunConfig(out_dir=tmp_path, generations=0, popsize=4).validate()
    with pytest.raises(ValueError, match="no saved run"):
        run(Sphere(), np.full(4, 0.5), RunConfig(out_dir=tmp_path / "none", generations=2, popsize=4, resume=True))


class Broken(Sphere):
    def make_evaluator(self, worker):
        raise RuntimeError("no simulator here")


def test_a_worker_that_cannot_start_stops_the_run_with_its_reason(tmp_path):
    with pytest.raises(RuntimeError, match="no simulator here"):
        run(Broken(), np.full(4, 0.5), RunConfig(out_dir=tmp_path, generations=2, popsize=4, workers=2),
            progress=lambda s: None)
