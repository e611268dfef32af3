"""Says Hello over a hand-written HTTP/2 connection, then lets no message of the arena reach it:
its receive window is 0 from the start, or (``after_match_start`` in ``target.json``) it closes
it with new SETTINGS once MatchStart has arrived. It reads and drops every frame but never sends
WINDOW_UPDATE, so the arena's sends to it stall (status ``timeout``, cut off)."""

import json
import struct
import sys
from pathlib import Path

from h2raw import ACK, DATA, SETTINGS, SETTINGS_INITIAL_WINDOW_SIZE, connect, frame, open_play, read_frame

CLOSED = struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE, 0)
later = json.loads((Path(__file__).parent / "target.json").read_text())["after_match_start"]
connection = connect(b"" if later else CLOSED)
open_play(connection, 1)
while True:
    try:
        kind, flags, stream, payload = read_frame(connection)
    except EOFError:
        break
    print(f"frame {kind} flags {flags} stream {stream} ({len(payload)} bytes)", file=sys.stderr, flush=True)
    if kind == SETTINGS and not flags & ACK:
        connection.sendall(frame(SETTINGS, ACK, 0))
    if kind == DATA and later:
        connection.sendall(frame(SETTINGS, 0, 0, CLOSED))
        later = False
