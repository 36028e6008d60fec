"""Behaviours around the field and the ball: UT Austin Villa 2011 report §12 and the walk inputs of §10.4.1.

All positions are team-relative field coordinates (m), headings in rad (0 = toward the opponent goal).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

from villa_motion import kick as KK
from villa_motion.walk import normalized_walk, turn_input  # §10.4.1 walk inputs (used by go_to, re-exported)
from villa_nao import field as F
from villa_strategy import penalty

HALF_GOAL_Y = F.GOAL_WIDTH / 2
NEAR_BALL_SET = "positioning"      # §10.3: the walk parameter set used near the ball (dribbling, circling it)
KICK_APPROACH_SET = "kickApproach"  # the last KICK_APPROACH_NEAR m to a kick's stand-at point (and the kick's stand):
KICK_APPROACH_NEAR = 0.5           # the positioning set's shorter steps of before (its 0.12 m ran into the ball)


def wrap(a: float) -> float:
    return math.remainder(a, 2 * math.pi)


# --- the player's own robot ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Body:
    """What the behaviours need of the player's own robot: its robot type (the kick engine's IK), the walk's maximum
    forward and sideways speeds per parameter set (§10.4.1 turns a direction into normalized x, y by their ratio) and
    per set the standing pose a kick starts from (§13.1.1: the motion arbiter kicks from the current set's stand)."""

    robot_type: int
    speeds: Mapping[str, tuple[float, float]]       # set -> (max x, max y), m/s
    stands: Mapping[str, KK.StandPose]

    @classmethod
    def from_walk_sets(cls, sets, robot_type: int = 0) -> Body:
        """From villa_motion walk parameter sets (villa_motion.params.load_parameter_sets)."""
        if not sets:
            raise ValueError("the body needs at least one walk parameter set")
        return cls(robot_type, {n: (p.max_step_x / p.phase_length, p.max_step_y / p.phase_length)
                                for n, p in sets.items()},
                   {n: KK.StandPose.from_walk(p) for n, p in sets.items()})

    def speed(self, set_name: str) -> tuple[float, float]:
        """The set's maximum (x, y) speeds; a set the walk file lacks falls back to its first (as the walk refuses
        an unknown set, nothing better is known)."""
        return self.speeds.get(set_name) or next(iter(self.speeds.values()))

    def stand(self, set_name: str = NEAR_BALL_SET) -> KK.StandPose:
        return self.stands.get(set_name) or next(iter(self.stands.values()))

    def kick_set(self) -> str:
        """The set a kick is approached (and kicked from) with: KICK_APPROACH_SET, or NEAR_BALL_SET in a walk file
        without it."""
        return KICK_APPROACH_SET if KICK_APPROACH_SET in self.speeds else NEAR_BALL_SET


@cache
def default_body(robot_type: int = 0) -> Body:
    """villa_motion's shipped walk sets for `robot_type`: for tools and tests that have no player of their own."""
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path

    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), robot_type=robot_type)
    return Body.from_walk_sets(sets, robot_type)


# --- §12.1 closest to ball ------------------------------------------------------------------------------------

NOT_CLOSEST = 1000.0    # closeness_to_ball of a goalie with the ball outside our box: never the closest


def closeness_to_ball(agent, ball, is_goalie: bool = False, fallen: bool = False) -> float:
    """§12.1 getClosenessToBallMeasure: distance plus 1 m when in front of the ball, 1.5 m when fallen (unless
    within 0.65 m of it); the goalie is never closest unless the ball is in our goal box."""
    agent, ball = np.asarray(agent, float)[:2], np.asarray(ball, float)[:2]
    if is_goalie and not F.in_own_penalty_area(ball):
        return NOT_CLOSEST
    dist = float(np.linalg.norm(agent - ball))
    adjust = 0.0
    if fallen and dist > 0.65:
        adjust += 1.5
    if abs(ball[1]) > HALF_GOAL_Y:
        corner_band = F.HALF_WIDTH - HALF_GOAL_Y
        if ball[0] < -F.HALF_LENGTH + corner_band:
            post = np.array([-F.HALF_LENGTH, math.copysign(HALF_GOAL_Y, ball[1])])
            if np.linalg.norm(agent - post) > np.linalg.norm(ball - post):
                adjust += 1.0
        elif ball[0] > F.HALF_LENGTH - corner_band:
            post = np.array([F.HALF_LENGTH, math.copysign(HALF_GOAL_Y, ball[1])])
            if np.linalg.norm(agent - post) < np.linalg.norm(ball - post):
                adjust += 1.0
        elif agent[0] >= ball[0]:
            adjust += 1.0
    elif agent[0] >= ball[0]:
        adjust += 1.0
    return dist + adjust


# --- §12.2 collision avoidance ---------------------------------------------------------------------------------
def avoid_collisions(me, target, obstacles, proximity: float = 1.25, collision: float = 0.5) -> np.ndarray:
    """The direction (unit vector) to walk: toward the target, turned tangent around the nearest obstacle inside the
    proximity threshold (side closer to the target), plus a push away from it inside the collision threshold."""
    me, target = np.asarray(me, float)[:2], np.asarray(target, float)[:2]
    to_target = target - me
    dist_t = np.linalg.norm(to_target)
    if dist_t < 1e-6:
        return np.zeros(2)
    desired = to_target / dist_t
    obs = [np.asarray(o, float)[:2] for o in obstacles]
    obs = [o for o in obs if np.linalg.norm(o - me) < proximity and np.linalg.norm(o - me) < dist_t + collision]
    if not obs:
        return desired
    o = min(obs, key=lambda p: np.linalg.norm(p - me))
    away = me - o
    d = np.linalg.norm(away)
    away = away / d if d > 1e-6 else -desired
    if float(np.dot(desired, -away)) <= 0:  # the obstacle is not ahead: nothing to avoid
        return desired
    tangents = (np.array([-away[1], away[0]]), np.array([away[1], -away[0]]))
    tangent = max(tangents, key=lambda t: float(np.dot(t, desired)))
    move = tangent
    if d < collision:
        move = tangent + away
    return move / np.linalg.norm(move)


# --- §10.4.1 walk inputs -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WalkOrder:
    x: float            # normalized [-1, 1]
    y: float
    theta: float
    parameter_set: str  # goToTarget, sprint, positioning
    stop: bool = False


def walk_set(bearing: float, distance: float, near_ball: bool = False) -> str:
    """§10.3's parameter set rule: positioning near the ball, sprint when facing within 15° of a target more than
    1 m away (§10.3.2), goToTarget otherwise."""
    if near_ball:
        return NEAR_BALL_SET
    return "sprint" if abs(bearing) < math.radians(15) and distance > 1.0 else "goToTarget"


TURN_RANGE = 0.6                   # rad: near the ball the turn reaches full speed at this heading error
LEAST_TURN = 0.6                   # normalized: the slowest turn asked near the ball outside TURN_DEADBAND
TURN_DEADBAND = 0.1                # rad


def near_ball_turn(err: float, turn_range: float = TURN_RANGE) -> float:
    """Normalized turn for a heading error `err` (rad) near the ball: full speed from `turn_range` rad on, at least
    LEAST_TURN outside TURN_DEADBAND. The seed's degrees / 180 (§10.4.1) turns far too slowly there, and slower turns
    than 0.6 barely turn a Nao in place on villa sim (turn 0.3 for 5 s: 0-10 deg there, 61-125 deg on SimSpark; 0.6:
    60-75 deg, 117-127 deg; `villa bench walk_turn`): a player 60 deg off stood at the ball for 15 s."""
    if abs(err) < TURN_DEADBAND:
        return err / turn_range
    return math.copysign(max(LEAST_TURN, min(1.0, abs(err) / turn_range)), err)


def go_to(me_xy, me_theta: float, target, face: float | None = None, obstacles=(), body: Body | None = None,
          arrive: float = 0.1, near_ball: bool = False, face_within: float = 0.5) -> WalkOrder:
    """Move and turn toward a target at once (§10.2); within `face_within` m of it face `face` (the ball) instead
    (§12.3); the parameter set by walk_set (§10.3), the walk direction by that set's speeds (`body`,
    default_body())."""
    body = body or default_body()
    me = np.asarray(me_xy, float)[:2]
    target = np.asarray(target, float)[:2]
    dist = float(np.linalg.norm(target - me))
    if dist < arrive and (face is None or abs(wrap(face - me_theta)) < math.radians(10)):
        return WalkOrder(0.0, 0.0, 0.0, "goToTarget", stop=True)
    move = avoid_collisions(me, target, obstacles)
    heading = math.atan2(move[1], move[0]) if dist >= arrive else me_theta
    rel = wrap(heading - me_theta)
    pset = walk_set(rel, dist, near_ball)
    x, y = normalized_walk(rel, *body.speed(pset)) if dist >= arrive else (0.0, 0.0)
    scale = min(1.0, dist / 0.5) if dist < 0.5 else 1.0   # slow down on arrival
    want = heading if dist > face_within or face is None else face
    theta = (near_ball_turn if near_ball else turn_input)(wrap(want - me_theta))
    return WalkOrder(x * scale, y * scale, theta, pset)


# --- §12.4 ball approach, §12.6 dribbling ---------------------------------------------------------------------
def side_waypoint(me, ball, target, side: float) -> np.ndarray:
    """§12.4: of the two points `side` m to either side of the ball (perpendicular to agent->ball), the one nearer
    `target`: the way around the ball instead of through it."""
    me, ball, target = (np.asarray(v, float)[:2] for v in (me, ball, target))
    to_ball = ball - me
    perp = np.array([-to_ball[1], to_ball[0]]) / max(float(np.linalg.norm(to_ball)), 1e-6)
    a, b = ball + side * perp, ball - side * perp
    return a if np.linalg.norm(a - target) < np.linalg.norm(b - target) else b


PURSUIT_MARGIN = 0.1           # m: §12.4's pursuit point only while the opponent is this much nearer the ball


def approach_target(me, ball, direction: float, behind: float = 0.25, side: float = 0.5,
                    opponent=None) -> np.ndarray:
    """§12.4: the point `behind` the ball along the wanted direction; if walking there would cross the ball, a waypoint
    0.5 m to the side of the ball (perpendicular to agent->ball); with an opponent within 1 m of the ball and the ball
    between it and our goal, a point farther back along the opponent's likely dribble path (pursuit angle) — while the
    opponent is nearer the ball than we are (by PURSUIT_MARGIN): otherwise the opponent is not the one about to move
    it, and two players both waiting in pursuit 0.6 m from a still ball would stand there for the rest of the game
    (seen on SimSpark); and not with the ball in their penalty area, where the opponent at it is mostly their goalie,
    who does not dribble it anywhere (seen in a game: our player waited 0.6 m off a ball lying against their goalie
    for the last 11 s, with the goal beside it open)."""
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    u = np.array([math.cos(direction), math.sin(direction)])
    target = ball - behind * u
    if opponent is not None and not F.in_their_penalty_area(ball):
        opp = np.asarray(opponent, float)[:2]
        opp_d = float(np.linalg.norm(opp - ball))
        if opp_d < 1.0 and ball[0] < opp[0] and opp_d < float(np.linalg.norm(me - ball)) - PURSUIT_MARGIN:
            path = ball - opp
            path = path / max(np.linalg.norm(path), 1e-6)
            return ball + 0.6 * path
    to_ball = ball - me
    d = np.linalg.norm(to_ball)
    if d > 1e-6 and float(np.dot(to_ball / d, u)) < 0.0 and d < 3.0:  # we are in front of the ball
        return side_waypoint(me, ball, target, side)
    return target


def goal_line_y(ball, dx: float, dy: float) -> float:
    """Where (y, m) the line from `ball` along (dx, dy), dx > 0, crosses their goal line."""
    return float(ball[1] + (F.HALF_LENGTH - ball[0]) * dy / dx)


def should_move_ball_in_current_direction(agent_dir: float, desired_dir: float, ball, opponents=()) -> bool:
    """§12.5 shouldMoveBallInCurrentDirection, with the closest opponent only (reflex-based)."""
    ball = np.asarray(ball, float)[:2]
    u = np.array([math.cos(agent_dir), math.sin(agent_dir)])
    ahead = ball + 1.5 * u
    if ahead[0] > F.HALF_LENGTH and abs(agent_dir) < math.pi / 2 and abs(goal_line_y(ball, *u)) < HALF_GOAL_Y:
        return True                                           # the ball would go into the goal
    if abs(ahead[0]) > F.HALF_LENGTH or abs(ahead[1]) > F.HALF_WIDTH:
        return False                                          # it would leave the field
    if abs(wrap(agent_dir - desired_dir)) > math.radians(75):
        return False                                          # only mildly backwards
    opp = [np.asarray(o, float)[:2] for o in opponents]
    if not opp:
        return abs(wrap(agent_dir - desired_dir)) < math.radians(20)
    o = min(opp, key=lambda p: np.linalg.norm(p - ball))
    d = float(np.linalg.norm(o - ball))
    if d > 3.0:
        return abs(wrap(agent_dir - desired_dir)) < math.radians(20)   # time to align better
    to_o = o - ball
    blocks = float(np.dot(to_o, u)) > 0 and abs(float(u[0] * to_o[1] - u[1] * to_o[0])) < 0.5
    goal_dist_now = np.linalg.norm(F.OPP_GOAL - ball)
    if d < 1.5 and not blocks and np.linalg.norm(F.OPP_GOAL - ahead) < goal_dist_now:
        return True
    return d < 0.8                                           # do not let the opponent reach the ball


def kick_approach(kick, me, theta: float, ball, direction: float, body: Body | None = None,
                 near: float = 0.08, turn_tolerance: float = 0.12, turn_range: float = 0.6, behind: float = 0.3,
                 reach_margin: float = 0.01) -> tuple[np.ndarray, WalkOrder | None]:
    """§13.1.1 ball approach for a kick: walk to the kick's target offset (around the ball if it is in the way,
    §12.4), moving and turning at once (§10.2); within `near` m of it and `turn_tolerance` rad of its heading, the
    kick engine's reachability check for the body's robot type from its stand pose of the near-ball set (`body`,
    default default_body(); villa_motion.kick.reachable: > 90 % of the curve with the ball `reach_margin` m inside the
    reachable region) decides when to kick. Returns (target, walk order), walk None = kick now.

    Near the ball the turn is proportional to the heading error reaching full speed at `turn_range` rad: the seed's
    degrees / 180 (§10.4.1) turns the Nao at about 0.1 rad/s for a 20° error, too slow to line up within the §13.2
    ten seconds."""
    body = body or default_body()
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    stand_at, heading = KK.approach_pose(kick, ball, direction)
    dist = float(np.linalg.norm(stand_at - me))
    err = wrap(heading - theta)
    if dist < near and abs(err) < turn_tolerance:
        rel = F.to_local(ball, me, theta)
        if KK.reachable(kick, rel, body.stand(body.kick_set()), body.robot_type, margin=reach_margin):
            return stand_at, None
    v = (stand_at - ball) / max(float(np.linalg.norm(stand_at - ball)), 1e-6)
    off = me - stand_at
    lateral = abs(float(off[0] * v[1] - off[1] * v[0]))
    # come in on the line ball -> target offset: aim `behind` m farther out on it while off that line
    target = stand_at + min(behind, 1.5 * lateral) * v if float(off @ v) < behind else stand_at
    if KK.ball_in_path(me, target, ball, radius=0.25):      # §12.4: go around the ball, not through it
        target = side_waypoint(me, ball, target, 0.35)
    walk = go_to(me, theta, target, face=heading, body=body, arrive=0.01, near_ball=True)
    if float(np.linalg.norm(target - me)) < 0.5:
        walk = WalkOrder(walk.x, walk.y, near_ball_turn(err, turn_range), walk.parameter_set)
    if dist < KICK_APPROACH_NEAR:
        walk = WalkOrder(walk.x, walk.y, walk.theta, body.kick_set(), walk.stop)
    return stand_at, walk


def window_direction(kick, theta: float, direction: float, spread: float) -> float:
    """The direction (rad) within `spread` of `direction` nearest the one `kick` sends the ball from heading `theta`
    (a deviation from §13.1.1's one direction: lining up to one exact line took 3-6 s in games, in which an opponent
    came; with a window a player walking at the ball kicks the way it faces)."""
    off = wrap(theta + kick.direction - direction)
    return wrap(direction + max(-spread, min(spread, off)))


@dataclass(frozen=True)
class KickStep:
    """One cycle of KickBehaviour: walk toward `target`, or (walk None) request `skill` with `params`."""

    kick: KK.KickDef
    target: np.ndarray
    walk: WalkOrder | None
    skill: str | None = None
    params: Mapping[str, float] | None = None


class KickBehaviour:
    """§13.1.1: choose the kick whose target offset costs least to reach (keeping the one being approached unless a
    new one saves `hysteresis`), approach it (kick_approach) and, once the kick engine can reach the ball, request
    ``kick_<name>`` with the ball in the robot frame. The game's on-ball player and the optimizer's §13.2 kick task
    both run this; the task only narrows the pool to the kick it optimizes."""

    def __init__(self, kicks: Mapping[str, KK.KickDef], body: Body | None = None, near: float = 0.08,
                 turn_tolerance: float = 0.12, hysteresis: float = 0.15, reach_margin: float = 0.01) -> None:
        self.kicks, self.body = dict(kicks), body or default_body()
        self.near, self.turn_tolerance, self.hysteresis, self.reach_margin = near, turn_tolerance, hysteresis, \
            reach_margin
        self.current: str | None = None

    def reset(self) -> None:
        """Forget the kick being approached (a new approach chooses afresh)."""
        self.current = None

    def execute(self, me, theta: float, ball, direction: float, pool: list[KK.KickDef] | None = None,
                near: float | None = None, spread: float = 0.0) -> KickStep:
        """One cycle toward kicking the ball at `ball` toward `direction` (rad, field frame) with a kick of `pool`
        (default: every kick); `near`: the stand-at tolerance (m) instead of the behaviour's; `spread`: any direction
        within this many rad of `direction` will do, and each kick goes the one nearest where it would go from our
        heading (window_direction), so that a player coming at the ball need not turn to one exact line."""
        pool = list(self.kicks.values()) if pool is None else pool
        if not pool:
            raise ValueError("KickBehaviour.execute: no kicks to choose from")
        dirs = {k.name: window_direction(k, theta, direction, spread) for k in pool}
        costs = {k.name: KK.kick_cost(k, me, theta, ball, dirs[k.name]) for k in pool}
        kick = min(pool, key=lambda k: costs[k.name])
        prev = self.kicks.get(self.current or "")
        if prev is not None and prev is not kick and prev.name in costs and \
                costs[prev.name] < costs[kick.name] + self.hysteresis:
            kick = prev
        self.current = kick.name
        stand_at, walk = kick_approach(kick, me, theta, ball, dirs[kick.name], self.body,
                                       near=self.near if near is None else near,
                                       turn_tolerance=self.turn_tolerance, reach_margin=self.reach_margin)
        if walk is not None:
            return KickStep(kick, stand_at, walk)
        rel = F.to_local(ball, me, theta)             # at the target offset and the IK reaches the curve
        return KickStep(kick, stand_at, None, f"kick_{kick.name}", {"ball_x": float(rel[0]), "ball_y": float(rel[1])})

    def again(self, me, theta: float, ball) -> KickStep | None:
        """The kick being approached, asked for again with the ball where it now lies while the kick engine reaches it
        from this stand (the motion's own test, without the approach's margin): for a kick the motion already stops
        for or runs, instead of the whole approach (its reach checks cost 4-75 ms a cycle). None: approach
        again (execute)."""
        kick = self.kicks.get(self.current or "")
        if kick is None:
            return None
        rel = F.to_local(ball, me, theta)
        if not KK.reachable(kick, rel, self.body.stand(self.body.kick_set()), self.body.robot_type):
            return None
        return KickStep(kick, np.asarray(ball, float)[:2], None, f"kick_{kick.name}",
                        {"ball_x": float(rel[0]), "ball_y": float(rel[1])})


PUSH_REACH = 0.5            # m: the ball within this far ahead of the torso is pushed (walked through, §12.6)
PUSH_CONE = math.radians(50)   # the heading may be this far off the way the ball should go while pushing it
PUSH_FAR = 1.0              # m: a ball up to this far ahead and within PUSH_FAR_WIDTH m of the centre line is walked
PUSH_FAR_WIDTH = 0.15       # on at, not walked up to behind (a pushed ball rolls 0.5-1 m ahead)
PUSH_WIDTH = 0.06           # m: the ball this far to either side of the torso's centre line still meets the feet


def push_ball(rel, err: float) -> WalkOrder:
    """§12.6 walking through the ball, steered in the robot frame: sidestep to keep the ball (`rel`, robot frame, m)
    on the torso's centre line, walk forward the faster the better it is centred, turn toward the way the ball should
    go (`err`, rad). Steering toward a field-frame point beyond the ball walked past it: forward outran the sidestep
    and the ball slid by a foot (driveBallToGoal, villa sim)."""
    lateral = float(rel[1])
    y = max(-1.0, min(1.0, lateral / (2 * PUSH_WIDTH)))
    x = 1.0 if abs(lateral) < PUSH_WIDTH else max(0.0, 1.0 - (abs(lateral) - PUSH_WIDTH) / (2 * PUSH_WIDTH))
    return WalkOrder(x, y, max(-1.0, min(1.0, err / TURN_RANGE)), NEAR_BALL_SET)


DRIBBLE_AIM_RANGE = 4.0     # m from their goal's centre: the dribble aims at the gap beside their goalie


def attack_direction(ball, opponents=()) -> float:
    """The way (rad, field frame) to move the ball toward their goal: at its centre; within DRIBBLE_AIM_RANGE m of it,
    at the middle of the larger gap beside their goalie (the opponent nearest the goal, if within 2 m of it; §14's
    shot, penalty.shot_window): dribbled at the centre, the ball runs into a goalie standing there."""
    ball = np.asarray(ball, float)[:2]
    to_goal = F.OPP_GOAL - ball
    if float(np.linalg.norm(to_goal)) > DRIBBLE_AIM_RANGE or ball[0] >= F.HALF_LENGTH:
        return math.atan2(to_goal[1], to_goal[0])
    opp = [np.asarray(o, float)[:2] for o in opponents]
    keeper = min(opp, key=lambda o: float(np.linalg.norm(o - F.OPP_GOAL)), default=None)
    if keeper is not None and float(np.linalg.norm(keeper - F.OPP_GOAL)) > 2.0:
        keeper = None                                         # none in goal: the whole mouth
    return penalty.shot_window(ball, keeper)[0]


FINISH_RANGE = 3.0          # m from their goal line: a ball this near is walked into the goal from where we stand
FINISH_REACH = 2.0          # m: ... by a player at most this far from it
FINISH_MARGIN = 0.2         # m inside either post the line through the ball must cross the goal line


def on_scoring_line(me, ball) -> bool:
    """Whether walking straight through the ball from `me` sends it into their goal: the ball within FINISH_RANGE m of
    their goal line, we within FINISH_REACH m behind it, and the line from us through the ball crossing the goal line
    FINISH_MARGIN m inside the posts (seen in a game: a ball 0.13 m from the line between the posts lay there for
    13 s while the on-ball player, whose approach point behind the ball along the goal's centre line was taken by
    their goalie, walked round it; any push along the line it stood on would have scored)."""
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    d = ball - me
    if not (F.HALF_LENGTH - FINISH_RANGE < ball[0] < F.HALF_LENGTH) or d[0] <= 0.05 \
            or float(np.linalg.norm(d)) > FINISH_REACH:
        return False
    return abs(goal_line_y(ball, *d)) < HALF_GOAL_Y - FINISH_MARGIN


FACE_SPAN = math.radians(60)   # near the ball the player faces it within this of the way to move the ball


def near_ball_face(agent_dir: float, direction: float) -> float:
    """Where a player near the ball faces (§12.3), rad: the ball (`agent_dir`, from the player) while it lies within
    FACE_SPAN of the way to move it (`direction`); beyond, back toward that way, which it faces with the ball more
    than 2 * FACE_SPAN off (beside or behind it: turning to the ball would only have to be undone). Continuous, so
    that the turn does not jump as the player circles the ball (a switch between the two at 60 deg, and one from the
    walk's heading to this face 0.5 m from the walk's target, sent full-speed turns back and forth in games)."""
    d = wrap(agent_dir - direction)
    if abs(d) > FACE_SPAN:
        d = math.copysign(max(0.0, 2 * FACE_SPAN - abs(d)), d)
    return direction + d


def dribble(me, theta: float, ball, opponents=(), obstacles=(), body: Body | None = None,
            positioning_distance: float = 0.8) -> tuple[np.ndarray, WalkOrder]:
    """§12.4-12.6 on the ball without kicking (team-relative field frame): approach behind the ball toward the
    opponent goal (or keep moving it the way we face, §12.5); push it when it is just ahead and we face about the
    right way (§12.6, push_ball); near it, circle it as an obstacle, facing as near_ball_face says (the ball while it
    lies about the way we want to move it, that way while it is beside or behind us) wherever the walk's target is.
    A ball that rolled up to PUSH_FAR m ahead on our centre line is walked on at, and one on a line from us into their
    goal is walked straight in (on_scoring_line).
    (target, walk order). The game's on-ball player and the optimizer's §10.3.1 driveBallToGoal task both run this."""
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    goal_dir = attack_direction(ball, opponents)
    agent_dir = math.atan2(ball[1] - me[1], ball[0] - me[0])
    dist = float(np.linalg.norm(ball - me))
    direction = goal_dir
    if (dist < 0.6 and should_move_ball_in_current_direction(agent_dir, goal_dir, ball, opponents)) \
            or on_scoring_line(me, ball):
        direction = agent_dir
    u = np.array([math.cos(direction), math.sin(direction)])
    rel = F.to_local(ball, me, theta)
    err = wrap(direction - theta)
    pushing = 0.0 < rel[0] < PUSH_REACH and abs(rel[1]) < 0.6 * rel[0] + PUSH_WIDTH + 0.02
    pushing = pushing or (PUSH_REACH <= rel[0] < PUSH_FAR and abs(rel[1]) < PUSH_FAR_WIDTH)
    if pushing and abs(err) < PUSH_CONE and float((ball - me) @ u) > 0.0:
        return ball + 0.5 * u, push_ball(rel, err)
    opp_near = min(opponents, key=lambda o: np.linalg.norm(np.array(o) - ball)) if len(opponents) else None
    target = approach_target(me, ball, direction, opponent=opp_near)
    near = dist < positioning_distance
    # circling the ball: the ball is an obstacle with 0.5 m / 0.35 m thresholds (§12.6), while the way to the target
    # passes it; a target short of the ball (behind it, on our side) is walked to straight: avoiding the ball there
    # sidestepped 0.45-0.5 m behind it for the rest of the game
    in_way = near and KK.ball_in_path(me, target, ball, radius=0.35)
    move = avoid_collisions(me, target, [ball], proximity=0.5, collision=0.35) if in_way else None
    if move is not None and np.linalg.norm(move) > 0:
        target_step = me + move * min(0.5, float(np.linalg.norm(target - me)))
    else:
        target_step = target
    face = near_ball_face(agent_dir, direction) if near else None
    walk = go_to(me, theta, target_step, face=face,
                 obstacles=[o for o in obstacles if np.linalg.norm(np.asarray(o) - ball) > 0.3], body=body,
                 near_ball=near, face_within=math.inf)
    return target, walk


KICK_LINING_LIMIT = 15.0    # s of lining up a kick before the agent dribbles instead (§12.7)


KICK_RULES = ("opponent", "free", "never")
KICK_ABORT_DISTANCE = 1.0   # m: an opponent this near the ball aborts a kick (§12.7: no time to kick before it arrives)


def ball_contested(ball, opponents=(), distance: float = KICK_ABORT_DISTANCE) -> bool:
    """§12.7: an opponent within `distance` m of the ball (then dribble, do not kick)."""
    ball = np.asarray(ball, float)[:2]
    return any(float(np.linalg.norm(np.asarray(o, float)[:2] - ball)) < distance for o in opponents)


def kicks_in_play(rule: str) -> bool:
    """Whether kick rule `rule` kicks in play at all, §12.7's kicks or a shot on goal (all but "never")."""
    return rule != "never"


def want_kick(ball, desired_dir: float, opponents=(), lining_up_for: float = 0.0, rule: str = "opponent") -> bool:
    """§12.7: kick when an opponent is < 3.5 m from the ball within 45° of the heading; not when one is within 1 m,
    nor after 15 s of lining up (then the agent dribbles). decision.TeamPlayer._kick requests the kick. `rule`
    "free" (a deviation, §13.3: with a slow walk the kicking agent outscored the dribbling one) kicks whenever no
    opponent is within 1 m; "never" (a deviation: our kicks in play moved the ball 0.7-1.1 m (median) after seconds of
    lining up, not past the opponent §12.7 kicks to get by) always dribbles."""
    if rule not in KICK_RULES:
        raise ValueError(f"kick rule must be one of {', '.join(KICK_RULES)}, got {rule!r}")
    ball = np.asarray(ball, float)[:2]
    if not kicks_in_play(rule) or lining_up_for > KICK_LINING_LIMIT or ball_contested(ball, opponents):
        return False
    close = rule == "free"
    for o in opponents:
        v = np.asarray(o, float)[:2] - ball
        d = float(np.linalg.norm(v))
        if d < 3.5 and abs(wrap(math.atan2(v[1], v[0]) - desired_dir)) < math.radians(45):
            close = True
    return close
