"""Say/hear codec (§6) at the bit level and voting (§11.4)."""

import numpy as np
import pytest

from villa_strategy.comm import ALPHABET, BITS, Codec, CommError, TeamMessage, my_turn, speaker
from villa_strategy.voting import Voting

MSG = TeamMessage(time=123.46, side_left=True, fallen=True, ball=(3.21, -4.5), position=(-7.0, 2.25),
                  sees_ball=True, trusted=False, roles=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))


def test_round_trip_every_field_within_quantization():
    c = Codec("villa")
    text = c.encode(MSG)
    assert len(text) == 20 and set(text) <= set(ALPHABET) and " " not in text and "(" not in text
    m = c.decode(text, now=123.50, our_side_left=True)
    assert m.side_left and m.fallen and m.sees_ball and not m.trusted and m.roles == MSG.roles
    assert m.ball == pytest.approx(MSG.ball, abs=0.017) and m.position == pytest.approx(MSG.position, abs=0.017)
    assert m.time == pytest.approx(123.46, abs=0.011)


def test_bits_are_scrambled_and_every_bit_matters():
    c = Codec("villa")
    base = c._unscramble(c._from_text(c.encode(MSG)))
    assert len(base) == BITS == 120
    plain = c._from_text(c.encode(MSG))
    assert not np.array_equal(plain, base)                      # scrambled on the wire
    rng = np.random.default_rng(1)
    flips = 0
    for _ in range(200):  # flip one wire bit: the message must never decode to the same content silently
        bits = plain.copy()
        bits[rng.integers(BITS)] ^= 1
        try:
            m = c.decode(Codec._to_text(bits), now=123.50, our_side_left=True)
        except CommError:
            flips += 1
            continue
        assert m != c.decode(c.encode(MSG), now=123.50, our_side_left=True)
    assert flips > 20  # signature/time/side bits catch a good share of garbling


@pytest.mark.parametrize("text, now, left, reason", [
    (None, 123.5, False, "other side"),
    (None, 130.0, True, "stale"),
    (None, 120.0, True, "stale"),                      # from the future: garbled time
    ("short", 123.5, True, "length"),
    ("(" * 20, 123.5, True, "alphabet"),
])
def test_rejections(text, now, left, reason):
    c = Codec("villa")
    with pytest.raises(CommError, match=reason):
        c.decode(text or c.encode(MSG), now=now, our_side_left=left)


def test_other_team_and_random_texts_are_rejected():
    ours, theirs = Codec("villa"), Codec("apollo3d")
    with pytest.raises(CommError, match="signature"):
        ours.decode(theirs.encode(MSG), now=123.5, our_side_left=True)
    rng = np.random.default_rng(3)
    accepted = 0
    for _ in range(2000):
        text = "".join(rng.choice(list(ALPHABET), 20))
        try:
            ours.decode(text, now=123.5, our_side_left=True)
            accepted += 1
        except CommError:
            pass
    assert accepted == 0


def test_time_slices_rotate_over_unums():
    speakers = [u for t in np.arange(0, 0.44, 0.02) for u in range(1, 12) if my_turn(t, u, 11)]
    assert speakers == list(range(1, 12))               # one speaker per say slot (every 2nd cycle)
    assert speaker(0.08, 11) == 3


def test_voting_majority_tie_to_most_recent_and_window():
    v = Voting(window=4)
    for m in ("A", "A", "B", "B"):
        v.vote(m)
    assert v.winner() == "B"                            # tie 2:2 -> most recent vote
    v.vote("A")                                         # window drops the oldest A: A 2, B 2, newest A
    assert v.winner() == "A"


def test_voting_cleared_has_no_winner_until_the_next_vote():
    v = Voting(window=3)
    for m in ("A", "A", "A"):
        v.vote(m)
    v.clear()
    assert v.winner() is None
    v.vote("B")
    assert v.winner() == "B"


def test_voting_converges_with_one_wrong_agent_and_drops():
    rng = np.random.default_rng(0)
    v = Voting(window=9)
    winners = []
    for _ in range(200):
        for agent in range(9):
            if rng.random() < 0.2:
                continue                                 # dropped message
            v.vote("WRONG" if agent == 4 else "RIGHT")
        winners.append(v.winner())
    assert winners[-150:] == ["RIGHT"] * 150
