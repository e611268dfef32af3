"""A bare HTTP/2 client for hostile bots: frames written by hand on the arena's unix socket,
no grpc library, so a bot can do what a well-behaved client never would."""

from __future__ import annotations

import os
import socket
import struct

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, GOAWAY, WINDOW_UPDATE = 0x0, 0x1, 0x4, 0x7, 0x8
END_HEADERS, ACK = 0x4, 0x1
SETTINGS_INITIAL_WINDOW_SIZE = 0x4
PLAY = b"/arena.wire.v1.BotArena/Play"


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name: bytes, value: bytes) -> bytes:
    """An HPACK literal header field without indexing, new name, no Huffman (short strings)."""
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def play_headers() -> bytes:
    return b"".join(
        literal(name, value)
        for name, value in (
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", PLAY),
            (b":authority", b"localhost"),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
        )
    )


def hello() -> bytes:
    """A gRPC length-prefixed ``BotMessage{hello: Hello{token, protocol_version: 1}}``."""
    token = os.environ["ARENA_TOKEN"].encode()
    inner = b"\x0a" + bytes([len(token)]) + token + b"\x10\x01"
    message = b"\x0a" + bytes([len(inner)]) + inner
    return b"\x00" + struct.pack(">I", len(message)) + message


def connect(settings: bytes = b"") -> socket.socket:
    """A connection to the arena with its preface and our SETTINGS written."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.environ["ARENA_ADDRESS"].removeprefix("unix://"))
    connection.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
    return connection


def open_play(connection: socket.socket, stream: int, with_hello: bool = True) -> None:
    """Open a Play stream; with ``with_hello``, send this seat's Hello on it."""
    connection.sendall(frame(HEADERS, END_HEADERS, stream, play_headers()))
    if with_hello:
        connection.sendall(frame(DATA, 0, stream, hello()))


def read_frame(connection: socket.socket) -> tuple[int, int, int, bytes]:
    """The next frame as ``(kind, flags, stream, payload)``; raises ``EOFError`` at the end."""
    head = read_exactly(connection, 9)
    length = int.from_bytes(head[:3], "big")
    stream = int.from_bytes(head[5:], "big") & 0x7FFFFFFF
    return head[3], head[4], stream, read_exactly(connection, length)


def read_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data
