"""Chosen games of a `villa games` row played again: score, kick-off times and falls of each.

villa sim in process repeats a game exactly, so a change that acts only after some event, such as a goal, is measured
on the games where that event happens. Takes `villa games`' options (--world picks the server; the row's --seed
fixes each game's seed, seed + index, and its sides, team A on the left in even games) and plays the games
--indices one after the other. Prints per game its index, seed, score A:B, each team's kick-off times (s until the
ball moved 0.3 m) and falls; --jsonl appends each game's `villa games` result line.

    villa bench replay_games --indices 0,43 [--world villa|simspark] [--opponent static] [--players 3] [--seed 1]
        [--jsonl FILE]
"""

from __future__ import annotations

import json
import sys
import threading
import time

from villa_bench import common, games_common
from villa_bringup import games as G

WORLDS = ("villa", "simspark")
RUN_TIME = "about 1.5 min a game (120 s, 2 v 2, villa sim in process)"
SMOKE = ["--indices", "0", "--players", "1", "--duration", "5"]


def add_arguments(ap) -> None:
    games_common.add_game_options(ap, out="the socket games' server logs (default .villa-logs/replay-games)")
    ap.add_argument("--indices", required=True, help="comma-separated game numbers of the row (0-based)")
    ap.add_argument("--jsonl", help="append each game's result line to this file")


def run(a) -> int:
    try:
        indices = [int(x) for x in a.indices.split(",") if x.strip()]
    except ValueError:
        indices = []
    if not indices or min(indices) < 0:
        print(f"replay_games: --indices {a.indices!r}: expected game numbers >= 0 such as 0,43", file=sys.stderr)
        return 2
    if a.out is None:
        a.out = ".villa-logs/replay-games"
    specs = games_common.specs_or_exit("replay_games", a, max(indices) + 1)
    if specs is None:
        return 2
    print(f"{common.world_label(a)}: games {','.join(map(str, indices))} of the row with seed {a.seed}, "
          f"{a.players} v {a.players}, {games_common.robot_types(specs[0])}, {a.duration:.0f} simulated s each",
          flush=True)
    for i in indices:
        w0 = time.monotonic()
        try:
            r = G.play_game(specs[i], threading.Event(), lambda played: None)
        except games_common.GAME_ERRORS as e:
            print(f"game {i} seed {specs[i].seed}: could not be played: {e}", flush=True)
            continue
        r["game"] = i
        if a.jsonl:
            with open(a.jsonl, "a") as f:
                f.write(json.dumps(r) + "\n")
        print(f"game {i} seed {r['seed']}: {r['A']['score']}:{r['B']['score']}, kick-offs A {r['A']['kickoff_times']} "
              f"B {r['B']['kickoff_times']}, falls A {r['A']['falls']} B {r['B']['falls']} "
              f"({time.monotonic() - w0:.0f} s wall)", flush=True)
    return 0
