"""The kick-off after a goal: the s from that kick-off until the ball moved, how many within 3 s, the kick's length.

Each game starts in play on with the ball rolled into the left goal by the trainer (it lies beside the goal a second
before): the right team scores, and after the server's goal pause (3 s) the left team kicks off. Prints per game the
s from that kick-off until the ball moved 0.3 m (`villa games`' kick-off time) and how far the kick-off kick moved
it, then how many were within 3 s, their mean, the kicks' median length and the falls from the goal on. Both teams
play villa's code; the left team is A or B by the seed (`villa games` alternates the sides). --runs games, game i
with seed + i.

--play-before S (default 0): the teams first play S simulated s with the ball dropped at a random spot of the left
half (drawn from the seed), then the ball is rolled into the left goal from where it lies: the goal finds the
kick-off taker where play left it (walking, turning, kicking or down), as in a game. Without it the players stand
on their kick-off spots when the goal comes (the late kick-offs of 50-game rows came after goals in play).

--world simspark (the default) plays on the real rcssserver3d; --world villa runs villa sim as its own process (its
trainer places the ball, as SimSpark's does).

    villa bench kickoff_after_goal [--world simspark|villa] [--runs 10] [--seed 1] [--players 3] [--play-before S]
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time

from villa_bench import common, games_common
from villa_bringup import games as G
from villa_strategy.decision import VARIANTS

WORLDS = ("villa", "simspark")
RUN_TIME = "about 7 min on SimSpark (10 games of 10 s, 3 v 3; estimated from one game)"
SMOKE = ["--world", "villa", "--runs", "1", "--players", "1", "--duration", "7"]

IN_GOAL = (-14.85, 0.75, 0.045)     # m: just before the left goal line, beside the goalie
ROLL = (-2.0, 0.0, 0.0)             # m/s into the goal
SEEN = 1.0                          # s the players see the ball there before play on
WITHIN = 3.0                        # s: the bound counted


class AfterGoalGame(G.SocketGame):
    """A game that starts with a goal against the left team, after `play_before` simulated s of play."""

    play_before = 0.0

    def start(self, trainer) -> None:
        if self.play_before > 0:
            rng = random.Random(self.spec.seed)
            trainer.play_mode("PlayOn")
            trainer.place_ball(rng.uniform(-12.0, -1.0), rng.uniform(-7.0, 7.0))
            self.wait_perceived(self.play_before)
        # the ball waits beside the goal for a second before play on: the players see it there, so that the kick-off
        # taker does not kick at a ball it still believes on the centre spot (its kick would run on after the beam)
        trainer.place_ball(*IN_GOAL)
        self.wait_perceived(SEEN)
        trainer.play_mode("PlayOn")
        trainer.place_ball(*IN_GOAL, velocity=ROLL)


def play(specs, backend: str, times: list, distances: list, falls: list, play_before: float = 0.0) -> None:
    for spec in specs:
        w0 = time.monotonic()
        try:
            game = AfterGoalGame(spec, backend)
            game.play_before = play_before
            r = game.play(threading.Event(), lambda played: None)
        except games_common.GAME_ERRORS as e:          # reported, not counted; the others go on
            print(f"seed {spec.seed}: the game could not be played: {e}", flush=True)
            continue
        left = next(label for label in ("A", "B") if r[label]["side"] == "left")
        right = "B" if left == "A" else "A"
        ko = r[left]["kickoff_times"]
        scored = r[right]["score"] == 1 and r[left]["score"] == 0
        t = ko[0] if scored and ko else None
        times.append(t)
        # the kick-off kick: the last kick from the centre spot (the ball's own 'from', truth)
        kicks = [k for k in r[left]["kick_log"] if k["outcome"] == "completed" and "from" in k
                 and math.hypot(*k["from"]) < 0.1]
        k = kicks[-1] if kicks else None
        truth = (f"; the engine started at ({k['started_ball'][0]:.3f}, {k['started_ball'][1]:.3f}), the true ball "
                 f"({k['ball_truth'][0]:.3f}, {k['ball_truth'][1]:.3f})" if k and "ball_truth" in k else "")
        moved = (f", the kick ({k['kick']}, the ball at ({k['ball'][0]:.3f}, {k['ball'][1]:.3f}) m in the robot "
                 f"frame{truth}) moved it {k['ball_moved']:.2f} m" if k else "")
        if scored and t is not None:
            distances.append(k["ball_moved"] if k else 0.0)
        what = ("no goal: the ball did not go in" if not scored else
                f"the left team ({left}, {r[left]['variant']}) kicked off after the goal: "
                + ("the ball did not move" if t is None else f"{t:.2f} s{moved}"))
        print(f"seed {spec.seed}: {what} ({time.monotonic() - w0:.0f} s wall)", flush=True)
        # the falls from the goal on (the ball is rolled in SEEN s after the play before): beams from play drop
        # robots mid-step onto their spots
        down = [(label, e) for label in ("A", "B") for e in r[label]["fall_log"] if e["time"] >= play_before + SEEN]
        falls.append(len(down))
        for label, e in down:
            print(f"    fall at {e['time']:.2f} s: {label} #{e['unum']}, {e['cause']}, motion {e.get('active', '?')}",
                  flush=True)
        if scored and (t is None or t > WITHIN):
            for e in r[left]["kick_log"]:                # what the late taker's kicks did
                print(f"    {e['time']:.2f} s #{e['unum']} {e['kick']} ball ({e['ball'][0]:.3f}, {e['ball'][1]:.3f}) "
                      f"m: {e['outcome']} {e.get('reason', '')}{e.get('ball_moved', '')}", flush=True)


def add_arguments(ap) -> None:
    common.add_world(ap, default="simspark", socket=False)
    common.add_runs(ap, 10, "games (game i: seed + i)")
    common.add_seed(ap)
    ap.add_argument("--players", type=int, default=3, help="players per team (default 3)")
    ap.add_argument("--opponent", default="allball", choices=VARIANTS, help="team B's variant (default allball)")
    ap.add_argument("--duration", type=float, default=10.0, help="simulated s per game after --play-before (the "
                                                                "goal, 3 s pause, the kick-off)")
    ap.add_argument("--play-before", type=float, default=0.0, help="simulated s of play before the goal (the ball "
                                                                        "dropped at random in the left half)")


def run(a) -> int:
    if a.play_before < 0 or a.duration <= 0 or not 1 <= a.players <= 11:
        print("kickoff_after_goal: --play-before >= 0, --duration > 0, --players 1..11", file=sys.stderr)
        return 2
    out = tempfile.mkdtemp(prefix="villa-kickoff-after-goal-")
    args = argparse.Namespace(config=None, opponent_config=None, variant=None, opponent=a.opponent,
                              players=a.players, seed=a.seed, world=a.world, socket=a.world == "villa",
                              noise="simspark", out=out, connect_timeout=60.0, stall_timeout=60.0,
                              duration=a.duration + a.play_before)
    times: list[float | None] = []
    distances: list[float] = []
    falls: list[int] = []
    try:
        specs = games_common.specs_or_exit("kickoff_after_goal", args, a.runs)
        if specs is None:
            return 2
        where = "SimSpark (rcssserver3d)" if a.world == "simspark" else "villa sim (own process)"
        print(f"{where}: kick-offs after a goal, {a.runs} games, {a.players} v {a.players}, "
              f"{games_common.robot_types(specs[0])}, seeds {a.seed}-{a.seed + a.runs - 1}, play before the goal "
              f"{a.play_before:.0f} s", flush=True)
        play(specs, a.world, times, distances, falls, a.play_before)
    finally:
        shutil.rmtree(out, ignore_errors=True)             # the servers' logs
    done = [t for t in times if t is not None]
    within = sum(t <= WITHIN for t in done)
    print(f"\n{a.world}, {a.players} v {a.players}, seeds {a.seed}-{a.seed + a.runs - 1}: the kick-off after the "
          f"goal kicked within {WITHIN:.0f} s in {within} of {len(times)} played; mean "
          f"{statistics.mean(done) if done else float('nan'):.2f} s (range "
          f"{min(done, default=float('nan')):.2f}-{max(done, default=float('nan')):.2f}); the kick-off kick moved the "
          f"ball a median {statistics.median(distances) if distances else float('nan'):.2f} m (range "
          f"{min(distances, default=float('nan')):.2f}-{max(distances, default=float('nan')):.2f})"
          f"; falls from the goal on (both teams): {sum(falls)} in {len(falls)} games")
    return 0 if times else 1
