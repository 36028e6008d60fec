"""The play that follows a kick-off: the ball's mean x in the kicking team's frame over short `villa games` games.

The kick-off kick's taker may not touch the ball again until another robot has, so a teammate must take it on.
Plays `villa games`' games (--world picks the server, --runs the number of games), short (--duration, default 25
simulated s, so the first kick-off's play is most of each game), and prints per game the kicking team (the left one:
A in even games, B in odd ones), the ball's mean x in that team's frame over the game, and the goals; then the
kicking team's mean ± its standard error. Both teams run villa's code, so a change to the kick-off plays for both: the
kicking team's figure is the one to compare. With --against (an earlier run's output directory or games.jsonl, the
same --seed and --runs) the paired differences too; villa sim in process repeats a game exactly. The output
directory (--out) holds `villa games`' games.jsonl.

    villa bench kickoff_play [--world villa|simspark] [--opponent static] [--players 3] [--runs 24] [--seed 1]
        [--duration 25] [--jobs 2] [--out DIR] [--against DIR]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from villa_bench import common, games_common
from villa_bringup import games as G

WORLDS = ("villa", "simspark")
RUN_TIME = "about 8 min of one core (24 games of 25 s, 2 v 2; --jobs spreads them; estimated from one game)"
SMOKE = ["--runs", "1", "--players", "1", "--duration", "5"]


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


def add_arguments(ap) -> None:
    games_common.add_game_options(ap, runs=24, what="games (game i: seed + i; team A on the left in even games)",
                                  jobs=True, penalty=False, duration=25.0,
                                  out="output directory (default .villa-logs/kickoff-play-SEED)")
    ap.add_argument("--against", help="an earlier run's output directory (or games.jsonl): paired differences")


def run(a) -> int:
    before = {}
    if a.against:
        try:
            before = load(a.against)
        except (OSError, ValueError) as e:
            print(f"kickoff_play: --against {a.against}: {e}", file=sys.stderr)
            return 2
    out = Path(a.out or f".villa-logs/kickoff-play-{a.seed}")
    a.out = str(out)
    specs = games_common.specs_or_exit("kickoff_play", a, a.runs)
    if specs is None:
        return 2
    out.mkdir(parents=True, exist_ok=True)
    print(f"{common.world_label(a)}: {a.runs} games of {a.duration:.0f} s, {a.players} v {a.players}, "
          f"{games_common.robot_types(specs[0])}, A {specs[0].a.variant} v B {specs[0].b.variant}, seed {a.seed}, "
          f"{min(a.jobs, a.runs)} at once; output in {out}", flush=True)
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
