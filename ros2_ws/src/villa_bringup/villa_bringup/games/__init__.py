"""`villa games`: N headless games between two team configurations or strategy variants, to measure the team.

UT Austin Villa 2011 judged every change by many games (report §10.3 Table 3, §11.5 Table 5: 100 games per entry).
A game here is a server in sync mode without pacing and every player's pipeline (villa_bringup.pipeline: the bridge
session, perception, localization, strategy and motion arbiter the nodes wrap) in one process, with no DDS:

- ``--server villa`` (default): villa sim's simulation stepped in that process (villa_sim.hosted), the wire protocol
  without sockets; ``--socket`` runs `villa sim` as its own process instead, the players' sessions over TCP;
- ``--server simspark``: the real rcssserver3d (installed), the sessions over TCP, its monitor for ground truth.

Games run in parallel on ``--jobs`` worker processes, each with its own seed (``--seed`` + game index) and ports. Team
A (``--config`` with ``--variant``) plays the left half in even games and the right half in odd ones against team B
(``--opponent-config`` with ``--opponent``). Output in ``--out``: one JSON line per game (games.jsonl, also printed),
summary.json, a summary table and games.png (goal difference and falls per game). Ctrl-C stops the games under way
and keeps the finished ones. Same seed and configuration on villa sim: the same game.

``--opponent-config`` may name an external team instead (a configuration with an ``external`` entry: the command
that starts each of its players, config/opponent_utbase.yaml for the UT Austin Villa base code), on SimSpark: its
players are processes of their own, accounted from the server's ground truth alone.

``--penalty``: a penalty shoot-out (report §14) instead: every game is one penalty kick, a striker of the left team
against the right team's goalie, the ball on the centre spot in play on, 40 simulated s (``--duration``); it ends at
a goal, when the ball leaves the field or when the time is up. Team A shoots in even games, team B in odd ones.

The modules, one concern each: spec (a game's and a team's specification, the team configuration a game plays),
kicks (where each executed kick sent the ball), play (one game, hosted or over sockets), gate (an external player's
way onto a sync server), pool (many games on worker processes, the progress line), summary (the statistics, the
table and the plot) and command (the command line).
"""

from villa_bringup.games.command import add_arguments, check_arguments, main, specs_from_args
from villa_bringup.games.kicks import KICK_FOLLOW, KickTracker
from villa_bringup.games.play import (
    CYCLE,
    SAMPLE_EVERY,
    Game,
    GameError,
    HostedGame,
    SocketGame,
    penalty_over,
    play_game,
    start_penalty,
)
from villa_bringup.games.pool import Progress, run_games
from villa_bringup.games.spec import PENALTY_ROLES, PENALTY_TIME, GameSpec, TeamSpec, team_config, with_penalty_role
from villa_bringup.games.summary import plot, standard_error, summarize, table
from villa_bringup.team_config import VARIANTS, ConfigError

__all__ = ["CYCLE", "KICK_FOLLOW", "PENALTY_ROLES", "PENALTY_TIME", "SAMPLE_EVERY", "VARIANTS", "ConfigError", "Game",
           "GameError", "GameSpec", "HostedGame", "KickTracker", "Progress", "SocketGame", "TeamSpec", "add_arguments",
           "check_arguments", "main", "penalty_over", "play_game", "plot", "run_games", "specs_from_args",
           "standard_error", "start_penalty", "summarize", "table", "team_config", "with_penalty_role"]
