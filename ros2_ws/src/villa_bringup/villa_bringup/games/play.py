"""One game of `villa games` to its end: every player's pipeline and the accounting (Game), on villa sim stepped in
this process (HostedGame) or on a server process over sockets (SocketGame; also against an external team, whose
players are processes of their own, ExternalPlayers); play_game picks one."""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import threading
import time
from pathlib import Path

from villa_bringup.accounting import SETTLE, Accounting, HalfTime, beamed, game_over
from villa_bringup.games.gate import GateProcess
from villa_bringup.games.kicks import KickTracker
from villa_bringup.games.spec import PENALTY_ROLES, GameSpec, external_error, team_config

SAMPLE_EVERY = 10                 # server cycles between ground-truth samples (0.2 s)
CYCLE = 0.02


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


class ExternalPlayers:
    """An external team's players (games.spec.ExternalTeam): one process each, started one at a time, each waited
    for on the server (SimSpark stalls while it creates a robot and hangs when several join at once); on a server in
    sync mode each connects through a join gate (games.gate: the server would hang for good on a player whose scene
    comes late). Stopped with SIGTERM (SIGKILL after STOP_WAIT s). A player that exits during the game is an error
    with its log's tail. Each player's output goes to `log_dir`/<team>-<unum>.log, the pids to
    `log_dir`/<team>.pids."""

    STOP_WAIT = 3.0

    def __init__(self, team, name: str, side: str, unums: list[int], log_dir: Path) -> None:
        self.team, self.name, self.side, self.unums = team, name, side, unums
        self.log_dir = log_dir
        self.procs: dict[int, subprocess.Popen] = {}
        self._logs: dict[int, Path] = {}
        self.gates: GateProcess | None = None

    def start(self, port: int, trainer, timeout: float, stop, sync: bool = True) -> None:
        if sync:
            try:
                self.gates = GateProcess(port, len(self.unums))
            except RuntimeError as e:
                raise GameError(f"{self.name}: {e}") from None
        for i, unum in enumerate(self.unums):
            argv = self.team.argv("127.0.0.1", self.gates.ports[i] if self.gates else port, self.name, unum,
                                  str(self.log_dir))
            log = self.log_dir / f"{self.name}-{unum}.log"
            self._logs[unum] = log
            try:
                with open(log, "wb") as out:
                    self.procs[unum] = subprocess.Popen(argv, cwd=self.team.cwd, env=self.team.environment(),
                                                        stdout=out, stderr=subprocess.STDOUT,
                                                        stdin=subprocess.DEVNULL, start_new_session=True)
            except OSError as e:
                raise GameError(f"{self.name} #{unum}: cannot start {argv[0]!r} ({e.strerror}; "
                                f"configuration {self.team.source})") from None
            with open(self.log_dir / f"{self.name}.pids", "a") as f:     # what was started, for whoever looks after
                f.write(f"{self.procs[unum].pid}\n")
            deadline = time.monotonic() + timeout
            while True:
                gt = trainer.truth()
                if gt is not None and (self.side, unum) in gt.players:
                    break
                self.check()
                if time.monotonic() > deadline:
                    gate = f"; its connection: {self.gates.state(i)}" if self.gates else ""
                    raise GameError(f"{self.name} #{unum} did not join the server within {timeout:.0f} s "
                                    f"(log {log}{gate}): {self.tail(unum)}")
                if stop.is_set():
                    raise KeyboardInterrupt
                time.sleep(0.05)

    def tail(self, unum: int, n: int = 400) -> str:
        try:
            return self._logs[unum].read_text(errors="replace")[-n:]
        except (KeyError, OSError):
            return ""

    def check(self) -> None:
        """GameError if a player's process has exited."""
        for unum, p in self.procs.items():
            code = p.poll()
            if code is not None:
                raise GameError(f"{self.name} #{unum} exited with code {code} (log {self._logs[unum]}): "
                                f"{self.tail(unum)}")

    def cpu(self) -> float:
        """CPU s the players' processes have used so far."""
        import psutil

        total = 0.0
        for p in self.procs.values():
            try:
                t = psutil.Process(p.pid).cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + self.STOP_WAIT
        for p in self.procs.values():
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.gates is not None:
            self.gates.close()


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
            if t.external is not None:                  # its players are processes of their own (SocketGame)
                continue
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

    def result(self, played: float, wall: float, cpu: float, external_cpu: float | None = None) -> dict:
        sides = {t.label: side for side, t in self.sides.items()}
        out = {"game": self.spec.index, "seed": self.spec.seed, "server": self.spec.server + ("-socket" if
                                                                                           self.spec.socket else ""),
               "players": self.spec.players, "duration": round(played, 3), "wall": round(wall, 3),
               "cpu": round(cpu, 3), "sim_per_wall": round(played / max(wall, 1e-9), 3),
               "sim_per_cpu": round(played / max(cpu, 1e-9), 3)}
        if external_cpu is not None:          # an external team's processes (not in "cpu": this process and the server)
            out["cpu_external"] = round(external_cpu, 3)
        if self.spec.penalty:
            out["penalty"] = {"striker": self.sides["left"].label}
        minutes = self.spec.players * played / 60.0
        for label, side in sides.items():
            team = self.teams[side]
            s = self.account.summary(side)
            kicks = [pl.motion.stats for pl in team]
            firsts = [pl.first_kick - self.kickoff_time for pl in team
                      if pl.first_kick is not None and self.kickoff_time is not None]
            external = self.sides[side].external is not None
            out[label] = {**{k: (round(v, 4) if isinstance(v, float) else v) for k, v in s.items()},
                          "side": side, "variant": "external" if external else self.sides[side].variant,
                          "external": external,
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
            if external:                      # what only villa's own pipelines can say is not known of it
                out[label].update({k: None for k in ("kicks_requested", "kicks_executed", "kicks_refused", "errors",
                                                     "cycles", "late_cycles")})
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
        penalty kick with --penalty). A benchmark may start it otherwise (villa bench kickoff_after_goal)."""
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
        externals: list[ExternalPlayers] = []
        try:
            server, trainer_cls = _quiet(start_server, args, log_dir)
            for pl in self.players:
                pl.session.config.port = server.agent_port
            trainer = trainer_cls(port=server.monitor_port)
            w0 = time.monotonic()
            c0 = _cpu(server)
            for side in ("left", "right"):                     # the first team to join plays on the left
                ext = self.sides[side].external
                if ext is not None:
                    players = ExternalPlayers(ext, self.sides[side].name, side, list(range(1, self.spec.players + 1)),
                                              log_dir)
                    externals.append(players)
                    players.start(server.agent_port, trainer, self.spec.connect_timeout, stop, sync=server.sync)
                    continue
                for pl in self.teams[side]:                     # one at a time: SimSpark hangs otherwise
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
            n = 2 * self.spec.players
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
                for players in externals:
                    players.check()
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
            return self.result(played, time.monotonic() - w0, _cpu(server) - c0,
                               sum(p.cpu() for p in externals) if externals else None)
        finally:
            for players in externals:
                players.stop()
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
    for team in (spec.a.external, spec.b.external):
        if (why := external_error(team, spec.server, spec.penalty)) is not None:
            raise GameError(why)
    if spec.server == "villa" and not spec.socket:
        return HostedGame(spec, spec.server).play(stop, progress)
    return SocketGame(spec, spec.server).play(stop, progress)
