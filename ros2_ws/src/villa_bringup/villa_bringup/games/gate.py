"""A join gate for an external player on a SimSpark server in sync mode: the player connects to the gate, which opens
its own connection to the server only when the player's first message (the scene) is complete, then relays bytes
both ways until either side closes.

Why: rcssserver3d 0.7.3 creates an agent when its connection is accepted and lets it go unsynced for its first five
cycles only (AgentAspect::IsSynced); the "(syn)" sent with the scene is parsed before the robot, whose effector it
needs, exists, and is dropped. A player whose scene arrives more than five cycles after its connection (while other
agents keep the server cycling) is waited for by the server from then on, and never answered: the server stands
still for good. Agent binaries commonly connect first and build their behaviour after (the UT Austin Villa base
code does), so whether they join is a race with the machine's load. Through the gate the server sees the connection
and the scene together.

The relays run in a process of their own (GateProcess, running main()): in the game's process
they would wait for its interpreter lock behind villa's players, and every server cycle would wait with them (a
2 v 2 hosted game against the base code ran 1.23x real time with the gate's threads in the game's process, 1.37-1.55x
without a gate)."""

from __future__ import annotations

import argparse
import logging
import select
import signal
import socket
import subprocess
import sys
import threading

from villa_bridge import framing
from villa_sim.lifetime import stop_on_signals

log = logging.getLogger("villa_games.gate")
STOP_GRACE = 5.0             # s the gate process may take to close its relays once asked to stop


class JoinGate:
    """One listening loopback port (`port`) for an external player; every connection to it is relayed to the server
    at (`host`, `server_port`) once its first frame is complete. `state` says how far the latest connection got
    (for an error message); close() ends the relays and the listener."""

    ACCEPT_POLL = 0.2            # s between checks of the stop flag while nobody connects
    FIRST_TIMEOUT = 120.0        # s a connected player may take to send its first message

    def __init__(self, server_port: int, host: str = "127.0.0.1") -> None:
        self.server = (host, server_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(self.ACCEPT_POLL)
        self.port = self._listener.getsockname()[1]
        self.state = "nobody connected yet"
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name=f"join-gate-{self.port}", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                player, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return                          # closed
            self._keep(player)
            threading.Thread(target=self._serve, args=(player,), name=f"join-gate-{self.port}-relay",
                             daemon=True).start()

    def _keep(self, s: socket.socket) -> None:
        with self._lock:
            self._sockets.append(s)
        if self._stop.is_set():
            s.close()

    def _serve(self, player: socket.socket) -> None:
        self.state = "connected; its first message not complete yet"
        try:
            player.settimeout(self.FIRST_TIMEOUT)
            first = framing.recv_frame(player, framing.DEFAULT_MAX_SIZE)
            server = socket.create_connection(self.server, timeout=10.0)
        except (OSError, ConnectionError, framing.FrameTooLarge) as e:
            self.state = f"its first message did not reach the server ({e})"
            player.close()
            return
        self._keep(server)
        self.state = "joined through the gate"
        try:
            for s in (player, server):
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            server.sendall(framing.encode(first))
            self._relay(player, server)
        except OSError as e:
            if not self._stop.is_set():
                log.debug("join gate %d: relay ended (%s)", self.port, e)
        finally:
            player.close()
            server.close()

    def _relay(self, a: socket.socket, b: socket.socket) -> None:
        other = {a: b, b: a}
        while not self._stop.is_set():
            ready, _, _ = select.select([a, b], [], [], 1.0)
            for s in ready:
                data = s.recv(1 << 16)
                if not data:
                    return                       # one side closed: close the other
                other[s].sendall(data)

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        self._thread.join(timeout=2.0)


# main() as a child's entry: `python -m` would import this module a second time through the package (play imports it)
_ENTRY = "import sys; from villa_bringup.games.gate import main; sys.exit(main(sys.argv[1:]))"


class GateProcess:
    """`count` JoinGates to the server's `server_port` in a child process: ports[i] is the i-th gate's port,
    state(i) how far its latest connection got; close() stops the process (it also ends when this one does)."""

    START_TIMEOUT = 30.0

    def __init__(self, server_port: int, count: int) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _ENTRY, "--server-port", str(server_port),
                                      "--count", str(count)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._states = ["starting"] * count
        ready, _, _ = select.select([self.proc.stdout], [], [], self.START_TIMEOUT)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("ports "):
            self.close()
            raise RuntimeError(f"the join gate did not start within {self.START_TIMEOUT:.0f} s ({line.strip()!r})")
        self.ports = [int(x) for x in line.split()[1:]]
        self._reader = threading.Thread(target=self._read, name="join-gate-states", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and parts[0] == "state":
                self._states[int(parts[1])] = parts[2]

    def state(self, i: int) -> str:
        return self._states[i]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()


def main(argv: list[str] | None = None) -> int:
    """The gate process: prints `ports P1 P2 ...`, then `state I TEXT` whenever a gate's state changes; ends on
    SIGTERM or when its standard input closes (its parent is gone)."""
    ap = argparse.ArgumentParser(prog="villa_bringup.games.gate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--server-port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--count", type=int, default=1)
    args = ap.parse_args(argv)
    stop = stop_on_signals(STOP_GRACE, "join gate")
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    gates = [JoinGate(args.server_port, args.host) for _ in range(args.count)]
    print("ports", *(g.port for g in gates), flush=True)
    shown = [""] * len(gates)
    try:
        while not stop.wait(0.1):
            for i, g in enumerate(gates):
                if g.state != shown[i]:
                    shown[i] = g.state
                    print("state", i, g.state, flush=True)
    finally:
        for g in gates:
            g.close()
    return 0
