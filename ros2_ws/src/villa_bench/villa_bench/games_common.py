"""What the game benchmarks share: `villa games`' options in the benchmarks' vocabulary (--world picks the server,
--runs counts the games), the games they name, the robot types the teams field, and a traced sample of a game under way
(trace_row: game_trace writes them for a game, attack for its trials)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from villa_bench import common

# what stops a game: villa_bringup.games.GameError, a server that did not start or answer (villa_sim's SimSparkError,
# TrainerError, HostError, villa sim's process), a socket that failed
GAME_ERRORS = (RuntimeError, OSError)


def add_game_options(ap: argparse.ArgumentParser, runs: int | None = None, what: str = "games",
                     jobs: bool = False, penalty: bool = True, socket: bool = True, duration: float | None = None,
                     out: str = "output directory") -> None:
    """`villa games`' options for a benchmark: --world villa|simspark [--socket] (the server), --runs (the number of
    games, when `runs` is given), --seed (game i uses seed + i), the teams and the game's size; --jobs with
    `jobs`; `duration`: the benchmark's default game length (None: `villa games`' own); `out`: --out's help."""
    from villa_bringup.games import PENALTY_TIME, VARIANTS

    common.add_world(ap, socket=socket)
    if runs is not None:
        common.add_runs(ap, runs, what)
    ap.add_argument("--duration", type=float, default=duration,
                    help=f"simulated s per game from the kick-off (default {duration:g})" if duration is not None else
                    f"simulated s per game from the kick-off (default 120; --penalty {PENALTY_TIME:.0f})")
    ap.add_argument("--players", type=int, default=None,
                    help="players per team (default 2; --penalty 1)" if penalty else "players per team (default 2)")
    ap.add_argument("--config", default=None, help="team A's configuration (default villa_bringup's config/team.yaml)")
    ap.add_argument("--variant", choices=VARIANTS, default=None,
                    help="team A's strategy variant (§11.5; default: its configuration's)")
    ap.add_argument("--opponent-config", default=None, help="team B's configuration (default: team A's)")
    ap.add_argument("--opponent", choices=VARIANTS, default="allball", help="team B's variant (default allball)")
    common.add_seed(ap)
    ap.add_argument("--noise", choices=("simspark", "off"), default="simspark", help="villa sim's vision noise")
    if jobs:
        ap.add_argument("--jobs", type=common.positive_int, default=os.cpu_count() or 1,
                        help="games at once (default: the cores)")
    ap.add_argument("--out", default=None, help=out)
    ap.add_argument("--connect-timeout", type=float, default=60.0, help="s for the players to join (default 60)")
    ap.add_argument("--stall-timeout", type=float, default=60.0,
                    help="socket games: wall s without simulated time advancing before a game is abandoned")
    if penalty:
        ap.add_argument("--penalty", action="store_true",
                        help=f"a penalty kick (§14) instead: 1 v 1, {PENALTY_TIME:.0f} s by default")


def games_args(args: argparse.Namespace, games: int) -> tuple[argparse.Namespace | None, str | None]:
    """(`villa games`' arguments for the benchmark's flags and `games` games, None) or (None, the reason they cannot
    be played, in the benchmark's flags)."""
    from villa_bringup.games import check_arguments

    a = argparse.Namespace(**vars(args))
    a.server = args.world
    a.socket = bool(getattr(args, "socket", False))
    a.games = games
    a.jobs = getattr(args, "jobs", 1)
    a.penalty = bool(getattr(args, "penalty", False))
    if getattr(a, "out", None):
        a.out = str(Path(a.out).resolve())          # the servers' logs go below it; SimSpark runs in its own directory
    if a.server == "simspark":
        from villa_sim.simspark import available

        ok, why = available()
        if not ok:
            return None, f"--world simspark: {why}"
    return (None, error) if (error := check_arguments(a)) else (a, None)


def specs_or_exit(name: str, args: argparse.Namespace, games: int):
    """The games (villa_bringup.games.GameSpec) the flags name, or (printed, exit code 2) None."""
    from villa_bringup.games import ConfigError, specs_from_args

    a, why = games_args(args, games)
    if a is None:
        print(f"{name}: {why}", file=sys.stderr)
        return None
    try:
        return specs_from_args(a)
    except ConfigError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return None


def robot_types(spec, players: int | None = None) -> str:
    """The robot types a game's teams field, as the first line of a game benchmark names them: 'A 1,0 B 1,0'."""
    import yaml

    out = []
    for t in (spec.a, spec.b):
        try:
            listed = yaml.safe_load(open(t.config).read())["players"][:players or spec.players]
            types = ",".join(str(p.get("robot_type", 0)) for p in listed)
        except (OSError, KeyError, TypeError, yaml.YAMLError):
            types = "?"
        out.append(f"{t.label} {types}")
    return "robot types " + " ".join(out)


def trace_row(game, gt, played: float) -> dict:
    """One sample of a game under way (`game`: a villa_bringup.games Game): the truth of the ball and of every player,
    and each player's estimate, role, walk order or skill, target and motion state."""
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
