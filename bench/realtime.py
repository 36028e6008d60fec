#!/usr/bin/env python3
"""Benchmark: how many villa players this machine plays in the league's real-time mode (issue 21).

The server paces 20 ms cycles and waits for no agent (SimSpark `--realtime --no-sync`, or villa sim's); `villa match
--realtime` plays villa v AllBall (both the villa stack) with N players a team for --duration simulated s, for
N = --players ..., and reports per N every bridge's late answers (joint targets that missed the perception's deadline
and were answered with the held ones), falls, the real-time factor and CPU per player. The machine plays 2N players
in real time while both teams stay under 1 % late answers.

    source scripts/env.sh && python bench/realtime.py [--server simspark|villa] [--players 1 2 3] [--duration 120]
        [--composition player|node]

Run it on an idle machine: in real time, other load makes answers late.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from villa_bringup import match as M

LATE_LIMIT = 0.01      # share of late answers under which a team "plays in real time"


def run(server: str, players: int, duration: float, composition: str, log_root: Path) -> dict:
    args = M.match_args(server=server, duration=duration, players=players, composition=composition,
                        log_dir=str(log_root / f"{server}-{players}"), connect_timeout=90.0, realtime=True)
    r = M.play(args)
    teams = [r["teams"]["left"], r["teams"]["right"]]
    late = [r["late"][t["team"]] for t in teams]
    cpu = sum(v for k, v in r["cpu_seconds"].items() if k != "simulator")
    return {"players": players, "sim_s": r["duration"], "rtf": r["real_time_factor"],
            "late": [n / c if c else float("nan") for c, n in late], "cycles": [c for c, _ in late],
            "falls": [t["falls"] for t in teams], "cpu_per_player": cpu / (r["duration"] * 2 * players)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", choices=tuple(M.SERVERS), default="simspark")
    ap.add_argument("--players", type=int, nargs="+", default=[1, 2, 3], help="players a team (default 1 2 3)")
    ap.add_argument("--duration", type=float, default=120.0, help="simulated s a match (default 120)")
    ap.add_argument("--composition", choices=("player", "node"), default="player")
    a = ap.parse_args()
    if a.duration <= 0 or not all(1 <= n <= 11 for n in a.players):
        print("realtime.py: --duration must be positive and --players 1..11", file=sys.stderr)
        return 2
    if (why := M.server_unavailable(a.server)) is not None:
        print(f"realtime.py: --server {a.server}: {why}", file=sys.stderr)
        return 2
    print(f"real-time mode on {a.server}, villa v AllBall, {a.duration:.0f} simulated s, composition {a.composition}")
    print(f"{'players':>7} {'on field':>8} {'rtf':>5} {'late A':>7} {'late B':>7} {'falls A/B':>9} "
          f"{'CPU/player':>10}  verdict")
    best = 0
    with tempfile.TemporaryDirectory(prefix="villa-rt-") as tmp:
        for n in a.players:
            try:
                row = run(a.server, n, a.duration, a.composition, Path(tmp))
            except (M.MatchError, M.ConfigError) as e:
                print(f"{n:>7} FAILED: {e}", flush=True)
                continue
            ok = all(v < LATE_LIMIT for v in row["late"])
            best = max(best, 2 * n) if ok else best
            print(f"{n:>7} {2 * n:>8} {row['rtf']:5.2f} {100 * row['late'][0]:6.2f}% {100 * row['late'][1]:6.2f}% "
                  f"{row['falls'][0]:>4}/{row['falls'][1]:<4} {row['cpu_per_player']:10.3f}  "
                  f"{'real time' if ok else 'too slow'}", flush=True)
    print(f"players on the field in real time with < {100 * LATE_LIMIT:.0f} % late answers: {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
