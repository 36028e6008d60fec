"""`villa games`: N headless games between two team configurations or strategy variants, to measure the team.

The command line: the options (add_arguments), their checks and defaults (check_arguments), the games they ask for
(specs_from_args), and main, which plays them (pool.run_games) and writes the summary (summary); the package's
docstring (villa_bringup.games) describes the command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import yaml

from villa_bringup.accounting import duration_error
from villa_bringup.games.pool import run_games
from villa_bringup.games.spec import PENALTY_TIME, GameSpec, TeamSpec, external_error, external_team, team_config
from villa_bringup.games.summary import plot, summarize, table
from villa_bringup.team_config import VARIANTS, ConfigError, default_path
from villa_nao.interrupt import interruptible


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    p.add_argument("--duration", type=float, default=None,
                   help=f"simulated s per game from the kick-off (default 120; --penalty {PENALTY_TIME:.0f})")
    p.add_argument("--players", type=int, default=None, help="players per team (default 2; --penalty 1)")
    p.add_argument("--config", default=None, help="team A's configuration (default villa_bringup's config/team.yaml)")
    p.add_argument("--variant", choices=VARIANTS, default=None,
                   help="team A's strategy variant (§11.5; default: its configuration's)")
    p.add_argument("--opponent-config", default=None,
                   help="team B's configuration (default: team A's); one with an `external` entry starts a team no one "
                        "here wrote by its command (villa_bringup's config/opponent_utbase.yaml: the UT Austin Villa "
                        "base code; SimSpark only)")
    p.add_argument("--opponent", choices=VARIANTS, default="allball", help="team B's variant (default allball)")
    p.add_argument("--server", choices=("villa", "simspark"), default="villa",
                   help="villa: villa sim (default, stepped in the game's process); simspark: rcssserver3d (installed)")
    p.add_argument("--socket", action="store_true", help="villa sim as its own server process over TCP")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="games at once (default: the cores)")
    p.add_argument("--seed", type=int, default=1, help="seed of game 0; game i uses seed + i (default 1)")
    p.add_argument("--noise", choices=("simspark", "off"), default="simspark", help="villa sim's vision noise")
    p.add_argument("--out", default=None, help="output directory (default .villa-logs/games-<time>)")
    p.add_argument("--connect-timeout", type=float, default=60.0, help="s for the players to join (default 60)")
    p.add_argument("--stall-timeout", type=float, default=60.0,
                   help="socket games: wall s without simulated time advancing before a game is abandoned")
    p.add_argument("--penalty", action="store_true",
                   help=f"a penalty shoot-out (§14): each game a penalty kick, 1 v 1, {PENALTY_TIME:.0f} s by default")


def _config_name(path: Path) -> tuple[str, str]:
    data = yaml.safe_load(path.read_text()) if path.exists() else None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: no such team configuration (or not YAML)")
    return str(data.get("team", "villa")), str(data.get("variant", "villa"))


def specs_from_args(args: argparse.Namespace) -> list[GameSpec]:
    a_cfg = Path(args.config) if args.config else default_path()
    b_cfg = Path(args.opponent_config) if args.opponent_config else a_cfg
    a_name, a_variant = _config_name(a_cfg)
    if external_team(a_cfg) is not None:
        raise ConfigError(f"{a_cfg}: an external team plays as the opponent (--opponent-config), team A is villa's")
    a_variant = args.variant or a_variant
    penalty = bool(getattr(args, "penalty", False))
    ext = external_team(b_cfg)
    if (why := external_error(ext, args.server, penalty)) is not None:
        raise ConfigError(why)
    if ext is not None:
        b_name = ext.name if ext.name != a_name else f"{ext.name}2"
        b = TeamSpec("B", str(b_cfg), "external", b_name, ext)
    else:
        _, b_variant_default = _config_name(b_cfg)
        b_variant = args.opponent or b_variant_default
        b_name = b_variant if b_variant != a_name else f"{b_variant}2"
        if b_name == a_name:
            b_name = f"{a_name}2"
        b = TeamSpec("B", str(b_cfg), b_variant, b_name)
    a = TeamSpec("A", str(a_cfg), a_variant, a_name)
    for t in (a, b):                                       # a bad configuration stops here, with its reason
        if t.external is None:
            team_config(t, args.players, "villa", 3100, "striker" if penalty else "")
    return [GameSpec(i, args.seed + i, args.duration, args.players, args.server, args.socket,
                     args.noise == "simspark", a, b, str(args.out), args.connect_timeout, args.stall_timeout, penalty)
            for i in range(args.games)]


def check_arguments(args: argparse.Namespace) -> str | None:
    """Fill in the defaults that depend on other options (--duration, --players) and check the values: the reason
    they cannot be played, or None."""
    penalty = bool(getattr(args, "penalty", False))
    if penalty and args.players not in (None, 1):
        return "--penalty is 1 v 1 (a striker and a goalie); leave out --players"
    if args.duration is None:
        args.duration = PENALTY_TIME if penalty else 120.0
    if args.players is None:
        args.players = 1 if penalty else 2
    for name, ok, what in (("--games", args.games >= 1, "at least 1"), ("--duration", args.duration > 0, "positive"),
                           ("--players", 1 <= args.players <= 11, "1..11"), ("--jobs", args.jobs >= 1, "at least 1")):
        if not ok:
            return f"{name} must be {what}"
    if (why := duration_error(args.server, args.duration)) is not None:
        return why
    if args.server == "simspark":
        from villa_sim.simspark import available

        ok, why = available()
        if not ok:
            return f"--server simspark: {why}"
        if args.socket:
            return "--socket applies to villa sim (SimSpark always runs as its own process)"
    return None


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa games", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args()
    error = check_arguments(args)
    if error:
        print(f"villa games: {error}", file=sys.stderr)
        return 2
    penalty = bool(getattr(args, "penalty", False))
    out = Path(args.out or f".villa-logs/games-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    args.out = str(out)
    try:
        specs = specs_from_args(args)
    except ConfigError as e:
        print(f"villa games: {e}", file=sys.stderr)
        return 2
    a, b = specs[0].a, specs[0].b
    kind = "penalty kicks" if penalty else "games"
    print(f"villa games: {len(specs)} {kind} of {args.duration:.0f} simulated s, {args.players} v {args.players}, "
          f"A {a.name} ({a.variant}) v B {b.name} ({b.variant}), sides alternating, server {args.server}"
          f"{' (socket)' if args.socket else ''}, {min(args.jobs, len(specs))} at once; output in {out}",
          file=sys.stderr, flush=True)
    interruptible()                                     # also when started in the background by a script
    results, errors, interrupted = run_games(specs, args.jobs, out)
    if results:
        s = summarize(results)
        (out / "summary.json").write_text(json.dumps({**s, "errors": errors, "interrupted": interrupted}, indent=1))
        print(table(s), flush=True)
        try:
            plot(results, out / "games.png")
            print(f"villa games: plot {out / 'games.png'}", file=sys.stderr)
        except Exception as e:  # the numbers are kept whatever the plot does
            print(f"villa games: no plot ({type(e).__name__}: {e})", file=sys.stderr)
    if interrupted:
        print(f"villa games: interrupted; {len(results)} finished games kept in {out}", file=sys.stderr)
        return 130
    if errors:
        print(f"villa games: {len(errors)} games failed (logs in {out}): " + "; ".join(errors[:3]), file=sys.stderr)
        return 1
    return 0
