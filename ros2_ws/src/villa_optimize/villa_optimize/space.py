"""The searched parameters: names and bounds from YAML, normalization to CMA-ES's [0, 1] box, and the learned set
written back as a named walk parameter set (villa_motion/config/walk_params.yaml format, §10.3 / §10.4.1)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from villa_nao.params import read_yaml


@dataclass(frozen=True)
class Space:
    names: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray

    @classmethod
    def from_bounds(cls, bounds: Mapping[str, tuple[float, float]]) -> Space:
        if not bounds:
            raise ValueError("the search space needs at least one parameter")
        names, lo, hi = [], [], []
        for name, b in bounds.items():
            try:
                a, c = (float(v) for v in b)
            except (TypeError, ValueError):
                raise ValueError(f"parameter {name}: bounds must be [lower, upper], got {b!r}") from None
            if not (math.isfinite(a) and math.isfinite(c) and a < c):
                raise ValueError(f"parameter {name}: need finite lower < upper, got [{a}, {c}]")
            names.append(str(name))
            lo.append(a)
            hi.append(c)
        return cls(tuple(names), np.array(lo), np.array(hi))

    @classmethod
    def from_yaml(cls, path: str | Path) -> Space:
        path = Path(path)
        data = read_yaml(path, "the search space")
        params = data.get("parameters") if isinstance(data, dict) else None
        if not isinstance(params, dict):
            raise ValueError(f"{path}: expected 'parameters: {{name: [lower, upper]}}'")
        try:
            return cls.from_bounds(params)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    @property
    def dim(self) -> int:
        return len(self.names)

    def normalize(self, values: Mapping[str, float]) -> np.ndarray:
        v = np.array([float(values[n]) for n in self.names])
        return np.clip((v - self.lower) / (self.upper - self.lower), 0.0, 1.0)

    def denormalize(self, x) -> dict[str, float]:
        x = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
        if x.shape != (self.dim,):
            raise ValueError(f"expected {self.dim} normalized values, got shape {x.shape}")
        return {n: float(v) for n, v in zip(self.names, self.lower + x * (self.upper - self.lower), strict=True)}


def write_text_atomic(path: Path, text: str) -> None:
    """Write `path` through a temporary file and a rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_parameter_set(out: str | Path, base_file: str | Path, set_name: str, params, header: str = "",
                        robot_type: int | None = None) -> Path:
    """Write `out`: every set of `base_file` as written there (`inherit` kept) plus `set_name` = `params` (a
    villa_motion WalkParams; fields at their defaults are left out), replacing a set of that name, and the base
    file's per-robot-type layers (`robot_types`) as they are. `params` learned for `robot_type` 1..4 (or for 0 where
    the file layers that set for type 0) go under that type's layer instead, with every field, so that the type loads
    exactly them and the other types keep theirs. The file loads with villa_motion.params.load_parameter_sets and can
    be given to the motion node as `walk_parameter_sets`."""
    from villa_motion.params import ROBOT_TYPES_KEY, load_parameter_sets

    base_file, out = Path(base_file), Path(out)
    data = yaml.safe_load(base_file.read_text())
    defaults = type(params)()
    layers = {int(k): dict(v or {}) for k, v in (data.get(ROBOT_TYPES_KEY) or {}).items()}
    if robot_type is not None and (robot_type != 0 or set_name in layers.get(0, {})) and set_name in data["sets"]:
        layers.setdefault(int(robot_type), {})[set_name] = {k: round(float(v), 5) for k, v in params.__dict__.items()}
        data = {**data, ROBOT_TYPES_KEY: dict(sorted(layers.items()))}
    else:
        sets = dict(data["sets"])
        sets[set_name] = {k: round(float(v), 5) for k, v in params.__dict__.items() if v != getattr(defaults, k)}
        data = {**data, "sets": sets}
    text = "".join(f"# {line}\n" for line in header.splitlines()) if header else ""
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=118)
    write_text_atomic(out, text + body)
    load_parameter_sets(out)          # what we write must load
    return out
