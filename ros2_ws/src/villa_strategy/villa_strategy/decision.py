"""One player's decision per cycle: formation (§11.1), role assignment with voting (§11.3-11.4), communication (§6),
set plays (§11.2, with the §11.2.1 kick-off long kick), goalie (§9), on-ball behaviour (§12, with §12.7 "when to
kick" choosing a kick by the §13.1.1 cost), and the §11.5 variants AllBall, Static, Defense and Boxes.

Plain data in, plain data out (villa_strategy.decision_data: WorldView, StrategyParams, Decision; the node converts
messages); team-relative field frame, metres and radians.
"""

from __future__ import annotations

import math

import numpy as np

from villa_motion import kick as KK
from villa_nao import field as F
from villa_nao.params import check_world
from villa_strategy import behaviours as B
from villa_strategy import comm, formation, goalie, penalty, role_assignment, set_plays
from villa_strategy.decision_data import Decision, StrategyParams, WorldView
from villa_strategy.voting import Voting

# villa_msgs/GameState play modes (same values; test_decision checks them against the message)
BEFORE_KICK_OFF, KICK_OFF_OWN, KICK_OFF_OPP, PLAY_ON = 1, 2, 3, 4
KICK_IN_OWN, KICK_IN_OPP, CORNER_KICK_OWN, CORNER_KICK_OPP, GOAL_KICK_OWN, GOAL_KICK_OPP = 5, 6, 7, 8, 9, 10
OFFSIDE_OWN, GAME_OVER, GOAL_OWN, GOAL_OPP, FREE_KICK_OWN, DIRECT_FREE_KICK_OWN = 11, 13, 14, 15, 16, 18
FREE_KICK_OPP_MODES = {KICK_OFF_OPP, KICK_IN_OPP, CORNER_KICK_OPP, GOAL_KICK_OPP, 12, 17, 19, 21}
# Our set pieces: their taker may touch the ball once, then not again until another robot has (both servers' rule:
# SimSpark 0.7's free-kick taker foul, any touch of the taker's 0.1 s after its first; rcssservermj's double touch,
# 1 s after; either gives the opponents a free kick)
OWN_SET_PIECES = {KICK_OFF_OWN, KICK_IN_OWN, CORNER_KICK_OWN, GOAL_KICK_OWN, OFFSIDE_OWN, FREE_KICK_OWN,
                  DIRECT_FREE_KICK_OWN}
SET_PIECE_KICKS = OWN_SET_PIECES - {KICK_OFF_OWN, CORNER_KICK_OWN}   # taken with a kick toward their goal (_kick)
TOUCH_REACH = 0.25         # m from the ball: a robot (its torso) this near may have touched it; the taker may again
GIVE_WAY = 1.0             # m from the ball a taker that may not touch it stands aside (formation.give_way)
BEAM_MODES = {BEFORE_KICK_OFF, GOAL_OWN, GOAL_OPP}
KICKOFF_SETBACK = {"simspark": 0.02,   # m behind the kick-off kick's stand-at point: SimSpark's beam noise is +-5 cm.
                   "villa": 0.01}       # Beamed mid-crouch a Nao settled 4-10 cm forward there (2.5 cm on villa sim);
                                        # beamed standing (stage.FIRST_BEAM_STAND) it settles 1-1.5 cm back on villa
                                        # sim, and on SimSpark 5 cm left the true ball 1.7-7.3 cm (mean 4.4) beyond
                                        # the kick's offset, 2 cm -1.4-7.1 (3.5) with its forward kick learned over
                                        # +-3 cm (30 first kick-offs each; kick_params.simspark.yaml)
KICKOFF_STANDS = {"simspark": True,    # after a goal our kick-off taker is beamed at once and stands as at the first
                  "villa": False}      # kick-off (lining up only when KICKOFF_LINEUP_HOLD off): SimSpark's forward
                                       # kick is robust standing, not after the line-up's steps (kick-offs after a
                                       # goal within 3 s in 12 of 20 lined up, 15 of 20 standing); on villa sim
                                       # its beam waits for the walk to stop and it lines up once to KICKOFF_LINEUP_NEAR
KICKOFF_LINEUP_NEAR = 0.03  # m from the stand-at point the taker lines up to before the kick-off (the kick's 0.08 m
                            # tolerance is for play: from 7.5 cm short the kick-off kick moved the ball 0.2-0.5 m)
KICKOFF_LINEUP_HOLD = 0.07  # m: the taker stands until its stand-at point is this far, then lines up to NEAR (pose
                            # and ball estimates jitter 2-3 cm: lining up at NEAR stepped it now and then, and the
                            # whistle came mid-step; the beam spot is within it on both servers)
KICKOFF_LINEUP_BALL = 0.3  # m from the centre spot: the ball the kick-off taker lines up to before the kick-off
VARIANTS = ("villa", "allball", "static", "defense", "boxes")      # §11.5
VOTING_VARIANTS = ("villa", "defense", "boxes")                     # the positioning differs, coordination does not
HEARD_BALL_AGE = 1.0       # s: a teammate's heard ball this old is still used when ours is not valid (§6)
PENALTY_ROLES = ("", "striker", "goalie")   # §14 penalty shoot-out roles ("" = a game)
PENALTY_SHOT_FOLLOW = 3.0  # s after its shot the striker dribbles again (§14: an unsuccessful kick is followed up)
PENALTY_STRIKER_BEAM = (-0.4, 0.0, 0.0)     # behind the ball on the centre spot, facing their goal
SHOT_RANGE = 5.0           # m from their goal's centre: the on-ball player shoots (shot_on_goal)
SHOT_ANGLE = math.radians(60)   # ... with the ball at most this far off the goal's axis, seen from the goal


def shot_on_goal(ball) -> bool:
    """The ball near enough their goal, and in front of it, for the on-ball player to shoot (SHOT_RANGE, SHOT_ANGLE)."""
    v = np.asarray(ball, float)[:2] - F.OPP_GOAL
    return float(np.linalg.norm(v)) < SHOT_RANGE and abs(math.atan2(v[1], -v[0])) < SHOT_ANGLE


class TeamPlayer:
    """The strategy of one player across cycles (keeps voting window, hysteresis and codec). `body`: the player's
    robot type, walk speeds and stand pose (behaviours.Body; default: robot type 0 with the shipped walk sets)."""

    def __init__(self, unum: int, params: StrategyParams, body: B.Body | None = None) -> None:
        if params.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {params.variant!r}")
        if params.kick_when not in B.KICK_RULES:
            raise ValueError(f"kick_when must be one of {', '.join(B.KICK_RULES)}, got {params.kick_when!r}")
        if not 0.0 <= params.kick_spread <= math.pi:
            raise ValueError(f"kick_spread must be 0..pi rad, got {params.kick_spread!r}")
        if params.penalty not in PENALTY_ROLES:
            raise ValueError(f"penalty must be striker, goalie or empty, got {params.penalty!r}")
        check_world(params.simulator)
        self.unum, self.p = unum, params
        self.body = body or B.default_body()
        self.goalie = params.goalie_unum if formation.has_goalie(params.team_size, params.formation) else None
        self.codec = comm.Codec(params.team_key)
        self.voting = Voting(max(params.team_size, 1))
        self.hysteresis = role_assignment.Hysteresis(params.hysteresis)
        self.heard: dict[int, comm.TeamMessage] = {}
        self._last_dive = -1e9
        self.rejected = 0
        kicks = KK.load_kick_set(params.kick_parameter_set, simulator=params.simulator,
                                 robot_type=self.body.robot_type) if params.kicks else {}
        self.kicks = {n: k for n, k in kicks.items() if k.base not in params.excluded_kicks}
        # the kicks chosen in play (§12.7, shots, corners, penalties): those the kick data keeps in play in this world;
        # the kick-off kick is chosen from every kick (§11.2.1, kickoff_kick)
        in_play = KK.load_in_play(params.kick_parameter_set, simulator=params.simulator) if kicks else None
        self.play_kicks = [k for k in self.kicks.values() if in_play is None or k.base in in_play]
        self.rng = np.random.default_rng(params.seed)
        self.kicker = B.KickBehaviour(self.kicks, self.body, near=params.kick_tolerance,
                                      turn_tolerance=params.kick_turn_tolerance, hysteresis=params.kick_hysteresis)
        self._kick_since: float | None = None       # game time the current kick attempt began (§12.7: 15 s)
        self._kickoff_dir: float | None = None
        self._lined_up: bool | None = None         # the kick-off taker stands lined up (KICKOFF_LINEUP_HOLD); None:
                                                    # not decided yet in this beam phase
        self._beam_mode = -1                        # the last beam phase's play mode
        self._kickoff_near: float | None = None     # the kick-off kick's stand-at tolerance at the whistle (None: the
                                                    # kick's own): NEAR after a goal whose pause left no line-up
        self._penalty_start: float | None = None    # game time the penalty kick began (§14: 40 s)
        self._penalty_shot: float | None = None     # game time of the striker's shot
        self._prev_mode = -1                        # the play mode of the last cycle
        self.barred: int | None = None              # our last set piece's taker while it may not touch the ball
                                                    # (OWN_SET_PIECES); never onBall while a teammate can be

    @property
    def _kick_name(self) -> str | None:
        """The kick being approached (KickBehaviour's choice)."""
        return self.kicker.current

    # --- communication -----------------------------------------------------------------------------------
    def hear(self, text: str, game_time: float, side_left: bool) -> comm.TeamMessage | None:
        try:
            msg = self.codec.decode(text, game_time, side_left)
        except comm.CommError:
            self.rejected += 1
            return None
        sender = comm.speaker(msg.time, self.p.team_size)
        if sender == self.unum:
            return None
        self.heard[sender] = msg
        self.voting.vote(msg.roles)
        return msg

    def _say(self, w: WorldView, game_time: float, side_left: bool, roles: dict[str, int]) -> str | None:
        if not comm.my_turn(game_time, self.unum, self.p.team_size):
            return None
        vec = [0] * comm.ROLES
        for i, r in enumerate(formation.ROLE_ORDER):
            vec[i] = roles.get(r, 0)
        return self.codec.encode(comm.TeamMessage(game_time, side_left, w.fallen, w.ball, w.pose[:2],
                                                  w.sees_ball, w.localized, tuple(vec)))

    # --- role assignment ---------------------------------------------------------------------------------
    def team_positions(self, w: WorldView, now: float) -> dict[int, np.ndarray]:
        pos = {self.unum: np.array(w.pose[:2])}
        for u, xy in w.teammates.items():
            pos[u] = np.array(xy)
        for u, m in self.heard.items():  # what teammates said about themselves beats what we saw of them
            if now - m.time < 2.0:
                pos[u] = np.array(m.position)
        return pos

    def assign(self, w: WorldView, ball: np.ndarray, now: float) -> dict[str, int]:
        pos = self.team_positions(w, now)
        unums = sorted(pos)[: self.p.team_size]
        fallen = set(w.fallen_mates) | ({self.unum} if w.fallen else set())
        closeness = {u: B.closeness_to_ball(pos[u], ball, u == self.goalie, u in fallen) for u in unums}
        on_ball = min(closeness, key=closeness.get)
        if on_ball == self.barred:
            # our set piece's taker may not touch the ball again yet: the closest teammate that may goes (a goalie
            # only for a ball in our box, as always); with none, the taker plays on
            others = {u: c for u, c in closeness.items() if u != on_ball and c < B.NOT_CLOSEST}
            on_ball = min(others, key=others.get) if others else on_ball
        if self.p.variant == "static":
            # each uniform number's role (ranked among the players known, a player that knew only itself took the
            # goalie's role, and its taker swap gave that role to nobody: a decision error per Static kick-off)
            roles = formation.roles_for(self.p.team_size, params=self.p.formation)
            fixed = {roles[u - 1]: u for u in unums if 1 <= u <= len(roles)}
            swap = next((r for r, u in fixed.items() if u == on_ball), None)
            if self.barred is not None and fixed.get("onBall") == self.barred and swap and on_ball != self.goalie:
                fixed[swap], fixed["onBall"] = self.barred, on_ball            # the taker takes that one's role
            return fixed
        goalie_on_ball = on_ball == self.goalie
        roles = formation.roles_for(len(unums), goalie_on_ball, goalie=self.goalie in unums, params=self.p.formation)
        targets = formation.variant_formation(self.p.variant, ball, self.p.team_size, goalie_on_ball, self.p.formation)
        out = {"onBall": on_ball}
        if self.goalie in unums:
            out["goalie"] = self.goalie
        rest_roles = [r for r in roles if r not in out]
        rest_agents = [u for u in unums if u not in out.values()]
        n = min(len(rest_roles), len(rest_agents))
        if n:
            rest_roles = rest_roles[:n]
            costs = role_assignment.cost_matrix(np.array([pos[u] for u in rest_agents[:n]]),
                                                np.array([targets[r] for r in rest_roles]))
            a = self.hysteresis.choose(costs, role_assignment.assign_dp(costs))
            for k, agent in enumerate(a.mapping):
                out[rest_roles[k]] = rest_agents[agent]
        return out

    def _track_taker(self, w: WorldView, ball: np.ndarray, play_mode: int, now: float) -> None:
        """The servers' rule on set pieces (OWN_SET_PIECES): as play resumes after ours, the robot of ours at the ball
        took it and is `barred` until another robot (ours or theirs) comes within TOUCH_REACH of the ball, or the play
        mode changes. Every teammate tracks the same taker from the same play modes and positions. (Untracked, the
        takers walk the ball on on SimSpark, their second touch gives the other team a free kick, whose taker does the
        same: free kicks took 15-65 % of a game in traces.)"""
        if play_mode != PLAY_ON:
            self.barred = None
        elif self._prev_mode in OWN_SET_PIECES:
            pos = self.team_positions(w, now)
            self.barred = min(pos, key=lambda u: float(np.linalg.norm(pos[u] - ball)))
        elif self.barred is not None:
            pos = self.team_positions(w, now)
            others = [p for u, p in pos.items() if u != self.barred] + [np.asarray(o, float)[:2] for o in w.opponents]
            if any(float(np.linalg.norm(p - ball)) < TOUCH_REACH for p in others):
                self.barred = None
        self._prev_mode = play_mode

    # --- the cycle -------------------------------------------------------------------------------------
    def shared_ball(self, w: WorldView, now: float) -> np.ndarray:
        """§6: our ball estimate while it is valid; otherwise the ball a teammate heard within HEARD_BALL_AGE s
        says it sees (trusted: localized, and not fallen), the nearest such teammate's; otherwise our (stale)
        estimate. An unseen ball's prediction drifts and a lost robot places the ball wrongly: a teammate that sees
        it knows better."""
        if w.ball_valid:
            return np.array(w.ball, dtype=float)
        fresh = [m for m in self.heard.values()
                 if now - m.time <= HEARD_BALL_AGE and m.sees_ball and m.trusted and not m.fallen]
        if not fresh:
            return np.array(w.ball, dtype=float)
        m = min(fresh, key=lambda m: math.dist(m.position, m.ball))
        return np.array(m.ball, dtype=float)

    def decide(self, w: WorldView, play_mode: int, game_time: float, side_left: bool) -> Decision:
        """This cycle's decision: the §14 penalty kick's, a beam phase's (kick-off positions), or in play the agreed
        roles' (§11.3-11.4): the goalie's dive (§9), the onBall player's kick or dribble (§12), a supporter's walk to
        its role's spot (§11.1, the set plays of §11.2)."""
        ball = self._ball_in_play_mode(w, play_mode, game_time)
        self._track_taker(w, ball, play_mode, game_time)
        me = np.array(w.pose[:2])
        theta = w.pose[2]
        if self.p.penalty:
            return self._penalty(w, ball, me, theta, play_mode, game_time)
        if play_mode in BEAM_MODES:
            return self._beam_phase(w, ball, me, theta, play_mode, game_time, side_left)
        self._leave_beam_phase()
        if play_mode == GAME_OVER:
            return Decision("none", tuple(me), walk=B.WalkOrder(0, 0, 0, "goToTarget", stop=True))
        own, agreed, method = self._agreed_roles(w, ball, game_time)
        say = self._say(w, game_time, side_left, own)
        role, method = self._my_role(agreed, method)
        obstacles = [np.array(p) for u, p in self.team_positions(w, game_time).items() if u != self.unum]
        obstacles += [np.array(o) for o in w.opponents]
        common = {"say": say, "assignment": agreed, "method": method}
        if self.unum == self.goalie and (skill := self._dive(w, ball, me, game_time)):   # as goalie or onBall
            return Decision(role, tuple(me), skill=skill, **common)
        if role == "onBall" and play_mode not in FREE_KICK_OPP_MODES:
            return self._play_the_ball(w, ball, me, theta, play_mode, game_time, obstacles, role, common)
        target = self._supporter_target(ball, me, role, agreed, play_mode)
        # §12.2: a supporter walks around the ball too (the stopper's spot lies behind the ball: walking straight
        # there from the far side pushes the ball toward our goal); the goalie goes to the ball's line as it is
        around = obstacles if role == "goalie" else [*obstacles, np.array(ball, float)[:2]]
        face = math.atan2(ball[1] - me[1], ball[0] - me[0])
        walk = B.go_to(me, theta, target, face=face, obstacles=around, body=self.body)
        return Decision(role, (float(target[0]), float(target[1])), walk=walk, head_ball_focus=role == "goalie",
                        **common)

    def _ball_in_play_mode(self, w: WorldView, play_mode: int, now: float) -> np.ndarray:
        """The ball this cycle's decision goes by: the shared ball (§6), except at a kick-off, where the referee puts
        the ball on the centre spot: until we see it there, our estimate is where it lay (after a goal: in the net,
        and a kick-off taker going by it walks at the net at the whistle)."""
        ball = self.shared_ball(w, now)
        if play_mode in (KICK_OFF_OWN, KICK_OFF_OPP) and math.hypot(*ball) > KICKOFF_LINEUP_BALL:
            ball = np.zeros(2)
        return ball

    def _our_kickoff(self, play_mode: int, game_time: float, side_left: bool) -> bool:
        """The beam phase's kick-off is ours: a half's kick-off is the left team's in the first half and the right
        team's in the second; after a goal it is the team's that conceded."""
        if play_mode != BEFORE_KICK_OFF:
            return play_mode == GOAL_OPP
        first_half = game_time < F.HALF_TIME - 1e-6
        return side_left == first_half

    def _beam_phase(self, w: WorldView, ball, me, theta, play_mode: int, game_time: float,
                    side_left: bool) -> Decision:
        """Before a kick-off (BEAM_MODES): beamed to our number's kick-off position (§11.2); our kick-off's taker
        where its kick-off kick reaches the ball (_kickoff_beam), lining up from there once settled
        (_kickoff_lineup)."""
        self._beam_mode = play_mode
        # the votes (§11.4) of the play before the beams (ours, or heard still in transit) describe where nobody stands
        # any more: kept, they outvote the kick-off's own mapping at its first cycles, and our kick-off taker, made
        # stopper, steps aside at the whistle and kicks from off its spot after the stop
        self.voting.clear()
        our_kickoff = self._our_kickoff(play_mode, game_time, side_left)
        size = max(self.p.team_size, self.unum)
        roles = formation.roles_for(size, params=self.p.formation)
        role = roles[(self.unum - 1) % len(roles)]                   # the role of our number
        pos = formation.kickoff_positions(size, our_kickoff=our_kickoff, params=self.p.formation)
        x, y = pos[role]
        if not (role == "onBall" and our_kickoff and self.kicks):
            return Decision(role, (float(x), float(y)), beam=(float(x), float(y), 0.0), method="kickoff")
        beam = self._kickoff_beam((float(x), float(y)))
        d = self._kickoff_lineup(w, ball, me, theta, beam, play_mode) or \
            Decision(role, beam[:2], beam=beam, method="kickoff")
        # after a goal, where the taker stands as at the first kick-off (KICKOFF_STANDS), it needs the whole pause to
        # settle (on SimSpark, beamed 5 cm behind its point, waiting for its walk to stop left no time: 11 of 20
        # kick-offs within 3 s, against 17 of 20 beamed at once; villa bench kickoff_after_goal)
        d.beam_now = play_mode == GOAL_OPP and self._kickoff_stands
        return d

    def _leave_beam_phase(self) -> None:
        """The first cycle out of a beam phase. After a goal, a taker that did not line up during the pause (its beam
        waits for the walk to stop, then it settles 1.5 s) lines up at the whistle to KICKOFF_LINEUP_NEAR: on
        SimSpark, beamed 5 cm behind its point, it kicks from there within the kick's 8 cm, and the ball moved
        0.05-0.6 m (villa bench kickoff_after_goal). The next kick-off's taker starts afresh."""
        if self._beam_mode in BEAM_MODES:
            self._kickoff_near = KICKOFF_LINEUP_NEAR if self._beam_mode == GOAL_OPP and not self._lined_up else None
            self._beam_mode = -1
        self._lined_up = None

    def _agreed_roles(self, w: WorldView, ball: np.ndarray, now: float) -> tuple[dict[str, int], dict[str, int], str]:
        """(our own role assignment, the one the team agrees on, how it was decided): §11.3's assignment, voted on
        (§11.4) in the VOTING_VARIANTS; our own where the vote leaves us out (stale votes)."""
        own = self.assign(w, ball, now)
        mapping = tuple(own.get(r, 0) for r in formation.ROLE_ORDER) + (0,) * (comm.ROLES - len(formation.ROLE_ORDER))
        self.voting.vote(mapping)
        method = "static" if self.p.variant == "static" else "scram_mmd"
        voting = self.p.variant in VOTING_VARIANTS
        winner = self.voting.winner() if voting else mapping
        agreed = {r: u for r, u in zip(formation.ROLE_ORDER, winner, strict=False) if u}
        if voting and winner != mapping:
            method = "vote"
        if self.unum not in agreed.values():
            agreed = own
        return own, agreed, method

    def _my_role(self, agreed: dict[str, int], method: str) -> tuple[str, str]:
        """(our role in `agreed`, the method, "allball" where AllBall sends us to the ball). §9.1: a goalie closest
        to a ball in our box holds both roles and plays onBall (goalieReplacement covers the goal): taken by
        ROLE_ORDER it would stay "goalie" and nobody would go for that ball. In AllBall (§11.5) every player but the
        goalie goes for the ball, except our set piece's taker while it may not touch it and another plays it."""
        on_ball = agreed.get("onBall") == self.unum
        role = "onBall" if on_ball else next((r for r, u in agreed.items() if u == self.unum), "onBall")
        if self.p.variant == "allball" and self.unum != self.goalie and (self.unum != self.barred or on_ball):
            return "onBall", "allball"
        return role, method

    def _play_the_ball(self, w: WorldView, ball, me, theta, play_mode: int, game_time: float, obstacles, role: str,
                       common: dict) -> Decision:
        """The onBall player: a kick where §12.7 (and our set pieces, shots) ask for one (_kick), else the dribble."""
        kick = self._kick(w, ball, me, theta, play_mode, game_time)
        if kick is not None:
            target, walk, skill, params = kick
            return Decision(role, tuple(target), walk=walk, skill=skill, skill_params=params, head_ball_focus=True,
                            **common)
        target, walk = self._on_ball(w, ball, me, theta, obstacles)
        return Decision(role, tuple(target), walk=walk, head_ball_focus=True, **common)

    def _supporter_target(self, ball, me, role: str, agreed: dict[str, int], play_mode: int):
        """Where a player not on the ball goes: its role's spot in the variant's formation (§11.1, §11.5), moved by
        the set plays (§11.2): our kick-off's spots until the kick, aside for our set piece's taker that may not
        touch the ball yet, the goal-kick formations, the kick-in shift, the distance from their free kick's ball."""
        goalie_on_ball = self.goalie is not None and agreed.get("onBall") == self.goalie
        targets = formation.variant_formation(self.p.variant, ball, self.p.team_size, goalie_on_ball, self.p.formation)
        target = targets.get(role, me)
        if play_mode == KICK_OFF_OWN:
            # until the kick-off kick, our others keep their kick-off spots (the receiver's beside the taker)
            spots = formation.kickoff_positions(max(self.p.team_size, self.unum), our_kickoff=True,
                                                params=self.p.formation)
            target = spots.get(role, target)
        if self.unum == self.barred and role != "goalie":
            # our set piece's taker, which may not touch the ball yet, stands aside: its role's spot (the stopper's
            # lies behind the ball) is in the way of the teammate coming for the ball
            target = formation.give_way(ball, me, GIVE_WAY)
        if play_mode in (GOAL_KICK_OWN, GOAL_KICK_OPP, CORNER_KICK_OWN):
            # §11.2.3: at our corner kick the others take the offensive goal-kick formation (the onBall player plays
            # the ball over their end line); onBall's spot, the one nearest their goal, stays open for it
            spots = set_plays.defensive_goal_kick() if play_mode == GOAL_KICK_OWN else set_plays.offensive_goal_kick()
            idx = formation.ROLE_ORDER.index(role) if role in formation.ROLE_ORDER else 0
            target = spots[idx % len(spots)]
        if play_mode in (KICK_IN_OWN, KICK_IN_OPP):
            target = set_plays.kick_in_shift([target], ball)[0]
        if play_mode in FREE_KICK_OPP_MODES:
            target = set_plays.keep_free_kick_distance([target], ball)[0]
        return target

    def _dive(self, w: WorldView, ball, me, game_time: float) -> str | None:
        """The goalie's dive skill, or None. §9.3 dives only on a trusted estimate: localized, the ball seen and near,
        and not again right after one (a dive is a fall: a noisy velocity estimate must not keep the goalie on the
        ground)."""
        near = float(np.linalg.norm(ball - me)) < self.p.dive_max_distance
        if not (w.ball_valid and w.localized and near and game_time - self._last_dive > self.p.dive_cooldown):
            return None
        skill = goalie.dive_decision(me, ball, w.ball_velocity)
        if skill:
            self._last_dive = game_time
        return skill

    def _penalty(self, w: WorldView, ball, me, theta: float, play_mode: int, game_time: float) -> Decision:
        """§14 penalty kick, the ball on the centre spot. The striker dribbles to about a metre outside their goal box
        and shoots into the larger gap between their goalie and a post; after an unsuccessful shot
        (PENALTY_SHOT_FOLLOW s) it dribbles on, and after 25 s it only dribbles. The goalie positions as in §9 but
        steps up to its box's top edge with the ball within 3.5 m of the goal, goes to a ball inside its box and
        dribbles it out, and dives as the game's goalie does."""
        role = self.p.penalty
        if play_mode in BEAM_MODES:
            self._penalty_start = self._penalty_shot = None
            g = goalie.goalie_position((0.0, 0.0))
            spot = PENALTY_STRIKER_BEAM if role == "striker" else (float(g[0]), float(g[1]), 0.0)
            return Decision(role, spot[:2], beam=spot, method="penalty")
        if play_mode == GAME_OVER:
            return Decision(role, tuple(me), walk=B.WalkOrder(0, 0, 0, "goToTarget", stop=True), method="penalty")
        if self._penalty_start is None:
            self._penalty_start = game_time
        face = math.atan2(ball[1] - me[1], ball[0] - me[0])
        if role == "goalie":
            if skill := self._dive(w, ball, me, game_time):
                return Decision(role, tuple(me), skill=skill, method="penalty")
            if F.in_own_penalty_area(ball):                                        # in our box: out with it
                target, walk = self._on_ball(w, ball, me, theta, ())
            else:
                target = penalty.penalty_goalie_target(ball)
                walk = B.go_to(me, theta, target, face=face, body=self.body)
            return Decision(role, (float(target[0]), float(target[1])), walk=walk, head_ball_focus=True,
                            method="penalty")
        plan = penalty.striker_plan(ball, game_time - self._penalty_start)
        shot_over = self._penalty_shot is not None and game_time - self._penalty_shot > PENALTY_SHOT_FOLLOW
        if plan == "shoot" and self.play_kicks and not shot_over:
            keeper = min(w.opponents, key=lambda o: math.dist(o, F.OPP_GOAL), default=tuple(F.OPP_GOAL))
            direction, spread = penalty.shot_window(ball, keeper)         # the larger gap beside their goalie
            step = self.kicker.execute(me, theta, ball, direction, self.play_kicks, spread=spread)
            if step.skill is not None and self._penalty_shot is None:
                self._penalty_shot = game_time
            return Decision(role, tuple(step.target), walk=step.walk, skill=step.skill,
                            skill_params=dict(step.params or {}), head_ball_focus=True, method="penalty")
        target, walk = self._on_ball(w, ball, me, theta, ())
        return Decision(role, tuple(target), walk=walk, head_ball_focus=True, method="penalty")

    @staticmethod
    def _sees_ball_on_spot(w: WorldView) -> bool:
        """Our own ball estimate, seen, lies on the centre spot (within KICKOFF_LINEUP_BALL m): the kick-off's ball."""
        return w.ball_valid and math.hypot(*w.ball) <= KICKOFF_LINEUP_BALL

    def _kickoff_kick(self) -> tuple[float, list[KK.KickDef]]:
        """§11.2.1: the kick-off kick's direction (5-20°, drawn once per kick-off) toward its receiver's side
        (formation.kickoff_side) and its kicks."""
        if self._kickoff_dir is None:
            self._kickoff_dir = KK.kickoff_direction(self.rng, side=formation.kickoff_side(self.p.formation),
                                                     degrees=self.p.formation.kickoff_angle)
        return self._kickoff_dir, [k for k in self.kicks.values() if k.base == self.p.kickoff_kick]

    def _our_simulator(self, table: dict):
        """`table`'s entry for our world, or villa sim's (KICKOFF_SETBACK, KICKOFF_STANDS)."""
        return table.get(self.p.simulator, table["villa"])

    @property
    def _kickoff_stands(self) -> bool:
        return self._our_simulator(KICKOFF_STANDS)

    @property
    def _kickoff_setback(self) -> float:
        """m behind the kick-off kick's stand-at point."""
        return self._our_simulator(KICKOFF_SETBACK)

    def _kickoff_beam(self, spot: tuple[float, float]) -> tuple[float, float, float]:
        """§11.2.1: the kick-off taker is beamed where the kick-off kick (its direction drawn now and kept for the
        kick) reaches the ball without a step, KICKOFF_SETBACK m back from its stand-at point: SimSpark adds up to
        5 cm of noise to a beam, and a robot beamed against the ball touches it first. A step up to the ball from a spot
        farther back does that on SimSpark: the kick is the taker's second touch and the opponents get a free kick."""
        direction, pool = self._kickoff_kick()
        if not pool:
            return spot[0], spot[1], 0.0
        kick, stand_at, heading, _ = KK.choose_kick(pool, np.array(spot), 0.0, np.zeros(2), direction)
        self.kicker.current = kick.name              # the lining up and the kick go on with the kick beamed for
        x, y = stand_at - self._kickoff_setback * np.array([math.cos(heading), math.sin(heading)])
        return float(x), float(y), float(heading)

    def _kickoff_lineup(self, w: WorldView, ball, me, theta, beam, play_mode: int) -> Decision | None:
        """§11.2.1 before our kick-off: once settled after its beam, the taker walks to the kick-off kick's stand-at
        point (robots may move in their own half while the game waits), so that the kick goes at the whistle without a
        step. A Nao beamed mid-crouch settles 4-10 cm forward of its beam on SimSpark (2.5 cm on villa sim) plus the
        beam noise: from the beam spot it often stands against the ball, touches it at the whistle and its kick is a
        second touch.
        Lines up to a localized, seen ball near the centre spot; during the pause after a goal the ball lies in the net
        until the kick-off, so the taker lines up to the centre spot itself, where the server puts it (lined up only
        after the whistle, the ball moved 2.0-3.2 s after it on SimSpark, against 1.2-2.4 s at the first kick-off).
        Never kicks (walk stop once the kick would be requested). It lines up only once the point is
        KICKOFF_LINEUP_HOLD m off (then to KICKOFF_LINEUP_NEAR), and stands otherwise: lining up whenever it is NEAR m
        off, pose and ball noise over a real-time wait of seconds step it now and then, and a kick-off kick taken at
        the whistle from the stop that follows falls (4 of 7 in `villa match --realtime`). None: stand on the beam
        spot (also before the first beam)."""
        if not self.p.kickoff_settle <= w.since_beam < math.inf or not w.localized:
            return None
        if play_mode == GOAL_OPP:
            ball = np.zeros(2)
        elif not self._sees_ball_on_spot(w):
            return None
        direction, pool = self._kickoff_kick()
        if self._lined_up is None:
            # before the first kick-off the taker stands on its beam spot unless it is HOLD m off; after a goal too
            # where KICKOFF_STANDS, otherwise it lines up once to NEAR: beamed from play 5 cm behind its point on
            # SimSpark, it steps at the whistle, and the kick after the stop misses (villa bench kickoff_after_goal
            # --play-before)
            self._lined_up = play_mode == BEFORE_KICK_OFF or self._kickoff_stands
        near = KICKOFF_LINEUP_HOLD if self._lined_up else KICKOFF_LINEUP_NEAR
        step = self.kicker.execute(me, theta, ball, direction, pool, near=near)
        self._lined_up = step.walk is None
        walk = step.walk or B.WalkOrder(0.0, 0.0, 0.0, self.body.kick_set(), stop=True)
        # the head scans while the ball is in the net (it looks for the lines, not the ball)
        return Decision("onBall", tuple(step.target), walk=walk, head_ball_focus=play_mode != GOAL_OPP, beam=beam,
                        method="kickoff")

    def _kick(self, w: WorldView, ball, me, theta, play_mode: int, game_time: float):
        """§12.7 when to kick (an opponent within 3.5 m and 45° of our heading, none within 1 m, at most 15 s of lining
        up), the §11.2.1 kick-off (the most powerful kick, 5-20° left or right at random), our §11.2.3 corner kick
        (over their end line, away from the goal), our other set pieces (SET_PIECE_KICKS: one kick toward their goal)
        and a shot on goal near it (shot_on_goal, also aborted by an opponent within 1 m). Besides the kick-off, the
        kick is one the kick data keeps in play (play_kicks), chosen by the §13.1.1 cost and approached; once at its
        stand-at point, and the IK reaches the curve (§13.1.1), the motion skill kick_<name> is requested. None:
        dribble instead (§12.4-12.6)."""
        if not self.kicks:
            return None
        kickoff = play_mode == KICK_OFF_OWN
        if not kickoff:
            self._kickoff_dir, self._kickoff_near = None, None
        goal_dir = math.atan2(F.OPP_GOAL[1] - ball[1], F.OPP_GOAL[0] - ball[0])
        spread = 0.0                           # rad: any direction this near `direction` will do (window_direction)
        if play_mode == CORNER_KICK_OWN:
            # §11.2.3: our corner kick goes over their end line, away from the goal (a goal kick for them, with our
            # others already in the offensive goal-kick formation)
            out = set_plays.corner_kick_out_target(ball)
            direction, pool = math.atan2(out[1] - ball[1], out[0] - ball[0]), self.play_kicks
        elif kickoff:
            if w.since_beam < self.p.kickoff_settle or not self._sees_ball_on_spot(w):
                # stand: (1) a beam drops the robot: for about a second it sways and its low-passed tilt lags, so the
                # ball it sees at its feet is cm off; a step then takes it off the spot the beam chose (4 of 10
                # kick-offs 1 s after the beam stepped and missed, 0 of 10 after 2 s); (2) the ball is not seen on the
                # centre spot yet (after a goal it lay in the net a moment ago): a step taken then has the walk stop
                # for the kick, and the ball estimate drifts with the sway by the kick's start (kick-off kicks refused
                # or moving the ball 0.1-0.9 m after a goal)
                return me, B.WalkOrder(0.0, 0.0, 0.0, self.body.kick_set(), stop=True), None, {}
            direction, pool = self._kickoff_kick()
        elif play_mode in SET_PIECE_KICKS:
            # our free kick, kick-in or goal kick: one kick toward their goal. Walked into, the ball is pushed on for
            # longer than SimSpark's 0.1 s, the taker's second touch (in traces: PlayOn, then the other team's free
            # kick 0.2-0.4 s later); after it the taker leaves the ball to another robot (_track_taker)
            if self._kick_since is not None and game_time - self._kick_since > B.KICK_LINING_LIMIT:
                return None
            direction, spread, pool = goal_dir, self.p.kick_spread, self.play_kicks
        elif shot_on_goal(ball) and B.kicks_in_play(self.p.kick_when):
            # deviation (§12.7 kicks only to get past an opponent): near their goal a kick into the larger gap beside
            # their goalie (§14's shot) is a shot on goal, lined up for at most §12.7's 15 s
            if self._kick_since is not None and game_time - self._kick_since > B.KICK_LINING_LIMIT:
                return None
            if B.ball_contested(ball, w.opponents):
                # §12.7's abort holds for a shot too: lining up beside a defender at the ball took 7 s and the kick
                # fell (villa bench game_trace); dribble and shoot once it is clear
                self._kick_since = None
                self.kicker.reset()
                return None
            keeper = min(w.opponents, key=lambda o: math.dist(o, F.OPP_GOAL), default=tuple(F.OPP_GOAL))
            (direction, spread), pool = penalty.shot_window(ball, keeper), self.play_kicks
        else:
            lining = 0.0 if self._kick_since is None else game_time - self._kick_since
            if not B.want_kick(ball, goal_dir, w.opponents, rule=self.p.kick_when):
                self._kick_since = None                         # no reason to kick (any more): start afresh later
                self.kicker.reset()
                return None
            if not B.want_kick(ball, goal_dir, w.opponents, lining, rule=self.p.kick_when):
                return None                                     # 15 s of lining up: dribble (§12.7)
            direction, spread, pool = goal_dir, self.p.kick_spread, self.play_kicks
        if not pool:
            return None                                         # no kick in play here: dribble
        if self._kick_since is None:
            self._kick_since = game_time
        # the motion already stops for (or runs) this kick: ask for it again with the newer ball, without the
        # approach's reach checks (they cost milliseconds a cycle: late real-time answers at every kick)
        step = self.kicker.again(me, theta, ball) if w.kick_running == f"kick_{self.kicker.current}" else None
        if step is None:
            step = self.kicker.execute(me, theta, ball, direction, pool, spread=spread,
                                       near=self._kickoff_near if kickoff else None)
        return step.target, step.walk, step.skill, dict(step.params or {})

    def _on_ball(self, w: WorldView, ball, me, theta, obstacles):
        """§12.4-12.6: dribble (behaviours.dribble), the default on the ball; `_kick` decides when §12.7 asks for a
        kick instead."""
        return B.dribble(me, theta, ball, w.opponents, obstacles, self.body, self.p.positioning_distance)
