"""SCRAM role assignment time (dynamic program vs brute force) and strategy decisions per second.

Role assignment on random agent/position sets in the field (drawn from --seed), best of --runs timings per size;
brute force only where feasible (n <= 8, 8! = 40320 mappings; n = 10 would be 3.6 M), timed once. Decisions: one
TeamPlayer.decide() of an 11-player team in play-on, per player, 500 of them. Prints a table of ms per assignment
(DP, brute force, the DP's mappings) and the decisions per second. No simulator.

    villa bench strategy_bench [--runs 20] [--seed 0]
"""

from __future__ import annotations

import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 5 s"
SMOKE = ["--runs", "1"]


def timed(fn, *args, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def add_arguments(ap) -> None:
    common.add_runs(ap, 20, "timings per role assignment size (the best one counts)")
    common.add_seed(ap, default=0)


def run(args) -> int:
    from villa_strategy import decision as D
    from villa_strategy.role_assignment import assign_brute_force, assign_dp, cost_matrix

    print(f"no simulator: role assignment best of {args.runs} runs, seed {args.seed}; 500 decisions", flush=True)
    rng = np.random.default_rng(args.seed)
    print("role assignment (best of runs, ms)")
    print(f"{'n':>3} {'DP':>10} {'brute force':>12} {'mappings DP':>12}")
    for n in (4, 6, 8, 9, 10, 11):
        costs = cost_matrix(rng.uniform(-10, 10, (n, 2)), rng.uniform(-10, 10, (n, 2)))
        dp = timed(assign_dp, costs, repeat=args.runs) * 1e3
        bf = f"{timed(assign_brute_force, costs, repeat=1) * 1e3:12.1f}" if n <= 8 else f"{'n/a':>12}"
        print(f"{n:>3} {dp:10.2f} {bf} {n * 2 ** (n - 1):>12}", flush=True)
    params = D.StrategyParams(team_size=11)
    player = D.TeamPlayer(5, params)
    mates = {u: tuple(rng.uniform([-14, -9], [14, 9])) for u in range(1, 12) if u != 5}
    w = D.WorldView(pose=(-3.0, 1.0, 0.2), ball=(1.0, -2.0), teammates=mates,
                    opponents=[tuple(rng.uniform([-14, -9], [14, 9])) for _ in range(11)])
    n = 500
    t0 = time.perf_counter()
    for i in range(n):
        player.decide(w, D.PLAY_ON, 10.0 + 0.02 * i, True)
    dt = (time.perf_counter() - t0) / n
    print(f"strategy decisions: {1 / dt:.0f} per second per player ({dt * 1e3:.2f} ms each, 11 players, play on)")
    return 0
