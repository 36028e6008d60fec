"""The omnidirectional walk engine: UT Austin Villa 2011 report §10.1 (double linear inverted pendulum), §10.4.

SI units throughout (the seed writes millimetres: its k = sqrt(9806.65 / z_torso[mm]) is sqrt(9.80665 / z_torso[m])).
Deviation: k uses its own `pendulum_height` rather than the feet's depth below our torso origin (0.35 m here, a
different reference point than the seed's): with k = sqrt(g / 0.197 m), cosh(k/4) = 3 and the matched pendulums give
equal step durations; with k from 0.35 m the phases alternate between long and short steps and the robot veers.
Frames: foot targets are sole poses in the torso frame (REP-103: x forward, y left, z up), turned into joint angles
by villa_nao's leg IK.

Where the report's typeset equations are ambiguous we take the reading that keeps the feet continuous across
steps; each is marked "reading:" below.
- Phase ϕ runs from ϕ_start to ϕ_end, t = (ϕ − ϕ_start)/(ϕ_end − ϕ_start), ϕ += Δt/ϕ_length. At a step change the
  new pendulum starts where the lateral positions match: α = 6 − cosh(0.5 k ϕ_end,prev), ϕ_start = −acosh(α)/(0.5 k)
  when α ≥ 1 (else −0.5). Reading: ϕ_end = −ϕ_start (the printed "ϕ_end = 0.5(ϕ_end − ϕ_start)" is garbled).
- Lift: z_frac = 0.5(1 − cos(2π (t − f_g)/f_a)) on [f_g, f_g + f_a]. Reading: f_a = 1 − 2 f_g (ground time at both
  ends of the step); likewise the move window is [f_s, f_s + f_m] with f_m = 1 − 2 f_s.
- Side shift: y_stance = 0.5 y_sep + y_shift(−1.5 + 0.5 cosh(0.5 k ϕ)), y_swing = y_sep − y_stance, plus side steps
  through y_frac (swing foot) and the torso moving over the stance foot.
- Forward: the sigmoid s = sigmoid(10(−0.5 + (t − f_s)/f_m)) (rescaled to run exactly 0..1) carries the swing foot
  from behind to ahead; the stance foot moves back linearly, x_stance = step_x (0.5 − t). Reading: the swing foot
  keeps pace with the torso on the ground before and after its move, so both feet are continuous across steps.
  Both feet get Δx = x_offset − step_x · x_factor.
- Turning: the groin (hip yaw) opens the swing foot by ½ step_θ(1 − cos(π (t − f_s)/f_m)); the stance foot returns.
- Step sizes: step ← step + δ(desired − step), clamped to ±maxStep.
- Stability (§10.1): the centre of mass expected from the commanded joints is compared with the one sensed, ~80 ms
  later; err = max_i |com_expected,i − com_sensed,i|. Reading: steps are multiplied by 1 − clip((err − err_norm) /
  (err_max − err_norm), 0, 1) (full steps when stable, walking in place at err_max).
- Stopping (§10.4.3): jog in place for 0.5 s, then stand still.

Deviation: balance feedback the seed's engine does not have. While walking, the stance foot's ankle pitch and
roll get the torso's angular rate (the IMU's gyro, REP-103 torso axes) times gyro_pitch / gyro_roll: a torso pitching
forward presses the toes down, one rolling to a side presses that edge of the foot down. The seed's only stabilizer
(shrinking steps on a COM error) acts after a step; this one acts within the cycle. In the in-process villa sim the
positioning set with 0.12 m steps fell in 4 of 20 dribbles from random starts without it and in 0 of 20 with a roll
gain of 0.05 s.

What the UT Austin Villa base code's implementation of this engine (its `UTWalkEngine`, released 2016) has beyond
the report, written here as parameters that are off by default (every set without them walks as before):
- f_a and f_m of their own (the report ties them to 1 − 2 f_g and 1 − 2 f_s): fast short steps keep the swing foot
  in the air for the whole step (f_g < 0, f_a > 1) and moving through its end (f_s + f_m > 1).
- The torso's tilt and roll from the IMU (``TiltEstimate``: the gyro integrated, pulled toward the accelerometer's
  gravity direction) turn both foot targets about the torso, tilt_gain / roll_gain of the way back toward level.
- swing_pitch: the swing sole pitched while it is lifted (with z_frac), so that it does not land toe first.
- Robot type 4's toes: the toe joints follow a cosine over two steps, the feet opposite, and the ankle pitch a
  cosine of its own against them (toe_* and toe_ankle_*).
- stiffness: the joint servo's gain scale while walking (villa_bridge.joint_control; 1 = the bridge's gain). A soft
  servo filters the short steps' large targets, as the base code's own joint controller does (about a fifth of
  villa's gain in rad/s per rad).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, fields, replace

import numpy as np

from villa_nao import kinematics as K

G = 9.80665


# --- §10.4.1 walk inputs: what a caller (strategy, optimizer) gives command_normalized ----------------------------
def normalized_walk(direction: float, max_x: float, max_y: float) -> tuple[float, float]:
    """§10.4.1: x/y speeds in [-1, 1] walking in `direction` (rad, robot frame) as fast as possible: one of them is 1
    in magnitude, the other scaled by the ratio of the maximum speeds."""
    c, s = math.cos(direction), math.sin(direction)
    if abs(c) < 1e-9:
        return 0.0, math.copysign(1.0, s)
    t = abs(s / c)
    if t < max_y / max_x:
        x, y = 1.0, t * max_x / max_y
    else:
        x, y = (max_y / max_x) / t if t > 0 else 1.0, 1.0
    return math.copysign(x, c), math.copysign(y, s) if abs(s) > 1e-12 else 0.0


IN_PLACE = 0.05          # normalized x and y below which a turn command counts as a turn in place (the turn set's)
IN_PLACE_SPEED = 0.01    # m/s, the same for velocity commands
TURN_ENTRY = 0.10        # the turn set takes over a walk once its steps are below this fraction of the maximum
TURN_EXIT = 0.10         # ... and hands over to a walk once its turn is below this fraction of its turn in place
SETTLE_TIME = 1.0        # s after a faster set's stop stood during which the stop set walks a faster set's commands
HAND_OVER = 1.05         # a faster set hands over to the stop set once its speeds are within this factor of the stop
                         # set's maximum speeds


def turn_input(angle: float) -> float:
    """§10.4.1: desired relative orientation (rad) to a normalized turn speed: degrees / 180."""
    return max(-1.0, min(1.0, math.degrees(angle) / 180.0))


@dataclass(frozen=True)
class WalkParams:
    """Table 2 of the report (and the fixed parameters it mentions), in SI units."""

    max_step_x: float = 0.04          # m per step (maxStep_x)
    max_step_y: float = 0.03          # m per step
    max_step_theta: float = 0.25      # rad per step
    y_shift: float = 0.012            # m, side-to-side shift with no side velocity
    z_torso: float = 0.35             # m, torso height above the soles
    pendulum_height: float = 0.197    # m, pendulum length in k = sqrt(g / h); 0.197 makes matched steps symmetric
    z_step: float = 0.022             # m, maximum foot lift
    f_g: float = 0.12                 # fraction of a step the swing foot stays on the ground before lifting
    f_s: float = 0.1                  # fraction before the swing foot starts moving
    phase_length: float = 0.38        # s, duration of a single step (ϕ_length)
    delta: float = 0.15               # P gain of step sizes per step (δ)
    delta_forward: float = 0.0        # P gain of the forward step while it grows forward (0 = delta)
    delta_stop: float = 0.5           # P gain of every step size once told to stop (at least delta)
    y_sep: float = 0.11               # m, separation between the feet
    x_offset: float = 0.005           # m, constant offset between torso and feet
    x_factor: float = 0.0             # fraction of step_x added to the torso's forward position
    err_norm: float = 0.02            # m, COM error where steps start to shrink
    err_max: float = 0.06             # m, COM error where the robot walks in place
    torso_lean: float = 0.0           # rad, forward pitch of the feet targets (torso lean), fixed
    arm_pitch: float = 1.6            # rad, ShoulderPitch of the arms while walking (down along the body)
    arm_roll: float = 0.15            # rad, ShoulderRoll away from the body
    gyro_pitch: float = 0.0           # s: stance AnklePitch += gyro_pitch x the torso's pitch rate (rad/s; 0 = off)
    gyro_roll: float = 0.0            # s: stance AnkleRoll += gyro_roll x the torso's roll rate (rad/s; 0 = off)
    turn_in_place: float = 0.0        # rad per step: the turn limit with no step forward or sideways, falling
                                      # linearly to max_step_theta at a full step (0 = max_step_theta throughout)
    heading_gain: float = 0.0         # per step: step turn -= heading_gain x the heading change (gyro) since the
                                      # walk was told not to turn (0 = off)
    f_a: float = 0.0                  # fraction of a step the swing foot is in the air (0 = 1 - 2 f_g)
    f_m: float = 0.0                  # fraction of a step the swing foot moves (0 = 1 - 2 f_s)
    swing_pitch: float = 0.0          # rad added to the swing sole's pitch (REP-103: + = toes down) x z_frac
    tilt_gain: float = 0.0            # feet targets turned about the torso's y axis by -tilt_gain x its tilt (pitch)
    roll_gain: float = 0.0            # ... and about its x axis by -roll_gain x its roll (rad per rad; 0 = off)
    stiffness: float = 1.0            # joint servo gain scale while walking (0..1 of the bridge's joint gain)
    toe_offset: float = 0.0           # rad: robot type 4's toe pitch = toe_offset + toe_amp cos(pi (u + toe_phase)),
    toe_amp: float = 0.0              # u the walk phase over two steps (0..2), the right foot one step later
    toe_phase: float = 0.0
    toe_ankle_offset: float = 0.0     # rad added to type 4's ankle pitch against the toes: offset + amp cos(...)
    toe_ankle_amp: float = 0.0
    toe_ankle_phase: float = 0.0

    def explicit(self) -> WalkParams:
        """The same walk with f_a and f_m given (the report's complements where they are 0): a start for a search
        over them."""
        return replace(self, f_a=self.f_a or 1.0 - 2.0 * self.f_g, f_m=self.f_m or 1.0 - 2.0 * self.f_s)

    def validate(self) -> WalkParams:
        for f in fields(self):
            v = getattr(self, f.name)
            if not math.isfinite(v):
                raise ValueError(f"walk parameter {f.name} must be finite, got {v}")
        if not (0 < self.z_torso < 0.4 and -0.5 < self.f_g < 0.5 and 0 <= self.f_s < 0.5 and self.phase_length >= 0.04
                and 0.05 < self.pendulum_height < 1 and 0 < self.delta <= 1 and 0 <= self.delta_forward <= 1
                and 0 < self.delta_stop <= 1
                and self.err_max > self.err_norm >= 0
                and self.y_sep > 0 and 0 <= self.f_a <= 2 and 0 <= self.f_m <= 2 and 0 < self.stiffness <= 1
                and (self.f_a > 0 or self.f_g >= 0)):
            raise ValueError(f"walk parameters out of range: {self}")
        return self


@dataclass(frozen=True)
class WalkOutput:
    joints: dict[str, float]          # NAOqi name -> target angle (legs and arms)
    phase: float                      # t in [0, 1) of the current step; 0 when standing
    left_stance: bool
    com_error: float
    unstable: bool
    odometry: tuple[float, float, float]  # (dx, dy, dtheta) of the torso this cycle, robot frame
    standing: bool
    reachable: bool
    stiffness: float = 1.0            # the joint servo gain scale for the walk's joints (WalkParams.stiffness)


class TiltEstimate:
    """The torso's roll and pitch (rad, REP-103: roll about x, pitch about y, + = nose down) from the IMU: the gyro's
    rates integrated, pulled toward the tilt of the accelerometer's gravity direction with time constant `tau` (s) --
    a complementary filter; the gyro alone drifts, the accelerometer alone carries the walk's accelerations."""

    def __init__(self, tau: float = 0.5) -> None:
        if not tau > 0:
            raise ValueError(f"tilt estimate time constant must be > 0, got {tau}")
        self.tau = tau
        self.roll = self.pitch = 0.0
        self._started = False

    def reset(self) -> None:
        self.roll = self.pitch = 0.0
        self._started = False

    def update(self, dt: float, gyro=None, acc=None) -> tuple[float, float]:
        """One cycle: gyro (rad/s, REP-103 torso axes) and accelerometer (m/s^2, the specific force: +z when
        upright), either may be None. Returns (roll, pitch)."""
        if gyro is not None:
            self.roll += float(gyro[0]) * dt
            self.pitch += float(gyro[1]) * dt
        if acc is not None:
            ax, ay, az = float(acc[0]), float(acc[1]), float(acc[2])
            if math.isfinite(ax + ay + az) and az > 1.0:          # a lying or falling torso gives no level
                roll, pitch = math.atan2(ay, az), math.atan2(-ax, math.hypot(ay, az))
                if not self._started:
                    self.roll, self.pitch, self._started = roll, pitch, True
                else:
                    a = min(1.0, dt / self.tau)
                    self.roll += a * (roll - self.roll)
                    self.pitch += a * (pitch - self.pitch)
        return self.roll, self.pitch


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


_S0, _S1 = sigmoid(-5.0), sigmoid(5.0)


def _pose(x: float, y: float, z: float, yaw: float, pitch: float = 0.0) -> np.ndarray:
    """The sole pose Rz(yaw) Ry(pitch) at (x, y, z), torso frame."""
    cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    return np.array([[cy * cp, -sy, cy * sp, x], [sy * cp, cy, sy * sp, y], [-sp, 0.0, cp, z], [0.0, 0.0, 0.0, 1.0]])


def _tilted(t: np.ndarray, roll: float, pitch: float) -> np.ndarray:
    """The pose t turned about the torso origin by Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    r = np.array([[cp, sp * sr, sp * cr, 0.0], [0.0, cr, -sr, 0.0], [-sp, cp * sr, cp * cr, 0.0], [0.0, 0.0, 0.0, 1.0]])
    return r @ t


class WalkEngine:
    """State and equations of §10.1; call `update` once per 20 ms cycle."""

    LEFT = ("LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll")
    RIGHT = ("RHipYawPitch", "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll")

    def __init__(self, parameter_sets: dict[str, WalkParams], initial: str | None = None, robot_type: int = 0,
                 blend_time: float = 0.5, com_delay: float = 0.08, jog_time: float = 0.5,
                 outward_turn: bool = True, turn_set: str = "", turn_from: tuple[str, ...] = (),
                 stop_set: str = "") -> None:
        if not parameter_sets:
            raise ValueError("the walk needs at least one parameter set")
        self.sets = {k: v.validate() for k, v in parameter_sets.items()}
        self.set_name = initial if initial is not None else next(iter(self.sets))
        if self.set_name not in self.sets:
            raise ValueError(f"unknown walk parameter set {self.set_name!r}; have {', '.join(self.sets)}")
        self.p = self.sets[self.set_name]
        # an in-place turn asked of a set in `turn_from` walks `turn_set` instead (when the sets have it): its own
        # step timing for turning (docs/motion.md, "The turn set"); the set asked is kept for the next command
        self.turn_set, self.turn_from = turn_set, tuple(turn_from)
        # the sets it serves: those it differs from (a robot type whose turn set inherits its goToTarget has none)
        self._turn_serves = {n for n in self.turn_from if n in self.sets and turn_set in self.sets
                             and self.sets[n] != self.sets[turn_set]}
        # a switch from a faster walk to `stop_set`, and a stop asked of it, first slow the faster walk's steps to the
        # stop set's maximum speeds; the stop set then walks on, or stops (docs/motion.md, "The stop set")
        self.stop_set = stop_set if stop_set in self.sets else ""
        self._handing = False                    # a faster set winds down to the stop set's speeds
        self._stop_after = False                 # ... and the stop set then stops
        self._settling = False                   # a faster set's stop is under way (or stood less than SETTLE_TIME)
        self._settle_left = 0.0
        self._asked = self.set_name
        self._turn_ended = False
        self._blend_from: WalkParams | None = None
        self._blend_t = 0.0
        self.blend_time = blend_time
        self.robot_type = robot_type
        self.step = np.zeros(3)                  # current step sizes (x, y, theta) per step
        self.desired = np.zeros(3)
        self.walking = False
        self.stop_requested = True
        self.jog_time, self._jog_left = jog_time, 0.0
        self.phi_start, self.phi_end, self.phi = -0.5, 0.5, -0.5
        self.left_stance = True
        self.com_delay_cycles = max(1, int(round(com_delay / 0.02)))
        self._expected: deque[np.ndarray] = deque(maxlen=self.com_delay_cycles + 1)
        self.com_error = 0.0
        self._prev_stance: tuple[float, float, float] | None = None
        self._placed_yaw = 0.0                   # yaw (rad, rel. torso) the stance foot was put down with
        # outward foot yaw only (simulated Naos: each hip yaw-pitch stops at +1 degree); False: both feet turn by half
        # the step each way, which keeps both hip yaw-pitch angles equal (the physical Nao's one motor drives both)
        self.outward_turn = outward_turn
        self._last_joints: dict[str, float] | None = None
        self._pending_com: dict[str, float] | None = None   # commanded joints whose COM the next check computes
        self.tilt = TiltEstimate()
        self._leg_start: dict[str, np.ndarray] = {}   # last cycle's leg angles: where an out-of-reach IK starts
        self._stand_cache: tuple | None = None        # (key, joints, leg angles, COM) of the last reachable stand
        self._heading = 0.0                      # rad turned (the gyro's yaw rate, integrated) since told not to turn
        self._step_headings: deque[float] = deque(maxlen=2)   # its mean over each of the last two steps
        self._heading_sum, self._heading_n = 0.0, 0
        self._turn_fix = 0.0                     # rad per step added to the step's turn to hold that heading

    # --- inputs (§10.4.1) -----------------------------------------------------------------------------
    def _switch_set(self, name: str) -> None:
        """Blend over to set `name` (one of self.sets: _choose_set checks what a command names)."""
        if name == self.set_name:
            return
        self._blend_from, self._blend_t = self.p, 0.0
        self._turn_ended = self.set_name == self.turn_set      # leaving the turn set: its turn ends at the next step
        self.set_name = name

    def _choose_set(self, parameter_set: str, in_place_turn: bool) -> str:
        """Walk `parameter_set` ("" = the set asked last), or the turn set for an in-place turn of a set it serves.
        Between the two the steps slow down first: a walk's before the turn set takes over (TURN_ENTRY), the turn
        set's turn before a walk does (TURN_EXIT); so do a faster walk's before the stop set takes over (HAND_OVER).
        Returns "" to walk the set chosen, "still" while the turn set winds its turn down (the step then asks for no
        motion), "slow" while a faster set winds down to the stop set's speeds (the command is the stop set's)."""
        if parameter_set and parameter_set not in self.sets:
            raise ValueError(f"unknown walk parameter set {parameter_set!r}; have {', '.join(self.sets)}")
        self._asked = parameter_set or self._asked
        self._stop_after = False
        turn = in_place_turn and self._asked in self._turn_serves
        if turn and self.set_name != self.turn_set:      # from a walk: the set asked slows its steps down first
            p = self.sets[self.set_name]
            turn = max(abs(self.step[0]) / p.max_step_x, abs(self.step[1]) / p.max_step_y) <= TURN_ENTRY
        elif not turn and self.set_name == self.turn_set and self.walking:   # to a walk: the turn winds down first
            if abs(self.step[2]) > TURN_EXIT * self._max_turn(self.sets[self.turn_set], 0.0, 0.0):
                return "still"
        name = self.turn_set if turn else self._asked
        if self._fast(name) and (self._settling or self._settle_left > 0.0):
            name = self.stop_set          # after a faster set's stop the stop set walks until the body settled
            if self._settling:            # the stop did not stand: the stop set walks on for SETTLE_TIME first
                self._settling, self._settle_left = False, SETTLE_TIME
        self._handing = name == self.stop_set and self._faster_than_stop_set()
        if self._handing:
            return "slow"
        self._switch_set(name)
        return ""

    @staticmethod
    def _top_speeds(p: WalkParams) -> np.ndarray:
        """A set's maximum forward and sideways speeds (m/s)."""
        return np.array([p.max_step_x, p.max_step_y]) / p.phase_length

    def _fast(self, name: str) -> bool:
        """True for a walk set (not the stop set or the turn set) whose maximum speeds exceed the stop set's."""
        if not self.stop_set or name in (self.stop_set, self.turn_set):
            return False
        return bool(np.any(self._top_speeds(self.sets[name]) > HAND_OVER * self._top_speeds(self.sets[self.stop_set])))

    def _faster_than_stop_set(self) -> bool:
        """True while a walk other than the stop set and the turn set steps faster than the stop set's maximum."""
        if not self.stop_set or not self.walking or self.set_name in (self.stop_set, self.turn_set):
            return False
        return bool(np.any(np.abs(self.step[:2]) > HAND_OVER * self._stop_caps()))

    def _stop_caps(self) -> np.ndarray:
        """The stop set's maximum forward and sideways speeds in steps of the set walked (m per step)."""
        return self._top_speeds(self.sets[self.stop_set]) * self.sets[self.set_name].phase_length

    def _capped(self, steps: np.ndarray) -> np.ndarray:
        """`steps` (x, y, theta) of the set walked, forward and sideways within the stop set's maximum speeds and the
        turn within the set's own limit: the command while a faster set hands over to the stop set."""
        p = self.sets[self.set_name]
        caps = np.minimum(self._stop_caps(), (p.max_step_x, p.max_step_y))
        out = np.array(steps, dtype=float)
        out[:2] = np.clip(out[:2], -caps, caps)
        out[2] = np.clip(out[2], -p.max_step_theta, p.max_step_theta)
        return out

    def _desire(self, steps: np.ndarray, target: WalkParams, slow: bool) -> None:
        """Walk toward `steps` of set `target`; while a faster set slows (`slow`), the same speeds in its own steps,
        capped (_capped)."""
        self.desired = self._capped(steps / target.phase_length * self.sets[self.set_name].phase_length) if slow \
            else steps
        self.stop_requested = False
        self.walking = True

    def command_normalized(self, x: float, y: float, theta: float, parameter_set: str = "") -> None:
        """x, y, theta in [-1, 1]: fractions of the parameter set's maximum step sizes."""
        v = np.clip(np.nan_to_num(np.array([x, y, theta], dtype=float)), -1.0, 1.0)
        mode = self._choose_set(parameter_set, abs(v[0]) < IN_PLACE and abs(v[1]) < IN_PLACE and v[2] != 0.0)
        if mode == "still":
            v = np.zeros(3)
        target = self.sets[self.stop_set if mode == "slow" else self.set_name]
        self._desire(v * np.array([target.max_step_x, target.max_step_y, self._max_turn(target, v[0], v[1])]),
                     target, mode == "slow")

    def command_velocity(self, vx: float, vy: float, vtheta: float, parameter_set: str = "") -> None:
        """m/s and rad/s in the robot frame: step sizes = velocity x step duration."""
        vx, vy, vtheta = np.nan_to_num(np.array([vx, vy, vtheta], dtype=float))
        mode = self._choose_set(parameter_set, abs(vx) < IN_PLACE_SPEED and abs(vy) < IN_PLACE_SPEED
                                and vtheta != 0.0)
        if mode == "still":
            vx = vy = vtheta = 0.0
        target = self.sets[self.stop_set if mode == "slow" else self.set_name]
        duration = target.phase_length  # a nominal step (ϕ_end − ϕ_start = 1)
        v = np.array([vx, vy, vtheta]) * duration
        maxes = np.array([target.max_step_x, target.max_step_y,
                          self._max_turn(target, v[0] / target.max_step_x, v[1] / target.max_step_y)])
        self._desire(np.clip(v, -maxes, maxes), target, mode == "slow")

    def command_stand(self) -> None:
        """§10.4.3: jog in place for jog_time, then stand. A set faster than the stop set first slows to the stop
        set's speeds, which then stops."""
        if self._faster_than_stop_set():
            self._asked, self._handing, self._stop_after, self._settling = self.stop_set, True, True, True
            self.desired = self._capped(np.array([self.step[0], self.step[1], 0.0]))
            return
        if not self.stop_requested:
            self._jog_left = self.jog_time
        self.stop_requested = True
        self.desired = np.zeros(3)

    def stop(self) -> None:
        """Stop at once, without the §10.4.3 jog: the next update stands. For a skill or kick that took the legs (the
        robot is standing when it ends) and after a fall."""
        self.walking = False
        self.stop_requested = True
        self.desired = np.zeros(3)
        self.step[:] = 0.0
        self._jog_left = 0.0
        self._handing = self._stop_after = self._settling = False
        self._settle_left = 0.0
        self._prev_stance = None
        self._placed_yaw = 0.0
        self._reset_heading()

    @property
    def standing(self) -> bool:
        """True when the walk stands still (never commanded, stopped, or the jog after command_stand has ended)."""
        return not self.walking

    def max_speed(self) -> tuple[float, float, float]:
        p = self.sets[self.set_name]
        return p.max_step_x / p.phase_length, p.max_step_y / p.phase_length, self._max_turn(p, 0, 0) / p.phase_length

    @staticmethod
    def _max_turn(p: WalkParams, fx: float, fy: float) -> float:
        """rad per step the walk may turn while stepping fx, fy (fractions of the maximum steps): turn_in_place at
        none, max_step_theta at a full step (deviation: a walk that turns fast in place falls when it turns as fast at
        full speed; docs/motion.md, "Heading hold, turning in place, speeding up")."""
        if p.turn_in_place <= 0.0:
            return p.max_step_theta
        f = min(1.0, math.hypot(fx, fy))
        return p.max_step_theta + (p.turn_in_place - p.max_step_theta) * (1.0 - f)

    # --- the cycle --------------------------------------------------------------------------------------------
    def _params(self, dt: float) -> WalkParams:
        target = self.sets[self.set_name]
        if self._blend_from is None:
            self.p = target
            return target
        self._blend_t += dt
        a = min(1.0, self._blend_t / self.blend_time)
        src, dst = self._blend_from, target
        if src.f_a or src.f_m or dst.f_a or dst.f_m:     # 0 means "the complement of f_g / f_s": blend the values
            src, dst = src.explicit(), dst.explicit()     # both walk, not a 0 halfway to another set's fraction
        self.p = replace(target, **{f.name: (1 - a) * getattr(src, f.name) + a * getattr(dst, f.name)
                                    for f in fields(WalkParams)})
        if a >= 1.0:
            self._blend_from = None
        return self.p

    def _reset_heading(self, keep_fix: bool = False) -> None:
        self._heading, self._heading_sum, self._heading_n = 0.0, 0.0, 0
        self._step_headings.clear()
        if not keep_fix:
            self._turn_fix = 0.0

    def _k(self, p: WalkParams) -> float:
        return math.sqrt(G / p.pendulum_height)

    def _new_step(self, p: WalkParams) -> None:
        """Swap stance and swing foot; the new pendulum starts where the lateral positions match (§10.1)."""
        if self._handing and not self._faster_than_stop_set():   # wound down: the stop set walks on, or stops
            self._handing = False
            self.desired *= self.sets[self.stop_set].phase_length / self.sets[self.set_name].phase_length
            self._switch_set(self.stop_set)
            if self._stop_after:
                self._stop_after = False
                self.command_stand()
        k = self._k(p)
        alpha = 6.0 - math.cosh(0.5 * k * self.phi_end)
        self.phi_start = -math.acosh(alpha) / (0.5 * k) if alpha >= 1.0 else -0.5
        self.phi_start = max(-0.75, min(-0.25, self.phi_start))   # keep step durations sane
        self.phi_end = -self.phi_start
        self.phi = self.phi_start
        if self.outward_turn:                             # the old swing foot stands at the yaw it was put down
            self._placed_yaw = self._turn_yaw(self.step[2] + self._turn_fix, swing_left=not self.left_stance)
        self.left_stance = not self.left_stance
        maxes = np.array([p.max_step_x, p.max_step_y,
                          self._max_turn(p, self.desired[0] / p.max_step_x, self.desired[1] / p.max_step_y)])
        desired = np.clip(self.desired, -maxes, maxes)
        # P control of step sizes; stopping decays faster so the jog in place (§10.4.3) ends soon after 0.5 s
        gain = np.full(3, max(p.delta, p.delta_stop) if self.stop_requested or self._stop_after else p.delta)
        old = self.step
        if p.delta_forward > 0.0 and desired[0] > old[0] >= 0.0:     # speeding up forward (deviation, docs/motion.md)
            gain[0] = p.delta_forward
        self.step = old + gain * (desired - old)
        bound = np.maximum(maxes, np.abs(old))      # clamp to maxStep, but a shrinking maximum is followed gradually,
        if self._turn_ended:                        # except the turn in place's: the walk that follows turns at most
            bound[2], self._turn_ended = maxes[2], False   # its own limit from its first step
        self.step = np.clip(self.step, -bound, bound)
        # §10.1 stability: shrink the steps by the COM error
        factor = 1.0 - min(1.0, max(0.0, (self.com_error - p.err_norm) / (p.err_max - p.err_norm)))
        self.step *= factor
        # heading hold (deviation, docs/motion.md): told not to turn, the step turns back by the gyro's heading change
        # (the mean over the last two steps: the torso yaws to and fro within each step, and a correction from the
        # heading at the step's end alone fed that sway back and made larger steps fall)
        if self._heading_n:
            self._step_headings.append(self._heading_sum / self._heading_n)
        self._heading_sum, self._heading_n = 0.0, 0
        drift = sum(self._step_headings) / len(self._step_headings) if self._step_headings else 0.0
        fix = -p.heading_gain * drift
        self._turn_fix = float(np.clip(fix, -maxes[2] - self.step[2], maxes[2] - self.step[2]))

    def update(self, dt: float = 0.02, sensed_joints: dict[str, float] | None = None,
               gyro: tuple[float, float, float] | None = None,
               acc: tuple[float, float, float] | None = None) -> WalkOutput:
        """One cycle: `sensed_joints` (rad) for the §10.1 COM check, `gyro` (rad/s, REP-103 torso axes: roll, pitch,
        yaw rates) for the balance feedback and `acc` (m/s^2, the accelerometer, REP-103 torso axes) with it for the
        torso's tilt (none without them)."""
        p = self._params(dt)
        self._com_cycle(sensed_joints)
        self.tilt.update(dt, gyro, acc)
        self._settle_left = max(0.0, self._settle_left - dt)
        if not self.walking:
            return self._stand(p)
        if self.stop_requested:
            self._jog_left -= dt
        if gyro is not None and not self.stop_requested and self.desired[2] == 0.0:
            self._heading += float(gyro[2]) * dt
            self._heading_sum += self._heading
            self._heading_n += 1
        else:
            self._reset_heading(keep_fix=True)
        # advance the phase
        dur = max(self.phi_end - self.phi_start, 1e-3)
        self.phi += dt / p.phase_length
        if self.phi >= self.phi_end:
            if self.stop_requested and self._jog_left <= 0 and np.all(np.abs(self.step) < (0.005, 0.005, 0.03)):
                self.walking = False
                if self._settling:
                    self._settling, self._settle_left = False, SETTLE_TIME
                self.step[:] = 0.0
                self._prev_stance = None
                self._placed_yaw = 0.0
                self._reset_heading()
                return self._stand(p)
            self._new_step(p)
            self._prev_stance = None
            dur = self.phi_end - self.phi_start
        t = min(1.0, max(0.0, (self.phi - self.phi_start) / dur))
        feet, stance_xy = self._feet(p, t, self.phi)
        joints, ok = self._ik(feet, p, gyro is not None or acc is not None)
        if gyro is not None:
            self._balance(joints, p, gyro)
        if self.robot_type == 4 and (p.toe_amp or p.toe_offset or p.toe_ankle_amp or p.toe_ankle_offset):
            self._toes(joints, p, t)
        odo = self._odometry(stance_xy)
        self._remember(joints, None)
        unstable = self.com_error > p.err_norm
        return WalkOutput(joints, t, self.left_stance, self.com_error, unstable, odo, False, ok, p.stiffness)

    def _feet(self, p: WalkParams, t: float, phi: float):
        k = self._k(p)
        f_a = p.f_a if p.f_a > 0 else 1.0 - 2.0 * p.f_g
        f_m = p.f_m if p.f_m > 0 else 1.0 - 2.0 * p.f_s
        sx, sy, sth = self.step
        sth += self._turn_fix
        # lift (z_frac)
        z_frac = 0.5 * (1 - math.cos(2 * math.pi * (t - p.f_g) / f_a)) if p.f_g <= t <= p.f_g + f_a else 0.0
        z_stance, z_swing = -p.z_torso, -p.z_torso + p.z_step * z_frac
        # side shift (cosh) and side steps (y_frac)
        y_stance = 0.5 * p.y_sep + p.y_shift * (-1.5 + 0.5 * math.cosh(0.5 * k * phi))
        y_swing = p.y_sep - y_stance
        if t < p.f_s:
            y_frac = 0.0
        elif t < p.f_s + f_m:
            y_frac = 0.5 * (1 - math.cos(math.pi * (t - p.f_s) / f_m))
        else:
            y_frac = 1.0
        # forward (x_frac with the sigmoid)
        if t < p.f_s:
            x_frac = -0.5 - t
        elif t < p.f_s + f_m:
            s = (sigmoid(10 * (-0.5 + (t - p.f_s) / f_m)) - _S0) / (_S1 - _S0)
            x_frac = -0.5 - p.f_s + (1 + 2 * p.f_s) * s
        else:
            x_frac = 0.5 + 2 * p.f_s + f_m - t
        x_stance, x_swing = sx * (0.5 - t), sx * x_frac
        dx = p.x_offset - sx * p.x_factor
        # groin rotation for turning: the share of the swing foot's turn done so far
        if t < p.f_s:
            groin = 0.0
        elif t < p.f_s + f_m:
            groin = 0.5 * (1 - math.cos(math.pi * (t - p.f_s) / f_m))
        else:
            groin = 1.0
        side = 1.0 if self.left_stance else -1.0     # +y is the stance foot's side
        stance_y = side * y_stance - sy * (t - 0.5)   # the torso moves over the stance foot sideways
        swing_y = -side * y_swing + sy * (y_frac - 0.5)
        # turning with outward foot yaw only: the hip yaw-pitch joint stops at +1 degree (SimSpark's Nao, and our
        # IK's limits), so a foot cannot turn inward. The foot on the side of the turn opens by 2 x the step's turn
        # while it swings and the torso turns over it back to 0 while it stands; the other foot stays straight.
        # (Turning each foot half inward is out of reach: the turn comes out at a quarter of what is asked or, from
        # some walking states, not at all; docs/motion.md, "Turning uses outward foot yaw only".)
        if self.outward_turn:
            stance_yaw = self._placed_yaw * (1.0 - t)     # the torso turns over the planted stance foot
            swing_yaw = self._turn_yaw(sth, swing_left=not self.left_stance) * groin
        else:
            stance_yaw = 0.5 * sth * (1 - 2 * t)
            swing_yaw = sth * (groin - 0.5)
        stance = (x_stance + dx, stance_y, z_stance, stance_yaw, p.torso_lean)
        swing = (x_swing + dx, swing_y, z_swing, swing_yaw, p.torso_lean + p.swing_pitch * z_frac)
        feet = {"L": stance, "R": swing} if self.left_stance else {"L": swing, "R": stance}
        return feet, (stance[0], stance[1], stance[3])

    @staticmethod
    def _turn_yaw(sth: float, swing_left: bool) -> float:
        """The yaw a swing foot is put down with for a step turning sth: 2 sth outward by the foot on the side of the
        turn (left for sth > 0), 0 by the other."""
        return 2.0 * sth if (sth > 0) == swing_left else 0.0

    def _ik(self, feet, p: WalkParams, feedback: bool = False) -> tuple[dict[str, float], bool]:
        """Leg angles for the feet (x, y, z, yaw, pitch per side, torso frame) and the arms' pose. `feedback`: turn the
        feet about the torso toward level by the tilt estimate (tilt_gain, roll_gain)."""
        joints: dict[str, float] = {}
        ok = True
        roll = -p.roll_gain * self.tilt.roll if feedback else 0.0
        pitch = -p.tilt_gain * self.tilt.pitch if feedback else 0.0
        for side, names in (("L", self.LEFT), ("R", self.RIGHT)):
            target = _pose(*feet[side])
            if roll or pitch:
                target = _tilted(target, roll, pitch)
            r = K.leg_angles(side, target, self.robot_type, start=self._leg_start.get(side))
            self._leg_start[side] = r.angles
            ok = ok and r.reachable
            joints.update(zip(names, r.angles.tolist(), strict=True))
        joints.update({"LShoulderPitch": p.arm_pitch, "RShoulderPitch": p.arm_pitch, "LShoulderRoll": p.arm_roll,
                       "RShoulderRoll": -p.arm_roll, "LElbowYaw": -1.4, "RElbowYaw": 1.4, "LElbowRoll": -0.4,
                       "RElbowRoll": 0.4})
        return joints, ok

    def _toes(self, joints: dict[str, float], p: WalkParams, t: float) -> None:
        """Robot type 4's toes over two steps (u = 0..2: the left foot's stance step, then its swing step), the right
        foot a step later, and the ankle pitch against them (module docstring)."""
        u = t + (0.0 if self.left_stance else 1.0)
        for side, shift in (("L", 0.0), ("R", 1.0)):
            joints[side + "ToePitch"] = p.toe_offset + p.toe_amp * math.cos(math.pi * (u + shift + p.toe_phase))
            joints[side + "AnklePitch"] += p.toe_ankle_offset + p.toe_ankle_amp * math.cos(
                math.pi * (u + shift + p.toe_ankle_phase))

    def _balance(self, joints: dict[str, float], p: WalkParams, gyro) -> None:
        """The stance ankle against the torso's rotation (module docstring, deviation)."""
        side = "L" if self.left_stance else "R"
        joints[side + "AnklePitch"] += p.gyro_pitch * float(gyro[1])
        joints[side + "AnkleRoll"] += p.gyro_roll * float(gyro[0])

    def _stand(self, p: WalkParams) -> WalkOutput:
        """The standing pose, remembered for the §10.1 COM check. Its IK answer and COM depend on these parameters
        alone while it is reachable (the closed form, whatever the IK's start), so a robot standing still reuses them
        instead of solving them again every cycle (solving them was 3 % of a game's CPU)."""
        key = (self.robot_type, p.x_offset, p.y_sep, p.z_torso, p.torso_lean, p.arm_pitch, p.arm_roll)
        if self._stand_cache is not None and self._stand_cache[0] == key:
            _, cached, starts, com = self._stand_cache
            self._leg_start.update(starts)
            joints, ok = dict(cached), True
        else:
            feet = {"L": (p.x_offset, 0.5 * p.y_sep, -p.z_torso, 0.0, p.torso_lean),
                    "R": (p.x_offset, -0.5 * p.y_sep, -p.z_torso, 0.0, p.torso_lean)}
            joints, ok = self._ik(feet, p)
            com = self._com(joints)
            self._stand_cache = (key, dict(joints), dict(self._leg_start), com) if ok else None
        self._remember(joints, com)
        return WalkOutput(joints, 0.0, self.left_stance, self.com_error, False, (0.0, 0.0, 0.0), True, ok,
                          p.stiffness)

    def _odometry(self, stance) -> tuple[float, float, float]:
        """The torso's motion over the planted stance foot since the last cycle, in the robot frame."""
        prev, self._prev_stance = self._prev_stance, stance
        if prev is None:
            return 0.0, 0.0, 0.0
        return prev[0] - stance[0], prev[1] - stance[1], prev[2] - stance[2]

    # --- §10.1 centre-of-mass check ------------------------------------------------------------------------
    def _com(self, joints: dict[str, float]) -> np.ndarray | None:
        """The COM the commanded `joints` put the body at (None: it cannot be computed from them)."""
        try:
            return K.center_of_mass(self._full(joints), self.robot_type)
        except (KeyError, ValueError):
            return None

    def _remember(self, joints: dict[str, float], com: np.ndarray | None) -> None:
        """This cycle's commanded joints; their COM (unless given) is computed at the next cycle's check, together with
        the sensed one (one kinematics pass for both)."""
        self._last_joints = joints
        self._pending_com = None
        if com is not None:
            self._expected.append(com)
        else:
            self._pending_com = joints

    def _full(self, joints: dict[str, float]) -> dict[str, float]:
        names = K.joint_names(self.robot_type)
        return {n: float(joints.get(n, 0.0)) for n in names}

    def _com_cycle(self, sensed: dict[str, float] | None) -> None:
        """The last cycle's commanded COM joins the expected ones; with sensed joints, the COM they give is compared
        with the one commanded ~80 ms ago."""
        rows = []
        pending = self._pending_com
        if pending is not None:
            rows.append(K.joint_vector(pending, self.robot_type))
        check = sensed is not None and self._last_joints is not None
        if check:
            merged = {**self._last_joints, **{k: v for k, v in sensed.items() if math.isfinite(v)}}
            rows.append(K.joint_vector(merged, self.robot_type))
        if not rows:
            return
        try:
            coms = K.centers_of_mass(np.array(rows), self.robot_type)
        except ValueError:
            return
        if pending is not None:
            self._pending_com = None
            if np.all(np.isfinite(coms[0])):
                self._expected.append(coms[0])
        if check and len(self._expected) > self.com_delay_cycles:
            expected = self._expected[0]        # what we commanded ~80 ms ago
            self.com_error = float(np.max(np.abs(expected[:2] - coms[-1][:2])))
