"""The bridge's joint control on the real SimSpark server: a step of the head settles without overshoot.

Skipped with the reason when SimSpark is not installed (CI installs it).
"""

from __future__ import annotations

import math
import threading

import pytest

from villa_bridge.joint_io import JointTarget, from_wire
from villa_bridge.session import BridgeSession, SessionConfig
from villa_bridge.simspark import SimSparkBackend
from villa_sim.simspark import SimSparkServer, available

OK, WHY = available()
pytestmark = pytest.mark.skipif(not OK, reason=WHY)


def test_a_joint_step_settles_without_overshoot_on_simspark():
    """60 degrees of HeadYaw: at the joint speed limit, then onto the target. Without predicting the command still in
    flight (the server applies a command one cycle late) a gain of 40/s overshoots by several degrees and rings."""
    angles: list[float] = []
    done = threading.Event()
    target = math.radians(60)

    def on_perception(p, t0):
        names, pos, _ = from_wire(p.joint_names, p.joint_angles)
        if not session.confirmed:
            return
        angles.append(float(pos[names.index("HeadYaw")]))
        session.submit_targets({"HeadYaw": JointTarget(target if len(angles) > 5 else 0.0)})
        if len(angles) >= 60:
            done.set()

    with SimSparkServer() as server:
        session = BridgeSession(SimSparkBackend("villaT", 1), SessionConfig(port=server.agent_port, reconnect=False,
                                                                             target_deadline=0.5),
                                on_perception=on_perception)
        thread = threading.Thread(target=session.run, daemon=True)
        thread.start()
        try:
            assert done.wait(60), f"only {len(angles)} cycles; server log:\n{server.log()}"
        finally:
            session.stop()
            thread.join(timeout=10)
    after = [math.degrees(a) for a in angles[6:]]
    assert max(after) < 60.5                                      # no overshoot
    settled = next(i for i, a in enumerate(after) if abs(a - 60) < 0.5)
    assert settled <= 14                                          # 60 deg at 352 deg/s is 9 cycles, plus the delay
    assert all(abs(a - 60) < 0.5 for a in after[settled:])        # and it stays there
