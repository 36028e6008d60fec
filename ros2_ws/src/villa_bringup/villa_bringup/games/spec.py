"""What a game of `villa games` is: its teams (TeamSpec), the game (GameSpec), and the team configuration each team
plays it with (team_config), with the §14 penalty roles of a penalty shoot-out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from villa_bringup.team_config import ConfigError, TeamConfig, parse

PENALTY_TIME = 40.0               # simulated s of a penalty kick (report §14)
PENALTY_ROLES = {"left": "striker", "right": "goalie"}     # a penalty game: the left team shoots


def with_penalty_role(players: list[dict], role: str) -> list[dict]:
    """Team configuration `players` entries whose strategy takes the §14 penalty `role` (striker | goalie)."""
    return [{**p, "params": {**(p.get("params") or {}), "strategy": {
        **((p.get("params") or {}).get("strategy") or {}), "penalty": role}}} for p in players]


@dataclass(frozen=True)
class TeamSpec:
    label: str                    # "A" or "B"
    config: str                   # team configuration file
    variant: str
    name: str                     # team name on the server


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

