"""The physical Nao through NAOqi (PyPI `qi`): sessions, sensors from ALMemory, joint targets to ALMotion or the DCM.

No rclpy here; the naoqi_bridge node wires it to the same topics the simulator bridge serves, so nothing above the
bridge knows which body it drives. Facts used (NAOqi 2.x documentation, Nao V5/V6):
- Joint angles: ALMemory `Device/SubDeviceList/<Joint>/Position/Sensor/Value` (rad, NAOqi names and signs).
- IMU: `Device/SubDeviceList/InertialSensor/{GyroscopeX,Y,Z}` (rad/s) and `{AccelerometerX,Y,Z}` (m/s^2) in the
  torso frame (x forward, y left, z up). NAOqi's accelerometer reads about -9.81 on Z when upright; the imu topic
  carries the specific force like the simulator bridges (+9.81 up), so the three axes are negated (to be confirmed on a
  robot: see docs/naoqi.md).
- Feet: `Device/SubDeviceList/{L,R}Foot/FSR/{FrontLeft,FrontRight,RearLeft,RearRight}/Sensor/Value` (kg) and
  `.../FSR/TotalWeight/Sensor/Value`.
- The real Nao has ONE motor for both hip yaw-pitch joints (LHipYawPitch drives RHipYawPitch): a command sends the
  mean of the two targets as LHipYawPitch; joint states report that angle for both.
Every target is clamped to the physical Nao's limits (villa_nao.joints naoqi_min/naoqi_max).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from villa_nao.joints import JOINTS

NAMES = [j.name for j in JOINTS]
LIMITS = {j.name: (j.naoqi_min, j.naoqi_max) for j in JOINTS}
COMMANDED = [n for n in NAMES if n != "RHipYawPitch"]        # the coupled joint is driven through LHipYawPitch
JOINT_KEYS = [f"Device/SubDeviceList/{n}/Position/Sensor/Value" for n in NAMES]
IMU_KEYS = [f"Device/SubDeviceList/InertialSensor/{k}/Sensor/Value" for k in
            ("GyroscopeX", "GyroscopeY", "GyroscopeZ", "AccelerometerX", "AccelerometerY", "AccelerometerZ")]
FSR_CELLS = ("FrontLeft", "FrontRight", "RearLeft", "RearRight")
FSR_KEYS = [f"Device/SubDeviceList/{f}Foot/FSR/{c}/Sensor/Value" for f in "LR" for c in FSR_CELLS]
ALL_KEYS = JOINT_KEYS + IMU_KEYS + FSR_KEYS
# FSR cell positions in the foot frame (m, x forward, y left), from the NAOqi documentation of the Nao's feet
FSR_POS = {"L": [(0.07025, 0.0299), (0.07025, -0.0231), (-0.03025, 0.0299), (-0.02965, -0.0191)],
           "R": [(0.07025, 0.0231), (0.07025, -0.0299), (-0.03025, 0.0191), (-0.02965, -0.0299)]}
G = 9.80665


class NaoqiError(RuntimeError):
    """The robot cannot be reached or refused a call; the message says what to check."""


def connect(url: str, timeout: float, stop: threading.Event | None = None):
    """A connected qi.Session, or NaoqiError (naming `url` and why) within `timeout` seconds or soon after `stop` is
    set. `url`: tcp://<ip>:9559, or tcps:// for TLS. (User/password authentication of NAOqi 2.9 is not supported.)"""
    import qi

    session = qi.Session()
    fut = session.connect(url, _async=True)
    deadline = time.monotonic() + timeout
    while not fut.isFinished() and time.monotonic() < deadline and not (stop is not None and stop.is_set()):
        fut.wait(100)
    if not fut.isFinished():
        fut.cancel()
        raise NaoqiError(f"no answer from NAOqi at {url} within {timeout:.1f} s")
    if fut.hasError():
        raise NaoqiError(f"NAOqi at {url}: {fut.error()}")
    return session


@dataclass
class Reading:
    names: list[str]
    positions: np.ndarray          # rad, NAOqi names and signs
    gyro: np.ndarray               # rad/s, torso frame
    acc: np.ndarray                # m/s^2, specific force (+g up when upright)
    fsr: dict[str, np.ndarray]     # per foot (L, R): the four cells (kg)

    def foot(self, side: str) -> tuple[bool, np.ndarray, np.ndarray]:
        """(in contact, centre of pressure (x, y, 0) in the foot frame (m), force (0, 0, N))."""
        cells = np.clip(self.fsr[side], 0.0, None)
        total = float(cells.sum())
        if total < 0.05:
            return False, np.zeros(3), np.zeros(3)
        pos = np.array(FSR_POS[side])
        cop = cells @ pos / total
        return True, np.array([cop[0], cop[1], 0.0]), np.array([0.0, 0.0, total * G])


def parse_reading(values) -> Reading:
    v = np.asarray(values, dtype=float)
    if v.shape != (len(ALL_KEYS),) or not np.all(np.isfinite(v)):
        raise NaoqiError(f"ALMemory returned {v.shape[0] if v.ndim else 0} values, expected {len(ALL_KEYS)} numbers")
    n, k = len(JOINT_KEYS), len(IMU_KEYS)
    pos = v[:n].copy()
    pos[NAMES.index("RHipYawPitch")] = pos[NAMES.index("LHipYawPitch")]   # one motor
    imu = v[n:n + k]
    fsr = v[n + k:]
    return Reading(list(NAMES), pos, imu[:3].copy(), -imu[3:6], {"L": fsr[:4].copy(), "R": fsr[4:].copy()})


def clamp_targets(targets: dict[str, float]) -> dict[str, float]:
    """Physical limits, the coupled hip yaw-pitch (mean of both targets -> LHipYawPitch), unknown names dropped."""
    out = {}
    hyp = [targets[n] for n in ("LHipYawPitch", "RHipYawPitch") if n in targets and math.isfinite(targets[n])]
    for name, value in targets.items():
        if name not in LIMITS or name in ("LHipYawPitch", "RHipYawPitch") or not math.isfinite(value):
            continue
        lo, hi = LIMITS[name]
        out[name] = min(max(float(value), lo), hi)
    if hyp:
        lo, hi = LIMITS["LHipYawPitch"]
        out["LHipYawPitch"] = min(max(float(np.mean(hyp)), lo), hi)
    return out


class NaoqiBody:
    """One physical Nao: read sensors, send joint targets (ALMotion or DCM), stiffness and safe postures."""

    ALIAS = "villa_joints"

    def __init__(self, session, mode: str = "setangles", fraction_max_speed: float = 0.5, dcm_delay_ms: int = 20):
        if mode not in ("setangles", "dcm"):
            raise ValueError(f"mode must be setangles or dcm, got {mode!r}")
        if not 0 < fraction_max_speed <= 1:
            raise ValueError(f"fraction_max_speed must be in (0, 1], got {fraction_max_speed}")
        self.session = session          # the services live only as long as their session
        self.memory = session.service("ALMemory")
        self.motion = session.service("ALMotion")
        self.posture = session.service("ALRobotPosture")
        self.mode, self.fraction, self.dcm_delay = mode, fraction_max_speed, dcm_delay_ms
        self.dcm = None
        if mode == "dcm":
            self.dcm = session.service("DCM")
            self.dcm.createAlias([self.ALIAS, [f"{n}/Position/Actuator/Value" for n in COMMANDED]])

    def read(self) -> Reading:
        return parse_reading(self.memory.getListData(ALL_KEYS))

    def command(self, targets: dict[str, float]) -> dict[str, float]:
        """Send joint targets (rad); returns what was sent after clamping and coupling."""
        sent = clamp_targets(targets)
        if not sent:
            return sent
        if self.mode == "setangles":
            names = list(sent)
            self.motion.setAngles(names, [sent[n] for n in names], self.fraction)
        else:  # timed DCM command for every aliased joint: missing ones keep their last target
            t = self.dcm.getTime(self.dcm_delay)
            self._last = {**getattr(self, "_last", {}), **sent}
            values = [[self._last.get(n, 0.0), t] for n in COMMANDED]
            self.dcm.setAlias([self.ALIAS, "ClearAll", "time-separate", 0, [t], [[v[0]] for v in values]])
        return sent

    def wake_up(self) -> None:
        self.motion.wakeUp()

    def safe_crouch(self, stiffness: float = 0.3) -> None:
        """The watchdog's safe state: crouch, then low stiffness."""
        self.posture.goToPosture("Crouch", 0.5)
        self.motion.setStiffnesses("Body", stiffness)

    def rest(self) -> None:
        self.motion.rest()

    def close(self) -> None:
        """Drop the service proxies and close the session (libqi's objects alive at interpreter exit can abort it)."""
        self.memory = self.motion = self.posture = self.dcm = None
        session, self.session = self.session, None
        if session is not None:
            try:
                session.close()
            except Exception:  # a session already lost has nothing left to close
                pass


class Watchdog:
    """Fires once when no targets arrived for longer than `timeout` seconds; re-arms on the next target."""

    def __init__(self, timeout: float = 0.2) -> None:
        self.timeout = timeout
        self.last: float | None = None
        self.fired = False

    def feed(self, now: float) -> None:
        self.last, self.fired = now, False

    def check(self, now: float) -> bool:
        """True exactly once per silence longer than timeout (after at least one target)."""
        if self.last is None or self.fired or now - self.last <= self.timeout:
            return False
        self.fired = True
        return True
