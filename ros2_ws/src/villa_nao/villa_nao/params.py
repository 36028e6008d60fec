"""ROS parameters from a package's config YAML: one source for defaults, launch files and `villa team`.

Each villa node keeps its parameters in `<package>/config/<file>.yaml` in ROS 2's parameter-file form::

    /**:
      ros__parameters:
        cycle: 0.02
        walk:
          max_step_x: 0.05

A node calls ``declare_from_yaml(self, "villa_motion", "motion.yaml")`` in its constructor: every
parameter is declared with the file's value as its default, so a `--params-file`, a launch file's
`parameters=[...]` or `parameter_overrides` still win, and a node started bare still has them all.
No rclpy import at module level: the node is duck-typed (anything with ``declare_parameter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml


class ParameterFileError(ValueError):
    """A parameter file that is missing, not YAML, or not in ROS 2's parameter-file form."""


class PackageDataError(ValueError):
    """Package data the install lacks (or a package the ament index does not know); the message says how to fix it."""


def share_path(package: str, *parts: str) -> Path:
    """`share/<package>/<parts>` of the install the environment sources, found through the ament index.

    The same in every install (colcon build with or without --symlink-install, a ROS distro user's workspace); there
    is no source-tree fallback, so a file setup.py does not install is an error here, not a silent read of a checkout.
    """
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

    try:
        share = Path(get_package_share_directory(package))
    except PackageNotFoundError:
        raise PackageDataError(f"{package} is not in the ament index (AMENT_PREFIX_PATH) -- build the workspace and "
                               f"source its install/setup.bash (villa: make setup; source scripts/env.sh)") from None
    path = share.joinpath(*parts)
    if not path.exists():
        raise PackageDataError(f"{path} is not installed -- rebuild the workspace (make setup, or colcon build) "
                               f"after checking that {package}'s setup.py installs it")
    return path


# The worlds a player's body is in: villa sim (villa_sim, built on rcssservermj), SimSpark (rcssserver3d), a physical
# Nao (NAOqi). A team configuration's backend, the motion and strategy nodes' simulator parameter.
WORLDS = ("villa", "simspark", "naoqi")


def check_world(world: str) -> str:
    """`world` when it is one of WORLDS; ValueError listing them otherwise."""
    if world not in WORLDS:
        raise ValueError(f"unknown world {world!r}; known: {', '.join(WORLDS)}")
    return world


def overlay_path(path: str | Path, world: str) -> Path | None:
    """`world`'s overlay of a data file, ``<stem>.<world><suffix>`` beside it, when it exists; None for villa sim.

    Motion data learned in one world need not hold in another (get-ups, kicks: docs/motion.md); a file's values are
    villa sim's (and the common ones) and its overlay replaces what differs on SimSpark or a physical Nao."""
    if check_world(world) == "villa":
        return None
    path = Path(path)
    overlay = path.with_name(f"{path.stem}.{world}{path.suffix}")
    return overlay if overlay.is_file() else None


def config_path(package: str, filename: str) -> Path:
    """The installed `share/<package>/config/<filename>` (share_path)."""
    return share_path(package, "config", filename)


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{'walk': {'max_step_x': 0.05}} -> {'walk.max_step_x': 0.05} (ROS 2's dotted parameter names)."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def read_yaml(path: str | Path, what: str, error: type[Exception] = ValueError) -> Any:
    """A YAML file's contents; an unreadable file or invalid YAML raises `error` with one line naming the file and
    `what` it should hold ("the walk parameter sets")."""
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text())
    except OSError as e:
        raise error(f"{path}: cannot read {what}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise error(f"{path}: not valid YAML: {e}") from None


def load_parameters(path: str | Path, node_name: str = "/**") -> dict[str, Any]:
    """The flattened parameters a file gives a node: the `/**` section, then the node's own section."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError as e:
        raise ParameterFileError(f"{path}: no such parameter file") from e
    except yaml.YAMLError as e:
        raise ParameterFileError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(data, Mapping):
        raise ParameterFileError(f"{path}: expected a mapping of node names to 'ros__parameters'")
    params: dict[str, Any] = {}
    for section in ("/**", node_name):
        if section in data:
            body = data[section]
            if not isinstance(body, Mapping) or not isinstance(body.get("ros__parameters"), Mapping):
                raise ParameterFileError(f"{path}: section {section!r} has no 'ros__parameters' mapping")
            params.update(flatten(body["ros__parameters"]))
    return params


def declare_from_yaml(node, package: str, filename: str) -> dict[str, Any]:
    """Declare every parameter of the package's config file on `node`; returns {name: current value}."""
    values = {}
    for name, default in load_parameters(config_path(package, filename)).items():
        if getattr(node, "has_parameter", lambda n: False)(name):
            # declared by rclpy itself (use_sim_time): the file's value applies unless an override was given
            if name not in getattr(node, "_parameter_overrides", {}):
                from rclpy.parameter import Parameter

                node.set_parameters([Parameter(name, value=default)])
            values[name] = node.get_parameter(name).value
            continue
        values[name] = node.declare_parameter(name, default).value
    return values
