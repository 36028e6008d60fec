"""The motion arbiter: who owns the joints this cycle (UT Austin Villa 2011 report §7 skills, §8 get-up, §10.4.3
stopping, §13.1 kicks), one explicit state machine over the walk engine, the skill player and the kick engine.

States (``Mode``):

- WALK: the walk engine (walking, or standing after its §10.4.3 jog); walk requests are followed.
- STOPPING: a kick was requested; the walk stops (§10.4.3) and walk requests are ignored. Once it stands, the
  requested ball position is carried over by odometry and the kick engine checks it (§13.1.1): KICK, or the kick
  is refused and the arbiter goes back to WALK (the requester approaches again).
- KICK: the kick engine (weight shift, curve, return to standing), then WALK standing.
- SKILL: a requested skill file (a dive, ``stand``, ...), then WALK standing.
- GETUP: the robot lies (fall state from perception, §8): the skill the fall side picks (getup_front, getup_back;
  fall_arms_out on a side so the robot rolls onto its front or back), started again while it still lies; WALK
  standing once it is upright and the skill has ended. A get-up starts from the pose it was learned from: the lie
  skill of that side (lie_back, lie_front) holds it first until the robot lies still.
- FALLEN: the robot is down and nothing gets it up: falling (not lying yet), or lying with auto_getup off. The
  walk stands (kicks and pending kicks are dropped); WALK when the fall state is upright again.

A fall ends a kick or a stop-for-a-kick at once; a running kick or get-up is never interrupted by a request, and
nothing but a fall interrupts a kick. The head (§4.1) runs on top of the walk (WALK, STOPPING, FALLEN); a kick holds
the head still and a skill sets its own (or holds it), as they were tuned (kicks with a still head, get-ups with the
skill's own head targets).

API (no ROS; the motion node and the in-process player wrap it one to one):

- ``walk(WalkRequest) -> Verdict``, ``request(SkillRequest) -> Verdict``, ``head(HeadRequest)``, ``fall(state)``;
- ``update(t, joints) -> MotionOutput``: once per server cycle with the sensed joint angles (NAOqi names, rad):
  every joint target, the status and the walk odometry;
- ``stats``: kicks requested / executed / refused / completed; ``mode``: the state.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from villa_motion import head as H
from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets, load_skill_variables, walk_sets_path
from villa_motion.skills import Skill, SkillError, SkillPlayer, load_dir
from villa_motion.walk import WalkEngine, WalkParams
from villa_nao import field as F
from villa_nao.joints import LEFT_LEG, RIGHT_LEG, check_robot_type
from villa_nao.params import check_world

# villa_msgs/FallState values (test_arbiter checks them against the message)
UPRIGHT, FALLING, FALLEN_FRONT, FALLEN_BACK, FALLEN_SIDE = 0, 1, 2, 3, 4
GETUP_SKILLS = {FALLEN_FRONT: "getup_front", FALLEN_BACK: "getup_back", FALLEN_SIDE: "fall_arms_out"}
# before a get-up: the pose it was learned from, held until the robot lies still (skipped where no such skill file)
LIE_SKILLS = {FALLEN_FRONT: "lie_front", FALLEN_BACK: "lie_back"}
GETUP_NAMES = frozenset(("getup_front", "getup_back"))
LIE_NAMES = frozenset(LIE_SKILLS.values())
LIE_STILL_FOR = 0.1           # s the torso must turn slower than lie_still_rate: the robot lies still
# villa_msgs/WalkCommand modes
WALK_NORMALIZED, WALK_VELOCITY, WALK_STAND = 0, 1, 2
CYCLE = 0.02


class Mode(StrEnum):
    WALK = "walk"
    STOPPING = "stopping"
    KICK = "kick"
    SKILL = "skill"
    GETUP = "getup"
    FALLEN = "fallen"


@dataclass(frozen=True)
class WalkRequest:
    """What villa_msgs/WalkCommand carries (§10.4.1)."""

    mode: int = WALK_NORMALIZED
    x: float = 0.0
    y: float = 0.0
    theta: float = 0.0
    parameter_set: str = ""


@dataclass(frozen=True)
class SkillRequest:
    """What villa_msgs/MotionRequest carries: a skill file, a kick (``kick`` or ``kick_<name>[_L|_R]`` with
    ``ball_x``, ``ball_y`` [, ``direction``]) or ``walk`` (back to walking)."""

    skill: str
    params: Mapping[str, float] = field(default_factory=dict)
    request_id: int = 0
    interrupt: bool = True


@dataclass(frozen=True)
class HeadRequest:
    """What villa_msgs/HeadCommand carries (§4.1); target in the robot frame (m)."""

    mode: int = H.SCAN
    yaw: float = 0.0
    pitch: float = 0.0
    target: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Verdict:
    """The answer to a request: accepted, ignored (busy, down: the requester may ask again) or refused (bad request,
    unreachable kick: reported done)."""

    outcome: str              # accepted | ignored | refused
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.outcome == "accepted"


@dataclass(frozen=True)
class MotionStatus:
    """What villa_msgs/MotionStatus carries."""

    active: str               # walk, stand, the skill's name, kick_<name>
    request_id: int
    done: bool
    walk_phase: float = 0.0
    com_error: float = 0.0
    unstable: bool = False


@dataclass(frozen=True)
class MotionOutput:
    targets: dict[str, float]                 # NAOqi joint -> target angle (rad), every joint the arbiter drives
    status: MotionStatus
    odometry: tuple[float, float, float]      # the odometry pose (x, y, theta) in its `odom` frame: the walk's
    #                                           steps, turned by the gyro's heading (MotionConfig.odometry_heading)
    mode: Mode
    leg_stiffness: float = 1.0                # the leg joints' servo gain scale (0..1; the walk set's `stiffness`)

    def stiffness(self) -> list[float]:
        """Every target's stiffness in `targets` order: leg_stiffness for the legs, 1 for the rest. Hosts send it with
        every command, so a kick or skill after the walk gets the full gain back."""
        return stiffness_for(self.targets, self.leg_stiffness)


LEG_JOINTS = frozenset(LEFT_LEG + RIGHT_LEG + ("LToePitch", "RToePitch"))


def stiffness_for(names, leg_stiffness: float) -> list[float]:
    """The stiffness of each named joint: `leg_stiffness` for the legs, 1 for the rest."""
    return [leg_stiffness if name in LEG_JOINTS else 1.0 for name in names]
KICK_LOG = 1000              # kick records the arbiter keeps


@dataclass
class KickRecord:
    """One kick request and what became of it."""

    time: float               # s, the cycle time of the request
    kick: str                 # the kick chosen (KickDef.name), or the requested skill when none could be
    ball: tuple[float, float]     # m, the ball in the robot frame as requested
    outcome: str = "stopping"     # stopping -> executed (-> completed | fallen) | refused
    reason: str = ""
    started: float | None = None  # s, when the kick engine started
    started_ball: tuple[float, float] | None = None  # m, the ball the engine started with (moved by odometry)
    n: int = 0                    # its number among the arbiter's kick records (the log keeps the last KICK_LOG)


@dataclass
class KickStats:
    requested: int = 0        # kick requests taken (stop-then-kick started) or refused for bad parameters
    executed: int = 0         # kicks the engine started
    refused: int = 0          # refused: bad request, or the IK cannot reach the ball after the stop (§13.1.1)
    completed: int = 0        # kicks that ran to their end (not cut short by a fall)
    log: deque[KickRecord] = field(default_factory=lambda: deque(maxlen=KICK_LOG))   # the last requests, in order
    records: int = 0          # kick records made (numbered 0, 1, ...)

    def record(self, r: KickRecord) -> None:
        r.n, self.records = self.records, self.records + 1
        self.log.append(r)


@dataclass(frozen=True)
class MotionConfig:
    walk_sets: dict[str, WalkParams]
    walk_set: str | None
    skills: dict[str, Skill]
    skill_variables: dict[str, dict[str, float]]
    kicks: dict[str, KK.KickDef]
    robot_type: int = 0
    auto_getup: bool = True
    getup_settle: float = 0.6     # s a get-up's last pose is held for the fall state to say upright (_skill_ended)
    getup_stand: float = 0.5      # s the walk stands after a get-up before it follows walk commands (walk_request)
    lie_still_rate: float = 0.0   # rad/s: a lie skill's pose is held until the torso turns slower than this (0: off)
    lie_still_max: float = 0.0    # ... for LIE_STILL_FOR s, at most this long after the lie skill ended
    outward_turn: bool = True     # the walk turns with outward foot yaw only (simulators); not on a physical Nao
    turn_set: str = ""            # the walk set an in-place turn of a `turn_from` set walks ("" or absent: none)
    turn_from: tuple[str, ...] = ()
    stop_set: str = ""            # the walk set a faster walk slows to before it hands over to it or stops ("": none)
    odometry_heading: str = "gyro"  # the odometry's heading change: "gyro" (the IMU's yaw rate while upright, in
    #                               every mode) or "walk" (the walk's steps, as told)

    @classmethod
    def from_params(cls, p: Mapping[str, Any]) -> MotionConfig:
        """From the motion node's parameters (config/motion.yaml names); ValueError with the reason."""
        from villa_nao.params import config_path, share_path

        robot_type = check_robot_type(p["robot_type"], "robot_type")
        simulator = check_world(str(p.get("simulator", "villa")))    # the data files' overlays for its world
        sets_file = walk_sets_path(str(p["walk_parameter_sets"]))
        skills_dir = str(p["skills_dir"]) or str(share_path("villa_motion", "skills"))
        skill_params = str(p["skill_params"]) or str(config_path("villa_motion", "skill_params.yaml"))
        return cls(walk_sets=load_parameter_sets(sets_file, simulator, robot_type),
                   walk_set=str(p["walk_parameter_set"]) or None,
                   skills=load_dir(skills_dir),
                   skill_variables=load_skill_variables(skill_params, simulator, robot_type),
                   kicks=KK.load_kick_set(str(p["kick_parameter_set"]), str(p["kicks_dir"]) or None,
                                          str(p["kick_params"]) or None, simulator, robot_type),
                   robot_type=robot_type, auto_getup=bool(p["auto_getup"]),
                   getup_settle=_nonnegative(p, "getup_settle"), getup_stand=_nonnegative(p, "getup_stand"),
                   lie_still_rate=_nonnegative(p, "lie_still_rate"), lie_still_max=_nonnegative(p, "lie_still_max"),
                   outward_turn=simulator != "naoqi",
                   turn_set=str(p.get("walk_turn_set", "")),
                   turn_from=tuple(str(v) for v in p.get("walk_turn_from", ())),
                   stop_set=_stop_set(str(p.get("walk_stop_set", "")), simulator),
                   odometry_heading=_heading_source(str(p.get("odometry_heading", "")), simulator))


ODOMETRY_HEADINGS = ("gyro", "walk")


def _heading_source(v: str, simulator: str) -> str:
    """odometry_heading `v`: "gyro" | "walk"; "" picks gyro on the simulators and walk on a physical Nao, whose gyro
    has not been tried for it (as the walk's gyro feedback, walk_params.naoqi.yaml)."""
    if v == "":
        return "walk" if simulator == "naoqi" else "gyro"
    if v not in ODOMETRY_HEADINGS:
        raise ValueError(f"odometry_heading must be one of {', '.join(ODOMETRY_HEADINGS)} (or \"\"), got {v!r}")
    return v


def _stop_set(v: str, simulator: str) -> str:
    """walk_stop_set `v`: a set name, "none", or "" for the world's own: goToTarget on SimSpark, where the sprint
    learned there walks twice goToTarget's speed (docs/motion.md, "The stop set"), none elsewhere."""
    if v == "":
        return "goToTarget" if simulator == "simspark" else ""
    return "" if v == "none" else v


def _nonnegative(p: Mapping[str, Any], name: str) -> float:
    v = float(p[name])
    if not v >= 0:
        raise ValueError(f"{name} must be >= 0, got {v}")
    return v


def _number(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _requested_ball(params) -> tuple[float, float]:
    """A kick request's ball (ball_x, ball_y) in the robot frame; KeyError when missing, ValueError when not a finite
    number."""
    ball = (float(params["ball_x"]), float(params["ball_y"]))
    if not all(math.isfinite(v) for v in ball):
        raise ValueError(f"ball position must be finite, got {ball}")
    return ball


def _default_log(level: str, text: str) -> None:
    getattr(logging.getLogger("villa_motion.arbiter"), level)(text)


class MotionArbiter:
    def __init__(self, config: MotionConfig, log: Callable[[str, str], None] | None = None) -> None:
        self.config = config
        self.log = log or _default_log
        self.robot_type = config.robot_type
        self.walk = WalkEngine(config.walk_sets, config.walk_set, config.robot_type, outward_turn=config.outward_turn,
                               turn_set=config.turn_set, turn_from=config.turn_from,
                               stop_set=config.stop_set)
        self.skills, self.kicks = config.skills, config.kicks
        missing = {"stand", *GETUP_SKILLS.values()} - set(self.skills)
        if missing:
            raise ValueError(f"skills missing: {', '.join(sorted(missing))} (have {', '.join(sorted(self.skills))})")
        self.head_ctrl = H.HeadController()
        self.head_req = HeadRequest()
        self.mode = Mode.WALK
        self.fall_state = UPRIGHT
        self.gyro: tuple[float, float, float] | None = None   # the IMU's latest angular rate (the walk's balance)
        self.acc: tuple[float, float, float] | None = None    # ... and accelerometer (the walk's tilt estimate)
        self._gyro_new = False                          # a rate arrived since the last cycle (the odometry's turn)
        self.player: SkillPlayer | None = None          # SKILL / GETUP
        self._still_since: float | None = None          # since when the torso turns slower than lie_still_rate
        self.player_name = ""
        self._ended_at: float | None = None             # GETUP: when the get-up skill ended (held since)
        self._stand_until = -math.inf                   # WALK: standing after a get-up until then
        self.kicker: KK.KickEngine | None = None        # KICK
        self.pending: tuple[KK.KickDef, tuple[float, float], tuple[float, float, float]] | None = None  # STOPPING
        self.request_id = 0
        self.done = False
        self.odom = (0.0, 0.0, 0.0)
        self.stats = KickStats()
        self.kick_record: KickRecord | None = None      # the kick being stopped for or running (STOPPING, KICK)
        self.last_t: float | None = None
        self.targets: dict[str, float] = {}

    # --- requests ------------------------------------------------------------------------------------------------
    def fall(self, state: int) -> None:
        """The fall state (§8, villa_msgs/FallState values) from perception."""
        self.fall_state = int(state)

    def imu(self, gyro, acc=None) -> None:
        """The IMU's angular rate (rad/s) and accelerometer (m/s^2), REP-103 torso axes, either None when not read: the
        walk's balance feedback and tilt estimate use the latest (the hosts deliver a cycle's before its joint
        states)."""
        self.gyro = None if gyro is None else (float(gyro[0]), float(gyro[1]), float(gyro[2]))
        self.acc = None if acc is None else (float(acc[0]), float(acc[1]), float(acc[2]))
        self._gyro_new = self.gyro is not None

    def head(self, req: HeadRequest) -> None:
        self.head_req = req

    def walk_request(self, req: WalkRequest) -> Verdict:
        """Follow a walk command (§10.4.1) unless a kick, a skill, a get-up or a fall owns the legs."""
        if self.mode != Mode.WALK:
            return Verdict("ignored", f"{self.mode.value} owns the legs")
        try:
            if req.mode == WALK_STAND or (self.last_t is not None and self.last_t < self._stand_until):
                self.walk.command_stand()           # (standing still a moment after a get-up: getup_stand)
            elif req.mode == WALK_VELOCITY:
                self.walk.command_velocity(req.x, req.y, req.theta, req.parameter_set)
            else:
                self.walk.command_normalized(req.x, req.y, req.theta, req.parameter_set)
        except ValueError as e:
            return Verdict("refused", f"walk command refused: {e}")
        return Verdict("accepted")

    def request(self, req: SkillRequest) -> Verdict:
        """A skill, a kick or ``walk``: see the module docstring for who may interrupt whom."""
        if req.skill == "walk":
            if self.mode in (Mode.GETUP, Mode.FALLEN):
                return Verdict("ignored", "the robot is down")
            if self.mode == Mode.KICK:
                return Verdict("ignored", "a kick runs to its end")
            self._to_walk(stop=self.mode != Mode.WALK)
            self.request_id, self.done = req.request_id, True
            return Verdict("accepted")
        if self.mode in (Mode.GETUP, Mode.FALLEN) or self.fall_state != UPRIGHT:
            return Verdict("ignored", "the robot is down")
        if self.mode == Mode.KICK:
            return Verdict("ignored", "a kick runs to its end")
        if req.skill == "kick" or req.skill.startswith("kick_"):
            return self._request_kick(req)
        if req.skill not in self.skills:
            return Verdict("refused", f"unknown skill {req.skill!r} (have {', '.join(sorted(self.skills))})")
        if self.mode in (Mode.SKILL, Mode.STOPPING) and not req.interrupt:
            return Verdict("ignored", f"{self.mode.value} runs and the request does not interrupt")
        if not self._start_skill(req.skill, dict(req.params)):
            return Verdict("refused", f"cannot start {req.skill}")
        self._cancel_pending(f"interrupted by {req.skill}")
        self.mode, self.request_id, self.done = Mode.SKILL, req.request_id, False
        return Verdict("accepted")

    def _request_kick(self, req: SkillRequest) -> Verdict:
        if self.mode == Mode.STOPPING and self.pending is not None and req.skill == f"kick_{self.pending[0].name}":
            return self._refresh_kick(req)
        if self.mode in (Mode.SKILL, Mode.STOPPING) and not req.interrupt:
            return Verdict("ignored", f"{self.mode.value} runs and the request does not interrupt")
        self.stats.requested += 1
        self.request_id = req.request_id
        try:
            ball = _requested_ball(req.params)
            kick = self._pick_kick(req.skill, ball, float(req.params.get("direction", 0.0)))
        except KeyError as e:
            return self._refuse_request(req, f"kick request {req.skill!r} refused: parameter {e} missing (ball_x, "
                                             f"ball_y)")
        except ValueError as e:
            return self._refuse_request(req, f"kick request {req.skill!r} refused: {e}")
        self._cancel_pending("replaced by a new kick request")
        self.kick_record = KickRecord(self.last_t or 0.0, kick.name, ball)
        self.stats.record(self.kick_record)
        self.player, self.player_name = None, ""
        self.pending = (kick, ball, self.odom)
        self.mode, self.done = Mode.STOPPING, False
        self.walk.command_stand()
        return Verdict("accepted")

    def _refresh_kick(self, req: SkillRequest) -> Verdict:
        """The kick being stopped for, asked again while the walk stops: the newer ball replaces the one carried by
        odometry since the first request (the walk's odometry is what it was told; a stop of 0.4 s drifts cm)."""
        try:
            ball = _requested_ball(req.params)
        except (KeyError, TypeError, ValueError):
            return Verdict("ignored", "a kick refresh without a usable ball position")
        kick, _, _ = self.pending
        self.pending = (kick, ball, self.odom)
        self.request_id = req.request_id
        if self.kick_record is not None:
            self.kick_record.ball = ball
        return Verdict("accepted", "ball position refreshed")

    def _refuse_request(self, req: SkillRequest, reason: str) -> Verdict:
        """A kick request refused before anything started: its own record (a kick being stopped for keeps its own)."""
        ball = tuple(_number(req.params.get(k, math.nan)) for k in ("ball_x", "ball_y"))
        self.stats.record(KickRecord(self.last_t or 0.0, req.skill, ball, "refused", reason))
        return self._refuse(reason)

    def _settle_kick(self, outcome: str, reason: str = "") -> None:
        """The kick being stopped for or running ends (`outcome`): its record says how and why."""
        if self.kick_record is not None:
            self.kick_record.outcome, self.kick_record.reason = outcome, reason
            self.kick_record = None

    def _refuse(self, reason: str) -> Verdict:
        self.stats.refused += 1
        self.done = True
        self.log("warning", f"motion: {reason}")
        return Verdict("refused", reason)

    def _pick_kick(self, skill: str, ball: tuple[float, float], direction: float) -> KK.KickDef:
        name = skill[len("kick_"):] if skill.startswith("kick_") else ""
        if name in self.kicks:
            return self.kicks[name]
        pool = [k for k in self.kicks.values() if not name or k.base == name]
        if not pool:
            raise ValueError(f"no kick {name!r} (have {', '.join(sorted(self.kicks))})")
        return KK.choose_kick(pool, (0.0, 0.0), 0.0, ball, direction)[0]

    def _start_skill(self, name: str, variables: dict[str, float]) -> bool:
        try:
            merged = {**self.config.skill_variables.get(name, {}), **variables}
            self.player = SkillPlayer(self.skills[name], dict(self.targets), merged)
        except SkillError as e:
            self.log("error", f"motion: cannot start {name}: {e}")
            return False
        self.player_name, self._ended_at = name, None
        return True

    def _cancel_pending(self, reason: str) -> None:
        """A kick being stopped for is dropped: its record says why."""
        if self.pending is not None:
            self._settle_kick("cancelled", reason)
        self.pending = None

    def beamed(self) -> None:
        """The robot was beamed (moved and put upright at rest by the server): a walk or a stop for a kick stands at
        once, without the §10.4.3 jog, which would carry the gait's momentum on after the beam (a robot beamed from a
        sprint fell on its spot, `villa games` Static seed 44). A skill, kick or get-up runs on."""
        if self.mode == Mode.STOPPING or (self.mode == Mode.WALK and self.walk.walking):   # a standing walk: as is
            self._to_walk(stop=True)

    def _to_walk(self, stop: bool) -> None:
        """Back to WALK; `stop`: the walk stands at once (it did not run while a skill or kick had the legs)."""
        self._cancel_pending("a walk request")
        self.player, self.player_name, self.kicker = None, "", None
        if stop:
            self.walk.stop()
        self.mode = Mode.WALK

    # --- the cycle -----------------------------------------------------------------------------------------------
    def update(self, t: float, joints: Mapping[str, float]) -> MotionOutput:
        """One server cycle at time `t` (s) with the sensed joint angles: the joint targets for it."""
        dt = CYCLE if self.last_t is None or not 0 < t - self.last_t < 0.2 else t - self.last_t
        self.last_t = t
        still = self.gyro is not None and math.hypot(*self.gyro) < self.config.lie_still_rate
        self._still_since = (t if self._still_since is None else self._still_since) if still else None
        self._transitions()
        phase, com_error, unstable = 0.0, self.walk.com_error, False
        odometry = (0.0, 0.0, 0.0)                      # only the walk steps; the gyro turns us in any mode
        stiffness = 1.0                                 # the legs' servo gain scale: the walk set's while walking
        if self.mode == Mode.STOPPING and self.walk.standing:
            self._begin_kick()
        head = True                                     # the head controller runs on top of the walk only
        if self.mode in (Mode.SKILL, Mode.GETUP):       # a skill's own head targets (held if it sets none)
            targets, head = dict(self.player.update(dt)), False
            active = self.player_name
            if self.player.done:
                self._skill_ended()
        elif self.mode == Mode.KICK:                    # the head holds still through a kick, as it was tuned
            targets, head = self.kicker.update(dt, joints), False
            targets = {**targets, "HeadYaw": self.targets.get("HeadYaw", 0.0),
                       "HeadPitch": self.targets.get("HeadPitch", 0.0)}
            active = f"kick_{self.kicker.kick.name}"
            if self.kicker.done:
                self.stats.completed += 1
                stand = self.kicker.kick.stand
                self._settle_kick("completed")
                self.done = True
                self._to_walk(stop=True)
                if stand > 0.0:                         # the kick's own stand before the walk follows orders
                    self._stand_until = self.last_t + stand
        else:                                           # WALK, STOPPING, FALLEN: the walk engine
            out = self.walk.update(dt, joints, self.gyro, self.acc)
            targets = dict(out.joints)
            stiffness = out.stiffness
            phase, com_error, unstable = out.phase, out.com_error, out.unstable
            odometry = out.odometry
            active = "walk" if self.walk.walking else "stand"
            if self.mode == Mode.STOPPING:
                active = f"kick_{self.pending[0].name}"
        self._integrate(odometry, dt)
        if head:
            targets["HeadYaw"], targets["HeadPitch"] = self._head(dt)
        else:                                           # resume from where the head is when the walk takes over
            self.head_ctrl.yaw = targets.get("HeadYaw", self.head_ctrl.yaw)
        self.targets = targets
        status = MotionStatus(active, self.request_id, self.done, float(phase), float(com_error), bool(unstable))
        return MotionOutput(targets, status, self.odom, self.mode, stiffness)

    def _transitions(self) -> None:
        """The fall state's transitions (§8), checked before anything runs this cycle."""
        lying = self.fall_state in GETUP_SKILLS
        down = self.fall_state != UPRIGHT
        if lying and self.config.auto_getup:
            if self.mode != Mode.GETUP:
                self._down()
                self._start_getup()
            return
        if down and self.mode not in (Mode.SKILL, Mode.GETUP, Mode.FALLEN):
            self._down()                                # falling (or lying, no get-up): the walk stands
            self.walk.command_stand()
            self.mode = Mode.FALLEN
        elif self.mode == Mode.FALLEN and not down:
            self.mode = Mode.WALK
            self._stand_until = (self.last_t or 0.0) + self.config.getup_stand
        elif self.mode == Mode.SKILL and lying:         # a dive that ends lying, with auto_getup off
            self._down()
            self.mode = Mode.FALLEN

    def _down(self) -> None:
        """A fall ends a kick, a stop for a kick and a skill (a dive falls on purpose and ends here)."""
        if self.mode in (Mode.KICK, Mode.STOPPING):
            self.log("info", f"motion: a fall ended kick {(self.kicker.kick if self.kicker else self.pending[0]).name}")
            self.done = True
            self._settle_kick("fallen", f"a fall during {self.mode.value}")
        if self.mode == Mode.SKILL:
            self.done = True
        self.player, self.player_name, self.kicker, self.pending = None, "", None, None
        self.walk.stop()

    def _start_getup(self) -> None:
        """The lying side's lie skill (LIE_SKILLS), then, when it ends with the robot still on that side, its get-up;
        a failed get-up starts over with the lie skill."""
        lie = LIE_SKILLS.get(self.fall_state)
        name = lie if lie in self.skills and self.player_name != lie else GETUP_SKILLS[self.fall_state]
        if self._start_skill(name, {}):
            self.mode, self.done = Mode.GETUP, False
        else:
            self.mode = Mode.FALLEN

    def _skill_ended(self) -> None:
        if self.mode == Mode.SKILL:
            self.done = True
            self._to_walk(stop=True)
            return
        # GETUP: the get-up's last pose held until the fall state says upright, at most getup_settle s: the fall
        # detector says so only after its recover_time, and a get-up ends when the robot stands (a lie skill started
        # on a stale "lying" laid the standing robot down again: type 2, 5 times in a row in a villa sim game)
        if self.player_name in GETUP_NAMES and self.fall_state != UPRIGHT:
            self._ended_at = self.last_t if self._ended_at is None else self._ended_at
            if self.last_t - self._ended_at < self.config.getup_settle - 1e-9:
                return
        # a lie skill's pose held until the robot lies still (the get-ups were learned from a robot lying still; one
        # started while it still rocks after the fall failed 7 times in 10 for robot type 1), at most lie_still_max s
        if self.player_name in LIE_NAMES and self.gyro is not None and self.config.lie_still_rate > 0:
            self._ended_at = self.last_t if self._ended_at is None else self._ended_at
            still = self._still_since is not None and self.last_t - self._still_since >= LIE_STILL_FOR - 1e-9
            if not still and self.last_t - self._ended_at < self.config.lie_still_max - 1e-9:
                return
        # then: again while the robot still lies; upright: walk (stand); falling in between: wait
        if self.fall_state in GETUP_SKILLS and self.config.auto_getup:
            self._start_getup()
        elif self.fall_state == UPRIGHT:
            self.done = True
            self._to_walk(stop=True)
            self._stand_until = self.last_t + self.config.getup_stand
        else:
            self.player, self.player_name = None, ""
            self.mode = Mode.FALLEN

    def _begin_kick(self) -> None:
        """The walk stands: the requested ball position moved by the odometry since the request (through the odom
        frame), then the kick engine's reachability check (§13.1.1) from the stand pose of the walk's set."""
        kick, (bx, by), (ox, oy, oth) = self.pending
        x, y, th = self.odom
        ball = F.to_local(F.from_local((bx, by), (ox, oy), oth), (x, y), th)
        engine = KK.KickEngine(kick, self.stand_pose(), self.robot_type)
        self.pending = None
        if engine.start(ball):
            self.kicker, self.mode = engine, Mode.KICK
            self.stats.executed += 1
            if self.kick_record is not None:
                self.kick_record.outcome, self.kick_record.started = "executed", self.last_t
                self.kick_record.started_ball = (float(ball[0]), float(ball[1]))
            self.log("info", f"motion: kick {kick.name} at ball ({ball[0]:.3f}, {ball[1]:.3f}) m")
        else:
            self.mode = Mode.WALK
            self._settle_kick("refused", engine.reason)
            self._refuse(f"{engine.reason}; back to walking")

    def stand_pose(self) -> KK.StandPose:
        """The standing pose a kick starts from: the current walk set's."""
        return KK.StandPose.from_walk(self.walk.sets[self.walk.set_name])

    def _head(self, dt: float) -> tuple[float, float]:
        r = self.head_req
        bearing = distance = None
        if r.mode in (H.BALL_FOCUS, H.LOOK_AT):
            bearing, distance = math.atan2(r.target[1], r.target[0]), math.hypot(*r.target)
        return self.head_ctrl.update(dt, r.mode, bearing, distance, r.yaw, r.pitch if r.mode == H.FIXED else None)

    def _integrate(self, odo, dt: float) -> None:
        """One cycle's odometry step (dx, dy, dtheta; robot frame) onto the odom pose. The heading change is the
        gyro's yaw rate over the cycle while upright (config.odometry_heading "gyro": the walk's turns are
        not what it was told, 128-155 against 244 deg in 3 s of turning in place on SimSpark, and kicks turn the robot
        on its foot without a step), else the walk's; a cycle without a new IMU reading counts the walk's turn, so an
        IMU that stops does not turn the odometry on by its last rate."""
        dx, dy, dth = odo
        if self.config.odometry_heading == "gyro" and self._gyro_new and self.fall_state == UPRIGHT:
            dth = self.gyro[2] * dt
        self._gyro_new = False
        x, y, th = self.odom
        c, s = math.cos(th), math.sin(th)
        self.odom = (x + c * dx - s * dy, y + s * dx + c * dy, math.remainder(th + dth, 2 * math.pi))


@cache
def shipped_config(robot_type: int = 0, simulator: str = "villa") -> MotionConfig:
    """config/motion.yaml's defaults for `robot_type` (the shipped walk sets, skills and kicks, with `simulator`'s
    overlays), loaded once: the base an optimization task or a bench replaces what it varies in
    (dataclasses.replace)."""
    return MotionConfig.from_params(motion_parameters({"robot_type": robot_type, "simulator": simulator}))


def load(p: Mapping[str, Any], log: Callable[[str, str], None] | None = None) -> MotionArbiter:
    """The arbiter a set of motion parameters (config/motion.yaml names) describes."""
    return MotionArbiter(MotionConfig.from_params(p), log)


def motion_parameters(overrides: Mapping[str, Any] | None = None, params_file: str | Path | None = None
                      ) -> dict[str, Any]:
    """config/motion.yaml's parameters with `overrides` on top (what the node declares, without ROS)."""
    from villa_nao.params import config_path, load_parameters

    return {**load_parameters(params_file or config_path("villa_motion", "motion.yaml")), **(overrides or {})}
