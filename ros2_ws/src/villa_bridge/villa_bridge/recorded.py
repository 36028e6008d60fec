"""Recorded SimSpark traffic (shared/simspark/logs, README there) for the tests and benchmarks.

The folder is found beside the repository (``<repo>/../shared/simspark/logs``) or at ``$VILLA_SIMSPARK_LOGS``.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[4]      # ros2_ws/src/villa_bridge/villa_bridge/recorded.py
FILES = ("single_left_walkish.jsonl.gz", "single_right_mirrored.jsonl.gz", "teams_3v3_hear.jsonl.gz",
         "realtime_single.jsonl")


def log_dir() -> Path:
    env = os.environ.get("VILLA_SIMSPARK_LOGS")
    return Path(env) if env else (_REPO.parent / "shared" / "simspark" / "logs")


def records(name: str) -> list[dict]:
    path = log_dir() / name
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f]


def agent_messages(name: str, direction: str = "in", agent: str | None = None) -> list[str]:
    return [r["msg"] for r in records(name)
            if r["agent"] != "monitor" and r["dir"] == direction and (agent is None or r["agent"] == agent)]


def find(name: str, agent: str, now: str) -> str:
    """The perception of ``agent`` whose time is ``now`` (as printed, e.g. "37.02")."""
    key = f"(time (now {now}))"
    for msg in agent_messages(name, "in", agent):
        if msg.startswith(key):
            return msg
    raise KeyError(f"{name}: no perception of {agent} at now={now}")
