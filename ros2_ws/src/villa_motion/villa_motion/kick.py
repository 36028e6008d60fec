"""The IK kick engine: UT Austin Villa 2011 report §13.1 (kick choice §13.1.1, kick-off long kick §11.2.1).

A kick is a foot trajectory defined relative to the ball by a few waypoints (position + roll/pitch/yaw of the sole)
read from a kick definition file (``kicks/*.kick``, below). When the robot has shifted its weight onto the support
foot, the ball's position relative to the torso is added to the waypoints (§13.1.2); the positions are interpolated
with a cubic Hermite spline over the normalized kick time, the Euler angles linearly (§13.1.3); villa_nao's analytic
leg IK turns each sample into joint angles for the PD controllers (§13.1.4). Before committing, the IK must reach
more than 90 % of the trajectory's samples, otherwise the kick is refused and the caller approaches again (§13.1.1).

Units: metres, seconds, radians (the seed writes mm). Frames: the robot frame is the torso frame (REP-103: x forward,
y left, z up); ``ball_rel`` is the ball's position on the ground in that frame, projected horizontally (x, y), as
the world model gives it. Waypoints are sole-origin positions relative to the ball's ground contact point, in the
robot frame; roll/pitch/yaw (rad, 'sxyz') of the sole relative to the standing foot. A kick file describes a
left-foot kick; ``<name>_L`` is it, ``<name>_R`` its mirror image (y, roll, yaw and the direction negated).

Kick file (one kick per file, '#' comments; every error names file:line)::

    KICK forward                       # name
    DIRECTION 0                        # rad: where the ball goes, robot frame (left-foot kick)
    BALL 0.17 0.055                    # m: ball position in the robot frame to stand at (the approach target)
    SHIFT 0.5 0.06 0.02                # weight shift: duration s, torso over the support foot m, foot lift m
    DURATION 0.3                       # s: time through the curve
    RETURN 0.5                         # s: back to standing
    WAYPOINT 0.4 -0.15 0.0 0.05 0 0 0  # u (normalized time, increasing in (0, 1]) x y z roll pitch yaw
    WAYPOINT 1.0 0.10 0.0 0.05 0 0 0 TANGENT 0.8 0 0   # optional tangent (m per unit u); else Catmull-Rom

Public API (what the optimizer and the motion node use):

- ``load_kicks(directory) -> dict[str, KickDef]``: every ``*.kick`` file, as ``<name>_L`` / ``<name>_R``;
  ``load_kick_set(set_name, simulator=, robot_type=)``: this package's kicks with a named parameter set applied,
  per simulator and robot type (what node and strategy use); ``load_in_play(set_name, simulator=)``: the kicks the
  strategy may choose in play in that world.
- ``parameter_vector(kick) -> list[Param]`` (name, value, lo, hi) of one kick definition; ``with_parameters(kick,
  {name: value})`` builds the kick from a parameter dict (unknown names raise); ``load_kick_parameters(path, set)``
  reads a named YAML parameter set ``{kick name: {parameter: value}}`` (``config/kick_params.yaml``, like
  ``params.load_parameter_sets`` for the walk) and ``apply_parameter_set(kicks, values)`` applies it.
- ``KickEngine(kick, stand=StandPose(...), robot_type)``: ``start(ball_rel) -> bool`` (False: refused as unreachable,
  ``reason`` says why), then once per 20 ms cycle ``update(dt, sensed_joints) -> {NAOqi joint: target rad}`` until
  ``done``. ``phase`` is shift / kick / return / done (open loop: ``sensed_joints`` is accepted for the caller's
  convenience and not used yet). ``stand_joints(stand)``: the standing targets a kick starts from and ends in.
- ``reachable_fraction(kick, ball_rel, stand)``; ``choose_kick(kicks, me, theta, ball, direction)`` (§13.1.1 cost)
  -> (kick, stand-at xy, face theta, cost); ``approach_pose``; ``kickoff_direction(rng)`` (§11.2.1).

A kick run in the in-process simulation from standing is villa_optimize.standing_kick's episode
(villa_optimize.worlds.InProcessWorld); villa_motion imports no simulator.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from scipy.interpolate import CubicHermiteSpline
from transforms3d.euler import euler2mat

from villa_motion.params import ROBOT_TYPES_KEY
from villa_nao import kinematics as K
from villa_nao.joints import is_robot_type
from villa_nao.params import config_path, overlay_path, read_yaml, share_path

LEFT = ("LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll")
RIGHT = ("RHipYawPitch", "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll")
ARMS = {"LShoulderPitch": 1.6, "RShoulderPitch": 1.6, "LShoulderRoll": 0.15, "RShoulderRoll": -0.15,
        "LElbowYaw": -1.4, "RElbowYaw": 1.4, "LElbowRoll": -0.4, "RElbowRoll": 0.4}
REACH_FRACTION = 0.9        # §13.1.1: the IK must reach more than this fraction of the trajectory
REACH_SAMPLES = 40
REACH_POS_TOL = 0.005       # m: a sample counts as reached when the IK's nearest pose is this close ...
REACH_ROT_TOL = 0.05        # rad: ... and this close in orientation
POS_SPAN, ANGLE_SPAN = 0.06, 0.5   # default optimizer bounds: +- around a waypoint's file value (m, rad)


class KickError(ValueError):
    """A kick file or parameter set that cannot be read; the message starts with file:line."""


@dataclass(frozen=True)
class Waypoint:
    u: float                                # normalized time of the kick curve, (0, 1]
    pos: tuple[float, float, float]         # sole origin relative to the ball's ground point, robot frame, m
    rpy: tuple[float, float, float]         # sole roll, pitch, yaw, rad
    tangent: tuple[float, float, float] | None = None   # m per unit u; None: Catmull-Rom


@dataclass(frozen=True)
class KickDef:
    """One directional kick (§13.1.5) for one foot."""

    name: str
    foot: str                               # "L" or "R": the kicking foot
    direction: float                        # rad, robot frame: where the ball should go
    ball: tuple[float, float]               # ball position (robot frame) to stand at: the approach target offset
    shift_time: float
    shift_y: float                          # m the torso moves over the support foot
    lift: float                             # m the kicking foot rises before the curve
    duration: float                         # s through the curve
    return_time: float
    waypoints: tuple[Waypoint, ...]
    source: str = ""
    base: str = ""                          # the file's kick name (shared by _L and _R)
    stand: float = 0.0                      # s the walk stands after the kick before it walks (parameter "stand")

    def mirrored(self) -> KickDef:
        """The same kick with the other foot (mirror image about the robot's x-z plane)."""
        wps = tuple(replace(w, pos=(w.pos[0], -w.pos[1], w.pos[2]), rpy=(-w.rpy[0], w.rpy[1], -w.rpy[2]),
                            tangent=None if w.tangent is None else (w.tangent[0], -w.tangent[1], w.tangent[2]))
                    for w in self.waypoints)
        foot = "R" if self.foot == "L" else "L"
        return replace(self, name=f"{self.base}_{foot}", foot=foot, direction=-self.direction,
                       ball=(self.ball[0], -self.ball[1]), waypoints=wps)


@dataclass(frozen=True)
class StandPose:
    """The standing feet the kick starts from and returns to (the walk's stand: WalkParams fields)."""

    z_torso: float = 0.34
    x_offset: float = -0.0393
    y_sep: float = 0.11
    torso_lean: float = 0.0447

    @classmethod
    def from_walk(cls, p) -> StandPose:
        return cls(p.z_torso, p.x_offset, p.y_sep, p.torso_lean)


# --- kick files (§13.1.5) ----------------------------------------------------------------------------------------
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _numbers(tok: list[str], n: int, where: str, what: str) -> list[float]:
    if len(tok) != n or not all(re.fullmatch(_NUM, t) for t in tok):
        raise KickError(f"{where}: expected {what}")
    out = [float(t) for t in tok]
    if not all(math.isfinite(v) for v in out):
        raise KickError(f"{where}: numbers must be finite")
    return out


def parse_kick(text: str, source: str = "<kick>") -> KickDef:
    """A left-foot kick definition from kick-file text (format: module docstring)."""
    name = None
    values: dict[str, list[float]] = {}
    wps: list[Waypoint] = []
    singles = {"DIRECTION": (1, "DIRECTION <rad>"), "BALL": (2, "BALL <x m> <y m>"),
               "SHIFT": (3, "SHIFT <duration s> <sideways m> <lift m>"), "DURATION": (1, "DURATION <s>"),
               "RETURN": (1, "RETURN <s>")}
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{lineno}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tok = line.split()
        head = tok[0]
        if head == "KICK":
            if name is not None:
                raise KickError(f"{where}: a second KICK line (one kick per file)")
            if len(tok) != 2 or not re.fullmatch(r"[A-Za-z]\w*", tok[1]):
                raise KickError(f"{where}: expected 'KICK <name>' (letters, digits, _)")
            name = tok[1]
            continue
        if name is None:
            raise KickError(f"{where}: the file must start with 'KICK <name>'")
        if head in singles:
            n, what = singles[head]
            if head in values:
                raise KickError(f"{where}: {head} given twice")
            values[head] = _numbers(tok[1:], n, where, f"'{what}'")
        elif head == "WAYPOINT":
            what = "'WAYPOINT <u> <x> <y> <z> <roll> <pitch> <yaw> [TANGENT <tx> <ty> <tz>]'"
            tangent = None
            if len(tok) == 12 and tok[8] == "TANGENT":
                tangent = tuple(_numbers(tok[9:], 3, where, what))
                tok = tok[:8]
            v = _numbers(tok[1:], 7, where, what)
            if not 0.0 < v[0] <= 1.0 or (wps and v[0] <= wps[-1].u):
                raise KickError(f"{where}: waypoint times u must increase within (0, 1], got {v[0]:g}")
            wps.append(Waypoint(v[0], tuple(v[1:4]), tuple(v[4:7]), tangent))
        else:
            raise KickError(f"{where}: unknown statement {head!r} (KICK, DIRECTION, BALL, SHIFT, DURATION, RETURN, "
                            f"WAYPOINT)")
    if name is None:
        raise KickError(f"{source}: empty kick file (expected 'KICK <name>')")
    missing = [k for k in singles if k not in values]
    if missing:
        raise KickError(f"{source}: kick {name} lacks {', '.join(missing)}")
    if len(wps) < 2:
        raise KickError(f"{source}: kick {name} needs at least 2 WAYPOINT lines (§13.2: three to five)")
    if wps[-1].u != 1.0:
        raise KickError(f"{source}: kick {name}: the last waypoint must be at u = 1")
    shift_t, shift_y, lift = values["SHIFT"]
    kick = KickDef(f"{name}_L", "L", values["DIRECTION"][0], tuple(values["BALL"]), shift_t, shift_y, lift,
                   values["DURATION"][0], values["RETURN"][0], tuple(wps), source, name)
    try:
        return _validate(kick)
    except ValueError as e:
        raise KickError(f"{source}: {e}") from None


def _validate(k: KickDef) -> KickDef:
    if not (0.05 <= k.shift_time <= 3.0 and 0.05 <= k.duration <= 3.0 and 0.05 <= k.return_time <= 3.0):
        raise ValueError(f"kick {k.base}: SHIFT, DURATION and RETURN times must be within 0.05..3 s")
    if not (0.0 <= k.shift_y <= 0.12 and 0.0 <= k.lift <= 0.1):
        raise ValueError(f"kick {k.base}: SHIFT sideways must be 0..0.12 m and lift 0..0.1 m")
    if not 0.0 <= k.stand <= 3.0:
        raise ValueError(f"kick {k.base}: {STAND_PARAMETER} (s standing after the kick) must be within 0..3 s")
    return k


def load_kick(path: str | Path) -> KickDef:
    path = Path(path)
    try:
        return parse_kick(path.read_text(), str(path))
    except OSError as e:
        raise KickError(f"{path}: cannot read: {e.strerror}") from None


def load_kicks(directory: str | Path) -> dict[str, KickDef]:
    """Every ``*.kick`` file of a directory, each as ``<name>_L`` and its mirror ``<name>_R``."""
    out: dict[str, KickDef] = {}
    for p in sorted(Path(directory).glob("*.kick")):
        k = load_kick(p)
        for v in (k, k.mirrored()):
            if v.name in out:
                raise KickError(f"{p}: kick {k.base} is defined twice (also in {out[v.name].source})")
            out[v.name] = v
    return out


def load_kick_set(set_name: str = "tuned", kicks_dir: str | Path | None = None,
                  params_path: str | Path | None = None, simulator: str | None = None,
                  robot_type: int | None = 0) -> dict[str, KickDef]:
    """The kicks of ``kicks_dir`` (default: this package's ``kicks/``) with a named parameter set of
    ``params_path`` (default: ``config/kick_params.yaml``) applied; ``set_name`` "" = the files' own numbers. Where
    `simulator`'s overlay of the file (villa_nao.params.overlay_path) has the set, its kicks' values replace those.
    Last, `robot_type`'s values of the set (``robot_types: {set: {type: {kick: {parameter: value}}}}``, the ball
    offsets where that type's leg IK reaches the curve: bench/kick_reach.py) from the overlay, or from the file for a
    kick the overlay does not replace (they were found for the file's curve); None: no robot type's values."""
    kicks = load_kicks(kicks_dir or default_kicks_dir())
    if not set_name:
        return kicks
    if params_path is None:
        params_path = config_path("villa_motion", "kick_params.yaml")
    data = read_yaml(params_path, "the kick parameter sets", KickError)
    values = _set_values(data, Path(params_path), set_name)
    per_type = _type_values(data, params_path, set_name, robot_type) if robot_type is not None else {}
    overlay = overlay_path(params_path, simulator)
    if overlay is not None:
        over = read_yaml(overlay, "the kick parameter overlay", KickError) or {}
        if not isinstance(over, dict) or set_name in (over.get("sets") or {}):
            for kick, params in _set_values(over, overlay, set_name).items():
                values.setdefault(kick, {}).update(params)
                per_type.pop(kick, None)
        if robot_type is not None:
            per_type.update(_type_values(over, overlay, set_name, robot_type))
    for kick, params in per_type.items():
        values.setdefault(kick, {}).update(params)
    return apply_parameter_set(kicks, values)


def _type_values(data, path: str | Path, set_name: str, robot_type: int) -> dict[str, dict[str, float]]:
    """A kick parameter file's (`data`, read from `path`) ``robot_types: {set: {type: {kick: {parameter: value}}}}``
    values for one set and robot type."""
    section = data.get(ROBOT_TYPES_KEY) if isinstance(data, dict) else None
    if section is None:
        return {}
    where = f"{path}: {ROBOT_TYPES_KEY}"
    if not isinstance(section, dict) or not all(isinstance(v, dict) for v in section.values()):
        raise KickError(f"{where}: expected {{set: {{robot type: {{kick: {{parameter: value}}}}}}}}")
    for s, types in section.items():
        bad = [t for t in types if not is_robot_type(t)]
        if bad:
            raise KickError(f"{where}.{s}: robot types are 0..4, got {bad}")
    kicks = section.get(set_name, {}).get(int(robot_type)) or {}
    if not isinstance(kicks, dict) or not all(isinstance(v, dict) for v in kicks.values()):
        raise KickError(f"{where}.{set_name}.{robot_type}: expected {{kick: {{parameter: value}}}}")
    try:
        return {str(k): {str(n): float(x) for n, x in v.items()} for k, v in kicks.items()}
    except (TypeError, ValueError) as e:
        raise KickError(f"{where}.{set_name}.{robot_type}: every value must be a number: {e}") from None


IN_PLAY_KEY = "in_play"


def load_in_play(set_name: str = "tuned", params_path: str | Path | None = None,
                 simulator: str | None = None) -> frozenset[str] | None:
    """The kicks (base names) the strategy may choose in play with parameter set `set_name` in `simulator`'s world:
    ``in_play: {set: [kick, ...]}`` of `simulator`'s overlay of the kick parameter file where it names the set, else
    of the file itself (default ``config/kick_params.yaml``); a set without a list has its ``inherit`` set's. None:
    no list, every kick is in play. Where a kick falls or barely moves the ball from standing in a world
    (bench/kick_bench.py), its set leaves it out there."""
    if params_path is None:
        params_path = config_path("villa_motion", "kick_params.yaml")
    base = read_yaml(params_path, "the kick parameter sets", KickError) or {}
    sets = base.get("sets") if isinstance(base, dict) else None
    if not isinstance(sets, dict):
        raise KickError(f"{params_path}: expected 'sets: {{name: {{kick: {{parameter: value}}}}}}'")
    files = [(p, read_yaml(p, "the kick parameter overlay", KickError) or {})
             for p in (overlay_path(params_path, simulator),) if p is not None] + [(Path(params_path), base)]
    sections = []
    for path, data in files:
        section = data.get(IN_PLAY_KEY) if isinstance(data, dict) else None
        if section is not None and (not isinstance(section, dict)
                                    or not all(isinstance(v, list) for v in section.values())):
            raise KickError(f"{path}: {IN_PLAY_KEY}: expected {{set: [kick name, ...]}}")
        sections.append((path, section or {}))
    found = next(((path, name, section[name]) for name in set_chain(sets, Path(params_path), set_name)
                  for path, section in sections if name in section), None)
    if found is None:
        return None
    path, set_name, names = found
    known = {k.base for k in load_kicks(default_kicks_dir()).values()}
    unknown = sorted(set(map(str, names)) - known)
    if unknown:
        raise KickError(f"{path}: {IN_PLAY_KEY}.{set_name}: no kick {', '.join(unknown)} "
                        f"(have {', '.join(sorted(known))})")
    return frozenset(map(str, names))


def default_kicks_dir() -> Path:
    """The installed ``share/villa_motion/kicks`` (through the ament index, villa_nao.params.share_path)."""
    return share_path("villa_motion", "kicks")


# --- parameters for the optimizer (§13.2) ------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    value: float
    lo: float
    hi: float


def parameter_vector(kick: KickDef) -> list[Param]:
    """The tunable numbers of a kick (§13.2: waypoints XYZ and RPY, the speed through the curve, the approach
    offset), with bounds: waypoints +-6 cm and +-0.5 rad around the file's values, times 0.5x..2x."""
    out = [Param("ball.x", k := kick.ball[0], k - POS_SPAN, k + POS_SPAN),
           Param("ball.y", k := kick.ball[1], k - POS_SPAN, k + POS_SPAN),
           Param("shift_time", kick.shift_time, max(0.05, 0.5 * kick.shift_time), min(3.0, 2 * kick.shift_time)),
           Param("shift_y", kick.shift_y, max(0.0, kick.shift_y - 0.03), min(0.12, kick.shift_y + 0.03)),
           Param("lift", kick.lift, 0.0, min(0.1, kick.lift + 0.03)),
           Param("duration", kick.duration, max(0.05, 0.5 * kick.duration), min(3.0, 2 * kick.duration))]
    for i, w in enumerate(kick.waypoints, 1):
        for axis, v in zip("xyz", w.pos, strict=True):
            out.append(Param(f"wp{i}.{axis}", v, v - POS_SPAN, v + POS_SPAN))
        for axis, v in zip(("roll", "pitch", "yaw"), w.rpy, strict=True):
            out.append(Param(f"wp{i}.{axis}", v, v - ANGLE_SPAN, v + ANGLE_SPAN))
    return out


STAND_PARAMETER = "stand"   # s the walk stands after the kick (KickDef.stand): set per world, not optimized


def with_parameters(kick: KickDef, values: Mapping[str, float]) -> KickDef:
    """The kick with some parameters (names of ``parameter_vector``, and STAND_PARAMETER) replaced; values for the
    kick's own foot."""
    known = {p.name for p in parameter_vector(kick)} | {STAND_PARAMETER}
    unknown = set(values) - known
    if unknown:
        raise KickError(f"kick {kick.name}: unknown parameters {', '.join(sorted(unknown))} "
                        f"(known: {', '.join(sorted(known))})")
    v = {k: float(x) for k, x in values.items()}
    if not all(math.isfinite(x) for x in v.values()):
        raise KickError(f"kick {kick.name}: parameter values must be finite")
    wps = []
    for i, w in enumerate(kick.waypoints, 1):
        pos = tuple(v.get(f"wp{i}.{a}", w.pos[j]) for j, a in enumerate("xyz"))
        rpy = tuple(v.get(f"wp{i}.{a}", w.rpy[j]) for j, a in enumerate(("roll", "pitch", "yaw")))
        wps.append(replace(w, pos=pos, rpy=rpy))
    out = replace(kick, ball=(v.get("ball.x", kick.ball[0]), v.get("ball.y", kick.ball[1])),
                  shift_time=v.get("shift_time", kick.shift_time), shift_y=v.get("shift_y", kick.shift_y),
                  lift=v.get("lift", kick.lift), duration=v.get("duration", kick.duration), waypoints=tuple(wps),
                  stand=v.get(STAND_PARAMETER, kick.stand))
    try:
        return _validate(out)
    except ValueError as e:
        raise KickError(str(e)) from None


def load_kick_parameters(path: str | Path, set_name: str) -> dict[str, dict[str, float]]:
    """A named kick parameter set from YAML: ``sets: {name: {inherit: other, <kick base>: {parameter: value}}}``.
    Parameters are those of the left-foot kick; the mirrored right-foot kick shares them."""
    path = Path(path)
    return _set_values(read_yaml(path, "the kick parameter sets", KickError), path, set_name)


def set_chain(sets: dict, path: Path, set_name: str) -> list[str]:
    """`set_name` and the sets it inherits from, nearest first (a file's ``sets``, read from `path`)."""
    if set_name not in sets:
        raise KickError(f"{path}: no kick parameter set {set_name!r} (have {', '.join(map(str, sets))})")
    chain, name = [], set_name
    while name is not None:
        if name in chain:
            raise KickError(f"{path}: sets.{set_name}: inherit loops through {name!r}")
        if name not in sets:
            raise KickError(f"{path}: sets.{chain[-1]}.inherit: no set {name!r}")
        body = sets[name] or {}
        if not isinstance(body, dict):
            raise KickError(f"{path}: sets.{name}: expected a mapping of kicks")
        chain.append(name)
        name = body.get("inherit")
    return chain


def _set_values(data, path: Path, set_name: str) -> dict[str, dict[str, float]]:
    """load_kick_parameters on a file's contents `data` (read from `path`)."""
    sets = (data or {}).get("sets") if isinstance(data, dict) else None
    if not isinstance(sets, dict):
        raise KickError(f"{path}: expected 'sets: {{name: {{kick: {{parameter: value}}}}}}'")
    chain = set_chain(sets, path, set_name)
    out: dict[str, dict[str, float]] = {}
    for name in reversed(chain):
        for kick, params in (sets[name] or {}).items():
            if kick == "inherit":
                continue
            if not isinstance(params, dict):
                raise KickError(f"{path}: sets.{name}.{kick}: expected {{parameter: value}}")
            try:
                out.setdefault(str(kick), {}).update({str(k): float(x) for k, x in params.items()})
            except (TypeError, ValueError) as e:
                raise KickError(f"{path}: sets.{name}.{kick}: every value must be a number: {e}") from None
    return out


def apply_parameter_set(kicks: Mapping[str, KickDef], values: Mapping[str, Mapping[str, float]]) -> dict[str, KickDef]:
    """Kicks with a parameter set applied (keys: kick base names); the right foot's kick is the mirrored left one."""
    bases = {k.base for k in kicks.values()}
    unknown = set(values) - bases
    if unknown:
        raise KickError(f"kick parameters for unknown kicks {', '.join(sorted(unknown))} (have {', '.join(bases)})")
    out = dict(kicks)
    for base, params in values.items():
        left = with_parameters(kicks[f"{base}_L"], params)
        out[left.name] = left
        out[f"{base}_R"] = left.mirrored()
    return out


# --- the trajectory (§13.1.2-13.1.4) -----------------------------------------------------------------------------
def _pose(pos, rpy, lean: float) -> np.ndarray:
    t = np.eye(4)
    t[:3, :3] = euler2mat(rpy[0], rpy[1] + lean, rpy[2], "sxyz")
    t[:3, 3] = pos
    return t


@dataclass
class Trajectory:
    """The kicking foot's curve in the torso frame: a Hermite spline of positions, linear Euler angles (§13.1.3)."""

    knots: np.ndarray           # (n,) normalized times, 0 first
    points: np.ndarray          # (n, 3) torso frame
    tangents: np.ndarray        # (n, 3) per unit u
    angles: np.ndarray          # (n, 3) roll pitch yaw
    lean: float
    spline: CubicHermiteSpline = field(init=False)

    def __post_init__(self) -> None:
        self.spline = CubicHermiteSpline(self.knots, self.points, self.tangents)

    def position(self, u: float) -> np.ndarray:
        return self.spline(min(1.0, max(0.0, u)))

    def rpy(self, u: float) -> np.ndarray:
        u = min(1.0, max(0.0, u))
        return np.array([np.interp(u, self.knots, self.angles[:, i]) for i in range(3)])

    def pose(self, u: float) -> np.ndarray:
        return _pose(self.position(u), self.rpy(u), self.lean)

    def poses(self, us) -> np.ndarray:
        """``pose`` at each of `us` at once: (N, 4, 4)."""
        us = np.clip(np.asarray(us, dtype=float), 0.0, 1.0)
        rpy = np.stack([np.interp(us, self.knots, self.angles[:, i]) for i in range(3)], -1)
        out = np.zeros((len(us), 4, 4))
        # euler2mat(roll, pitch + lean, yaw, "sxyz") = Rz(yaw) Ry(pitch + lean) Rx(roll)
        cr, sr = np.cos(rpy[:, 0]), np.sin(rpy[:, 0])
        cp, sp = np.cos(rpy[:, 1] + self.lean), np.sin(rpy[:, 1] + self.lean)
        cy, sy = np.cos(rpy[:, 2]), np.sin(rpy[:, 2])
        out[:, 0, :3] = np.stack([cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr], -1)
        out[:, 1, :3] = np.stack([sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr], -1)
        out[:, 2, :3] = np.stack([-sp, cp * sr, cp * cr], -1)
        out[:, :3, 3] = self.spline(us)
        out[:, 3, 3] = 1.0
        return out


def _stand_feet(stand: StandPose) -> dict[str, np.ndarray]:
    return {"L": np.array([stand.x_offset, 0.5 * stand.y_sep, -stand.z_torso]),
            "R": np.array([stand.x_offset, -0.5 * stand.y_sep, -stand.z_torso])}


def shifted_feet(kick: KickDef, stand: StandPose) -> dict[str, np.ndarray]:
    """Sole positions (torso frame) after the weight shift: the torso over the support foot, the kicking foot lifted."""
    feet = _stand_feet(stand)
    sign = 1.0 if kick.foot == "R" else -1.0        # the support foot's side (+y: left)
    out = {s: p + np.array([0.0, -sign * kick.shift_y, 0.0]) for s, p in feet.items()}
    out[kick.foot] = out[kick.foot] + np.array([0.0, 0.0, kick.lift])
    return out


def ball_after_shift(kick: KickDef, ball_rel, stand: StandPose) -> np.ndarray:
    """§13.1.2: where the ball is relative to the torso once the weight is shifted (the support foot stays planted)."""
    support = "R" if kick.foot == "L" else "L"
    before, after = _stand_feet(stand)[support], shifted_feet(kick, stand)[support]
    b = np.array([float(ball_rel[0]), float(ball_rel[1]), before[2]])
    return b - before + after


def trajectory(kick: KickDef, ball_rel, stand: StandPose) -> Trajectory:
    """§13.1.2: the kick's waypoints plus the ball's position (torso frame, after the shift); the curve starts at the
    kicking foot's shifted pose with zero velocity. Missing tangents: Catmull-Rom; the last one-sided."""
    ball = ball_after_shift(kick, ball_rel, stand)
    start = shifted_feet(kick, stand)[kick.foot]
    knots = np.array([0.0] + [w.u for w in kick.waypoints])
    pts = np.vstack([start] + [ball + np.array(w.pos) for w in kick.waypoints])
    angles = np.vstack([np.zeros(3)] + [np.array(w.rpy) for w in kick.waypoints])
    tan = np.zeros_like(pts)
    for i, w in enumerate(kick.waypoints, 1):
        if w.tangent is not None:
            tan[i] = w.tangent
        elif i < len(pts) - 1:
            tan[i] = (pts[i + 1] - pts[i - 1]) / (knots[i + 1] - knots[i - 1])
        else:
            tan[i] = (pts[i] - pts[i - 1]) / (knots[i] - knots[i - 1])
    return Trajectory(knots, pts, tan, angles, stand.torso_lean)


def leg_angles(side: str, target: np.ndarray, robot_type: int = 0, pos_tol: float = 0.001,
               rot_tol: float = 0.01) -> tuple[np.ndarray, bool]:
    """§13.1.4: leg joint angles for a sole pose and whether it is reached within the tolerances (m, rad): villa_nao's
    leg IK, whose closed-form answer skips the nearest-pose search (about 5 ms) when within them."""
    r = K.leg_ik(side, target, robot_type, pos_tol=pos_tol, rot_tol=rot_tol)
    return r.angles, r.reachable


def reachable_fraction(kick: KickDef, ball_rel, stand: StandPose = StandPose(), robot_type: int = 0,
                       samples: int = REACH_SAMPLES) -> float:
    """§13.1.1: the fraction of trajectory samples the leg IK reaches (within 5 mm and 0.05 rad)."""
    return float(_reached(kick, ball_rel, stand, robot_type, samples).mean())


def _reached(kick: KickDef, ball_rel, stand: StandPose, robot_type: int, samples: int) -> np.ndarray:
    """Whether the leg IK reaches each of `samples` poses along the kick's curve (within 5 mm and 0.05 rad), all at
    once (issue 21: pose by pose with leg_ik a check cost 4-60 ms, every cycle of a kick's lining up, and the kick-off
    taker answered late in real-time matches)."""
    return _reached_poses(kick.foot, _curve_poses(kick, ball_rel, stand, samples), robot_type)


def _curve_poses(kick: KickDef, ball_rel, stand: StandPose, samples: int = REACH_SAMPLES) -> np.ndarray:
    """The sole's poses at `samples` evenly spaced points of the kick's curve for this ball: (samples, 4, 4)."""
    return trajectory(kick, ball_rel, stand).poses(np.linspace(0.0, 1.0, samples))


def _reached_poses(foot: str, poses: np.ndarray, robot_type: int) -> np.ndarray:
    """The reach test of a kick's poses: villa_nao's leg_reaches, its quick search (a few ms for a ball position)."""
    return K.leg_reaches(foot, poses, robot_type, REACH_POS_TOL, REACH_ROT_TOL, quick=True)


REACH_GRID = 0.005          # m: reachable() answers for the ball position rounded to this grid


def reachable(kick: KickDef, ball_rel, stand: StandPose = StandPose(), robot_type: int = 0,
              margin: float = 0.0) -> bool:
    """§13.1.1 "close enough to kick" for the approach, checked every cycle: reachable_fraction > 90 % for the ball
    position rounded to 5 mm, and for it moved `margin` m forward, back, left and right (inside the reachable region,
    not on its edge), remembered per kick; the cells not remembered yet are checked in one vectorised pass
    (KickEngine.start checks the ball itself)."""
    x, y = float(ball_rel[0]), float(ball_rel[1])
    points = [(x, y)] + ([(x + margin, y), (x - margin, y), (x, y + margin), (x, y - margin)] if margin > 0 else [])
    keys = [(kick, stand, robot_type, (round(px / REACH_GRID), round(py / REACH_GRID))) for px, py in points]
    known = {k: _REACH_CACHE.get(k) for k in keys}      # read once: players on other threads share the cache
    new = [k for k, v in known.items() if v is None]
    if new:
        poses = np.concatenate([_curve_poses(kick, (q[0] * REACH_GRID, q[1] * REACH_GRID), stand)
                                for _, _, _, q in new])
        hits = _reached_poses(kick.foot, poses, robot_type).reshape(len(new), -1)
        known.update(zip(new, (bool(f > REACH_FRACTION) for f in hits.mean(axis=1)), strict=True))
        if len(_REACH_CACHE) + len(new) > REACH_CACHE_SIZE:
            _REACH_CACHE.clear()
        _REACH_CACHE.update((k, known[k]) for k in new)
    return all(known[k] for k in keys)


REACH_CACHE_SIZE = 16384
_REACH_CACHE: dict[tuple, bool] = {}     # (kick, stand, robot type, grid cell) -> reachable


# --- the engine ------------------------------------------------------------------------------------------------
def _smooth(a: float) -> float:
    a = min(1.0, max(0.0, a))
    return 0.5 - 0.5 * math.cos(math.pi * a)


class KickEngine:
    """Runs one kick: weight shift, the curve through the ball, return to standing (§13.1, Fig. 14)."""

    def __init__(self, kick: KickDef, stand: StandPose = StandPose(), robot_type: int = 0) -> None:
        self.kick, self.stand, self.robot_type = kick, stand, robot_type
        self.phase = "idle"
        self.t = 0.0
        self.reason = ""
        self.fraction = 0.0
        self.traj: Trajectory | None = None
        self._last: dict[str, float] = {}

    @property
    def done(self) -> bool:
        return self.phase in ("done", "refused")

    @property
    def refused(self) -> bool:
        return self.phase == "refused"

    def start(self, ball_rel) -> bool:
        """Check reachability (§13.1.1) and commit; False (phase 'refused', ``reason`` set) when the IK reaches too
        little of the curve for this ball position (robot frame, m)."""
        b = np.asarray(ball_rel, dtype=float).ravel()[:2]
        if b.size != 2 or not np.all(np.isfinite(b)):
            self.phase, self.reason = "refused", f"ball position must be 2 finite numbers, got {ball_rel!r}"
            return False
        self.fraction = reachable_fraction(self.kick, b, self.stand, self.robot_type)
        if self.fraction <= REACH_FRACTION:
            self.phase = "refused"
            self.reason = (f"kick {self.kick.name} refused: the IK reaches {100 * self.fraction:.0f} % of the curve "
                           f"(needs > {100 * REACH_FRACTION:.0f} %) for the ball at ({b[0]:.3f}, {b[1]:.3f}) m")
            return False
        self.traj = trajectory(self.kick, b, self.stand)
        self.phase, self.t, self.reason = "shift", 0.0, ""
        return True

    def _feet(self) -> dict[str, np.ndarray]:
        """Both sole poses (4x4, torso frame) at the current time."""
        k, lean = self.kick, self.stand.torso_lean
        stand, shifted = _stand_feet(self.stand), shifted_feet(k, self.stand)
        support = "R" if k.foot == "L" else "L"
        zero = (0.0, 0.0, 0.0)
        if self.phase == "shift":      # §13.1: shift the weight onto the support foot
            a = _smooth(self.t / k.shift_time)
            return {s: _pose(stand[s] + a * (shifted[s] - stand[s]), zero, lean) for s in ("L", "R")}
        if self.phase == "kick":       # §13.1.3: sample the curve at the normalized time
            u = self.t / k.duration
            return {support: _pose(shifted[support], zero, lean), k.foot: self.traj.pose(u)}
        # return: the kicking foot back over the lifted start (first half), then the weight back (second half)
        a = self.t / k.return_time
        end = self.traj.pose(1.0)
        if a < 0.5:
            b = _smooth(2 * a)
            pos = end[:3, 3] + b * (shifted[k.foot] - end[:3, 3])
            rpy = (1 - b) * self.traj.rpy(1.0)
            return {support: _pose(shifted[support], zero, lean), k.foot: _pose(pos, rpy, lean)}
        b = _smooth(2 * a - 1)
        return {s: _pose(shifted[s] + b * (stand[s] - shifted[s]), zero, lean) for s in ("L", "R")}

    def update(self, dt: float = 0.02, sensed_joints: Mapping[str, float] | None = None) -> dict[str, float]:
        """Advance dt seconds; the joint targets (NAOqi names, rad) of legs and arms for this cycle."""
        if self.phase == "idle":
            raise RuntimeError("KickEngine.update before start()")
        if self.done:
            return dict(self._last)
        self.t += dt
        lengths = {"shift": self.kick.shift_time, "kick": self.kick.duration, "return": self.kick.return_time}
        nxt = {"shift": "kick", "kick": "return", "return": "done"}
        while self.phase in lengths and self.t >= lengths[self.phase]:
            self.t -= lengths[self.phase]
            self.phase = nxt[self.phase]
        if self.phase == "done":
            self.phase, self.t = "return", self.kick.return_time
            out = self._targets()
            self.phase = "done"
            return out
        return self._targets()

    def _targets(self) -> dict[str, float]:
        joints = dict(ARMS)
        feet = self._feet()
        for side, names in (("L", LEFT), ("R", RIGHT)):
            q, _ = leg_angles(side, feet[side], self.robot_type)
            joints.update(zip(names, (float(a) for a in q), strict=True))
        self._last = joints
        return joints


# --- kick choice (§13.1.1), kick-off (§11.2.1) -------------------------------------------------------------------
def approach_pose(kick: KickDef, ball, direction: float) -> tuple[np.ndarray, float]:
    """Where to stand (field x, y) and which way to face so that this kick sends the ball toward ``direction``."""
    theta = math.remainder(direction - kick.direction, 2 * math.pi)
    c, s = math.cos(theta), math.sin(theta)
    bx, by = kick.ball
    return np.asarray(ball, float)[:2] - np.array([c * bx - s * by, s * bx + c * by]), theta


PATH_CLEARANCE = 0.01       # m: a way that comes no nearer the ball than this does not cross it


def ball_in_path(me, target, ball, radius: float = 0.15) -> bool:
    """§12.4: walking straight from `me` to `target` passes within `radius` of the ball, coming nearer it than we are
    (by PATH_CLEARANCE): a way that leads away from or past a ball we stand close to does not cross it (counting
    the start point alone sent a player lining up a kick 0.18 m from the ball on a 0.35 m side detour for every
    centimetre of correction, to and fro; SimSpark kick-offs, issue 19)."""
    seg = target - me
    n2 = float(seg @ seg)
    if n2 < 1e-12:
        return False
    t = min(1.0, max(0.0, float((ball - me) @ seg) / n2))
    closest = float(np.linalg.norm(me + t * seg - ball))
    return closest < radius and t < 0.999 and closest < float(np.linalg.norm(me - ball)) - PATH_CLEARANCE


def kick_cost(kick: KickDef, me, theta: float, ball, direction: float) -> float:
    """§13.1.1: distCost + turnCost + ballPenalty = |agent - target| / m + |dtheta| / 360 deg + (0.5 if the ball
    is in the path to the target offset)."""
    me, ball = np.asarray(me, float)[:2], np.asarray(ball, float)[:2]
    target, heading = approach_pose(kick, ball, direction)
    dist = float(np.linalg.norm(me - target))
    turn = abs(math.remainder(theta - heading, 2 * math.pi)) / (2 * math.pi)
    return dist + turn + (0.5 if ball_in_path(me, target, ball) else 0.0)


def choose_kick(kicks: Mapping[str, KickDef] | list[KickDef], me, theta: float, ball, direction: float
                ) -> tuple[KickDef, np.ndarray, float, float]:
    """§13.1.1: the kick whose target offset costs least to reach: (kick, stand-at (x, y), face theta, cost)."""
    pool = list(kicks.values()) if isinstance(kicks, Mapping) else list(kicks)
    if not pool:
        raise ValueError("choose_kick: no kicks to choose from")
    best = min(pool, key=lambda k: kick_cost(k, me, theta, ball, direction))
    target, heading = approach_pose(best, ball, direction)
    return best, target, heading, kick_cost(best, me, theta, ball, direction)


def kickoff_direction(rng: np.random.Generator | None = None, base: float = 0.0, side: float | None = None,
                      degrees: tuple[float, float] = (5.0, 20.0)) -> float:
    """§11.2.1: a random angle between 5 and 20 degrees (``degrees``) to the left or right of ``base`` (rad); to the
    left for ``side`` > 0, to the right for ``side`` < 0 (None: drawn too)."""
    rng = rng if rng is not None else np.random.default_rng()
    sign = float(rng.choice([-1.0, 1.0])) if side is None else math.copysign(1.0, side)
    return base + sign * math.radians(float(rng.uniform(*degrees)))


def stand_joints(stand: StandPose = StandPose(), robot_type: int = 0) -> dict[str, float]:
    """The standing joint targets the kick starts from and returns to."""
    joints = dict(ARMS)
    for side, names in (("L", LEFT), ("R", RIGHT)):
        r = K.leg_ik(side, _pose(_stand_feet(stand)[side], (0.0, 0.0, 0.0), stand.torso_lean), robot_type)
        joints.update(zip(names, (float(a) for a in r.angles), strict=True))
    return joints
