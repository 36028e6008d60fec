import math

import numpy as np
import pytest

from villa_sim import audio, noise


def test_noise_statistics_match_simspark_sigmas():
    rng = np.random.default_rng(3)
    n = 20000
    model = noise.VisionNoise(rng, np.zeros(3))  # no calibration offset: pure Gaussian part
    d = np.full(n, 10.0)
    az = np.full(n, 20.0)
    el = np.full(n, -5.0)
    nd, naz, nel, keep = model.apply(d, az, el)
    assert keep.all()
    # distance sigma is 0.0965 % of the distance; printing to 2 decimals adds a quantization floor
    assert np.std(nd - d) == pytest.approx(math.sqrt((0.000965 * 10) ** 2 + 0.01**2 / 12), rel=0.1)
    assert np.std(naz - az) == pytest.approx(math.sqrt(0.1480**2 + 0.01**2 / 12), rel=0.05)
    assert np.std(nel - el) == pytest.approx(math.sqrt(0.1225**2 + 0.01**2 / 12), rel=0.05)
    assert abs(np.mean(naz - az)) < 0.01 and abs(np.mean(nel - el)) < 0.01


def test_calibration_offset_is_fixed_and_bounded():
    rng = np.random.default_rng(4)
    models = [noise.VisionNoise.draw(rng) for _ in range(200)]
    offsets = np.array([m.calibration for m in models])
    assert np.all(np.abs(offsets) <= 0.005) and np.std(offsets) > 0.002
    m = models[0]
    m.calibration = np.array([0.005, 0.0, 0.0])  # 5 mm along the view axis
    nd, *_ = m.apply(np.full(5000, 2.0), np.zeros(5000), np.zeros(5000))
    assert np.mean(nd) == pytest.approx(2.005, abs=0.001)


def test_objects_closer_than_10cm_are_dropped():
    m = noise.VisionNoise(np.random.default_rng(0), np.zeros(3))
    *_, keep = m.apply(np.array([0.05, 0.5]), np.zeros(2), np.zeros(2))
    assert keep.tolist() == [False, True]


def test_say_validation_follows_simspark():
    assert audio.is_valid_say("exactly_twenty_chars")
    assert audio.is_valid_say("punct:ok,1.5+x=y!")
    assert not audio.is_valid_say("twenty_one_chars_xxx_")
    assert not audio.is_valid_say("bad msg") and not audio.is_valid_say("a(b") and not audio.is_valid_say("")
    assert not audio.is_valid_say("caf\u00e9")


def _listeners():
    return {
        "A1": audio.Listener("A", "left", (-1.483, -0.018)),
        "A2": audio.Listener("A", "left", (-4.0, 3.0)),
        "B1": audio.Listener("B", "right", (1.473, 1.022)),
        "far": audio.Listener("B", "right", (60.0, 0.0)),
    }


def test_hear_delay_self_direction_and_range():
    m = audio.SayHearModel()
    assert m.say(10, "A1", "A", (-1.483, -0.018), 1.5, "hi")
    assert m.deliver(11, _listeners()) == {k: [] for k in _listeners()}  # not yet: 2-cycle delay
    out = m.deliver(12, _listeners())
    assert out["A1"][0].from_self and out["A1"][0].to_sexp() == "(hear A 1.50 self hi)"
    assert out["far"] == []  # 61.5 m away: beyond 50 m
    # Logs README: villaA/1 and villaB/1 both report 19.38 deg for each other (right team rotated 180 deg).
    assert out["B1"][0].direction_deg == pytest.approx(19.38, abs=0.01)
    m.say(20, "B1", "B", (1.473, 1.022), 2.0, "x")
    assert m.deliver(22, _listeners())["A1"][0].direction_deg == pytest.approx(19.38, abs=0.01)


def test_one_message_per_channel_per_two_cycles_first_speaker_wins():
    m = audio.SayHearModel()
    m.say(30, "A2", "A", (-4.0, 3.0), 0.0, "same_cycle_A2")
    m.say(30, "A1", "A", (-1.483, -0.018), 0.0, "same_cycle_A1")
    out = m.deliver(32, _listeners())
    assert [h.message for h in out["B1"]] == ["same_cycle_A2"]           # opponents' channel for team A
    assert [h.message for h in out["A2"]] == ["same_cycle_A2", "same_cycle_A1"]  # self echo is free
    m.say(33, "A1", "A", (-1.483, -0.018), 0.0, "later")
    assert [h.message for h in m.deliver(35, _listeners())["B1"]] == ["later"]


def test_invalid_say_is_counted_not_delivered():
    m = audio.SayHearModel()
    assert not m.say(1, "A1", "A", (0, 0), 0.0, "this_message_is_far_too_long_for_say")
    assert m.dropped == 1 and m.deliver(10, _listeners())["A2"] == []
