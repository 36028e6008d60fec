"""The walk objective: a candidate = the optimized walk parameter set, fitness = the mean over `trials` episodes of a
§10.3 task, each with the robot placed within 5 cm and 5° of the task's start (its course stays put).

Trials: the simulation is deterministic, so one episode from one start lets CMA-ES find sets on the edge of falling
that win that one trajectory (docs/optimize.md: such sets fell on villa bench motion_course). The report's simulator
was not repeatable run to run; several jittered starts per candidate stand in for that."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from villa_motion.params import load_parameter_sets
from villa_motion.walk import WalkParams
from villa_optimize.space import Space, write_parameter_set
from villa_optimize.tasks import Task, get_task


@dataclass
class WalkObjective:
    task_name: str
    space: Space
    base_file: Path                     # the walk parameter sets the other sets and the start values come from
    start_set: str                      # the set whose values the candidate starts from
    set_name: str                       # name the learned set is written under
    params_out: Path                    # YAML the learned set is written to (with the base file's other sets)
    world: str = "villa"                # villa | simspark (villa_optimize.worlds)
    robot_type: int = 0
    time_limit: float | None = None
    trials: int = 1                     # episodes per candidate (trial 1 from the nominal start, the others jittered)
    seed: int = 1                       # the jitter's random seed (each worker draws its own stream from it)
    jitter_all: bool = False            # every trial jittered, the first too (one trial per candidate, fresh starts)
    socket: bool = False                # villa sim as its own process instead of in the worker

    @classmethod
    def for_task(cls, task_name: str, out_dir: Path, base_file: Path | None = None, start_set: str | None = None,
                 space: Path | None = None, set_name: str | None = None, params_out: Path | None = None,
                 **options) -> WalkObjective:
        """The objective `villa optimize walk` runs: the task's search space and start set unless given, the shipped
        walk sets as the base (villa_motion's config/walk_params.yaml); `options`: the other fields."""
        from villa_nao.params import config_path

        task = get_task(task_name)
        base = Path(base_file or config_path("villa_motion", "walk_params.yaml"))
        start = start_set or (task.optimized_set if task.optimized_set in load_parameter_sets(base) else "goToTarget")
        return cls(task_name=task_name, space=Space.from_yaml(space or config_path("villa_optimize", task.space)),
                   base_file=base, start_set=start, set_name=set_name or task.optimized_set,
                   params_out=params_out or Path(out_dir) / "walk_params.yaml", **options)

    heldout_starts = True                       # WalkEvaluator.evaluate_heldout (the runner's --holdout)

    def __post_init__(self) -> None:
        self.task()                                                     # unknown task -> ValueError now
        if not isinstance(self.trials, int) or self.trials < 1:
            raise ValueError(f"--trials must be an integer >= 1, got {self.trials!r}")
        from villa_optimize.worlds import world_error

        if (why := world_error(self.world, self.socket)) is not None:
            raise ValueError(why)
        sets = load_parameter_sets(self.base_file, simulator=self.world, robot_type=self.robot_type)
        self._sets = sets                                               # read once: every evaluation starts here
        if self.start_set not in sets:
            raise ValueError(f"{self.base_file}: no walk parameter set {self.start_set!r} (have {', '.join(sets)})")
        unknown = [n for n in self.space.names if n not in WalkParams.__dataclass_fields__]
        if unknown:
            raise ValueError(f"search space: {', '.join(unknown)} are not walk parameters")

    @property
    def dim(self) -> int:
        return self.space.dim

    def task(self) -> Task:
        t = get_task(self.task_name)
        return t if self.time_limit is None else t.truncated(self.time_limit)

    def describe(self) -> dict:
        return {"kind": "walk", "task": self.task_name, "world": self.world, "parameters": list(self.space.names),
                "lower": self.space.lower.tolist(), "upper": self.space.upper.tolist(), "start_set": self.start_set,
                "robot_type": self.robot_type, "time_limit": self.time_limit, "trials": self.trials,
                "jitter_all": self.jitter_all}

    def start_params(self) -> WalkParams:
        """The start set, with f_a and f_m given where the space searches them (the same walk)."""
        start = self._sets[self.start_set]
        return start.explicit() if {"f_a", "f_m"} & set(self.space.names) else start

    def x0(self) -> np.ndarray:
        return self.space.normalize(self.start_params().__dict__)

    def parameter_sets(self, x: np.ndarray) -> dict[str, WalkParams]:
        """The base file's sets (for the robot type) with the task's optimized set replaced by the candidate."""
        sets = dict(self._sets)
        sets[self.task().optimized_set] = replace(self.start_params(), **self.space.denormalize(x)).validate()
        return sets

    def make_evaluator(self, worker: int) -> WalkEvaluator:
        return WalkEvaluator(self, worker)

    def write_best(self, x: np.ndarray, fitness: float, info: dict, out_dir: Path) -> list[Path]:
        values = self.space.denormalize(x)
        header = (f"Walk parameter set {self.set_name!r} learned by `villa optimize walk --task {self.task_name}` "
                  f"(CMA-ES, UT Austin Villa 2011 report §10.3)\nfitness {fitness:.4f}; the other sets are "
                  f"{self.base_file.name}'s. Load: motion.yaml walk_parameter_sets: <this file>")
        learned = replace(self.start_params(), **values)
        yml = write_parameter_set(self.params_out, self.base_file, self.set_name, learned, header,
                                  robot_type=self.robot_type)
        js = Path(out_dir) / "best.json"
        js.write_text(json.dumps({"fitness": fitness, "set_name": self.set_name, "parameters": values,
                                  "normalized": [float(v) for v in x], "episode": info}, indent=1))
        return [yml, js]


class WalkEvaluator:
    def __init__(self, objective: WalkObjective, worker: int) -> None:
        from villa_optimize.worlds import make_world

        self.objective = objective
        self.task = objective.task()
        self.rng = np.random.default_rng([objective.seed, worker])
        self.world = make_world(objective.world, objective.robot_type, seed=worker + 1, socket=objective.socket)

    def heldout_task(self, i: int) -> Task:
        """Held-out start i: the task's variant i (cycling) jittered within 5 cm and 5 deg from a stream of its own
        (seed, 1e6 + i), which no worker's training stream draws from; the same start in every generation."""
        rng = np.random.default_rng([self.objective.seed, 1_000_000 + i])
        return self.task.jittered(rng) if i == 0 else self.task.trial(i, rng)

    def evaluate_heldout(self, x: np.ndarray, i: int) -> tuple[float, dict]:
        r = self.world.run(self.heldout_task(i), self.objective.parameter_sets(x))
        return r.fitness, r.summary()

    def tasks(self) -> list[Task]:
        """This evaluation's trials: the nominal start, then `trials - 1` fresh jittered starts (cycling through the
        task's start variants, Task.trial)."""
        trials = [self.task.trial(i, self.rng) for i in range(self.objective.trials)]
        if self.objective.jitter_all:
            trials[0] = trials[0].jittered(self.rng)
        return trials

    def evaluate(self, x: np.ndarray) -> tuple[float, dict]:
        sets = self.objective.parameter_sets(x)
        results = [self.world.run(t, sets) for t in self.tasks()]
        if len(results) == 1:
            return results[0].fitness, results[0].summary()
        fits = [r.fitness for r in results]
        return float(np.mean(fits)), {"fitness": float(np.mean(fits)), "fell": any(r.fell for r in results),
                                      "falls": sum(r.fell for r in results), "trials": [r.summary() for r in results]}

    def pids(self) -> list[int]:
        return list(getattr(self.world, "pids", list)())

    def close(self) -> None:
        self.world.close()
