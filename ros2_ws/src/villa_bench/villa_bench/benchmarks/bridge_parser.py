"""villa_bridge's perception parser throughput on recorded SimSpark traffic, with and without vision; no simulator.

Input: every server->agent message of shared/simspark/logs (rcssserver3d 0.7.3, see the README there), split into
messages carrying `See` (every 3rd cycle) and messages without. Prints messages/s and microseconds/message for
the S-expression stage alone (sexp.parse) and the full perception model (perception.parse_perception), best of
--runs runs on one core.

    villa bench bridge_parser [--runs 3]
"""

from __future__ import annotations

import sys
import time

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 10 s"
SMOKE = ["--runs", "1"]


def add_arguments(ap) -> None:
    common.add_runs(ap, 3, "passes over the messages (the best one counts)")


def best_rate(fn, msgs: list[bytes], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for m in msgs:
            fn(m)
        best = min(best, time.perf_counter() - t0)
    return len(msgs) / best


def run(args) -> int:
    from villa_bridge.perception import parse_perception
    from villa_bridge.recorded import FILES, agent_messages, log_dir
    from villa_bridge.sexp import parse

    if not log_dir().is_dir():
        print(f"bridge_parser: no recorded logs at {log_dir()}", file=sys.stderr)
        return 1
    msgs = [m.encode() for name in FILES for m in agent_messages(name, "in")]
    groups = {"with vision": [m for m in msgs if b"(See " in m],
              "without vision": [m for m in msgs if b"(See " not in m]}
    print(f"no simulator: recorded SimSpark perceptions: {len(msgs)} from {len(FILES)} files ({log_dir()}), best of "
          f"{args.runs} runs", flush=True)
    print(f"{'set':<16}{'count':>7}{'mean bytes':>12}{'sexp msg/s':>12}{'full msg/s':>12}{'full us/msg':>13}")
    for label, group in groups.items():
        size = sum(map(len, group)) / len(group)
        r_sexp = best_rate(parse, group, args.runs)
        r_full = best_rate(parse_perception, group, args.runs)
        print(f"{label:<16}{len(group):>7}{size:>12.0f}{r_sexp:>12.0f}{r_full:>12.0f}{1e6 / r_full:>13.1f}",
              flush=True)
    return 0
