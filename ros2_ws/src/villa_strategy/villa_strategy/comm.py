"""The say/hear codec: UT Austin Villa 2011 report §6 (Table 1), adapted to 11 players.

20 characters of a 64-character alphabet (all legal in SimSpark's say: printable ASCII, no space or parentheses)
carry 120 bits:

    signature 16 | server time in cycles 16 | side 1 | fallen 1 | ball x 10 | ball y 10 | self x 10 | self y 10 |
    sees ball 1 | trusted 1 | role vector 44 (11 roles x 4 bits: the unum playing each role, 0 = none)

(Table 1 has 36 bits of role vector for 9 players and 8 spare bits; 11 players use all 120.)
The bits are scrambled (a fixed permutation and a keystream derived from the team key) before sending.
A heard message is accepted only with our signature, our side, and a server time within `max_age` of now:
messages from the other team, stale or garbled ones are rejected, never trusted.
Time slicing (§11.4): player u speaks in the say slots (every 2nd cycle) where slot % team_size == u - 1.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+-"
assert len(ALPHABET) == 64 and len(set(ALPHABET)) == 64
_INDEX = {c: i for i, c in enumerate(ALPHABET)}
MESSAGE_CHARS = 20
BITS = 6 * MESSAGE_CHARS            # 120
CYCLE = 0.02                        # s, one server cycle
ROLES = 11
X_RANGE = (-16.0, 16.0)             # m: the field (30 x 20 m) plus a margin, in 10 bits (3.1 cm steps)
Y_RANGE = (-11.0, 11.0)             # m (2.2 cm steps)

# (name, bits) in message order: Table 1 adapted to 11 players
LAYOUT = (("signature", 16), ("time", 16), ("side", 1), ("fallen", 1), ("ball_x", 10), ("ball_y", 10),
          ("self_x", 10), ("self_y", 10), ("sees_ball", 1), ("trusted", 1), ("roles", 4 * ROLES))
assert sum(b for _, b in LAYOUT) == BITS


class CommError(ValueError):
    """A heard message that is not ours, too old, or garbled; the reason says which."""


@dataclass(frozen=True)
class TeamMessage:
    time: float                                 # s, server (game) time the sender stamped
    side_left: bool                             # the sender plays on the left
    fallen: bool
    ball: tuple[float, float]                   # m, sender's ball estimate, team-relative field frame
    position: tuple[float, float]               # m, sender's own position
    sees_ball: bool                             # saw the ball in its last vision frame
    trusted: bool                               # the sender believes it is localized
    roles: tuple[int, ...] = (0,) * ROLES       # unum assigned to each role slot (0 = none)


def _quantize(v: float, lo: float, hi: float, bits: int) -> int:
    n = (1 << bits) - 1
    return int(round((min(max(v, lo), hi) - lo) / (hi - lo) * n))


def _dequantize(q: int, lo: float, hi: float, bits: int) -> float:
    return lo + q * (hi - lo) / ((1 << bits) - 1)


class Codec:
    """Encodes and decodes TeamMessages for one team key (the signature and the scrambling derive from it)."""

    def __init__(self, key: str = "villa", max_age: float = 0.5) -> None:
        digest = hashlib.sha256(key.encode()).digest()
        self.signature = int.from_bytes(digest[:2], "big")
        rng = np.random.default_rng(int.from_bytes(digest[2:10], "big"))
        self._perm = rng.permutation(BITS)
        self._inverse = np.argsort(self._perm)
        self._stream = rng.integers(0, 2, BITS, dtype=np.uint8)
        self.max_age = max_age

    # --- bits <-> text ----------------------------------------------------------------------------------
    def _scramble(self, bits: np.ndarray) -> np.ndarray:
        return (bits ^ self._stream)[self._perm]

    def _unscramble(self, bits: np.ndarray) -> np.ndarray:
        return bits[self._inverse] ^ self._stream

    @staticmethod
    def _to_text(bits: np.ndarray) -> str:
        groups = bits.reshape(MESSAGE_CHARS, 6)
        values = groups @ (1 << np.arange(5, -1, -1))
        return "".join(ALPHABET[int(v)] for v in values)

    @staticmethod
    def _from_text(text: str) -> np.ndarray:
        if len(text) != MESSAGE_CHARS:
            raise CommError(f"length {len(text)}, expected {MESSAGE_CHARS}")
        try:
            values = np.array([_INDEX[c] for c in text])
        except KeyError as e:
            raise CommError(f"character {e.args[0]!r} outside the alphabet") from None
        return ((values[:, None] >> np.arange(5, -1, -1)) & 1).astype(np.uint8).reshape(-1)

    # --- fields <-> bits --------------------------------------------------------------------------------
    def encode(self, m: TeamMessage) -> str:
        if len(m.roles) != ROLES or any(not 0 <= r <= 15 for r in m.roles):
            raise ValueError(f"roles must be {ROLES} unums 0..15, got {m.roles}")
        values = {"signature": self.signature, "time": int(round(m.time / CYCLE)) & 0xFFFF,
                  "side": int(m.side_left), "fallen": int(m.fallen),
                  "ball_x": _quantize(m.ball[0], *X_RANGE, 10), "ball_y": _quantize(m.ball[1], *Y_RANGE, 10),
                  "self_x": _quantize(m.position[0], *X_RANGE, 10), "self_y": _quantize(m.position[1], *Y_RANGE, 10),
                  "sees_ball": int(m.sees_ball), "trusted": int(m.trusted),
                  "roles": sum(r << (4 * (ROLES - 1 - i)) for i, r in enumerate(m.roles))}
        bits = []
        for name, n in LAYOUT:
            v = values[name]
            bits.extend((v >> (n - 1 - i)) & 1 for i in range(n))
        return self._to_text(self._scramble(np.array(bits, dtype=np.uint8)))

    def decode(self, text: str, now: float, our_side_left: bool) -> TeamMessage:
        """The message, or CommError: not our signature, the other side, stale (older than max_age), garbled."""
        bits = self._unscramble(self._from_text(text))
        fields, i = {}, 0
        for name, n in LAYOUT:
            v = 0
            for b in bits[i:i + n]:
                v = (v << 1) | int(b)
            fields[name] = v
            i += n
        if fields["signature"] != self.signature:
            raise CommError("signature mismatch (another team, or garbled)")
        if bool(fields["side"]) != our_side_left:
            raise CommError("sent from the other side (our own team name on the opponents' side?)")
        now_cycles = int(round(now / CYCLE))
        age = ((now_cycles - fields["time"]) & 0xFFFF) * CYCLE
        if age > self.max_age:
            raise CommError(f"stale or garbled time: {age:.2f} s old")
        roles = tuple((fields["roles"] >> (4 * (ROLES - 1 - k))) & 0xF for k in range(ROLES))
        if any(r > 11 for r in roles):
            raise CommError("role vector names a unum above 11 (garbled)")
        return TeamMessage(time=now - age, side_left=bool(fields["side"]), fallen=bool(fields["fallen"]),
                           ball=(_dequantize(fields["ball_x"], *X_RANGE, 10),
                                 _dequantize(fields["ball_y"], *Y_RANGE, 10)),
                           position=(_dequantize(fields["self_x"], *X_RANGE, 10),
                                     _dequantize(fields["self_y"], *Y_RANGE, 10)),
                           sees_ball=bool(fields["sees_ball"]), trusted=bool(fields["trusted"]), roles=roles)


def my_turn(game_time: float, unum: int, team_size: int) -> bool:
    """§11.4 time slicing: a say slot every 2 cycles, slots rotate over uniform numbers 1..team_size."""
    cycle = int(round(game_time / CYCLE))
    if cycle % 2:
        return False
    return (cycle // 2) % max(team_size, 1) == (unum - 1) % max(team_size, 1)


def speaker(message_time: float, team_size: int) -> int:
    """The unum whose time slice a message's server time falls in (messages carry no sender id, §6)."""
    cycle = int(round(message_time / CYCLE))
    return (cycle // 2) % max(team_size, 1) + 1
