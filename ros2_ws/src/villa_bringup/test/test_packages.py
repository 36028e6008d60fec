"""Every package declares what its modules import (package.xml): `colcon build --packages-up-to villa_bringup` builds
what the launch file needs, and rosdep installs the system packages. PyPI-only modules (mujoco, qi, cma, rcsssmj,
mcap) have no rosdep key here; requirements.txt installs them."""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

SRC = Path(__file__).resolve().parents[2]
ROS = {"rclpy", "ament_index_python", "builtin_interfaces", "geometry_msgs", "nav_msgs", "rosgraph_msgs",
       "sensor_msgs", "std_msgs", "visualization_msgs", "tf2_msgs", "rcl_interfaces"}
ROSDEP = {"numpy": "python3-numpy", "scipy": "python3-scipy", "yaml": "python3-yaml", "psutil": "python3-psutil",
          "transforms3d": "python3-transforms3d", "matplotlib": "python3-matplotlib", "numba": "python3-numba"}


def _imports(package: Path) -> set[str]:
    names: set[str] = set()
    for f in (package / package.name).rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_every_package_declares_the_ros_packages_and_rosdep_keys_it_imports():
    packages = {p.parent.name: p.parent for p in SRC.glob("*/package.xml")}
    missing = {}
    for name, path in packages.items():
        if not (path / name).is_dir():
            continue                                         # villa_msgs: messages only
        root = ET.parse(path / "package.xml").getroot()
        declared = {e.text for e in root if e.tag in ("depend", "exec_depend")}
        needed = {m for m in _imports(path) if m != name and (m in packages or m in ROS)}
        needed |= {ROSDEP[m] for m in _imports(path) if m in ROSDEP}
        if needed - declared:
            missing[name] = sorted(needed - declared)
    assert missing == {}, f"package.xml lacks (exec_)depend on: {missing}"
