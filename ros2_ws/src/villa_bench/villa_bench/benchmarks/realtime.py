"""How many villa players this machine plays in the league's real-time mode: late answers per team, per team size.

The server paces 20 ms cycles and waits for no agent (SimSpark `--realtime --no-sync`, or villa sim's); `villa match
--realtime` plays villa (A) v AllBall (B), both the villa stack, with N players a team for --duration simulated s,
for N = --players ..., and prints per N each team's late answers (joint targets that missed the perception's
deadline and were answered with the held ones: count of the team's cycles and share), falls, the real-time factor
and CPU per player. The machine plays 2N players in real time while both teams stay under 1 % late answers; the last
line says the most it played so. This is where the late-answer figure of `villa match --realtime` is measured.

    villa bench realtime [--world simspark|villa] [--players 1 2 3] [--duration 120] [--composition player|node]

Run it on an idle machine: in real time, other load makes answers late.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from villa_bench import common

WORLDS = ("villa", "simspark")
RUN_TIME = "about 8 min on SimSpark (1, 2 and 3 a team, 120 s matches in real time, plus start-up)"
SMOKE = ["--world", "villa", "--players", "1", "--duration", "5"]

LATE_LIMIT = 0.01      # share of late answers under which a team "plays in real time"


def add_arguments(ap) -> None:
    common.add_world(ap, default="simspark", socket=False)
    ap.add_argument("--players", type=int, nargs="+", default=[1, 2, 3], help="players a team (default 1 2 3)")
    ap.add_argument("--duration", type=float, default=120.0, help="simulated s a match (default 120)")
    ap.add_argument("--composition", choices=("player", "node"), default="player",
                    help="a process per player (default) or per node")


def measure(world: str, players: int, duration: float, composition: str, log_root: Path) -> dict:
    from villa_bringup import match as M

    args = M.match_args(server=world, duration=duration, players=players, composition=composition,
                        log_dir=str(log_root / f"{world}-{players}"), connect_timeout=90.0, realtime=True)
    r = M.play(args)
    teams = [r["teams"]["left"], r["teams"]["right"]]
    late = [r["late"][t["team"]] for t in teams]              # (cycles, late answers) per team
    cpu = sum(v for k, v in r["cpu_seconds"].items() if k != "simulator")
    return {"players": players, "sim_s": r["duration"], "rtf": r["real_time_factor"],
            "late": [n / c if c else float("nan") for c, n in late], "late_n": [n for _, n in late],
            "cycles": [c for c, _ in late], "falls": [t["falls"] for t in teams],
            "cpu_per_player": cpu / (r["duration"] * 2 * players)}


def _late(row: dict, i: int) -> str:
    return f"{row['late_n'][i]}/{row['cycles'][i]} ({100 * row['late'][i]:.2f} %)"


def run(a) -> int:
    from villa_bringup import match as M

    if a.duration <= 0 or not all(1 <= n <= 11 for n in a.players):
        print("realtime: --duration must be positive and --players 1..11", file=sys.stderr)
        return 2
    if (why := M.server_unavailable(a.world)) is not None:
        print(f"realtime: --world {a.world}: {why}", file=sys.stderr)
        return 2
    where = "SimSpark (rcssserver3d)" if a.world == "simspark" else "villa sim (own process)"
    print(f"{where}, real-time mode: villa (A) v AllBall (B), {' / '.join(f'{n} v {n}' for n in a.players)}, robot "
          f"types of villa_bringup's team.yaml, {a.duration:.0f} simulated s a match, composition {a.composition}",
          flush=True)
    print(f"{'players':>7} {'on field':>8} {'rtf':>5} {'late answers A':>20} {'late answers B':>20} {'falls A/B':>9} "
          f"{'CPU/player':>10}  verdict")
    best = 0
    played = 0
    with tempfile.TemporaryDirectory(prefix="villa-rt-") as tmp:
        for n in a.players:
            try:
                row = measure(a.world, n, a.duration, a.composition, Path(tmp))
            except (RuntimeError, OSError, M.ConfigError) as e:     # MatchError, a server that did not start
                print(f"{n:>7} FAILED: {e}", flush=True)
                continue
            played += 1
            ok = all(v < LATE_LIMIT for v in row["late"])
            best = max(best, 2 * n) if ok else best
            print(f"{n:>7} {2 * n:>8} {row['rtf']:5.2f} {_late(row, 0):>20} {_late(row, 1):>20} "
                  f"{row['falls'][0]:>4}/{row['falls'][1]:<4} {row['cpu_per_player']:10.3f}  "
                  f"{'real time' if ok else 'too slow'}", flush=True)
    print(f"late answers: a team's joint targets that missed the perception's deadline, of its cycles; players on the "
          f"field in real time with < {100 * LATE_LIMIT:.0f} % late answers: {best}")
    return 0 if played else 1
