"""Formation (§11.1), set plays (§11.2), goalie (§9), behaviours (§12), the decision layer and its variants."""

import math

import numpy as np
import pytest

from villa_nao import field as F
from villa_strategy import behaviours as B
from villa_strategy import decision as D
from villa_strategy import formation, goalie, penalty, set_plays


@pytest.mark.parametrize("ball", [(0, 0), (14.5, 9.5), (-14.5, -9.5), (-13, 6), (10, -9.8), (20, 20)])
def test_formation_inside_the_field_for_any_ball(ball):
    pos = formation.formation(ball, 11)
    assert set(pos) == set(formation.ROLE_ORDER)
    for role, p in pos.items():
        assert F.inside_field(p[0], p[1]), (role, p)


def test_the_shipped_formation_parameters_are_the_defaults_and_the_stopper_may_guard_the_goal_line():
    from dataclasses import replace

    from villa_nao.params import config_path, load_parameters

    shipped = formation.formation_params(load_parameters(config_path("villa_strategy", "strategy.yaml")))
    assert shipped == formation.FormationParams()
    ball = np.array([-3.0, 6.0])
    # §11.1: directly behind the ball (0.8 m, not the report's 1.5: docs/status.md, "Game results")
    assert formation.formation(ball, 3)["stopper"] == pytest.approx(ball + [-shipped.stopper_offset, 0.0])
    assert shipped.stopper_offset == pytest.approx(0.8)
    on_line = formation.formation(ball, 3, params=replace(shipped, stopper_goal_line=True))["stopper"]
    to_goal = F.OWN_GOAL - ball
    assert np.linalg.norm(on_line - ball) == pytest.approx(shipped.stopper_offset)
    d = on_line - ball
    assert d[0] * to_goal[1] - d[1] * to_goal[0] == pytest.approx(0.0, abs=1e-9) and d @ to_goal > 0   # on the line


def test_formation_shape_at_the_centre():
    p = formation.formation((0, 0), 11)
    assert p["forwardLeft"][1] > 0 > p["forwardRight"][1]
    assert p["stopper"][0] < 0 and p["wingLeft"][0] < p["stopper"][0]
    assert p["backLeft"][0] < p["stopper"][0] and p["goalie"][0] == pytest.approx(-14.5)
    # backs on the goal-ball line (symmetric about it)
    assert p["backLeft"][1] == pytest.approx(-p["backRight"][1])
    assert formation.roles_for(3) == ("goalie", "onBall", "stopper")
    assert formation.roles_for(2) == ("onBall", "stopper") and formation.roles_for(1) == ("onBall",)
    assert "goalieReplacement" in formation.roles_for(5, goalie_on_ball=True)


def test_goalie_stays_on_its_line_between_ball_and_goal():
    for ball in [(0, 0), (-10, 5), (-10, -8), (-14.8, 0.3)]:
        g = goalie.goalie_position(ball)
        assert g[0] == pytest.approx(-14.5) and abs(g[1]) <= F.GOAL_WIDTH / 2
    assert goalie.goalie_position((-5, 4))[1] > 0


def test_dive_decisions():
    g = goalie.goalie_position((0, 0))
    assert goalie.dive_decision(g, (-10, 0), (-5, 0)) == "dive_center"
    assert goalie.dive_decision(g, (-10, 0), (-5, 0.5 * 5 / 4.5)) == "dive_left"
    assert goalie.dive_decision(g, (-10, 0), (-5, -0.9 * 5 / 4.5)) == "lunge_right"
    assert goalie.dive_decision(g, (-10, 0), (-0.3, 0)) is None          # too slow
    assert goalie.dive_decision(g, (-10, 0), (-5, 5)) is None            # going wide


def test_set_play_positions_inside_field_and_2m_from_the_ball():
    for ball in [(14.5, 9.5), (-14.5, -9.5), (0, 9.9), (5, -9.9), (0, 0)]:
        pts = set_plays.keep_free_kick_distance(formation.formation(ball, 11).values(), ball)
        for p in pts:
            assert F.inside_field(p[0], p[1])
            assert np.linalg.norm(p - np.asarray(ball)[:2]) >= F.FREE_KICK_DISTANCE
    for p in set_plays.defensive_goal_kick() + set_plays.offensive_goal_kick():
        assert F.inside_field(p[0], p[1])
    shifted = set_plays.kick_in_shift([np.array([0.0, 9.5])], (1.0, 10.0))[0]
    assert shifted[1] == pytest.approx(9.0)


def test_closeness_measure_follows_the_pseudocode():
    ball = (0.0, 0.0)
    assert B.closeness_to_ball((-1, 0), ball) == pytest.approx(1.0)
    assert B.closeness_to_ball((1, 0), ball) == pytest.approx(2.0)             # in front: +1
    assert B.closeness_to_ball((-1, 0), ball, fallen=True) == pytest.approx(2.5)
    assert B.closeness_to_ball((-0.5, 0), ball, fallen=True) == pytest.approx(0.5)  # within 0.65 m
    assert B.closeness_to_ball((-1, 0), ball, is_goalie=True) == 1000
    assert B.closeness_to_ball((-14.5, 0), (-14, 0.5), is_goalie=True) < 1000


def test_collision_avoidance_thresholds():
    d = B.avoid_collisions((0, 0), (5, 0), [(3, 0)])
    assert d == pytest.approx([1, 0])                     # obstacle outside 1.25 m: straight
    d = B.avoid_collisions((0, 0), (5, 0), [(1.0, 0.1)])
    assert abs(d[0]) < 0.2 and d[1] < 0                   # tangent, around the side toward the target
    d = B.avoid_collisions((0, 0), (5, 0), [(0.3, 0.0)])
    assert d[0] < 0                                       # inside 0.5 m: also pushed away


def test_walk_inputs_section_10_4_1():
    assert B.normalized_walk(0.0, 1.0, 0.6) == pytest.approx((1.0, 0.0))
    x, y = B.normalized_walk(math.radians(20), 1.0, 0.6)
    assert x == 1.0 and y == pytest.approx(math.tan(math.radians(20)) / 0.6)
    x, y = B.normalized_walk(math.radians(80), 1.0, 0.6)
    assert y == 1.0 and x * 1.0 / (y * 0.6) == pytest.approx(1 / math.tan(math.radians(80)))
    assert B.turn_input(math.pi / 2) == pytest.approx(0.5)


def test_approach_goes_around_the_ball_when_in_front():
    t = B.approach_target((1.0, 0.0), (0.0, 0.0), 0.0)
    assert abs(t[1]) == pytest.approx(0.5) and t[0] == pytest.approx(0.0)   # side waypoint
    t = B.approach_target((-2.0, 0.0), (0.0, 0.0), 0.0)
    assert t == pytest.approx([-0.25, 0.0])


def test_dribble_walks_straight_up_behind_the_ball_and_around_it_only_when_it_is_in_the_way():
    # 0.47 m behind the ball on its line to the goal, with the ball counted as an obstacle (0.5 m), the player
    # sidestepped there instead of closing in to walk through it
    target, walk = B.dribble((-0.47, 0.03), 0.0, (0.0, 0.0))
    assert walk.x > 0.3 and abs(walk.y) < 0.3 * walk.x
    target, walk = B.dribble((-0.7, 0.25), 0.0, (0.0, 0.0))           # off the line: up behind the ball first
    assert target == pytest.approx([-0.25, 0.0], abs=0.03)
    assert walk.x > 0.3
    # beside the ball, the straight way to the point behind it touches the ball: go around (§12.6)
    me = np.array([-0.1, 0.3])
    target, walk = B.dribble(me, -math.pi / 2, (0.0, 0.0))        # facing the ball's side, not yet lined up
    assert target == pytest.approx([-0.25, 0.0], abs=1e-6)
    step = np.array([-walk.y, walk.x])                  # the walk's direction in the field frame (theta = -90 deg)
    straight = (target - me) / np.linalg.norm(target - me)
    assert float(step @ straight) / np.linalg.norm(step) < 0.95     # not straight at (-0.25, 0) across the ball


def test_dribble_pushes_the_ball_steering_it_onto_the_torsos_centre_line():
    # the ball 0.3 m ahead, on the centre line: straight on at full speed
    _, walk = B.dribble((-0.3, 0.0), 0.0, (0.0, 0.0))
    assert walk.x == pytest.approx(1.0) and abs(walk.y) < 0.05 and abs(walk.theta) < 0.05
    # 0.15 m to the right: sidestep right before walking on (forward would push it past the right foot)
    _, walk = B.dribble((-0.3, 0.15), 0.0, (0.0, 0.0))
    assert walk.y < -0.9 and walk.x < 0.5
    # heading 30 deg off the way to the goal: push on and turn toward it
    _, walk = B.dribble((-0.3 * math.cos(0.5), 0.3 * math.sin(0.5)), -0.5, (0.0, 0.0))
    assert walk.x > 0.5 and walk.theta > 0.5


def test_dribble_walks_on_at_a_ball_that_rolled_ahead_on_its_line():
    # a pushed ball rolls 0.5-1 m ahead; walking up to a point behind it slows the player to a stop there
    # (driveBallToGoal, villa sim, 12 trials: 7.8 / 7.0 / 5.5 m for robot types 0 / 1 / 2, 9.8 / 7.9 / 7.5 m walking on)
    for d in (0.6, 0.9):
        target, walk = B.dribble((-d, 0.05), 0.0, (0.0, 0.0))
        assert walk.x > 0.6 and walk.parameter_set == B.NEAR_BALL_SET
        assert target[0] > 0.0                                      # through the ball, not to a point behind it
    _, walk = B.dribble((-1.2, 0.0), 0.0, (0.0, 0.0))               # beyond PUSH_FAR: the approach again
    assert walk.x > 0.3


def test_a_ball_on_a_line_into_their_goal_is_walked_in_from_where_the_player_stands():
    # a traced game: the ball 0.13 m before their goal line between the posts; the point behind it along the
    # goal's centre line was their goalie's, and the on-ball player walked round the ball until the game ended
    hl = B.F.HALF_LENGTH
    me, ball = np.array([hl - 0.95, -0.42]), np.array([hl - 0.13, -0.49])
    assert B.on_scoring_line(me, ball)
    target, walk = B.dribble(me, math.atan2(*(ball - me)[::-1]), ball, opponents=[(hl - 0.4, -0.4)])
    along = (target - me) @ (ball - me) / np.linalg.norm(ball - me) ** 2
    (ux, uy), (vx, vy) = ball - me, target - me
    cross = abs(ux * vy - uy * vx) / np.linalg.norm(ball - me)
    assert along > 0.9 and cross < 0.05 and walk.x > 0.5             # straight through the ball
    # not when the line through the ball misses the goal, nor from far, nor from in front of the ball
    assert not B.on_scoring_line((hl - 2.0, 3.0), (hl - 0.5, 0.0))
    assert not B.on_scoring_line((hl - 5.0, 0.0), (hl - 1.0, 0.0))
    assert not B.on_scoring_line((hl - 0.1, 0.0), (hl - 0.5, 0.0))
    assert not B.on_scoring_line((0.0, 0.0), (1.0, 0.0))            # far from their goal


def test_dribble_faces_the_way_to_move_the_ball_while_the_ball_is_beside_or_behind():
    # the player walked past the ball: circle back facing the goal, not turning round to face the ball
    _, walk = B.dribble((0.2, 0.25), 0.0, (0.0, 0.0))
    assert abs(walk.theta) < 0.2
    # the ball ahead but to the side: face it (§12.3)
    _, walk = B.dribble((-0.6, 0.4), 0.0, (0.0, 0.0))
    assert walk.theta < -0.5


def test_near_the_ball_the_face_changes_smoothly_as_the_player_circles_it():
    # with the face switching from the ball to the way to move it at 60 deg, and from the walk's heading to that
    # face 0.5 m from the walk's target, players near the ball turned at full speed back and forth (35 % of the time)
    direction = 0.3
    rel = np.radians(np.linspace(-179, 179, 359))
    face = np.array([B.near_ball_face(direction + r, direction) for r in rel])
    assert np.max(np.abs(np.diff(face))) <= np.radians(1.01)          # 1 deg apart: never a jump
    assert np.allclose(face[np.abs(rel) <= B.FACE_SPAN], direction + rel[np.abs(rel) <= B.FACE_SPAN])
    assert np.allclose(face[np.abs(rel) >= 2 * B.FACE_SPAN], direction)
    # with the ball near, the player faces that way however far its walk target is: in front of the ball, facing
    # their goal, it walks back round the ball without turning toward the waypoint behind it
    me = np.array([0.3, 0.6])
    target, walk = B.dribble(me, 0.0, (0.0, 0.0))
    assert np.linalg.norm(target - me) > 0.5 and (target - me)[0] < 0
    assert abs(walk.theta) < 0.2 and walk.x < -0.5


def test_pursuit_angle_only_while_the_opponent_is_nearer_the_ball():
    # §12.4: an opponent at the ball dribbling toward our goal: wait 0.6 m back along its path
    t = B.approach_target((-2.0, 0.5), (0.0, 0.0), 0.0, opponent=(0.2, 0.0))
    assert t == pytest.approx([-0.6, 0.0])
    # both on-ball players waiting 0.6 m from a still ball: neither is "about to move it"; go for the ball
    t = B.approach_target((-0.6, 0.0), (0.0, 0.0), 0.0, opponent=(0.6, 0.0))
    assert t == pytest.approx([-0.25, 0.0])
    me, opp = (-0.6, 0.0), (0.6, 0.0)                   # and the opponent, mirrored, does the same: no standstill
    t_opp = B.approach_target((-opp[0], -opp[1]), (0.0, 0.0), 0.0, opponent=(-me[0], -me[1]))
    assert t_opp == pytest.approx([-0.25, 0.0])


def test_no_pursuit_at_a_ball_in_their_penalty_area():
    # the opponent at a ball in their box is mostly their goalie, who does not dribble it: go behind the ball for the
    # shot, do not wait in front of it (a game's last 11 s went that way, the goal beside the goalie open)
    ball, keeper, me = (14.4, 0.45), (14.55, 0.4), (14.2, 1.4)
    t = B.approach_target(me, ball, -1.0, opponent=keeper)
    assert t == pytest.approx(np.array(ball) - 0.25 * np.array([math.cos(-1.0), math.sin(-1.0)]))
    # the same situation outside their box is still §12.4's pursuit
    shift = np.array([-5.0, 0.0])
    t = B.approach_target(np.array(me) + shift, np.array(ball) + shift, -1.0, opponent=np.array(keeper) + shift)
    assert t[0] < ball[0] + shift[0] - 0.5


def test_when_to_kick():
    assert B.want_kick((0, 0), 0.0, [(3.0, 0.5)])
    assert not B.want_kick((0, 0), 0.0, [(0.5, 0.0)])
    assert not B.want_kick((0, 0), 0.0, [(3.0, 0.5)], lining_up_for=16)
    assert not B.want_kick((0, 0), 0.0, [(-3.0, 0.0)])
    # "free": whenever no opponent is within 1 m (the 15 s limit still holds)
    assert B.want_kick((0, 0), 0.0, [(-3.0, 0.0)], rule="free") and B.want_kick((0, 0), 0.0, [], rule="free")
    assert not B.want_kick((0, 0), 0.0, [(0.5, 0.0)], rule="free")
    assert not B.want_kick((0, 0), 0.0, [], lining_up_for=16, rule="free")
    with pytest.raises(ValueError, match="kick rule"):
        B.want_kick((0, 0), 0.0, [], rule="sometimes")


def test_penalty_striker_shoots_into_the_bigger_gap():
    a = penalty.shot_window((11.0, 0.0), (14.5, 0.5))[0]
    assert a < 0  # goalie stands left: shoot right
    assert penalty.striker_plan((5.0, 0.0), 3.0) == "dribble_to_box"
    assert penalty.striker_plan((12.2, 0.0), 3.0) == "shoot"


def test_play_modes_match_the_message():
    pytest.importorskip("villa_msgs")
    from villa_msgs.msg import GameState as G

    shared = [n for n in dir(G) if n.isupper() and isinstance(getattr(G, n), int) and hasattr(D, n)]
    assert {"BEFORE_KICK_OFF", "KICK_OFF_OWN", "PLAY_ON", "GOAL_KICK_OPP", "GAME_OVER", "GOAL_OPP", "OFFSIDE_OWN",
            "FREE_KICK_OWN", "DIRECT_FREE_KICK_OWN"} <= set(shared)
    assert {n: getattr(D, n) for n in shared} == {n: getattr(G, n) for n in shared}
    assert D.FREE_KICK_OPP_MODES == {G.KICK_OFF_OPP, G.KICK_IN_OPP, G.CORNER_KICK_OPP, G.GOAL_KICK_OPP, G.OFFSIDE_OPP,
                                     G.FREE_KICK_OPP, G.DIRECT_FREE_KICK_OPP, G.PASS_OPP}


def _view(me, ball, mates):
    return D.WorldView(pose=me, ball=ball, teammates=mates)


def test_decision_roles_beam_and_say():
    params = D.StrategyParams(team_size=3)
    players = {u: D.TeamPlayer(u, params) for u in (1, 2, 3)}
    pos = {1: (-14.0, 0.0, 0.0), 2: (-2.0, 1.0, 0.0), 3: (-6.0, -3.0, 0.0)}
    ball = (0.0, 0.0)
    # before kick-off: beams in our half
    d = players[2].decide(_view(pos[2], ball, {}), D.BEFORE_KICK_OFF, 0.0, True)
    assert d.beam is not None and d.beam[0] <= 0
    out = {}
    for t in np.arange(0.0, 1.0, 0.02):
        for u, p in players.items():
            mates = {v: pos[v][:2] for v in pos if v != u}
            dec = p.decide(_view(pos[u], ball, mates), D.PLAY_ON, t, True)
            out[u] = dec
            if dec.say:
                for v, q in players.items():
                    if v != u:
                        q.hear(dec.say, t + 0.04, True)
    assert out[1].role == "goalie" and out[2].role == "onBall" and out[3].role == "stopper"
    assert {d.assignment["onBall"] for d in out.values()} == {2}
    assert out[2].walk is not None and out[2].walk.x > 0


def test_a_player_that_lost_the_ball_uses_the_ball_a_teammate_sees():
    """§6: with our ball estimate stale (its prediction had drifted 5 m in a game), the ball a trusted, upright
    teammate heard within HEARD_BALL_AGE says it sees is the one we play; an untrusted, fallen or blind teammate's is
    not, nor one older than HEARD_BALL_AGE."""
    from villa_strategy import comm
    params = D.StrategyParams(team_size=2)
    me = D.TeamPlayer(1, params)
    codec = comm.Codec(params.team_key)
    t = 2 * comm.CYCLE              # unum 2's say slot of a team of two: its messages are heard as unum 2's
    assert comm.speaker(t, 2) == 2
    lost = D.WorldView(pose=(-2.0, 0.0, 0.0), ball=(-2.0, -5.0), ball_valid=False, teammates={2: (-1.0, 1.0)})

    def heard(**kw):
        me.heard.clear()
        fields = dict(time=t, side_left=True, fallen=False, ball=(-2.2, 1.1), position=(-1.0, 1.0),
                      sees_ball=True, trusted=True)
        fields.update(kw)
        assert me.hear(codec.encode(comm.TeamMessage(**fields)), t + 0.02, True) is not None

    heard()
    assert me.shared_ball(lost, t + 0.5) == pytest.approx([-2.2, 1.1], abs=0.05)
    d = me.decide(lost, D.PLAY_ON, t + 0.5, True)
    assert d.target[1] > 0.5                                       # goes to the heard ball, not the drifted one
    assert me.shared_ball(lost, t + D.HEARD_BALL_AGE + 0.1) == pytest.approx([-2.0, -5.0])   # too old
    for kw in ({"trusted": False}, {"fallen": True}, {"sees_ball": False}):
        heard(**kw)
        assert me.shared_ball(lost, t + 0.5) == pytest.approx([-2.0, -5.0])
    heard()
    seen = D.WorldView(pose=(-2.0, 0.0, 0.0), ball=(-1.5, 0.5), ball_valid=True)
    assert me.shared_ball(seen, t + 0.5) == pytest.approx([-1.5, 0.5])           # our own valid ball first


def test_variants_allball_and_static():
    a = D.TeamPlayer(3, D.StrategyParams(team_size=3, variant="allball"))
    d = a.decide(_view((-6.0, -3.0, 0.0), (0.0, 0.0), {1: (-14, 0), 2: (-1, 0)}), D.PLAY_ON, 1.0, True)
    assert d.role == "onBall" and d.method == "allball"
    s = D.TeamPlayer(3, D.StrategyParams(team_size=3, variant="static"))
    d = s.decide(_view((-6.0, -3.0, 0.0), (0.0, 0.0), {1: (-14, 0), 2: (-1, 0)}), D.PLAY_ON, 1.0, True)
    assert d.role == formation.ROLE_ORDER[2] and d.method == "static"
    with pytest.raises(ValueError, match="variant must be one of villa, allball, static, defense, boxes"):
        D.TeamPlayer(1, D.StrategyParams(variant="banana"))
    for world in ("rcssservermj", ""):                   # the world's names: villa, simspark, naoqi
        with pytest.raises(ValueError, match="unknown world .*; known: villa, simspark, naoqi"):
            D.TeamPlayer(1, D.StrategyParams(simulator=world, kicks=False))


def test_variants_defense_and_boxes():
    """§11.5 Defense: only onBall and the stopper attack; Boxes: the roles keep to fixed boxes of the field."""
    ball = (6.0, 4.0)
    villa = formation.variant_formation("villa", ball, 7)
    defense = formation.variant_formation("defense", ball, 7)
    for role in ("goalie", "onBall", "stopper", "backLeft", "backRight"):
        np.testing.assert_allclose(defense[role], villa[role])
    for role in ("forwardLeft", "forwardRight"):        # in front of the ball with villa, behind it (defending) here
        assert villa[role][0] >= ball[0] - 1e-9 and defense[role][0] < ball[0] - 3.0
    assert formation.variant_formation("defense", ball, 2).keys() == villa.keys() - {"goalie", "backLeft",
                                                                                       "backRight", "forwardLeft",
                                                                                       "forwardRight"}
    for b in ((6.0, 4.0), (-12.0, -8.0), (14.0, 9.0)):
        boxes = formation.variant_formation("boxes", b, 11)
        np.testing.assert_allclose(boxes["onBall"], np.clip(b, -15, 15))
        for role, (x0, x1, y0, y1) in formation.BOXES.items():
            assert x0 - 1e-9 <= boxes[role][0] <= x1 + 1e-9 and y0 - 1e-9 <= boxes[role][1] <= y1 + 1e-9, role
    far = formation.variant_formation("boxes", (12.0, 0.0), 2)["stopper"]    # not behind the ball: its box
    stopper = formation.FormationParams().stopper_offset
    assert far[0] == pytest.approx(0.0) and villa["stopper"][0] == pytest.approx(ball[0] - stopper)
    p = D.TeamPlayer(2, D.StrategyParams(team_size=2, variant="boxes"))
    d = p.decide(_view((-6.0, -3.0, 0.0), (12.0, 0.0), {1: (11.5, 0.5)}), D.PLAY_ON, 1.0, True)
    assert d.role == "stopper" and d.target == pytest.approx((0.0, 0.0)) and d.method == "scram_mmd"


def test_goalie_dives_at_a_shot():
    p = D.TeamPlayer(1, D.StrategyParams(team_size=3))
    w = D.WorldView(pose=(-14.5, 0.0, 0.0), ball=(-11.0, 0.0), ball_velocity=(-4.0, 0.0),
                    teammates={2: (0, 0), 3: (-5, 2)})
    assert p.decide(w, D.PLAY_ON, 5.0, True).skill == "dive_center"


def test_a_goalie_closest_to_a_ball_in_our_box_goes_for_it():
    """§9.1: the goalie takes the onBall role for a ball in our goal box when it is the closest, and a field player
    covers the goal (goalieReplacement). A goalie holding both roles that acts as "goalie" lets a still ball 1 m
    from our goal lie beside it (8 s in a traced game, until AllBall walked it in)."""
    pos = {1: (-14.5, 0.0, 0.0), 2: (-6.0, 1.0, 0.0), 3: (-3.0, -2.0, 0.0)}
    ball = (-14.0, 1.2)
    decisions = {u: D.TeamPlayer(u, D.StrategyParams(team_size=3)).decide(
        _view(pos[u], ball, {v: pos[v][:2] for v in pos if v != u}), D.PLAY_ON, 1.0, True) for u in pos}
    assert decisions[1].role == "onBall" and decisions[1].assignment["onBall"] == 1
    assert {decisions[2].role, decisions[3].role} == {"goalieReplacement", "stopper"}
    assert math.dist(decisions[1].target, ball) < 0.6                    # at the ball, not on the goalie's line
    assert decisions[1].walk is not None and not decisions[1].walk.stop
    # the ball out of our box: the goalie is back on its line
    d = D.TeamPlayer(1, D.StrategyParams(team_size=3)).decide(
        _view(pos[1], (-10.0, 1.2), {2: pos[2][:2], 3: pos[3][:2]}), D.PLAY_ON, 1.0, True)
    assert d.role == "goalie" and d.target[0] == pytest.approx(goalie.GOALIE_LINE)


def test_votes_from_before_the_beams_do_not_take_the_kick_off_takers_role():
    """§11.4 votes describe where the players stood: those of the play before a goal (our own here; heard ones too)
    would outvote the kick-off's own mapping at its first cycles, and our taker, made stopper, step aside at the
    whistle (its kick then starts after the walk's stop, from off its spot). The beams forget them."""
    p = D.TeamPlayer(2, D.StrategyParams(team_size=3))
    for t in (10.0, 10.02, 10.04):                          # in play unum 3 is at the ball: onBall; we are stopper
        d = p.decide(_view((-3.0, 0.0, 0.0), (5.0, 3.0), {1: (-14.0, 0.0), 3: (4.7, 3.0)}), D.PLAY_ON, t, True)
        assert d.role == "stopper"
    d = p.decide(_view((-3.0, 0.0, 0.0), (-15.2, 0.5), {1: (-14.0, 0.0), 3: (4.7, 3.0)}), D.GOAL_OPP, 11.0, True)
    assert d.role == "onBall" and d.beam is not None                 # beamed as the kick-off taker
    spot = d.beam
    mates = {1: (-14.0, 0.0), 3: (-0.5, 1.0)}
    d = p.decide(D.WorldView(pose=spot, ball=(0.0, 0.0), teammates=mates, since_beam=3.0), D.KICK_OFF_OWN, 14.0,
                 True)
    assert d.role == "onBall" and d.assignment["onBall"] == 2
    assert d.walk is None or d.walk.stop or d.walk.parameter_set == "kickApproach"     # no step aside


def test_a_team_of_one_or_two_goes_for_the_ball():
    """Unum 1 of a team of one must not play goalie: it would never go for the ball. A goalie is reserved only from
    formation.GOALIE_MIN_TEAM players on; smaller teams are field players and the closest one takes the ball."""
    ball = (3.0, 2.0)
    solo = D.TeamPlayer(1, D.StrategyParams(team_size=1))
    d = solo.decide(_view((0.0, 0.0, 0.0), (0.0, 0.0), {}), D.BEFORE_KICK_OFF, 0.0, True)
    assert d.role == "onBall" and -0.3 < d.beam[0] < -0.1 and abs(d.beam[1]) < 0.1   # kicks off from the centre spot
    d = solo.decide(_view((-14.0, 0.0, 0.0), ball, {}), D.PLAY_ON, 1.0, True)
    assert d.role == "onBall" and d.assignment == {"onBall": 1} and d.walk is not None and d.walk.x > 0.5
    assert d.target[0] > 0                                                     # toward the ball, not our goal
    # a team of two: no goalie; whoever is closer takes the ball, the other one supports (stopper)
    pair = {u: D.TeamPlayer(u, D.StrategyParams(team_size=2)) for u in (1, 2)}
    pos = {1: (1.0, 1.0, 0.0), 2: (-8.0, 0.0, 0.0)}
    roles = {u: p.decide(_view(pos[u], ball, {v: pos[v][:2] for v in pos if v != u}), D.PLAY_ON, 1.0, True).role
             for u, p in pair.items()}
    assert roles == {1: "onBall", 2: "stopper"}
    # from three players on, unum 1 keeps goal (far from the ball) and another player takes the ball
    three = D.TeamPlayer(1, D.StrategyParams(team_size=3))
    d = three.decide(_view((-14.0, 0.0, 0.0), ball, {2: (1.0, 1.0), 3: (-5.0, 0.0)}), D.PLAY_ON, 1.0, True)
    assert d.role == "goalie" and d.assignment["onBall"] == 2


def test_the_kick_off_taker_is_beamed_just_behind_its_kicks_stand_at_point():
    """§11.2.1 on SimSpark: a taker beamed against the ball touched it first, so the kick-off kick was its second touch
    and the referee gave the opponents a free kick. The taker is beamed KICKOFF_SETBACK behind the kick's stand-at
    pose, on its line (it lines up from there before the kick-off: test_kick_decision): 2 cm on SimSpark (its beam
    noise; beamed standing it settles little), 1 cm on villa sim (it settles back 1-1.5 cm, and a kick from 5-6 cm
    short moved the ball 0.5 m)."""
    from villa_motion import kick as KK

    for simulator, setback in (("villa", 0.01), ("naoqi", 0.01), ("simspark", 0.02)):
        p = D.TeamPlayer(1, D.StrategyParams(team_size=2, simulator=simulator))
        d = p.decide(_view((-5.0, 0.0, 0.0), (0.0, 0.0), {2: (-3.0, 0.0)}), D.BEFORE_KICK_OFF, 0.0, True)
        x, y, heading = d.beam
        assert math.radians(4) < abs(heading) < math.radians(21)                   # 5-20 degrees left or right
        again = p.decide(_view((x, y, heading), (0.0, 0.0), {2: (-3.0, 0.0)}), D.BEFORE_KICK_OFF, 0.5, True)
        assert again.beam == pytest.approx(d.beam)                                  # the direction is drawn once
        at, face = KK.approach_pose(p.kicks[p._kick_name], (0.0, 0.0), p._kickoff_dir)
        assert face == pytest.approx(heading)
        np.testing.assert_allclose(at - (x, y), setback * np.array([math.cos(face), math.sin(face)]), atol=1e-9)
        assert d.target == pytest.approx((x, y))


def test_the_second_halfs_kick_off_is_the_right_teams():
    """SimSpark's halves: the left team kicks the first half off, the right team the second (the game clock is at
    F.HALF_TIME in the second half's BeforeKickOff). The taker beams against the ball only for its team's kick-off:
    a left taker beamed to the centre spot at half time was put off the field by the referee (the right team's
    kick-off circle)."""
    from villa_nao import field as F

    for game_time, side_left, takes in ((0.0, True, True), (0.0, False, False), (F.HALF_TIME, True, False),
                                        (F.HALF_TIME, False, True)):
        p = D.TeamPlayer(1, D.StrategyParams(team_size=1))
        d = p.decide(_view((-5.0, 0.0, 0.0), (0.0, 0.0), {}), D.BEFORE_KICK_OFF, game_time, side_left)
        assert d.beam is not None and d.beam[0] <= 0
        assert (math.hypot(*d.beam[:2]) < 0.5) == takes, (game_time, side_left, d.beam)
        assert (math.hypot(*d.beam[:2]) > F.CENTER_CIRCLE_RADIUS) == (not takes)


def test_beam_for_any_unum_and_team_size():
    for size in (1, 2, 5, 11):
        for unum in range(1, 12):
            d = D.TeamPlayer(unum, D.StrategyParams(team_size=size)).decide(
                _view((0.0, 0.0, 0.0), (0.0, 0.0), {}), D.BEFORE_KICK_OFF, 0.0, True)
            assert d.beam is not None and -15 <= d.beam[0] <= 0 and abs(d.beam[1]) <= 10


def test_goalie_does_not_dive_on_untrusted_or_repeated_estimates():
    p = D.TeamPlayer(1, D.StrategyParams(team_size=3))
    shot = dict(pose=(-14.5, 0.0, 0.0), ball=(-11.0, 0.0), ball_velocity=(-4.0, 0.0), teammates={2: (0, 0), 3: (-5, 2)})
    assert p.decide(D.WorldView(**shot, localized=False), D.PLAY_ON, 5.0, True).skill is None
    far = dict(shot, ball=(-5.0, 0.0), ball_velocity=(-8.0, 0.0))
    assert p.decide(D.WorldView(**far), D.PLAY_ON, 5.0, True).skill is None
    assert p.decide(D.WorldView(**shot), D.PLAY_ON, 5.0, True).skill == "dive_center"
    assert p.decide(D.WorldView(**shot), D.PLAY_ON, 7.0, True).skill is None          # cooling down
    assert p.decide(D.WorldView(**shot), D.PLAY_ON, 10.5, True).skill == "dive_center"


@pytest.mark.parametrize("size", range(1, 12))
def test_kickoff_positions_are_apart_in_the_own_half(size):
    """Beams before a kick-off never put two robots on one spot (the 2 v 2 defending team once beamed its onBall and
    stopper both to (-2.3, 0): they collided and fell at every kick-off)."""
    for ours in (True, False):
        pos = list(formation.kickoff_positions(size, our_kickoff=ours).values())
        assert len(pos) == size or size > len(formation.ROLE_ORDER)
        assert all(p[0] < 0 for p in pos)
        for i, p in enumerate(pos):
            for q in pos[:i]:
                assert np.linalg.norm(p - q) >= formation.KICKOFF_SPACING - 1e-9
            if not ours:
                assert np.linalg.norm(p) >= F.CENTER_CIRCLE_RADIUS
