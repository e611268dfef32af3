#!/usr/bin/env bash
# Generates the Python protobuf and gRPC code (with type stubs) from proto/ into arena/wire/v1/.
# The generated files are checked in; CI runs this and fails if they differ. Never edit them.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
out=arena/wire/v1
rm -f "$out"/arena_pb2*.py "$out"/arena_pb2*.pyi
"$python" -m grpc_tools.protoc -Iproto \
  --python_out=. --grpc_python_out=. \
  --mypy_out=. --mypy_grpc_out=. \
  proto/arena/wire/v1/arena.proto
