"""The §14 penalty kick in the decision layer: the striker and the goalie."""

import pytest

from villa_motion import kick as KK
from villa_strategy import decision as D


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
