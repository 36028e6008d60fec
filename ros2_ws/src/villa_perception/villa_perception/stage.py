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
    level_tau: float = 0.3        # s, the accelerometer's low-pass that levels the camera (§4.2; see imu)
    max_tilt: float = math.radians(20)   # torso tilt (low-passed) beyond which a frame gives no observations
    max_tilt_instant: float = math.radians(45)   # ... and of the instant reading (tilted())

    @classmethod
    def from_params(cls, p: Mapping[str, Any]) -> PerceptionParams:
        """From the perception node's parameters (config/perception.yaml names)."""
        buffer = int(p["joint_buffer"])
        if buffer < 1:
            raise ValueError(f"joint_buffer must be at least 1, got {buffer}")
        tau, tilt, instant = float(p["level_tau"]), float(p["max_tilt_deg"]), float(p["max_tilt_instant_deg"])
        if not tau >= 0:
            raise ValueError(f"level_tau must be >= 0 s, got {tau}")
        for name, v in (("max_tilt_deg", tilt), ("max_tilt_instant_deg", instant)):
            if not 0 < v <= 180:
                raise ValueError(f"{name} must be in (0, 180], got {v}")
        return cls(int(p["robot_type"]), int(p["unum"]), str(p["team"]),
                   NoiseModel(float(p["distance_sigma_rel"]), float(p["distance_sigma_abs"]),
                              math.radians(float(p["angle_sigma_deg"]))),
                   FallParams(upright_tilt=math.radians(float(p["fall.upright_tilt_deg"])),
                              recover_tilt=math.radians(float(p["fall.recover_tilt_deg"])),
                              recover_time=float(p["fall.recover_time"]), lying_xy=float(p["fall.lying_xy"]),
                              lying_time=float(p["fall.lying_time"]), switch_time=float(p["fall.switch_time"])),
                   buffer, tau, math.radians(tilt), math.radians(instant))


class PerceptionStage:
    def __init__(self, params: PerceptionParams = PerceptionParams()) -> None:
        self.p = params
        self.unum, self.team = params.unum, params.team
        self.fall = FallDetector(params.fall)
        self.memory = VisualMemory()
        self._times: deque[float] = deque(maxlen=params.joint_buffer)
        self._heads: deque[tuple[float, float]] = deque(maxlen=params.joint_buffer)
        self.acc: tuple[float, float, float] | None = None     # low-passed (level_tau): the torso's tilt
        self._acc_t: float | None = None
        self._acc_raw: tuple[float, float, float] | None = None

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
        """One accelerometer reading (m/s^2, REP-103 torso axes): (fall state, seconds in it) (§8). The torso's tilt
        that levels the camera (§4.2) comes from the reading low-passed over level_tau s: a walking robot's
        accelerometer also reads its sway and steps (2 m/s^2 reads as 12° of pitch), and the horizontal distance of
        a landmark 15 m away shrinks by 0.3 m per 12° of tilt error (measured in villa sim games: up to 1.3 m)."""
        a = tuple(float(v) for v in acc)
        if all(math.isfinite(v) for v in a) and any(a):
            if self.acc is None or self._acc_t is None or self.p.level_tau <= 0:
                self.acc = a
            else:
                k = 1.0 - math.exp(-max(0.0, t - self._acc_t) / self.p.level_tau)
                self.acc = tuple(f + k * (v - f) for f, v in zip(self.acc, a, strict=True))
            self._acc_t, self._acc_raw = t, a
        return self.fall.update(acc, t)

    def tilted(self) -> bool:
        """The torso tilts beyond max_tilt (low-passed) or max_tilt_instant (this reading): falling, lying, getting
        up. The levelled camera is then wrong by up to the tilt, and one such frame moved a game's pose estimate
        2.5 m. (The instant reading of an upright walking robot passes 20° in 14 % of frames on SimSpark and 26 % in
        villa sim, 45° in 0.3 % and 1 %: hence the two limits.)"""
        return any(a is not None and self.fall.tilt(a) > limit
                   for a, limit in ((self.acc, self.p.max_tilt), (self._acc_raw, self.p.max_tilt_instant)))

    def vision(self, t: float, frame: P.Frame) -> list[Seen] | None:
        """One vision frame at time t: the observations (§4.2); None while no joint reading gave the head angles,
        and while the torso is tilted (tilted())."""
        head = self.head_at(t)
        if head is None:
            return None
        if self.tilted():
            return None
        seen = P.process(frame, head[0], head[1], self.acc, self.team, self.unum, self.p.robot_type, self.p.noise)
        self.memory.update({s.name: s.position for s in seen if s.kind in ("ball", "teammate", "opponent")}, t,
                           head[0])
        return seen
