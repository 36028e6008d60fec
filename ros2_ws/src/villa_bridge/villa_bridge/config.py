"""The bridge's backend and session from its parameters (config/bridge.yaml names): the bridge node's, and the
in-process players' of `villa games` (no ROS)."""

from __future__ import annotations

from villa_bridge.rcssservermj import RcssservermjBackend
from villa_bridge.session import Backoff, SessionConfig
from villa_bridge.simspark import SimSparkBackend


def make_backend(p: dict):
    """The backend a parameter set asks for; ValueError with the reason when the parameters are wrong."""
    backend = p["backend"]
    common = dict(team=str(p["team"]), unum=int(p["unum"]), robot_type=int(p["robot_type"]), sync=bool(p["sync"]))
    if backend == "villa":              # villa sim speaks rcssservermj's protocol
        return RcssservermjBackend(gain=float(p["joint_gain"]), **common)
    if backend == "simspark":
        return SimSparkBackend(gain=float(p["joint_gain"]), **common)
    raise ValueError(f"backend must be villa (villa sim) or simspark, got {backend!r}")


def session_config(p: dict) -> SessionConfig:
    cfg = SessionConfig(host=str(p["host"]), port=int(p["port"]), reconnect=bool(p["reconnect"]),
                        retry_initial=float(p["retry_initial"]), retry_max=float(p["retry_max"]),
                        max_attempts=int(p["max_attempts"]), target_deadline=float(p["target_deadline"]),
                        motion_timeout_cycles=int(p["motion_timeout_cycles"]),
                        sync_watchdog=float(p["sync_watchdog"]),
                        idle_cycle_period=float(p["idle_cycle_period"]),
                        max_message_size=int(p["max_message_size"]), recv_timeout=float(p["recv_timeout"]),
                        discard_limit=int(p["discard_limit"]))
    if not 0 < cfg.port < 65536:
        raise ValueError(f"port must be 1..65535, got {cfg.port}")
    Backoff(cfg.retry_initial, cfg.retry_max, cfg.max_attempts)   # ValueError for a bad back-off
    if not 0 <= cfg.target_deadline < 1:
        raise ValueError(f"target_deadline must be in [0, 1) s, got {cfg.target_deadline}")
    if not 0 < cfg.sync_watchdog <= 60:
        raise ValueError(f"sync_watchdog must be in (0, 60] s, got {cfg.sync_watchdog}")
    return cfg
