"""CMA-ES with candidates evaluated in parallel by worker processes: UT Austin Villa 2011 report §10.3.

PyPI `cma` samples a generation in CMA-ES's normalized box [0, 1]^n; every candidate goes to a queue that W worker
processes serve, each with an evaluator of its own (for the walk: its own headless `villa sim` on its own ports).
After every generation the run's state (the pickled CMA-ES, counters, best candidate, numpy's random state) is
written atomically to `<out>/state.pkl`, one line to `<out>/history.jsonl`, and the objective writes its best
candidate (the walk: a named parameter set), so an interrupted run continues with `resume=True`.

Fitness is maximized (cma minimizes -fitness). Ctrl-C stops the workers, which stop their simulators; the
generation under way is dropped, the state of the last complete one is kept.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import pickle
import queue
import signal
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from villa_sim.lifetime import die_with_parent

STATE = "state.pkl"
HISTORY = "history.jsonl"
STATE_VERSION = 1


class Evaluator(Protocol):
    def evaluate(self, x: np.ndarray) -> tuple[float, dict]: ...

    def close(self) -> None: ...

    # optional: def evaluate_heldout(self, x, i) -> (fitness, info): x on held-out start i (starts the search never
    # sees, the same ones every time); the runner's --holdout needs it

    # optional: def pids(self) -> list[int]: process groups (e.g. simulators) the pool kills if the worker cannot


def evaluation_fitness(scores, robust: bool = False) -> float:
    """An evaluation's fitness from its trials' scores: the mean, or with `robust` the mean of the worse half (rounded
    up), so that a candidate on the edge of failing does not score as a good one on lucky trials."""
    s = np.sort(np.asarray(scores, float))
    return float(np.mean(s[:max(1, math.ceil(len(s) / 2))] if robust else s))


def _pids(ev) -> list[int]:
    return list(getattr(ev, "pids", list)())


class Objective(Protocol):
    """What the runner optimizes; must be picklable (it is handed to the worker processes)."""

    dim: int

    def describe(self) -> dict: ...                                   # identity, checked on --resume

    def make_evaluator(self, worker: int) -> Evaluator: ...

    def write_best(self, x: np.ndarray, fitness: float, info: dict, out_dir: Path) -> list[Path]: ...


@dataclass
class RunConfig:
    out_dir: Path
    generations: int
    popsize: int
    workers: int = 2
    sigma0: float = 0.1
    seed: int = 1
    resume: bool = False
    holdout: int = 0                           # held-out evaluations of CMA-ES's mean (0: none) ...
    holdout_every: int = 5                     # ... every this many generations, and after the last

    def validate(self) -> RunConfig:
        for name, v, lo in (("generations", self.generations, 1), ("popsize", self.popsize, 2),
                            ("workers", self.workers, 1), ("seed", self.seed, 1), ("holdout", self.holdout, 0),
                            ("holdout-every", self.holdout_every, 1)):
            if not isinstance(v, int) or v < lo:
                raise ValueError(f"--{name} must be an integer >= {lo}, got {v!r}")
        if not (0.0 < self.sigma0 <= 1.0):
            raise ValueError(f"--sigma must be in (0, 1] (a fraction of each parameter's range), got {self.sigma0}")
        return self


@dataclass
class RunState:
    es: Any
    generation: int = 0
    evaluations: int = 0
    eval_seconds: float = 0.0                  # wall time spent in generations (a resumed run's too)
    best_x: np.ndarray | None = None
    best_fitness: float = -np.inf
    best_info: dict | None = None
    best_generation: int = 0
    description: dict | None = None
    rng_state: Any = None
    version: int = STATE_VERSION
    heldout_evaluations: int = 0               # of CMA-ES's mean on held-out starts (not in `evaluations`)
    heldout: dict | None = None                # the latest: generation, mean, min, falls, n

    @property
    def evals_per_hour(self) -> float:
        return 3600.0 * self.evaluations / self.eval_seconds if self.eval_seconds > 0 else 0.0


# --- worker processes -----------------------------------------------------------------------------------------
def _evaluate(ev, x: np.ndarray, heldout: int | None) -> tuple[float, dict]:
    return ev.evaluate(x) if heldout is None else ev.evaluate_heldout(x, heldout)


def _worker(objective: Objective, wid: int, tasks, results, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)       # Ctrl-C reaches the whole process group: the parent decides

    def terminate(*_):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one exit only, so the clean-up below is not interrupted
        results.cancel_join_thread()                   # stopped: do not wait for the parent to read our results
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    die_with_parent(parent)                            # the parent died without telling us: stop (and our sim)
    ev = None
    try:
        try:
            ev = objective.make_evaluator(wid)
        except Exception as e:
            results.put(("error", wid, None, f"worker {wid} could not start: {type(e).__name__}: {e}"))
            return
        results.put(("ready", wid, None, _pids(ev)))
        while True:
            item = tasks.get()
            if item is None:
                return
            key, x, heldout = item
            try:
                out = _evaluate(ev, x, heldout)
            except Exception as first:                 # e.g. a crashed simulator: one retry on a fresh evaluator
                try:
                    ev.close()
                except Exception:
                    pass
                ev = None
                print(f"villa optimize: worker {wid}: {type(first).__name__}: {first}; retrying on a fresh evaluator",
                      file=sys.stderr, flush=True)
                try:
                    ev = objective.make_evaluator(wid)
                    results.put(("pids", wid, None, _pids(ev)))
                    out = _evaluate(ev, x, heldout)
                except Exception as e:
                    results.put(("error", wid, key, f"worker {wid}: {type(first).__name__}: {first}; "
                                                     f"retry: {type(e).__name__}: {e}"))
                    continue
            results.put(("result", wid, key, (float(out[0]), out[1])))
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nothing may interrupt stopping the simulator
        if ev is not None:
            ev.close()


class WorkerPool:
    def __init__(self, objective: Objective, workers: int, start_timeout: float = 120.0) -> None:
        ctx = mp.get_context("fork")
        self.tasks, self.results = ctx.Queue(), ctx.Queue()
        self.procs = [ctx.Process(target=_worker, args=(objective, i, self.tasks, self.results, os.getpid()),
                                  name=f"villa-optimize-worker-{i}") for i in range(workers)]
        self.child_pids: set[int] = set()            # the workers' simulators, killed in close() if still there
        for p in self.procs:
            p.start()
        ready = 0
        deadline = time.monotonic() + start_timeout
        try:
            while ready < workers:
                kind, wid, _, msg = self._get(deadline, "starting the workers")
                if kind == "error":
                    raise RuntimeError(msg)
                ready += kind == "ready"
        except BaseException:
            self.close()
            raise

    def _get(self, deadline: float, doing: str):
        while True:
            try:
                msg = self.results.get(timeout=0.5)
                if msg[0] in ("ready", "pids"):
                    self.child_pids.update(msg[3] or ())
                if msg[0] == "pids":
                    continue
                return msg
            except queue.Empty:
                dead = [p for p in self.procs if not p.is_alive()]
                if dead:
                    try:                                  # its last words (an error) may still be in the queue
                        msg = self.results.get(timeout=1.0)
                        if msg[0] != "pids":
                            return msg
                    except queue.Empty:
                        pass
                    raise RuntimeError(f"{dead[0].name} exited (code {dead[0].exitcode}) while {doing}") from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"timed out {doing}") from None

    def evaluate(self, xs: list[np.ndarray], tag: int | str, timeout: float = 3600.0,
                 on_result: Callable[[int, float, dict], None] | None = None,
                 heldout: list[int] | None = None) -> list[tuple[float, dict]]:
        """Evaluate `xs` (candidate i on held-out start heldout[i] where given) on the workers, in order."""
        for i, x in enumerate(xs):
            self.tasks.put(((tag, i), np.asarray(x, dtype=float), None if heldout is None else heldout[i]))
        out: list[tuple[float, dict] | None] = [None] * len(xs)
        deadline = time.monotonic() + timeout
        done = 0
        while done < len(xs):
            kind, wid, key, payload = self._get(deadline, f"evaluating generation {tag}")
            if kind == "error":
                raise RuntimeError(payload)
            if kind != "result" or key[0] != tag:
                continue
            out[key[1]] = payload
            done += 1
            if on_result is not None:
                on_result(done, *payload)
        return out

    def close(self, timeout: float = 15.0, graceful: bool = True) -> None:
        """Stop every worker (each stops its simulator): after its current evaluation when `graceful`, else at once
        (SIGTERM); SIGKILL for a worker that does not exit, then its simulator's process group."""
        for _ in self.procs:
            try:
                self.tasks.put_nowait(None)
            except Exception:
                pass
        if not graceful:
            for p in self.procs:
                if p.is_alive():
                    p.terminate()
        deadline = time.monotonic() + timeout
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        deadline = time.monotonic() + timeout / 2
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join()
        self._reap_children()
        self.tasks.cancel_join_thread()
        self.tasks.close()
        self.results.close()


    def _reap_children(self) -> None:
        """A worker killed before it stopped its simulator leaves it running: kill its process group."""
        import psutil

        for pid in self.child_pids:
            try:
                proc = psutil.Process(pid)
                if proc.status() == psutil.STATUS_ZOMBIE or "villa_sim" not in " ".join(proc.cmdline()):
                    continue
                os.killpg(pid, signal.SIGKILL)
            except (psutil.Error, ProcessLookupError, PermissionError):
                continue


# --- state ----------------------------------------------------------------------------------------------------
def load_state(out_dir: Path) -> RunState:
    path = Path(out_dir) / STATE
    try:
        with open(path, "rb") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")      # cma warns that matplotlib is missing (no plots needed)
            st = pickle.load(f)
    except FileNotFoundError:
        raise ValueError(f"{out_dir}: no saved run to resume ({STATE} missing)") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as e:
        raise ValueError(f"{path}: not a readable optimization state ({e})") from None
    if not isinstance(st, RunState) or st.version != STATE_VERSION:
        raise ValueError(f"{path}: not an optimization state of this version")
    return st


def save_state(out_dir: Path, st: RunState) -> None:
    st.rng_state = np.random.get_state()          # noqa: NPY002 (cma samples from numpy's global generator)
    path = Path(out_dir) / STATE
    tmp = path.with_name(STATE + ".tmp")
    with open(tmp, "wb") as f:
        pickle.dump(st, f)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def _new_es(x0: np.ndarray, cfg: RunConfig):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # cma warns that matplotlib is missing (no plots needed)
        import cma

    opts = {"bounds": [0.0, 1.0], "popsize": cfg.popsize, "seed": cfg.seed, "verbose": -9,
            "verb_log": 0, "verb_disp": 0, "tolfun": 0.0, "tolflatfitness": 10**9, "tolstagnation": 10**9}
    return cma.CMAEvolutionStrategy(np.clip(np.asarray(x0, dtype=float), 0.0, 1.0).tolist(), cfg.sigma0, opts)


def _falls(results: list[tuple[float, dict]]) -> int:
    return sum(1 for _, info in results if isinstance(info, dict) and info.get("fell"))


def _heldout(pool: WorkerPool, x: np.ndarray, gen: int, n: int) -> dict:
    """CMA-ES's mean (no lucky sample) on the objective's first `n` held-out starts: the figure that says whether the
    search still generalizes while its training fitness rises."""
    res = pool.evaluate([x] * n, f"heldout-{gen}", heldout=list(range(n)))
    fits = np.array([f for f, _ in res])
    return {"generation": gen, "mean": float(fits.mean()), "min": float(fits.min()), "falls": _falls(res), "n": n}


def _fmt_time(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s // 60 % 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def run(objective: Objective, x0: np.ndarray, cfg: RunConfig, progress: Callable[[str], None] | None = None,
        live: bool = False) -> RunState:
    """Run (or continue) CMA-ES until `cfg.generations` generations in total; returns the final state."""
    cfg.validate()
    if cfg.holdout and not getattr(objective, "heldout_starts", False):
        raise ValueError("--holdout: this objective has no held-out starts (the walk tasks have)")
    say = progress or (lambda line: print(line, flush=True))
    out = Path(cfg.out_dir)
    desc = objective.describe()
    if cfg.resume:
        st = load_state(out)
        if st.description != desc:
            diff = sorted(k for k in set(desc) | set(st.description or {})
                          if desc.get(k) != (st.description or {}).get(k))
            raise ValueError(f"{out}: the saved run optimized something else (differs in: {', '.join(diff)})")
        if st.rng_state is not None:
            np.random.set_state(st.rng_state)     # noqa: NPY002 (cma's global generator)
        say(f"resuming {out}: generation {st.generation}, {st.evaluations} evaluations, best {st.best_fitness:.4f}")
    else:
        if (out / STATE).exists():
            raise ValueError(f"{out} already holds a run; pass --resume to continue it or choose another --out")
        if len(x0) != objective.dim:
            raise ValueError(f"start point has {len(x0)} values, the objective {objective.dim}")
        out.mkdir(parents=True, exist_ok=True)
        st = RunState(es=_new_es(x0, cfg), description=desc)
    if st.generation >= cfg.generations:
        say(f"the run already has {st.generation} generations (>= --generations {cfg.generations}); nothing to do")
        return st
    say(f"CMA-ES: {objective.dim} parameters, popsize {st.es.popsize}, sigma0 {cfg.sigma0}, "
        f"generations {st.generation + 1}..{cfg.generations}, {cfg.workers} workers; state in {out}")
    pool = WorkerPool(objective, cfg.workers)
    graceful = False
    try:
        while st.generation < cfg.generations:
            gen = st.generation + 1
            t0 = time.monotonic()
            xs = st.es.ask()
            n = len(xs)

            def tick(done: int, f: float, info: dict, gen=gen, n=n) -> None:
                if live and sys.stderr.isatty():
                    print(f"\r  generation {gen}: {done}/{n} evaluated (last {f:.3f})", end="", file=sys.stderr,
                          flush=True)

            results = pool.evaluate(xs, gen, on_result=tick)
            if live and sys.stderr.isatty():
                print("\r\033[K", end="", file=sys.stderr, flush=True)
            fits = np.array([r[0] for r in results])
            st.es.tell(xs, (-fits).tolist())
            st.generation = gen
            st.evaluations += len(xs)
            st.eval_seconds += time.monotonic() - t0
            i = int(np.argmax(fits))
            improved = fits[i] > st.best_fitness
            if improved:
                st.best_x, st.best_fitness = np.asarray(xs[i], dtype=float), float(fits[i])
                st.best_info, st.best_generation = results[i][1], gen
            falls = _falls(results)
            line = {"generation": gen, "evaluations": st.evaluations, "best": st.best_fitness,
                    "generation_best": float(fits[i]), "mean": float(fits.mean()), "falls": falls,
                    "sigma": float(st.es.sigma), "evals_per_hour": st.evals_per_hour,
                    "eval_seconds": st.eval_seconds,
                    "x_generation_best": [float(v) for v in xs[i]],          # normalized, for later validation
                    "x_mean": [float(v) for v in st.es.mean]}
            held = ""
            if cfg.holdout and (gen % cfg.holdout_every == 0 or gen == cfg.generations):
                st.heldout = _heldout(pool, np.asarray(st.es.mean, dtype=float), gen, cfg.holdout)
                st.heldout_evaluations += cfg.holdout
                line["heldout"] = st.heldout
                held = f"  held-out mean {st.heldout['mean']:8.4f} (falls {st.heldout['falls']}/{cfg.holdout})"
            if improved:
                objective.write_best(st.best_x, st.best_fitness, st.best_info or {}, out)
            save_state(out, st)
            with open(out / HISTORY, "a") as f:
                f.write(json.dumps(line) + "\n")
            say(f"gen {gen:>3}/{cfg.generations}  evals {st.evaluations:>5}  best {st.best_fitness:9.4f} "
                f"(gen {st.best_generation})  this gen: best {fits[i]:8.4f} mean {fits.mean():8.4f} "
                f"falls {falls}/{len(xs)}  sigma {st.es.sigma:.4f}  {st.evals_per_hour:6.0f} evals/h  "
                f"{_fmt_time(st.eval_seconds)}{held}")
        graceful = True
    finally:
        pool.close(graceful=graceful)
    return st
