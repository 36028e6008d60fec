"""Where an episode runs: a headless `villa sim` instance of the worker's own (the default), or in process.

- SimWorld (§10.3's parallel evaluation, one simulator per worker): `villa sim` in sync mode without real-time pacing
  on free ports (villa_sim.testing.SimProcess); the agent is villa_bridge's pure protocol session (rcssservermj
  backend, no ROS) driving villa_motion's WalkEngine from the callback of every perception, so each cycle is
  answered at once; villa_sim's Trainer places the robot and the ball and reads the ball's ground truth; the
  robot's torso pose comes with every perception (rcssservermj's `pos`/`quat`).
- InProcessWorld: villa_sim.inprocess.InProcessNao, the same simulation class, Nao model and PD actuators, stepped
  directly (no sockets): about 3 times faster per evaluation on this machine (docs/optimize.md).

Both keep one simulation for all the evaluations of a worker: the robot (joints reset) and the ball are placed
again for every episode.
"""

from __future__ import annotations

import logging
import math
import threading
import time

from villa_motion.walk import WalkEngine, WalkParams
from villa_nao import field as F
from villa_optimize.tasks import Episode, EpisodeResult, Observation, Task

BALL_AWAY = (10.0, 8.0)          # ball position during walk-only tasks (far from every course)
STAND_Z = 0.385                  # m, torso height of the Nao with straight legs (the model's base height)


class InProcessWorld:
    name = "inprocess"

    def __init__(self, robot_type: int = 0, seed: int = 0) -> None:
        from villa_sim.inprocess import InProcessNao

        self.robot_type = robot_type
        self.nao = InProcessNao(x=-5.0, robot_type=robot_type, seed=seed, vision_noise=False)

    def run(self, task: Task, sets: dict[str, WalkParams]) -> EpisodeResult:
        return self.run_episode(Episode(task, sets, self.robot_type))

    def run_episode(self, ep):
        """Run any episode (`task.placement()`, `task.ball`, `step`, `done`, `timed_out`, `result`) to its end."""
        task = ep.task
        nao = self.nao
        nao.place(*task.placement())
        ball = nao.sim.ball
        ball.drop_at(*(task.ball or BALL_AWAY))
        while not ep.done and not ep.timed_out():
            p, yaw, up = nao.torso_pose()
            b = (float(ball.xpos[0]), float(ball.xpos[1])) if task.ball is not None else None
            nao.command(ep.step(Observation(nao.time, float(p[0]), float(p[1]), yaw, up, nao.joint_angles(), b)))
            nao.step()
        return ep.result()

    def close(self) -> None:
        self.nao = None


class _Job:
    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.state = "place"
        self.placed_at = 0.0
        self.result: EpisodeResult | None = None
        self.error: BaseException | None = None
        self.event = threading.Event()


class SimWorld:
    """One `villa sim` process, its trainer connection and one agent (bridge session) of this worker."""

    name = "sim"
    TEAM = "villaopt"

    def __init__(self, robot_type: int = 0, seed: int = 1, log_dir: str | None = None) -> None:
        from villa_bridge.rcssservermj import RcssservermjBackend
        from villa_bridge.session import BridgeSession, SessionConfig
        from villa_motion.params import load_parameter_sets
        from villa_nao.params import config_path
        from villa_sim.testing import SimProcess
        from villa_sim.trainer import Trainer

        self.robot_type = robot_type
        self.sim = SimProcess("--log-level", "WARNING", noise=False, seed=seed, log_dir=log_dir)
        self.trainer = None
        self.session = None
        self._thread = None
        self._lock = threading.Lock()
        self._job: _Job | None = None
        self._idle = WalkEngine(load_parameter_sets(config_path("villa_motion", "walk_params.yaml")),
                                robot_type=robot_type)
        try:
            self.trainer = Trainer(port=self.sim.monitor_port)
            backend = RcssservermjBackend(self.TEAM, 1, robot_type)
            log = logging.getLogger(f"villa_optimize.sim{self.sim.agent_port}")
            log.setLevel(logging.WARNING)
            self.session = BridgeSession(backend, SessionConfig(port=self.sim.agent_port, reconnect=False,
                                                                target_deadline=0.5, recv_timeout=30.0),
                                         on_perception=self._on_perception, log=log)
            self._thread = threading.Thread(target=self.session.run, name="optimize-agent", daemon=True)
            self._thread.start()
            deadline = time.monotonic() + 60.0
            while not self.session.confirmed:
                if time.monotonic() > deadline or not self._thread.is_alive():
                    raise RuntimeError(f"villa sim did not accept the optimization agent: {self.sim.log()}")
                time.sleep(0.05)
        except BaseException:
            self.close()
            raise

    # --- the agent (runs in the session's thread) --------------------------------------------------------
    def _submit(self, joints: dict[str, float]) -> None:
        from villa_bridge.joint_io import JointTarget

        self.session.submit_targets({n: JointTarget(v) for n, v in joints.items()})

    def _on_perception(self, p, t0: float) -> None:
        from villa_bridge.joint_io import from_wire

        names, pos, _ = from_wire(p.joint_names, p.joint_angles)
        joints = dict(zip(names, pos.tolist(), strict=True))
        with self._lock:
            job = self._job
        if job is None:
            self._submit(self._idle.update(0.02, joints).joints)
            time.sleep(0.01)           # idle: do not spin the (sync) simulator while nobody evaluates
            return
        try:
            self._job_cycle(job, p, joints)
        except BaseException as e:     # report to the evaluating thread, keep answering the server
            job.error = e
            self._finish(job)
            self._submit(self._idle.update(0.02, joints).joints)

    def _job_cycle(self, job: _Job, p, joints: dict[str, float]) -> None:
        task = job.episode.task
        now = p.time if p.time is not None else 0.0
        if job.state == "place":
            x, y, th = task.placement()
            self.trainer.move_player(self.TEAM, 1, x, y, th, z=STAND_Z)
            self.trainer.place_ball(*(task.ball or BALL_AWAY))
            job.state, job.placed_at = "placing", now
            self._submit(self._idle.update(0.02, joints).joints)
            return
        if p.pos is None or p.quat is None:
            raise RuntimeError("the simulator sends no torso pose (pos/quat) in its perceptions")
        if job.state == "placing":
            x, y, _ = task.placement()
            placed = math.hypot(p.pos[0] - x, p.pos[1] - y) < 0.05
            if not (placed and now - job.placed_at >= 0.06):
                if now - job.placed_at > 2.0:
                    raise RuntimeError("the trainer's placement of the robot did not take effect within 2 s")
                self._submit(self._idle.update(0.02, joints).joints)
                return
            job.state = "run"
        ball = None
        if task.ball is not None:
            truth = self.trainer.truth()
            ball = (truth.ball[0], truth.ball[1]) if truth is not None else task.ball
        yaw, up = F.yaw_upright(p.quat)
        self._submit(job.episode.step(Observation(now, p.pos[0], p.pos[1], yaw, up, joints, ball)))
        if job.episode.done or job.episode.timed_out():
            job.result = job.episode.result()
            self._finish(job)

    def _finish(self, job: _Job) -> None:
        with self._lock:
            if self._job is job:
                self._job = None
        job.event.set()

    # --- evaluation (the worker's thread) ----------------------------------------------------------------
    def run(self, task: Task, sets: dict[str, WalkParams]) -> EpisodeResult:
        return self.run_episode(Episode(task, sets, self.robot_type))

    def run_episode(self, episode):
        """Run any episode (`task.placement()`, `task.ball`, `step`, `done`, `timed_out`, `result`) to its end."""
        task = episode.task
        job = _Job(episode)
        timeout = 60.0 + 10.0 * task.duration()
        with self._lock:
            self._job = job
        deadline = time.monotonic() + timeout
        while not job.event.wait(0.5):
            if self.sim.proc.poll() is not None:
                raise RuntimeError(f"villa sim exited with {self.sim.proc.returncode}: {self.sim.log()}")
            if not self._thread.is_alive():
                raise RuntimeError("the optimization agent lost its connection to villa sim")
            if time.monotonic() > deadline:
                with self._lock:
                    self._job = None
                raise RuntimeError(f"an evaluation took over {timeout:.0f} s wall time; villa sim log: "
                                   f"{self.sim.log()[-500:]}")
        if job.error is not None:
            raise RuntimeError(f"evaluation failed: {type(job.error).__name__}: {job.error}") from job.error
        return job.result

    def pids(self) -> list[int]:
        return [self.sim.proc.pid]

    def close(self) -> None:
        try:
            if self.session is not None:
                self.session.stop()
            if self._thread is not None:
                self._thread.join(timeout=5)
            if self.trainer is not None:
                self.trainer.close()
        finally:
            self.sim.stop()


def make_world(backend: str, robot_type: int = 0, seed: int = 1):
    if backend == "sim":
        return SimWorld(robot_type=robot_type, seed=seed)
    if backend == "inprocess":
        return InProcessWorld(robot_type=robot_type, seed=seed)
    raise ValueError(f"unknown backend {backend!r}; known: sim, inprocess")
