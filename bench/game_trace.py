#!/usr/bin/env python3
"""Benchmark: one game of `villa games` traced every 0.2 simulated s, to see why a game ends as it does.

    source scripts/env.sh && python bench/game_trace.py --seed 1 --players 3 --opponent allball [--out runs/trace]
        [--server simspark] [--game N]

Takes `villa games`' options and plays the game `villa games` plays first with them, or its game number --game (villa
sim stepped in process: the same game). With --server simspark (or --socket) the game runs on a server process, as
`villa games` plays it there; such a game is not repeatable, so the trace shows one like it.
Writes trace.jsonl (per sample: game time, play mode, score, the ball's truth and per player its truth, whether it
is upright, its pose estimate, role, walk order or skill, the motion arbiter's mode, running skill and fall state)
and trace.png (the ball's x over time with each team's on-ball player's distance to it, and the ball's path on the
field), and prints the game's result line and a
per-team summary of where the time went: the on-ball player's distance to the ball, the share of samples with the
ball within 0.5 m of a robot of each team, the ball's speed.
"""

from __future__ import annotations

import argparse
import json
import math
import threading
from pathlib import Path

import numpy as np

from villa_bringup import games as G


def trace_row(game, gt, played: float) -> dict:
    """One sample of a game under way (`game`: a villa games Game): the truth of the ball and of every player, and
    each player's estimate, role, walk order or skill, target and motion state."""
    row = {"t": round(played, 2), "mode": gt.play_mode, "score": [gt.score_left, gt.score_right],
           "ball": [round(v, 3) for v in gt.ball[:2]], "players": []}
    for side, team in game.teams.items():
        for pl in team:
            unum = pl.session.unum or pl.backend.unum
            truth = gt.players.get((side, unum))
            c = pl.commands
            d = c.decision if c is not None else None
            est = pl.pose()
            row["players"].append({
                "side": side, "unum": unum,
                "truth": None if truth is None else [round(truth.position[0], 3), round(truth.position[1], 3),
                                                     round(truth.yaw, 3)],
                "upright": None if truth is None else round(truth.upright, 2),
                "est": [round(v, 3) for v in est],
                "role": None if d is None else d.role,
                "walk": None if d is None or d.walk is None else
                [round(d.walk.x, 2), round(d.walk.y, 2), round(d.walk.theta, 2), d.walk.parameter_set,
                 d.walk.stop],
                "skill": None if d is None else d.skill,
                "target": None if d is None else [round(float(v), 2) for v in d.target],
                "motion": pl.motion.mode.name if hasattr(pl.motion.mode, "name") else str(pl.motion.mode),
                "active": pl.motion.player_name or None, "fall_state": pl.motion.fall_state})
    return row


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
    game = cls(spec, "simspark" if spec.server == "simspark" else "rcssservermj")
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    G.add_arguments(ap)                    # villa games' own options: --seed, --players, --opponent, --config, ...
    ap.add_argument("--game", type=int, default=0,
                    help="which game of `villa games` with these options to trace (its seed is --seed + game; team A "
                         "plays the right half in odd games)")
    a = ap.parse_args()
    if a.game < 0:
        ap.error("--game must be >= 0")
    a.games = a.game + 1
    error = G.check_arguments(a)
    if error:
        ap.error(error)
    out = Path(a.out or "runs/trace")
    out.mkdir(parents=True, exist_ok=True)
    a.out = str(out)
    spec = G.specs_from_args(a)[a.game]
    game = traced_game(spec)
    if a.server == "simspark":
        print(f"the real SimSpark: game {a.game} (seed {spec.seed}), {spec.duration:.0f} simulated s; a socket game "
              "is not repeatable", flush=True)
    result = game.play(threading.Event(), lambda played: None)
    with open(out / "trace.jsonl", "w") as f:
        for r in game.rows:
            f.write(json.dumps(r) + "\n")
    plot(game.rows, out / "trace.png")
    print(json.dumps({k: result[k] for k in ("game", "seed", "goal_difference", "result")}))
    print(json.dumps(summarize(game.rows), indent=1))
    print(f"trace: {out / 'trace.jsonl'}, plot: {out / 'trace.png'}")


if __name__ == "__main__":
    main()
