"""The join gate (villa_bringup.games.gate) on loopback sockets: the server connection opens only once the player's
first message is complete, bytes go both ways after it, a close on either side closes the other."""

import select
import socket

from villa_bridge import framing
from villa_bringup.games.gate import JoinGate


def _accepted(listener: socket.socket, within: float) -> socket.socket | None:
    ready, _, _ = select.select([listener], [], [], within)
    return listener.accept()[0] if ready else None


def test_the_gate_connects_on_the_first_complete_message_and_relays_both_ways():
    server = socket.create_server(("127.0.0.1", 0))
    gate = JoinGate(server.getsockname()[1])
    try:
        player = socket.create_connection(("127.0.0.1", gate.port), timeout=10.0)
        first = framing.encode("(scene rsg/agent/nao/nao_hetero.rsg 0)(syn)")
        player.sendall(first[:10])
        assert _accepted(server, 0.5) is None                  # half a message: the server sees nobody yet
        assert gate.state.startswith("connected")
        player.sendall(first[10:])
        conn = _accepted(server, 10.0)
        assert conn is not None
        conn.settimeout(10.0)
        assert framing.recv_frame(conn) == b"(scene rsg/agent/nao/nao_hetero.rsg 0)(syn)"
        assert gate.state == "joined through the gate"
        conn.sendall(framing.encode("(time (now 0.02))"))
        assert framing.recv_frame(player) == b"(time (now 0.02))"
        player.sendall(framing.encode("(syn)") * 3)
        assert [framing.recv_frame(conn) for _ in range(3)] == [b"(syn)"] * 3
        player.close()                                         # the player leaves: the server's side closes
        assert conn.recv(16) == b""
    finally:
        gate.close()
        server.close()


def test_a_closed_gate_closes_its_connections():
    server = socket.create_server(("127.0.0.1", 0))
    gate = JoinGate(server.getsockname()[1])
    player = socket.create_connection(("127.0.0.1", gate.port), timeout=10.0)
    player.sendall(framing.encode("(scene x)"))
    conn = _accepted(server, 10.0)
    assert conn is not None
    conn.settimeout(10.0)
    framing.recv_frame(conn)
    gate.close()
    assert conn.recv(16) == b"" and player.recv(16) == b""
    server.close()


def test_the_gate_process_relays_and_reports_its_state():
    import time

    from villa_bringup.games.gate import GateProcess

    server = socket.create_server(("127.0.0.1", 0))
    gates = GateProcess(server.getsockname()[1], 2)
    try:
        assert len(set(gates.ports)) == 2
        player = socket.create_connection(("127.0.0.1", gates.ports[1]), timeout=10.0)
        player.sendall(framing.encode("(scene x)"))
        conn = _accepted(server, 10.0)
        assert conn is not None
        conn.settimeout(10.0)
        assert framing.recv_frame(conn) == b"(scene x)"
        conn.sendall(framing.encode("(time (now 0))"))
        assert framing.recv_frame(player) == b"(time (now 0))"
        deadline = time.monotonic() + 10.0
        while gates.state(1) != "joined through the gate" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert gates.state(1) == "joined through the gate" and gates.state(0) == "nobody connected yet"
    finally:
        gates.close()
        server.close()
    assert gates.proc.returncode == 0
