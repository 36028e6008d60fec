"""Helpers to start `villa sim` and talk to it from tests, benchmarks and tools (no ROS needed)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from villa_sim.lifetime import tied_to_parent


def free_ports(n: int = 2) -> list[int]:
    """n currently free TCP ports on 127.0.0.1."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> bool:
    """Stop a server started in its own session: SIGINT to its process group (its clean exit), SIGKILL if it has not
    exited within `timeout` s. Returns True when it had already exited on its own (a crash: keep its files)."""
    if proc.poll() is not None:
        return True
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass
    return False


def outlives_killed_parent(code: str, name: str = "", timeout: float = 15.0) -> bool:
    """Run `python -c code`, which starts a child, prints its pid and waits; kill that parent with SIGKILL (its clean
    stop never runs); True when the child (whose process name contains `name`) still runs `timeout` s later (it is
    killed then). For the tests of villa_sim.lifetime."""
    import psutil

    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    child = psutil.Process(int(p.stdout.readline()))
    try:
        if name not in child.name():
            raise RuntimeError(f"the child is {child.name()!r}, not {name!r}")
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        child.wait(timeout=timeout)
        return False
    except psutil.TimeoutExpired:
        return True
    finally:
        if child.is_running():
            child.kill()


SHM = Path("/dev/shm")


def dds_port_segments() -> set[str]:
    """The Fast DDS port segments in /dev/shm now (names)."""
    return {f.name for f in SHM.glob("fastdds_port*")} if SHM.is_dir() else set()


def remove_stale_dds_ports(before: set[str]) -> list[str]:
    """After `fastdds shm clean` (where installed; it removes the other stale segments), remove the Fast DDS port
    segments (and their mutexes) that appeared since `before` and that no process maps: a DDS participant killed with
    SIGKILL leaves them, and `fastdds shm clean` does not remove them. Returns the port segments' names removed."""
    if shutil.which("fastdds"):
        subprocess.run(["fastdds", "shm", "clean"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    new = dds_port_segments() - before
    if not new:
        return []
    mapped = set()
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            text = maps.read_text()
        except OSError:                        # gone, or not ours to read
            continue
        mapped.update(n for n in new if f"/dev/shm/{n}" in text)
    removed = sorted(new - mapped)
    for n in removed:
        for f in (SHM / n, SHM / f"sem.{n}_mutex"):
            f.unlink(missing_ok=True)
    return removed


class SimProcess:
    """`villa sim` in a subprocess on free ports; stopped with SIGINT (then SIGKILL) on exit.

    Without `log_dir` its log goes to a temporary directory that a clean stop() removes (as SimSparkServer does); one
    whose server had already exited on its own (a crash) is kept for a look."""

    def __init__(self, *extra_args: str, noise: bool = True, seed: int | None = 1, log_dir: str | None = None):
        self.agent_port, self.monitor_port = free_ports(2)
        self._own_dir = log_dir is None
        self.log_path = Path(log_dir or tempfile.mkdtemp(prefix="villa-sim-")) / "sim.log"
        self._final_log: str | None = None            # the log's tail, kept when stop() removed the directory
        args = [sys.executable, "-m", "villa_sim.cli", "--agent-port", str(self.agent_port),
                "--monitor-port", str(self.monitor_port), "--vision-noise", "simspark" if noise else "off",
                *(["--seed", str(seed)] if seed is not None else []), *extra_args]
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=self.log_path.parent, start_new_session=True,
                                     preexec_fn=tied_to_parent())
        self._wait_listening()

    def _wait_listening(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"villa sim exited with {self.proc.returncode}: {self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.agent_port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"villa sim did not listen within {timeout} s: {self.log()}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        if self._final_log is not None:
            return self._final_log
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text()[-4000:]

    def stop(self) -> int:
        crashed = stop_group(self.proc)
        self._log.close()
        if self._own_dir and not crashed:
            self._final_log = self.log_path.read_text(errors="replace")[-4000:]
            shutil.rmtree(self.log_path.parent, ignore_errors=True)
        return self.proc.returncode

    def __enter__(self) -> SimProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class RawAgent:
    """A bare rcssservermj agent connection: length-prefixed messages, nothing else."""

    def __init__(self, port: int, model: str, team: str, unum: int, host: str = "127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.send(f"(init {model} {team} {unum})")

    def send(self, msg: str) -> None:
        data = msg.encode()
        self.sock.sendall(struct.pack(">I", len(data)) + data)

    def recv(self) -> str:
        (n,) = struct.unpack(">I", self._exact(4))
        return self._exact(n).decode()

    def _exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("server closed the connection")
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        self.sock.close()


class HoldingAgent:
    """A background agent that answers every perception with a fixed command (e.g. PD hold + syn).

    `first` is sent once, with the answer to the first perception (e.g. a beam). `messages` keeps the
    latest perceptions; `seen` collects every distinct `(See ...)` perception's text.
    """

    def __init__(self, port: int, model: str, team: str, unum: int, command: str, first: str = "",
                 keep: int = 50):
        import collections
        import threading

        self.raw = RawAgent(port, model, team, unum)
        self.command, self.first = command, first
        self.messages: collections.deque[str] = collections.deque(maxlen=keep)
        self.count = 0
        self.error: Exception | None = None
        self.confirmed = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=f"agent-{team}-{unum}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop:
                msg = self.raw.recv()
                self.messages.append(msg)
                self.count += 1
                self.raw.send((self.first + self.command) if self.count == 1 else self.command)
                self.confirmed.set()
        except Exception as e:  # connection closed by stop() or by the server
            if not self._stop:
                self.error = e
            self.confirmed.set()

    def wait_confirmed(self, timeout: float = 30.0) -> None:
        if not self.confirmed.wait(timeout) or self.error is not None:
            raise RuntimeError(f"agent got no perception: {self.error}")

    def stop(self) -> None:
        self._stop = True
        self.raw.close()
        self._thread.join(timeout=5)
