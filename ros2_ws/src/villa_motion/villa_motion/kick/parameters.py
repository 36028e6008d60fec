"""Kick parameters: the named parameter sets of ``config/kick_params.yaml`` per simulator overlay and robot type
(load_kick_set), the kicks in play per world (load_in_play), and the optimizer's parameter vector of a kick (§13.2:
parameter_vector, with_parameters)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from villa_motion.kick.definition import (
    STAND_PARAMETER,
    KickDef,
    KickError,
    default_kicks_dir,
    load_kicks,
    validate_kick,
)
from villa_motion.params import ROBOT_TYPES_KEY
from villa_nao.joints import is_robot_type
from villa_nao.params import config_path, overlay_path, read_yaml

POS_SPAN, ANGLE_SPAN = 0.06, 0.5   # default optimizer bounds: +- around a waypoint's file value (m, rad)


def load_kick_set(set_name: str = "tuned", kicks_dir: str | Path | None = None,
                  params_path: str | Path | None = None, simulator: str = "villa",
                  robot_type: int | None = 0) -> dict[str, KickDef]:
    """The kicks of ``kicks_dir`` (default: this package's ``kicks/``) with a named parameter set of
    ``params_path`` (default: ``config/kick_params.yaml``) applied; ``set_name`` "" = the files' own numbers. Where
    `simulator`'s overlay of the file (villa_nao.params.overlay_path) has the set, its kicks' values replace those.
    Last, `robot_type`'s values of the set (``robot_types: {set: {type: {kick: {parameter: value}}}}``, the ball
    offsets where that type's leg IK reaches the curve: villa bench kick_reach) from the overlay, or from the file for a
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
                 simulator: str = "villa") -> frozenset[str] | None:
    """The kicks (base names) the strategy may choose in play with parameter set `set_name` in `simulator`'s world:
    ``in_play: {set: [kick, ...]}`` of `simulator`'s overlay of the kick parameter file where it names the set, else
    of the file itself (default ``config/kick_params.yaml``); a set without a list has its ``inherit`` set's. None:
    no list, every kick is in play. Where a kick falls or barely moves the ball from standing in a world
    (villa bench kick_bench), its set leaves it out there."""
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
        return validate_kick(out)
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

