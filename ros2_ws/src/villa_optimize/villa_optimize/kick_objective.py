"""The kick task and objective: UT Austin Villa 2011 report §13.2 (kick optimization).

The robot approaches the ball from ten angles along a half circle arc around it (1 m away, on the side away from
the target), walking with the goToTarget set to the kick's approach pose (villa_motion.kick.approach_pose), then
kicks toward the target with villa_motion's KickEngine (a candidate = the kick's parameter_vector values). Each
attempt scores the distance the ball travels toward the target; an attempt in which the robot falls, runs into the
ball (it moves over 0.15 m before the kick starts) or has not kicked 10 s after the approach started scores -1
(§13.2). Fitness = the mean over the attempts.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_motion.walk import WalkEngine
from villa_nao import field as F
from villa_optimize.phases import WaypointOptPhase, wrap
from villa_optimize.space import Space, write_text_atomic
from villa_optimize.tasks import UPRIGHT_FALLEN, Observation

BALL = (-5.0, 0.0)               # ball position on the field (global frame)
TARGET_DIR = 0.0                 # kick toward +x (the opponent goal)
ARC_RADIUS = 1.0                 # m, start distance from the ball
KICK_TIMEOUT = 10.0              # s from the approach's start to the kick (§13.2)
RAN_INTO_BALL = 0.15             # m the ball may move before the kick starts
ROLL_TIME = 3.0                  # s of standing after the kick while the ball rolls
ATTEMPTS = 10


def approach_angles(n: int = ATTEMPTS) -> list[float]:
    """Start bearings (from the ball, field frame) spread over the half circle behind the ball."""
    return [TARGET_DIR + math.pi + (i / (n - 1) - 0.5) * math.pi * 0.9 if n > 1 else TARGET_DIR + math.pi
            for i in range(n)]


@dataclass(frozen=True)
class KickTrial:
    """One approach and kick (what the worlds read: start pose, ball, duration)."""

    start: tuple[float, float, float]
    ball: tuple[float, float]
    settle: float = 0.5

    def duration(self) -> float:
        return self.settle + KICK_TIMEOUT + 3.0 + ROLL_TIME


@dataclass
class KickAttempt:
    score: float
    outcome: str                 # kicked, fell, ran_into_ball, timeout
    distance: float = 0.0

    def summary(self) -> dict:
        return {"score": self.score, "outcome": self.outcome, "distance": self.distance}


class KickEpisode:
    """Approach with the walk (§10.2: move and turn at once, slowing within 0.8 m), then the kick, then the roll."""

    CYCLE = 0.02

    def __init__(self, trial: KickTrial, kick: KK.KickDef, walk_sets, robot_type: int = 0) -> None:
        self.task = trial
        self.kick = kick
        self.walk = WalkEngine(walk_sets, "goToTarget", robot_type=robot_type)
        self.engine = KK.KickEngine(kick, KK.StandPose.from_walk(walk_sets["goToTarget"]), robot_type)
        pos, theta = KK.approach_pose(kick, trial.ball, TARGET_DIR)
        self.goal = WaypointOptPhase((float(pos[0]), float(pos[1])), KICK_TIMEOUT, face=theta)
        # §12.4: first to a point 0.35 m behind the approach pose, so the walk does not cross the ball
        back = (float(pos[0]) - 0.35 * math.cos(theta), float(pos[1]) - 0.35 * math.sin(theta))
        self.pre = WaypointOptPhase(back, KICK_TIMEOUT)
        self.stage = self.pre
        self.target = np.array(trial.ball) + 20.0 * np.array([math.cos(TARGET_DIR), math.sin(TARGET_DIR)])
        self.state = "settle"
        self.t0: float | None = None
        self.t_state = 0.0
        self.ball_start: np.ndarray | None = None
        self.ball_last: np.ndarray | None = None
        self.attempt: KickAttempt | None = None
        self.done = False
        self.t_last = 0.0

    def _finish(self, score: float, outcome: str, distance: float = 0.0) -> None:
        self.attempt = KickAttempt(score, outcome, distance)
        self.done = True

    def step(self, o: Observation) -> dict[str, float]:
        from villa_optimize.phases import Sample

        if self.t0 is None:
            self.t0 = self.t_state = o.t
        self.t_last = o.t
        ball = np.array(o.ball if o.ball is not None else self.task.ball, dtype=float)
        self.ball_last = ball
        if not self.done and o.upright < UPRIGHT_FALLEN:
            self._finish(-1.0, "fell")
        if self.done:
            return self.walk.update(self.CYCLE, o.joints).joints
        s = Sample(o.t, o.x, o.y, o.yaw)
        if self.state == "settle":
            self.walk.command_stand()
            if o.t - self.t0 >= self.task.settle:
                self.state, self.t_state, self.ball_start = "approach", o.t, ball.copy()
                self.pre.start(s)
        if self.state == "approach":
            if np.linalg.norm(ball - self.ball_start) > RAN_INTO_BALL:
                self._finish(-1.0, "ran_into_ball")
            elif o.t - self.t_state > KICK_TIMEOUT:
                self._finish(-1.0, "timeout")
            else:
                dist = math.hypot(self.goal.target[0] - o.x, self.goal.target[1] - o.y)
                err = wrap(self.goal.face - o.yaw)
                out = None
                if self.stage is self.goal and dist < 0.06 and abs(err) < 0.1:
                    self.walk.command_stand()
                    out = self.walk.update(self.CYCLE, o.joints)
                    if out.standing:
                        if self.engine.start(F.to_local(ball, (o.x, o.y), o.yaw)):
                            self.state = "kick"
                        else:                                    # refused: step closer again
                            self.engine = KK.KickEngine(self.kick, self.engine.stand, self.engine.robot_type)
                    return out.joints
                if self.stage is self.pre and math.hypot(self.pre.target[0] - o.x, self.pre.target[1] - o.y) < 0.15:
                    self.stage = self.goal
                max_x, max_y, _ = self.walk.max_speed()
                cmd = self.stage.command(s, max_x, max_y)
                scale = 1.0 if self.stage is self.pre else min(1.0, max(0.1, dist / 0.8))
                self.walk.command_normalized(cmd.x * scale, cmd.y * scale, cmd.theta)
        if self.state == "kick":
            joints = self.engine.update(self.CYCLE, o.joints)
            if self.engine.done:
                self.state, self.t_state = "roll", o.t
                self.stand = joints
            return joints
        if self.state == "roll":
            if o.t - self.t_state >= ROLL_TIME:
                d0 = float(np.linalg.norm(self.target - self.ball_start))
                d1 = float(np.linalg.norm(self.target - ball))
                self._finish(d0 - d1, "kicked", float(np.linalg.norm(ball - self.ball_start)))
            return self.stand
        return self.walk.update(self.CYCLE, o.joints).joints

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.task.duration() + 2.0

    def result(self) -> KickAttempt:
        return self.attempt or KickAttempt(-1.0, "timeout")


@dataclass
class KickObjective:
    kick_name: str               # a kick file's name (left-foot kick), e.g. forward
    base_set: str                # kick parameter set the candidate starts from ("" = the files' numbers)
    set_name: str                # the set the learned parameters are written under
    params_out: Path
    backend: str = "sim"
    robot_type: int = 0
    attempts: int = ATTEMPTS

    def __post_init__(self) -> None:
        kicks = self.kicks()
        if f"{self.kick_name}_L" not in kicks:
            bases = sorted({k.base for k in kicks.values()})
            raise ValueError(f"unknown kick {self.kick_name!r}; known: {', '.join(bases)}")
        self.params = KK.parameter_vector(kicks[f"{self.kick_name}_L"])
        self.space = Space.from_bounds({p.name: (p.lo, p.hi) for p in self.params})
        if not 1 <= self.attempts <= 50:
            raise ValueError(f"--attempts must be 1..50, got {self.attempts}")

    def kicks(self):
        try:
            return KK.load_kick_set(self.base_set)
        except KK.KickError as e:
            raise ValueError(str(e)) from None

    @property
    def dim(self) -> int:
        return self.space.dim

    def describe(self) -> dict:
        return {"kind": "kick", "kick": self.kick_name, "base_set": self.base_set,
                "parameters": list(self.space.names), "robot_type": self.robot_type, "attempts": self.attempts}

    def x0(self) -> np.ndarray:
        return self.space.normalize({p.name: p.value for p in self.params})

    def make_evaluator(self, worker: int) -> KickEvaluator:
        return KickEvaluator(self, worker)

    def write_best(self, x: np.ndarray, fitness: float, info: dict, out_dir: Path) -> list[Path]:
        values = {k: round(v, 5) for k, v in self.space.denormalize(x).items()}
        out = Path(self.params_out)
        data = {"sets": {self.set_name: {**({"inherit": self.base_set} if self.base_set else {}),
                                         self.kick_name: values}}}
        text = (f"# Kick parameters {self.kick_name!r} learned by `villa optimize kick` (CMA-ES, UT Austin Villa 2011 "
                f"report §13.2), fitness {fitness:.4f}\n# Merge the set into villa_motion's config/kick_params.yaml "
                f"(its 'inherit' names a set there).\n")
        write_text_atomic(out, text + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=118))
        js = Path(out_dir) / "best.json"
        js.write_text(json.dumps({"fitness": fitness, "kick": self.kick_name, "parameters": values,
                                  "attempts": info}, indent=1))
        return [out, js]


class KickEvaluator:
    def __init__(self, objective: KickObjective, worker: int) -> None:
        from villa_nao.params import config_path
        from villa_optimize.worlds import make_world

        self.o = objective
        self.kick = objective.kicks()[f"{objective.kick_name}_L"]
        self.walk_sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
        self.world = make_world(objective.backend, objective.robot_type, seed=worker + 1)

    def trials(self) -> list[KickTrial]:
        out = []
        for a in approach_angles(self.o.attempts):
            x, y = BALL[0] + ARC_RADIUS * math.cos(a), BALL[1] + ARC_RADIUS * math.sin(a)
            out.append(KickTrial((x, y, math.atan2(BALL[1] - y, BALL[0] - x)), BALL))
        return out

    def evaluate(self, x: np.ndarray) -> tuple[float, dict]:
        kick = KK.with_parameters(self.kick, self.o.space.denormalize(x))
        attempts = [self.world.run_episode(KickEpisode(t, kick, self.walk_sets, self.o.robot_type))
                    for t in self.trials()]
        scores = [a.score for a in attempts]
        return float(np.mean(scores)), {"fell": any(a.outcome == "fell" for a in attempts),
                                        "attempts": [a.summary() for a in attempts]}

    def pids(self) -> list[int]:
        return list(getattr(self.world, "pids", list)())

    def close(self) -> None:
        self.world.close()


def add_kick_arguments(sub, common) -> None:
    k = sub.add_parser("kick", help="optimize a kick's parameters on the §13.2 task (ten approach angles)",
                       description="Optimize a kick's waypoints, timing and approach offset with CMA-ES (§13.2).")
    k.add_argument("--kick", default="forward", help="kick file name (villa_motion/kicks/<name>.kick; default forward)")
    common(k)
    k.add_argument("--start-set", default="tuned",
                   help="kick parameter set to start from (villa_motion config/kick_params.yaml; '' = the files')")
    k.add_argument("--set-name", default="optimized", help="name of the learned set in the output (default optimized)")
    k.add_argument("--params-out", type=Path, default=None,
                   help="YAML the learned set is written to (default <out>/kick_params.yaml)")
    k.add_argument("--attempts", type=int, default=ATTEMPTS, help="approaches per evaluation (default 10)")


def kick_objective(args: argparse.Namespace) -> KickObjective:
    return KickObjective(kick_name=args.kick, base_set=args.start_set, set_name=args.set_name,
                         params_out=args.params_out or args.out / "kick_params.yaml", backend=args.backend,
                         robot_type=args.robot_type, attempts=args.attempts)
