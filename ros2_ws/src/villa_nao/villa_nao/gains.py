"""PD gains for rcssservermj's joint command ``(<effector> q dq kp kd tau)`` (config/pd_gains.yaml).

The server turns each command into a joint torque tau + kp * (q - q_now) + kd * (dq - dq_now), clamped
to SimSpark's FMax of 10 N m. The gains in the YAML are the ones the MJCF model (villa_nao.mjcf) uses
as its defaults, so a robot that has not sent a command yet holds its zero pose, like SimSpark's
velocity motors hold still. Units: kp N m/rad, kd N m s/rad.

YAML format (a plain mapping, read by the bridge and by the simulator tests; not a ROS parameter file):
keys are chain names (head, larm, rarm, lleg, rleg; the type-4 toes belong to the leg chains) or NAOqi
joint names, which override their chain; values are ``{kp: float, kd: float}``.
"""

from __future__ import annotations

import math
from pathlib import Path

import yaml

from villa_nao.joints import BY_NAME, JOINTS, TOE_JOINTS
from villa_nao.params import config_path

CHAINS = ("head", "larm", "rarm", "lleg", "rleg")


def default_path() -> Path:
    """The installed config/pd_gains.yaml (through the ament index, villa_nao.params.config_path)."""
    return config_path("villa_nao", "pd_gains.yaml")


def parse_pd_gains(table: dict) -> dict[str, tuple[float, float]]:
    """(kp, kd) for every NAOqi joint (toes included) from the YAML mapping; ValueError on a bad table."""
    if not isinstance(table, dict):
        raise ValueError("pd gains: expected a mapping of chain or joint names to {kp, kd}")
    for key, value in table.items():
        if key not in CHAINS and key not in BY_NAME:
            raise ValueError(f"pd gains: unknown chain or joint {key!r}")
        if not isinstance(value, dict) or set(value) != {"kp", "kd"}:
            raise ValueError(f"pd gains: {key} needs exactly kp and kd, got {value!r}")
        for k in ("kp", "kd"):
            v = value[k]
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise ValueError(f"pd gains: {key}.{k} must be a finite number >= 0, got {v!r}")
    out = {}
    for j in JOINTS + TOE_JOINTS:
        g = table.get(j.name) or table.get(j.chain)
        if g is None:
            raise ValueError(f"pd gains: no entry for {j.name} or its chain {j.chain}")
        out[j.name] = (float(g["kp"]), float(g["kd"]))
    return out


def load_pd_gains(path: str | Path | None = None) -> dict[str, tuple[float, float]]:
    """NAOqi joint name -> (kp, kd), from ``path`` or the package's config/pd_gains.yaml."""
    with open(path or default_path()) as f:
        return parse_pd_gains(yaml.safe_load(f))
