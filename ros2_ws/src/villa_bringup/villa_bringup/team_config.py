"""The team configuration: one YAML file drives `team.launch.py` (ROS 2 distro) and `villa team` (no distro).

    team: villa                 # team name on the server (also the ROS namespace /<team>/p<unum>)
    backend: villa              # default for every player's world: villa (villa sim) | simspark | naoqi (a Nao)
    server: {host: 127.0.0.1, port: 3100}
    composition: player         # player: one process per player (EventsExecutor); node: one process per node
    variant: villa              # strategy variant (villa | allball | static | defense | boxes), UT Austin Villa 2011
                                # report §11.5
    stagger: 1.0                # s between player starts (the bridge also waits for the server's confirmation)
    players:
      - {unum: 1, robot_type: 0}
      - {unum: 2, robot_type: 1, backend: naoqi, nao_ip: 10.0.0.12}
      - {unum: 3, robot_type: 2, params: {motion: {walk.parameter_set: sprint}}}

Pure Python (no rclpy): the launch file imports it from a ROS 2 distro's Python as well.
Every error names the field and says how to fix it (one line: ConfigError's message).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from villa_nao.joints import is_robot_type
from villa_nao.params import WORLDS, config_path

BACKENDS = WORLDS                 # villa (villa sim) | simspark (rcssserver3d) | naoqi (a physical Nao)
COMPOSITIONS = ("player", "node")
VARIANTS = ("villa", "allball", "static", "defense", "boxes")    # villa_strategy.decision.VARIANTS (§11.5)
SHARED_WITH_STRATEGY = ("walk_parameter_sets", "kick_parameter_set")   # motion parameters the strategy must share
MAX_PLAYERS = 11
# SimSpark's heterogeneous-team rules (shared/simspark/SIMSPARK_FACTS.md, naosoccersim.rb).
MAX_PER_TYPE = 7
MIN_TYPES = 3
MAX_TOP_TWO = 9
TEAM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,15}$")


@dataclass(frozen=True)
class NodeKind:
    """One node of a player: which package, console script and class implement it."""

    name: str          # node name (and its config file config/<name>.yaml)
    package: str
    executable: str    # console script (ros2 run <package> <executable>)
    cls: str           # "module:Class" for composition in one process


NODE_KINDS: dict[str, NodeKind] = {k.name: k for k in (
    NodeKind("bridge", "villa_bridge", "bridge", "villa_bridge.node:BridgeNode"),
    NodeKind("naoqi_bridge", "villa_bridge", "naoqi_bridge", "villa_bridge.naoqi_node:NaoqiBridgeNode"),
    NodeKind("perception", "villa_perception", "perception", "villa_perception.node:PerceptionNode"),
    NodeKind("localization", "villa_localization", "localization", "villa_localization.node:LocalizationNode"),
    NodeKind("motion", "villa_motion", "motion", "villa_motion.node:MotionNode"),
    NodeKind("strategy", "villa_strategy", "strategy", "villa_strategy.node:StrategyNode"),
)}
ABOVE_BRIDGE = ("perception", "localization", "motion", "strategy")


class ConfigError(ValueError):
    """A bad team configuration; the message is one line naming the field and the fix."""


@dataclass(frozen=True)
class NodeSpec:
    kind: NodeKind
    namespace: str
    params_file: Path                       # the package's config/<node>.yaml
    overrides: dict[str, Any]               # parameters the team configuration sets

    @property
    def clock_remap(self) -> tuple[str, str]:
        """The player's own simulated clock: its bridge publishes /clock and its nodes take it as
        <namespace>/clock. With one /clock for the team every node would hear every bridge's clock (players x nodes x
        50 Hz messages, and a clock stepping between the players' streams)."""
        return "/clock", f"{self.namespace}/clock"

    @property
    def name(self) -> str:
        return self.kind.name


@dataclass(frozen=True)
class Player:
    unum: int
    robot_type: int
    backend: str
    host: str
    port: int
    nao_ip: str | None
    params: dict[str, dict[str, Any]]

    def namespace(self, team: str) -> str:
        return f"/{team}/p{self.unum}"


@dataclass(frozen=True)
class TeamConfig:
    team: str
    composition: str
    variant: str
    stagger: float
    players: tuple[Player, ...]
    source: str = "<dict>"
    extra: dict[str, Any] = field(default_factory=dict)

    def player(self, unum: int) -> Player:
        for p in self.players:
            if p.unum == unum:
                return p
        raise ConfigError(f"{self.source}: players: no player with unum {unum} (have "
                          f"{', '.join(str(p.unum) for p in self.players)})")

    def nodes(self, player: Player) -> list[NodeSpec]:
        """The nodes of one player, bridge first, with the parameters this configuration gives them."""
        ns = player.namespace(self.team)
        common = {"team": self.team, "unum": player.unum}
        if player.backend == "naoqi":
            bridge = NODE_KINDS["naoqi_bridge"]
            bridge_params = {"nao_ip": player.nao_ip, **({"port": player.port} if player.port else {})}
        else:
            bridge = NODE_KINDS["bridge"]
            bridge_params = {"backend": player.backend, "host": player.host, "port": player.port,
                             "robot_type": player.robot_type}
        specs = [NodeSpec(bridge, ns, _params_file(bridge), {**common, **bridge_params,
                                                            **player.params.get(bridge.name, {})})]
        for name in ABOVE_BRIDGE:
            kind = NODE_KINDS[name]
            overrides: dict[str, Any] = {"robot_type": player.robot_type} if name in ("motion", "perception") else {}
            if name == "motion":
                overrides["simulator"] = player.backend          # the per-simulator motion data (docs/motion.md)
            if name == "strategy":
                # the strategy plans with the player's own robot: its type, simulator, walk sets and kicks (motion's)
                motion = player.params.get("motion", {})
                overrides = {**common, "variant": self.variant, "team_size": len(self.players),
                             "robot_type": player.robot_type, "simulator": player.backend,
                             **{k: motion[k] for k in SHARED_WITH_STRATEGY if k in motion}}
            specs.append(NodeSpec(kind, ns, _params_file(kind), {**overrides, **player.params.get(name, {})}))
        return specs


def _params_file(kind: NodeKind) -> Path:
    return config_path(kind.package, f"{kind.name}.yaml")


def _err(source: str, where: str, what: str, fix: str) -> ConfigError:
    return ConfigError(f"{source}: {where}: {what} -- {fix}")


def parse(data: Any, source: str = "<dict>") -> TeamConfig:
    """Validate a loaded YAML document; raise ConfigError naming the first bad field."""
    if not isinstance(data, Mapping):
        raise _err(source, "(top level)", "expected a mapping", "start the file with `team: <name>`")
    known = {"team", "backend", "server", "composition", "variant", "stagger", "players", "nao"}
    for key in data:
        if key not in known:
            raise _err(source, str(key), "unknown field", f"use one of: {', '.join(sorted(known))}")
    if "team" not in data:
        raise _err(source, "team", "missing", "add `team: villa` (the team name on the server)")
    team = data["team"]
    if not isinstance(team, str) or not TEAM_NAME.match(team):
        raise _err(source, "team", f"{team!r} is not a valid team name",
                   "use 1-16 letters, digits or _ starting with a letter (it is also a ROS namespace)")
    backend = data.get("backend", "villa")
    if backend not in BACKENDS:
        raise _err(source, "backend", f"unknown backend {backend!r}", f"use one of: {', '.join(BACKENDS)}")
    server = data.get("server", {}) or {}
    if not isinstance(server, Mapping):
        raise _err(source, "server", "expected a mapping", "write `server: {host: 127.0.0.1, port: 3100}`")
    host = server.get("host", "127.0.0.1")
    port = _port(server.get("port", 3100), source, "server.port")
    composition = data.get("composition", "player")
    if composition not in COMPOSITIONS:
        raise _err(source, "composition", f"unknown composition {composition!r}",
                   "use `player` (one process per player) or `node` (one process per node)")
    variant = data.get("variant", "villa")
    if variant not in VARIANTS:
        raise _err(source, "variant", f"unknown variant {variant!r}", f"use one of: {', '.join(VARIANTS)}")
    stagger = data.get("stagger", 1.0)
    if not isinstance(stagger, int | float) or isinstance(stagger, bool) or not 0 <= stagger <= 60:
        raise _err(source, "stagger", f"{stagger!r} is not a number of seconds in 0..60", "write e.g. `stagger: 1.0`")
    nao = data.get("nao", {}) or {}
    raw_players = data.get("players")
    if raw_players is None:
        raise _err(source, "players", "missing", "add a list such as `players: [{unum: 1, robot_type: 0}]`")
    if not isinstance(raw_players, list) or not raw_players:
        raise _err(source, "players", "expected a non-empty list", "write `players: [{unum: 1, robot_type: 0}]`")
    if len(raw_players) > MAX_PLAYERS:
        raise _err(source, "players", f"{len(raw_players)} players", f"a team has at most {MAX_PLAYERS}")
    players = []
    seen: dict[int, int] = {}
    for i, raw in enumerate(raw_players):
        where = f"players[{i}]"
        if not isinstance(raw, Mapping):
            raise _err(source, where, "expected a mapping", "write `{unum: 1, robot_type: 0}`")
        for key in raw:
            if key not in ("unum", "robot_type", "backend", "host", "port", "nao_ip", "params"):
                raise _err(source, f"{where}.{key}", "unknown field",
                           "use unum, robot_type, backend, host, port, nao_ip, params")
        if "unum" not in raw:
            raise _err(source, f"{where}.unum", "missing", "add the uniform number 1..11")
        unum = raw["unum"]
        if not isinstance(unum, int) or isinstance(unum, bool) or not 1 <= unum <= MAX_PLAYERS:
            raise _err(source, f"{where}.unum", f"{unum!r} is not a uniform number", "use an integer 1..11")
        if unum in seen:
            raise _err(source, f"{where}.unum", f"duplicate unum {unum} (also players[{seen[unum]}])",
                       "give every player its own uniform number")
        seen[unum] = i
        rtype = raw.get("robot_type", 0)
        if not is_robot_type(rtype):
            raise _err(source, f"{where}.robot_type", f"{rtype!r} is not a robot type", "use 0, 1, 2, 3 or 4")
        pb = raw.get("backend", backend)
        if pb not in BACKENDS:
            raise _err(source, f"{where}.backend", f"unknown backend {pb!r}", f"use one of: {', '.join(BACKENDS)}")
        nao_ip = raw.get("nao_ip", nao.get("ip") if isinstance(nao, Mapping) else None)
        if pb == "naoqi" and not nao_ip:
            raise _err(source, f"{where}.nao_ip", "missing for backend naoqi", "add `nao_ip: <the robot's address>`")
        default_port = (nao.get("port", 9559) if isinstance(nao, Mapping) else 9559) if pb == "naoqi" else port
        pport = _port(raw.get("port", default_port), source, f"{where}.port")
        params = raw.get("params", {}) or {}
        if not isinstance(params, Mapping) or not all(isinstance(v, Mapping) for v in params.values()):
            raise _err(source, f"{where}.params", "expected {node: {parameter: value}}",
                       "write e.g. `params: {motion: {walk.parameter_set: sprint}}`")
        for node in params:
            if node not in NODE_KINDS:
                raise _err(source, f"{where}.params.{node}", "unknown node", f"use one of: {', '.join(NODE_KINDS)}")
        players.append(Player(unum, int(rtype), pb, str(raw.get("host", host)), pport,
                              None if nao_ip is None else str(nao_ip), {k: dict(v) for k, v in params.items()}))
    check_robot_types([p.robot_type for p in players if p.backend != "naoqi"], source)
    return TeamConfig(team, composition, variant, float(stagger), tuple(players), source)


def _port(value: Any, source: str, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
        raise _err(source, where, f"{value!r} is not a port", "use an integer 1..65535")
    return value


def check_robot_types(types: list[int], source: str = "<dict>") -> None:
    """SimSpark's heterogeneous-team rules: <= 7 of one type, the two most used <= 9, >= 3 types (or all players)."""
    counts = Counter(types)
    for t, n in counts.items():
        if n > MAX_PER_TYPE:
            raise _err(source, "players[].robot_type", f"{n} players of robot type {t}",
                       f"at most {MAX_PER_TYPE} of one type: change some to other types (0-4)")
    top_two = sum(n for _, n in counts.most_common(2))
    if top_two > MAX_TOP_TWO:
        raise _err(source, "players[].robot_type", f"the two most used types have {top_two} players",
                   f"at most {MAX_TOP_TWO}: use a third type for the others")
    needed = min(MIN_TYPES, len(types))
    if len(counts) < needed:
        raise _err(source, "players[].robot_type", f"{len(counts)} robot types for {len(types)} players",
                   f"use at least {needed} different types (SimSpark requires {MIN_TYPES} per team)")


def load(path: str | Path) -> TeamConfig:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError as e:
        raise ConfigError(f"{path}: no such team configuration -- check the path "
                          f"(the default is villa_bringup's config/team.yaml)") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}:{line} not valid YAML ({getattr(e, 'problem', e)}) -- fix the syntax") from e
    return parse(data, str(path))


def default_path() -> Path:
    return config_path("villa_bringup", "team.yaml")


def swap_to_nao(config: TeamConfig, spec: str) -> TeamConfig:
    """`<unum>@<ip>[:port]`: that player drives a physical Nao through NAOqi; nothing else changes (docs/naoqi.md)."""
    import dataclasses

    unum_s, _, address = spec.partition("@")
    if not unum_s.strip().isdigit() or not address:
        raise ConfigError(f"nao: {spec!r} is not <unum>@<ip> -- write e.g. 3@192.168.1.12 (port 9559 by default)")
    ip, _, port_s = address.partition(":")
    port = int(port_s) if port_s.isdigit() else 9559
    player = config.player(int(unum_s))
    swapped = dataclasses.replace(player, backend="naoqi", nao_ip=ip, port=_port(port, config.source, "nao port"))
    return dataclasses.replace(config, players=tuple(swapped if p is player else p for p in config.players))
