"""Generated protocol code for arena.wire.v1 (scripts/gen_proto.sh); do not edit."""
