"""Evaluations per hour of `villa optimize walk`: a 10-s walk task through the optimizer's own worker pool.

The lean evaluation path (§10.3's scale needs it): each worker owns one simulator (villa sim in the worker, or one
real SimSpark server started once and reused, the trainer's monitor link, no vision parse, no game perception,
localization or strategy) and runs the walk engine and arbiter on the task's phases. The candidates are the shipped
start set (`--sigma 0`: every evaluation walks its full length, the honest cost) or samples around it as CMA-ES's
first generation draws them (`--sigma S`: falls end evaluations early, as in a run). Prints evaluations per hour,
wall and simulated seconds per evaluation, the CPU seconds per evaluation of the workers and their servers (process
times), the falls, and the machine's load average (other work slows it).

    villa bench optimize_rate [--world villa|simspark] [--runs 40] [--workers 2] [--task sprint10]
        [--time-limit 10] [--sigma 0] [--robot-types 0]
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = "about 2 min on SimSpark with 2 workers (--runs 40), 5 min on villa sim"
SMOKE = ["--runs", "2", "--workers", "1", "--time-limit", "1"]


def add_arguments(ap) -> None:
    common.add_common(ap, runs=40, what="evaluations per robot type")
    ap.add_argument("--workers", type=common.positive_int, default=2, help="worker processes (default 2)")
    ap.add_argument("--task", default="sprint10", help="the optimizer's walk task (default sprint10)")
    ap.add_argument("--time-limit", type=common.positive_float, default=10.0,
                    help="simulated seconds of the task per evaluation (default 10: the 10-s walk)")
    ap.add_argument("--sigma", type=float, default=0.0,
                    help="spread of the candidates around the start set, as a fraction of each parameter's range "
                         "(default 0: the start set itself, every evaluation full length)")


def measure(args, robot_type: int) -> dict:
    """Evaluate `args.runs` candidates through the optimizer's WorkerPool; figures of the batch."""
    from villa_optimize.runner import WorkerPool
    from villa_optimize.walk_objective import WalkObjective

    with tempfile.TemporaryDirectory(prefix="villa-optimize-rate-") as out:
        objective = WalkObjective.for_task(args.task, Path(out), world=args.world,
                                           socket=getattr(args, "socket", False), robot_type=robot_type,
                                           time_limit=args.time_limit, trials=1, seed=args.seed, jitter_all=True)
        x0 = objective.x0()
        rng = np.random.default_rng(args.seed)
        xs = [np.clip(x0 + args.sigma * rng.standard_normal(x0.shape), 0.0, 1.0) for _ in range(args.runs)]
        t0 = time.monotonic()
        pool = WorkerPool(objective, args.workers)
        workers, servers = [p.pid for p in pool.procs], sorted(pool.child_pids)
        cpu0 = (_cpu(workers), _cpu(servers))
        started = time.monotonic()
        try:
            results = pool.evaluate(xs, tag=1)
            wall = time.monotonic() - started
            cpu = (_cpu(workers) - cpu0[0], _cpu(servers) - cpu0[1])
        finally:
            pool.close()
    infos = [info for _, info in results]
    sim = float(sum(i.get("sim_time", 0.0) for i in infos))
    return {"evaluations": len(xs), "wall": wall, "start": started - t0, "sim": sim,
            "falls": sum(bool(i.get("fell")) for i in infos), "fitness": float(np.mean([f for f, _ in results])),
            "cpu_workers": cpu[0], "cpu_servers": cpu[1], "servers": len(servers)}


def _cpu(pids: list[int]) -> float:
    """User + system CPU seconds of the processes so far (0 for one that is gone)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


def run(args) -> int:
    if args.sigma < 0:
        return common.fail("optimize_rate", "--sigma must be >= 0")
    for rt in args.robot_types:
        print(f"{common.world_label(args)}: {args.task} for {args.time_limit:g} simulated s, robot type {rt}, "
              f"{args.runs} evaluations on {args.workers} workers, sigma {args.sigma:g}", flush=True)
        r = measure(args, rt)
        per_hour = 3600.0 * r["evaluations"] / r["wall"]
        print(f"  {per_hour:,.0f} evaluations per hour ({r['wall']:.1f} s wall for {r['evaluations']}, "
              f"{r['wall'] * args.workers / r['evaluations']:.2f} worker-s per evaluation, "
              f"{r['sim'] / r['evaluations']:.2f} simulated s each, {r['sim'] / r['wall']:.1f}x real time overall; "
              f"workers started in {r['start']:.1f} s)", flush=True)
        n = r["evaluations"]
        server = f", their servers {r['cpu_servers'] / n:.3f}" if r["servers"] else ""
        print(f"  CPU per evaluation: the workers {r['cpu_workers'] / n:.3f} s{server} (process times: steadier than "
              f"the wall clock when the machine's speed drifts)", flush=True)
        print(f"  {r['falls']} of {r['evaluations']} fell, mean fitness {r['fitness']:.3f}; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    return 0
