"""What a game of `villa games` is: its teams (TeamSpec), the game (GameSpec), and the team configuration each team
plays it with (team_config), with the §14 penalty roles of a penalty shoot-out; or, for a team no one here wrote, the
command that starts its players (ExternalTeam, from a configuration with an `external` entry)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from villa_bringup.team_config import ConfigError, TeamConfig, parse
from villa_nao.params import read_yaml

PENALTY_TIME = 40.0               # simulated s of a penalty kick (report §14)
PENALTY_ROLES = {"left": "striker", "right": "goalie"}     # a penalty game: the left team shoots


def with_penalty_role(players: list[dict], role: str) -> list[dict]:
    """Team configuration `players` entries whose strategy takes the §14 penalty `role` (striker | goalie)."""
    return [{**p, "params": {**(p.get("params") or {}), "strategy": {
        **((p.get("params") or {}).get("strategy") or {}), "penalty": role}}} for p in players]


PLACEHOLDERS = ("host", "port", "team", "unum", "type", "log_dir")


@dataclass(frozen=True)
class ExternalTeam:
    """A team started by a command, one process per player (any agent binary that takes the server's host and port,
    a team name and a unum): `command` with the placeholders {host} {port} {team} {unum} {type} {log_dir}, run in
    `cwd` with `env` added to the environment; `types` gives the robot type per unum 1..11."""

    name: str                                  # the team's name on the server (the games' default)
    command: tuple[str, ...]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    types: tuple[int, ...] = (0,) * 11
    source: str = ""                           # the configuration file

    def argv(self, host: str, port: int, team: str, unum: int, log_dir: str) -> list[str]:
        values = {"host": host, "port": str(port), "team": team, "unum": str(unum),
                  "type": str(self.types[unum - 1]), "log_dir": log_dir}
        return [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], a) for a in self.command]

    def environment(self) -> dict[str, str]:
        """The process environment: ours with `env` added (${VAR} in a value expands from ours)."""
        return {**os.environ, **{k: os.path.expandvars(v) for k, v in self.env.items()}}


def external_team(path: str | Path) -> ExternalTeam | None:
    """The ExternalTeam of a configuration file with an `external` entry (None for a villa team configuration);
    ConfigError naming what is wrong."""
    path = Path(path)
    data = read_yaml(path, "the team configuration", ConfigError)
    if not isinstance(data, dict) or "external" not in data:
        return None
    ext = data["external"]
    if not isinstance(ext, dict):
        raise ConfigError(f"{path}: external: expected a mapping (name, command, cwd, env, types)")
    unknown = set(ext) - {"name", "command", "cwd", "env", "types"}
    if unknown:
        raise ConfigError(f"{path}: external: unknown keys {', '.join(sorted(unknown))}")
    command = ext.get("command")
    if not (isinstance(command, list) and command and all(isinstance(a, (str, int, float)) for a in command)):
        raise ConfigError(f"{path}: external.command: expected a list of arguments, the program first")
    command = tuple(str(a) for a in command)
    used = {m for a in command for m in re.findall(r"\{(\w+)\}", a)}
    if unknown := used - set(PLACEHOLDERS):
        raise ConfigError(f"{path}: external.command: unknown placeholders {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(PLACEHOLDERS)})")
    missing = {"port", "unum"} - used
    if missing:
        raise ConfigError(f"{path}: external.command: needs {', '.join('{' + m + '}' for m in sorted(missing))} "
                          f"(each player is started with the server's port and its unum)")
    env = ext.get("env") or {}
    if not isinstance(env, dict):
        raise ConfigError(f"{path}: external.env: expected {{NAME: value}}")
    types = ext.get("types", [0] * 11)
    if not (isinstance(types, list) and len(types) == 11 and all(isinstance(t, int) and 0 <= t <= 4 for t in types)):
        raise ConfigError(f"{path}: external.types: expected 11 robot types 0..4 (one per unum 1..11)")
    cwd = ext.get("cwd")
    if cwd is not None and not Path(str(cwd)).is_dir():
        raise ConfigError(f"{path}: external.cwd: no directory {cwd} (is the team installed?)")
    name = str(ext.get("name") or path.stem)
    return ExternalTeam(name, command, None if cwd is None else str(cwd), {str(k): str(v) for k, v in env.items()},
                        tuple(types), str(path))


def external_error(team: ExternalTeam | None, server: str, penalty: bool = False) -> str | None:
    """Why an external team cannot play a game on `server` (with a §14 `penalty`), or None (also for no team)."""
    if team is None:
        return None
    if penalty:
        return f"{team.source}: an external team has no §14 penalty roles; --penalty plays villa teams"
    if server != "simspark":
        return f"{team.source}: an external team plays on the real SimSpark only (add --server simspark)"
    return None


@dataclass(frozen=True)
class TeamSpec:
    label: str                    # "A" or "B"
    config: str                   # team configuration file
    variant: str
    name: str                     # team name on the server
    external: ExternalTeam | None = None    # a team started by a command (not villa's pipelines)


@dataclass(frozen=True)
class GameSpec:
    index: int
    seed: int
    duration: float               # simulated s from the kick-off
    players: int
    server: str                   # villa | simspark
    socket: bool
    noise: bool
    a: TeamSpec
    b: TeamSpec
    out: str
    connect_timeout: float = 60.0
    stall_timeout: float = 60.0
    penalty: bool = False         # one penalty kick (§14): the left team's striker against the right team's goalie

    @property
    def a_left(self) -> bool:
        return self.index % 2 == 0


def team_config(spec: TeamSpec, players: int, backend: str, port: int, penalty: str = "") -> TeamConfig:
    """The team of a game: `spec`'s configuration file with the game's team name, variant, backend and size; with
    `penalty` (striker | goalie) every player's strategy takes that §14 penalty role."""
    path = Path(spec.config)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the team configuration ({e.strerror})") from None
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        raise ConfigError(f"{path}: not a team configuration (see villa_bringup/config/team.yaml)")
    if players > len(data["players"]):
        raise ConfigError(f"{path}: has {len(data['players'])} players, the games ask for {players}")
    data = {**data, "team": spec.name, "variant": spec.variant, "backend": backend, "composition": "player",
            "server": {"host": "127.0.0.1", "port": port},
            "players": [{k: v for k, v in p.items() if k not in ("backend", "host", "port")}
                        for p in data["players"][:players]]}
    if penalty:
        data["players"] = with_penalty_role(data["players"], penalty)
    return parse(data, str(path))

