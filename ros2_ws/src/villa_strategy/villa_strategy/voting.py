"""Voting coordination of role mappings: UT Austin Villa 2011 report §11.4.

Each heard (or own) mapping is one vote; a sliding window keeps the votes of the last n time slots (n = team
size). The mapping with the most votes wins; a tie goes to the tied mapping that received the most recent vote.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable


class Voting:
    def __init__(self, window: int) -> None:
        if window < 1:
            raise ValueError("the voting window must hold at least one vote")
        self.votes: deque[tuple[int, Hashable]] = deque(maxlen=window)
        self._clock = 0

    def vote(self, mapping: Hashable) -> None:
        """Record one vote (in arrival order); the oldest falls out of the window."""
        self._clock += 1
        self.votes.append((self._clock, mapping))

    def clear(self) -> None:
        """Forget every vote (the mappings voted for no longer describe where the players stand)."""
        self.votes.clear()

    def winner(self) -> Hashable | None:
        if not self.votes:
            return None
        count: dict[Hashable, int] = {}
        latest: dict[Hashable, int] = {}
        for stamp, m in self.votes:
            count[m] = count.get(m, 0) + 1
            latest[m] = max(latest.get(m, 0), stamp)
        return max(count, key=lambda m: (count[m], latest[m]))
