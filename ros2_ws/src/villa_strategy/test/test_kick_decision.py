"""§12.7 when to kick, §13.1.1 kick choice and approach, shots on goal and kick windows in the decision layer."""

import math

import numpy as np
import pytest

from villa_motion import kick as KK
from villa_strategy import behaviours as B
from villa_strategy import decision as D


def _player(**kw):
    return D.TeamPlayer(2, D.StrategyParams(team_size=2, seed=3, **kw))


def _view(me, ball, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates={1: (-14.0, 0.0)}, opponents=list(opponents))


def _forward_l():
    return KK.load_kick_set("tuned")["forward_L"]


def test_kick_when_an_opponent_approaches_and_dribble_otherwise():
    p = _player()
    ball = (0.0, 0.0)
    # no opponent near: dribble (walk, no kick skill)
    d = p.decide(_view((-1.0, 0.0, 0.0), ball), D.PLAY_ON, 1.0, True)
    assert d.skill is None and d.walk is not None
    # an opponent 2.5 m ahead of the ball (within 3.5 m and 45 degrees): approach the cheapest kick's stand-at point
    opp = [(2.5, 0.3)]
    d = p.decide(_view((-1.0, 0.0, 0.0), ball, opp), D.PLAY_ON, 1.1, True)
    kick, at, face, _ = KK.choose_kick(p.kicks, (-1.0, 0.0), 0.0, ball, math.atan2(0.0 - 0.0, 15.0))
    assert d.skill is None and d.walk is not None and d.target == pytest.approx(tuple(at))
    assert d.walk.x > 0
    # standing at that point, facing its heading: request that kick with the ball in the robot frame
    d = p.decide(_view((at[0], at[1], face), ball, opp), D.PLAY_ON, 3.0, True)
    assert d.skill == f"kick_{kick.name}" and d.walk is None
    c, s = math.cos(face), math.sin(face)
    rel = (c * (ball[0] - at[0]) + s * (ball[1] - at[1]), -s * (ball[0] - at[0]) + c * (ball[1] - at[1]))
    assert (d.skill_params["ball_x"], d.skill_params["ball_y"]) == pytest.approx(rel)
    assert rel == pytest.approx(kick.ball)
    # an opponent within 1 m of the ball: abort the kick, dribble
    d = p.decide(_view((at[0], at[1], face), ball, [(0.8, 0.0)]), D.PLAY_ON, 3.1, True)
    assert d.skill is None


def test_a_kick_the_motion_already_runs_is_asked_again_with_the_newer_ball_without_the_approach(monkeypatch):
    """While the motion stops for (or runs) the kick the player asked for, the decision asks for it again with the
    ball where it now lies, without the approach's reach checks (4-75 ms a cycle: real-time answers would be late)."""
    p = _player()
    ball, opp = (0.0, 0.0), [(2.5, 0.3)]
    kick, at, face, _ = KK.choose_kick(p.kicks, (-1.0, 0.0), 0.0, ball, 0.0)
    p.decide(_view((-1.0, 0.0, 0.0), ball, opp), D.PLAY_ON, 1.0, True)
    d = p.decide(_view((at[0], at[1], face), ball, opp), D.PLAY_ON, 3.0, True)
    assert d.skill == f"kick_{kick.name}"
    monkeypatch.setattr(B, "kick_approach", lambda *a, **k: pytest.fail("the approach ran for a running kick"))
    moved = (0.01, -0.005)
    view = D.WorldView(pose=(at[0], at[1], face), ball=moved, teammates={1: (-14.0, 0.0)}, opponents=opp,
                       kick_running=d.skill)
    again = p.decide(view, D.PLAY_ON, 3.02, True)
    c, s = math.cos(face), math.sin(face)
    rel = (c * (moved[0] - at[0]) + s * (moved[1] - at[1]), -s * (moved[0] - at[0]) + c * (moved[1] - at[1]))
    assert again.skill == d.skill and again.walk is None
    assert (again.skill_params["ball_x"], again.skill_params["ball_y"]) == pytest.approx(rel)
    # the ball rolled out of the kick's reach: approach again (the motion would refuse the kick)
    with pytest.raises(pytest.fail.Exception):
        p.decide(D.WorldView(pose=(at[0], at[1], face), ball=(0.3, 0.2), teammates={1: (-14.0, 0.0)}, opponents=opp,
                             kick_running=d.skill), D.PLAY_ON, 3.03, True)
    # another kick running (or none): the decision approaches as before
    with pytest.raises(pytest.fail.Exception):
        p.decide(D.WorldView(pose=(at[0], at[1], face), ball=moved, teammates={1: (-14.0, 0.0)}, opponents=opp,
                             kick_running="kick_other_L"), D.PLAY_ON, 3.04, True)


def test_kick_choice_follows_the_cost_for_a_ball_to_the_side():
    p = _player(simulator="simspark")                 # SimSpark keeps in90 in play, a kick 90 degrees inward
    # the goal is straight ahead of the ball; we stand to the ball's right, facing +y (90 degrees turned): a kick
    # whose direction is -90 degrees in the robot frame needs no turn, and wins on the §13.1.1 cost
    ball = (5.0, 0.0)
    opp = [(7.5, 0.2)]
    kick, at, face, cost = KK.choose_kick(p.play_kicks, (5.0, -0.3), math.pi / 2, ball,
                                          math.atan2(-ball[1], 15 - ball[0]))
    assert kick.direction == pytest.approx(-math.pi / 2, abs=1e-6) and kick.base == "in90"
    d = p.decide(_view((5.0, -0.3, math.pi / 2), ball, opp), D.PLAY_ON, 1.0, True)
    assert d.target == pytest.approx(tuple(at))


@pytest.mark.parametrize("simulator", ["villa", "simspark"])
def test_play_chooses_only_the_kicks_in_play_and_the_kickoff_its_own(simulator):
    """The kick data's in_play list per world (villa_motion.kick.load_in_play): kicks that fell from standing are
    never chosen in play; the §11.2.1 kick-off kick comes from every kick; excluded_kicks removes more."""
    p = _player(simulator=simulator)
    in_play = KK.load_in_play("tuned", simulator=simulator)
    assert {k.base for k in p.play_kicks} == in_play
    assert {k.base for k in p.kicks.values()} > in_play                       # the others stay loaded
    assert {k.base for k in p._kickoff_kick()[1]} == {"forward"}
    q = _player(simulator=simulator, excluded_kicks=("forward",))
    assert {k.base for k in q.play_kicks} == in_play - {"forward"}
    # a ball to our right with an opponent ahead: the decision approaches an in-play kick's stand-at point
    ball, opp = (5.0, 0.0), [(7.5, 0.2)]
    d = p.decide(_view((5.0, -0.3, math.pi / 2), ball, opp), D.PLAY_ON, 1.0, True)
    assert p._kick_name is not None and p._kick_name.rsplit("_", 1)[0] in in_play and d.skill is None


def test_a_shot_on_goal_is_aborted_while_an_opponent_is_within_1_m_of_the_ball():
    """Near their goal the on-ball player shoots (shot_on_goal), but §12.7's abort holds: with an opponent within
    1 m of the ball it dribbles (a shot lined up beside a defender took 7 s and fell in a traced game)."""
    ball = (11.0, 0.5)
    assert D.shot_on_goal(ball)
    keeper = (14.5, 0.0)
    p = _player()
    p.decide(_view((10.3, 0.5, 0.0), ball, [keeper]), D.PLAY_ON, 1.0, True)
    assert p._kick_name is not None                                  # lining up the shot
    d = p.decide(_view((10.3, 0.5, 0.0), ball, [keeper, (11.6, 0.9)]), D.PLAY_ON, 1.2, True)
    assert p._kick_name is None and d.skill is None and d.walk is not None   # dribbling
    p.decide(_view((10.3, 0.5, 0.0), ball, [keeper, (12.5, 2.0)]), D.PLAY_ON, 1.4, True)
    assert p._kick_name is not None                                  # clear again: the shot


def test_kick_when_never_dribbles_past_an_opponent_and_near_their_goal_but_still_kicks_off_and_takes_corners():
    """kick_when never (the shipped setting): no §12.7 kick with an opponent ahead, no shot near their goal;
    the kick-off and our corner kick still kick."""
    assert not B.want_kick((0.0, 0.0), 0.0, [(2.5, 0.3)], rule="never")
    assert B.want_kick((0.0, 0.0), 0.0, [(2.5, 0.3)], rule="opponent")
    p = _player(kick_when="never")
    d = p.decide(_view((-1.0, 0.0, 0.0), (0.0, 0.0), [(2.5, 0.3)]), D.PLAY_ON, 1.0, True)
    assert d.skill is None and p._kick_name is None
    np.testing.assert_allclose(d.target, (-0.25, 0.0), atol=1e-9)   # the dribble approach point behind the ball
    ball = (11.0, 0.5)
    assert D.shot_on_goal(ball)
    d = p.decide(_view((10.3, 0.5, 0.0), ball, [(14.5, 0.0)]), D.PLAY_ON, 2.0, True)
    assert d.skill is None and p._kick_name is None and d.walk is not None
    d = p.decide(_view((-0.3, 0.0, 0.0), (0.0, 0.0)), D.KICK_OFF_OWN, 0.0, True)
    assert p._kick_name is not None and p._kick_name.startswith("forward")      # the kick-off kick, lined up
    corner = (14.3, 9.7)
    p.decide(_view((13.0, 9.0, 0.0), corner), D.CORNER_KICK_OWN, 3.0, True)
    assert p._kick_name is not None


def test_gives_up_lining_up_after_15_s():
    p = _player()
    opp = [(2.5, 0.3)]
    far = (-3.0, 2.0, 0.0)
    d = p.decide(_view(far, (0.0, 0.0), opp), D.PLAY_ON, 10.0, True)
    assert d.walk is not None and d.walk.parameter_set == "positioning"     # approaching the kick's point
    kicking_target = d.target
    d = p.decide(_view(far, (0.0, 0.0), opp), D.PLAY_ON, 26.0, True)       # 16 s later: dribble instead
    assert d.skill is None and d.target != pytest.approx(kicking_target)


def test_no_kicks_when_disabled():
    p = _player(kicks=False)
    d = p.decide(_view((-1.0, 0.0, 0.0), (0.0, 0.0), [(2.5, 0.3)]), D.PLAY_ON, 1.0, True)
    assert d.skill is None and p.kicks == {}
    np.testing.assert_allclose(d.target, (-0.25, 0.0), atol=1e-9)   # the dribble approach point behind the ball


def test_kick_approach_kicks_only_with_the_ball_inside_the_reachable_region():
    from villa_nao import field as F
    from villa_strategy import behaviours as B

    kick, ball = _forward_l(), np.array([0.0, 0.0])
    at, face = KK.approach_pose(kick, ball, 0.0)
    # at the target offset, facing its heading: kick (walk None)
    target, walk = B.kick_approach(kick, at, face, ball, 0.0)
    assert walk is None and target == pytest.approx(at)
    # 6 cm short of it the ball is reachable, but on the region's edge (within the 1 cm margin): keep walking in
    me = at - np.array([0.06, 0.0])
    assert KK.reachable(kick, F.to_local(ball, me, face))
    assert not KK.reachable(kick, F.to_local(ball, me, face), margin=0.01)
    target, walk = B.kick_approach(kick, me, face, ball, 0.0)
    assert walk is not None and walk.x > 0 and walk.parameter_set == B.KICK_APPROACH_SET   # the last half metre


def test_kick_approach_turns_in_proportion_near_the_ball_and_goes_around_it_from_the_front():
    from villa_strategy import behaviours as B

    kick, ball = _forward_l(), np.array([0.0, 0.0])
    at, face = KK.approach_pose(kick, ball, 0.0)
    # at the offset but turned 0.3 rad right: turn left at 0.3 / 0.6 of full speed (not the seed's 17 / 180), yet at
    # least B.LEAST_TURN (slower turns barely turn a Nao in place on villa sim); 0.8 rad: full speed
    _, walk = B.kick_approach(kick, at, face - 0.3, ball, 0.0)
    assert walk is not None and walk.theta == pytest.approx(max(0.5, B.LEAST_TURN), abs=0.01)
    _, walk = B.kick_approach(kick, at, face - 0.8, ball, 0.0)
    assert walk is not None and walk.theta == pytest.approx(1.0)
    _, walk = B.kick_approach(kick, at + np.array([-0.15, 0.0]), face + 0.05, ball, 0.0)   # within the deadband
    assert walk is not None and walk.theta == pytest.approx(-0.05 / 0.6, abs=0.01)
    # in front of the ball facing it: the way to the offset behind passes the ball 0.35 m to the side (§12.4)
    _, walk = B.kick_approach(kick, (0.8, 0.0), math.pi, ball, 0.0)
    assert abs(math.atan2(walk.y, walk.x)) > math.radians(20)
    # behind the ball but 0.4 m off the kick's line: aim farther out on the line first, not straight at the offset
    me = at + np.array([-0.1, 0.4])
    _, walk = B.kick_approach(kick, me, 0.0, ball, 0.0)
    straight = math.atan2(at[1] - me[1], at[0] - me[0])
    assert math.atan2(walk.y, walk.x) < straight - math.radians(10)


def test_with_no_kick_in_play_the_on_ball_player_dribbles_and_still_kicks_off(tmp_path, monkeypatch):
    """An empty in_play list: §12.7, shots and corners dribble instead (no kick chosen from an empty pool); the
    kick-off kick stays."""
    monkeypatch.setattr(KK, "load_in_play", lambda *a, **k: frozenset())
    p = _player()
    assert p.play_kicks == [] and p.kicks
    d = p.decide(_view((-1.0, 0.0, 0.0), (0.0, 0.0), [(2.5, 0.3)]), D.PLAY_ON, 1.0, True)    # §12.7 would kick
    assert d.skill is None and d.walk is not None and p._kick_name is None
    d = p.decide(_view((10.3, 0.5, 0.0), (11.0, 0.5), [(14.5, 0.0)]), D.PLAY_ON, 2.0, True)  # a shot would follow
    assert d.skill is None and d.walk is not None and p._kick_name is None
    assert {k.base for k in p._kickoff_kick()[1]} == {"forward"}


def test_a_kick_window_takes_the_direction_nearest_the_kicks_own_from_our_heading():
    fwd = next(k for k in KK.load_kick_set("tuned").values() if k.base == "forward")
    assert B.window_direction(fwd, 0.2, 0.0, 0.35) == pytest.approx(0.2)          # inside the window: as we face
    assert B.window_direction(fwd, 0.5, 0.0, 0.35) == pytest.approx(0.35)         # outside: the nearest edge
    assert B.window_direction(fwd, -0.5, 0.0, 0.35) == pytest.approx(-0.35)
    assert B.window_direction(fwd, 0.2, 0.0, 0.0) == pytest.approx(0.0)           # no window: the direction
    assert B.window_direction(fwd, -3.0, 3.1, 0.35) == pytest.approx(-3.0)        # across +-pi
    side = next(k for k in KK.load_kick_set("tuned").values() if k.name == "in45_L")
    heading = 0.2 - side.direction                                                 # it would go 0.2 rad left
    assert B.window_direction(side, heading, 0.0, 0.35) == pytest.approx(0.2)
    assert B.window_direction(side, 0.0, 0.0, 0.35) == pytest.approx(math.copysign(0.35, side.direction))


def test_with_a_window_the_player_kicks_the_way_it_faces_without_turning_to_the_goal_line():
    """Standing where the forward kick reaches the ball, 0.25 rad off the ball->goal line: with the §12.7 window the
    kick goes now; with none the player first turns (and steps) onto the line."""
    kicks = {k.name: k for k in KK.load_kick_set("tuned").values() if k.base == "forward"}
    ball, heading = np.array([3.0, 0.0]), 0.25
    fwd = kicks["forward_L"]
    stand_at, face = KK.approach_pose(fwd, ball, heading + fwd.direction)
    assert face == pytest.approx(heading)
    windowed = B.KickBehaviour(kicks).execute(stand_at, heading, ball, 0.0, spread=0.35)
    assert windowed.walk is None and windowed.skill == "kick_forward_L"
    exact = B.KickBehaviour(kicks).execute(stand_at, heading, ball, 0.0, spread=0.0)
    assert exact.walk is not None and exact.skill is None
    assert exact.walk.theta < 0                                                     # turning toward the goal line


def test_a_shot_window_spans_the_larger_gap_beside_the_goalie():
    from villa_nao import field as F
    from villa_strategy import penalty

    ball = np.array([11.0, 0.0])
    mid, half = penalty.shot_window(ball, (14.5, 0.4))             # goalie left of centre: the gap on its right
    edges = (mid - half, mid + half)
    post = math.atan2(-(F.GOAL_WIDTH / 2 - penalty.SHOT_POST_MARGIN), F.HALF_LENGTH - ball[0])
    keeper = math.atan2(0.4 - penalty.SHOT_KEEPER_HALF, F.HALF_LENGTH - ball[0])
    assert edges == pytest.approx((post, keeper))
    mid, half = penalty.shot_window(ball, (14.5, -0.4))            # mirrored
    assert mid > 0 and mid - half == pytest.approx(-keeper) and mid + half == pytest.approx(-post)
    mid, half = penalty.shot_window(ball, (10.0, 5.0))             # goalie out of its goal: the whole mouth
    assert mid == pytest.approx(0.0) and half == pytest.approx(-post)
    # a goalie standing where no gap is wider than the margins: the larger gap's middle, no window
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(penalty, "SHOT_KEEPER_HALF", 1.0)
        mid, half = penalty.shot_window(ball, (14.5, 0.0))
        assert half == 0.0 and abs(mid) < math.atan2(F.GOAL_WIDTH / 2, F.HALF_LENGTH - ball[0])


def test_a_kick_spread_outside_0_to_pi_is_refused():
    with pytest.raises(ValueError, match="kick_spread"):
        _player(kick_spread=-0.1)


def test_near_their_goal_the_dribble_aims_at_the_gap_beside_the_goalie():
    from villa_strategy import penalty

    assert B.attack_direction((0.0, 1.0), [(14.5, 0.4)]) == pytest.approx(math.atan2(-1.0, 15.0))   # far: the centre
    ball = (12.0, 0.0)
    aim = B.attack_direction(ball, [(14.5, 0.4), (11.0, 3.0)])
    assert aim < 0 and aim == pytest.approx(penalty.shot_window(ball, (14.5, 0.4))[0])
    assert B.attack_direction(ball, [(11.0, 3.0)]) == pytest.approx(0.0)      # nobody in goal: the mouth's middle
    # the dribble pushes the ball that way: standing behind it on that line, facing it, the walk goes forward
    me = np.array(ball) - 0.2 * np.array([math.cos(aim), math.sin(aim)])
    target, walk = B.dribble(me, aim, ball, [(14.5, 0.4)])
    assert walk.x > 0.5 and math.atan2(target[1] - ball[1], target[0] - ball[0]) == pytest.approx(aim)
