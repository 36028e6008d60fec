"""The §11.2.1 kick-off in the decision layer: the long kick, the taker's beam and line-up, and the others' spots."""

import math
from dataclasses import replace

import numpy as np
import pytest

from villa_motion import kick as KK
from villa_nao import field as F
from villa_strategy import behaviours as B
from villa_strategy import decision as D
from villa_strategy import formation


def _view(me, ball, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates={1: (-14.0, 0.0)}, opponents=list(opponents))


def _team_view(me, ball, mates, opponents=()):
    return D.WorldView(pose=me, ball=ball, teammates=dict(mates), opponents=list(opponents))


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
    """In `villa match --realtime`, over a wait of seconds the pose and ball estimates jitter by 2-3 cm: lining up
    whenever its stand-at point is KICKOFF_LINEUP_NEAR m off steps the taker now and then, and the kick from the stop
    after a step under way at the whistle falls. It stands until the point is KICKOFF_LINEUP_HOLD m off, then lines up
    to NEAR, and stands again until HOLD."""
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
    """After a goal the ball lies in the net until the kick-off; the taker lines up during the pause to the centre
    spot, where the server puts the ball (lining up after the whistle, the ball moved up to 3.2 s after it), with its
    head scanning; never unlocalized, never before the beam's drop settled, never a kick."""
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
    """Before the first kick-off the taker stands within KICKOFF_LINEUP_HOLD of its point (where the ball is in
    reach); after a goal, beamed from play, it lines up once to KICKOFF_LINEUP_NEAR during the pause (villa sim;
    standing 4-5 cm off on SimSpark, its kick-off kick missed), then stands. On SimSpark (KICKOFF_STANDS), beamed
    at once, it stands within HOLD after a goal too: its forward kick is robust standing, not after the line-up's
    steps."""
    def taker(simulator):
        return D.TeamPlayer(1, D.StrategyParams(team_size=2, seed=1, simulator=simulator))

    def off_point(p, off):                    # `off` m behind its point, the ball in reach
        at, face = KK.approach_pose(p.kicks[p._kick_name], (0.0, 0.0), p._kickoff_dir)
        return (float(at[0] - off * math.cos(face)), float(at[1] - off * math.sin(face)), face)

    off = D.KICKOFF_LINEUP_NEAR + 0.01                     # within HOLD, and the ball still in the kick's reach
    for simulator in ("villa", "simspark"):
        first = taker(simulator)
        first.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.BEFORE_KICK_OFF, 0.0, True)
        d = first.decide(D.WorldView(pose=off_point(first, off), ball=(0.0, 0.0), since_beam=2.0), D.BEFORE_KICK_OFF,
                         0.0, True)
        assert d.walk is not None and d.walk.stop, (simulator, d)
    assert D.KICKOFF_STANDS["simspark"] and not D.KICKOFF_STANDS["villa"]
    stands = taker("simspark")
    stands.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.GOAL_OPP, 0.0, True)
    d = stands.decide(D.WorldView(pose=off_point(stands, off), ball=(14.0, 0.5), since_beam=2.0), D.GOAL_OPP, 0.0,
                      True)
    assert d.walk is not None and d.walk.stop, d
    after = taker("villa")
    after.decide(D.WorldView(pose=(0.0, 0.0, 0.0), ball=(0.0, 0.0)), D.GOAL_OPP, 0.0, True)
    d = after.decide(D.WorldView(pose=off_point(after, off), ball=(14.0, 0.5), since_beam=2.0), D.GOAL_OPP, 0.0, True)
    assert d.walk is not None and not d.walk.stop and d.walk.x > 0, d
    d = after.decide(D.WorldView(pose=off_point(after, 0.0), ball=(14.0, 0.5), since_beam=2.5), D.GOAL_OPP, 0.0, True)
    assert d.walk is not None and d.walk.stop, d
    d = after.decide(D.WorldView(pose=off_point(after, off), ball=(14.0, 0.5), since_beam=2.6), D.GOAL_OPP, 0.0, True)
    assert d.walk.stop, d                                      # lined up: the estimate's jitter does not step it


def test_after_a_goal_a_taker_that_could_not_line_up_in_the_pause_lines_up_at_the_whistle():
    """A later beam waits for the walk to stop (stage.BEAM_STAND), then the taker settles kickoff_settle s, so the
    pause may end before it lines up. On SimSpark, beamed 5 cm behind its point, it would kick from 3-5 cm (the
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
    """At the kick-off after a goal, a player's ball estimate is in the net until it sees the ball on the
    centre spot; the rules put it there, so its role and target are those of a ball on the spot."""
    p = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=1))
    view = D.WorldView(pose=(-4.0, 2.0, 0.0), ball=(-14.8, 0.7), teammates={1: (-14.0, 0.0), 2: (-0.3, 0.0)})
    stale = p.decide(view, mode, 0.02, True)
    view.ball = (0.0, 0.0)
    seen = D.TeamPlayer(3, D.StrategyParams(team_size=3, seed=1)).decide(view, mode, 0.02, True)
    assert stale.role == seen.role and stale.target == pytest.approx(seen.target)
    assert math.hypot(*stale.target) < 10.0


def test_until_the_kickoff_kick_the_receiver_keeps_its_spot_beside_the_taker():
    """At our kick-off the stopper is beamed beside the taker, on the side the kick goes, and stays there while the
    taker kicks off, not on the stopper's spot behind the ball."""
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
    # the other team's kick-off: outside the centre circle
    d = p.decide(_team_view((-3.0, 0.0, 0.0), (0.0, 0.0), team), D.BEFORE_KICK_OFF, 0.0, False)
    assert np.linalg.norm(d.beam[:2]) >= F.CENTER_CIRCLE_RADIUS
