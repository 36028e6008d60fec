"""Set plays in the decision layer (§11.2): our corner kick, our set pieces taken with one kick, the taker that may
not touch the ball again, and supporters' spots around the ball."""

import math
from dataclasses import replace

import numpy as np
import pytest

from villa_motion import kick as KK
from villa_nao import field as F
from villa_strategy import decision as D
from villa_strategy import formation


def _team_view(me, ball, mates, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates=dict(mates), opponents=list(opponents))


def test_own_corner_kick_plays_the_ball_over_their_end_line_while_the_others_take_the_goal_kick_formation():
    """§11.2.3: the onBall player kicks the ball out over the opponents' end line, away from their goal, with no
    opponent near (at play on it would dribble); the others take the offensive goal-kick formation."""
    from villa_strategy import set_plays

    ball = (14.3, 9.7)                                            # their corner, our left
    me = (13.0, 9.0, 0.0)
    taker = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3))       # 1 is the goalie
    view = D.WorldView(pose=me, ball=ball, teammates={1: (-14.0, 0.0), 3: (0.0, -3.0)})
    assert taker.decide(view, D.PLAY_ON, 1.0, True).skill is None and taker._kick_since is None   # play on: dribble
    d = taker.decide(view, D.CORNER_KICK_OWN, 2.0, True)
    assert d.role == "onBall" and d.walk is not None
    out = set_plays.corner_kick_out_target(ball)
    assert out[0] > 15.0 and out[1] > 0                           # behind their end line, on the ball's side
    kick, at, face, _ = KK.choose_kick(taker.kicks, me[:2], 0.0, ball, math.atan2(out[1] - ball[1], out[0] - ball[0]))
    assert d.target == pytest.approx(tuple(at))
    d = taker.decide(D.WorldView(pose=(at[0], at[1], face), ball=ball, teammates=view.teammates), D.CORNER_KICK_OWN,
                     3.0, True)
    assert d.skill == f"kick_{kick.name}"
    # a supporter goes to the offensive goal-kick formation, as at their goal kick
    other = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=3))
    others = {1: (-14.0, 0.0), 2: me[:2]}
    d = other.decide(D.WorldView(pose=(0.0, -3.0, 0.0), ball=ball, teammates=others), D.CORNER_KICK_OWN, 2.0, True)
    assert d.role != "onBall"
    spots = set_plays.offensive_goal_kick()
    assert any(d.target == pytest.approx(tuple(s)) for s in spots)
    d_goal_kick = other.decide(D.WorldView(pose=(0.0, -3.0, 0.0), ball=ball, teammates=others), D.GOAL_KICK_OPP, 2.0,
                               True)
    assert d.target == pytest.approx(d_goal_kick.target)


def test_a_supporter_walks_around_the_ball_to_its_spot_behind_it():
    """§12.2: the stopper, on the far side of the ball from its spot 1.5 m behind the ball, walks around the ball, not
    straight through it (which pushed it toward our goal in a traced Static game)."""
    ball = (1.0, 1.0)
    p = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=3))          # 1 is the goalie, 2 is on the ball
    view = D.WorldView(pose=(2.0, 1.0, math.pi), ball=ball, teammates={1: (-14.0, 0.0), 2: (0.2, 0.2)})
    d = p.decide(view, D.PLAY_ON, 5.0, True)
    assert d.role not in ("onBall", "goalie") and d.target[0] < ball[0] - 0.5      # its spot is behind the ball
    assert abs(d.target[1] - ball[1]) < 0.3                                          # the ball is on the way there
    heading = math.pi + math.atan2(d.walk.y, d.walk.x)                               # field frame (facing -x)
    straight = math.atan2(d.target[1] - 1.0, d.target[0] - 2.0)
    assert abs(math.remainder(heading - straight, 2 * math.pi)) > math.radians(45)   # not at the ball: around it


@pytest.mark.parametrize("mode", sorted(D.SET_PIECE_KICKS))
def test_our_free_kick_kick_in_or_goal_kick_is_taken_with_one_kick_not_walked_into(mode):
    """The servers' rule on a set piece's taker: the taker kicks the ball once (walked into, the ball was pushed on for
    longer than SimSpark's 0.1 s: the taker's second touch, a free kick to them)."""
    taker = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3, kick_when="never"))
    ball, me = (3.0, -9.8), (2.0, -9.0, 0.0)
    view = _team_view(me, ball, {1: (-14.0, 0.0), 3: (0.0, -3.0)})
    d = taker.decide(view, mode, 2.0, True)
    assert d.role == "onBall" and d.skill is None and taker._kick_name is not None       # approaching a kick
    goal_dir = math.atan2(-ball[1], 15.0 - ball[0])
    kick, at, face, _ = KK.choose_kick(taker.play_kicks, me[:2], 0.0, ball, goal_dir)
    d = taker.decide(_team_view((at[0], at[1], face), ball, view.teammates), mode, 3.0, True)
    assert d.skill == f"kick_{kick.name}"
    # in play, as before, the same player dribbles (kick_when never)
    d = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3, kick_when="never")).decide(view, D.PLAY_ON, 2.0, True)
    assert d.skill is None and d.walk is not None


@pytest.mark.parametrize("variant", ["villa", "allball", "static"])
def test_after_our_set_piece_its_taker_leaves_the_ball_until_another_robot_reached_it(variant):
    """As play resumes after our set piece, the robot at the ball took it: it is not onBall (a teammate goes) until
    another robot comes within TOUCH_REACH of the ball; a new play mode ends it. Every teammate agrees on it."""
    ball = (3.0, -9.8)
    at = {1: (-14.0, 0.0), 2: (2.85, -9.8), 3: (0.0, -3.0)}          # 2 stands at the ball and takes the kick-in
    players = {u: D.TeamPlayer(u, D.StrategyParams(team_size=3, seed=3, variant=variant)) for u in at}

    def decide(mode, t, ball, opponents=(), pos=at):
        return {u: p.decide(_team_view((*pos[u], 0.0), ball, {v: q for v, q in pos.items() if v != u}, opponents),
                            mode, t, True) for u, p in players.items()}

    d = decide(D.KICK_IN_OWN, 1.0, ball)
    assert d[2].role == "onBall" and all(p.barred is None for p in players.values())
    ball = (4.5, -9.0)                                                # kicked: play on
    d = decide(D.PLAY_ON, 1.2, ball)
    assert all(p.barred == 2 for p in players.values())
    assert d[2].role != "onBall" and d[3].role == "onBall"
    if variant == "static":
        assert d[2].role == "stopper" or d[2].role == next(r for r, u in d[3].assignment.items() if u == 2)
    # an opponent 0.5 m from the ball has not reached it; one at 0.2 m has (it may have touched it)
    d = decide(D.PLAY_ON, 1.4, ball, [(5.0, -9.0)])
    assert all(p.barred == 2 for p in players.values()) and d[2].role != "onBall"
    d = decide(D.PLAY_ON, 1.6, ball, [(4.7, -9.0)])
    assert all(p.barred is None for p in players.values())
    # a teammate reaching the ball lifts it too; a new play mode ends it
    decide(D.KICK_IN_OWN, 5.0, ball)
    decide(D.PLAY_ON, 5.2, ball)
    assert all(p.barred == 2 for p in players.values())
    decide(D.PLAY_ON, 5.4, ball, pos={**at, 3: (4.4, -8.9)})
    assert all(p.barred is None for p in players.values())
    decide(D.GOAL_KICK_OWN, 8.0, ball)
    decide(D.PLAY_ON, 8.2, ball)
    assert all(p.barred == 2 for p in players.values())
    decide(D.KICK_IN_OPP, 9.0, ball)
    assert all(p.barred is None for p in players.values())


def test_after_our_kickoff_its_taker_leaves_the_ball_and_a_lone_taker_plays_on():
    """The kick-off is a set piece too; with no teammate that may take the ball (the goalie only in our box), the
    taker plays on rather than leave the ball to the other team."""
    ball = (2.0, 0.3)
    team = {1: (-14.0, 0.0), 2: (0.3, 0.0), 3: (-2.0, 0.0)}
    p = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3))
    p.decide(_team_view((-0.2, 0.0, 0.0), (0.0, 0.0), {1: team[1], 3: team[3]}), D.KICK_OFF_OWN, 0.0, True)
    d = p.decide(_team_view((*team[2], 0.0), ball, {1: team[1], 3: team[3]}), D.PLAY_ON, 0.4, True)
    assert p.barred == 2 and d.role != "onBall"
    lone = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3))       # the goalie and the taker (3 not on)
    lone.decide(_team_view((-0.2, 0.0, 0.0), (0.0, 0.0), {1: team[1]}), D.KICK_OFF_OWN, 0.0, True)
    d = lone.decide(_team_view((*team[2], 0.0), ball, {1: team[1]}), D.PLAY_ON, 0.4, True)
    assert lone.barred == 2 and d.role == "onBall"


def test_a_barred_taker_stands_aside_off_the_line_from_the_ball_to_their_goal():
    """The taker that may not touch the ball yet stands GIVE_WAY m beside it, across the ball's line to their goal on
    its own side, not on its role's spot behind the ball, where the teammate coming for the ball walks into it (seen in
    traces); once released it takes its role's spot again."""
    ball = (2.0, 0.5)
    team = {1: (-14.0, 0.0), 2: (0.3, 0.2), 3: (-0.5, 1.0)}
    p = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3))
    p.decide(_team_view((-0.2, 0.0, 0.0), (0.0, 0.0), {1: team[1], 3: team[3]}), D.KICK_OFF_OWN, 0.0, True)
    d = p.decide(_team_view((*team[2], 0.0), ball, {1: team[1], 3: team[3]}), D.PLAY_ON, 0.4, True)
    assert p.barred == 2 and d.role == "stopper"
    spot = np.array(d.target)
    assert np.linalg.norm(spot - ball) == pytest.approx(D.GIVE_WAY)
    to_goal = F.OPP_GOAL - np.array(ball)
    assert abs(np.dot(spot - ball, to_goal)) < 1e-9                      # across the line to their goal ...
    side = lambda v: to_goal[0] * v[1] - to_goal[1] * v[0]                # noqa: E731  (left of the line: > 0)
    assert side(spot - ball) * side(np.array(team[2]) - ball) > 0         # ... on the taker's side
    assert tuple(d.target) != pytest.approx(tuple(formation.formation(ball, 3)["stopper"]))
    # an opponent reached the ball: the taker is free and goes to its role's spot (3 has come nearer the ball)
    d = p.decide(_team_view((*team[2], 0.0), ball, {1: team[1], 3: (1.2, 0.5)}, [(2.1, 0.5)]), D.PLAY_ON, 0.6, True)
    assert p.barred is None and d.role == "stopper"
    assert d.target == pytest.approx(tuple(formation.formation(ball, 3)["stopper"]))


def test_a_barred_taker_at_the_ball_steps_straight_back_before_it_walks_aside():
    """A weak kick-off kick left the ball at the taker's feet: it steps straight back from the ball, facing it, before
    it walks aside (turning and walking aside there touched the ball again on SimSpark, a free kick to the other
    team)."""
    team = {1: (-14.0, 0.0), 3: (-0.5, 1.0)}
    p = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3))
    p.decide(_team_view((-0.2, 0.0, 0.0), (0.0, 0.0), team), D.KICK_OFF_OWN, 0.0, True)
    ball = (0.07, -0.02)                                                  # the kick moved it 7 cm
    d = p.decide(_team_view((-0.2, 0.0, 0.0), ball, team), D.PLAY_ON, 0.4, True)
    assert p.barred == 2
    back = np.array(d.target) - ball
    assert np.linalg.norm(back) == pytest.approx(formation.GIVE_WAY_BACK)
    assert np.dot(back, np.array((-0.2, 0.0)) - ball) > 0.99 * np.linalg.norm(back) * np.linalg.norm(
        np.array((-0.2, 0.0)) - ball)                                     # straight away from the ball
    assert d.walk.x < 0 and abs(d.walk.y) < abs(d.walk.x)                # a step back, not aside
    # stepped back, it walks on to its spot aside, and on the way there it stays clear of the ball
    me = np.array(d.target)
    spot = formation.give_way(ball, me, D.GIVE_WAY)
    assert np.linalg.norm(spot - ball) == pytest.approx(D.GIVE_WAY)
    for f in np.linspace(0.0, 1.0, 21):
        assert np.linalg.norm(me + f * (spot - me) - ball) > formation.GIVE_WAY_CLEAR
        assert formation.give_way(ball, me + f * (spot - me), D.GIVE_WAY) == pytest.approx(spot)


def test_give_way_turns_to_the_field_near_a_side_line():
    spot = formation.give_way((5.0, 9.6), (5.2, 10.0), 1.0)
    assert abs(spot[1]) < F.HALF_WIDTH and np.linalg.norm(spot - (5.0, 9.6)) == pytest.approx(1.0)


def test_a_static_player_that_knows_no_teammate_yet_assigns_no_role_to_nobody():
    """Static's roles go by uniform number: a player that knew only itself (its teammates not yet seen or heard, as at
    a kick-off) took the goalie's role as the lowest number it knew, its taker swap gave that role to nobody, and every
    say of it then raised in the codec (a decision error once per Static kick-off in the 50-game rows)."""
    p = D.TeamPlayer(2, D.StrategyParams(team_size=3, seed=3, variant="static"))
    view = D.WorldView(pose=(-0.2, 0.0, 0.0), ball=(0.0, 0.0))
    assert p.assign(view, np.zeros(2), 1.0) == {"onBall": 2}
    assert p.assign(replace(view, teammates={3: (-2.0, 0.0)}), np.zeros(2), 1.0) == {"onBall": 2, "stopper": 3}
    said = [p.decide(view, D.PLAY_ON, 0.02 * i, True).say for i in range(60)]   # every say slot of the cycle
    assert any(said)
