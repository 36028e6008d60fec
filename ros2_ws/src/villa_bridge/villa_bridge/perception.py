"""The perception model: one server message (SimSpark or rcssservermj) as plain Python values, wire units.

UT Austin Villa 2011 report §2 and §4: joint perceptors every 20 ms cycle, vision as (distance, angles) to objects.

Facts: shared/simspark/SIMSPARK_FACTS.md ("Perception message", "hear") and rcsssmj 0.2.1
(sim/perceptions.py, games/soccer/sim/soccer_perceptions.py) plus villa_sim's additions (FRP, hear).
Items understood:

- ``(time (now t))``
- ``(GS (unum n) (team left|right) (sl a) (sr b) (t g) (pm Mode))`` (SimSpark) and
  ``(GS (t g)(pm Mode)(tl A)(tr B)(sl a)(sr b))`` (rcssservermj)
- ``(GYR (n torso) (rt x y z))`` deg/s and ``(ACC (n torso) (a x y z))`` m/s^2, SimSpark's torso axes
- ``(HJ (n hj1) (ax deg))`` with ``(vx deg/s)`` where rcssservermj sends it
- ``(FRP (n lf) (c x y z) (f x y z))``, ``(TCH n lf val v)``
- ``(See (F1L (pol d h v)) ... (B (pol ..)) (P (team T) (id N) (head (pol ..)) ..) (L (pol ..) (pol ..)))``
- ``(hear [team] gametime self|direction message)`` (SimSpark) and ``(MIC name (azimuth base64) ..)`` (rcssservermj)
- ground truth ``(pos (n torso_pos) (p x y z))`` and ``(quat (n torso_quat) (q w x y z))`` (rcssservermj)

Unknown items are counted and skipped (servers add perceptors over time); malformed known items raise
``ParseError``. A non-finite number (SimSpark sends field lines as ``(L (pol nan nan nan) ...)`` now and then) spoils
only its own element: that line, object, player part, joint reading, sensor or heard message is dropped and counted
in ``Perception.spoiled``, and the rest of the perception is kept. Nothing here converts units or frames: that is
the bridge's (teamframe.py, node.py).
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass, field

from villa_bridge.sexp import ParseError, parse

Pol = tuple[float, float, float]          # distance m, horizontal deg, vertical deg


@dataclass
class GameStateWire:
    play_mode: str = ""
    game_time: float = 0.0
    unum: int | None = None               # SimSpark: present once, after init was processed
    side: str | None = None               # SimSpark: "left" | "right" (with unum)
    score_left: int = 0
    score_right: int = 0
    team_left: str | None = None          # rcssservermj: names of the connected teams
    team_right: str | None = None


@dataclass
class SeenPlayerWire:
    team: str = ""
    id: int = 0
    parts: dict[str, Pol] = field(default_factory=dict)


@dataclass
class VisionWire:
    objects: dict[str, Pol] = field(default_factory=dict)      # flags, goal posts, ball "B", other markers
    players: list[SeenPlayerWire] = field(default_factory=list)
    lines: list[tuple[Pol, Pol]] = field(default_factory=list)


@dataclass
class HeardWire:
    team: str                     # speaker team label ("" when the server gives none)
    game_time: float              # s (nan when the server gives none)
    from_self: bool
    direction_deg: float          # nan when from_self
    message: str
    team_frame: bool = True       # direction is a bearing in the listener team's field frame (SimSpark)


@dataclass
class Perception:
    time: float | None = None
    game: GameStateWire | None = None
    gyro: tuple[float, float, float] | None = None       # deg/s, SimSpark torso axes (x right, y fwd, z up)
    acc: tuple[float, float, float] | None = None        # m/s^2, same axes
    joint_names: list[str] = field(default_factory=list)  # wire perceptor names (hj1, ...)
    joint_angles: list[float] = field(default_factory=list)       # deg
    joint_velocities: list[float] | None = None                    # deg/s, when every HJ had vx
    frp: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = field(default_factory=dict)
    touch: dict[str, float] = field(default_factory=dict)
    vision: VisionWire | None = None
    heard: list[HeardWire] = field(default_factory=list)
    pos: tuple[float, float, float] | None = None         # m, global (left team's) frame
    quat: tuple[float, float, float, float] | None = None  # w x y z, global frame, REP-103 torso axes
    unknown: int = 0                                      # items skipped because their name is unknown
    spoiled: int = 0                                      # elements dropped for a non-finite value


class NonFinite(ParseError):
    """A NaN or infinite number: spoils the element it is in (caught per element), not the whole perception."""


def _f(a) -> float:
    try:
        v = float(a)
    except (TypeError, ValueError):
        raise ParseError(f"expected a number, got {str(a)[:30]!r}") from None
    if v - v != 0.0:        # NaN or infinity (cheaper than two math calls on the hot path)
        raise NonFinite(f"non-finite number {a!r}")
    return v


def _i(a) -> int:
    try:
        return int(a)
    except (TypeError, ValueError):
        try:
            v = float(a)
        except (TypeError, ValueError):
            raise ParseError(f"expected an integer, got {str(a)[:30]!r}") from None
        if not v.is_integer():
            raise ParseError(f"expected an integer, got {a!r}") from None
        return int(v)


def _s(a) -> str:
    if not isinstance(a, str):
        raise ParseError("expected an atom, got a list")
    return a


def _vec3(item, key: str) -> tuple[float, float, float]:
    if not isinstance(item, list) or len(item) != 4 or item[0] != key:
        raise ParseError(f"expected ({key} x y z), got {_short(item)}")
    return (_f(item[1]), _f(item[2]), _f(item[3]))


def _short(x) -> str:
    return repr(x)[:60]


def _pol(item) -> Pol:
    if not isinstance(item, list) or len(item) != 4 or item[0] != "pol":
        raise ParseError(f"expected (pol d h v), got {_short(item)}")
    return (_f(item[1]), _f(item[2]), _f(item[3]))


def _named(expr) -> str:
    """The name of ``(X (n name) ...)``."""
    if len(expr) < 2 or not isinstance(expr[1], list) or len(expr[1]) != 2 or expr[1][0] != "n":
        raise ParseError(f"{expr[0]}: missing (n name)")
    return _s(expr[1][1])


def _gs(expr, p: Perception) -> None:
    g = p.game or GameStateWire()
    for item in expr[1:]:
        if not isinstance(item, list) or len(item) != 2:
            raise ParseError(f"GS: bad item {_short(item)}")
        k, v = item
        if k == "pm":
            g.play_mode = _s(v)
        elif k == "t":
            g.game_time = _f(v)
        elif k == "unum":
            g.unum = _i(v)
        elif k == "team":
            side = _s(v)
            if side not in ("left", "right"):
                raise ParseError(f"GS: team must be left or right, got {side!r}")
            g.side = side
        elif k == "sl":
            g.score_left = _i(v)
        elif k == "sr":
            g.score_right = _i(v)
        elif k == "tl":
            g.team_left = _s(v)
        elif k == "tr":
            g.team_right = _s(v)
    p.game = g


def _hj(expr, p: Perception, vel: list) -> None:
    # fast path for the exact wire shapes (HJ (n name) (ax a)) and (HJ (n name)(ax a)(vx v))
    n = len(expr)
    if n in (3, 4):
        nm, ax = expr[1], expr[2]
        vx = expr[3] if n == 4 else None
        if (type(nm) is list and len(nm) == 2 and nm[0] == "n" and type(nm[1]) is str
                and type(ax) is list and len(ax) == 2 and ax[0] == "ax"
                and (vx is None or (type(vx) is list and len(vx) == 2 and vx[0] == "vx"))):
            angle, speed = _f(ax[1]), None if vx is None else _f(vx[1])   # both before appending: a NaN skips the joint
            p.joint_names.append(nm[1])
            p.joint_angles.append(angle)
            vel.append(speed)
            return
    name = _named(expr)
    ax = vx = None
    for item in expr[2:]:
        if isinstance(item, list) and len(item) == 2:
            if item[0] == "ax":
                ax = _f(item[1])
            elif item[0] == "vx":
                vx = _f(item[1])
    if ax is None:
        raise ParseError(f"HJ {name}: missing (ax angle)")
    p.joint_names.append(name)
    p.joint_angles.append(ax)
    vel.append(vx)


def _see(expr, p: Perception) -> None:
    v = p.vision or VisionWire()
    for item in expr[1:]:
        if not isinstance(item, list) or not item or not isinstance(item[0], str):
            raise ParseError(f"See: bad item {_short(item)}")
        try:
            _see_item(item, v, p)
        except NonFinite:
            p.spoiled += 1
    p.vision = v


def _see_item(item: list, v: VisionWire, p: Perception) -> None:
    kind = item[0]
    if kind == "P":
        pl = SeenPlayerWire()
        for sub in item[1:]:
            if not isinstance(sub, list) or len(sub) != 2 or not isinstance(sub[0], str):
                raise ParseError(f"See P: bad item {_short(sub)}")
            if sub[0] == "team":
                pl.team = _s(sub[1])
            elif sub[0] == "id":
                pl.id = _i(sub[1])
            else:
                try:
                    pl.parts[sub[0]] = _pol(sub[1])
                except NonFinite:
                    p.spoiled += 1          # one body part: the player is still seen by the others
        v.players.append(pl)
    elif kind == "L":
        if len(item) != 3:
            raise ParseError(f"See L: expected two (pol ...), got {_short(item)}")
        v.lines.append((_pol(item[1]), _pol(item[2])))
    elif len(item) == 2 and isinstance(item[1], list) and item[1] and item[1][0] == "pol":
        v.objects[kind] = _pol(item[1])
    elif kind in ("mypos", "myorien", "ballpos"):
        p.unknown += 1          # SimSpark's optional ground-truth vision items (off in the 2011 config)
    else:
        raise ParseError(f"See: bad item {_short(item)}")


def _hear(expr, p: Perception) -> None:
    # (hear team time self|dir msg) with LabelMessages, (hear time self|dir msg) without.
    atoms = expr[1:]
    if not all(isinstance(a, str) for a in atoms):
        raise ParseError(f"hear: bad item {_short(expr)}")
    if len(atoms) == 4:
        team, t, d, msg = atoms
    elif len(atoms) == 3:
        team, (t, d, msg) = "", atoms
    else:
        raise ParseError(f"hear: expected 3 or 4 atoms, got {_short(expr)}")
    from_self = d == "self"
    p.heard.append(HeardWire(team, _f(t), from_self, math.nan if from_self else _f(d), msg))


def _mic(expr, p: Perception) -> None:
    # rcssservermj: (MIC <name> (<azimuth deg> <base64 message>) ...); the azimuth is body-relative there.
    for item in expr[2:]:
        if not isinstance(item, list) or len(item) != 2:
            raise ParseError(f"MIC: bad item {_short(item)}")
        try:
            text = base64.b64decode(_s(item[1]), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise ParseError("MIC: message is not base64 UTF-8") from None
        p.heard.append(HeardWire("", math.nan, False, _f(item[0]), text, team_frame=False))


def _frp(expr, p: Perception) -> None:
    name = _named(expr)
    if len(expr) != 4:
        raise ParseError(f"FRP {name}: expected (c ..) (f ..)")
    p.frp[name] = (_vec3(expr[2], "c"), _vec3(expr[3], "f"))


def _tch(expr, p: Perception) -> None:
    # rcssservermj: (TCH n lf val 25)
    if len(expr) != 5 or expr[1] != "n" or expr[3] != "val":
        raise ParseError(f"TCH: expected (TCH n name val v), got {_short(expr)}")
    p.touch[_s(expr[2])] = _f(expr[4])


def _item(head: str, expr: list, p: Perception, vel: list) -> None:
    """One top-level item other than time; a NonFinite leaves ``p`` without this item."""
    if head == "HJ":
        _hj(expr, p, vel)
    elif head == "See":
        _see(expr, p)
    elif head == "GS":
        _gs(expr, p)
    elif head == "GYR":
        _named(expr)
        p.gyro = _vec3(expr[2] if len(expr) > 2 else None, "rt")
    elif head == "ACC":
        _named(expr)
        p.acc = _vec3(expr[2] if len(expr) > 2 else None, "a")
    elif head == "FRP":
        _frp(expr, p)
    elif head == "hear":
        _hear(expr, p)
    elif head == "TCH":
        _tch(expr, p)
    elif head == "pos":
        _named(expr)
        p.pos = _vec3(expr[2] if len(expr) > 2 else None, "p")
    elif head == "quat":
        _named(expr)
        q = expr[2] if len(expr) > 2 else None
        if not isinstance(q, list) or len(q) != 5 or q[0] != "q":
            raise ParseError(f"quat: expected (q w x y z), got {_short(q)}")
        p.quat = (_f(q[1]), _f(q[2]), _f(q[3]), _f(q[4]))
    elif head == "MIC":
        _mic(expr, p)
    else:
        p.unknown += 1


_AFTER_SEE = tuple(b")(" + k for k in (b"HJ ", b"FRP ", b"GYR ", b"ACC ", b"GS ", b"hear ", b"TCH ", b"time "))


def without_vision(data: bytes) -> bytes:
    """The message without its ``(See ...)`` item: what a reader that needs no vision parses (the optimizer's motion
    tasks). The item holds only landmark, ball, player and line descriptions, so it ends where the next top-level item
    (joints, force, IMU, game state, hearing, touch) begins, or with the message."""
    start = data.find(b"(See ")
    if start < 0:
        return data
    ends = [i for i in (data.find(k, start) for k in _AFTER_SEE) if i >= 0]
    return data[:start] + (data[min(ends) + 1:] if ends else b"")


def parse_perception(data: bytes | bytearray | str, vision: bool = True) -> Perception:
    """One perception message -> Perception (`vision` False: its See item skipped). Raises only ParseError."""
    p = Perception()
    vel: list = []
    if not vision and not isinstance(data, str):
        data = without_vision(bytes(data))
    try:
        for expr in parse(data):
            if not expr or not isinstance(expr[0], str):
                raise ParseError(f"expression without a name: {_short(expr)}")
            head = expr[0]
            if head == "time":
                if len(expr) != 2 or not isinstance(expr[1], list) or len(expr[1]) != 2:
                    raise ParseError(f"time: expected (time (now t)), got {_short(expr)}")
                p.time = _f(expr[1][1])          # no time, no perception: non-finite raises
                continue
            try:
                _item(head, expr, p, vel)
            except NonFinite:
                p.spoiled += 1
    except ParseError:
        raise
    except (IndexError, TypeError, AttributeError) as e:   # defensive: any shape we did not foresee
        raise ParseError(f"malformed perception: {type(e).__name__}: {e}") from None
    if vel and all(v is not None for v in vel):
        p.joint_velocities = vel
    return p
