"""Simulated s per wall s of one game: `villa games` (one process, one core) against `villa match` (ROS nodes, DDS).

`villa games` runs every player in one process with villa sim stepped in it, on one core; `villa match` runs the same
players as ROS nodes over DDS, a process per player, on the whole machine; both 2 v 2 and 3 v 3 (--players), side by
side in one run, villa v AllBall on villa sim. Also CPU s per simulated s (the load of other work on the machine moves
wall-clock rates; CPU time moves less), and the machine's load average while it ran. Prints a line per size as it
goes, then a table and the speed-up of `villa games` over `villa match` in simulated s per CPU s.

--socket adds `villa games --socket` (villa sim as its own process, the sessions over TCP).

    villa bench games_speed [--duration 30] [--players 2 3] [--socket]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from villa_bench import common, games_common
from villa_bringup import games as G

WORLDS = ("villa",)
RUN_TIME = "about 5 min (30 s games, 2 v 2 and 3 v 3; estimated from a 3 s 1 v 1 run)"
SMOKE = ["--duration", "3", "--players", "1"]


class MatchFailed(RuntimeError):
    """`villa match` did not finish; the message is its error output."""


def games_rate(players: int, duration: float, socket: bool, out: str) -> dict:
    args = argparse.Namespace(config=None, opponent_config=None, variant=None, opponent="allball", players=players,
                              seed=1, server="villa", socket=socket, noise="simspark", out=out, connect_timeout=60.0,
                              stall_timeout=60.0, games=1, duration=duration)
    spec = G.specs_from_args(args)[0]
    w0, c0 = time.monotonic(), time.process_time()
    r = G.play_game(spec, threading.Event())
    wall, cpu = time.monotonic() - w0, time.process_time() - c0
    if socket:                                      # the server's CPU too (it ran beside us)
        cpu = r["cpu"]
    return {"sim": r["duration"], "wall_total": wall, "sim_per_wall": r["sim_per_wall"],
            "cpu_per_sim": cpu / r["duration"]}


def match_rate(players: int, duration: float, out: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "match", "--players", str(players), "--duration",
                        str(duration), "--log-dir", str(out)], capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise MatchFailed(r.stderr[-1000:])
    res = json.loads((out / "result.json").read_text())
    return {"sim": res["duration"], "sim_per_wall": res["real_time_factor"],
            "cpu_per_sim": sum(res["cpu_seconds"].values()) / res["duration"]}


def add_arguments(ap) -> None:
    common.add_world(ap, worlds=("villa",), socket=False)
    ap.add_argument("--duration", type=float, default=30.0, help="simulated s per game from the kick-off (default 30)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3], help="players a team, one game each "
                                                                            "(default 2 3)")
    ap.add_argument("--socket", action="store_true", help="also villa games with villa sim as its own process")


def run(a) -> int:
    if a.duration <= 0 or not all(1 <= n <= 11 for n in a.players):
        print("games_speed: --duration must be positive and --players 1..11", file=sys.stderr)
        return 2
    print(f"villa sim: villa games (in process{', and --socket' if a.socket else ''}) v villa match, "
          f"{' and '.join(f'{n} v {n}' for n in a.players)}, robot types of villa_bringup's team.yaml, "
          f"{a.duration:.0f} simulated s a game", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="villa-games-speed-"))
    rows = []
    load0 = os.getloadavg()[0]
    for n in a.players:
        try:
            g = games_rate(n, a.duration, False, str(tmp))
            s = games_rate(n, a.duration, True, str(tmp)) if a.socket else None
        except games_common.GAME_ERRORS as e:
            print(f"games_speed: villa games {n} v {n} could not be played: {e}", file=sys.stderr)
            return 1
        try:
            m = match_rate(n, a.duration, tmp / f"match{n}")
        except MatchFailed as e:
            print(f"games_speed: villa match {n} v {n} failed: {e}", file=sys.stderr)
            return 1
        rows.append((n, g, s, m))
        print(f"{n} v {n}: villa games {g['sim_per_wall']:.2f} sim s/wall s ({g['cpu_per_sim']:.2f} CPU s per sim s)"
              + (f", --socket {s['sim_per_wall']:.2f} ({s['cpu_per_sim']:.2f})" if s else "")
              + f"; villa match {m['sim_per_wall']:.2f} sim s/wall s ({m['cpu_per_sim']:.2f} CPU s per sim s)",
              flush=True)
    load1 = os.getloadavg()[0]
    print(f"\n{a.duration:.0f} simulated s per game; load average {load0:.1f} at the start, {load1:.1f} at the end, "
          f"{os.cpu_count()} cores")
    print(f"{'players':>8} | {'villa games, one core':>34} | {'villa match, the machine (DDS)':>34}")
    print(f"{'':>8} | {'sim s / wall s':>16} {'CPU s / sim s':>17} | {'sim s / wall s':>16} {'CPU s / sim s':>17}")
    for n, g, s, m in rows:
        print(f"{f'{n} v {n}':>8} | {g['sim_per_wall']:>16.2f} {g['cpu_per_sim']:>17.2f} | "
              f"{m['sim_per_wall']:>16.2f} {m['cpu_per_sim']:>17.2f}")
        if s:
            print(f"{'':>8} | {s['sim_per_wall']:>16.2f} {s['cpu_per_sim']:>17.2f}   (--socket)")
    print("villa games per core, speed-up over villa match in simulated s per CPU s: "
          + ", ".join(f"{n} v {n} {m['cpu_per_sim'] / g['cpu_per_sim']:.1f}x" for n, g, _, m in rows))
    return 0
