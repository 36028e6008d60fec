"""SCRAM role assignment: the minimum-maximal-distance mapping of agents to positions, and its prioritized form.

- `assign_dp`: UT Austin Villa 2011 report §11.3.3, Algorithm 1 (n·2^(n-1) mappings evaluated).
- `assign_brute_force`: f_v by enumerating all n! mappings (§11.3.2), the reference the DP must equal.
- Priorities (prioritized role assignment and marking paper §4): a priority value P is added to the cost of reaching
  a high-priority position for agents farther than its priority distance D.
- `select_marking_roles`: the marking paper §5.1-5.2 (who to mark; Hungarian matching of marking positions to the
  formation positions they replace, with scipy's linear_sum_assignment).

A mapping's cost is the tuple of its agent-to-position costs sorted in decreasing order, compared lexicographically
(§11.3.2): minimizing it minimizes the longest distance first, then the next longest, and so on.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment


@dataclass(frozen=True)
class Assignment:
    """position index -> agent index (mapping[k] is the agent of position k), with its sorted cost tuple."""

    mapping: tuple[int, ...]
    cost: tuple[float, ...]

    @property
    def max_cost(self) -> float:
        return self.cost[0] if self.cost else 0.0


def cost_matrix(agents: np.ndarray, positions: np.ndarray, priorities: Sequence[float] | None = None,
                priority_distances: Sequence[float] | None = None) -> np.ndarray:
    """costs[a, p]: distance from agent a to position p, plus position p's priority value P when the agent is
    farther than the position's priority distance D (marking paper §4)."""
    agents = np.asarray(agents, dtype=float).reshape(-1, 2)
    positions = np.asarray(positions, dtype=float).reshape(-1, 2)
    d = np.linalg.norm(agents[:, None, :] - positions[None, :, :], axis=2)
    if priorities is not None:
        pv = np.asarray(priorities, dtype=float)
        pd = np.zeros_like(pv) if priority_distances is None else np.asarray(priority_distances, dtype=float)
        d = d + np.where(d > pd[None, :], pv[None, :], 0.0)
    return d


def _sorted_cost(costs: np.ndarray, mapping: Sequence[int]) -> tuple[float, ...]:
    return tuple(sorted((float(costs[a, p]) for p, a in enumerate(mapping)), reverse=True))


def assign_brute_force(costs: np.ndarray) -> Assignment:
    """§11.3.2: the lexicographically smallest sorted-cost mapping over all n! permutations."""
    costs = np.asarray(costs, dtype=float)
    n = costs.shape[0]
    if costs.shape != (n, n):
        raise ValueError(f"need a square agent x position cost matrix, got {costs.shape}")
    best: Assignment | None = None
    for perm in itertools.permutations(range(n)):
        c = _sorted_cost(costs, perm)
        if best is None or c < best.cost:
            best = Assignment(perm, c)
    return best if best is not None else Assignment((), ())


def assign_dp(costs: np.ndarray) -> Assignment:
    """§11.3.3 Algorithm 1: best mappings of every agent subset to the first k positions, k = 1..n.

    Agent sets are bit masks; best[mask] = (sorted cost, mapping of positions 0..k-1) for |mask| = k.
    """
    costs = np.asarray(costs, dtype=float)
    n = costs.shape[0]
    if costs.shape != (n, n):
        raise ValueError(f"need a square agent x position cost matrix, got {costs.shape}")
    if n == 0:
        return Assignment((), ())
    if not np.all(np.isfinite(costs)):
        raise ValueError("costs must be finite")
    best: dict[int, tuple[tuple[float, ...], tuple[int, ...]]] = {0: ((), ())}
    for k in range(n):                                   # position p_k (0-based)
        layer: dict[int, tuple[tuple[float, ...], tuple[int, ...]]] = {}
        for subset, (sub_cost, sub_map) in best.items():  # every set s of k agents with its f_v mapping
            for a in range(n):
                bit = 1 << a
                if subset & bit:
                    continue
                c = costs[a, k]
                # insert c into the decreasing tuple: the sorted cost of (a -> p_k) ∪ m_0
                i = 0
                while i < len(sub_cost) and sub_cost[i] >= c:
                    i += 1
                cost = sub_cost[:i] + (float(c),) + sub_cost[i:]
                key = subset | bit
                old = layer.get(key)
                if old is None or cost < old[0]:
                    layer[key] = (cost, sub_map + (a,))
        best = layer
    cost, mapping = best[(1 << n) - 1]
    return Assignment(mapping, cost)


def assign(agents, positions, priorities=None, priority_distances=None) -> Assignment:
    """Agents (n x 2) to positions (n x 2), SCRAM MMD with optional priorities; n up to ~12 in real time."""
    return assign_dp(cost_matrix(agents, positions, priorities, priority_distances))


# --- marking (prioritized role assignment and marking paper §5) -------------------------------------------------
@dataclass(frozen=True)
class MarkingParams:
    shot_distance: float = 8.0        # m: opponent close enough to our goal to shoot (rule 1)
    min_ball_distance: float = 1.5    # m: not too close to the ball (rule 3)
    max_behind_ball: float = 2.0      # m: not too far behind the ball, toward their goal (rule 4)
    mark_distance: float = 1.5        # m: marking position from the opponent toward the centre of our goal (§5.2)
    priority: float = 100.0           # P_m (§5.3)
    priority_distance: float = 3.0    # D_m (§5.3)


def opponents_to_mark(opponents: np.ndarray, ball: np.ndarray, own_goal: np.ndarray,
                      params: MarkingParams = MarkingParams()) -> list[int]:
    """§5.1: indices of opponents in dangerous positions (near our goal, not the closest to the ball, not too
    close to the ball, not far behind it). Team-relative field frame: our goal at -x."""
    opponents = np.asarray(opponents, dtype=float).reshape(-1, 2)
    if len(opponents) == 0:
        return []
    ball = np.asarray(ball, dtype=float)
    to_ball = np.linalg.norm(opponents - ball, axis=1)
    closest = int(np.argmin(to_ball))
    out = []
    for i, o in enumerate(opponents):
        if np.linalg.norm(o - own_goal) > params.shot_distance:
            continue
        if i == closest or to_ball[i] < params.min_ball_distance:
            continue
        if o[0] > ball[0] + params.max_behind_ball:  # "behind the ball" from the attacker's view: toward +x
            continue
        out.append(i)
    return out


def marking_positions(opponents: np.ndarray, own_goal: np.ndarray, params: MarkingParams = MarkingParams()):
    """§5.2: mark_distance from each opponent along the line to the centre of our goal."""
    opponents = np.asarray(opponents, dtype=float).reshape(-1, 2)
    v = own_goal[None, :] - opponents
    n = np.linalg.norm(v, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return opponents + params.mark_distance * v / n


def select_marking_roles(formation: np.ndarray, marks: np.ndarray, replaceable: Sequence[int]) -> dict[int, int]:
    """§5.2: Hungarian minimum-sum matching of marking positions to replaceable formation positions.

    Returns {formation index -> marking index}; surplus marking positions (more marks than replaceable roles)
    stay unassigned, as if matched to dummy nodes.
    """
    marks = np.asarray(marks, dtype=float).reshape(-1, 2)
    if len(marks) == 0 or not replaceable:
        return {}
    rep = list(replaceable)
    f = np.asarray(formation, dtype=float)[rep]
    d = np.linalg.norm(f[:, None, :] - marks[None, :, :], axis=2)
    rows, cols = linear_sum_assignment(d)
    return {rep[r]: int(c) for r, c in zip(rows, cols, strict=True)}


class Hysteresis:
    """Keep the previous mapping unless the new one is better by a margin (the paper's hysteresis against
    thrashing under noisy positions): the new maximum cost must be lower by `margin` metres."""

    def __init__(self, margin: float = 0.25) -> None:
        self.margin = margin
        self.previous: tuple[int, ...] | None = None

    def choose(self, costs: np.ndarray, candidate: Assignment) -> Assignment:
        prev = self.previous
        if prev is not None and sorted(prev) == list(range(len(candidate.mapping))):
            old = Assignment(prev, _sorted_cost(costs, prev))
            if old.max_cost - candidate.max_cost < self.margin:
                return old
        self.previous = candidate.mapping
        return candidate
