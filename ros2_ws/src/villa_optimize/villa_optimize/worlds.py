"""Where an episode runs: the world villa (villa sim), in process or on a headless `villa sim` process, or the world
simspark, the real SimSpark (rcssserver3d); make_world picks one.

- InProcessWorld (villa): villa_sim.inprocess.InProcessNao, villa sim's simulation class, Nao model and actuation
  stepped directly (no sockets): the fastest.
- VillaSocketWorld (villa with socket, §10.3's parallel evaluation, one simulator per worker): `villa sim` in sync
  mode without real-time pacing on free ports; the robot's torso pose comes with every perception (rcssservermj's
  `pos`/`quat`).
- SimSparkWorld (simspark): the real rcssserver3d (villa_sim.simspark), sync mode, no pacing; the torso pose and the
  ball come from its monitor (villa_sim.simspark.SimSparkTrainer, a few cycles behind the perception). Before every
  episode the game clock is reset and the play mode set to PlayOn, so the half never ends and the referee keeps out.

In both socket worlds the agent is villa_bridge's protocol session (no ROS) driving the episode from the callback of
every perception, so each cycle is answered at once. Each world keeps one simulation for all the evaluations of a
worker: the robot (joints reset by the episode's settling) and the ball are placed again for every episode.

An episode (villa_optimize.tasks.Episode, kick_objective.KickEpisode, or any object with ``task.placement()``,
``task.ball``, ``step(Observation) -> joint targets``, ``done``, ``timed_out()`` and ``result()``) may ask to start
lying on the back or front (``task.lying = "back" | "front"``): the in-process world lays the robot down directly,
the socket worlds tip it over with joint motions (villa_optimize.worlds.TIP_OVER) and start when it lies still. A
task whose ``placement()`` is None starts where the robot is (the next attempt of a failed get-up).
"""

from __future__ import annotations

import logging
import math
import time

from villa_bridge.teamframe import gyro_rates, torso_axes
from villa_motion.arbiter import stiffness_for
from villa_motion.walk import WalkEngine, WalkParams
from villa_nao import body
from villa_nao import field as F
from villa_optimize.tasks import Episode, EpisodeResult, Observation, Task

BALL_AWAY = (10.0, 8.0)          # ball position during walk-only tasks (far from every course)
LIE_STILL = 0.5                  # s the robot lies with its torso's up axis below LYING_UPRIGHT before the start
STAND_BEFORE_TIP = 0.6           # s in the stand pose after placement before a robot is tipped over
POSE_BEFORE_MOVE = 0.5           # s of stand-pose targets before the trainer moves the robot (it may lie folded)
LYING_UPRIGHT = 0.3
# Joint targets (NAOqi, rad) that tip a standing Nao over: bent far back at the hips, it falls on its back; bent
# forward with the arms back, on its front.
TIP_OVER = {
    "back": {"LHipPitch": -1.2, "RHipPitch": -1.2, "LKneePitch": 0.0, "RKneePitch": 0.0, "LAnklePitch": 0.6,
             "RAnklePitch": 0.6, "LShoulderPitch": 2.0, "RShoulderPitch": 2.0},
    "front": {"LHipPitch": 0.8, "RHipPitch": 0.8, "LKneePitch": 0.0, "RKneePitch": 0.0, "LAnklePitch": -0.9,
              "RAnklePitch": -0.9, "LShoulderPitch": 2.0, "RShoulderPitch": 2.0},
}
# A robot that sat down instead of falling (robot type 1, on its long legs: up-axis about 0.9 for good): sitting up
# (above SITTING_UPRIGHT) TIP_HARDER_AFTER s after the tip-over began, the hips straighten and the arms swing up over
# the head, so the torso tips on over. (Late enough that a robot still falling, as type 0 does, is never pushed: its
# get-ups were learned from TIP_OVER's pose.)
TIP_HARDER = {"LHipPitch": 0.0, "RHipPitch": 0.0, "LShoulderPitch": -1.5, "RShoulderPitch": -1.5}
TIP_HARDER_AFTER = 2.5
SITTING_UPRIGHT = 0.6
TIP_TIMEOUT = 6.0                # s of tipping before the robot is placed again


def idle_walk(robot_type: int) -> WalkEngine:
    """The walk engine a world stands the robot with between episodes."""
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path

    return WalkEngine(load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), robot_type=robot_type),
                      robot_type=robot_type)


def _lying(task) -> str | None:
    side = getattr(task, "lying", None)
    if side not in (None, "back", "front"):
        raise ValueError(f"task.lying must be None, 'back' or 'front', got {side!r}")
    return side


class Preparation:
    """Brings the robot to an episode's start, the same way in every world: the stand pose wherever it is (it may lie
    folded after the last episode), then placed at the task's spot, standing still a moment, and for a lying task
    tipped over with joint motions until it lies still. ``step`` is called once per cycle until ``done``; it returns the
    joint targets and whether the world must place the robot (and the ball) now."""

    def __init__(self, task, idle: WalkEngine) -> None:
        self.task, self.idle = task, idle
        self.lying = _lying(task)
        self.state = "posing" if task.placement() is not None else "done"
        self.since: float | None = None
        self.lying_since: float | None = None
        self.harder = False                     # TIP_HARDER on
        self.attempts = 0

    @property
    def done(self) -> bool:
        return self.state == "done"

    def _enter(self, state: str, now: float) -> None:
        self.state, self.since, self.lying_since, self.harder = state, now, None, False

    def step(self, now: float, joints: dict[str, float], pose) -> tuple[dict[str, float], bool]:
        """pose: (x, y, z, yaw, upright) of the torso or None when not known yet."""
        if self.since is None:
            self.since = now
        self.idle.command_stand()
        stand = self.idle.update(0.02, joints).joints
        if self.state == "posing":
            if now - self.since >= POSE_BEFORE_MOVE:
                self._enter("placing", now)
                return stand, True
            return stand, False
        if pose is None:
            return stand, False
        if self.state == "placing":
            x, y, _ = self.task.placement()
            placed = math.hypot(pose[0] - x, pose[1] - y) < 0.05
            settle = STAND_BEFORE_TIP if self.lying else 0.1        # into the stand pose before tipping over
            if placed and now - self.since >= settle:
                self._enter("tipping" if self.lying else "done", now)
            elif now - self.since > 3.0 + settle:
                raise RuntimeError("the placement of the robot did not take effect within 3 s")
            else:
                return stand, False
        if self.state == "tipping":
            lying = pose[4] < LYING_UPRIGHT
            self.lying_since = (self.lying_since or now) if lying else None
            if lying and now - self.lying_since >= LIE_STILL:
                self.state = "done"
            elif now - self.since > TIP_TIMEOUT:          # it did not go down (or not still): place it again
                self.attempts += 1
                if self.attempts >= 3:
                    raise RuntimeError(f"the robot did not fall on its {self.lying} in 3 attempts")
                self._enter("posing", now)
                return stand, False
            self.harder = self.harder or (now - self.since > TIP_HARDER_AFTER and pose[4] > SITTING_UPRIGHT)
            return {**stand, **TIP_OVER[self.lying], **(TIP_HARDER if self.harder else {})}, False
        return stand, False


class InProcessWorld:
    name = "villa"

    def __init__(self, robot_type: int = 0, seed: int = 0) -> None:
        from villa_sim.inprocess import InProcessNao

        self.robot_type = robot_type
        self.nao = InProcessNao(x=-5.0, robot_type=robot_type, seed=seed, vision_noise=False)
        self._idle = idle_walk(robot_type)

    def run(self, task: Task, sets: dict[str, WalkParams]) -> EpisodeResult:
        return self.run_episode(Episode(task, sets, self.robot_type, self.name))

    def run_episode(self, ep):
        """Run any episode (see the module docstring) to its end."""
        task = ep.task
        nao = self.nao
        ball = nao.sim.ball
        prep = Preparation(task, self._idle)
        while not prep.done:
            p, yaw, up = nao.torso_pose()
            targets, move = prep.step(nao.time, nao.joint_angles(), (p[0], p[1], p[2], yaw, up))
            if move:
                nao.place(*task.placement(), keep_joints=True)
                nao.place_ball(*(task.ball or BALL_AWAY))
            nao.command(targets)
            nao.step()
        while not ep.done and not ep.timed_out():
            p, yaw, up = nao.torso_pose()
            b = (float(ball.xpos[0]), float(ball.xpos[1])) if task.ball is not None else None
            targets = ep.step(Observation(nao.time, float(p[0]), float(p[1]), yaw, up, nao.joint_angles(), b,
                                          z=float(p[2]), feet=nao.feet(), acc=tuple(nao.accelerometer()),
                                          gyro=tuple(nao.gyro())))
            s = getattr(ep, "leg_stiffness", 1.0)
            nao.command(targets, dict(zip(targets, stiffness_for(targets, s), strict=True)))
            nao.step()
        return ep.result()

    def pids(self) -> list[int]:
        return []

    def close(self) -> None:
        self.nao = None


class _SocketWorld:
    """One server process of this worker, its trainer and one agent (a bridge session), driven from the evaluating
    thread: each cycle reads the perception, the trainer's messages that came with it, and answers at once. No thread
    of its own: in sync mode the server waits between episodes, and a cycle costs what its work costs (the lean
    evaluation path: the motion stack and the episode, without the game's perception, localization or strategy)."""

    TEAM = "villaopt"
    name = ""

    def __init__(self, robot_type: int = 0) -> None:
        self.robot_type = robot_type
        self.server = self.trainer = self.session = self._sock = None
        self._frames = None
        self._idle = idle_walk(robot_type)
        self._handler = None                    # called with (perception, joints) from the session's callback
        self.cycles = 0                         # perceptions answered

    def _start_agent(self, backend, log_name: str) -> None:
        import socket

        from villa_bridge import framing
        from villa_bridge.session import BridgeSession, SessionConfig

        log = logging.getLogger(f"villa_optimize.{log_name}{self.server.agent_port}")
        log.setLevel(logging.WARNING)
        self.session = BridgeSession(backend, SessionConfig(port=self.server.agent_port, reconnect=False,
                                                            sync_watchdog=30.0, recv_timeout=30.0,
                                                            vision=False),
                                     on_perception=self._on_perception, log=log)
        deadline = time.monotonic() + 60.0
        while True:
            try:
                self._sock = socket.create_connection(("127.0.0.1", self.server.agent_port), timeout=2.0)
                break
            except OSError as e:
                if time.monotonic() > deadline or not self.server.alive():
                    raise RuntimeError(f"{self.name}: cannot reach the server's agent port ({e}): "
                                       f"{self.server.log()[-1000:]}") from e
                time.sleep(0.1)
        self._sock.settimeout(30.0)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._frames = framing.FrameReader(framing.DEFAULT_MAX_SIZE)
        self._pending: list[bytes] = []
        for msg in self.session.begin():
            self._sock.sendall(framing.encode(msg))
        self._handler = self._idle_cycle
        while not self.session.confirmed:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: the server did not accept the optimization agent: "
                                   f"{self.server.log()[-1000:]}")
            self._exchange()

    def _exchange(self) -> None:
        """One cycle: the next perception, the session's answer (its callback runs the handler), sent at once."""
        from villa_bridge import framing

        while not self._pending:
            try:
                chunk = self._sock.recv(1 << 16)
            except TimeoutError:
                raise RuntimeError(f"{self.name}: no perception for 30 s; server log: "
                                   f"{self.server.log()[-500:]}") from None
            if not chunk:
                raise RuntimeError(f"{self.name}: the server closed the optimization agent's connection: "
                                   f"{self.server.log()[-500:]}")
            self._pending.extend(self._frames.feed(chunk))
        reply = self.session.answer(self._pending.pop(0))
        if reply:
            self._sock.sendall(framing.encode(reply))
        self.session.answered()
        self.cycles += 1

    # --- what differs between servers ---------------------------------------------------------------------
    def _prepare(self, task) -> None:
        """Before placing the robot for an episode."""

    def _pose(self, p) -> tuple[float, float, float, float, float] | None:
        """(x, y, z, yaw, upright) of the torso, global frame, for perception p; None if not known yet."""
        raise NotImplementedError

    def _ball(self, task) -> tuple[float, float] | None:
        if task.ball is None:
            return None
        truth = self.trainer.truth()
        return (truth.ball[0], truth.ball[1]) if truth is not None else task.ball

    # --- the agent's cycle (inside the session's answer) ----------------------------------------------------
    def _submit(self, joints: dict[str, float], stamp: float | None, leg_stiffness: float = 1.0) -> None:
        from villa_bridge.joint_io import JointTarget

        stiffness = stiffness_for(joints, leg_stiffness)
        self.session.submit_targets({n: JointTarget(v, None, s) for (n, v), s in zip(joints.items(), stiffness,
                                                                                     strict=True)}, stamp)

    def _on_perception(self, p, t0: float) -> None:
        self.trainer.poll()                     # the ground truth that came with this perception
        self._handler(p, self.session.angles)

    def _idle_cycle(self, p, joints: dict[str, float]) -> None:
        self._submit(self._idle.update(0.02, joints).joints, p.time)

    # --- evaluation -------------------------------------------------------------------------------------------
    def run(self, task: Task, sets: dict[str, WalkParams]) -> EpisodeResult:
        return self.run_episode(Episode(task, sets, self.robot_type, self.name))

    def run_episode(self, episode):
        """Run any episode (see the module docstring) to its end."""
        task = episode.task
        prep = Preparation(task, self._idle)
        state = {"error": None}

        def cycle(p, joints):
            if state["error"] is not None:
                self._idle_cycle(p, joints)
                return
            try:
                self._episode_cycle(episode, prep, p, joints)
            except BaseException as e:         # keep answering the server; raised below
                state["error"] = e
                self._idle_cycle(p, joints)

        timeout = 60.0 + 10.0 * task.duration()
        deadline = time.monotonic() + timeout
        self._handler = cycle
        try:
            while state["error"] is None and not (prep.done and (episode.done or episode.timed_out())):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"an evaluation took over {timeout:.0f} s wall time; server log: "
                                       f"{self.server.log()[-500:]}")
                self._exchange()
        finally:
            self._handler = self._idle_cycle
        if state["error"] is not None:
            e = state["error"]
            if not isinstance(e, Exception):       # SystemExit, KeyboardInterrupt: the worker is told to stop
                raise e
            raise RuntimeError(f"evaluation failed: {type(e).__name__}: {e}") from e
        return episode.result()

    def _episode_cycle(self, episode, prep: Preparation, p, joints: dict[str, float]) -> None:
        task = episode.task
        now = p.time if p.time is not None else 0.0
        pose = self._pose(p)
        if not prep.done:
            targets, move = prep.step(now, joints, pose)
            if move:
                self._prepare(task)
                x, y, th = task.placement()
                self.trainer.move_player(self.TEAM, 1, x, y, th, z=0.02 + body.standing_height(self.robot_type))
                self.trainer.place_ball(*(task.ball or BALL_AWAY))
            self._submit(targets, p.time)
            return
        x, y, z, yaw, up = pose
        obs = Observation(now, x, y, yaw, up, joints, self._ball(task), z=z, feet=("lf" in p.frp, "rf" in p.frp),
                          acc=None if p.acc is None else torso_axes(p.acc),
                          gyro=None if p.gyro is None else gyro_rates(p.gyro))
        targets = episode.step(obs)
        self._submit(targets, p.time, getattr(episode, "leg_stiffness", 1.0))

    def pids(self) -> list[int]:
        return [self.server.pid] if self.server is not None else []

    def close(self) -> None:
        try:
            if self._sock is not None:
                self._sock.close()
            if self.trainer is not None:
                self.trainer.close()
        finally:
            if self.server is not None:
                self.server.stop()


class VillaSocketWorld(_SocketWorld):
    """One `villa sim` process, its trainer connection and one agent (bridge session) of this worker."""

    name = "villa"

    def __init__(self, robot_type: int = 0, seed: int = 1, log_dir: str | None = None) -> None:
        from villa_bridge.rcssservermj import RcssservermjBackend
        from villa_sim.testing import SimProcess
        from villa_sim.trainer import Trainer

        super().__init__(robot_type)
        try:
            self.server = SimProcess("--log-level", "WARNING", noise=False, seed=seed, log_dir=log_dir)
            self.trainer = Trainer(port=self.server.monitor_port, background=False)
            self._start_agent(RcssservermjBackend(self.TEAM, 1, robot_type), "villa")
        except BaseException:
            self.close()
            raise

    def _pose(self, p):
        if p.pos is None or p.quat is None:
            raise RuntimeError("the simulator sends no torso pose (pos/quat) in its perceptions")
        yaw, up = F.yaw_upright(p.quat)
        return p.pos[0], p.pos[1], p.pos[2], yaw, up


class SimSparkWorld(_SocketWorld):
    """One real rcssserver3d of this worker (sync, no pacing), its monitor as trainer, and one agent."""

    name = "simspark"

    def __init__(self, robot_type: int = 0, seed: int = 1, log_dir: str | None = None) -> None:
        from villa_bridge.simspark import SimSparkBackend
        from villa_sim.simspark import SimSparkServer, SimSparkTrainer

        super().__init__(robot_type)
        try:
            self.server = SimSparkServer(directory=log_dir)
            self.trainer = SimSparkTrainer(port=self.server.monitor_port, background=False)
            self._start_agent(SimSparkBackend(self.TEAM, 1, robot_type), "simspark")
            deadline = time.monotonic() + 30.0
            while self._pose(None) is None:           # the monitor shows the robot after a few cycles
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name}: the robot did not appear on the monitor within 30 s")
                self._exchange()
        except BaseException:
            self.close()
            raise

    def _prepare(self, task) -> None:
        self.trainer.send("(time 0)")                # the half never ends during an optimization
        self.trainer.play_mode("PlayOn")

    def _pose(self, p):
        truth = self.trainer.truth()
        robot = truth.players.get(("left", 1)) if truth is not None else None
        if robot is None:
            return None
        return robot.position[0], robot.position[1], robot.position[2], robot.yaw, robot.upright


# The worlds an optimization runs in (villa_nao.params.WORLDS less naoqi): each is also the name of its motion data's
# overlay (villa_nao.params.overlay_path).
WORLDS = ("villa", "simspark")


def world_error(world: str, socket: bool = False) -> str | None:
    """Why `world` (with `socket`: villa sim as its own process) is not a world to run in, or None."""
    if world not in WORLDS:
        return f"unknown world {world!r}; known: {', '.join(WORLDS)}"
    if socket and world != "villa":
        return "socket applies to villa sim (SimSpark always runs as its own process)"
    return None


def make_world(world: str, robot_type: int = 0, seed: int = 1, socket: bool = False):
    """The world `world` for one worker: villa sim in this process (with `socket`, as its own `villa sim` process) or
    the real SimSpark. ValueError (world_error) for one that is not."""
    if (why := world_error(world, socket)) is not None:
        raise ValueError(why)
    cls = SimSparkWorld if world == "simspark" else VillaSocketWorld if socket else InProcessWorld
    return cls(robot_type=robot_type, seed=seed)
