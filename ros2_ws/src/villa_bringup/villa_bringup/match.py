"""`villa match`: a match on the embedded simulator or the real SimSpark, from start to a final table.

Starts `villa sim` (or, with ``--server simspark``, rcssserver3d; both in sync mode), then two teams one player at a
time (villa on the left, by default a §11.5
variant of villa on the right), kicks off through the trainer, plays the given simulated time with live progress
(simulated time, score, real-time factor) and prints a final table: score, ball possession, falls and
localization error (each player's `pose` against the server's ground truth). Exit code 0 for a completed match;
1 with a reason otherwise (simulator died, players never connected, the game stalled). ``--penalty``: one §14
penalty kick instead, villa's striker against the opponent's goalie (villa_bringup.games: the same start and end).
``--opponent-config`` with an `external` entry (config/opponent_utbase.yaml: the UT Austin Villa base code) plays a
team no one here wrote on SimSpark, its players started by the configuration's command (villa_bringup.games).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from villa_bringup.accounting import SETTLE, Accounting, HalfTime, beamed, duration_error, game_over
from villa_bringup.games.play import ExternalPlayers, GameError, penalty_over, start_penalty
from villa_bringup.games.spec import PENALTY_TIME, external_error, external_team, with_penalty_role
from villa_bringup.team_config import VARIANTS, ConfigError, default_path, load
from villa_nao import field as F


def _log(msg: str) -> None:
    print(f"villa match: {msg}", flush=True)


class MatchError(RuntimeError):
    """The match could not be completed; the message is the reason."""


class CpuMeter:
    """CPU time (user + system) used by process trees since the first sample: the simulator and each team.

    Sampled while the match runs, per pid, so a restarted process counts both of its lives."""

    def __init__(self) -> None:
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._group: dict[int, str] = {}

    def sample(self, groups: dict[str, list[int]]) -> None:
        import psutil

        for name, roots in groups.items():
            for root in roots:
                try:
                    procs = [psutil.Process(root)]
                    procs += procs[0].children(recursive=True)
                except psutil.Error:
                    continue
                for pr in procs:
                    try:
                        t = pr.cpu_times()
                    except psutil.Error:
                        continue
                    used = t.user + t.system
                    self._first.setdefault(pr.pid, used)
                    self._last[pr.pid] = used
                    self._group[pr.pid] = name

    def seconds(self) -> dict[str, float]:
        """Group name -> CPU seconds used since its processes were first sampled."""
        out: dict[str, float] = {}
        for pid, last in self._last.items():
            g = self._group[pid]
            out[g] = out.get(g, 0.0) + max(0.0, last - self._first[pid])
        return out


SERVERS = ("villa", "simspark")      # --server: villa sim or the real SimSpark (also the players' backend)


def server_unavailable(server: str) -> str | None:
    """Why `server` (one of SERVERS) cannot run here, or None: villa sim always can, SimSpark where installed."""
    if server != "simspark":
        return None
    from villa_sim.simspark import available

    ok, why = available()
    return None if ok else why


def team_file(base: Path, team: str, variant: str, port: int, players: int | None, out_dir: Path,
              composition: str | None, backend: str = "villa", penalty: str = "", realtime: bool = False
              ) -> Path:
    """A copy of a team configuration with the match's team name, variant, server, backend and player count (and
    with `penalty`, every player's §14 penalty role; with `realtime`, every bridge not in sync mode)."""
    data = yaml.safe_load(base.read_text())
    data["team"] = team
    data["variant"] = variant
    data.setdefault("server", {})
    data["server"] = {**(data["server"] or {}), "host": "127.0.0.1", "port": port}
    data["backend"] = backend
    if players is not None:
        if players > len(data["players"]):
            raise ConfigError(f"{base}: players: has {len(data['players'])}, the match asks for {players} -- "
                              f"use --full or a configuration with more players")
        data["players"] = data["players"][:players]
    if composition:
        data["composition"] = composition
    for p in data["players"]:
        p.pop("backend", None)
        p.pop("port", None)
        p.pop("host", None)
    if penalty:
        data["players"] = with_penalty_role(data["players"], penalty)
    if realtime:          # the server paces 20 ms cycles and waits for nobody: the bridges answer without (syn)
        for p in data["players"]:
            params = p.setdefault("params", {}) or {}
            p["params"] = {**params, "bridge": {**(params.get("bridge") or {}), "sync": False}}
    path = out_dir / f"{team}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    load(path)  # validate now: a bad configuration stops here with its one-line reason
    return path


class PoseListener:
    """Subscribes to every player's `pose` (PoseWithCovarianceStamped, team-relative field frame)."""

    def __init__(self, teams: dict[str, list[int]]) -> None:
        from geometry_msgs.msg import PoseWithCovarianceStamped

        from villa_nao.ros import BackgroundNode

        self.latest: dict[tuple[str, int], tuple[float, float, float]] = {}
        self.stamps: dict[tuple[str, int], float] = {}     # the server time of each player's latest pose (s)
        self._bg = BackgroundNode("villa_match")
        for team, unums in teams.items():
            for u in unums:
                self._bg.node.create_subscription(PoseWithCovarianceStamped, f"/{team}/p{u}/pose",
                                                  lambda m, k=(team, u): self._on_pose(k, m), 5)
        self._bg.start()

    def _on_pose(self, key, msg) -> None:
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        self.latest[key] = (p.x, p.y, F.yaw_upright((q.w, q.x, q.y, q.z))[0])
        self.stamps[key] = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9

    def wait_time(self, seconds: float, keys, timeout: float) -> None:
        """Until every player in `keys` has published a pose stamped `seconds` of server time after the earliest
        latest stamp now (SimSpark's game clock, which the trainer reads, stands before the kick-off)."""
        deadline = time.monotonic() + timeout
        start = None
        while True:
            stamps = [self.stamps.get(k) for k in keys]
            if all(s is not None for s in stamps):
                start = min(stamps) if start is None else start
                if min(stamps) >= start + seconds:
                    return
            if time.monotonic() > deadline:
                silent = [f"{t} #{u}" for (t, u), s in zip(keys, stamps, strict=True) if s is None]
                raise TimeoutError(f"no pose from {', '.join(silent)} within {timeout:.0f} s" if silent else
                                   f"the players' server time did not advance {seconds:.0f} s within {timeout:.0f} s")
            time.sleep(0.05)

    def close(self) -> None:
        self._bg.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", choices=SERVERS, default="villa",
                   help="villa: the embedded simulator (default); simspark: the real rcssserver3d (installed)")
    p.add_argument("--duration", type=float, default=None,
                   help=f"simulated seconds to play (default 120; --penalty {PENALTY_TIME:.0f})")
    p.add_argument("--players", type=int, default=None, help="players per team (default 2; --full for 11)")
    p.add_argument("--full", action="store_true", help="11 v 11 with config/team_11.yaml for both teams")
    p.add_argument("--opponent", choices=VARIANTS, default="allball",
                   help="the right team's strategy variant (UT Austin Villa 2011 report §11.5; default allball)")
    p.add_argument("--config", default=None, help="team configuration for villa (default config/team.yaml)")
    p.add_argument("--opponent-config", default=None,
                   help="team configuration for the opponent (default: same); one with an `external` entry starts a "
                        "team no one here wrote by its command (config/opponent_utbase.yaml; SimSpark only)")
    p.add_argument("--composition", choices=("player", "node"), default=None,
                   help="override both teams' composition (player: one process per player; node: per node)")
    p.add_argument("--noise", choices=("simspark", "off"), default="simspark",
                   help="vision noise of villa sim (default simspark; the real SimSpark always has it)")
    p.add_argument("--seed", type=int, default=None, help="villa sim's noise seed (SimSpark draws its own)")
    p.add_argument("--log-dir", default=None, help="logs and result.json (default .villa-logs/match-<time>)")
    p.add_argument("--connect-timeout", type=float, default=60.0, help="s to wait for each player (default 60)")
    p.add_argument("--stall-timeout", type=float, default=60.0,
                   help="wall s without simulated time advancing before the match is abandoned (default 60)")
    p.add_argument("--penalty", action="store_true",
                   help="one penalty kick (§14): villa's striker against the opponent's goalie, 1 v 1")
    p.add_argument("--realtime", action="store_true",
                   help="the league's mode: the server paces 20 ms cycles and waits for no agent (not sync); the "
                        "table counts each team's late answers")


def match_args(**values) -> argparse.Namespace:
    """`villa match`'s arguments as its command line gives them by default, with `values` set over them (and the
    callers' own: standing, on_start): for benches and tests that call play()."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    vars(args).update(values)
    return args


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa match", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args()
    penalty = bool(getattr(args, "penalty", False))
    if penalty and (args.full or args.players not in (None, 1)):
        print("villa match: --penalty is 1 v 1 (a striker and a goalie); leave out --players and --full",
              file=sys.stderr)
        return 2
    if args.duration is None:
        args.duration = PENALTY_TIME if penalty else 120.0
    if args.players is None:
        args.players = 1 if penalty else 2
    if args.duration <= 0:
        print("villa match: --duration must be positive (simulated seconds)", file=sys.stderr)
        return 2
    if (why := duration_error(args.server, args.duration)) is not None:
        print(f"villa match: {why}", file=sys.stderr)
        return 2
    if not 1 <= args.players <= 11:
        print("villa match: --players must be 1..11", file=sys.stderr)
        return 2
    if (why := server_unavailable(args.server)) is not None:
        print(f"villa match: --server simspark: {why}", file=sys.stderr)
        return 2
    if args.server == "simspark":
        if args.noise == "off" or args.seed is not None:
            print("villa match: --noise off and --seed apply to villa sim only (SimSpark's noise is its own)",
                  file=sys.stderr)
            return 2
    try:
        result = play(args)
    except (MatchError, ConfigError) as e:
        print(f"villa match: FAILED: {e}", file=sys.stderr)
        return 1
    print_table(result)
    return 0


def start_server(args: argparse.Namespace, log_dir: Path):
    """(server, trainer class) for --server: villa sim or the real SimSpark, sync mode, free ports."""
    if args.server == "simspark":
        from villa_sim.simspark import SimSparkServer, SimSparkTrainer

        realtime = bool(getattr(args, "realtime", False))
        server = SimSparkServer(directory=log_dir / "simspark", sync=not realtime, realtime=realtime)
        _log(f"SimSpark (rcssserver3d) on ports {server.agent_port}/{server.monitor_port} "
             f"({'real time' if realtime else 'sync'}); log {server.log_path}")
        return server, SimSparkTrainer
    from villa_sim.testing import SimProcess
    from villa_sim.trainer import Trainer

    realtime = bool(getattr(args, "realtime", False))
    server = SimProcess("--log-level", "WARNING", *(("--no-sync", "--realtime") if realtime else ()),
                        noise=args.noise == "simspark", seed=args.seed, log_dir=str(log_dir))
    _log(f"villa sim on ports {server.agent_port}/{server.monitor_port} ({'real time' if realtime else 'sync'}, "
         f"noise {args.noise})")
    return server, Trainer


def play(args: argparse.Namespace) -> dict:
    from villa_bringup.domain import lease_domain
    from villa_bringup.team import TeamRunner
    from villa_sim.trainer import TrainerError

    log_dir = Path(args.log_dir or f".villa-logs/match-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    log_dir.mkdir(parents=True, exist_ok=True)
    base_cfg = Path(args.config) if args.config else default_path().parent / ("team_11.yaml" if args.full
                                                                                 else "team.yaml")
    opp_cfg = Path(args.opponent_config) if args.opponent_config else base_cfg
    players = None if args.full and not args.config else args.players
    external = external_team(opp_cfg)
    if (why := external_error(external, args.server, bool(getattr(args, "penalty", False)))) is not None:
        raise ConfigError(why)
    lease = lease_domain()
    env = dict(os.environ, ROS_DOMAIN_ID=str(lease.domain_id), PYTHONUNBUFFERED="1")
    os.environ["ROS_DOMAIN_ID"] = str(lease.domain_id)
    runners: list[TeamRunner] = []
    sim = trainer = poses = None
    others: ExternalPlayers | None = None
    try:
        sim, trainer_cls = start_server(args, log_dir)
        _log(f"ROS_DOMAIN_ID={lease.domain_id}; logs in {log_dir}")
        cfg_dir = Path(tempfile.mkdtemp(prefix="villa-match-", dir=log_dir))
        backend = args.server
        penalty = bool(getattr(args, "penalty", False))
        realtime = bool(getattr(args, "realtime", False))
        left = load(team_file(base_cfg, "villa", "villa", sim.agent_port, players, cfg_dir, args.composition,
                              backend, "striker" if penalty else "", realtime))
        right = None if external is not None else load(team_file(
            opp_cfg, args.opponent if args.opponent != "villa" else "villa2", args.opponent, sim.agent_port, players,
            cfg_dir, args.composition, backend, "goalie" if penalty else "", realtime))
        villa_teams = [left] + ([right] if right is not None else [])
        trainer = trainer_cls(port=sim.monitor_port)
        poses = PoseListener({cfg.team: [p.unum for p in cfg.players] for cfg in villa_teams})
        for cfg in villa_teams:  # the first team to connect plays on the left
            runner = TeamRunner(cfg, log_dir, env=env, ready_timeout=args.connect_timeout)
            runners.append(runner)
            _log(f"starting {cfg.team} ({cfg.variant}, {len(cfg.players)} players, composition {cfg.composition})")
            runner.start()
            missing = [u for u, ok in runner.ready.items() if not ok]
            if missing:
                raise MatchError(f"{cfg.team}: players {missing} were not confirmed by the server within "
                                 f"{args.connect_timeout:.0f} s (logs in {log_dir / cfg.team})")
        if external is not None:
            name = external.name if external.name != left.team else f"{external.name}2"
            (log_dir / name).mkdir(exist_ok=True)
            others = ExternalPlayers(external, name, "right", [p.unum for p in left.players], log_dir / name)
            _log(f"starting {name} (external: {external.source}, {len(left.players)} players)")
            try:
                others.start(sim.agent_port, trainer, args.connect_timeout, threading.Event(), sync=sim.sync)
            except GameError as e:
                raise MatchError(str(e)) from None
        right_team = right.team if right is not None else others.name
        n = 2 * len(left.players) if right is None else len(left.players) + len(right.players)
        try:
            trainer.wait_for(lambda g: len(g.players) == n, timeout=args.connect_timeout)
            trainer.wait_for(beamed, timeout=args.stall_timeout)
            poses.wait_time(SETTLE, [(cfg.team, p.unum) for cfg in villa_teams for p in cfg.players],
                            args.stall_timeout)
        except (TrainerError, TimeoutError) as e:
            raise MatchError(f"the server did not show all {n} players standing on their own half: {e}") from e
        if penalty:
            start_penalty(trainer, args.server)
            _log(f"penalty kick: {left.team}'s striker v {right_team}'s goalie, {args.duration:.0f} simulated s")
        elif getattr(args, "standing", False):
            _log(f"no kick-off: {left.team} and {right_team} stand on their beam spots, {args.duration:.0f} "
                 f"simulated s")
        else:
            trainer.kick_off("Left")
            _log(f"kick-off: {left.team} (left) v {right_team} (right), {args.duration:.0f} simulated s")
        if getattr(args, "on_start", None) is not None:      # villa bench cpu: a profiler on the players' processes
            args.on_start(runners)
        # the bridges' counts so far (their last stats line, at most stats_period old: the players stood since
        # they joined): late answers are counted from the kick-off on (joining stalls the server for each robot)
        before = {cfg.team: bridge_cycles(log_dir / cfg.team) for cfg in villa_teams}
        result = _monitor(args, sim, trainer, poses, runners, left.team, right_team, log_dir, others)
    finally:
        _stop_all(([others.stop] if others is not None else []) + [r.stop for r in reversed(runners)]
                  + [x.close for x in (poses, trainer) if x is not None]
                  + ([sim.stop] if sim is not None else []) + [lease.release])
    after = {team: bridge_cycles(log_dir / team) for team in before}
    result["late"] = {team: (after[team][0] - before[team][0], after[team][1] - before[team][1]) for team in after}
    (log_dir / "result.json").write_text(json.dumps(result, indent=2))
    return result


def _stop_all(stops) -> None:
    """Call every stop, each even when one before it raised (a failed stop must not leave the server or the other
    team running: seen once, a player and villa sim left behind by a test), then raise the first failure."""
    first = None
    for stop in stops:
        try:
            stop()
        except Exception as e:  # logged, and raised after the others
            _log(f"stopping failed: {type(e).__name__}: {e}")
            first = first or e
    if first is not None:
        raise first


BRIDGE_STATS = re.compile(r"bridge: (\d+) cycles, (\d+) late")


def bridge_cycles(team_dir: Path) -> tuple[int, int]:
    """(cycles, late answers) of a team's bridges: the last stats line each bridge logged (it logs them every
    stats_period wall s when they changed, and when it stops)."""
    cycles = late = 0
    for log in sorted(team_dir.glob("p*/*.log")):
        found = BRIDGE_STATS.findall(log.read_text(errors="replace"))
        if found:
            cycles += int(found[-1][0])
            late += int(found[-1][1])
    return cycles, late


def _monitor(args, sim, trainer, poses, runners, left_team: str, right_team: str, log_dir: Path,
             others: ExternalPlayers | None = None) -> dict:
    account = Accounting(left_team, right_team)
    gt = trainer.truth()
    standing = bool(getattr(args, "standing", False))
    half_time = HalfTime()

    def players_time(g) -> float:
        """The time the slowest player's latest pose carries (SimSpark's trainer has only the game clock, which
        stands before a kick-off; every player published before the kick-off, PoseListener.wait_time), or the
        trainer's simulated time without poses."""
        stamps = list(poses.stamps.values()) if poses is not None else []
        return min(stamps) if stamps else g.sim_time

    def server_time(g) -> float:
        """What shows the simulation goes on: the trainer's simulated time, or the players' while the clock stands
        (standing with no kick-off, and at half time)."""
        return players_time(g) if standing or half_time.pending else g.sim_time

    def clock(g) -> float:
        """What --duration counts: the game clock, or the server's time when there is no kick-off."""
        return server_time(g) if standing else g.game_time

    start_game, start_wall = clock(gt), time.monotonic()
    last_sim, last_advance = server_time(gt), time.monotonic()
    last_print = 0.0
    cpu = CpuMeter()

    def cpu_groups() -> dict[str, list[int]]:           # per process: the simulator, each player's or node's
        ext = {f"/{others.name}/p{u}": [p.pid] for u, p in others.procs.items()} if others is not None else {}
        return {"simulator": [sim.proc.pid],
                **{m.label: [m.proc.pid] for r in runners for m in r.managed if m.proc is not None}, **ext}

    cpu.sample(cpu_groups())
    while True:
        time.sleep(0.2)
        cpu.sample(cpu_groups())
        for r in runners:
            r.poll()
        if others is not None:
            try:
                others.check()
            except GameError as e:
                raise MatchError(str(e)) from None
        if sim.proc.poll() is not None:
            raise MatchError(f"the simulator exited with code {sim.proc.returncode}: {sim.log()[-500:]}")
        gt = trainer.truth()
        now = time.monotonic()
        now_sim = server_time(gt)
        if now_sim > last_sim:
            last_sim, last_advance = now_sim, now
        elif now - last_advance > args.stall_timeout:
            raise MatchError(f"simulated time stood still at {last_sim:.2f} s for {args.stall_timeout:.0f} wall s "
                             f"(a player stopped answering in sync mode? logs in {log_dir})")
        if half_time.due(gt, players_time(gt)):
            _log(f"second half: {right_team}'s kick-off")
            trainer.kick_off("Right")
        if not half_time.pending:
            account.sample(gt, poses.latest if poses is not None else None)
        played = clock(gt) - start_game
        if now - last_print >= 5.0 or played >= args.duration:
            last_print = now
            rtf = played / max(now - start_wall, 1e-6)
            _log(f"t={played:6.1f}/{args.duration:.0f} s  score {gt.score_left}:{gt.score_right}  "
                 f"mode {gt.play_mode}  real-time factor {rtf:.2f}")
        if played >= args.duration:
            break
        if game_over(gt):
            _log(f"the server ended the game (GameOver) at t={played:.1f} s: score {gt.score_left}:{gt.score_right}")
            break
        if getattr(args, "penalty", False) and penalty_over(gt):
            _log(f"penalty kick over at t={played:.1f} s: " + ("goal" if gt.score_left else f"mode {gt.play_mode}"))
            break
    wall = time.monotonic() - start_wall
    cpu.sample(cpu_groups())
    by_process = cpu.seconds()
    cpu_s = {"simulator": by_process.get("simulator", 0.0)}
    for team in [r.config.team for r in runners] + ([others.name] if others is not None else []):
        cpu_s[team] = sum(v for k, v in by_process.items() if k.startswith(f"/{team}/"))
    result = {"duration": played, "wall": wall, "real_time_factor": played / wall, "samples": account.samples,
              "cpu_seconds": cpu_s, "cpu_by_process": by_process, "cpu_cores": sum(cpu_s.values()) / max(wall, 1e-6),
              "teams": {side: account.summary(side) for side in ("left", "right")}}
    if getattr(args, "penalty", False):
        result["penalty"] = {"striker": left_team, "scored": gt.score_left > 0}
    (log_dir / "result.json").write_text(json.dumps(result, indent=2))
    return result


def _speeds(team: dict) -> str:
    """The field players' speed in play (villa_bringup.accounting): median / p90 over 1-s windows."""
    if team.get("speed_median") is None:
        return "n/a"
    return f"{team['speed_median']:.2f}/{team['speed_p90']:.2f} m/s"


def print_table(result: dict) -> None:
    left, right = result["teams"]["left"], result["teams"]["right"]

    def fmt(v, unit=""):
        return "n/a" if v is None else f"{v:.2f}{unit}"

    rows = [("team", left["team"], right["team"]), ("score", str(left["score"]), str(right["score"])),
            ("ball possession", f"{100 * left['possession']:.0f} %", f"{100 * right['possession']:.0f} %"),
            ("falls", str(left["falls"]), str(right["falls"])),
            ("speed in play", _speeds(left), _speeds(right)),
            ("localization error", fmt(left["loc_error_mean"], " m"), fmt(right["loc_error_mean"], " m")),
            ("heading error", fmt(left["heading_error_mean"], " deg"), fmt(right["heading_error_mean"], " deg"))]
    def kickoffs(team):
        ks = team.get("kickoff_times") or []
        return ", ".join("not kicked" if k is None else f"{k:.1f} s" for k in ks) or "none"

    rows.append(("kick-off: ball moved", kickoffs(left), kickoffs(right)))
    rows.append(("free kicks awarded", str(left.get("free_kicks", 0)), str(right.get("free_kicks", 0))))
    late = result.get("late")
    if late:
        def share(team):
            cycles, n = late.get(team, (0, 0))
            return f"{n} ({100 * n / cycles:.1f} %)" if cycles else "n/a"
        rows.append(("late answers in play", share(left["team"]), share(right["team"])))
    print(f"\nvilla match: {result['duration']:.1f} simulated s in {result['wall']:.0f} wall s "
          f"(real-time factor {result['real_time_factor']:.2f})")
    if "penalty" in result:
        print(f"  penalty kick: {result['penalty']['striker']} " + ("scored" if result["penalty"]["scored"]
                                                                     else "did not score"))
    for name, a, b in rows:
        print(f"  {name:<20} {a:>14} {b:>14}")
    cpu = result.get("cpu_seconds")
    if cpu:
        parts = ", ".join(f"{k} {v:.0f} s" for k, v in cpu.items())
        print(f"  CPU: {sum(cpu.values()):.0f} s ({parts}), {result['cpu_cores']:.2f} cores busy on average, "
              f"{sum(cpu.values()) / max(result['duration'], 1e-6):.2f} CPU s per simulated s")
