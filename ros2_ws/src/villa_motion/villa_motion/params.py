"""Named walk parameter sets (UT Austin Villa 2011 report §10.3: goToTarget, sprint, positioning) and learned skill
variables (§7) from YAML, each with an optional per-simulator overlay (villa_nao.params.overlay_path).

    sets:
      goToTarget: {max_step_x: 0.08, phase_length: 0.3, ...}   # any WalkParams field; others keep defaults
      sprint: {inherit: goToTarget, max_step_x: 0.1}          # start from another set

Walk sets may differ per robot type (the UT Austin Villa base code keeps a parameter file per body type):

    robot_types:
      2: {goToTarget: {max_step_x: 0.11}}                   # robot type 2: these fields of these sets replaced

A file may build on another (for an agent that walks with fewer sets than the shipped file, as the seed's
Table 3 agents do):

    base: walk_params.yaml                                  # that file (relative to this one) first; its sets
    sets:                                                   # of these names replaced whole, its robot_types
      sprint: {inherit: goToTarget}                         # entries for them dropped
      positioning: {inherit: goToTarget}

A robot type's entry that names `inherit` replaces the set whole (`1: {sprint: {inherit: goToTarget}}`: that type's
sprint is its goToTarget). A robot type's fields replace the set's own before `inherit` is resolved, so a set
inheriting from it inherits them too unless it names the field itself (positioning's own max_step_x stays). An
overlay ``walk_params.simspark.yaml`` has the same form; its sets (then its robot type's) replace the fields they
name (after inherit), or, naming `inherit`, the set whole with that set of the overlaid result.
A skill overlay ``skill_params.simspark.yaml`` replaces whole skills' variables.

Skill variables may differ per robot type (a get-up learned on type 0 does not lift type 1's longer legs):

    getup_back: {a1: -87.0, ...}              # every robot type
    robot_types:
      1: {getup_back: {a1: -80.2, ...}}       # robot type 1: these skills replaced whole

Precedence, lowest first: the file's common skills, its robot type's, the simulator overlay's common skills, the
overlay's robot type's.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from villa_motion.walk import WalkParams
from villa_nao.joints import is_robot_type
from villa_nao.params import PackageDataError, config_path, overlay_path, read_yaml

FIELDS = {f.name for f in fields(WalkParams)}
ROBOT_TYPES_KEY = "robot_types"


def load_parameter_sets(path: str | Path, simulator: str = "villa",
                        robot_type: int = 0) -> dict[str, WalkParams]:
    """The sets of `path` for `robot_type` (its `robot_types` entry layered over the common sets), with the fields
    `simulator`'s overlay of it gives replaced (the overlay's common sets, then its robot type's)."""
    if not is_robot_type(robot_type):
        raise ValueError(f"robot type must be 0..4, got {robot_type!r}")
    out = _load_sets(Path(path), int(robot_type))
    overlay = overlay_path(path, simulator)
    if overlay is not None:
        data = read_yaml(overlay, "the walk parameter overlay")
        sets = (data or {}).get("sets") if isinstance(data, dict) else None
        if not isinstance(sets, dict):
            raise ValueError(f"{overlay}: expected 'sets: {{name: {{parameter: value}}}}'")
        known = {**out, **sets}                          # a robot type may change a set the overlay adds
        layers = list(sets.items()) + list(_type_layer(overlay, data, int(robot_type), known).items())
        for name, values in layers:
            values = dict(values or {})
            parent = values.pop("inherit", None)            # the set anew from another (after its overlay)
            unknown = set(values) - FIELDS
            if unknown:
                raise ValueError(f"{overlay}: sets.{name}: unknown parameters {', '.join(sorted(unknown))}")
            if parent is not None and parent not in out:
                raise ValueError(f"{overlay}: sets.{name}.inherit: no set {parent!r}")
            base = out[parent] if parent is not None else out.get(name, WalkParams())
            try:
                fields_ = {**base.__dict__, **{k: float(v) for k, v in values.items()}}
                out[name] = WalkParams(**fields_).validate()
            except (TypeError, ValueError) as e:
                raise ValueError(f"{overlay}: sets.{name}: {e}") from None
    return out


def _type_layer(path: Path, data, robot_type: int, sets) -> dict[str, dict]:
    """{set: {field: value}} of the file's `robot_types` entry for `robot_type` ({} without one); ValueError on sets
    or fields it does not know."""
    table = data.get(ROBOT_TYPES_KEY) if isinstance(data, dict) else None
    if table is None:
        return {}
    if not isinstance(table, dict) or not all(is_robot_type(k) for k in table):
        raise ValueError(f"{path}: {ROBOT_TYPES_KEY}: expected {{robot type 0..4: {{set: {{parameter: value}}}}}}")
    layer = table.get(robot_type) or {}
    if not isinstance(layer, dict):
        raise ValueError(f"{path}: {ROBOT_TYPES_KEY}.{robot_type}: expected {{set: {{parameter: value}}}}")
    for name, values in layer.items():
        if name not in sets:
            raise ValueError(f"{path}: {ROBOT_TYPES_KEY}.{robot_type}.{name}: no such set")
        unknown = set(values or {}) - FIELDS - {"inherit"} if isinstance(values, dict) else {"(not a mapping)"}
        if unknown:
            raise ValueError(f"{path}: {ROBOT_TYPES_KEY}.{robot_type}.{name}: unknown parameters "
                             f"{', '.join(sorted(unknown))}")
    return {name: dict(values or {}) for name, values in layer.items()}


def walk_sets_path(value: str) -> Path:
    """The walk parameter file a node parameter names: "" = villa_motion's config/walk_params.yaml; a bare file name
    that is not a file here = that file in villa_motion's config directory (if it is there); anything else as
    given."""
    if not value:
        return Path(config_path("villa_motion", "walk_params.yaml"))
    p = Path(value)
    if p.name == value and not p.exists():
        try:
            return Path(config_path("villa_motion", value))
        except PackageDataError:
            pass                        # in neither place: the caller's read says which file is missing
    return p


def _read_sets(path: Path, robot_type: int, depth: int = 0) -> tuple[dict, dict[str, dict]]:
    """(sets, this robot type's layer) of `path`, with its `base` file's under them (module docstring)."""
    data = read_yaml(path, "the walk parameter sets")
    sets = (data or {}).get("sets") if isinstance(data, dict) else None
    if not isinstance(sets, dict) or not sets:
        raise ValueError(f"{path}: expected 'sets: {{name: {{parameter: value}}}}'")
    base = data.get("base")
    if base is None:
        return sets, _type_layer(path, data, robot_type, sets)
    if not isinstance(base, str) or depth > 4:
        raise ValueError(f"{path}: base: expected the file name of another walk parameter file (at most 5 deep)")
    base_sets, base_layer = _read_sets(path.parent / base, robot_type, depth + 1)
    merged = {**base_sets, **sets}
    layer = {k: v for k, v in base_layer.items() if k not in sets}
    own = _type_layer(path, data, robot_type, merged)
    for name, values in own.items():
        layer[name] = {**layer.get(name, {}), **values}
    return merged, layer


def _load_sets(path: Path, robot_type: int = 0) -> dict[str, WalkParams]:
    sets, per_type = _read_sets(path, robot_type)
    out: dict[str, WalkParams] = {}
    for name, values in sets.items():
        if not isinstance(values, dict):
            raise ValueError(f"{path}: sets.{name}: expected a mapping of parameters")
        layer = per_type.get(name, {})
        values = dict(layer) if "inherit" in layer else {**values, **layer}   # an inherit of its own: the set anew
        base = WalkParams()
        parent = values.pop("inherit", None)
        if parent is not None:
            if parent not in out:
                raise ValueError(f"{path}: sets.{name}.inherit: {parent!r} must be defined above it")
            base = out[parent]
        unknown = set(values) - FIELDS
        if unknown:
            raise ValueError(f"{path}: sets.{name}: unknown parameters {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(sorted(FIELDS))})")
        try:
            kw = {**base.__dict__, **{k: float(v) for k, v in values.items()}}
            out[name] = WalkParams(**kw).validate()
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: sets.{name}: {e}") from None
    return out


def load_skill_variables(path: str | Path, simulator: str = "villa",
                         robot_type: int = 0) -> dict[str, dict[str, float]]:
    """Learned $variables per skill: {skill: {variable: value}} (degrees and seconds, like the skill files) for
    `robot_type`; the skills `simulator`'s overlay names are replaced whole (module docstring: the precedence)."""
    out: dict[str, dict[str, float]] = {}
    files = [Path(path)]
    overlay = overlay_path(path, simulator)
    if overlay is not None:
        files.append(Path(overlay))
    for f in files:
        common, per_type = _load_variables(f)
        out.update(common)
        out.update(per_type.get(int(robot_type), {}))
    return out


def _skills(path: Path, data, where: str) -> dict[str, dict[str, float]]:
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path}: {where}expected {{skill: {{variable: value}}}}")
    try:
        return {skill: {k: float(v) for k, v in values.items()} for skill, values in data.items()}
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {where}every value must be a number: {e}") from None


def _load_variables(path: Path) -> tuple[dict[str, dict[str, float]], dict[int, dict[str, dict[str, float]]]]:
    """(common skills, {robot type: skills}) of one file."""
    data = read_yaml(path, "the skill parameters") or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected {{skill: {{variable: value}}}}")
    data = dict(data)
    types = data.pop(ROBOT_TYPES_KEY, None) or {}
    if not isinstance(types, dict) or not all(is_robot_type(t) for t in types):
        raise ValueError(f"{path}: {ROBOT_TYPES_KEY}: expected {{robot type 0..4: {{skill: {{variable: value}}}}}}")
    per_type = {int(t): _skills(path, v or {}, f"{ROBOT_TYPES_KEY}.{t}: ") for t, v in types.items()}
    return _skills(path, data, ""), per_type
