"""The get-up objective: CMA-ES on a get-up skill's learned `$variables` (UT Austin Villa 2011 report §7, §8).

A candidate = values for every `$variable` of the skill (getup_back or getup_front). An evaluation = `trials` falls
on the robot's back (or front), each at its own spot and heading: the world tips the robot over and lets it lie
still, then the skill runs from the joint angles it lies with, as the motion node runs it after a fall. A trial
succeeds when, 1 s after the skill ended, the torso stands upright (up axis z > 0.9) at standing height (> 0.3 m).

Fitness per trial (higher is better): a success scores 20 - seconds the skill took; a failure scores up to 6 for how
far it came (1.5 x the most upright the torso got, 1.5 x the highest it rose as a fraction of standing height, how
upright it ended, and 2 x the seconds, up to 1, it stood upright at standing height), so CMA-ES has a slope to climb
before the first success: sitting up, then standing for a moment. The evaluation's fitness is the mean over trials,
or with `robust` the mean of the worse half (a search for speed otherwise finds candidates on the edge of failing
that score as fast ones on three lucky trials).

With goal "front" a trial succeeds instead when the robot lies on its front 1 s after the skill (the low-passed
accelerometer's x below -0.8 g: "up" along the torso's -x): a back get-up that rolls the robot over, after which §8's
chain runs getup_front (the motion node picks the skill the accelerometer asks for). A failure then scores 2 x how far
over it got at best and 2 x at the end.

Bounds: an angle variable's range is the stops of the joint it sets (degrees, as in the skill file; the right-side
joint of a mirrored pair gives the same range); a wait's is 0.04 to 1.5 s (villa_optimize's config/getup_space.yaml
can narrow or widen any of them).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from villa_motion.params import ROBOT_TYPES_KEY, load_skill_variables
from villa_motion.skills import Skill, SkillPlayer, load_dir
from villa_nao.joints import BY_NAME
from villa_optimize.runner import evaluation_fitness
from villa_optimize.space import Space, write_text_atomic

STAND_UPRIGHT = 0.9          # torso up-axis z of a robot that stands
STAND_HEIGHT = 0.3           # m, torso height of a robot that stands (0.34-0.44 by type, crouched)
CHECK_AFTER = 1.0            # s after the skill ended
WAIT_BOUNDS = (0.04, 1.5)    # s
SKILLS = {"getup_back": "back", "getup_front": "front"}
GOALS = ("stand", "front")
ACC_FILTER = 0.2             # the accelerometer's low-pass per cycle (about 0.1 s)
PRONE = 0.8                  # -accelerometer x / g above which a robot lies on its front (§8's fall detection)


def variable_bounds(skill: Skill) -> dict[str, tuple[float, float]]:
    """Each `$variable`'s range: the stops of the joint it sets directly (deg) or WAIT_BOUNDS for a wait."""
    bounds: dict[str, tuple[float, float]] = {}
    for kf in skill.keyframes:
        if kf.wait is not None:
            for v in re.findall(r"\$([A-Za-z_]\w*)", kf.wait.text):
                bounds.setdefault(v, WAIT_BOUNDS)
        for op in (op for op in kf.ops if op.kind == "set"):
            for joint, expr in zip(op.joints, op.values, strict=True):
                m = re.fullmatch(r"(-?)\$([A-Za-z_]\w*)", expr.text)
                if m is None:
                    continue
                j = BY_NAME[joint]
                lo, hi = math.degrees(j.sim_min), math.degrees(j.sim_max)
                if m.group(1):
                    lo, hi = -hi, -lo
                old = bounds.get(m.group(2))
                bounds[m.group(2)] = (lo, hi) if old is None else (max(old[0], lo), min(old[1], hi))
    missing = sorted(skill.variables - set(bounds))
    if missing:
        raise ValueError(f"{skill.source}: cannot bound {', '.join('$' + v for v in missing)} (set them directly "
                         f"as 'Joint $var' or give their bounds in the search space file)")
    return {v: bounds[v] for v in sorted(bounds)}


@dataclass(frozen=True)
class GetupTrial:
    """Where the robot falls: its spot and heading; it lies on `lying` when the skill starts. With `start` None the
    skill starts where the robot is (another attempt after a failed one)."""

    lying: str | None
    start: tuple[float, float, float] | None
    ball = None

    def placement(self) -> tuple[float, float, float] | None:
        return self.start

    def duration(self) -> float:
        return 12.0


@dataclass
class GetupAttempt:
    success: bool
    time: float                   # s from the skill's start to its end (success) or the end of the trial
    height: float                 # m, the highest the torso rose
    upright: float                # the torso's up-axis z at the end
    most_upright: float = 0.0     # the highest the torso's up-axis z got during the trial
    lies_on: str | None = None    # after a failure, the side the accelerometer says the robot lies on (§8)
    stood: float = 0.0            # s the torso was upright at standing height during the trial
    goal: str = "stand"
    over: tuple[float, float] = (0.0, 0.0)   # goal "front": how far over (-acc x / g) at best and at the end

    @property
    def score(self) -> float:
        if self.success:
            return 20.0 - self.time
        if self.goal == "front":
            return 2.0 * max(0.0, self.over[0]) + 2.0 * max(0.0, self.over[1])
        return (1.5 * max(0.0, self.most_upright) + 1.5 * min(1.0, self.height / STAND_HEIGHT)
                + max(0.0, self.upright) + 2.0 * min(1.0, self.stood))

    def summary(self) -> dict:
        return {"success": bool(self.success), "time": round(float(self.time), 3),
                "height": round(float(self.height), 3),
                "upright": round(float(self.upright), 3), "most_upright": round(float(self.most_upright), 3),
                "stood": round(float(self.stood), 2), "score": round(float(self.score), 3)}


class GetupEpisode:
    """The skill from the lying robot's joints, then its final targets held until the check. With `lie` (the side's
    lie skill and its variables, lie_skill()) that skill runs first and the get-up starts from the pose it leaves,
    as the motion arbiter runs them in a game (§8); the get-up's time counts from its own start."""

    CYCLE = 0.02

    def __init__(self, trial: GetupTrial, skill: Skill, variables: dict[str, float], goal: str = "stand",
                 lie: tuple[Skill, dict[str, float]] | None = None) -> None:
        if goal not in GOALS:
            raise ValueError(f"unknown get-up goal {goal!r}; known: {', '.join(GOALS)}")
        self.task = trial
        self.skill, self.variables, self.goal = skill, variables, goal
        self.lie = lie
        self.over = -1.0
        self.acc_x: float | None = None
        self.player: SkillPlayer | None = None
        self.t0: float | None = None
        self.t_end: float | None = None
        self.t_last = 0.0
        self.height = 0.0
        self.most_upright = -1.0
        self.stood = 0.0
        self.done = False
        self.attempt: GetupAttempt | None = None

    def step(self, o) -> dict[str, float]:
        if self.lie is not None:
            if self.player is None:
                self.player = SkillPlayer(self.lie[0], o.joints, self.lie[1])
            if not self.player.done:
                self.t_last = o.t
                return self.player.update(self.CYCLE)
            self.lie, self.player = None, None
        if self.player is None:
            self.player, self.t0 = SkillPlayer(self.skill, o.joints, self.variables), o.t
        self.t_last = o.t
        self.height = max(self.height, o.z if math.isfinite(o.z) else 0.0)
        self.most_upright = max(self.most_upright, o.upright)
        if o.upright > STAND_UPRIGHT and o.z > STAND_HEIGHT:
            self.stood += self.CYCLE
        if o.acc is not None:   # low-passed (0.1 s): an impact's spike is not lying on the front
            self.acc_x = o.acc[0] if self.acc_x is None else self.acc_x + ACC_FILTER * (o.acc[0] - self.acc_x)
        over = float(np.clip(-self.acc_x / 9.81, -1.0, 1.0)) if self.acc_x is not None else -1.0
        self.over = max(self.over, over)
        targets = self.player.update(self.CYCLE)
        if self.player.done:
            if self.t_end is None:
                self.t_end = o.t
            elif o.t - self.t_end >= CHECK_AFTER - 1e-9:
                standing = bool(o.upright > STAND_UPRIGHT and o.z > STAND_HEIGHT)
                ok = bool(over > PRONE) if self.goal == "front" else standing
                lies_on = None if standing or self.acc_x is None else ("back" if self.acc_x > 0 else "front")
                self.attempt = GetupAttempt(ok, self.t_end - self.t0, self.height, o.upright, self.most_upright,
                                            lies_on, self.stood, self.goal, (self.over, over))
                self.done = True
        return targets

    def timed_out(self) -> bool:
        return self.t0 is not None and self.t_last - self.t0 > self.task.duration()

    def result(self) -> GetupAttempt:
        return self.attempt or GetupAttempt(False, self.t_last - (self.t0 or 0.0), self.height, 0.0,
                                            self.most_upright, None, self.stood, self.goal, (self.over, self.over))


def trial_starts(rng, n: int) -> list[tuple[float, float, float]]:
    """n spots on our half and headings: where the robot falls in each trial."""
    return [(float(rng.uniform(-12, -2)), float(rng.uniform(-8, 8)), float(rng.uniform(-math.pi, math.pi)))
            for _ in range(n)]


def lie_skill(side: str, skills: dict[str, Skill],
              values: dict[str, dict[str, float]]) -> tuple[Skill, dict[str, float]] | None:
    """The skill the motion arbiter holds a robot lying on `side` with before its get-up (lie_back, lie_front; §8)
    and its variables, or None where the skills have none."""
    name = f"lie_{side}"
    return (skills[name], values.get(name, {})) if name in skills else None


def get_up(world, first: GetupEpisode, skills: dict[str, Skill], values: dict[str, dict[str, float]],
           attempts: int = 3) -> list[GetupAttempt]:
    """§8's chain on a world: `first`, then, while the last attempt failed and fewer than `attempts` ran, the lie
    skill and get-up of the side the accelerometer says the robot lies on, from where it lies (as the motion arbiter
    starts over). The attempts in order."""
    tries = [world.run_episode(first)]
    side = first.task.lying
    while not tries[-1].success and len(tries) < attempts:
        side = tries[-1].lies_on or side
        name = f"getup_{side}"
        tries.append(world.run_episode(GetupEpisode(GetupTrial(None, None), skills[name], values[name],
                                                    lie=lie_skill(side, skills, values))))
    return tries


@dataclass
class GetupObjective:
    skill_name: str
    skills_dir: Path
    variables_file: Path                # the learned values the candidate starts from (skill_params.yaml)
    params_out: Path                    # where the learned values are written (the file's other skills kept)
    space_file: Path | None = None      # optional bounds overriding variable_bounds
    world: str = "simspark"             # villa | simspark (villa_optimize.worlds)
    robot_type: int = 0
    trials: int = 3
    seed: int = 1
    goal: str = "stand"
    socket: bool = False                # villa sim as its own process instead of in the worker
    robust: bool = False                # fitness: the mean of the worse half of the trials' scores

    def __post_init__(self) -> None:
        from villa_optimize.worlds import world_error

        if (why := world_error(self.world, self.socket)) is not None:
            raise ValueError(why)
        if self.goal not in GOALS:
            raise ValueError(f"unknown get-up goal {self.goal!r}; known: {', '.join(GOALS)}")
        if self.skill_name not in SKILLS:
            raise ValueError(f"unknown get-up skill {self.skill_name!r}; known: {', '.join(SKILLS)}")
        skills = load_dir(self.skills_dir)
        if self.skill_name not in skills:
            raise ValueError(f"{self.skills_dir}: no {self.skill_name}.skl")
        self.skill = skills[self.skill_name]
        # the learned values the candidate starts from (start_values) and the lie skill's, read once
        self.learned = load_skill_variables(self.variables_file, self.world, self.robot_type)
        self.lie = lie_skill(SKILLS[self.skill_name], skills, self.learned)     # run first, as in a game
        bounds = variable_bounds(self.skill)
        if self.space_file is not None:
            extra = Space.from_yaml(self.space_file)
            unknown = sorted(set(extra.names) - set(bounds))
            if unknown:
                raise ValueError(f"{self.space_file}: {', '.join(unknown)} are not variables of {self.skill_name}")
            bounds.update({n: (lo, hi) for n, lo, hi in zip(extra.names, extra.lower, extra.upper, strict=True)})
        self.space = Space.from_bounds(bounds)
        if not isinstance(self.trials, int) or self.trials < 1:
            raise ValueError(f"--trials must be an integer >= 1, got {self.trials!r}")
        if self.robust and self.trials < 2:
            raise ValueError(f"--robust needs at least 2 trials (its fitness is the worse half), got {self.trials}")

    @property
    def dim(self) -> int:
        return self.space.dim

    def describe(self) -> dict:
        return {"kind": "getup", "skill": self.skill_name, "goal": self.goal, "parameters": list(self.space.names),
                "lower": self.space.lower.tolist(), "upper": self.space.upper.tolist(), "world": self.world,
                "robot_type": self.robot_type, "trials": self.trials, **({"robust": True} if self.robust else {})}

    def start_values(self) -> dict[str, float]:
        learned = self.learned.get(self.skill_name, {})
        return {n: float(learned.get(n, (lo + hi) / 2))
                for n, lo, hi in zip(self.space.names, self.space.lower, self.space.upper, strict=True)}

    def x0(self) -> np.ndarray:
        return self.space.normalize(self.start_values())

    def make_evaluator(self, worker: int) -> GetupEvaluator:
        return GetupEvaluator(self, worker)

    def write_best(self, x: np.ndarray, fitness: float, info: dict, out_dir: Path) -> list[Path]:
        values = {k: round(v, 3) for k, v in self.space.denormalize(x).items()}
        data = yaml.safe_load(Path(self.variables_file).read_text()) or {}
        if self.robot_type:             # robot type 0's are every type's; another type's its own (villa_motion.params)
            data.setdefault(ROBOT_TYPES_KEY, {}).setdefault(self.robot_type, {})[self.skill_name] = values
        else:
            data[self.skill_name] = values
        header = (f"# Learned $variables of the skills (UT Austin Villa 2011 report §7). {self.skill_name}: "
                  f"`villa optimize getup` on {self.world}, robot type {self.robot_type}, fitness {fitness:.3f}\n")
        write_text_atomic(self.params_out, header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None,
                                                                   width=118))
        load_skill_variables(self.params_out)            # what we write must load
        js = Path(out_dir) / "best.json"
        js.write_text(json.dumps({"fitness": fitness, "skill": self.skill_name, "variables": values,
                                  "normalized": [float(v) for v in x], "episode": info}, indent=1))
        return [self.params_out, js]


class GetupEvaluator:
    def __init__(self, objective: GetupObjective, worker: int) -> None:
        from villa_optimize.worlds import make_world

        self.objective = objective
        self.rng = np.random.default_rng([objective.seed, worker])
        self.world = make_world(objective.world, objective.robot_type, seed=worker + 1, socket=objective.socket)

    def evaluate(self, x: np.ndarray) -> tuple[float, dict]:
        o = self.objective
        values = o.space.denormalize(x)
        side = SKILLS[o.skill_name]
        attempts = [self.world.run_episode(GetupEpisode(GetupTrial(side, s), o.skill, values, o.goal, lie=o.lie))
                    for s in trial_starts(self.rng, o.trials)]
        fitness = evaluation_fitness([a.score for a in attempts], o.robust)
        return fitness, {"fitness": fitness, "successes": int(sum(bool(a.success) for a in attempts)),
                         "trials": [a.summary() for a in attempts]}

    def pids(self) -> list[int]:
        return list(getattr(self.world, "pids", list)())

    def close(self) -> None:
        self.world.close()
