"""Perception as one object per player (what the perception node wraps; the in-process player calls it directly).

Per server cycle: the head angles of every joint reading (kept to find the angles at the time of an image, §4.2), the
fall state from every accelerometer reading (§8), and for each vision frame the body-relative observations (§4.2)
and the visual memory (§4.3). Plain values in and out; parameters: config/perception.yaml's names.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from villa_perception import perception as P
from villa_perception.fall import FallDetector, FallParams
from villa_perception.memory import VisualMemory
from villa_perception.vision import NoiseModel, Seen


@dataclass(frozen=True)
class PerceptionParams:
    robot_type: int = 0
    unum: int = 1
    team: str = ""
    noise: NoiseModel = NoiseModel()
    fall: FallParams = FallParams()
    joint_buffer: int = 100

    @classmethod
    def from_params(cls, p: Mapping[str, Any]) -> PerceptionParams:
        """From the perception node's parameters (config/perception.yaml names)."""
        buffer = int(p["joint_buffer"])
        if buffer < 1:
            raise ValueError(f"joint_buffer must be at least 1, got {buffer}")
        return cls(int(p["robot_type"]), int(p["unum"]), str(p["team"]),
                   NoiseModel(float(p["distance_sigma_rel"]), float(p["distance_sigma_abs"]),
                              math.radians(float(p["angle_sigma_deg"]))),
                   FallParams(upright_tilt=math.radians(float(p["fall.upright_tilt_deg"])),
                              recover_tilt=math.radians(float(p["fall.recover_tilt_deg"])),
                              recover_time=float(p["fall.recover_time"]), lying_xy=float(p["fall.lying_xy"]),
                              lying_time=float(p["fall.lying_time"]), switch_time=float(p["fall.switch_time"])),
                   buffer)


class PerceptionStage:
    def __init__(self, params: PerceptionParams = PerceptionParams()) -> None:
        self.p = params
        self.unum, self.team = params.unum, params.team
        self.fall = FallDetector(params.fall)
        self.memory = VisualMemory()
        self._times: deque[float] = deque(maxlen=params.joint_buffer)
        self._heads: deque[tuple[float, float]] = deque(maxlen=params.joint_buffer)
        self.acc: tuple[float, float, float] | None = None

    def game_state(self, unum: int, team: str) -> None:
        """Who we are, once the server confirmed it (unum 0 / '' = not yet)."""
        if unum:
            self.unum = unum
        if team:
            self.team = team

    def joints(self, t: float, head_yaw: float, head_pitch: float) -> None:
        """One joint reading's head angles (rad) at time t (s)."""
        self._times.append(t)
        self._heads.append((head_yaw, head_pitch))

    def head_at(self, t: float) -> tuple[float, float] | None:
        """The head angles of the reading nearest in time to t; None before the first reading."""
        if not self._times:
            return None
        times = list(self._times)
        i = bisect.bisect_left(times, t)
        best = min((j for j in (i - 1, i) if 0 <= j < len(times)), key=lambda j: abs(times[j] - t))
        return self._heads[best]

    def imu(self, t: float, acc: tuple[float, float, float]) -> tuple[int, float]:
        """One accelerometer reading (m/s^2, REP-103 torso axes): (fall state, seconds in it) (§8)."""
        self.acc = acc
        return self.fall.update(acc, t)

    def vision(self, t: float, frame: P.Frame) -> list[Seen] | None:
        """One vision frame at time t: the observations (§4.2); None while no joint reading gave the head angles."""
        head = self.head_at(t)
        if head is None:
            return None
        seen = P.process(frame, head[0], head[1], self.acc, self.team, self.unum, self.p.robot_type, self.p.noise)
        self.memory.update({s.name: s.position for s in seen if s.kind in ("ball", "teammate", "opponent")}, t,
                           head[0])
        return seen
