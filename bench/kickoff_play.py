#!/usr/bin/env python3
"""Benchmark: the play that follows a kick-off (issue 19: the kick-off kick's taker may not touch the ball again until
another robot has, so a teammate must take it on). Plays `villa games`' games, short (--duration, default 25 simulated
s, so the first kick-off's play is most of each game), and prints per game the kicking team (the left one: A in even
games, B in odd ones), the ball's mean x in that team's frame over the game, and the goals; then the kicking team's
mean ± its standard error. Both teams run villa's code, so a change to the kick-off plays for both: the kicking team's
figure is the one to compare. With --against (an earlier run's output directory or games.jsonl, the same --seed and
--games) the paired differences too; villa sim in process repeats a game exactly.

    source scripts/env.sh && python bench/kickoff_play.py --opponent static --players 3 --games 24 --seed 1 \\
        [--duration 25] [--jobs 2] [--out DIR] [--against DIR]

Takes `villa games`' options; its output directory holds `villa games`' games.jsonl.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from villa_bringup import games as G


def kicking_ball_x(game: dict) -> float:
    """The ball's mean x over the game in the frame of the team that kicked off first (the left team)."""
    x = game["A"]["ball_x_mean"]
    return x if game["A"]["side"] == "left" else -x


def load(path: str) -> dict[int, dict]:
    p = Path(path)
    p = p / "games.jsonl" if p.is_dir() else p
    return {g["seed"]: g for g in map(json.loads, p.read_text().splitlines()) if "seed" in g and "A" in g}


def mean_se(values: list[float]) -> str:
    se = G.standard_error(values)
    if se is None:
        return f"{values[0]:+.2f}" if values else "n/a"
    return f"{statistics.fmean(values):+.2f} ± {se:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    G.add_arguments(ap)
    ap.add_argument("--against", help="an earlier run's output directory (or games.jsonl): paired differences")
    a = ap.parse_args()
    if a.duration is None:
        a.duration = 25.0
    why = G.check_arguments(a)
    if why:
        ap.error(why)
    before = {}
    if a.against:
        try:
            before = load(a.against)
        except (OSError, ValueError) as e:
            ap.error(f"--against {a.against}: {e}")
    out = Path(a.out or f".villa-logs/kickoff-play-{a.seed}")
    out.mkdir(parents=True, exist_ok=True)
    a.out = str(out)
    try:
        specs = G.specs_from_args(a)
    except G.ConfigError as e:
        ap.error(str(e))
    results, errors, interrupted = G.run_games(specs, a.jobs, out, echo=lambda *x, **k: None)
    for e in errors:
        print(e, file=sys.stderr)
    games = sorted(results, key=lambda g: g["seed"])
    xs, diffs = [], []
    print("seed  kicking  ball x (kicking team's frame)  goals kicking:other" + ("  before" if before else ""))
    for g in games:
        kicking = "A" if g["A"]["side"] == "left" else "B"
        other = "B" if kicking == "A" else "A"
        x = kicking_ball_x(g)
        xs.append(x)
        line = f"{g['seed']:4d}  {kicking:7s}  {x:+29.2f}  {g[kicking]['score']}:{g[other]['score']}"
        if g["seed"] in before:
            b = kicking_ball_x(before[g["seed"]])
            diffs.append(x - b)
            line += f"  {b:+.2f}"
        print(line)
    print(f"{len(xs)} games of {a.duration:.0f} s: the kicking team's ball x {mean_se(xs)} m")
    if diffs:
        print(f"paired with {a.against} ({len(diffs)} games): {mean_se(diffs)} m")
    return 1 if errors or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
