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

``--penalty``: a penalty shoot-out (report §14) instead: every game is one penalty kick, a striker of the left team
against the right team's goalie, the ball on the centre spot in play on, 40 simulated s (``--duration``); it ends at
a goal, when the ball leaves the field or when the time is up. Team A shoots in even games, team B in odd ones.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import multiprocessing as mp
import os
import queue
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from villa_bringup.accounting import (
    KICKOFF_KICK_WITHIN,
    SETTLE,
    Accounting,
    HalfTime,
    beamed,
    duration_error,
    game_over,
    team_relative,
)
from villa_bringup.team_config import VARIANTS, ConfigError, TeamConfig, default_path, parse
from villa_nao.field import HALF_LENGTH as F_HALF_LENGTH
from villa_nao.interrupt import interruptible
from villa_sim.lifetime import die_with_parent

SAMPLE_EVERY = 10                 # server cycles between ground-truth samples (0.2 s)
PENALTY_TIME = 40.0               # simulated s of a penalty kick (report §14)
PENALTY_ROLES = {"left": "striker", "right": "goalie"}     # a penalty game: the left team shoots
CYCLE = 0.02


def with_penalty_role(players: list[dict], role: str) -> list[dict]:
    """Team configuration `players` entries whose strategy takes the §14 penalty `role` (striker | goalie)."""
    return [{**p, "params": {**(p.get("params") or {}), "strategy": {
        **((p.get("params") or {}).get("strategy") or {}), "penalty": role}}} for p in players]


def start_penalty(trainer, server: str) -> None:
    """A penalty kick starts in play on with the ball on the centre spot: villa sim's (dropBall) drops it where it
    lies; SimSpark's drop ball would move the striker 2 m away from it, so there the play mode is set instead."""
    if server == "simspark":
        trainer.play_mode("PlayOn")
    else:
        trainer.drop_ball()


def penalty_over(gt) -> bool:
    """A penalty kick ends early at a goal, or when the ball left the field (any play mode but play on)."""
    return gt.score_left + gt.score_right > 0 or gt.play_mode != "PlayOn"


class GameError(RuntimeError):
    """A game could not be played; the message is the reason."""


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


# --- one game ---------------------------------------------------------------------------------------------------
KICK_FOLLOW = 3.0                 # simulated s after a kick started: where the ball is then is where the kick sent it


class KickTracker:
    """One player's kick requests (villa_motion.arbiter.KickRecord) with where each executed kick sent the ball: the
    ball's truth when the sample first sees the kick started and KICK_FOLLOW s later, in the team's field frame; the
    true ball in the kicker's torso frame then (against the ball the kick engine started with); and the nearest any
    other robot came to the ball in those KICK_FOLLOW s (a kick into a robot's legs stops short)."""

    def __init__(self, side: str, unum: int) -> None:
        self.key = (side, unum)
        self.seen: dict[int, tuple[float, object]] = {}                    # record number -> (game time, record)
        self.follow: dict[int, tuple[float, tuple[float, float]]] = {}     # -> (game time, ball at the start)
        self.moved: dict[int, tuple] = {}   # -> (m moved, degrees off the goal, ball at the start, KICK_FOLLOW s later)
        self.truth: dict[int, tuple[float, float]] = {}     # -> the true ball in the kicker's torso frame at the start
        self.others: dict[int, float] = {}                  # -> m, the nearest another robot came to the ball

    def sample(self, log, gt) -> None:
        side = self.key[0]
        bx, by, _ = team_relative(side, gt.ball[0], gt.ball[1], 0.0)
        near = min((math.dist(p.position[:2], gt.ball[:2]) for k, p in gt.players.items() if k != self.key),
                   default=math.inf)
        for r in log:
            self.seen.setdefault(r.n, (gt.game_time, r))
            if r.started is None or r.n in self.moved:
                continue
            if r.n not in self.follow:
                self.follow[r.n] = (gt.game_time, (bx, by))
                me = gt.players.get(self.key)
                if me is not None:
                    c, s = math.cos(me.yaw), math.sin(me.yaw)
                    dx, dy = gt.ball[0] - me.position[0], gt.ball[1] - me.position[1]
                    self.truth[r.n] = (c * dx + s * dy, -s * dx + c * dy)
            self.others[r.n] = min(self.others.get(r.n, math.inf), near)
            if gt.game_time - self.follow[r.n][0] >= KICK_FOLLOW - 1e-9:
                x0, y0 = self.follow[r.n][1]
                goal = math.atan2(-y0, F_HALF_LENGTH - x0)
                off = math.degrees(math.remainder(math.atan2(by - y0, bx - x0) - goal, 2 * math.pi))
                self.moved[r.n] = (math.hypot(bx - x0, by - y0), off, (x0, y0), (bx, by))

    def entries(self, unum: int) -> list[dict]:
        out = []
        for n, (time_seen, r) in sorted(self.seen.items()):
            e = {"time": round(time_seen, 2), "unum": unum, "kick": r.kick,
                 "ball": [round(r.ball[0], 3), round(r.ball[1], 3)], "outcome": r.outcome}
            if r.reason:
                e["reason"] = r.reason
            if n in self.moved:
                moved, off, start, end = self.moved[n]
                e["ball_moved"], e["off_goal_deg"] = round(moved, 2), round(off, 1)
                e["from"], e["to"] = [round(v, 2) for v in start], [round(v, 2) for v in end]
                e["others_within"] = round(self.others[n], 2) if math.isfinite(self.others[n]) else None
            if r.started_ball is not None:
                e["started_ball"] = [round(v, 3) for v in r.started_ball]
            if n in self.truth:
                e["ball_truth"] = [round(v, 3) for v in self.truth[n]]
            out.append(e)
        return out


class Game:
    """The players of both teams (pipelines) and the accounting of one game; subclasses host the server."""

    def __init__(self, spec: GameSpec, backend: str, port: int = 3100) -> None:
        from villa_bringup.pipeline import PlayerPipeline, node_parameters

        self.spec = spec
        left, right = (spec.a, spec.b) if spec.a_left else (spec.b, spec.a)
        self.sides = {"left": left, "right": right}
        self.players: list[PlayerPipeline] = []
        self.teams: dict[str, list[PlayerPipeline]] = {"left": [], "right": []}
        log = logging.getLogger(f"villa_games.{spec.index}")
        for side, t in self.sides.items():
            cfg = team_config(t, spec.players, backend, port, PENALTY_ROLES[side] if spec.penalty else "")
            for p in cfg.players:
                params = node_parameters(cfg, p)
                params["bridge"] = {**params["bridge"], "reconnect": False, "sync_watchdog": 30.0,
                                    "recv_timeout": 30.0, "idle_cycle_period": 0.0}
                seed = spec.seed * 1000 + (0 if side == "left" else 100) + p.unum
                pl = PlayerPipeline(params, seed=seed, log=log)
                self.players.append(pl)
                self.teams[side].append(pl)
        self.account = Accounting(left.name, right.name, self._motion_context)
        self.kickoff_time: float | None = None
        self.half_time = HalfTime()
        self.kicks = {id(pl): KickTracker(side, pl.backend.unum) for side, team in self.teams.items() for pl in team}

    def sample(self, gt, kick_off, progress, now: float) -> float:
        """One ground-truth sample of the game under way (`now`: the players' time): the second half's kick-off
        (HalfTime), the accounting, progress. Returns the simulated s played since the kick-off."""
        if self.half_time.due(gt, now):
            kick_off("Right")
        if not self.half_time.pending:
            self.account.sample(gt, self.estimates())
            for pl in self.players:
                self.kicks[id(pl)].sample(pl.motion.stats.log, gt)
        played = gt.game_time - self.kickoff_time
        progress(played)
        return played

    def over(self, gt) -> bool:
        """The game ends before --duration: the server's GameOver, or a penalty kick's end (penalty_over)."""
        return game_over(gt) or (self.spec.penalty and penalty_over(gt))

    def _motion_context(self, team: str, unum: int):
        for pl in self.players:
            if pl.team == team and (pl.session.unum or pl.backend.unum) == unum:
                return pl.motion_context()
        return None

    def estimates(self) -> dict[tuple[str, int], tuple[float, float, float]]:
        return {(pl.team, pl.session.unum or pl.backend.unum): pl.pose() for pl in self.players}

    def result(self, played: float, wall: float, cpu: float) -> dict:
        sides = {t.label: side for side, t in self.sides.items()}
        out = {"game": self.spec.index, "seed": self.spec.seed, "server": self.spec.server + ("-socket" if
                                                                                           self.spec.socket else ""),
               "players": self.spec.players, "duration": round(played, 3), "wall": round(wall, 3),
               "cpu": round(cpu, 3), "sim_per_wall": round(played / max(wall, 1e-9), 3),
               "sim_per_cpu": round(played / max(cpu, 1e-9), 3)}
        if self.spec.penalty:
            out["penalty"] = {"striker": self.sides["left"].label}
        minutes = self.spec.players * played / 60.0
        for label, side in sides.items():
            team = self.teams[side]
            s = self.account.summary(side)
            kicks = [pl.motion.stats for pl in team]
            firsts = [pl.first_kick - self.kickoff_time for pl in team
                      if pl.first_kick is not None and self.kickoff_time is not None]
            out[label] = {**{k: (round(v, 4) if isinstance(v, float) else v) for k, v in s.items()},
                          "side": side, "variant": self.sides[side].variant,
                          "falls_per_player_minute": round(s["falls"] / max(minutes, 1e-9), 4),
                          "kicks_requested": sum(k.requested for k in kicks),
                          "kicks_executed": sum(k.executed for k in kicks),
                          "kicks_refused": sum(k.refused for k in kicks),
                          "first_kick": round(min(firsts), 2) if firsts else None,
                          "kicked_off": side == "left" and not self.spec.penalty,    # the game's first kick-off
                          "kick_log": sorted((e for pl in team for e in self.kicks[id(pl)].entries(
                              pl.session.unum or pl.backend.unum)), key=lambda e: e["time"]),
                          "errors": sum(pl.session.stats.callback_errors + pl.rejected + pl.decision_errors
                                        for pl in team),
                          "cycles": sum(pl.session.stats.cycles for pl in team),
                          "late_cycles": sum(pl.session.stats.late_cycles for pl in team)}
        gd = out["A"]["score"] - out["B"]["score"]
        out["goal_difference"] = gd
        out["result"] = "W" if gd > 0 else ("L" if gd < 0 else "D")
        return out


class HostedGame(Game):
    """villa sim stepped in this process (villa_sim.hosted): deterministic for a seed."""

    def join(self, server, answer_of=None) -> None:
        """Connect every player to `server` (a villa_sim.hosted.HostedServer), the left team first (the first team to
        join plays on the left); `answer_of(player)` may put something between a player and its session's answer."""
        for side in ("left", "right"):
            for pl in self.teams[side]:
                server.connect(pl.session.begin(), pl.session.answer if answer_of is None else answer_of(pl))

    def setup(self, stop):
        """A hosted server with every player joined, beamed and standing for SETTLE simulated s (before the
        kick-off)."""
        from villa_sim.hosted import HostedServer, seed_everything

        seed_everything(self.spec.seed)
        server = HostedServer(vision_noise=self.spec.noise, seed=self.spec.seed)
        self.join(server)
        n = len(self.players)
        deadline = server.time + self.spec.connect_timeout
        since = None
        while True:                                 # join, beam, stand on the own half for SETTLE simulated s
            server.step()
            gt = server.truth()
            ready = all(pl.session.confirmed for pl in self.players) and len(gt.players) == n and beamed(gt)
            since = (since if since is not None else gt.sim_time) if ready else None
            if since is not None and gt.sim_time - since >= SETTLE - 1e-9:
                break
            if server.time > deadline:
                raise GameError(f"the players were not all on the field, beamed and upright within "
                                f"{self.spec.connect_timeout:.0f} simulated s")
            if stop.is_set():
                raise KeyboardInterrupt
        return server

    def play(self, stop, progress) -> dict:
        w0, c0 = time.monotonic(), time.process_time()
        server = self.setup(stop)
        if self.spec.penalty:
            start_penalty(server, "villa")          # §14: the ball on the centre spot, play on
        else:
            server.kick_off("Left")
        server.step()
        self.kickoff_time = server.truth().game_time
        cycles = 0
        while True:
            server.step()
            cycles += 1
            if cycles % SAMPLE_EVERY:
                continue
            gt = server.truth()
            played = self.sample(gt, server.kick_off, progress, gt.sim_time)
            if played >= self.spec.duration - 1e-6 or stop.is_set() or self.over(gt):
                break
        if stop.is_set() and played < self.spec.duration - 1e-6:
            raise KeyboardInterrupt
        return self.result(played, time.monotonic() - w0, time.process_time() - c0)


class SocketGame(Game):
    """A server process (villa sim or the real SimSpark) on free ports, each player's session on its own thread."""

    def start(self, trainer) -> None:
        """Play starts through the trainer once every player stands on its beam spot: the left team's kick-off (a
        penalty kick with --penalty). A benchmark may start it otherwise (bench/kickoff_after_goal.py)."""
        if self.spec.penalty:
            start_penalty(trainer, self.spec.server)
        else:
            trainer.kick_off("Left")

    def wait_perceived(self, seconds: float, stop=None) -> None:
        """Wait `seconds` of the server time the players perceive (SimSpark's monitor clock is the game clock, which
        stands before the kick-off). GameError when it stands still for stall_timeout s; KeyboardInterrupt once `stop`
        (an Event) is set."""
        t0 = min(pl.sim_time for pl in self.players)
        deadline = time.monotonic() + self.spec.stall_timeout
        while min(pl.sim_time for pl in self.players) < t0 + seconds:
            if time.monotonic() > deadline:
                raise GameError(f"simulated time stood still for {self.spec.stall_timeout:.0f} s before the kick-off")
            if stop is not None and stop.is_set():
                raise KeyboardInterrupt
            time.sleep(0.02)

    def play(self, stop, progress) -> dict:
        from villa_bringup.match import start_server

        args = argparse.Namespace(server=self.spec.server, noise="simspark" if self.spec.noise else "off",
                                  seed=self.spec.seed)
        log_dir = Path(self.spec.out) / f"game{self.spec.index:04d}"
        log_dir.mkdir(parents=True, exist_ok=True)
        server = trainer = None
        threads: list[threading.Thread] = []
        try:
            server, trainer_cls = _quiet(start_server, args, log_dir)
            for pl in self.players:
                pl.session.config.port = server.agent_port
            trainer = trainer_cls(port=server.monitor_port)
            w0 = time.monotonic()
            c0 = _cpu(server)
            for pl in self.players:                             # one at a time: SimSpark hangs otherwise
                th = threading.Thread(target=pl.session.run, name=f"{pl.team}-{pl.backend.unum}", daemon=True)
                th.start()
                threads.append(th)
                deadline = time.monotonic() + self.spec.connect_timeout
                while not pl.session.confirmed:
                    if time.monotonic() > deadline or not th.is_alive():
                        raise GameError(f"{pl.team} #{pl.backend.unum} was not confirmed by the server within "
                                        f"{self.spec.connect_timeout:.0f} s: {server.log()[-500:]}")
                    if stop.is_set():
                        raise KeyboardInterrupt
                    time.sleep(0.02)
            n = len(self.players)
            trainer.wait_for(lambda g: len(g.players) == n and beamed(g), timeout=self.spec.connect_timeout)
            self.wait_perceived(SETTLE, stop)
            if self.spec.server == "simspark":
                trainer.wait_for(lambda g: len(g.players) == n and beamed(g), timeout=self.spec.connect_timeout)
            self.start(trainer)
            gt = trainer.wait_for(lambda g: g.play_mode != "BeforeKickOff", timeout=self.spec.stall_timeout)
            self.kickoff_time = gt.game_time
            next_t, played = gt.sim_time, 0.0
            while played < self.spec.duration - 1e-6:
                if stop.is_set():
                    raise KeyboardInterrupt
                if not server.alive():
                    raise GameError(f"the server exited: {server.log()[-500:]}")
                if gt.play_mode == "BeforeKickOff":     # half time: SimSpark's clock (the game clock) stands until
                    self.wait_perceived(SAMPLE_EVERY * CYCLE, stop)     # the kick-off; the players' goes on
                    gt = trainer.truth() or gt
                    next_t = gt.sim_time
                else:
                    next_t += SAMPLE_EVERY * CYCLE
                    try:
                        gt = trainer.wait_for(lambda g, t=next_t: g.sim_time >= t - 1e-6 or
                                              g.play_mode in ("BeforeKickOff", "GameOver"),
                                              timeout=self.spec.stall_timeout)
                    except Exception as e:
                        raise GameError(f"simulated time stood still for {self.spec.stall_timeout:.0f} s ({e})") from e
                played = self.sample(gt, trainer.kick_off, progress, min(pl.sim_time for pl in self.players))
                if self.over(gt):
                    break
            return self.result(played, time.monotonic() - w0, _cpu(server) - c0)
        finally:
            for pl in self.players:
                pl.session.stop()
            for th in threads:
                th.join(timeout=5)
            if trainer is not None:
                trainer.close()
            if server is not None:
                server.stop()


def _quiet(fn, *args):
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args)


def _cpu(server) -> float:
    """CPU s of this process and the server process (a socket game's cost on its core)."""
    import psutil

    own = time.process_time()
    try:
        t = psutil.Process(server.pid).cpu_times()
        return own + t.user + t.system
    except psutil.Error:
        return own


def play_game(spec: GameSpec, stop, progress=lambda played: None) -> dict:
    """One game to its end (or KeyboardInterrupt when `stop` is set); GameError with the reason."""
    backend = "simspark" if spec.server == "simspark" else "rcssservermj"
    if spec.server == "villa" and not spec.socket:
        return HostedGame(spec, backend).play(stop, progress)
    return SocketGame(spec, backend).play(stop, progress)


# --- many games on worker processes ------------------------------------------------------------------------------
def _worker(jobs, results, stop, log_dir: str, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)          # the main process stops us through `stop`
    # ... or by ending: SIGKILL (SIGTERM raises KeyboardInterrupt here, interruptible(), and a worker whose game
    # was interrupted took the next one); its servers then get their own parent-death signal
    die_with_parent(parent, signal.SIGKILL)
    logging.basicConfig(filename=os.path.join(log_dir, f"worker{os.getpid()}.log"), level=logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    while not stop.is_set():
        try:
            spec = jobs.get(timeout=0.2)
        except queue.Empty:
            continue
        if spec is None:
            return
        def progress(played: float, index=spec.index, last=[0.0]) -> None:  # noqa: B006  (this game's clock)
            now = time.monotonic()
            if now - last[0] > 0.5:
                last[0] = now
                results.put(("progress", index, played))

        try:
            results.put(("done", spec.index, play_game(spec, stop, progress)))
        except KeyboardInterrupt:
            results.put(("stopped", spec.index, None))
        except Exception as e:  # one game's failure is reported; the others go on
            logging.getLogger("villa_games").exception("game %d failed", spec.index)
            results.put(("error", spec.index, f"{type(e).__name__}: {e}"))


class Progress:
    """One line, rewritten in place on a terminal (a new line every 10 s otherwise)."""

    def __init__(self, total: int, duration: float, stream=sys.stderr) -> None:
        self.total, self.duration, self.stream = total, duration, stream
        self.tty = stream.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0

    def show(self, done: int, running: dict[int, float], force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < (0.5 if self.tty else 10.0):
            return
        self.last = now
        simulated = done * self.duration + sum(running.values())
        frac = simulated / max(self.total * self.duration, 1e-9)
        wall = now - self.t0
        rate = simulated / max(wall, 1e-9)
        eta = (self.total * self.duration - simulated) / rate if rate > 0 else math.inf
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        line = (f"villa games [{bar}] {done}/{self.total} games, {len(running)} running, "
                f"{rate:.2f} simulated s per wall s, ETA {eta / 60:.1f} min" if math.isfinite(eta) else "")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def run_games(specs: list[GameSpec], jobs: int, out: Path, echo=print) -> tuple[list[dict], list[str], bool]:
    """Play `specs` on `jobs` worker processes. (results by game index, error lines, interrupted)."""
    ctx = mp.get_context("fork")
    q_jobs, q_results, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    for s in specs:
        q_jobs.put(s)
    workers = [ctx.Process(target=_worker, args=(q_jobs, q_results, stop, str(out), os.getpid()),
                          daemon=True)
               for _ in range(max(1, min(jobs, len(specs))))]
    for _ in workers:
        q_jobs.put(None)
    for w in workers:
        w.start()
    results: dict[int, dict] = {}
    errors: list[str] = []
    running: dict[int, float] = {}
    bar = Progress(len(specs), specs[0].duration if specs else 0.0)
    interrupted = False
    lines = open(out / "games.jsonl", "a")
    try:
        while len(results) + len(errors) < len(specs):
            try:
                kind, index, payload = q_results.get(timeout=0.5)
            except queue.Empty:
                if not any(w.is_alive() for w in workers):
                    errors.append("the worker processes ended before every game was played")
                    break
                bar.show(len(results), running)
                continue
            if kind == "progress":
                running[index] = payload
            elif kind == "done":
                running.pop(index, None)
                results[index] = payload
                text = json.dumps(payload)
                lines.write(text + "\n")
                lines.flush()
                if bar.tty:
                    sys.stderr.write("\r" + " " * 160 + "\r")
                echo(text)
            elif kind == "error":
                running.pop(index, None)
                errors.append(f"game {index}: {payload}")
                echo(f"villa games: game {index} failed: {payload}", file=sys.stderr)
            bar.show(len(results), running, force=kind != "progress")
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
    finally:
        stop.set()
        deadline = time.monotonic() + 30
        for w in workers:
            w.join(timeout=max(0.1, deadline - time.monotonic()))
        for w in workers:
            if w.is_alive():
                w.terminate()
                w.join(timeout=5)
        while True:                                     # games that finished while we were stopping
            try:
                kind, index, payload = q_results.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
            if kind == "done" and index not in results:
                results[index] = payload
                lines.write(json.dumps(payload) + "\n")
        lines.close()
        bar.close()
    return [results[i] for i in sorted(results)], errors, interrupted


# --- the summary --------------------------------------------------------------------------------------------------
def _mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def standard_error(v) -> float | None:
    """The standard error of the mean of `v` (None entries left out); None for fewer than 2."""
    v = [x for x in v if x is not None]
    if len(v) < 2:
        return None
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))


def summarize(results: list[dict]) -> dict:
    gd = [r["goal_difference"] for r in results]
    out = {"games": len(results), "wins": sum(r["result"] == "W" for r in results),
           "draws": sum(r["result"] == "D" for r in results), "losses": sum(r["result"] == "L" for r in results),
           "goal_difference_mean": _mean(gd), "goal_difference_se": standard_error(gd),
           "simulated_s": sum(r["duration"] for r in results), "wall_s": sum(r["wall"] for r in results),
           "cpu_s": sum(r["cpu"] for r in results)}
    for label in ("A", "B"):
        rs = [r[label] for r in results]
        minutes = sum(r["players"] * r["duration"] / 60.0 for r in results)
        firsts = [x["first_kick"] for x in rs if x["first_kick"] is not None]
        out[label] = {"team": rs[0]["team"] if rs else "", "variant": rs[0]["variant"] if rs else "",
                      "goals": sum(x["score"] for x in rs), "goals_per_game": _mean([x["score"] for x in rs]),
                      "falls_per_player_minute": sum(x["falls"] for x in rs) / max(minutes, 1e-9),
                      "falls_by_cause": dict(sum((Counter(x.get("falls_by_cause", {})) for x in rs),
                                                 Counter()).most_common()),
                      "down": _mean([x["down"] for x in rs]),
                      "loc_error_mean": _mean([x["loc_error_mean"] for x in rs]),
                      "loc_error_p95": _mean([x["loc_error_p95"] for x in rs]),
                      "possession": _mean([x["possession"] for x in rs]),
                      "ball_x_mean": _mean([x.get("ball_x_mean") for x in rs]),
                      "attacking_third": _mean([x.get("attacking_third") for x in rs]),
                      "kicks_requested": sum(x["kicks_requested"] for x in rs),
                      "kicks_executed": sum(x["kicks_executed"] for x in rs),
                      "kicks_refused": sum(x["kicks_refused"] for x in rs),
                      "first_kick_mean": _mean(firsts), "games_with_a_kick": len(firsts),
                      # §11.2.1: the team's own kick-offs (the first, and each after a goal against it) whose ball
                      # moved off the spot within 3 s (a kick that falls or misses is not a kicked ball)
                      "kickoffs": sum(len(x.get("kickoff_times", [])) for x in rs),
                      "kickoffs_kicked": sum(t is not None and t <= KICKOFF_KICK_WITHIN
                                             for x in rs for t in x.get("kickoff_times", [])),
                      "kick_ball_moved_mean": _mean(moved := [e["ball_moved"] for x in rs
                                                              for e in x.get("kick_log", []) if "ball_moved" in e]),
                      "kicks_toward_goal": sum(abs(e["off_goal_deg"]) < 45.0 for x in rs
                                               for e in x.get("kick_log", []) if "off_goal_deg" in e),
                      "kicks_followed": len(moved),
                      "free_kicks": sum(x.get("free_kicks", 0) for x in rs),
                      "errors": sum(x["errors"] for x in rs),
                      "cycles": sum(x["cycles"] for x in rs),
                      "late_cycles": sum(x["late_cycles"] for x in rs)}
    kicks = [r for r in results if "penalty" in r]
    if kicks:                                           # a shoot-out: each team's penalty kicks and goals
        out["penalty"] = {label: {"kicks": sum(r["penalty"]["striker"] == label for r in kicks),
                                  "goals": sum(r["penalty"]["striker"] == label and r[label]["score"] > 0
                                               for r in kicks)} for label in ("A", "B")}
    return out


def table(s: dict) -> str:
    def f(v, fmt="{:.2f}"):
        return "n/a" if v is None else fmt.format(v)

    a, b = s["A"], s["B"]
    se = s["goal_difference_se"]
    rows = [("team (variant)", f"{a['team']} ({a['variant']})", f"{b['team']} ({b['variant']})"),
            ("goals (per game)", f"{a['goals']} ({f(a['goals_per_game'])})",
             f"{b['goals']} ({f(b['goals_per_game'])})"),
            ("falls per player-minute", f(a["falls_per_player_minute"]), f(b["falls_per_player_minute"])),
            ("time down", f(a["down"], "{:.1%}"), f(b["down"], "{:.1%}")),
            ("localization error m (mean, p95)", f"{f(a['loc_error_mean'])}, {f(a['loc_error_p95'])}",
             f"{f(b['loc_error_mean'])}, {f(b['loc_error_p95'])}"),
            ("possession", f(a["possession"], "{:.0%}"), f(b["possession"], "{:.0%}")),
            ("ball x m (own frame; in attacking third)",
             f"{f(a.get('ball_x_mean'), '{:+.2f}')} ({f(a.get('attacking_third'), '{:.0%}')})",
             f"{f(b.get('ball_x_mean'), '{:+.2f}')} ({f(b.get('attacking_third'), '{:.0%}')})"),
            ("kicks requested/executed/refused", f"{a['kicks_requested']}/{a['kicks_executed']}/{a['kicks_refused']}",
             f"{b['kicks_requested']}/{b['kicks_executed']}/{b['kicks_refused']}"),
            ("kicked ball: m moved in 3 s (toward goal)",
             f"{f(a.get('kick_ball_moved_mean'))} ({a.get('kicks_toward_goal', 0)}/{a.get('kicks_followed', 0)})",
             f"{f(b.get('kick_ball_moved_mean'))} ({b.get('kicks_toward_goal', 0)}/{b.get('kicks_followed', 0)})"),
            ("s from kick-off to first kick (games)", f"{f(a['first_kick_mean'], '{:.1f}')} ({a['games_with_a_kick']})",
             f"{f(b['first_kick_mean'], '{:.1f}')} ({b['games_with_a_kick']})"),
            (f"own kick-offs, ball moved within {KICKOFF_KICK_WITHIN:.0f} s", f"{a.get('kickoffs_kicked', 0)} of "
             f"{a.get('kickoffs', 0)}", f"{b.get('kickoffs_kicked', 0)} of {b.get('kickoffs', 0)}"),
            ("free kicks awarded (the other team's fouls)", str(a.get("free_kicks", 0)), str(b.get("free_kicks", 0))),
            ("late cycles (of cycles)", f"{a['late_cycles']} ({a['cycles']})", f"{b['late_cycles']} ({b['cycles']})")]
    head = (f"villa games: {s['games']} games, A: W {s['wins']} / D {s['draws']} / L {s['losses']}, goal difference "
            f"{f(s['goal_difference_mean'], '{:+.2f}')} +- {f(se)} (standard error); "
            f"{s['simulated_s']:.0f} simulated s in {s['cpu_s']:.0f} CPU s "
            f"({s['simulated_s'] / max(s['cpu_s'], 1e-9):.2f} simulated s per CPU s)")
    pen = s.get("penalty")
    if pen:
        head += (f"\n  penalty shoot-out: A scored {pen['A']['goals']} of {pen['A']['kicks']} penalty kicks, "
                 f"B {pen['B']['goals']} of {pen['B']['kicks']}")
    w = max(len(r[0]) for r in rows)
    lines = [head, f"  {'':<{w}} {'A':>22} {'B':>22}"]
    lines += [f"  {r[0]:<{w}} {r[1]:>22} {r[2]:>22}" for r in rows]
    for label, t in (("A", a), ("B", b)):
        causes = ", ".join(f"{k} {n}" for k, n in t.get("falls_by_cause", {}).items()) or "none"
        lines.append(f"  falls by cause, {label}: {causes}")
    return "\n".join(lines)


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    gd = [r["goal_difference"] for r in results]
    lo, hi = (min(gd), max(gd)) if gd else (0, 0)
    ax1.hist(gd, bins=[x - 0.5 for x in range(lo, hi + 2)], color="tab:blue", edgecolor="black")
    ax1.set_xlabel("goal difference (A - B)")
    ax1.set_ylabel("games")
    ax1.set_title(f"goal difference, {len(gd)} games")
    idx = [r["game"] for r in results]
    ax2.plot(idx, [r["A"]["falls"] for r in results], "o-", label=f"A {results[0]['A']['team'] if results else ''}")
    ax2.plot(idx, [r["B"]["falls"] for r in results], "s-", label=f"B {results[0]['B']['team'] if results else ''}")
    ax2.set_xlabel("game")
    ax2.set_ylabel("falls")
    ax2.set_title("falls per game")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --- the command ---------------------------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    p.add_argument("--duration", type=float, default=None,
                   help=f"simulated s per game from the kick-off (default 120; --penalty {PENALTY_TIME:.0f})")
    p.add_argument("--players", type=int, default=None, help="players per team (default 2; --penalty 1)")
    p.add_argument("--config", default=None, help="team A's configuration (default villa_bringup's config/team.yaml)")
    p.add_argument("--variant", choices=VARIANTS, default=None,
                   help="team A's strategy variant (§11.5; default: its configuration's)")
    p.add_argument("--opponent-config", default=None, help="team B's configuration (default: team A's)")
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
    _, b_variant_default = _config_name(b_cfg)
    a_variant = args.variant or a_variant
    b_variant = args.opponent or b_variant_default
    b_name = b_variant if b_variant != a_name else f"{b_variant}2"
    if b_name == a_name:
        b_name = f"{a_name}2"
    a = TeamSpec("A", str(a_cfg), a_variant, a_name)
    b = TeamSpec("B", str(b_cfg), b_variant, b_name)
    penalty = bool(getattr(args, "penalty", False))
    for t in (a, b):                                       # a bad configuration stops here, with its reason
        team_config(t, args.players, "rcssservermj", 3100, "striker" if penalty else "")
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
