"""A kick's definition (KickDef, §13.1.5) and its kick file (format: villa_motion.kick): parse_kick reads one,
load_kicks a directory of them, each as its left-foot kick and the mirrored right-foot one."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

from villa_nao.params import share_path

STAND_PARAMETER = "stand"   # s the walk stands after the kick (KickDef.stand): set per world, not optimized


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
        return validate_kick(kick)
    except ValueError as e:
        raise KickError(f"{source}: {e}") from None


def validate_kick(k: KickDef) -> KickDef:
    """`k`, or ValueError naming what is out of range."""
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



def default_kicks_dir() -> Path:
    """The installed ``share/villa_motion/kicks`` (through the ament index, villa_nao.params.share_path)."""
    return share_path("villa_motion", "kicks")
