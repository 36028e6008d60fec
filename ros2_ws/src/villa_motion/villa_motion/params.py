"""Named walk parameter sets (UT Austin Villa 2011 report §10.3: goToTarget, sprint, positioning) and learned skill
variables (§7) from YAML, each with an optional per-simulator overlay (villa_nao.params.overlay_path).

    sets:
      goToTarget: {max_step_x: 0.08, phase_length: 0.3, ...}   # any WalkParams field; others keep defaults
      sprint: {inherit: goToTarget, max_step_x: 0.1}          # start from another set

An overlay ``walk_params.simspark.yaml`` has the same form; its sets replace the fields they name (after inherit).
A skill overlay ``skill_params.simspark.yaml`` replaces whole skills' variables.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from villa_motion.walk import WalkParams
from villa_nao.params import overlay_path, read_yaml

FIELDS = {f.name for f in fields(WalkParams)}


def load_parameter_sets(path: str | Path, simulator: str | None = None) -> dict[str, WalkParams]:
    """The sets of `path`, with the fields `simulator`'s overlay of it gives replaced."""
    out = _load_sets(Path(path))
    overlay = overlay_path(path, simulator)
    if overlay is not None:
        data = read_yaml(overlay, "the walk parameter overlay")
        sets = (data or {}).get("sets") if isinstance(data, dict) else None
        if not isinstance(sets, dict):
            raise ValueError(f"{overlay}: expected 'sets: {{name: {{parameter: value}}}}'")
        for name, values in sets.items():
            unknown = set(values or {}) - FIELDS
            if unknown:
                raise ValueError(f"{overlay}: sets.{name}: unknown parameters {', '.join(sorted(unknown))}")
            base = out.get(name, WalkParams())
            try:
                fields_ = {**base.__dict__, **{k: float(v) for k, v in (values or {}).items()}}
                out[name] = WalkParams(**fields_).validate()
            except (TypeError, ValueError) as e:
                raise ValueError(f"{overlay}: sets.{name}: {e}") from None
    return out


def _load_sets(path: Path) -> dict[str, WalkParams]:
    data = read_yaml(path, "the walk parameter sets")
    sets = (data or {}).get("sets") if isinstance(data, dict) else None
    if not isinstance(sets, dict) or not sets:
        raise ValueError(f"{path}: expected 'sets: {{name: {{parameter: value}}}}'")
    out: dict[str, WalkParams] = {}
    for name, values in sets.items():
        if not isinstance(values, dict):
            raise ValueError(f"{path}: sets.{name}: expected a mapping of parameters")
        values = dict(values)
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


def load_skill_variables(path: str | Path, simulator: str | None = None) -> dict[str, dict[str, float]]:
    """Learned $variables per skill: {skill: {variable: value}} (degrees and seconds, like the skill files); the
    skills `simulator`'s overlay names are replaced whole."""
    out = _load_variables(Path(path))
    overlay = overlay_path(path, simulator)
    if overlay is not None:
        out.update(_load_variables(overlay))
    return out


def _load_variables(path: Path) -> dict[str, dict[str, float]]:
    data = read_yaml(path, "the skill parameters") or {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path}: expected {{skill: {{variable: value}}}}")
    try:
        return {skill: {k: float(v) for k, v in values.items()} for skill, values in data.items()}
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: every value must be a number: {e}") from None
