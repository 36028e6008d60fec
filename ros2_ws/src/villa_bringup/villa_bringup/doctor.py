"""`villa doctor`: check the environment and say what is wrong and how to fix it."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

SUPPORTED_PYTHON = ((3, 11), (3, 12))
SETUP_FIX = "run `make setup` in the villa checkout, then `source scripts/env.sh`"

# Every interface villa_msgs must provide (ARCHITECTURE.md); a missing one means a stale build.
VILLA_MSGS = (
    "Polar", "SeenObject", "SeenPlayer", "SeenLine", "VisionFrame", "GameState", "FootContact",
    "FootContacts", "HeardMessage", "JointCommand", "WalkCommand", "HeadCommand", "MotionRequest",
    "MotionStatus", "FallState", "Observation", "Observations", "TrackedObject", "WorldModel",
    "RoleSlot", "RoleAssignment",
)

# Package data the nodes, `villa` and the launch file read from share/<package> (through the ament index,
# villa_nao.params.share_path), besides every node's config/<node>.yaml; a pattern must match at least one file.
PACKAGE_DATA = (
    ("villa_bringup", "config/team.yaml"), ("villa_bringup", "launch/team.launch.py"),
    ("villa_bringup", "rviz/villa.rviz"), ("villa_motion", "skills/*.skl"), ("villa_motion", "kicks/*.kick"),
    ("villa_motion", "config/walk_params.yaml"), ("villa_motion", "config/skill_params.yaml"),
    ("villa_motion", "config/kick_params.yaml"), ("villa_nao", "config/pd_gains.yaml"),
    ("villa_nao", "models/nao.urdf"), ("villa_nao", "models/nao.xml"), ("villa_optimize", "config/walk_space.yaml"),
)
INSTALL_FIX = ("rebuild the workspace (`make setup`, or `colcon build` in ros2_ws and source install/setup.bash); "
               "executables belong in lib/<package> (each package's setup.cfg), data in share/<package> (setup.py)")


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_python() -> Check:
    v = sys.version_info[:2]
    detail = f"Python {sys.version.split()[0]} ({sys.executable})"
    if v in SUPPORTED_PYTHON:
        return Check("python", True, detail)
    return Check("python", False, detail + " is not supported",
                 "use Python 3.11 (the ROS 2 Kilted wheels are built for 3.11 and 3.12): " + SETUP_FIX)


def check_rclpy() -> Check:
    try:
        import rclpy  # noqa: F401
        from rclpy.utilities import get_rmw_implementation_identifier
    except Exception as e:  # any import failure is the finding
        return Check("rclpy", False, f"rclpy does not import: {e}", SETUP_FIX)
    try:
        rmw = get_rmw_implementation_identifier()
    except Exception as e:
        return Check("rclpy", False, f"rclpy imports but no RMW loads: {e}",
                     "unset RMW_IMPLEMENTATION (only rmw_fastrtps_cpp is installed) or " + SETUP_FIX)
    return Check("rclpy", True, f"rclpy imports, RMW {rmw}")


def check_domain() -> Check:
    raw = os.environ.get("ROS_DOMAIN_ID", "")
    if raw == "":
        return Check("domain", True, "ROS_DOMAIN_ID unset (domain 0)")
    try:
        d = int(raw)
    except ValueError:
        return Check("domain", False, f"ROS_DOMAIN_ID={raw!r} is not a number", "export ROS_DOMAIN_ID=<0..101>")
    if not 0 <= d <= 232:
        return Check("domain", False, f"ROS_DOMAIN_ID={d} is outside 0..232", "export ROS_DOMAIN_ID=<0..101>")
    if d > 101:
        return Check("domain", False, f"ROS_DOMAIN_ID={d}: its DDS ports overlap Linux's ephemeral ports",
                     "export ROS_DOMAIN_ID=<0..101>")
    return Check("domain", True, f"ROS_DOMAIN_ID={d}")


def check_interfaces() -> Check:
    try:
        msg_mod = importlib.import_module("villa_msgs.msg")
    except Exception as e:
        return Check("interfaces", False, f"villa_msgs does not import: {e}", SETUP_FIX)
    missing = [n for n in VILLA_MSGS if not hasattr(msg_mod, n)]
    if missing:
        return Check("interfaces", False, "villa_msgs lacks " + ", ".join(missing),
                     "the build is stale: " + SETUP_FIX)
    try:
        for n in VILLA_MSGS:
            getattr(msg_mod, n)()
    except Exception as e:
        return Check("interfaces", False, f"villa_msgs messages do not construct: {e}", SETUP_FIX)
    try:                # /tf and /tf_static: a distro's, or the one setup.sh builds from third_party/
        importlib.import_module("tf2_msgs.msg").TFMessage()
    except Exception as e:
        return Check("interfaces", False, f"tf2_msgs (the frame tree's /tf) does not import: {e}", SETUP_FIX)
    return Check("interfaces", True, f"villa_msgs: {len(VILLA_MSGS)} interfaces import; tf2_msgs imports")


def _executables() -> set[tuple[str, str]]:
    """(package, executable): what the team configuration starts, and every console script a villa package declares."""
    import importlib.metadata

    from villa_bringup.team_config import NODE_KINDS

    found = {(k.package, k.executable) for k in NODE_KINDS.values()} | {("villa_bringup", "player")}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").replace("-", "_")
        if name.startswith("villa_"):
            found |= {(name, ep.name) for ep in dist.entry_points if ep.group == "console_scripts"}
    return found


def check_install() -> Check:
    """Can ROS find the executables (<prefix>/lib/<package>/, where launch_ros and `ros2 run` look) and the package
    data (share/<package>/ through the ament index) of this workspace?"""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix

        from villa_bringup.team_config import NODE_KINDS
        from villa_nao.params import PackageDataError, share_path

        executables = _executables()
    except Exception as e:  # a workspace that does not import is the finding
        return Check("install", False, f"the workspace does not import: {e}", SETUP_FIX)
    missing: list[str] = []
    for package, exe in sorted(executables):
        try:
            path = Path(get_package_prefix(package)) / "lib" / package / exe
        except PackageNotFoundError:
            missing.append(f"{package} (not in the ament index)")
            continue
        if not (path.is_file() and os.access(path, os.X_OK)):
            missing.append(str(path))
    data = set(PACKAGE_DATA) | {(k.package, f"config/{k.name}.yaml") for k in NODE_KINDS.values()}
    for package, pattern in sorted(data):
        folder, _, name = pattern.rpartition("/")
        try:
            if not any(share_path(package, folder).glob(name)):
                missing.append(str(share_path(package, folder) / name))
        except PackageDataError as e:
            missing.append(str(e).split(" -- ")[0])
    if missing:
        shown = "; ".join(dict.fromkeys(missing[:4]))
        more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
        return Check("install", False, f"ROS cannot find {shown}{more}", INSTALL_FIX)
    return Check("install", True, f"{len(executables)} executables in lib/<package>, {len(data)} package data "
                                  f"entries in share/<package> (villa_bringup: {get_package_prefix('villa_bringup')})")


def check_shm() -> Check:
    path = "/dev/shm"
    if not os.path.isdir(path) or not os.access(path, os.W_OK):
        return Check("shm", False, f"{path} is missing or not writable (Fast DDS uses shared memory)",
                     "mount a writable tmpfs at /dev/shm")
    st = os.statvfs(path)
    free_mb = st.f_bavail * st.f_frsize / 1e6
    if free_mb < 64:
        return Check("shm", False, f"{path} has only {free_mb:.0f} MB free",
                     "run `fastdds shm clean` to remove stale segments, or enlarge /dev/shm")
    return Check("shm", True, f"{path} writable, {free_mb:.0f} MB free")


def check_dds_round_trip(timeout: float = 20.0) -> Check:
    """Two separate processes: a talker publishes a villa_msgs message, a listener must receive it."""
    topic = f"/villa_doctor_{os.getpid()}"
    token = uuid.uuid4().hex[:12]
    cmd = [sys.executable, "-m", "villa_bringup.dds_probe"]
    talker = subprocess.Popen(cmd + ["talk", "--topic", topic, "--token", token, "--timeout", str(timeout)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        res = subprocess.run(cmd + ["listen", "--topic", topic, "--timeout", str(timeout)],
                             capture_output=True, text=True, timeout=timeout + 15)
    except subprocess.TimeoutExpired:
        return Check("dds", False, "the listener process hung", "run `fastdds shm clean` and retry")
    finally:
        talker.terminate()
        try:
            _, talker_err = talker.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            talker.kill()
            _, talker_err = talker.communicate()
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("{")]
    result = json.loads(lines[-1]) if lines else {}
    if res.returncode == 0 and result.get("team_name") == token:
        return Check("dds", True, "pub/sub round trip between two processes over Fast DDS")
    why = result.get("error") or (res.stderr.strip().splitlines() or ["no output"])[-1]
    if talker_err and talker_err.strip():
        why += f"; talker said: {talker_err.strip().splitlines()[-1]}"
    return Check("dds", False, f"no DDS round trip: {why}",
                 "check ROS_DOMAIN_ID / ROS_AUTOMATIC_DISCOVERY_RANGE, run `fastdds shm clean`, then retry")


def run_checks() -> list[Check]:
    checks = [check_python(), check_rclpy(), check_domain(), check_interfaces(), check_install(), check_shm()]
    if all(c.ok for c in checks if c.name in ("rclpy", "interfaces")):
        checks.append(check_dds_round_trip())
    else:
        checks.append(Check("dds", False, "skipped: rclpy or villa_msgs is not usable", SETUP_FIX))
    return checks


def main(args=None) -> int:
    print("villa doctor")
    checks = run_checks()
    for c in checks:
        print(f"  [{' ok ' if c.ok else 'FAIL'}] {c.name:<11} {c.detail}")
        if not c.ok and c.fix:
            print(f"         {'':<11} fix: {c.fix}")
    bad = [c for c in checks if not c.ok]
    print("all checks passed" if not bad else f"{len(bad)} problem(s) found")
    return 0 if not bad else 1
