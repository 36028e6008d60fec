"""SCRAM role assignment: the Figure 12 example, DP == brute force, Appendix A properties, marking selection."""

import itertools
import math

import numpy as np
import pytest

from villa_strategy.role_assignment import (
    Hysteresis,
    MarkingParams,
    assign,
    assign_brute_force,
    assign_dp,
    cost_matrix,
    marking_positions,
    opponents_to_mark,
    select_marking_roles,
)

# Figure 12 of the report: agents A1..A3 and positions P1..P3 whose distances are
# A1: P1 1, P2 2, P3 3;  A2: P1 1, P2 sqrt2, P3 sqrt5;  A3: P1 sqrt2, P2 1, P3 sqrt2
FIG12 = np.array([[1.0, 2.0, 3.0], [1.0, math.sqrt(2), math.sqrt(5)], [math.sqrt(2), 1.0, math.sqrt(2)]])


def test_figure_12_lowest_cost_mapping():
    a = assign_dp(FIG12)
    # the report's first row: A2->P2 (sqrt2), A3->P3 (sqrt2), A1->P1 (1)
    assert a.mapping == (0, 1, 2)
    assert a.cost == pytest.approx((math.sqrt(2), math.sqrt(2), 1.0))
    # and the full ordering of Figure 12 starts with the same mapping
    costs = sorted(tuple(sorted((FIG12[a_, p] for p, a_ in enumerate(perm)), reverse=True))
                   for perm in itertools.permutations(range(3)))
    assert costs[0] == a.cost and costs[1] == pytest.approx((2.0, math.sqrt(2), 1.0))


@pytest.mark.parametrize("n", range(1, 9))
def test_dp_equals_brute_force_on_random_instances(n):
    rng = np.random.default_rng(n)
    for _ in range(30 if n < 7 else 3):
        agents, targets = rng.uniform(-10, 10, (n, 2)), rng.uniform(-10, 10, (n, 2))
        costs = cost_matrix(agents, targets)
        dp, bf = assign_dp(costs), assign_brute_force(costs)
        assert dp.mapping == bf.mapping and dp.cost == bf.cost


def _min_pair_distance(a1, t1, a2, t2, speed=1.0, steps=400) -> float:
    """Closest approach of two agents walking at the same speed to their targets (and stopping there)."""
    d1, d2 = np.linalg.norm(t1 - a1), np.linalg.norm(t2 - a2)
    horizon = max(d1, d2) / speed
    best = np.inf
    for t in np.linspace(0.0, horizon, steps):
        p1 = a1 + (t1 - a1) * min(1.0, speed * t / max(d1, 1e-9))
        p2 = a2 + (t2 - a2) * min(1.0, speed * t / max(d2, 1e-9))
        best = min(best, float(np.linalg.norm(p1 - p2)))
    return best


def test_appendix_a_collision_free_and_dynamically_consistent():
    """Appendix A: no pair of the chosen mapping would do better by swapping targets (the argument behind collision
    freedom); walking at equal speeds no two agents meet; moving along the paths keeps the mapping."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = 5
        agents, targets = rng.uniform(-10, 10, (n, 2)), rng.uniform(-10, 10, (n, 2))
        costs = cost_matrix(agents, targets)
        m = assign(agents, targets).mapping
        for p, q in itertools.combinations(range(n), 2):
            a, b = m[p], m[q]
            kept = sorted((costs[a, p], costs[b, q]), reverse=True)
            swapped = sorted((costs[a, q], costs[b, p]), reverse=True)
            assert kept <= swapped
            assert _min_pair_distance(agents[a], targets[p], agents[b], targets[q]) > 1e-3
        for step in np.linspace(0.1, 1.0, 5):  # all move toward their targets at the same speed
            moved = agents.copy()
            for p, a in enumerate(m):
                v = targets[p] - agents[a]
                d = np.linalg.norm(v)
                moved[a] = agents[a] + v / max(d, 1e-9) * min(d, step * 3.0)
            assert assign(moved, targets).mapping == m


def test_dp_mapping_count_is_n_2_pow_n_minus_1():
    # the DP visits every (subset of k-1 agents, agent) pair once per k: sum_k C(n-1,k-1) per agent = n 2^(n-1)
    n = 8
    assert sum(math.comb(n - 1, k - 1) for k in range(1, n + 1)) * n == n * 2 ** (n - 1) == 1024


def test_priority_brings_closest_agent_to_high_priority_position_first():
    agents = np.array([[0.0, 0.0], [3.0, 0.0]])
    targets = np.array([[4.0, 0.0], [-1.0, 0.0]])      # H = targets[0] (priority), L = targets[1]
    plain = assign(agents, targets)
    prio = assign(agents, targets, priorities=[100.0, 0.0], priority_distances=[0.5, 0.0])
    assert prio.mapping[0] == 1                          # agent 2 (1 m from H) takes H
    assert plain.max_cost <= prio.max_cost - 100 + 4  # without priorities the makespan is what counts


def test_bad_inputs():
    with pytest.raises(ValueError, match="square"):
        assign_dp(np.ones((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        assign_dp(np.array([[np.nan]]))
    assert assign_dp(np.zeros((0, 0))).mapping == ()


def test_marking_who_where_and_hungarian_selection():
    own_goal = np.array([-15.0, 0.0])
    ball = np.array([-6.0, 3.0])
    opponents = np.array([[-6.3, 3.1], [-10.0, -2.0], [-11.0, 2.0], [5.0, 0.0]])
    marked = opponents_to_mark(opponents, ball, own_goal)
    assert marked == [1, 2]                       # 0 is on the ball, 3 is far from our goal
    marks = marking_positions(opponents[marked], own_goal)
    for o, m in zip(opponents[marked], marks, strict=True):
        assert np.linalg.norm(m - o) == pytest.approx(MarkingParams().mark_distance)
        assert np.linalg.norm(m - own_goal) < np.linalg.norm(o - own_goal)
    formation = np.array([[-11.0, -1.5], [-9.0, 0.0], [-12.0, 2.5], [0.0, 0.0]])
    chosen = select_marking_roles(formation, marks, replaceable=[0, 1, 2])
    assert chosen == {0: 0, 2: 1}                 # nearest formation spots give way to the marks
    assert select_marking_roles(formation, np.zeros((3, 2)), replaceable=[3]) == {3: 0}  # surplus marks unassigned


def test_hysteresis_keeps_mapping_unless_clearly_better():
    h = Hysteresis(margin=0.5)
    costs = np.array([[1.0, 2.0], [2.0, 1.0]])
    first = h.choose(costs, assign_dp(costs))
    assert first.mapping == (0, 1)
    costs2 = np.array([[1.6, 1.5], [1.5, 1.6]])        # the other mapping is better by only 0.1 m
    assert h.choose(costs2, assign_dp(costs2)).mapping == (0, 1)
    costs3 = np.array([[5.0, 1.0], [1.0, 5.0]])        # much better: switch
    assert h.choose(costs3, assign_dp(costs3)).mapping == (1, 0)
