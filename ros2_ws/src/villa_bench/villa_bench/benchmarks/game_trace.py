"""One game of `villa games` traced every 0.2 simulated s, to see why a game ends as it does.

Takes `villa games`' options (--world picks its server) and plays the game `villa games` plays first with them, or
its game number --game (villa sim stepped in process: the same game). With --world simspark (or --socket) the game
runs on a server process, as `villa games` plays it there; such a game is not repeatable, so the trace shows one like
it. Writes trace.jsonl (per sample: game time, play mode, score, the ball's truth and per player its truth, whether
it is upright, its pose estimate, role, walk order or skill, the motion arbiter's mode, running skill and fall state)
and trace.png (the ball's x over time with each team's on-ball player's distance to it, and the ball's path on the
field) in --out (default runs/trace), and prints the game's result line and a per-team summary of where the time
went: the on-ball player's distance to the ball, the share of samples with the ball within 0.5 m of a robot of each
team, the ball's speed.

    villa bench game_trace [--world villa|simspark] [--socket] [--seed 1] [--players 3] [--opponent allball]
        [--duration 120] [--game N] [--penalty] [--out runs/trace]
"""

from __future__ import annotations

import json
import math
import sys
import threading
from pathlib import Path

import numpy as np

from villa_bench import common, games_common
from villa_bench.games_common import trace_row
from villa_bringup import games as G

WORLDS = ("villa", "simspark")
RUN_TIME = "about 1.5 min (a 2 v 2 game of 120 s on villa sim in process; estimated from a 20 s game)"
SMOKE = ["--players", "1", "--duration", "5"]


class Traced:
    """Samples every player's state with each ground-truth sample of the game (a mixin for villa games' Game
    classes). In a socket game the players run on their own threads: a row is their state near that moment."""

    rows: list[dict]

    def sample(self, gt, kick_off, progress, now: float) -> float:
        played = super().sample(gt, kick_off, progress, now)
        self.rows.append(trace_row(self, gt, played))
        return played


class TracedHosted(Traced, G.HostedGame):
    """villa sim stepped in process: the same game `villa games` plays for the seed."""


class TracedSocket(Traced, G.SocketGame):
    """A server process (the real SimSpark, or villa sim with --socket): the game is not repeatable."""


def traced_game(spec: G.GameSpec):
    cls = TracedHosted if spec.server == "villa" and not spec.socket else TracedSocket
    game = cls(spec, spec.server)
    game.rows = []
    return game


def summarize(rows: list[dict]) -> dict:
    out = {}
    ball = np.array([r["ball"] for r in rows])
    speed = np.linalg.norm(np.diff(ball, axis=0), axis=1) / 0.2
    out["ball_speed_mean"] = float(speed.mean())
    out["ball_moving_share"] = float((speed > 0.1).mean())
    for side in ("left", "right"):
        near, onball_d, down = [], [], []
        for r in rows:
            b = np.array(r["ball"])
            ps = [p for p in r["players"] if p["side"] == side and p["truth"] is not None]
            d = [float(np.linalg.norm(np.array(p["truth"][:2]) - b)) for p in ps]
            near.append(min(d) < 0.5 if d else False)
            onball_d.append(min(d) if d else math.nan)
            down.append(sum(1 for p in ps if (p["upright"] or 0) < 0.6))
        out[side] = {"ball_within_0.5m": float(np.mean(near)), "nearest_to_ball_mean": float(np.nanmean(onball_d)),
                     "players_down_mean": float(np.mean(down))}
    return out


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.array([r["t"] for r in rows])
    ball = np.array([r["ball"] for r in rows])
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 9))
    a1.plot(t, ball[:, 0], "k-", label="ball x")
    for side, colour in (("left", "tab:blue"), ("right", "tab:red")):
        d = []
        for r in rows:
            b = np.array(r["ball"])
            ds = [np.linalg.norm(np.array(p["truth"][:2]) - b) for p in r["players"]
                  if p["side"] == side and p["truth"] is not None]
            d.append(min(ds) if ds else np.nan)
        a1.plot(t, d, color=colour, lw=0.8, label=f"{side}: nearest robot to the ball (m)")
    a1.axhline(15, color="grey", lw=0.5)
    a1.axhline(-15, color="grey", lw=0.5)
    a1.set_xlabel("s")
    a1.legend(fontsize=8)
    a2.plot(ball[:, 0], ball[:, 1], "k-", lw=0.8)
    a2.add_patch(plt.Rectangle((-15, -10), 30, 20, fill=False))
    a2.set_aspect("equal")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def add_arguments(ap) -> None:
    games_common.add_game_options(ap, out="where trace.jsonl and trace.png go (default runs/trace)")
    ap.add_argument("--game", type=int, default=0,
                    help="which game of `villa games` with these options to trace (its seed is --seed + game; team A "
                         "plays the right half in odd games)")


def run(a) -> int:
    if a.game < 0:
        print("game_trace: --game must be >= 0", file=sys.stderr)
        return 2
    out = Path(a.out or "runs/trace")
    a.out = str(out)
    specs = games_common.specs_or_exit("game_trace", a, a.game + 1)
    if specs is None:
        return 2
    spec = specs[a.game]
    print(f"{common.world_label(a)}: game {a.game} (seed {spec.seed}), {spec.players} v {spec.players}, "
          f"{games_common.robot_types(spec)}, {spec.duration:.0f} simulated s"
          + ("; a socket game is not repeatable" if a.world == "simspark" or a.socket else ""), flush=True)
    out.mkdir(parents=True, exist_ok=True)
    game = traced_game(spec)
    try:
        result = game.play(threading.Event(), lambda played: None)
    except games_common.GAME_ERRORS as e:
        print(f"game_trace: the game could not be played: {e}", file=sys.stderr)
        return 1
    with open(out / "trace.jsonl", "w") as f:
        for r in game.rows:
            f.write(json.dumps(r) + "\n")
    plot(game.rows, out / "trace.png")
    print(json.dumps({k: result[k] for k in ("game", "seed", "goal_difference", "result")}))
    print(json.dumps(summarize(game.rows), indent=1))
    print(f"trace: {out / 'trace.jsonl'}, plot: {out / 'trace.png'}")
    return 0
