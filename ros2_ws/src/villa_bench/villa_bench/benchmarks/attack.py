"""Finishing: attacks started from game situations in their third, on villa sim (goals, ball advance, falls).

One villa sim stepped in process with `villa games`' teams (team A on the left, attacking +x). Each trial places the
ball at random in A's attacking third (x 4.5-11.5 m, |y| < 4 m) and every robot near it as a game would have them
(A's attacker 0.6-1.5 m behind the ball, its other field player 1.5-3.5 m behind it; B's nearest field player
0.6-1.5 m on the goal side of the ball, the other within 3 m of it; each goalie where §9.1 puts it), standing, facing
the ball; each player's localization is told its pose (as at a beam), the ball is dropped (play on) and the trial runs
until a goal, the ball leaves the field, or --time simulated s. Trial i draws its situation from seed * 1000 + i, so
two versions of the code meet the same situations (paired). The ball lay in their third 20-30 % of a game; a row of
50 games resolves a goal rate of about 0.05 a game, these trials resolve it faster.
Prints per trial the outcome (a JSON line) and a summary: A's and B's goals per trial with their standard errors, the
ball's mean advance (m, A's frame), the trials in which it came within 2 m of their goal line, the share of the time
it lay still, the time to A's goals, falls per robot-minute per team; with --against (an earlier run's --out, same
--seed) the paired differences. --trace DIR writes game_trace's rows (with the trial's number) for a look at what
happened.

    villa bench attack [--opponent allball] [--runs 40] [--time 20] [--seed 1] [--players 3] [--config A.yaml]
        [--opponent-config B.yaml] [--out FILE.jsonl] [--against FILE.jsonl] [--trace DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
import time
from pathlib import Path

import numpy as np

from villa_bench import common, games_common
from villa_bench.games_common import trace_row
from villa_bringup import games as G
from villa_bringup.accounting import Accounting, team_relative
from villa_nao import field as F
from villa_strategy.goalie import goalie_position

WORLDS = ("villa",)
RUN_TIME = "about 16 min (40 trials of at most 20 s, 3 v 3; estimated from 2 trials)"
SMOKE = ["--runs", "1", "--time", "3", "--players", "2"]

SEPARATION = 0.6          # m between any two placed robots
BALL_CLEAR = 0.35         # m between a placed robot and the ball
READY_WAIT = 12.0         # simulated s a trial waits for every robot to stand and the play to go on
STAND_STILL = 1.5         # simulated s every robot stands still before they are moved (a walk's step ends)
SETTLE_AFTER = 0.5        # simulated s they stand where they were put before play goes on


def situation(rng: np.random.Generator, players: int) -> tuple[np.ndarray, dict[tuple[str, int], tuple]]:
    """The ball (A's frame = global) and each robot's global pose (x, y, theta) for one trial."""
    ball = np.array([rng.uniform(4.5, 11.5), rng.uniform(-4.0, 4.0)])
    for _ in range(100):
        poses: dict[tuple[str, int], tuple] = {}
        spots = []
        # A (left, attacking +x): goalie, attacker behind the ball, supporter farther behind
        a_spots = [goalie_position(ball),
                   ball + _polar(rng.uniform(0.6, 1.5), math.pi + rng.uniform(-1.0, 1.0)),
                   ball + np.array([-rng.uniform(1.5, 3.5), rng.uniform(-2.0, 2.0)])]
        # B (right): its goalie (its own frame, turned), a defender on the goal side, another within 3 m
        b_goalie = -goalie_position(-ball)
        b_spots = [b_goalie, ball + _polar(rng.uniform(0.6, 1.5), rng.uniform(-1.0, 1.0)),
                   ball + _polar(rng.uniform(1.0, 3.0), rng.uniform(-math.pi, math.pi))]
        for side, s in (("left", a_spots), ("right", b_spots)):
            for unum, p in enumerate(s[:players], start=1):
                p = np.clip(p, [-F.HALF_LENGTH + 0.3, -F.HALF_WIDTH + 0.3], [F.HALF_LENGTH - 0.3, F.HALF_WIDTH - 0.3])
                face = math.atan2(ball[1] - p[1], ball[0] - p[0]) + rng.uniform(-0.3, 0.3)
                poses[(side, unum)] = (float(p[0]), float(p[1]), face)
                spots.append(p)
        if all(np.linalg.norm(p - ball) >= BALL_CLEAR for p in spots) and all(
                np.linalg.norm(p - q) >= SEPARATION for i, p in enumerate(spots) for q in spots[i + 1:]):
            return ball, poses
    return ball, poses                                   # crowded: the last draw (rare; robots may touch)


def _polar(r: float, a: float) -> np.ndarray:
    return np.array([r * math.cos(a), r * math.sin(a)])


class AttackGame(G.HostedGame):
    """`villa games`' hosted game, played as trials from placed situations instead of a kick-off."""

    trace: list[dict] | None = None      # game_trace rows of every sample (--trace), with the trial's number

    def trials(self, n: int, seconds: float, seed: int, stop, echo=print, first: int = 0) -> list[dict]:
        server = self.setup(stop)
        # no half time, no game over: the trials play on past SimSpark's 300 s half (its rules are a frozen dataclass)
        object.__setattr__(server.sim.rules, "half_time", 1e7)
        server.kick_off("Left")                          # the referee's clock runs from here
        server.step()
        out = []
        for i in range(first, first + n):
            if stop.is_set():
                raise KeyboardInterrupt
            self._freeze(True)
            self._ready(server)
            if server.truth().play_mode != "PlayOn":   # a kick-off's or a set play's referee moves robots placed in
                server.drop_ball()                      # the wrong half or too near the ball: play on first
                server.step()
            ball, poses = situation(np.random.default_rng(seed * 1000 + i), self.spec.players)
            server.place_ball(*ball)
            for side, team in self.teams.items():
                for pl in team:
                    unum = pl.session.unum or pl.backend.unum
                    x, y, th = poses[(side, unum)]
                    server.move_player(side, unum, x, y, th)
                    pl.localization.beam(*team_relative(side, x, y, th))
            self._step(server, SETTLE_AFTER)
            self._freeze(False)
            server.drop_ball()
            out.append(self._run(server, ball, seconds, i))
            echo(json.dumps(out[-1]), flush=True)
        return out

    def _freeze(self, on: bool) -> None:
        """Every player stands still instead of deciding (on), or decides again: a robot moved in mid-step fell in
        about a second (10 of 12 trials)."""
        for pl in self.players:
            pl.held = on

    @staticmethod
    def _step(server, seconds: float) -> None:
        t0 = server.time
        while server.time - t0 < seconds - 1e-9:
            server.step()

    def _ready(self, server) -> None:
        """Step until every robot has stood for STAND_STILL s with no goal's pause under way (at most READY_WAIT
        simulated s): a robot moved within a second of its get-up fell."""
        t0, since = server.time, None
        while server.time - t0 < READY_WAIT:
            gt = server.truth()
            ok = all(p.upright > 0.9 for p in gt.players.values()) and not gt.play_mode.startswith("Goal")
            since = (since if since is not None else server.time) if ok else None
            if since is not None and server.time - since >= STAND_STILL - 1e-9:
                self.waited = round(server.time - t0, 2)
                return
            server.step()
        self.waited = None

    def _run(self, server, ball0, seconds: float, index: int) -> dict:
        gt0 = server.truth()
        score0 = (gt0.score_left, gt0.score_right)
        t0 = gt0.sim_time
        # falls counted as `villa games` counts them (a fall ends after a second upright); a robot down at the start
        # is not one of the trial's
        acc = Accounting(self.account.stats["left"].name, self.account.stats["right"].name, self._motion_context)
        acc.sample(gt0)
        at_start = {s: acc.stats[s].falls for s in ("left", "right")}
        self.down_at_start = [f"{s[0]}{e['unum']}" for s in ("left", "right") for e in acc.stats[s].fall_log]
        outcome, cycles = "time", 0
        still = samples = 0                             # samples with the ball still (moved < 1 cm in 0.2 s)
        last, best = gt0.ball[:2], gt0.ball[0]
        while True:
            server.step()
            cycles += 1
            if cycles % G.SAMPLE_EVERY:
                continue
            gt = server.truth()
            acc.sample(gt)
            t = gt.sim_time - t0
            samples += 1
            still += math.dist(gt.ball[:2], last) < 0.01
            last, best = gt.ball[:2], max(best, gt.ball[0])
            if self.trace is not None:
                self.trace.append({**trace_row(self, gt, t), "trial": index})
            if gt.score_left > score0[0]:
                outcome = "goal_A"
            elif gt.score_right > score0[1]:
                outcome = "goal_B"
            elif gt.play_mode != "PlayOn" and t > 0.5:
                outcome = gt.play_mode
            if outcome != "time" or t >= seconds - 1e-6:
                break
        falls = {s: acc.stats[s].falls - at_start[s] for s in ("left", "right")}
        first = [e["time"] for s in ("left", "right") for e in acc.stats[s].fall_log[at_start[s]:]]
        return {"trial": index, "outcome": outcome, "time": round(t, 2), "ball0": [round(v, 2) for v in ball0],
                "ball": [round(v, 3) for v in gt.ball[:2]], "advance": round(gt.ball[0] - ball0[0], 3),
                "farthest": round(best, 3), "still": round(still / max(samples, 1), 3),
                "falls_A": falls["left"], "falls_B": falls["right"],
                "first_fall": round(min(first) - gt0.game_time, 1) if first else None,
                "down_at_start": self.down_at_start, "waited": self.waited}


def se(v) -> float:
    e = G.standard_error([float(x) for x in v])
    return float("nan") if e is None else e


def paired(rows: list[dict], before: list[dict]) -> str:
    """The trials' ball advance and A's goals against an earlier run's same trials (same --seed): after - before."""
    old = {r["trial"]: r for r in before}
    both = [(r, old[r["trial"]]) for r in rows if r["trial"] in old]
    if len(both) < 2:
        return "paired: fewer than 2 trials in common with --against"
    adv = [a["advance"] - b["advance"] for a, b in both]
    goals = [(a["outcome"] == "goal_A") - (b["outcome"] == "goal_A") for a, b in both]
    return (f"paired with --against over {len(both)} trials (after - before): ball advance {np.mean(adv):+.2f} ± "
            f"{se(adv):.2f} m, A's goals a trial {np.mean(goals):+.3f} ± {se(goals):.3f}")


def summary(rows: list[dict], players: int) -> str:
    n = len(rows)
    ga = np.array([r["outcome"] == "goal_A" for r in rows], float)
    gb = np.array([r["outcome"] == "goal_B" for r in rows], float)
    adv = np.array([r["advance"] for r in rows])
    minutes = sum(r["time"] for r in rows) / 60 * players
    times = [r["time"] for r in rows if r["outcome"] == "goal_A"]
    near_goal = sum(r["farthest"] > F.HALF_LENGTH - 2.0 for r in rows)
    outs = {}
    for r in rows:
        outs[r["outcome"]] = outs.get(r["outcome"], 0) + 1
    return (f"trials {n}: A goals {int(ga.sum())} ({ga.mean():.3f} ± {se(ga):.3f} a trial), B goals {int(gb.sum())} "
            f"({gb.mean():.3f} ± {se(gb):.3f}); ball advance {adv.mean():+.2f} ± {se(adv):.2f} m, within 2 m of "
            f"their goal line in {near_goal} trials, still {100 * np.mean([r['still'] for r in rows]):.0f} % of the "
            f"time; "
            f"A's goals after {np.median(times) if times else float('nan'):.1f} s (median); falls per robot-minute "
            f"A {sum(r['falls_A'] for r in rows) / max(minutes, 1e-9):.2f}, "
            f"B {sum(r['falls_B'] for r in rows) / max(minutes, 1e-9):.2f}; outcomes {outs}")


def add_arguments(ap) -> None:
    common.add_world(ap, worlds=("villa",), socket=False)
    common.add_runs(ap, 40, "trials")
    common.add_seed(ap)
    ap.add_argument("--opponent", choices=G.VARIANTS, default="allball", help="team B's variant (default allball)")
    ap.add_argument("--variant", choices=G.VARIANTS, default=None, help="team A's variant (default: its config's)")
    ap.add_argument("--config", default=None, help="team A's configuration (default villa_bringup's team.yaml)")
    ap.add_argument("--opponent-config", default=None, help="team B's configuration (default: team A's)")
    ap.add_argument("--players", type=int, default=3, help="players per team (default 3)")
    ap.add_argument("--time", type=float, default=20.0, help="simulated s per trial at most (default 20)")
    ap.add_argument("--noise", choices=("simspark", "off"), default="simspark", help="villa sim's vision noise")
    ap.add_argument("--out", default=None, help="write the trials as JSON lines here")
    ap.add_argument("--trace", default=None, help="write every 0.2 s sample (game_trace's rows) to DIR/trace.jsonl")
    ap.add_argument("--first", type=int, default=0, help="the first trial's number (default 0)")
    ap.add_argument("--against", default=None, help="an earlier run's --out (same --seed): print paired differences")


def run(args) -> int:
    if not 2 <= args.players <= 11 or args.time <= 0 or args.first < 0:
        print("attack: --players 2..11, --time > 0, --first >= 0", file=sys.stderr)
        return 2
    ns = argparse.Namespace(games=1, duration=args.time, players=args.players, config=args.config,
                            variant=args.variant, opponent_config=args.opponent_config, opponent=args.opponent,
                            server="villa", socket=False, seed=args.seed, noise=args.noise, out=".",
                            connect_timeout=60.0, stall_timeout=60.0, penalty=False)
    try:
        spec = G.specs_from_args(ns)[0]
        before = [json.loads(line) for line in Path(args.against).read_text().splitlines() if line.strip()] \
            if args.against else None
    except (G.ConfigError, OSError, json.JSONDecodeError) as e:
        print(f"attack: {e}", file=sys.stderr)
        return 2
    print(f"{common.world_label(args)}: attack, {args.runs} trials of at most {args.time:.0f} s, {args.players} v "
          f"{args.players}, {games_common.robot_types(spec)}, A {spec.a.name} ({spec.a.variant}) v B {spec.b.name} "
          f"({spec.b.variant}), seed {args.seed}", flush=True)
    w0 = time.monotonic()
    sink = open(args.out, "w") if args.out else None

    def echo(line: str, flush: bool = True) -> None:
        print(line, flush=flush)
        if sink:
            sink.write(line + "\n")
            sink.flush()

    game = None
    try:
        game = AttackGame(spec, spec.server)
        game.trace = [] if args.trace else None
        rows = game.trials(args.runs, args.time, args.seed, threading.Event(), echo, first=args.first)
    except games_common.GAME_ERRORS as e:
        print(f"attack: the trials could not be played: {e}", file=sys.stderr)
        return 1
    finally:
        if sink:
            sink.close()
        if args.trace and game is not None:
            Path(args.trace).mkdir(parents=True, exist_ok=True)
            with open(Path(args.trace) / "trace.jsonl", "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in game.trace)
    print(summary(rows, args.players))
    if before is not None:
        print(paired(rows, before))
    print(f"attack: {time.monotonic() - w0:.0f} wall s", file=sys.stderr)
    return 0
