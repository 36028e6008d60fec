"""§12.7 when to kick, §13.1.1 kick choice and the §11.2.1 kick-off long kick in the decision layer."""

import math
from dataclasses import replace

import numpy as np
import pytest

from villa_motion import kick as KK
from villa_nao import field as F
from villa_strategy import behaviours as B
from villa_strategy import decision as D
from villa_strategy import formation


def _player(**kw):
    return D.TeamPlayer(2, D.StrategyParams(team_size=2, seed=3, **kw))


def _view(me, ball, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates={1: (-14.0, 0.0)}, opponents=list(opponents))


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
    """Issue 21: while the motion stops for (or runs) the kick the player asked for, the decision asks for it again with
    the ball where it now lies, without the approach's reach checks (4-75 ms a cycle made real-time answers late)."""
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


@pytest.mark.parametrize("simulator", ["", "simspark"])
def test_play_chooses_only_the_kicks_in_play_and_the_kickoff_its_own(simulator):
    """The kick data's in_play list per world (villa_motion.kick.load_in_play): kicks that fell from standing are
    never chosen in play; the §11.2.1 kick-off kick comes from every kick; excluded_kicks removes more."""
    p = _player(simulator=simulator)
    in_play = KK.load_in_play("tuned", simulator=simulator or None)
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
    """kick_when never (issue 19, the shipped setting): no §12.7 kick with an opponent ahead, no shot near their goal;
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


@pytest.mark.parametrize("receiver_y", [1.0, -1.0])
def test_kickoff_uses_the_long_kick_5_to_20_degrees_off_straight_toward_the_receiver(receiver_y):
    """§11.2.1's angle, on the side of the receiver (the stopper, beamed beside the taker: formation.kickoff_side)."""
    angles = []
    shape = replace(formation.FormationParams(), kickoff_receiver=(-0.5, receiver_y))
    for seed in range(12):
        p = D.TeamPlayer(2, D.StrategyParams(team_size=2, seed=seed, formation=shape))
        d = p.decide(_view((-0.5, 0.0, 0.0), (0.0, 0.0)), D.KICK_OFF_OWN, 0.0, True)
        assert p._kick_name in ("forward_L", "forward_R")
        kick = p.kicks[p._kick_name]
        direction = p._kickoff_dir
        at, face = KK.approach_pose(kick, (0.0, 0.0), direction)
        assert d.target == pytest.approx(tuple(at))
        angles.append(math.degrees(direction))
        # the same kick-off keeps its angle
        p.decide(_view((-0.4, 0.0, 0.0), (0.0, 0.0)), D.KICK_OFF_OWN, 0.02, True)
        assert p._kickoff_dir == direction
    assert all(5.0 <= a * receiver_y <= 20.0 for a in angles)
    assert np.ptp(angles) > 5.0


@pytest.mark.parametrize("robot_type", [0, 1])
def test_kickoff_taker_lines_up_before_the_kickoff_and_kicks_at_the_whistle(robot_type):
    """§11.2.1: the kick-off taker of any robot type is beamed a little behind its kick's stand-at point, stands while
    the beam's drop settles, then walks to that point before the kick-off (never kicking then) and kicks at the
    whistle without a step (a step touched the ball first on SimSpark: the kick was the second touch, a free kick to
    the opponents). Type 1 used type 0's offset, which its IK did not reach."""
    body = B.default_body(robot_type)
    p = D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1), body)          # number 1 takes a 2 v 2 kick-off
    beam = p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True).beam
    assert 0.1 < math.hypot(beam[0], beam[1]) < 0.4
    view = D.WorldView(pose=beam, ball=(0.0, 0.0), teammates={2: (-3.0, 0.0)}, since_beam=0.5)
    d = p.decide(view, D.BEFORE_KICK_OFF, 0.0, True)           # just dropped by the beam: stays, no walk order
    assert d.beam == beam and d.walk is None and d.skill is None, d
    view.since_beam = 1.6
    kick = p.kicks[p._kick_name]
    at, face = KK.approach_pose(kick, (0.0, 0.0), p._kickoff_dir)
    d = p.decide(view, D.BEFORE_KICK_OFF, 0.0, True)           # settled on its beam spot: near enough, stands
    assert d.beam == beam and d.skill is None and d.walk is not None and d.walk.stop, d
    short = 2 * D.KICKOFF_LINEUP_HOLD                          # dropped farther back (SimSpark's beam noise)
    view.pose = (float(at[0] - short * math.cos(face)), float(at[1] - short * math.sin(face)), face)
    d = p.decide(view, D.BEFORE_KICK_OFF, 0.0, True)           # walks forward to the stand-at point
    assert d.beam == beam and d.skill is None and d.walk is not None and not d.walk.stop and d.walk.x > 0, d
    assert d.target == pytest.approx(tuple(at))
    view.pose = (float(at[0]), float(at[1]), face)
    d = p.decide(view, D.BEFORE_KICK_OFF, 0.0, True)           # there: stands (no kick before the whistle)
    assert d.skill is None and d.walk is not None and d.walk.stop, d
    d = p.decide(view, D.KICK_OFF_OWN, 0.02, True)             # the whistle: kicks without a step
    assert d.walk is None and d.skill == f"kick_{kick.name}", d


def test_the_kickoff_taker_steps_only_when_well_off_its_point_not_for_estimate_noise():
    """Issue 19 (`villa match --realtime`): over a wait of seconds the pose and ball estimates jitter by 2-3 cm; lining
    up whenever its stand-at point was KICKOFF_LINEUP_NEAR m off stepped the taker now and then, and the kick from the
    stop after a step under way at the whistle fell. It stands until the point is KICKOFF_LINEUP_HOLD m off, then lines
    up to NEAR, and stands again until HOLD."""
    p = D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1))
    p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True)  # draws the direction
    kick = p.kicks[p._kick_name]
    at, face = KK.approach_pose(kick, (0.0, 0.0), p._kickoff_dir)
    back = -np.array([math.cos(face), math.sin(face)])          # off the point, away from the ball

    def decide(off: float):
        pose = (float(at[0] + off * back[0]), float(at[1] + off * back[1]), face)
        return p.decide(D.WorldView(pose=pose, ball=(0.0, 0.0), since_beam=2.0), D.BEFORE_KICK_OFF, 0.0, True)

    between = 0.5 * (D.KICKOFF_LINEUP_NEAR + D.KICKOFF_LINEUP_HOLD)
    assert max(D.KICKOFF_SETBACK.values()) < D.KICKOFF_LINEUP_HOLD    # on the beam spot it stands
    for off in (*D.KICKOFF_SETBACK.values(), between, D.KICKOFF_LINEUP_NEAR - 0.01):
        d = decide(off)
        assert d.walk is not None and d.walk.stop, (off, d)
    d = decide(D.KICKOFF_LINEUP_HOLD + 0.02)                          # well off (a beam's noise, a drop): lines up
    assert d.walk is not None and not d.walk.stop, d
    assert not decide(between).walk.stop                              # to the near tolerance
    assert decide(0.0).walk.stop                                      # there: stands
    assert decide(between).walk.stop                                  # the estimate jitters: still stands
    decide(D.KICKOFF_LINEUP_HOLD + 0.02)
    p.decide(D.WorldView(pose=(float(at[0]), float(at[1]), face), ball=(0.0, 0.0)), D.PLAY_ON, 5.0, True)
    p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True)   # its new direction
    at, face = KK.approach_pose(p.kicks[p._kick_name], (0.0, 0.0), p._kickoff_dir)
    assert decide(between).walk.stop                                  # the next kick-off starts afresh


def test_kickoff_taker_stands_on_its_beam_spot_while_the_ball_is_not_on_the_centre_spot():
    """Before the first kick-off the taker lines up only to a ball seen on the centre spot, and only localized."""
    p = D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1))
    beam = p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True).beam
    for view in (D.WorldView(pose=beam, ball=(2.0, 0.5), since_beam=2.0),
                 D.WorldView(pose=beam, ball=(0.0, 0.0), ball_valid=False, since_beam=2.0),
                 D.WorldView(pose=beam, ball=(0.0, 0.0), localized=False, since_beam=2.0)):
        d = p.decide(view, D.BEFORE_KICK_OFF, 0.0, True)
        assert d.beam == beam and d.walk is None and d.skill is None, d


def test_after_a_goal_the_kickoff_taker_lines_up_to_the_centre_spot_while_the_ball_is_in_the_net():
    """Issue 19: after a goal the ball lies in the net until the kick-off; the taker lines up during the pause to the
    centre spot, where the server puts the ball (it lined up after the whistle: the ball moved up to 3.2 s after it),
    with its head scanning; never unlocalized, never before the beam's drop settled, never a kick."""
    p = D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1))
    beam = p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.GOAL_OPP, 0.0, True).beam
    in_net = (14.0, 0.5)
    for view in (D.WorldView(pose=beam, ball=in_net, since_beam=0.5),
                 D.WorldView(pose=beam, ball=in_net, localized=False, since_beam=2.0)):
        d = p.decide(view, D.GOAL_OPP, 0.0, True)
        assert d.beam == beam and d.walk is None and d.skill is None, d
    kick = p.kicks[p._kick_name]
    at, face = KK.approach_pose(kick, (0.0, 0.0), p._kickoff_dir)
    view = D.WorldView(pose=beam, ball=in_net, since_beam=2.0)
    d = p.decide(view, D.GOAL_OPP, 0.0, True)                  # on its beam spot: near enough, stands
    assert d.beam == beam and d.skill is None and d.walk is not None and d.walk.stop, d
    short = 2 * D.KICKOFF_LINEUP_HOLD                          # dropped farther back
    view.pose = (float(at[0] - short * math.cos(face)), float(at[1] - short * math.sin(face)), face)
    d = p.decide(view, D.GOAL_OPP, 0.0, True)
    assert d.beam == beam and d.skill is None and d.walk is not None and not d.walk.stop and d.walk.x > 0, d
    assert not d.head_ball_focus
    assert d.target == pytest.approx(tuple(at))
    view.pose = (float(at[0]), float(at[1]), face)
    d = p.decide(view, D.GOAL_OPP, 0.0, True)                  # there: stands until the kick-off
    assert d.skill is None and d.walk is not None and d.walk.stop, d
    for stale in (D.WorldView(pose=view.pose, ball=in_net, since_beam=3.0),
                  D.WorldView(pose=view.pose, ball=(0.0, 0.0), ball_valid=False, since_beam=3.0)):
        # the whistle, the ball not seen on the spot yet: stands (it walked at the ball in the net, and the walk's
        # stop for the kick that followed put the ball estimate cm off: kicks of 0.1-0.9 m, some refused)
        d = p.decide(stale, D.KICK_OFF_OWN, 0.02, True)
        assert d.skill is None and d.walk is not None and d.walk.stop and d.walk.x == d.walk.y == d.walk.theta == 0
    view.ball = (0.0, 0.0)
    d = p.decide(view, D.KICK_OFF_OWN, 0.04, True)             # the ball seen on the spot: kicks at once
    assert d.walk is None and d.skill == f"kick_{kick.name}", d


def test_after_a_goal_the_kickoff_taker_lines_up_once_to_near_before_the_first_kickoff_it_stands_within_hold():
    """Issue 19: before the first kick-off the taker stands within KICKOFF_LINEUP_HOLD of its point (where the ball is
    in reach); after a goal, beamed from play, it lines up once to KICKOFF_LINEUP_NEAR during the pause (villa sim; on
    SimSpark it once stood 4-5 cm off, and its kick-off kick missed), then stands. On SimSpark (KICKOFF_STANDS), beamed
    at once, it stands within HOLD after a goal too: its forward kick is robust standing, not after the line-up's
    steps."""
    def taker(simulator):
        return D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1, simulator=simulator))

    def off_point(p, off):                    # `off` m behind its point, the ball in reach
        at, face = KK.approach_pose(p.kicks[p._kick_name], (0.0, 0.0), p._kickoff_dir)
        return (float(at[0] - off * math.cos(face)), float(at[1] - off * math.sin(face)), face)

    off = D.KICKOFF_LINEUP_NEAR + 0.01                     # within HOLD, and the ball still in the kick's reach
    for simulator in ("", "simspark"):
        first = taker(simulator)
        first.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True)
        d = first.decide(D.WorldView(pose=off_point(first, off), ball=(0.0, 0.0), since_beam=2.0), D.BEFORE_KICK_OFF,
                         0.0, True)
        assert d.walk is not None and d.walk.stop, (simulator, d)
    assert D.KICKOFF_STANDS["simspark"] and not D.KICKOFF_STANDS[""]
    stands = taker("simspark")
    stands.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.GOAL_OPP, 0.0, True)
    d = stands.decide(D.WorldView(pose=off_point(stands, off), ball=(14.0, 0.5), since_beam=2.0), D.GOAL_OPP, 0.0,
                      True)
    assert d.walk is not None and d.walk.stop, d
    after = taker("")
    after.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.GOAL_OPP, 0.0, True)
    d = after.decide(D.WorldView(pose=off_point(after, off), ball=(14.0, 0.5), since_beam=2.0), D.GOAL_OPP, 0.0, True)
    assert d.walk is not None and not d.walk.stop and d.walk.x > 0, d
    d = after.decide(D.WorldView(pose=off_point(after, 0.0), ball=(14.0, 0.5), since_beam=2.5), D.GOAL_OPP, 0.0, True)
    assert d.walk is not None and d.walk.stop, d
    d = after.decide(D.WorldView(pose=off_point(after, off), ball=(14.0, 0.5), since_beam=2.6), D.GOAL_OPP, 0.0, True)
    assert d.walk.stop, d                                      # lined up: the estimate's jitter does not step it


def test_after_a_goal_a_taker_that_could_not_line_up_in_the_pause_lines_up_at_the_whistle():
    """Issue 19: a later beam waits for the walk to stop (stage.BEAM_STAND), then the taker settles kickoff_settle s,
    so the pause may end before it lines up. On SimSpark, beamed 5 cm behind its point, it kicked from 3-5 cm (the
    kick's tolerance is 8 cm) and the ball moved 0.05-0.6 m. Then it lines up to KICKOFF_LINEUP_NEAR at the whistle;
    at the first kick-off, or lined up in the pause, the same offset kicks."""
    def taker():
        return D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1, simulator="simspark"))

    def off_point(p, off):                    # `off` m behind its point, the ball in reach
        at, face = KK.approach_pose(p.kicks[p._kick_name], (0.0, 0.0), p._kickoff_dir)
        return (float(at[0] - off * math.cos(face)), float(at[1] - off * math.sin(face)), face)

    off = 0.04                                # within the kick's tolerance and reach, beyond NEAR
    late = taker()
    late.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(14.0, 0.5)), D.GOAL_OPP, 0.0, True)   # not beamed yet
    late.decide(D.WorldView(pose=off_point(late, off), ball=(14.0, 0.5), since_beam=1.0), D.GOAL_OPP, 0.0, True)
    d = late.decide(D.WorldView(pose=off_point(late, off), ball=(0.0, 0.0), since_beam=2.0), D.KICK_OFF_OWN, 0.0,
                    True)
    assert d.skill is None and d.walk is not None and not d.walk.stop, d
    d = late.decide(D.WorldView(pose=off_point(late, 0.0), ball=(0.0, 0.0), since_beam=2.5), D.KICK_OFF_OWN, 0.1,
                    True)
    assert d.skill is not None and d.skill.startswith("kick_"), d
    first = taker()
    first.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True)
    first.decide(D.WorldView(pose=off_point(first, off), ball=(0.0, 0.0), since_beam=2.0), D.BEFORE_KICK_OFF, 0.0,
                 True)
    d = first.decide(D.WorldView(pose=off_point(first, off), ball=(0.0, 0.0), since_beam=2.5), D.KICK_OFF_OWN, 0.0,
                     True)
    assert d.skill is not None and d.skill.startswith("kick_"), d
    lined = taker()
    lined.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(14.0, 0.5)), D.GOAL_OPP, 0.0, True)
    lined.decide(D.WorldView(pose=off_point(lined, 0.0), ball=(14.0, 0.5), since_beam=2.0), D.GOAL_OPP, 0.0, True)
    d = lined.decide(D.WorldView(pose=off_point(lined, off), ball=(0.0, 0.0), since_beam=2.5), D.KICK_OFF_OWN, 0.0,
                     True)
    assert d.skill is not None and d.skill.startswith("kick_"), d


@pytest.mark.parametrize("mode", [D.KICK_OFF_OWN, D.KICK_OFF_OPP])
def test_at_a_kickoff_the_others_play_to_the_centre_spot_until_they_see_the_ball_there(mode):
    """Issue 19: at the kick-off after a goal, a player's ball estimate is in the net until it sees the ball on the
    centre spot; the rules put it there, so its role and target are those of a ball on the spot."""
    p = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=1))
    view = D.WorldView(pose=(-4.0, 2.0, 0.0), ball=(-14.8, 0.7), teammates={1: (-14.0, 0.0), 2: (-0.3, 0.0)})
    stale = p.decide(view, mode, 0.02, True)
    view.ball = (0.0, 0.0)
    seen = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=1)).decide(view, mode, 0.02, True)
    assert stale.role == seen.role and stale.target == pytest.approx(seen.target)
    assert math.hypot(*stale.target) < 10.0


def test_no_kicks_when_disabled():
    p = _player(kicks=False)
    d = p.decide(_view((-1.0, 0.0, 0.0), (0.0, 0.0), [(2.5, 0.3)]), D.PLAY_ON, 1.0, True)
    assert d.skill is None and p.kicks == {}
    np.testing.assert_allclose(d.target, (-0.25, 0.0), atol=1e-9)   # the dribble approach point behind the ball


def _forward_l():
    return KK.load_kick_set("tuned")["forward_L"]


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


def test_penalty_striker_dribbles_to_the_box_then_shoots_into_the_larger_gap():
    """§14: beamed behind the ball on the centre spot; far from their box it dribbles; about a metre outside it, the
    kick toward the larger gap beside their goalie; PENALTY_SHOT_FOLLOW s after the shot and after 25 s, dribbling."""
    from villa_strategy import penalty

    p = D.TeamPlayer(1, D.StrategyParams(team_size=1, seed=3, penalty="striker"))
    assert p.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True).beam == \
        D.PENALTY_STRIKER_BEAM
    d = p.decide(D.WorldView(pose=(-0.4, 0.0, 0.0), ball=(0.0, 0.0)), D.PLAY_ON, 1.0, True)
    assert d.role == "striker" and d.skill is None and d.walk.x > 0.5                # dribbles on
    ball, keeper = (12.2, 0.0), (14.4, 0.4)                                          # goalie off to its left
    direction = penalty.shot_window(ball, keeper)[0]
    assert direction < -0.05                                                         # the larger gap: to the right
    kick, at, face, _ = KK.choose_kick(p.kicks, (11.5, 0.0), 0.0, ball, direction)
    d = p.decide(D.WorldView(pose=(at[0], at[1], face), ball=ball, opponents=[keeper]), D.PLAY_ON, 10.0, True)
    assert d.skill == f"kick_{kick.name}"
    d = p.decide(D.WorldView(pose=(at[0], at[1], face), ball=ball, opponents=[keeper]), D.PLAY_ON, 12.0, True)
    assert d.skill == f"kick_{kick.name}"                                            # still the shot
    d = p.decide(D.WorldView(pose=(at[0], at[1], face), ball=ball, opponents=[keeper]), D.PLAY_ON,
                 10.0 + D.PENALTY_SHOT_FOLLOW + 0.1, True)
    assert d.skill is None and d.walk is not None                                    # followed up by dribbling
    late = D.TeamPlayer(1, D.StrategyParams(team_size=1, seed=3, penalty="striker"))
    late.decide(D.WorldView(pose=(-0.4, 0.0, 0.0), ball=(0.0, 0.0)), D.PLAY_ON, 1.0, True)
    d = late.decide(D.WorldView(pose=(at[0], at[1], face), ball=ball, opponents=[keeper]), D.PLAY_ON, 27.0, True)
    assert d.skill is None                                                           # 26 s in: only dribbling


def test_penalty_goalie_steps_up_to_its_box_and_takes_a_ball_inside_it():
    from villa_strategy import goalie as GK

    g = D.TeamPlayer(1, D.StrategyParams(team_size=1, seed=3, penalty="goalie"))
    beam = g.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True).beam
    assert beam[:2] == pytest.approx(tuple(GK.goalie_position((0.0, 0.0))))
    home = (-14.2, 0.0, 0.0)
    d = g.decide(D.WorldView(pose=home, ball=(0.0, 0.0)), D.PLAY_ON, 1.0, True)
    assert d.role == "goalie" and d.target == pytest.approx(tuple(GK.goalie_position((0.0, 0.0))))
    d = g.decide(D.WorldView(pose=home, ball=(-12.0, 0.5)), D.PLAY_ON, 2.0, True)  # within 3.5 m of the goal
    assert d.target[0] == pytest.approx(-(15.0 - 1.8) - 0.1)                         # the box's top edge
    d = g.decide(D.WorldView(pose=home, ball=(-13.5, 0.3)), D.PLAY_ON, 3.0, True)  # inside the box: behind the
    assert d.walk is not None and d.walk.x > 0 and -14.0 < d.target[0] < -13.5       # ball, to dribble it out
    with pytest.raises(ValueError, match="penalty must be"):
        D.TeamPlayer(1, D.StrategyParams(penalty="keeper"))


def test_a_supporter_walks_around_the_ball_to_its_spot_behind_it():
    """Issue 19 (a traced Static game): the stopper, on the far side of the ball from its spot 1.5 m behind the ball,
    walked straight through the ball and pushed it toward our goal."""
    ball = (1.0, 1.0)
    p = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=3))          # 1 is the goalie, 2 is on the ball
    view = D.WorldView(pose=(2.0, 1.0, math.pi), ball=ball, teammates={1: (-14.0, 0.0), 2: (0.2, 0.2)})
    d = p.decide(view, D.PLAY_ON, 5.0, True)
    assert d.role not in ("onBall", "goalie") and d.target[0] < ball[0] - 0.5      # its spot is behind the ball
    assert abs(d.target[1] - ball[1]) < 0.3                                          # the ball is on the way there
    heading = math.pi + math.atan2(d.walk.y, d.walk.x)                               # field frame (facing -x)
    straight = math.atan2(d.target[1] - 1.0, d.target[0] - 2.0)
    assert abs(math.remainder(heading - straight, 2 * math.pi)) > math.radians(45)   # not at the ball: around it


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


def _team_view(me, ball, mates, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates=dict(mates), opponents=list(opponents))


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
    its own side, not on its role's spot behind the ball, where the teammate coming for the ball walked into it (issue
    19's traces); once released it takes its role's spot again."""
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


def test_until_the_kickoff_kick_the_receiver_keeps_its_spot_beside_the_taker():
    """At our kick-off the stopper is beamed beside the taker, on the side the kick goes, and stays there while the
    taker kicks off (it walked back to the stopper's spot behind the ball before)."""
    shape = formation.FormationParams()
    spot = formation.kickoff_positions(3, our_kickoff=True, params=shape)["stopper"]
    assert spot == pytest.approx(shape.kickoff_receiver) and np.linalg.norm(spot) < F.CENTER_CIRCLE_RADIUS
    assert formation.kickoff_side(shape) == 1.0
    assert formation.kickoff_side(replace(shape, kickoff_receiver=(-0.5, -1.0))) == -1.0
    team = {1: (-14.0, 0.0), 2: (-0.2, 0.0)}
    p = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=3))
    d = p.decide(_team_view((*spot, 0.0), (0.0, 0.0), team), D.BEFORE_KICK_OFF, 0.0, True)
    assert d.beam[:2] == pytest.approx(tuple(spot))
    d = p.decide(_team_view((*spot, 0.0), (0.0, 0.0), team), D.KICK_OFF_OWN, 0.2, True)
    assert d.role == "stopper" and d.target == pytest.approx(tuple(spot))
    # the other team's kick-off: outside the centre circle as before
    d = p.decide(_team_view((-3.0, 0.0, 0.0), (0.0, 0.0), team), D.BEFORE_KICK_OFF, 0.0, False)
    assert np.linalg.norm(d.beam[:2]) >= F.CENTER_CIRCLE_RADIUS


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
