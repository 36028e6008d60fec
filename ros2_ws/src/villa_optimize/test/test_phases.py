"""OptPhases (§10.4.2) and the §10.3 rewards on synthetic trajectories, with hand-computed values."""

import math

import pytest

from villa_motion.walk import WalkParams
from villa_optimize.phases import (
    FALL,
    DribbleOptPhase,
    MoveOptPhase,
    Sample,
    StopOptPhase,
    TurnOptPhase,
    WaypointOptPhase,
    normalized_walk,
    turn_input,
)
from villa_optimize.tasks import Episode, Observation, Task, get_task


def feed(phase, samples):
    phase.start(samples[0])
    over = False
    for s in samples[1:]:
        over = phase.observe(s)
        if over:
            break
    return over


def line(t0, t1, x0, x1, y=0.0, n=11):
    return [Sample(t0 + (t1 - t0) * i / (n - 1), x0 + (x1 - x0) * i / (n - 1), y, 0.0) for i in range(n)]


def test_waypoint_not_reached_rewards_distance_toward_target():
    p = WaypointOptPhase((3.0, 0.0), duration=4.0)
    assert feed(p, line(0.0, 4.0, 0.0, 2.0))          # over at the maximum duration
    assert p.t_taken is None
    assert p.utility() == pytest.approx(2.0)           # d_target = 3 - 1


def test_waypoint_reached_extrapolates_over_the_whole_phase():
    p = WaypointOptPhase((2.0, 0.0), duration=4.0, reach=0.15)
    assert feed(p, line(0.0, 2.0, 0.0, 2.0, n=21))     # 1 m/s: within 0.15 m at t = 1.9 s (x = 1.9)
    assert p.completed
    # d_target = 2 - 0.1 = 1.9 m in t_taken = 1.9 s of t_total = 4 s: 1.9 * 4 / 1.9
    assert p.t_taken == pytest.approx(1.9)
    assert p.utility() == pytest.approx(4.0)


def test_stop_phase_punishes_path_length_and_falls():
    p = StopOptPhase(1.0)
    samples = [Sample(0.0, 0, 0, 0), Sample(0.5, 0.3, 0.4, 0), Sample(1.0, 0.3, 0.0, 0)]
    feed(p, samples)
    assert p.utility() == pytest.approx(-(0.5 + 0.4))
    p.fall()
    assert p.utility() == pytest.approx(-0.9 - FALL)


def test_move_phase_projects_on_the_commanded_direction():
    p = MoveOptPhase((0.0, 1.0, 0.0), 2.0)              # sideways to the left
    p.command(Sample(0, 0, 0, 0), 0.6, 0.3)
    feed(p, [Sample(0.0, 0.0, 0.0, math.pi / 2), Sample(2.0, -1.0, 0.5, math.pi / 2)])
    # facing +y, left is -x: moved 1 m along -x
    assert p.utility() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        MoveOptPhase((0.0, 0.0, 1.0), 1.0)
    with pytest.raises(ValueError):
        StopOptPhase(0.0)


def test_dribble_phase_rewards_ball_progress_toward_goal():
    p = DribbleOptPhase((10.0, 0.0), 30.0)
    p.start(Sample(0.0, 0.0, 0.0, 0.0, (1.0, 0.0)))
    p.observe(Sample(1.0, 0.5, 0.0, 0.0, (1.5, 0.0)))
    p.observe(Sample(2.0, 1.0, 0.0, 0.0, (2.0, 0.0)))
    assert p.utility() == pytest.approx(1.0)
    assert p.observe(Sample(2.1, 1.0, 0.0, 0.0, (8.0, 0.0)))   # the referee moved the ball: phase over
    assert p.utility() == pytest.approx(1.0)


def test_dribble_phase_commands_the_games_dribble_in_the_field_frame():
    from villa_motion.kick import StandPose
    from villa_strategy import behaviours as B

    p = DribbleOptPhase((21.0, 0.0), 30.0, origin=(-6.0, 0.0, 0.0))
    s = Sample(0.0, 0.1, 0.2, 0.3, (1.4, 0.5))          # course frame: the field's (-5.9, 0.2) facing 0.3 rad
    p.start(s)
    cmd = p.command(s, 0.6, 0.3)
    _, order = B.dribble((-5.9, 0.2), 0.3, (-4.6, 0.5), body=B.Body(0, {"": (0.6, 0.3)}, {"": StandPose()}))
    assert (cmd.x, cmd.y, cmd.theta) == pytest.approx((order.x, order.y, order.theta))
    assert not cmd.stand and cmd.distance > 0


def test_walk_inputs_of_section_10_4_1():
    assert normalized_walk(0.0, 0.6, 0.3) == pytest.approx((1.0, 0.0))
    assert normalized_walk(math.pi / 2, 0.6, 0.3) == pytest.approx((0.0, 1.0), abs=1e-9)
    x, y = normalized_walk(math.pi / 4, 0.6, 0.3)        # equal distances: y saturates (slower sideways)
    assert (x, y) == pytest.approx((0.5, 1.0))
    assert turn_input(math.pi / 2) == pytest.approx(0.5)
    assert turn_input(-4.0) == -1.0


def _episode_with_trajectory(fall_at: float | None, n_phases: int = 3):
    """An Episode of a synthetic task fed a synthetic trajectory: walk +x at 0.5 m/s, fall at `fall_at` s."""
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path

    task = Task("synthetic", lambda: [WaypointOptPhase((5.0 * (i + 1), 0.0), 2.0) for i in range(n_phases)],
                (-5.0, 0.0, 0.0), "goToTarget", settle=0.2)
    ep = Episode(task, load_parameter_sets(config_path("villa_motion", "walk_params.yaml")))
    t = 0.0
    while not ep.done:
        fallen = fall_at is not None and t >= 0.2 + fall_at
        x = -5.0 + 0.5 * max(0.0, t - 0.2)
        ep.step(Observation(t, x, 0.0, 0.0, 0.0 if fallen else 1.0, {}))
        t += 0.02
        assert t < 20
    return ep.result()


def test_fall_penalty_ordering():
    none = _episode_with_trajectory(None)
    late = _episode_with_trajectory(5.0)
    early = _episode_with_trajectory(1.0)
    assert not none.fell and late.fell and early.fell
    assert none.fitness == pytest.approx(3.0, abs=0.05)        # 3 phases x 2 s x 0.5 m/s
    assert none.fitness > late.fitness > early.fitness
    # early: phase 1 ~0.5 m - 5, phases 2 and 3 not started: -5 each
    assert early.fitness == pytest.approx(0.5 - 3 * FALL, abs=0.05)
    assert early.fall_time == pytest.approx(1.0, abs=0.03)


def test_tasks_registry():
    assert get_task("goToTarget").duration() == pytest.approx(61.0)      # 1 s settling + 60 s of phases
    with pytest.raises(ValueError, match="unknown walk task"):
        get_task("nope")
    assert get_task("goToTarget").truncated(4.0).duration() == pytest.approx(5.0)


def test_turn_phase_rewards_the_heading_turned_the_commanded_way_less_the_drift():
    # 3 rad to the left over 60 cycles, across the +-pi seam, while drifting 0.1 m
    samples = [Sample(0.02 * i, 0.1 * i / 60, 0.0, math.remainder(2.0 + 0.05 * i, 2 * math.pi)) for i in range(61)]
    left = TurnOptPhase(1.0, 2.0)
    feed(left, samples)
    assert left.reward() == pytest.approx(3.0 - 2.0 * 0.1)
    right = TurnOptPhase(-0.5, 2.0, drift=0.0)
    feed(right, samples)
    assert right.reward() == pytest.approx(-3.0)              # turned the wrong way
    assert right.command(samples[0], 1.0, 1.0).theta == -0.5
    with pytest.raises(ValueError):
        TurnOptPhase(0.0, 1.0)


def test_sprint10_walks_ten_seconds_from_a_stop_then_stops_and_turns_to_a_target_aside():
    t = get_task("sprint10")
    kinds = [p.kind for p in t.make_phases()]
    assert kinds == ["waypoint", "stop", "waypoint"] and t.sprint_rule and t.optimized_set == "sprint"
    assert t.duration() == pytest.approx(1.0 + 10.0 + 1.5 + 2.5) and t.space == "sprint_space.yaml"
    forward = t.make_phases()[0]
    assert math.hypot(*forward.target) - 10.0 * 1.4 > 1.0      # never within the sprint rule's 1 m: a full-speed stop
    turn = get_task("turnInPlace")
    kinds = ["turn", "move", "turn", "stop", "turn", "move", "turn", "move", "stop"]
    assert [p.kind for p in turn.make_phases()] == kinds
    assert turn.optimized_set == "turn" and turn.walk_rule and turn.space == "turn_space.yaml"


def test_sprint_stops_is_sprint10_after_two_bursts_of_stop_and_go():
    t, s10 = get_task("sprintStops"), get_task("sprint10")
    phases = t.make_phases()
    assert [p.kind for p in phases] == ["waypoint", "stop"] * 2 + [p.kind for p in s10.make_phases()]
    assert [p.duration for p in phases[:4]] == [1.0] * 4
    assert phases[0].target == phases[2].target == phases[4].target      # every forward walk toward the far target
    assert t.duration() == pytest.approx(s10.duration() + 4.0)
    assert (t.start, t.optimized_set, t.sprint_rule, t.space) == (s10.start, "sprint", True, s10.space)


def _turn_sense(points, centre):
    """+1 where consecutive points go counter-clockwise around `centre`, -1 clockwise."""
    out = []
    for (ax, ay), (bx, by) in zip(points, points[1:], strict=False):
        cross = (ax - centre[0]) * (by - centre[1]) - (ay - centre[1]) * (bx - centre[0])
        out.append(math.copysign(1, cross))
    return out


def test_go_to_target_walks_spirals_both_ways_and_alternates_left_right():
    """Figure 4's spiral both clockwise and counter-clockwise, and quick alternation between left and right."""
    phases = get_task("goToTarget").make_phases()
    targets = [p.target for p in phases if isinstance(p, WaypointOptPhase)]
    i = targets.index((9.0, -1.0))                         # the extreme change of direction ends here
    cw, ccw = targets[i + 1:i + 5], targets[i + 5:i + 9]
    assert all(math.hypot(x - 9.0, y + 2.0) == pytest.approx(1.0) for x, y in cw)
    assert all(math.hypot(x - 9.0, y) == pytest.approx(1.0) for x, y in ccw)
    assert set(_turn_sense([targets[i], *cw], (9.0, -2.0))) == {-1}              # clockwise round (9, -2)
    assert set(_turn_sense([cw[-1], *ccw], (9.0, 0.0))) == {1}                   # counter-clockwise round (9, 0)
    sideways = [p for p in phases if isinstance(p, WaypointOptPhase) and p.face == 0.0 and p.duration == 1.0]
    ys = [p.target[1] for p in sideways]
    assert len(ys) == 4 and all((a - b) * (b - c) < 0 for a, b, c in zip(ys, ys[1:], ys[2:], strict=False))
    assert isinstance(phases[-1], StopOptPhase)


def test_jittered_task_moves_the_placement_not_the_course():
    import numpy as np

    task = get_task("goToTarget")
    rng = np.random.default_rng(7)
    seen = []
    for _ in range(50):
        j = task.jittered(rng)
        x, y, th = j.placement()
        assert j.start == task.start
        assert abs(x - task.start[0]) <= 0.05 and abs(y - task.start[1]) <= 0.05
        assert abs(th - task.start[2]) <= math.radians(5.0) + 1e-12
        seen.append((x, y, th))
    assert len(set(seen)) == 50 and task.placement() == task.start
    # the course frame is the nominal start: a robot placed 4 cm to the left is 4 cm left in the course
    ep = Episode(task.jittered(rng), {"goToTarget": WalkParams()})
    s = ep.to_course(Observation(0.0, task.start[0], task.start[1] + 0.04, 0.0, 1.0, {}))
    assert (s.x, s.y) == pytest.approx((0.0, 0.04))


def test_positioning_task_starts_around_the_ball_and_cycles_through_the_starts():
    """§10.3.3 driveBallToGoal2: 15 s of dribbling from a variety of positions and orientations around the ball."""
    import numpy as np

    task = get_task("positioning")
    assert task.duration() == pytest.approx(16.0) and task.optimized_set == "positioning" and task.game_sets
    assert task.space == "positioning_space.yaml"
    rng = np.random.default_rng(3)
    assert task.trial(0, rng) is task                        # trial 0: the nominal start exactly
    n = len(task.variants) + 1
    trials = [task.trial(i, rng) for i in range(2 * n)]
    for i, t in enumerate(trials[1:], start=1):
        base = (0.0, 0.0, 0.0) if i % n == 0 else task.variants[i % n - 1]
        assert t.start == task.start and t.ball == task.ball
        assert all(abs(a - b) <= lim + 1e-12 for a, b, lim in
                   zip(t.offset, base, (0.05, 0.05, math.radians(5.0)), strict=True))
    ball = np.array(task.ball)
    dists = [np.linalg.norm(np.array(t.placement()[:2]) - ball) for t in trials[:n]]
    assert min(dists) > 0.3 and max(dists) > 1.5                          # around the ball, near and farther
    assert trials[1].offset != trials[1 + n].offset                        # fresh jitter on each cycle
    # the other tasks keep one start: trial i > 0 is a plain jitter of it
    g = get_task("goToTarget")
    assert all(abs(v) <= 0.09 for v in g.trial(1, rng).offset)


def test_positioning_episode_walks_each_order_in_the_set_the_game_names():
    """The candidate (positioning) near the ball, goToTarget / sprint away from it: the game's §10.3 rule."""
    from dataclasses import replace

    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path

    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    sets["positioning"] = replace(sets["positioning"], max_step_x=0.05)      # tell the candidate apart
    task = get_task("positioning")
    used = []
    for x0, want in ((-6.0, "positioning"), (-9.0, {"goToTarget", "sprint"})):   # 0.4 m and 3.4 m behind the ball
        ep = Episode(replace(task, settle=0.0), sets)
        ep.step(Observation(0.0, x0, 0.0, 0.0, 1.0, {}, ball=task.ball))
        ep.step(Observation(0.02, x0, 0.0, 0.0, 1.0, {}, ball=task.ball))
        used.append(ep.walk.set_name)
        assert ep.walk.set_name in (want if isinstance(want, set) else {want})
    # without game_sets the dribble drives one set (driveBallToGoal: the base set, the task's set unknown)
    ep = Episode(replace(get_task("driveBallToGoal"), settle=0.0), sets)
    ep.step(Observation(0.0, -6.0, 0.0, 0.0, 1.0, {}, ball=(-5.6, 0.0)))
    ep.step(Observation(0.02, -6.0, 0.0, 0.0, 1.0, {}, ball=(-5.6, 0.0)))
    assert ep.walk.set_name == "goToTarget"


def test_held_out_starts_are_the_same_every_time_and_none_is_the_nominal_start(tmp_path):
    """WalkEvaluator.heldout_task(i): start i from a stream of its own, so the --holdout figure of every generation
    walks the same starts (comparable across generations) and no training stream draws them."""
    from villa_optimize.walk_objective import WalkEvaluator, WalkObjective

    objective = WalkObjective.for_task("sprint10", tmp_path)
    ev = WalkEvaluator.__new__(WalkEvaluator)                 # no world: the starts alone
    ev.objective, ev.task = objective, objective.task()
    starts = [ev.heldout_task(i).offset for i in range(4)]
    assert starts == [ev.heldout_task(i).offset for i in range(4)]
    assert len(set(starts)) == 4 and (0.0, 0.0, 0.0) not in starts
    x, y, th = starts[0]
    assert max(abs(x), abs(y)) <= 0.05 and abs(th) <= math.radians(5) + 1e-12
