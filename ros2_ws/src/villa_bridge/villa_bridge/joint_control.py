"""Joint control of a simulated Nao whose hinges are velocity-controlled, as SimSpark's (and villa sim's) are.

UT Austin Villa 2011 report §3: a controller per joint turns the desired joint angle into the motor command.
SimSpark's hinge effectors take a velocity (rad/s), clamped by the server to the joint's maximum speed and applied
with at most 10 N m (SIMSPARK_FACTS.md, "Effector limits"). Measured on the real server (sync mode): a velocity sent
in reply to perception k first shows in perception k+2, so one earlier command is still to act when the next one is
chosen. The controller therefore predicts the angle when its command starts to act (measured angle + the velocities
already sent and not yet seen, ``delay`` cycles) and asks for the velocity that closes ``gain`` x dt of the remaining
error in one cycle, plus the command's feed-forward velocity. Without the prediction a proportional gain above
about 12/s oscillates (poles of z^2 - z + K dt).

Two of the server's rules shape the command: a joint beyond a stop ignores commands and keeps its last velocity, so
targets stay ``stop_margin`` inside the stops and no velocity pushes further out once a joint is within that margin;
a body whose motors are all at exactly 0 may be disabled by ODE (auto-disable), which any nonzero command undoes.
Stiffness (0..1) scales the gain: SimSpark has no limp motor, stiffness 0 holds still.

The same controller serves the SimSpark and rcssservermj (villa sim) backends and villa sim's in-process Nao, so a
joint target sequence moves the robot the same way on every simulator.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

import numpy as np

from villa_bridge.joint_io import HeldTargets
from villa_nao.joints import Joint

CYCLE = 0.02                 # s, the simulation step and agent cycle


def p_control(target: np.ndarray, current: np.ndarray, feed_forward: np.ndarray, stiffness: np.ndarray,
              gain: float, max_speed: np.ndarray) -> np.ndarray:
    """Joint velocities (rad/s, NAOqi sign): stiffness*gain*(target-current) + feed_forward, clamped.

    A joint without a target (NaN) or without a measured angle (NaN) gets 0 (the motor holds still).
    """
    v = stiffness * gain * (target - current) + feed_forward
    v = np.where(np.isfinite(v), v, 0.0)
    return np.clip(v, -max_speed, max_speed)


class HingeVelocityControl:
    """Per-joint velocity commands (rad/s) from held angle targets; ``reset`` when a new robot starts."""

    def __init__(self, joints: Sequence[Joint], gain: float = 40.0, delay: int = 1,
                 stop_margin: float = np.radians(1.0)) -> None:
        if not 0 < gain <= 1.0 / CYCLE:
            raise ValueError(f"P gain must be in (0, {1.0 / CYCLE:g}] 1/s (above, the joint overshoots), got {gain}")
        if delay not in range(4):
            raise ValueError(f"command delay must be 0..3 cycles, got {delay}")
        if not 0 <= stop_margin < np.radians(10):
            raise ValueError(f"stop margin must be in [0, 10 deg), got {np.degrees(stop_margin):.1f} deg")
        self.joints = tuple(joints)
        self.names = [j.name for j in self.joints]
        self.gain, self.delay, self.stop_margin = gain, delay, stop_margin
        self.max_speed = np.array([j.max_speed for j in self.joints])
        self.lower = np.array([j.sim_min for j in self.joints]) + stop_margin
        self.upper = np.array([j.sim_max for j in self.joints]) - stop_margin
        self._sent: deque[np.ndarray] = deque(maxlen=max(delay, 1))

    def reset(self) -> None:
        """A new robot: no command in flight."""
        self._sent.clear()

    def velocities(self, held: HeldTargets, angles: Mapping[str, float]) -> np.ndarray:
        """Velocities (rad/s, NAOqi sign) in ``self.joints`` order for the measured ``angles`` (NAOqi, rad)."""
        idx = [held.index[n] for n in self.names]
        current = np.array([angles.get(n, np.nan) for n in self.names])
        in_flight = sum(self._sent) * CYCLE if self.delay and self._sent else 0.0
        target = np.clip(held.position[idx], self.lower, self.upper)
        v = p_control(target, current + in_flight, held.velocity[idx], held.stiffness[idx], self.gain,
                      self.max_speed)
        v = np.where(current >= self.upper, np.minimum(v, 0.0), v)   # never push a joint further into its stop
        v = np.where(current <= self.lower, np.maximum(v, 0.0), v)
        if self.delay:
            self._sent.append(v)
        return v
