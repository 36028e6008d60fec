"""The IK kick engine (villa_motion.kick, UT Austin Villa 2011 report §13.1, §11.2.1): kick files, parameters, the
Hermite curve, the leg IK, reachability and kick choice. How far a kick sends the ball in villa sim:
villa_optimize's test_standing_kick.py."""

import functools
import math
import re

import numpy as np
import pytest

from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_nao import kinematics as K
from villa_nao.params import config_path

KICK_TEXT = """# a test kick
KICK probe
DIRECTION 0
BALL 0.15 0.06
SHIFT 0.5 0.06 0.02
DURATION 0.3
RETURN 0.5
WAYPOINT 0.4 -0.25 0.0 0.04 0 0.1 0 TANGENT 0.1 0 0
WAYPOINT 0.7 -0.15 0.01 0.03 0.05 0 0.1 TANGENT 0.6 0.02 -0.01
WAYPOINT 1.0 -0.03 0.0 0.05 0 -0.2 0
"""


@pytest.fixture(scope="module")
def kicks():
    return KK.load_kick_set("tuned")


def test_spline_passes_through_the_waypoints_with_their_tangents():
    k = KK.parse_kick(KICK_TEXT, "probe.kick")
    stand = KK.StandPose()
    traj = KK.trajectory(k, k.ball, stand)
    ball = KK.ball_after_shift(k, k.ball, stand)
    deriv = traj.spline.derivative()
    assert traj.position(0.0) == pytest.approx(KK.shifted_feet(k, stand)["L"])      # starts at the shifted foot
    assert deriv(0.0) == pytest.approx(np.zeros(3))
    for w in k.waypoints:
        assert traj.position(w.u) == pytest.approx(ball + np.array(w.pos), abs=1e-12)
        assert traj.rpy(w.u) == pytest.approx(w.rpy, abs=1e-12)
        if w.tangent is not None:
            assert deriv(w.u) == pytest.approx(w.tangent, abs=1e-12)
    # Euler angles: linear between waypoints
    a, b = k.waypoints[0], k.waypoints[1]
    mid = 0.5 * (a.u + b.u)
    assert traj.rpy(mid) == pytest.approx(0.5 * (np.array(a.rpy) + np.array(b.rpy)))
    # the ball after the shift: the support foot stays planted, so the ball keeps its place relative to it
    support_before = np.array([stand.x_offset, -0.5 * stand.y_sep, -stand.z_torso])
    support_after = KK.shifted_feet(k, stand)["R"]
    assert ball - support_after == pytest.approx(np.array([*k.ball, -stand.z_torso]) - support_before)


def test_ik_realizes_the_trajectory(kicks):
    k = kicks["forward_L"]
    traj = KK.trajectory(k, k.ball, KK.StandPose())
    for u in np.linspace(0.0, 1.0, 25):
        target = traj.pose(float(u))
        r = K.leg_ik("L", target)
        fk = K.leg_fk("L", r.angles)
        assert np.linalg.norm(fk[:3, 3] - target[:3, 3]) < 0.003, u
    assert KK.reachable_fraction(k, k.ball) > KK.REACH_FRACTION


def test_the_curve_s_poses_at_once_are_its_poses_one_by_one(kicks):
    traj = KK.trajectory(kicks["in45_R"], kicks["in45_R"].ball, KK.StandPose())
    us = np.linspace(-0.1, 1.1, 31)                     # clamped to the curve's ends, as pose() clamps
    assert traj.poses(us) == pytest.approx(np.array([traj.pose(float(u)) for u in us]), abs=1e-12)


@pytest.mark.parametrize("robot_type", [0, 1, 3])
def test_the_quick_search_answers_as_leg_ik_on_kick_curves(robot_type):
    """The reach check searches from the clamped closed form only (villa_nao leg_reaches quick=True): on kick curves,
    for balls about the kicks' offsets and out of reach, it answers pose by pose as leg_ik's full search does."""
    kicks = KK.load_kick_set("tuned", robot_type=robot_type)
    rng = np.random.default_rng(robot_type)
    checked = misses = 0
    for name in ("forward_L", "in45_R", "in90_L", "out45_R"):
        k = kicks[name]
        for _ in range(6):
            ball = (k.ball[0] + rng.uniform(-0.1, 0.1), k.ball[1] + rng.uniform(-0.1, 0.1))
            poses = KK.trajectory(k, ball, KK.StandPose()).poses(np.linspace(0.0, 1.0, KK.REACH_SAMPLES))
            quick = K.leg_reaches(k.foot, poses, robot_type, KK.REACH_POS_TOL, KK.REACH_ROT_TOL, quick=True)
            full = K.leg_reaches(k.foot, poses, robot_type, KK.REACH_POS_TOL, KK.REACH_ROT_TOL)
            assert quick.tolist() == full.tolist(), (name, ball)
            checked += len(poses)
            misses += int((~K.leg_closed_form_reaches(k.foot, poses, robot_type, KK.REACH_POS_TOL,
                                                      KK.REACH_ROT_TOL)).sum())
    assert misses > 0.1 * checked       # the search decided a good share of them


def test_reachable_answers_as_the_fraction_does(kicks):
    """reachable() (remembered per grid cell, the new cells of a check in one vectorised pass) agrees with the
    fraction across the edge of the region, with and without the approach's margin."""
    k = kicks["forward_L"]
    stand = KK.StandPose()
    answers = set()
    for dx in np.arange(-0.06, 0.061, 0.015):
        for dy in (-0.03, 0.0, 0.03):
            ball = (round((k.ball[0] + dx) / KK.REACH_GRID) * KK.REACH_GRID,
                    round((k.ball[1] + dy) / KK.REACH_GRID) * KK.REACH_GRID)
            full = KK.reachable_fraction(k, ball, stand) > KK.REACH_FRACTION
            assert KK.reachable(k, ball, stand) == full, ball
            answers.add(full)
            around = [(ball[0] + ex, ball[1] + ey) for ex, ey in ((0, 0), (0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01))]
            inside = all(KK.reachable_fraction(k, b, stand) > KK.REACH_FRACTION for b in around)
            assert KK.reachable(k, ball, stand, margin=0.01) == inside, ball
    assert answers == {True, False}      # the sweep crosses the region's edge


def test_right_foot_kick_is_the_mirror_image(kicks):
    left, right = kicks["forward_L"], kicks["forward_R"]
    assert right.foot == "R" and right.ball == (left.ball[0], -left.ball[1])
    tl = KK.trajectory(left, left.ball, KK.StandPose())
    tr = KK.trajectory(right, right.ball, KK.StandPose())
    for u in (0.0, 0.3, 0.8, 1.0):
        assert tr.position(u) == pytest.approx(tl.position(u) * [1, -1, 1])
    out90 = kicks["out90_L"]
    assert out90.direction == pytest.approx(math.pi / 2, abs=1e-6)
    assert kicks["out90_R"].direction == pytest.approx(-math.pi / 2, abs=1e-6)


def test_reachability_refuses_an_out_of_reach_kick():
    far = KICK_TEXT.replace("WAYPOINT 0.7 -0.15 0.01 0.03", "WAYPOINT 0.7 0.35 0.01 0.03") \
                   .replace("WAYPOINT 1.0 -0.03 0.0 0.05", "WAYPOINT 1.0 0.40 0.0 0.25")
    k = KK.parse_kick(far, "far.kick")
    assert KK.reachable_fraction(k, k.ball) <= KK.REACH_FRACTION
    engine = KK.KickEngine(k)
    assert not engine.start(k.ball)
    assert engine.refused and engine.done and "refused" in engine.reason and "%" in engine.reason
    # the same reachable kick, but the ball 40 cm farther than the kick expects: refused too
    ok = KK.parse_kick(KICK_TEXT, "probe.kick")
    assert KK.KickEngine(ok).start(ok.ball)
    assert not KK.KickEngine(ok).start((ok.ball[0] + 0.4, ok.ball[1]))


def test_engine_runs_shift_kick_return_and_ends_standing():
    k = KK.parse_kick(KICK_TEXT, "probe.kick")
    engine = KK.KickEngine(k)
    assert engine.start(k.ball)
    phases, n = [], 0
    while not engine.done:
        out = engine.update(0.02)
        if not phases or phases[-1] != engine.phase:
            phases.append(engine.phase)
        n += 1
        assert n < 200
    assert phases == ["shift", "kick", "return", "done"]
    assert n * 0.02 == pytest.approx(k.shift_time + k.duration + k.return_time, abs=0.021)
    stand = KK.stand_joints()
    for name in KK.LEFT + KK.RIGHT:
        assert out[name] == pytest.approx(stand[name], abs=1e-6)


def test_kick_choice_by_cost(kicks):
    fwd = kicks["forward_L"]
    # standing exactly where forward_L wants us, goal straight ahead: forward_L, cost ~0
    me, heading = KK.approach_pose(fwd, (0.0, 0.0), 0.0)
    kick, at, face, cost = KK.choose_kick(kicks, me, heading, (0.0, 0.0), 0.0)
    assert kick.name == "forward_L" and cost == pytest.approx(0.0, abs=1e-9) and at == pytest.approx(me)
    # ball straight ahead, a little to the right: the right foot's forward kick is the cheaper one
    kick, *_ = KK.choose_kick(kicks, (-0.15, 0.06), 0.0, (0.0, 0.0), 0.0)
    assert kick.name == "forward_R"
    # the ball in front of us, target 90 degrees to the left: a kick that sends the ball left without turning
    kick, *_ = KK.choose_kick(kicks, (-0.2, 0.0), 0.0, (0.0, 0.0), math.pi / 2)
    assert kick.direction == pytest.approx(math.pi / 2, abs=1e-6)
    # turnCost = |dtheta| / 360 deg: facing 90 degrees away costs 0.25 more
    at, face = KK.approach_pose(fwd, (0.0, 0.0), 0.0)
    assert KK.kick_cost(fwd, at, face + math.pi / 2, (0.0, 0.0), 0.0) == pytest.approx(0.25)
    # ballPenalty: 0.5 when the ball lies on the straight path to the target offset
    me = (0.6, fwd.ball[1] * 0 + at[1])
    assert KK.ball_in_path(np.array(me), at, np.zeros(2))
    expected = float(np.linalg.norm(np.array(me) - at)) + 0.5
    assert KK.kick_cost(fwd, me, face, (0.0, 0.0), 0.0) == pytest.approx(expected)


def test_kickoff_direction_is_5_to_20_degrees_either_side():
    rng = np.random.default_rng(4)
    angles = [math.degrees(KK.kickoff_direction(rng)) for _ in range(200)]
    assert all(5.0 <= abs(a) <= 20.0 for a in angles)
    assert min(angles) < 0 < max(angles)
    # a side given: that side only; a range given: within it
    assert all(5.0 <= math.degrees(KK.kickoff_direction(rng, side=1.0)) <= 20.0 for _ in range(50))
    assert all(-50.0 <= math.degrees(KK.kickoff_direction(rng, side=-2.0, degrees=(40.0, 50.0))) <= -40.0
               for _ in range(50))


def test_parse_errors_name_file_and_line(tmp_path):
    cases = {
        "DIRECTION 0\n": "bad.kick:1: the file must start with 'KICK <name>'",
        "KICK a\nDIRECTION left\n": "bad.kick:2: expected 'DIRECTION <rad>'",
        "KICK a\n\n# c\nBALL 0.1\n": "bad.kick:4: expected 'BALL",
        "KICK a\nKICKS 1\n": "bad.kick:2: unknown statement 'KICKS'",
        "KICK a\nWAYPOINT 0.5 0 0 0 0 0 0\nWAYPOINT 0.4 0 0 0 0 0 0\n": "bad.kick:3: waypoint times u must increase",
        "KICK a\nWAYPOINT 0.5 0 0 0 0 0 0 TANGENT 1 2\n": "bad.kick:2: expected 'WAYPOINT",
    }
    for text, message in cases.items():
        with pytest.raises(KK.KickError) as e:
            KK.parse_kick(text, "bad.kick")
        assert str(e.value).startswith(message), (text, str(e.value))
    with pytest.raises(KK.KickError, match="bad.kick: kick a lacks"):
        KK.parse_kick("KICK a\nDIRECTION 0\n", "bad.kick")
    p = tmp_path / "broken.kick"
    p.write_text(KICK_TEXT.replace("DURATION 0.3", "DURATION 0.3 s"))
    with pytest.raises(KK.KickError, match=re.escape(f"{p}:6: expected 'DURATION <s>'")):
        KK.load_kicks(tmp_path)


def test_parameters_round_trip_and_named_sets(tmp_path):
    k = KK.parse_kick(KICK_TEXT, "probe.kick")
    params = KK.parameter_vector(k)
    names = [p.name for p in params]
    assert len(names) == len(set(names)) == 6 + 6 * len(k.waypoints)
    assert all(p.lo <= p.value <= p.hi for p in params)
    assert KK.with_parameters(k, {p.name: p.value for p in params}) == k
    moved = KK.with_parameters(k, {"wp2.x": -0.12, "duration": 0.25, "ball.y": 0.05})
    assert moved.waypoints[1].pos[0] == -0.12 and moved.duration == 0.25 and moved.ball[1] == 0.05
    with pytest.raises(KK.KickError, match="unknown parameters wp9.x"):
        KK.with_parameters(k, {"wp9.x": 0.0})
    y = tmp_path / "kp.yaml"
    y.write_text("sets:\n  a: {probe: {duration: 0.2, wp1.z: 0.05}}\n  b: {inherit: a, probe: {duration: 0.25}}\n")
    assert KK.load_kick_parameters(y, "b") == {"probe": {"duration": 0.25, "wp1.z": 0.05}}
    with pytest.raises(KK.KickError, match="no kick parameter set 'c'"):
        KK.load_kick_parameters(y, "c")
    kicks = KK.apply_parameter_set({k.name: k, k.mirrored().name: k.mirrored()}, KK.load_kick_parameters(y, "b"))
    assert kicks["probe_L"].duration == 0.25 and kicks["probe_R"].waypoints[0].pos[2] == 0.05


def test_a_kicks_stand_after_it_is_set_per_world_and_not_optimized():
    """`stand` (s the walk stands after the kick) is a kick parameter the sets give per world, outside the optimizer's
    vector; the mirror keeps it. SimSpark's forward kick has 0.5 s (its taker fell walking off straight after it, issue
    19); elsewhere kicks have none."""
    k = KK.parse_kick(KICK_TEXT, "probe.kick")
    assert k.stand == 0.0 and KK.STAND_PARAMETER not in {p.name for p in KK.parameter_vector(k)}
    held = KK.with_parameters(k, {KK.STAND_PARAMETER: 0.5})
    assert held.stand == 0.5 and held.mirrored().stand == 0.5 and held.waypoints == k.waypoints
    for bad in (-0.1, 3.5):
        with pytest.raises(KK.KickError, match="within 0..3 s"):
            KK.with_parameters(k, {KK.STAND_PARAMETER: bad})
    for robot_type in range(5):
        assert all(v.stand == 0.0 for v in KK.load_kick_set("tuned", robot_type=robot_type).values())
    ss = KK.load_kick_set("tuned", simulator="simspark", robot_type=0)
    assert ss["forward_L"].stand == ss["forward_R"].stand == 0.5 and ss["in90_L"].stand == 0.0
    assert KK.load_kick_set("tuned", simulator="simspark", robot_type=1)["forward_L"].stand == 0.0   # type 1's kick


def test_tuned_kicks_load_and_reach_their_own_ball_position(kicks):
    bases = {k.base for k in kicks.values()}
    assert {"forward", "out45", "in45", "out90", "in90", "side", "back"} <= bases
    for k in kicks.values():
        assert KK.reachable_fraction(k, k.ball) > KK.REACH_FRACTION, k.name
    long = KK.load_kick_set("long")                      # inherits tuned, a faster forward kick
    assert long["forward_L"].duration < kicks["forward_L"].duration and long["side_L"] == kicks["side_L"]
    assert long["forward_L"].waypoints[0].rpy == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("simulator", ["villa", "simspark"])
def test_every_robot_type_reaches_every_kick_from_its_own_stand_at_point(simulator):
    """§13.1.1 with heterogeneous legs: from the offset a robot type approaches (its robot_types values), its IK
    reaches the curve with the approach's margin from the near-ball stand. Type 0's offsets refused type 1's forward
    kick (3 v 3 kick-offs never kicked)."""
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), simulator)
    stand = KK.StandPose.from_walk(sets["positioning"])          # villa_strategy's near-ball set
    for robot_type in range(5):
        for k in KK.load_kick_set("tuned", simulator=simulator, robot_type=robot_type).values():
            assert KK.reachable(k, k.ball, stand, robot_type, margin=0.01), (robot_type, k.name)
    own = KK.load_kick_set("tuned", simulator=simulator, robot_type=None)["forward_L"]
    assert not KK.reachable(own, own.ball, stand, 1 if simulator == "villa" else 3, margin=0.01)


def test_robot_type_values_and_their_precedence(tmp_path):
    kicks = tmp_path / "kick_params.yaml"
    kicks.write_text("sets:\n  tuned:\n    forward: {duration: 0.3, ball.x: 0.2}\n    side: {ball.x: 0.05}\n"
                     "robot_types:\n  tuned:\n    1: {forward: {ball.x: 0.25}, side: {ball.x: 0.07}}\n")
    load = functools.partial(KK.load_kick_set, "tuned", params_path=kicks)
    assert load()["forward_L"].ball[0] == pytest.approx(0.2)                  # type 0: no values of its own
    assert load(robot_type=1)["forward_L"].ball[0] == pytest.approx(0.25)
    assert load(robot_type=1)["forward_R"].ball[0] == pytest.approx(0.25)     # the mirror shares them
    assert load(robot_type=1)["forward_L"].duration == pytest.approx(0.3)
    assert load(robot_type=None)["side_L"].ball[0] == pytest.approx(0.05)
    # an overlay that replaces a kick drops the file's type values for it (found for the file's curve) ...
    overlay = tmp_path / "kick_params.simspark.yaml"
    overlay.write_text("sets:\n  tuned:\n    forward: {ball.x: 0.17}\n")
    ss = load(simulator="simspark", robot_type=1)
    assert ss["forward_L"].ball[0] == pytest.approx(0.17) and ss["side_L"].ball[0] == pytest.approx(0.07)
    # ... and its own type values come last
    overlay.write_text("sets:\n  tuned:\n    forward: {ball.x: 0.17}\nrobot_types:\n  tuned:\n"
                       "    1: {forward: {ball.x: 0.19}}\n")
    assert load(simulator="simspark", robot_type=1)["forward_L"].ball[0] == pytest.approx(0.19)
    for text, words in (("robot_types:\n  tuned:\n    7: {forward: {ball.x: 0.2}}\n", "robot types are 0..4"),
                        ("robot_types:\n  tuned:\n    1: {forward: {ball.x: far}}\n", "every value must be a number"),
                        ("robot_types: [1, 2]\n", "expected {set:")):
        kicks.write_text("sets:\n  tuned:\n    forward: {duration: 0.3}\n" + text)
        with pytest.raises(KK.KickError, match=words):
            load(robot_type=1)


def test_a_way_that_does_not_come_nearer_the_ball_does_not_cross_it():
    """§12.4: standing 0.18 m behind the ball, a correction sideways or backwards does not pass through it (counting
    the start point made a player lining up a kick detour 0.35 m to a side for every centimetre, to and fro); a way
    through the ball still does, and one that comes nearer it within the radius."""
    ball = np.zeros(2)
    me = np.array([-0.18, 0.0])
    assert not KK.ball_in_path(me, np.array([-0.18, 0.03]), ball, radius=0.25)     # sideways
    assert not KK.ball_in_path(me, np.array([-0.25, 0.02]), ball, radius=0.25)     # back and aside
    assert KK.ball_in_path(me, np.array([0.3, 0.0]), ball, radius=0.25)            # through it
    assert KK.ball_in_path(np.array([-0.6, 0.1]), np.array([0.6, 0.1]), ball)      # past it within 0.15 m
    assert not KK.ball_in_path(np.array([-0.6, 0.3]), np.array([0.6, 0.3]), ball)  # past it 0.3 m away


def test_kicks_in_play_per_set_and_world(tmp_path):
    """load_in_play: the overlay's list for a set wins over the file's, a set without one has its inherit set's,
    no list at all is None (every kick); an unknown kick or a malformed section is an error naming the file."""
    base = tmp_path / "kick_params.yaml"
    base.write_text("sets:\n  tuned: {}\n  long: {inherit: tuned}\n  other: {}\nin_play:\n  tuned: [forward, in45]\n")
    (tmp_path / "kick_params.simspark.yaml").write_text("in_play:\n  tuned: [forward, in90]\n")
    load = functools.partial(KK.load_in_play, params_path=base)
    assert load("tuned") == {"forward", "in45"}
    assert load("long") == {"forward", "in45"}                                 # inherited
    assert load("tuned", simulator="simspark") == {"forward", "in90"}
    assert load("long", simulator="simspark") == {"forward", "in90"}
    assert load("other") is None and load("other", simulator="simspark") is None
    base.write_text("sets:\n  tuned: {}\nin_play:\n  tuned: [forward, volley]\n")
    with pytest.raises(KK.KickError, match="no kick volley"):
        load("tuned")
    base.write_text("sets:\n  tuned: {}\nin_play: [forward]\n")
    with pytest.raises(KK.KickError, match="in_play: expected"):
        load("tuned")


def test_shipped_kicks_in_play_leave_out_the_kicks_that_fall():
    """villa sim keeps forward and in45 in play (the others fell or were refused in villa bench kick_bench), SimSpark
    forward and in90; the kick-off's forward kick is in play everywhere."""
    assert KK.load_in_play("tuned") == {"forward", "in45"}
    assert KK.load_in_play("tuned", simulator="simspark") == {"forward", "in90"}
