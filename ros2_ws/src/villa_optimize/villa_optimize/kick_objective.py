"""The kick task and objective: UT Austin Villa 2011 report §13.2 (kick optimization).

The robot approaches the ball from ten angles along a half circle arc around it (1 m away, on the side away from
the target) with the game's kick behaviour and motion arbiter (KickEpisode), then kicks toward the target (a
candidate = the kick's parameter_vector values). Each
attempt scores the distance the ball travels toward the target; an attempt in which the robot falls, runs into the
ball (it moves over 0.15 m before the kick starts) or has not kicked 10 s after the approach started scores -1
(§13.2). Fitness = the mean over the attempts.

With ``standing`` the attempts are kicks from standing with the ball at the kick's offset plus up to ``offset`` (2 cm)
of error in x and y (villa_optimize.standing_kick): no approach, a much cheaper evaluation, for tuning the swing itself
on a server. With ``robust`` as well (a deviation from §13.2's mean), every candidate kicks from the same
offsets spread evenly over that square (a Halton sequence) and its fitness is the mean of its worse half: on SimSpark
a forward kick's distance can change from 3.5 to 1.1 m with 1 cm of ball offset, the same every time, and a kick good
on average then moves the ball under 1 m at many kick-offs (docs/optimize.md).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import yaml

from villa_motion import arbiter as A
from villa_motion import head as H
from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_nao import field as F
from villa_nao.params import config_path, read_yaml
from villa_optimize.runner import evaluation_fitness
from villa_optimize.space import Space, write_text_atomic
from villa_optimize.standing_kick import STANDING_ERROR
from villa_optimize.tasks import UPRIGHT_FALLEN, Observation, motion_cycle
from villa_strategy import behaviours as B

BALL = (-5.0, 0.0)               # ball position on the field (global frame)
TARGET_DIR = 0.0                 # kick toward +x (the opponent goal)
ARC_RADIUS = 1.0                 # m, start distance from the ball
KICK_TIMEOUT = 10.0              # s from the approach's start to the kick (§13.2)
RAN_INTO_BALL = 0.15             # m the ball may move before the kick starts
ROLL_TIME = 3.0                  # s of standing after the kick while the ball rolls
ATTEMPTS = 10
REACH_MARGIN = 0.01             # m: the approach kicks with the ball this far inside the reachable region


def approach_angles(n: int = ATTEMPTS, centre: float = TARGET_DIR + math.pi) -> list[float]:
    """Start bearings (from the ball, field frame) spread over the half circle around `centre` (default: behind the
    ball; the task centres it on the side of the kick's target offset, so a back kick starts beyond the ball)."""
    return [centre + (i / (n - 1) - 0.5) * math.pi * 0.9 if n > 1 else centre for i in range(n)]


@dataclass(frozen=True)
class KickTrial:
    """One approach and kick (what the worlds read: start pose, ball, duration)."""

    start: tuple[float, float, float]
    ball: tuple[float, float]
    settle: float = 0.5

    def duration(self) -> float:
        return self.settle + KICK_TIMEOUT + 3.0 + ROLL_TIME

    def placement(self) -> tuple[float, float, float]:
        return self.start


def approach_trials(kick: KK.KickDef, attempts: int = ATTEMPTS) -> list[KickTrial]:
    """The §13.2 starts: `attempts` poses on the half circle ARC_RADIUS around BALL, centred on the side of the kick's
    target offset, each facing the ball."""
    stand_at, _ = KK.approach_pose(kick, BALL, TARGET_DIR)
    side = math.atan2(stand_at[1] - BALL[1], stand_at[0] - BALL[0])
    out = []
    for a in approach_angles(attempts, side):
        x, y = BALL[0] + ARC_RADIUS * math.cos(a), BALL[1] + ARC_RADIUS * math.sin(a)
        out.append(KickTrial((x, y, math.atan2(BALL[1] - y, BALL[0] - x)), BALL))
    return out


@dataclass
class KickAttempt:
    score: float
    outcome: str                 # kicked, fell, ran_into_ball, timeout
    distance: float = 0.0        # m the ball travelled (kicked)
    direction_error: float = 0.0  # rad: the ball's travel direction minus the direction to the target (kicked)
    time_to_kick: float = 0.0    # s from the approach's start to the kick's start (kicked)

    def summary(self) -> dict:
        return {"score": self.score, "outcome": self.outcome, "distance": self.distance,
                "direction_error": self.direction_error, "time_to_kick": self.time_to_kick}


class KickEpisode:
    """The game's kick, as the seed's optimization agents run it (only the skill choice is the task's): the strategy's
    KickBehaviour (§13.1.1: approach the kick's target offset, request the kick when the IK reaches the ball) with its
    pool narrowed to the kick being optimized, the head on the ball, and the motion arbiter (the walk stops, the ball
    carried by odometry, the kick engine from standing; a refused kick sends the robot back to approaching), then the
    roll."""

    CYCLE = 0.02

    def __init__(self, trial: KickTrial, kick: KK.KickDef, walk_sets, robot_type: int = 0, spread: float = 0.0,
                 simulator: str = "villa") -> None:
        self.task = trial
        self.kick = kick
        self.spread = spread        # rad: any direction this near the target's will do (behaviours.window_direction)
        self.motion = A.MotionArbiter(replace(A.shipped_config(robot_type, simulator), walk_sets=walk_sets,
                                              walk_set="goToTarget",
                                              kicks={kick.name: kick}), log=lambda level, text: None)
        self.behaviour = B.KickBehaviour({kick.name: kick}, B.Body.from_walk_sets(walk_sets, robot_type),
                                         reach_margin=REACH_MARGIN)
        self.target = np.array(trial.ball) + 20.0 * np.array([math.cos(TARGET_DIR), math.sin(TARGET_DIR)])
        self.state = "settle"
        self.t0: float | None = None
        self.t_state = 0.0
        self.ball_start: np.ndarray | None = None
        self.attempt: KickAttempt | None = None
        self.done = False
        self.t_last = 0.0
        self.kick_started = 0.0
        self.requests = 0

    def _finish(self, score: float, outcome: str, **kicked) -> None:
        self.attempt = KickAttempt(score, outcome, **kicked)
        self.done = True

    def step(self, o: Observation) -> dict[str, float]:
        if self.t0 is None:
            self.t0 = self.t_state = o.t
        self.t_last = o.t
        ball = np.array(o.ball if o.ball is not None else self.task.ball, dtype=float)
        if not self.done and o.upright < UPRIGHT_FALLEN:
            self._finish(-1.0, "fell")
        if self.state == "settle" and o.t - self.t0 >= self.task.settle:
            self.state, self.t_state, self.ball_start = "approach", o.t, ball.copy()
        if self.state == "approach" and not self.done:
            if np.linalg.norm(ball - self.ball_start) > RAN_INTO_BALL:
                self._finish(-1.0, "ran_into_ball")
            elif o.t - self.t_state > KICK_TIMEOUT:
                self._finish(-1.0, "timeout")
        rel = F.to_local(ball, (o.x, o.y), o.yaw)
        self.motion.head(A.HeadRequest(H.BALL_FOCUS, target=(float(rel[0]), float(rel[1]))))
        if self.done or self.state == "settle":
            self.motion.walk_request(A.WalkRequest(A.WALK_STAND))
        elif self.state == "approach" and self.motion.mode == A.Mode.WALK:     # approaching (again, after a refusal)
            step = self.behaviour.execute((o.x, o.y), o.yaw, ball, TARGET_DIR, spread=self.spread)
            if step.skill is not None:
                self.requests += 1
                self.motion.request(A.SkillRequest(step.skill, step.params, self.requests))
            else:
                w = step.walk
                self.motion.walk_request(A.WalkRequest(A.WALK_STAND if w.stop else A.WALK_NORMALIZED, w.x, w.y,
                                                       w.theta, w.parameter_set))
        out = motion_cycle(self.motion, o)
        if self.done:
            return out.targets
        if self.state == "approach" and out.mode == A.Mode.KICK:
            self.state, self.kick_started = "kick", o.t - self.t_state
        elif self.state == "kick" and out.mode != A.Mode.KICK:
            self.state, self.t_state = "roll", o.t
        elif self.state == "roll" and o.t - self.t_state >= ROLL_TIME:
            d0 = float(np.linalg.norm(self.target - self.ball_start))
            d1 = float(np.linalg.norm(self.target - ball))
            travel, to_target = ball - self.ball_start, self.target - self.ball_start
            err = B.wrap(math.atan2(travel[1], travel[0]) - math.atan2(to_target[1], to_target[0]))
            self._finish(d0 - d1, "kicked", distance=float(np.linalg.norm(travel)), direction_error=err,
                         time_to_kick=self.kick_started)
        return out.targets

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
    world: str = "villa"         # villa | simspark (villa_optimize.worlds)
    robot_type: int = 0
    attempts: int = ATTEMPTS
    standing: bool = False
    robust: bool = False
    offset: float = STANDING_ERROR   # m: standing kicks' ball offsets, +- this in x and y
    socket: bool = False         # villa sim as its own process instead of in the worker

    def __post_init__(self) -> None:
        from villa_optimize.worlds import world_error

        if (why := world_error(self.world, self.socket)) is not None:
            raise ValueError(why)
        kicks = self.kicks()
        if f"{self.kick_name}_L" not in kicks:
            bases = sorted({k.base for k in kicks.values()})
            raise ValueError(f"unknown kick {self.kick_name!r}; known: {', '.join(bases)}")
        self.params = KK.parameter_vector(kicks[f"{self.kick_name}_L"])
        self.space = Space.from_bounds({p.name: (p.lo, p.hi) for p in self.params})
        if not 1 <= self.attempts <= 50:
            raise ValueError(f"--attempts must be 1..50, got {self.attempts}")
        if not 0.0 <= self.offset <= 0.05:
            raise ValueError(f"--offset must be 0..0.05 m, got {self.offset}")
        if self.robust and not self.standing:
            raise ValueError("--robust needs --standing (its attempts are standing kicks from fixed ball offsets)")
        if self.robust and self.attempts < 2:
            raise ValueError(f"--robust needs at least 2 attempts (its fitness is the worse half), got {self.attempts}")

    def base_sets(self) -> dict:
        """The shipped sets `base_set` inherits from (itself included), as villa_motion's kick_params.yaml has them:
        copied into the learned file so that it loads on its own."""
        if not self.base_set:
            return {}
        path = Path(config_path("villa_motion", "kick_params.yaml"))
        sets = (read_yaml(path, "the kick parameter sets", KK.KickError) or {}).get("sets") or {}
        return {name: sets[name] for name in reversed(KK.set_chain(sets, path, self.base_set))}

    def kicks(self):
        """The start set's kicks as the world plays them (its overlay of the kick data)."""
        try:
            return KK.load_kick_set(self.base_set, simulator=self.world, robot_type=self.robot_type)
        except KK.KickError as e:
            raise ValueError(str(e)) from None

    @property
    def dim(self) -> int:
        return self.space.dim

    def describe(self) -> dict:
        d = {"kind": "kick", "kick": self.kick_name, "base_set": self.base_set, "standing": self.standing,
             "parameters": list(self.space.names), "robot_type": self.robot_type, "attempts": self.attempts}
        if self.robust or self.offset != STANDING_ERROR:   # only then: runs saved before them still --resume
            d.update(robust=self.robust, offset=self.offset)
        return d

    def x0(self) -> np.ndarray:
        return self.space.normalize({p.name: p.value for p in self.params})

    def make_evaluator(self, worker: int) -> KickEvaluator:
        return KickEvaluator(self, worker)

    def write_best(self, x: np.ndarray, fitness: float, info: dict, out_dir: Path) -> list[Path]:
        values = {k: round(v, 5) for k, v in self.space.denormalize(x).items()}
        out = Path(self.params_out)
        sets = self.base_sets()
        # a set learned under its start set's own name replaces that set's kick and keeps what it inherits
        own = dict(sets[self.set_name] or {}) if self.set_name in sets else \
            ({"inherit": self.base_set} if self.base_set else {})
        data = {"sets": {**sets, self.set_name: {**own, self.kick_name: values}}}
        text = (f"# Kick parameters {self.kick_name!r} learned by `villa optimize kick` (CMA-ES, UT Austin Villa 2011 "
                f"report §13.2, robot type {self.robot_type}), fitness {fitness:.4f}\n# Loads as it is (`--params "
                f"FILE --set {self.set_name}`; the sets it inherits are copied from villa_motion's "
                f"config/kick_params.yaml);\n# to ship it, merge the set '{self.set_name}' there.\n")
        write_text_atomic(out, text + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=118))
        js = Path(out_dir) / "best.json"
        js.write_text(json.dumps({"fitness": fitness, "kick": self.kick_name, "parameters": values,
                                  "attempts": info}, indent=1))
        return [out, js]


def standing_offsets(n: int, offset: float = STANDING_ERROR) -> np.ndarray:
    """n ball offsets (m, robot frame x and y) spread evenly over +-`offset`: the first n points of the 2-d Halton
    sequence (scipy), the same for every candidate."""
    from scipy.stats import qmc

    return (2.0 * qmc.Halton(d=2, scramble=False).random(n) - 1.0) * offset


class KickEvaluator:
    def __init__(self, objective: KickObjective, worker: int) -> None:
        from villa_optimize.worlds import make_world

        self.o = objective
        self.kick = objective.kicks()[f"{objective.kick_name}_L"]
        self.walk_sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), objective.world,
                                             robot_type=objective.robot_type)
        self.world = make_world(objective.world, objective.robot_type, seed=worker + 1, socket=objective.socket)
        self.rng = np.random.default_rng(worker + 1)

    def trials(self) -> list[KickTrial]:
        return approach_trials(self.kick, self.o.attempts)

    def episodes(self, kick: KK.KickDef) -> list:
        if not self.o.standing:
            return [KickEpisode(t, kick, self.walk_sets, self.o.robot_type, simulator=self.o.world)
                    for t in self.trials()]
        from villa_optimize.standing_kick import KickTrial as StandingTrial
        from villa_optimize.standing_kick import StandingKickEpisode

        stand = KK.StandPose.from_walk(self.walk_sets["goToTarget"])
        offsets = standing_offsets(self.o.attempts, self.o.offset) if self.o.robust else \
            self.rng.uniform(-self.o.offset, self.o.offset, (self.o.attempts, 2))
        return [StandingKickEpisode(StandingTrial(kick, (float(dx), float(dy))), stand, self.o.robot_type)
                for dx, dy in offsets]

    def evaluate(self, x: np.ndarray) -> tuple[float, dict]:
        kick = KK.with_parameters(self.kick, self.o.space.denormalize(x))
        attempts = [self.world.run_episode(ep) for ep in self.episodes(kick)]
        scores = [a.score for a in attempts]
        fell = [a.fell if self.o.standing else a.outcome == "fell" for a in attempts]
        return evaluation_fitness(scores, self.o.robust), {"fell": any(fell), "falls": sum(fell),
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
    k.add_argument("--attempts", type=int, default=ATTEMPTS, help="attempts per evaluation (default 10)")
    k.add_argument("--standing", action="store_true",
                   help="kicks from standing with the ball at the kick's offset (+- --offset) instead of the §13.2 "
                        "approach")
    k.add_argument("--offset", type=float, default=STANDING_ERROR,
                   help=f"m: with --standing, the ball up to this far off the kick's offset in x and y (default "
                        f"{STANDING_ERROR})")
    k.add_argument("--robust", action="store_true",
                   help="with --standing: every candidate kicks from the same offsets spread over the --offset square, "
                        "and its fitness is the mean of its worse half (a kick that works anywhere near its offset)")


def kick_objective(args: argparse.Namespace) -> KickObjective:
    return KickObjective(kick_name=args.kick, base_set=args.start_set, set_name=args.set_name,
                         params_out=args.params_out or args.out / "kick_params.yaml", world=args.world,
                         socket=args.socket, robot_type=args.robot_type, attempts=args.attempts, standing=args.standing,
                         robust=args.robust, offset=args.offset)
