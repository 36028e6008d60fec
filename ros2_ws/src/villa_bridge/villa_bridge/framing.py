"""The wire's framing: every message is preceded by its length as a 4-byte big-endian unsigned integer.

SimSpark facts: shared/simspark/SIMSPARK_FACTS.md ("Network protocol"). ``FrameReader`` is incremental, so
it works with any chunking of the byte stream; an oversized length prefix raises ``FrameTooLarge`` (a
ParseError). The socket reader lets the caller skip the payload (``discard``) when the size is plausible.
"""

from __future__ import annotations

import socket
import struct

from villa_bridge.sexp import ParseError

HEADER = struct.Struct(">I")
DEFAULT_MAX_SIZE = 1 << 20      # 1 MiB; a SimSpark perception is about 2 KB, a monitor full state about 10 KB


class FrameTooLarge(ParseError):
    """A length prefix larger than the configured maximum (``size`` bytes announced)."""

    def __init__(self, message: str, size: int = 0) -> None:
        super().__init__(message)
        self.size = size


def encode(msg: bytes | str) -> bytes:
    data = msg.encode("ascii") if isinstance(msg, str) else bytes(msg)
    return HEADER.pack(len(data)) + data


class FrameReader:
    """Accumulates received bytes and returns complete payloads."""

    def __init__(self, max_size: int = DEFAULT_MAX_SIZE) -> None:
        self.max_size = max_size
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out = []
        while len(self._buf) >= 4:
            (n,) = HEADER.unpack_from(self._buf, 0)
            if n > self.max_size:
                raise FrameTooLarge(f"frame of {n} bytes exceeds the maximum of {self.max_size}", n)
            if len(self._buf) < 4 + n:
                break
            out.append(bytes(self._buf[4:4 + n]))
            del self._buf[:4 + n]
        return out

    @property
    def pending(self) -> int:
        return len(self._buf)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf += chunk
    return bytes(buf)


def recv_frame(sock: socket.socket, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """Block until one whole message arrived; ConnectionError on close.

    FrameTooLarge for a prefix over ``max_size``; its payload is still unread (``discard`` it to stay in sync).
    """
    (n,) = HEADER.unpack(recv_exact(sock, 4))
    if n > max_size:
        raise FrameTooLarge(f"frame of {n} bytes exceeds the maximum of {max_size}", n)
    return recv_exact(sock, n)


def discard(sock: socket.socket, n: int, chunk: int = 1 << 16) -> None:
    """Read and drop n bytes (the payload of a refused oversized frame)."""
    while n > 0:
        data = sock.recv(min(chunk, n))
        if not data:
            raise ConnectionError("server closed the connection")
        n -= len(data)
