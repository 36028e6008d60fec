#!/usr/bin/env python3
"""Benchmark: play chosen games of a `villa games` row again (villa sim in process repeats a game exactly, so a change
that acts only after some event, such as a goal, is measured on the games where that event happens).

    source scripts/env.sh && python bench/replay_games.py --opponent static --players 3 --games 50 --seed 1 \\
        --indices 0,43 [--jsonl FILE]

Takes `villa games`' options (the row's --games and --seed fix each game's spec and side) and plays games --indices
one after the other. Prints per game its index, seed, score A:B, each team's kick-off times (s until the ball moved
0.3 m) and falls; --jsonl appends each game's `villa games` result line.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from villa_bringup import games as G


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    G.add_arguments(ap)
    ap.add_argument("--indices", required=True, help="comma-separated game numbers of the row (0-based)")
    ap.add_argument("--jsonl", help="append each game's result line to this file")
    a = ap.parse_args()
    why = G.check_arguments(a)
    if why:
        ap.error(why)
    specs = G.specs_from_args(a)
    try:
        indices = [int(x) for x in a.indices.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--indices {a.indices!r}: expected game numbers such as 0,43")
    bad = [i for i in indices if not 0 <= i < len(specs)]
    if bad:
        ap.error(f"--indices {bad}: a row of --games {a.games} has games 0-{len(specs) - 1}")
    for i in indices:
        w0 = time.monotonic()
        r = G.play_game(specs[i], threading.Event(), lambda played: None)
        r["game"] = i
        if a.jsonl:
            with open(a.jsonl, "a") as f:
                f.write(json.dumps(r) + "\n")
        print(f"game {i} seed {r['seed']}: {r['A']['score']}:{r['B']['score']}, kick-offs A {r['A']['kickoff_times']} "
              f"B {r['B']['kickoff_times']}, falls A {r['A']['falls']} B {r['B']['falls']} "
              f"({time.monotonic() - w0:.0f} s wall)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
