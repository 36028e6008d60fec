"""The parser raises only ParseError on bad input (hypothesis), and framing handles any chunking."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from villa_bridge.framing import FrameReader, FrameTooLarge, encode
from villa_bridge.perception import parse_perception
from villa_bridge.sexp import ParseError, dumps, parse

SAMPLE = ("(time (now 8.86))(GS (unum 1) (team left) (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))"
          "(GYR (n torso) (rt 0.10 -1.39 -1.41))(ACC (n torso) (a -0.00 0.00 0.00))(HJ (n hj1) (ax 0.57))"
          "(See (G2R (pol 30.95 -19.99 0.68)) (B (pol 16.91 -33.59 -1.48)) (P (team test) (id 1) "
          "(rlowerarm (pol 0.19 -37.23 -22.66))) (L (pol 23.89 -54.02 -1.13) (pol 14.23 2.61 -1.79)))"
          "(hear test 0.00 95.55 hello_from_1)(FRP (n rf) (c 0.00 -0.01 -0.01) (f -0.03 0.13 16.79))")

FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=400))
def test_arbitrary_bytes_raise_only_parse_error(data):
    try:
        parse_perception(data)
    except ParseError:
        pass


@FAST
@given(st.text(alphabet="()ab1.- \n(HJ)(n)(ax)(pol)(See)(GS)", max_size=300))
def test_paren_soup_raises_only_parse_error(text):
    try:
        parse_perception(text)
    except ParseError:
        pass


@FAST
@given(st.integers(0, len(SAMPLE)), st.integers(0, len(SAMPLE)), st.binary(max_size=8))
def test_mutated_real_messages_raise_only_parse_error(i, j, junk):
    i, j = sorted((i, j))
    data = SAMPLE.encode()[:i] + junk + SAMPLE.encode()[j:]
    try:
        parse_perception(data)
    except ParseError:
        pass


def test_sample_parses_and_reparses():
    p = parse_perception(SAMPLE)
    assert p.game.unum == 1 and p.vision.lines and p.heard[0].direction_deg == 95.55
    assert parse(" ".join(dumps(e) for e in parse(SAMPLE))) == parse(SAMPLE)


BAD = [b"(time (now 1)", b"(time (now 1)))", b"atom", b"(HJ (n hj1))", b"(GYR (n t) (rt 1 2))",
       b"(time (now nan))", b"(See (B (pol 1 2)))", b"\xff\xfe", b"(" * 100 + b")" * 100,
       b"(GS (team middle))", b"(hear a)", b"(TCH lf 1)"]


@pytest.mark.parametrize("bad", BAD)
def test_known_bad_inputs(bad):
    with pytest.raises(ParseError):
        parse_perception(bad)


@given(st.lists(st.binary(max_size=50), max_size=6), st.integers(1, 17))
def test_frame_reader_any_chunking(payloads, chunk):
    stream = b"".join(encode(p) for p in payloads)
    reader, out = FrameReader(), []
    for k in range(0, len(stream), chunk):
        out += reader.feed(stream[k:k + chunk])
    assert out == payloads and reader.pending == 0


def test_oversized_frame_is_an_error():
    with pytest.raises(FrameTooLarge):
        FrameReader(max_size=100).feed(struct.pack(">I", 101) + b"x")
