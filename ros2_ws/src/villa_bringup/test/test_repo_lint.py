"""The whole repository is ruff-clean (configuration in pyproject.toml)."""

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed in this environment (it is pinned in requirements.txt)"
    res = subprocess.run([ruff, "check", "--no-cache", str(REPO)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
