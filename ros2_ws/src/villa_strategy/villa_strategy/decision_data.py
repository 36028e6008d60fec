"""The plain data of a player's decision (villa_strategy.decision): what it decides from (WorldView, and the
player's StrategyParams) and what it decides (Decision). Team-relative field frame, metres and radians; the node
converts messages."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from villa_strategy import behaviours as B
from villa_strategy import formation


@dataclass
class WorldView:
    pose: tuple[float, float, float]                  # our x, y, theta
    ball: tuple[float, float]
    ball_velocity: tuple[float, float] = (0.0, 0.0)
    ball_valid: bool = True
    localized: bool = True
    fallen: bool = False
    teammates: dict[int, tuple[float, float]] = field(default_factory=dict)   # unum -> position (not us)
    fallen_mates: set[int] = field(default_factory=set)
    opponents: list[tuple[float, float]] = field(default_factory=list)
    sees_ball: bool = False
    since_beam: float = math.inf     # s since our last beam (the robot and its estimates settle after the drop)
    kick_running: str = ""           # the kick skill the motion stops for or runs (kick_<name>), "" for none


@dataclass
class Decision:
    role: str
    target: tuple[float, float]
    walk: B.WalkOrder | None = None            # None: no walking (a skill runs, or stand still)
    skill: str | None = None                  # motion skill to request (dive_left, kick_forward_L, ...)
    skill_params: dict[str, float] = field(default_factory=dict)   # its parameters (kicks: ball_x, ball_y)
    head_ball_focus: bool = False
    beam: tuple[float, float, float] | None = None
    beam_now: bool = False                    # beam without waiting for the walk to stop (stage.BEAM_STAND)
    say: str | None = None
    assignment: dict[str, int] = field(default_factory=dict)   # role -> unum
    method: str = "scram_mmd"


@dataclass(frozen=True)
class StrategyParams:
    team_size: int = 11
    variant: str = "villa"            # villa | allball | static | defense | boxes (§11.5)
    goalie_unum: int = 1
    team_key: str = "villa"
    hysteresis: float = 0.25          # m
    positioning_distance: float = 0.8  # m from the ball: positioning parameter set (§10.3)
    dive_max_distance: float = 5.0    # m: the goalie dives only at a ball this close
    dive_cooldown: float = 5.0        # s between dives
    kicks: bool = True                # §12.7 kicks (and the §11.2.1 kick-off kick); False: always dribble
    kick_when: str = "opponent"       # behaviours.want_kick's rule: opponent (§12.7) | free (no opponent within 1 m) |
                                      # never (dribble in play, no shots either; our set pieces still kick)
    kick_parameter_set: str = "tuned"  # villa_motion config/kick_params.yaml set (the motion node's must match)
    simulator: str = "villa"           # the body's world (villa | simspark | naoqi): the kick data's overlay
    kickoff_kick: str = "forward"     # §11.2.1: the team's most powerful kick
    kickoff_settle: float = 1.5       # s after its beam the kick-off taker stands still before it looks at the ball
    excluded_kicks: tuple[str, ...] = ()   # kicks never chosen (besides those the kick data leaves out of play)
    kick_tolerance: float = 0.08      # m from the kick's stand-at point (and kick_turn_tolerance) to request it
    kick_turn_tolerance: float = 0.12  # rad (behaviours.kick_approach; villa_optimize's §13.2 task uses the same)
    kick_hysteresis: float = 0.15     # §13.1.1 cost a new kick must save to replace the one being approached
    kick_spread: float = 0.35         # rad either side of the goal's direction a §12.7 kick may go (window_direction)
    seed: int | None = None           # random kick-off angle (§11.2.1)
    penalty: str = ""                 # §14 penalty shoot-out role: striker | goalie ("" = a game)
    formation: formation.FormationParams = formation.FormationParams()   # §11.1 role offsets
