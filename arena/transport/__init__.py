"""Transports between the arena and bot processes: the gRPC endpoint and process seats."""
