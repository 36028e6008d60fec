"""The ROS user's path with ROS 2's own tools (docs/developing.md): `ros2 launch villa_bringup team.launch.py` with
a 2-player team against `villa sim`, inspected with `ros2 node list` and `ros2 topic echo`, stopped with SIGINT; from
this checkout's --symlink-install workspace and from a plain `colcon build`; `nao:=` to an address where no robot
answers.
Integration; skipped (saying why) where ../shared/ros2_launch_kit, the upstream launch and ros2cli sources, is absent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
import yaml

from villa_sim.testing import SimProcess, free_ports

pytestmark = pytest.mark.integration

NODES = ("bridge", "perception", "localization", "motion", "strategy")
EXPECTED = sorted(f"/villa/p{u}/{n}" for u in (1, 2) for n in NODES)


def _team_yaml(path: Path, port: int, composition: str, params2: dict | None = None) -> Path:
    p2 = {"unum": 2, "robot_type": 1, **({"params": params2} if params2 else {})}
    path.write_text(yaml.safe_dump({"team": "villa", "server": {"host": "127.0.0.1", "port": port},
                                    "composition": composition, "stagger": 0.2,
                                    "players": [{"unum": 1, "robot_type": 0}, p2]}))
    return path


def _ros2(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(["ros2", *args], env=env, capture_output=True, text=True, timeout=timeout)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Launch:
    """`ros2 launch villa_bringup team.launch.py <args>` in a session of its own, with its output collected and every
    process it started remembered; stop() is Ctrl-C on `ros2 launch`, and reports what outlived it."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        # SIGINT as in a terminal: a suite started in the background (`make test &`) runs with SIGINT ignored, which
        # every child inherits, and `ros2 launch` would then sleep through the Ctrl-C this test sends
        self.proc = subprocess.Popen(["ros2", "launch", "villa_bringup", "team.launch.py", *args], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True, preexec_fn=_default_sigint)
        self.lines: list[str] = []
        self.running_text = ""                   # the output up to the SIGINT
        self.seen: dict[int, psutil.Process] = {}
        self._reader = threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True)
        self._reader.start()

    def text(self) -> str:
        return "".join(self.lines)

    def _note_children(self) -> None:
        try:
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                self.seen.setdefault(child.pid, child)
        except psutil.NoSuchProcess:
            pass

    def wait_for(self, condition: Callable[[], bool], timeout: float, period: float = 0.2) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            self._note_children()
            if condition():
                return True
            time.sleep(period)
        return condition()

    def stop(self, timeout: float = 60) -> list[psutil.Process]:
        """SIGINT to `ros2 launch` (what Ctrl-C does to it); the processes still running after it exited."""
        self._note_children()
        self.running_text = self.text()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:     # say what hangs: the processes and what launch printed since
                alive = []
                for p in [psutil.Process(self.proc.pid), *self.seen.values()]:
                    try:
                        alive.append(f"{p.pid} {p.status()} {' '.join(p.cmdline())[:160]}")
                    except psutil.NoSuchProcess:
                        pass
                raise AssertionError(f"`ros2 launch` still running {timeout} s after SIGINT; alive:\n"
                                     + "\n".join(alive) + "\noutput since SIGINT:\n"
                                     + self.text()[len(self.running_text):][-4000:]) from None
        finally:
            left = [p for p in self.seen.values() if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
            for p in left:                       # the test's own clean-up; the assertion reports them
                p.kill()
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=5)
            self.proc.stdout.close()
        return left


def _node_list(env: dict[str, str]) -> list[str]:
    res = _ros2(env, "node", "list", "--no-daemon", "--spin-time", "2")
    return sorted(ln.strip() for ln in res.stdout.splitlines() if ln.startswith("/villa/"))


def _echo(env: dict[str, str], topic: str, patience: float = 75) -> str:
    """The first message of `topic` as `ros2 topic echo --once` prints it, retried with a fresh `ros2` process (a new
    DDS participant) every 20 s for up to `patience` s; the failure says what each attempt did and what the graph
    holds for the topic (publishers, their QoS), so that a slow or lost delivery can be told from a silent node."""
    attempts: list[str] = []
    start = time.monotonic()
    while time.monotonic() - start < patience:
        t0 = time.monotonic()
        res = _ros2(env, "topic", "echo", "--no-daemon", "--spin-time", "3", "--once", "--timeout", "20", topic)
        if res.returncode == 0 and res.stdout.strip():
            return res.stdout
        attempts.append(f"at {t0 - start:.0f} s: rc {res.returncode} after {time.monotonic() - t0:.0f} s, "
                        f"output {(res.stdout + res.stderr).strip()[-300:]!r}")
        time.sleep(0.5)
    info = _ros2(env, "topic", "info", "--no-daemon", "--spin-time", "3", "-v", topic)
    raise AssertionError(f"ros2 topic echo {topic}: nothing in {patience:.0f} s; attempts:\n" + "\n".join(attempts)
                         + f"\nros2 topic info -v {topic}:\n{info.stdout[-3000:]}{info.stderr[-500:]}")


def _env(base: dict[str, str], tmp_path: Path, domain: int) -> dict[str, str]:
    # TMPDIR: launch_ros writes a node's dict parameters to a launch_params_* file it never deletes (upstream); in the
    # test's own directory they go with it
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    return {**base, "ROS_DOMAIN_ID": str(domain), "ROS_LOG_DIR": str(tmp_path / "ros_log"), "PYTHONUNBUFFERED": "1",
            "TMPDIR": str(tmp)}


@pytest.mark.parametrize("workspace, composition", [("symlink", "player"), ("plain", "node")])
def test_ros2_launch_a_team_inspect_it_and_ctrl_c(workspace, composition, request, launch_kit, bash_source,
                                                  tmp_path, ros_domain):
    # plain: the distro user's build, where launch_ros looks up every node's executable (composition node);
    # symlink: this checkout's build with the default composition (player: five nodes in one process)
    base = launch_kit
    if workspace == "plain":
        plain = request.getfixturevalue("plain_workspace")
        base = bash_source(plain / "setup.bash", launch_kit)
        prefix = _ros2(base, "pkg", "prefix", "villa_motion").stdout.strip()
        assert prefix == f"{plain}/villa_motion", prefix          # the node runs from the plain install
    env = _env(base, tmp_path, ros_domain)
    with SimProcess(noise=False) as sim:
        cfg = _team_yaml(tmp_path / "team.yaml", sim.agent_port, composition)
        launch = Launch([f"team_config:={cfg}"], env)
        try:
            names: list[str] = []

            def all_nodes() -> bool:
                names[:] = _node_list(env)
                return names == EXPECTED

            assert launch.wait_for(all_nodes, 120, period=0.5), f"{names}\n{launch.text()[-4000:]}"
            world = _echo(env, "/villa/p1/world_model")
            targets = _echo(env, "/villa/p2/joint_targets")
            assert "self_pose:" in world and "ball_position:" in world, world
            assert "- HeadYaw" in targets and "- RAnkleRoll" in targets, targets
            # each player's own clock, and the rviz topics published once something subscribes
            clock = _echo(env, "/villa/p1/clock")
            assert "clock:" in clock and "sec:" in clock, clock
            particles = _echo(env, "/villa/p1/particles")
            assert "poses:" in particles and "position:" in particles, particles[:500]
            topics: list[str] = []

            def p2_clock() -> bool:   # discovery can miss a topic within one listing's spin on a busy machine
                topics[:] = _ros2(env, "topic", "list", "--no-daemon", "--spin-time", "3").stdout.split()
                return "/villa/p2/clock" in topics

            assert launch.wait_for(p2_clock, 60, period=0.5) and "/clock" not in topics, topics
        finally:
            left = launch.stop()
    text = launch.running_text
    assert not left, f"still running after SIGINT: {[p.pid for p in left]}\n{launch.text()[-4000:]}"
    assert "process has died" not in text and "Traceback" not in text, text[-4000:]   # no crash, no respawn
    assert "Publisher already registered" not in text and "skills missing" not in text, text[-4000:]


def test_ros2_launch_with_a_nao_that_is_not_there(launch_kit, tmp_path, ros_domain):
    env = _env(launch_kit, tmp_path, ros_domain)
    port = free_ports(1)[0]                      # nothing answers there
    fast = {"naoqi_bridge": {"max_attempts": 3, "retry_initial": 0.2, "retry_max": 0.4}}
    with SimProcess(noise=False) as sim:
        cfg = _team_yaml(tmp_path / "team.yaml", sim.agent_port, "player", params2=fast)
        launch = Launch([f"team_config:={cfg}", f"nao:=2@127.0.0.1:{port}"], env)
        try:
            assert launch.wait_for(lambda: "giving up" in launch.text(), 120), launch.text()[-4000:]
            players = dict(launch.seen)
            # the other player keeps playing after player 2 gave up
            targets = _echo(env, "/villa/p1/joint_targets")
            assert "- HeadYaw" in targets, targets
            assert [p.pid for p in players.values() if not p.is_running()] == [], launch.text()[-4000:]
        finally:
            left = launch.stop()
    text = launch.running_text
    assert not left, f"still running after SIGINT: {[p.pid for p in left]}\n{launch.text()[-4000:]}"
    assert "Traceback" not in text and "process has died" not in text, text[-4000:]   # no crash, no respawn
    (give_up,) = [ln for ln in launch.lines if "giving up" in ln]
    assert give_up.startswith("[player-2]") and f"tcp://127.0.0.1:{port}" in give_up, give_up
    assert "switched on" in give_up and "127.0.0.1 is its address" in give_up, give_up
