"""villa_motion runs on a robot without a simulator: importing it and every module in it imports neither MuJoCo nor
a simulator package (a simulation harness belongs to villa_sim or villa_optimize)."""

from __future__ import annotations

import json
import subprocess
import sys

SIMULATOR_MODULES = ("mujoco", "rcsssmj", "villa_sim")

CODE = """
import importlib, json, pkgutil, sys
import villa_motion
names = [m.name for m in pkgutil.walk_packages(villa_motion.__path__, "villa_motion.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "loaded": sorted(sys.modules)}))
"""


def test_importing_villa_motion_imports_no_simulator():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.splitlines()[-1])
    assert {"villa_motion.kick", "villa_motion.arbiter", "villa_motion.node"} <= set(seen["modules"])
    loaded = [m for m in seen["loaded"] if m.split(".")[0] in SIMULATOR_MODULES]
    assert loaded == [], f"importing villa_motion loaded {loaded}"
