"""A kick from standing in the in-process villa sim (villa_optimize.standing_kick in InProcessWorld): how far the
tuned kicks send the ball there."""

from __future__ import annotations

import math

import pytest

from villa_motion import kick as KK
from villa_optimize.standing_kick import KickTrial, StandingKickEpisode
from villa_optimize.worlds import InProcessWorld


@pytest.mark.integration
def test_forward_kick_in_the_simulation():
    """A standing robot behind the ball: the tuned forward kick, either foot, sends it well forward (a push moves it
    under half a metre), near the kick's direction, and the robot stays up."""
    kicks = KK.load_kick_set("tuned")
    world = InProcessWorld()
    try:
        for name in ("forward_L", "forward_R"):
            r = world.run_episode(StandingKickEpisode(KickTrial(kicks[name]), KK.StandPose()))
            assert r.started, r.reason
            assert not r.fell, name
            assert r.along > 1.4, f"{name}: ball moved {r.along:.2f} m along the kick"
            assert abs(math.degrees(r.direction_error)) < 20.0, f"{name}: {math.degrees(r.direction_error):.1f} deg off"
    finally:
        world.close()
