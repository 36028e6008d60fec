"""SimSpark's say/hear rules (SayEffector / HearPerceptor, rcssserver3d 0.7.3), for the embedded simulator.

Facts: shared/simspark/SIMSPARK_FACTS.md ("hear") and logs/README.md (teams_3v3_hear): messages of at most
20 characters from 0x21-0x7E without parentheses; heard 2 cycles after the say by every player within
50 m, the speaker as "self"; direction = bearing from listener to speaker in the listener team's field
frame (rotated 180 degrees for the right team), no noise; each listener has one channel for its own team
and one for the opponents, each taking at most one message per 2 cycles (the first speaker wins).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

MAX_LENGTH = 20
HEAR_RANGE = 50.0
DELAY_CYCLES = 2
CHANNEL_CYCLES = 2


def is_valid_say(message: str) -> bool:
    """True when SimSpark would broadcast the message unchanged."""
    return 0 < len(message) <= MAX_LENGTH and all(0x21 <= ord(c) <= 0x7E and c not in "()" for c in message)


@dataclass(frozen=True)
class Listener:
    team: str
    side: str               # "left" or "right"
    position: tuple[float, float]


@dataclass(frozen=True)
class Heard:
    team: str               # the speaker's team label
    game_time: float        # s, when it was said
    from_self: bool
    direction_deg: float    # bearing to the speaker in the listener team's frame (nan when from_self)
    message: str

    def to_sexp(self) -> str:
        direction = "self" if self.from_self else f"{self.direction_deg:.2f}"
        return f"(hear {self.team} {self.game_time:.2f} {direction} {self.message})"


@dataclass
class _Utterance:
    cycle: int
    speaker: Hashable
    team: str
    position: tuple[float, float]
    game_time: float
    message: str


@dataclass
class SayHearModel:
    """Collects says and hands each listener what SimSpark would let it hear."""

    pending: list[_Utterance] = field(default_factory=list)
    _channel_free: dict[tuple[Hashable, bool], int] = field(default_factory=dict)
    dropped: int = 0

    def say(self, cycle: int, speaker: Hashable, team: str, position, game_time: float, message: str) -> bool:
        if not is_valid_say(message):
            self.dropped += 1
            return False
        self.pending.append(_Utterance(cycle, speaker, team, (float(position[0]), float(position[1])),
                                       game_time, message))
        return True

    def deliver(self, cycle: int, listeners: Mapping[Hashable, Listener]) -> dict[Hashable, list[Heard]]:
        """Messages due at this cycle, per listener, in the order they were said."""
        due = [u for u in self.pending if cycle - u.cycle >= DELAY_CYCLES]
        self.pending = [u for u in self.pending if cycle - u.cycle < DELAY_CYCLES]
        out: dict[Hashable, list[Heard]] = {key: [] for key in listeners}
        for u in due:
            for key, lst in listeners.items():
                if key == u.speaker:
                    out[key].append(Heard(u.team, u.game_time, True, math.nan, u.message))
                    continue
                dx, dy = u.position[0] - lst.position[0], u.position[1] - lst.position[1]
                if math.hypot(dx, dy) > HEAR_RANGE:
                    continue
                channel = (key, u.team == lst.team)
                if self._channel_free.get(channel, -1) > cycle:
                    continue  # this channel already carried a message within the last 2 cycles
                self._channel_free[channel] = cycle + CHANNEL_CYCLES
                if lst.side == "right":
                    dx, dy = -dx, -dy
                out[key].append(Heard(u.team, u.game_time, False, math.degrees(math.atan2(dy, dx)), u.message))
        return out
