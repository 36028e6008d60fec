"""The team formation as a function of the ball: UT Austin Villa 2011 report §11.1 (Fig. 6-8), extended to 11
players after the thesis §5.9 (a centre back on the goal-ball line and a midfielder behind the stopper), and the
§11.5 variants Defense and Boxes (variant_formation).

Team-relative field frame (our goal at -x). Offensive roles are offsets from the ball, shifted inside near the side
lines (Fig. 7) and kept in front of our end line (Fig. 8); the backs stand on the line from our goal to the ball; the
goalie follows §9.1 (goalie.py). Roles are listed in fill order: a team of n players uses the first n.

A goalie is reserved only in a team of at least GOALIE_MIN_TEAM players. The 2011 team always had one (9 players),
but §11.1/§12.1 put the closest player on the ball first of all; with one or two players a goalie that never leaves
its box leaves nobody (or one robot that may be lying, §12.1's +1.5 m) to go for the ball, so smaller teams are all
field players: onBall, then stopper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from villa_nao import field as F

ROLE_ORDER = ("goalie", "onBall", "stopper", "backLeft", "backRight", "forwardLeft", "forwardRight",
              "wingLeft", "wingRight", "backCenter", "midfielder")
GOALIE_REPLACEMENT = "goalieReplacement"
GOALIE_MIN_TEAM = 3      # players a team needs before it keeps a goalie home
KICKOFF_SPACING = 1.0    # m between any two beam positions before a kick-off


@dataclass(frozen=True)
class FormationParams:
    forward_offset: tuple[float, float] = (0.0, 2.0)     # m, forwardLeft = ball + (x, y), forwardRight mirrors y
    stopper_offset: float = 0.8                          # m behind the ball (§11.1's 1.5 m; no worse in the
    #                                                      rows, docs/status.md, "Game results")
    stopper_goal_line: bool = False                      # behind the ball on the line to our goal's centre (not -x)
    goalie_min_team: int = GOALIE_MIN_TEAM               # players a team needs before it keeps a goalie home
    wing_offset: tuple[float, float] = (-3.0, 4.0)       # m, wingLeft = ball + (x, y)
    midfielder_offset: float = 4.0                       # m behind the ball (11 players)
    back_distance: float = 4.0                           # m from our goal centre along the line to the ball
    back_spread: float = 1.2                             # m, backs either side of that line
    center_back_distance: float = 2.5                    # m (11 players: thesis §5.9 "between 2 and 3 m")
    side_margin: float = 0.7                             # m kept inside the side lines (Fig. 7)
    end_margin: float = 1.0                              # m kept in front of our end line (Fig. 8)
    replacement_distance: float = 1.0                    # m in front of the goal centre (goalieReplacement)
    kickoff_receiver: tuple[float, float] = (-0.5, 1.0)  # m: the stopper's beam at our kick-off (kickoff_positions)
    kickoff_angle: tuple[float, float] = (5.0, 20.0)     # degrees: the kick-off kick's range (toward the receiver)


def has_goalie(team_size: int, params: FormationParams | None = None) -> bool:
    """Whether a team of `team_size` players keeps a goalie (from `params.goalie_min_team` players on)."""
    return team_size >= (params or FormationParams()).goalie_min_team


def roles_for(team_size: int, goalie_on_ball: bool = False, goalie: bool | None = None,
              params: FormationParams | None = None) -> tuple[str, ...]:
    """The roles a team of `team_size` fills (with a goalie when `goalie`, by default has_goalie(team_size, params)).
    When the goalie takes onBall itself (ball in our goal box, §11.1), a goalieReplacement role in front of the goal
    replaces the last field role."""
    goalie = has_goalie(team_size, params) if goalie is None else goalie
    order = ROLE_ORDER if goalie else ROLE_ORDER[1:]
    roles = order[:max(1, min(team_size, len(order)))]
    if goalie and goalie_on_ball and len(roles) >= 2:
        roles = ("goalie",) + tuple(r for r in roles[1:] if r != "onBall") + (GOALIE_REPLACEMENT,)
    return roles


def _clamp(p: np.ndarray, params: FormationParams) -> np.ndarray:
    x = min(max(p[0], -F.HALF_LENGTH + params.end_margin), F.HALF_LENGTH - params.side_margin)
    y = min(max(p[1], -F.HALF_WIDTH + params.side_margin), F.HALF_WIDTH - params.side_margin)
    return np.array([x, y])


def formation(ball, team_size: int = 11, goalie_on_ball: bool = False,
              params: FormationParams = FormationParams()) -> dict[str, np.ndarray]:
    """Role -> target position (m) for a ball position (team-relative)."""
    from villa_strategy.goalie import goalie_position

    b = np.clip(np.asarray(ball, dtype=float)[:2], [-F.HALF_LENGTH, -F.HALF_WIDTH], [F.HALF_LENGTH, F.HALF_WIDTH])
    goal = F.OWN_GOAL
    out: dict[str, np.ndarray] = {"goalie": goalie_position(b), "onBall": b.copy()}
    fx, fy = params.forward_offset
    # Fig. 7: near a side line the outer forward/wing would leave the field: mirror its offset inside
    wx, wy = params.wing_offset
    for name, (dx, dy) in (("forwardLeft", (fx, fy)), ("forwardRight", (fx, -fy)),
                           ("wingLeft", (wx, wy)), ("wingRight", (wx, -wy))):
        y = b[1] + dy
        if abs(y) > F.HALF_WIDTH - params.side_margin:
            y = b[1] - dy * 0.5 if abs(b[1] - dy * 0.5) < F.HALF_WIDTH - params.side_margin else b[1]
        x = b[0] + dx
        out[name] = _clamp(np.array([x, y]), params)
    if params.stopper_goal_line:
        to_goal = F.OWN_GOAL - b
        out["stopper"] = _clamp(b + to_goal / max(float(np.linalg.norm(to_goal)), 1e-6) * params.stopper_offset, params)
    else:
        out["stopper"] = _clamp(b + [-params.stopper_offset, 0.0], params)
    out["midfielder"] = _clamp(b + [-params.midfielder_offset, 0.0], params)
    # backs: on the line from the centre of our goal to the ball (§11.1), at fixed distances from the goal
    v = b - goal
    n = np.linalg.norm(v)
    u = v / n if n > 1e-6 else np.array([1.0, 0.0])
    perp = np.array([-u[1], u[0]])
    d = min(params.back_distance, max(n - 1.0, 1.0))
    base = goal + u * d
    out["backLeft"] = _clamp(base + perp * params.back_spread, params)
    out["backRight"] = _clamp(base - perp * params.back_spread, params)
    out["backCenter"] = _clamp(goal + u * min(params.center_back_distance, max(n - 0.5, 0.8)), params)
    out[GOALIE_REPLACEMENT] = goal + [params.replacement_distance, 0.0]
    # Fig. 8: near our end line, roles behind the ball would stand behind the backs: keep them in front of them
    for name in ("stopper", "wingLeft", "wingRight", "midfielder"):
        if out[name][0] < base[0] + 0.5 and b[0] < -F.HALF_LENGTH + 6:
            out[name] = _clamp(np.array([base[0] + 0.5, out[name][1]]), params)
    roles = roles_for(team_size, goalie_on_ball, params=params)
    return {r: out[r] for r in roles}


# §11.5 Boxes: every role but goalie and onBall has a fixed box of the field (x0, x1, y0, y1), team-relative; its
# target is the box's centre pulled halfway toward the ball, kept inside the box (home positions as in [11]).
BOXES: dict[str, tuple[float, float, float, float]] = {
    "stopper": (-7.5, 0.0, -3.4, 3.4), "backLeft": (-13.5, -7.5, 0.0, 6.0), "backRight": (-13.5, -7.5, -6.0, 0.0),
    "forwardLeft": (0.0, 7.5, 0.0, 6.0), "forwardRight": (0.0, 7.5, -6.0, 0.0),
    "wingLeft": (7.5, 14.0, 3.4, 9.3), "wingRight": (7.5, 14.0, -9.3, -3.4), "backCenter": (-13.5, -7.5, -3.0, 3.0),
    "midfielder": (-7.5, 0.0, 3.4, 9.3),
}
BOX_PULL = 0.5
# §11.5 Defense: only onBall and the stopper (directly behind the ball) attack; every other field role defends on
# the line from our goal to the ball: (distance from the goal centre, m; offset across the line, m).
DEFENSIVE_SLOTS: dict[str, tuple[float, float]] = {
    "forwardLeft": (2.5, 2.4), "forwardRight": (2.5, -2.4), "wingLeft": (5.5, 3.0), "wingRight": (5.5, -3.0),
    "midfielder": (6.5, 0.0),
}


def variant_formation(variant: str, ball, team_size: int = 11, goalie_on_ball: bool = False,
                      params: FormationParams = FormationParams()) -> dict[str, np.ndarray]:
    """Role -> target for a strategy variant (§11.5): villa, allball and static use formation(); defense keeps only
    onBall and the stopper offensive; boxes puts the other roles in fixed boxes. (Remembered for the last few balls:
    a decision asks for the same one several times.)"""
    b = np.asarray(ball, dtype=float)
    key = _cached_formation(variant, float(b[0]), float(b[1]), team_size, goalie_on_ball, params)
    return {role: np.array(xy) for role, xy in key}


@lru_cache(maxsize=32)
def _cached_formation(variant: str, bx: float, by: float, team_size: int, goalie_on_ball: bool,
                      params: FormationParams) -> tuple[tuple[str, tuple[float, float]], ...]:
    out = _variant_formation(variant, (bx, by), team_size, goalie_on_ball, params)
    return tuple((role, (float(p[0]), float(p[1]))) for role, p in out.items())


def _variant_formation(variant: str, ball, team_size: int, goalie_on_ball: bool,
                       params: FormationParams) -> dict[str, np.ndarray]:
    out = formation(ball, team_size, goalie_on_ball, params)
    b = np.clip(np.asarray(ball, dtype=float)[:2], [-F.HALF_LENGTH, -F.HALF_WIDTH], [F.HALF_LENGTH, F.HALF_WIDTH])
    if variant == "boxes":
        for role in out:
            if role in BOXES:
                x0, x1, y0, y1 = BOXES[role]
                home = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
                p = home + BOX_PULL * (b - home)
                out[role] = np.array([min(max(p[0], x0), x1), min(max(p[1], y0), y1)])
    elif variant == "defense":
        v = b - F.OWN_GOAL
        n = float(np.linalg.norm(v))
        u = v / n if n > 1e-6 else np.array([1.0, 0.0])
        perp = np.array([-u[1], u[0]])
        for role in out:
            if role in DEFENSIVE_SLOTS:
                d, side = DEFENSIVE_SLOTS[role]
                out[role] = _clamp(F.OWN_GOAL + u * min(d, max(n - 1.0, 1.0)) + perp * side, params)
    return out


def kickoff_positions(team_size: int, our_kickoff: bool,
                      params: FormationParams = FormationParams()) -> dict[str, np.ndarray]:
    """Beam positions before a kick-off (§11.2.1): all in our half, outside the centre circle unless we kick off. At
    our kick-off the stopper is its receiver, beamed beside the taker at `params.kickoff_receiver` on the side the
    kick-off kick goes (decision: kickoff_side): the taker may not touch the ball again until another robot has, and
    from the stopper's spot 2.3 m behind the centre its nearest teammate walked 4-5 m to the ball."""
    pos = formation((0.0, 0.0), team_size, params=params)
    r = F.CENTER_CIRCLE_RADIUS + 0.3
    out = {}
    for role, p in pos.items():
        p = np.array([min(p[0], -0.3), p[1]])
        if role == "onBall":
            p = np.array([-0.25, 0.0]) if our_kickoff else np.array([-r, 0.0])
        elif role == "stopper" and our_kickoff:
            p = np.array([min(params.kickoff_receiver[0], 0.0), params.kickoff_receiver[1]])
        elif math.hypot(*p) < r:
            p = p / max(np.linalg.norm(p), 1e-6) * r if np.linalg.norm(p) > 1e-6 else np.array([-r, 0.5])
            p[0] = min(p[0], -0.3)
        while any(np.linalg.norm(p - q) < KICKOFF_SPACING for q in out.values()):
            p = np.array([p[0] - KICKOFF_SPACING, p[1]])      # two robots beamed to one spot collide and fall
        out[role] = p
    return out


def kickoff_side(params: FormationParams = FormationParams()) -> float:
    """+1 or -1: the side (team-relative y) our kick-off kick goes, that of its receiver (kickoff_positions)."""
    return -1.0 if params.kickoff_receiver[1] < 0.0 else 1.0


GIVE_WAY_CLEAR = 0.4      # m: a robot giving way nearer the ball than this first steps straight back from it ...
GIVE_WAY_BACK = 0.6       # m: ... to this far from it (its path on to the spot aside then stays over 0.4 m off)


def give_way(ball, me, distance: float) -> np.ndarray:
    """Where a robot that may not touch the ball stands aside: `distance` m from the ball across the line from the
    ball to their goal, on the robot's side (the other side when the side line is nearer). Off that line it is not in
    the way of the teammate that comes for the ball from behind it. Nearer the ball than GIVE_WAY_CLEAR (a weak kick
    left it at the taker's feet) it first steps straight back from the ball: turning and walking aside there touches
    it again, a foul (seen on SimSpark)."""
    b = np.asarray(ball, float)[:2]
    away = np.asarray(me, float)[:2] - b
    gap = float(np.linalg.norm(away))
    if gap < GIVE_WAY_CLEAR:
        return b + (away / gap if gap > 1e-6 else np.array([-1.0, 0.0])) * GIVE_WAY_BACK
    along = F.OPP_GOAL - b
    along = along / max(float(np.linalg.norm(along)), 1e-6)
    across = np.array([-along[1], along[0]])
    side = 1.0 if float(np.dot(away, across)) >= 0.0 else -1.0
    spot = b + side * distance * across
    if abs(spot[1]) > F.HALF_WIDTH - 0.5:
        spot = b - side * distance * across
    return spot


def formation_params(p) -> FormationParams:
    """From the strategy node's `formation.*` parameters (config/strategy.yaml)."""
    return FormationParams(forward_offset=(float(p["formation.forward_x"]), float(p["formation.forward_y"])),
                           stopper_offset=float(p["formation.stopper_offset"]),
                           stopper_goal_line=bool(p["formation.stopper_goal_line"]),
                           goalie_min_team=int(p["formation.goalie_min_team"]),
                           wing_offset=(float(p["formation.wing_x"]), float(p["formation.wing_y"])),
                           midfielder_offset=float(p["formation.midfielder_offset"]),
                           back_distance=float(p["formation.back_distance"]),
                           back_spread=float(p["formation.back_spread"]),
                           center_back_distance=float(p["formation.center_back_distance"]),
                           kickoff_receiver=(float(p["formation.kickoff_receiver_x"]),
                                             float(p["formation.kickoff_receiver_y"])),
                           kickoff_angle=(float(p["formation.kickoff_angle_min"]),
                                          float(p["formation.kickoff_angle_max"])))
