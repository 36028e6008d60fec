"""The strategy as one object per player (what the strategy node wraps; the in-process player calls it directly).

Inputs: the world estimate (villa_localization.stage.WorldEstimate, the plain villa_msgs/WorldModel), the fall state
(§8), the motion status, heard messages (§6) and, once per server cycle, the game state, which runs one decision
(villa_strategy.decision.TeamPlayer) and returns the Commands for motion and the bridge: a walk request, a skill or
kick request, the head, say, beam (once per beam phase; again after `beam_period` s only while the estimate is over
BEAM_MISSED from the spot; the first once the motion has stood FIRST_BEAM_STAND s, a later one once it has
stood BEAM_STAND s or BEAM_WAIT s into the phase) and the role assignment.
Parameters: config/strategy.yaml's names; the robot's type and walk sets make its Body.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from villa_motion import arbiter as A
from villa_motion import head as H
from villa_nao.joints import check_robot_type
from villa_strategy import behaviours as B
from villa_strategy.decision import TeamPlayer
from villa_strategy.decision_data import Decision, StrategyParams, WorldView
from villa_strategy.formation import formation_params, roles_for, variant_formation

UPRIGHT = A.UPRIGHT
BEAM_MISSED = 1.0           # m between our estimate and the beam spot that means a beam did not take effect
FIRST_BEAM_STAND = 0.5      # s the motion stands before the player's first beam (a new robot goes from its straight
                            # joints to the stand pose: beamed in that crouch, it lurched up to 17 cm on villa sim in
                            # real time and knocked the ball off the centre spot)
BEAM_STAND = 0.2            # s the motion stands before a later beam (after a goal): beamed mid-stride from a sprint,
                            # a robot landed mid-step and fell on its spot (two of six in one goal, `villa games`
                            # Static seed 44; the fallen kick-off taker's kick-off came at 10 s)
BEAM_WAIT = 1.5             # s into a beam phase after which a later beam goes whatever the motion does (a robot
                            # down or getting up): beams count only during the phase (SimSpark's goal pause is 3 s)
SEES_BALL_FOR = 0.5         # s since the ball was last seen that still counts as seeing it (§6's "sees ball" bit)


@dataclass(frozen=True)
class RoleSlot:
    role: str
    unum: int                                        # 0 = nobody
    target: tuple[float, float] | None


@dataclass(frozen=True)
class Commands:
    """One decision's outputs (team-relative field frame for beam and targets, the robot frame for the head)."""

    decision: Decision
    walk: A.WalkRequest | None = None
    request: A.SkillRequest | None = None
    head: A.HeadRequest | None = None
    say: str | None = None
    beam: tuple[float, float, float] | None = None
    roles: tuple[RoleSlot, ...] = ()


def strategy_params(p: Mapping[str, Any], seed: int | None = None) -> StrategyParams:
    """From the strategy node's parameters (config/strategy.yaml names)."""
    return StrategyParams(team_size=int(p["team_size"]), variant=str(p["variant"]), goalie_unum=int(p["goalie_unum"]),
                          team_key=str(p["team_key"]), hysteresis=float(p["hysteresis"]), kicks=bool(p["kicks"]),
                          kick_when=str(p["kick_when"]), kick_spread=float(p["kick_spread"]),
                          kick_parameter_set=str(p["kick_parameter_set"]), simulator=str(p.get("simulator", "villa")),
                          kickoff_settle=float(p["kickoff_settle"]), penalty=str(p["penalty"]),
                          formation=formation_params(p), seed=seed)


def body_from_params(p: Mapping[str, Any]) -> B.Body:
    """The player's Body from its robot type and walk parameter sets (the motion node's: the same file)."""
    from villa_motion.params import load_parameter_sets, walk_sets_path

    robot_type = check_robot_type(p["robot_type"], "robot_type")
    sets_file = walk_sets_path(str(p["walk_parameter_sets"]))
    sets = load_parameter_sets(sets_file, str(p.get("simulator", "villa")), robot_type)
    return B.Body.from_walk_sets(sets, robot_type)


class StrategyStage:
    def __init__(self, unum: int, params: StrategyParams, body: B.Body | None = None, beam_period: float = 1.0
                 ) -> None:
        if not 1 <= unum <= 11:
            raise ValueError(f"unum must be 1..11, got {unum}")
        self.unum, self.params, self.beam_period = unum, params, beam_period
        self.player = TeamPlayer(unum, params, body)
        self.world = None                # the latest WorldEstimate
        self.fallen = False
        self.motion_active = ""                 # the motion status's active (walk, stand, a skill, kick_<name>)
        self.motion_done = False
        self.request_id = 0
        self.last_beam = -math.inf
        self.beamed_to: tuple[float, float, float] | None = None
        self.beam_mode = -1
        self.side_left = True
        self._stand_since: float | None = None  # time the motion status last became "stand"
        self._mode, self._mode_since = -1, 0.0         # the play mode and the time it began
        self._beam_pending = False                     # a beam was asked for and waits (settled)

    @classmethod
    def from_params(cls, p: Mapping[str, Any], seed: int | None = None) -> StrategyStage:
        """From the strategy node's parameters; `seed` (default: the `seed` parameter, -1 = a fresh generator)."""
        if seed is None and int(p.get("seed", -1)) >= 0:
            seed = int(p["seed"])
        return cls(int(p["unum"]), strategy_params(p, seed), body_from_params(p), float(p["beam_period"]))

    # --- inputs ------------------------------------------------------------------------------------------------
    def world_estimate(self, estimate) -> None:
        self.world = estimate

    def fall(self, state: int) -> None:
        self.fallen = state != UPRIGHT

    def motion_status(self, active: str, done: bool) -> None:
        self.motion_active, self.motion_done = active, done

    @property
    def skill_running(self) -> bool:
        """A skill or kick runs (or the walk stops for a kick) and has not ended."""
        return self.motion_active not in ("walk", "stand", "") and not self.motion_done

    def hear(self, message: str, game_time: float, from_self: bool) -> None:
        if not from_self:
            self.player.hear(message, game_time, self.side_left)

    def view(self, t: float) -> WorldView:
        """What the decision sees at time t (s)."""
        w = self.world
        since_beam = t - self.last_beam
        if w is None:
            return WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0), ball_valid=False, localized=False,
                             fallen=self.fallen, since_beam=since_beam)
        ball = w.ball if w.ball is not None else (0.0, 0.0)
        return WorldView(pose=w.pose, ball=ball, ball_velocity=w.ball_velocity, ball_valid=w.ball_valid,
                         localized=w.localized, fallen=self.fallen,
                         teammates={t.unum: t.position for t in w.teammates if t.valid and t.unum},
                         opponents=[t.position for t in w.opponents if t.valid],
                         sees_ball=w.ball_valid and w.ball_last_seen is not None
                         and w.t - w.ball_last_seen <= SEES_BALL_FOR, since_beam=since_beam,
                         kick_running=self.motion_active if self.skill_running
                         and self.motion_active.startswith("kick_") else "")

    # --- one decision per cycle -----------------------------------------------------------------------------
    def decide(self, t: float, play_mode: int, game_time: float, side_left: bool) -> Commands:
        """The decision of the cycle at time t (s) with the game state."""
        self.side_left = side_left
        if self.motion_active != "stand":
            self._stand_since = None
        elif self._stand_since is None:
            self._stand_since = t
        if play_mode != self._mode:
            self._mode, self._mode_since = play_mode, t
        view = self.view(t)
        if self._beam_pending:      # not beamed in this phase yet: nothing settles after a beam to come (the kick-off
            view = replace(view, since_beam=math.inf)   # taker's line-up walked on, and the walk never stopped)
        d = self.player.decide(view, play_mode, game_time, side_left)
        beam = None
        # the first beam waits for the new robot's stand; a later one for the walk to stop (or BEAM_WAIT s) unless the
        # decision needs it now (the kick-off taker after a goal, decision_data.Decision.beam_now)
        stand = FIRST_BEAM_STAND if self.beamed_to is None else BEAM_STAND
        settled = (self._stand_since is not None and t - self._stand_since >= stand - 1e-9) or \
            (self.beamed_to is not None and (d.beam_now or t - self._mode_since >= BEAM_WAIT - 1e-9))
        self._beam_pending = False
        if d.beam is not None:
            # once per beam phase (a beam drops the robot onto the spot: again and again, it kicks off shaken and
            # falls); again after beam_period only while our estimate says we are not there (the beam was lost)
            w = self.world
            fresh = d.beam != self.beamed_to or play_mode != self.beam_mode
            missed = (w is not None and w.localized and math.dist(w.pose[:2], d.beam[:2]) > BEAM_MISSED
                      and t - self.last_beam >= self.beam_period)
            if (fresh or missed) and settled:
                self.last_beam, self.beamed_to, self.beam_mode, beam = t, d.beam, play_mode, d.beam
            else:
                self._beam_pending = fresh or missed
        request = None
        # a kick the motion stops (or runs) for is asked again with the newer ball: the walk's stop uses it
        if d.skill and (not self.skill_running or (d.skill.startswith("kick_") and d.skill == self.motion_active)):
            self.request_id += 1
            request = A.SkillRequest(d.skill, dict(d.skill_params), self.request_id, True)
        walk = None
        if d.walk is not None and not self.fallen:
            walk = A.WalkRequest(A.WALK_STAND if d.walk.stop else A.WALK_NORMALIZED, float(d.walk.x),
                                 float(d.walk.y), float(d.walk.theta), d.walk.parameter_set)
        elif d.beam is not None:
            walk = A.WalkRequest(A.WALK_STAND)
        head = A.HeadRequest(H.SCAN)
        w = self.world
        if d.head_ball_focus and w is not None and w.ball_valid:
            dx, dy = w.ball[0] - w.pose[0], w.ball[1] - w.pose[1]
            c, s = math.cos(-w.pose[2]), math.sin(-w.pose[2])
            head = A.HeadRequest(H.BALL_FOCUS, target=(c * dx - s * dy, s * dx + c * dy))
        return Commands(d, walk, request, head, d.say, beam, self._roles(d))

    def _roles(self, d: Decision) -> tuple[RoleSlot, ...]:
        ball = self.world.ball if self.world is not None and self.world.ball is not None else (0.0, 0.0)
        targets = variant_formation(self.params.variant, ball, self.params.team_size, params=self.params.formation)
        return tuple(RoleSlot(role, int(d.assignment.get(role, 0)),
                              None if targets.get(role) is None else (float(targets[role][0]),
                                                                      float(targets[role][1])))
                     for role in roles_for(self.params.team_size, params=self.params.formation))
