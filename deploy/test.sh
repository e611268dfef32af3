#!/usr/bin/env bash
# Installs what the tests need and runs them: bash deploy/test.sh [pytest arguments]
# With no arguments: every test, on as many workers as the machine has cores (at least 3: much of a
# test is waiting for servers, workers and sandboxes), then the timing-sensitive ones (marked
# serial: clocks, CPU shares, timing channels) alone, each part listing its slowest tests. With
# arguments: pytest with them, serially.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh dev
# The generated protocol code must match proto/ exactly.
PATH="$PWD/.venv/bin:$PATH" bash scripts/gen_proto.sh >/dev/null
if ! git diff --quiet -- arena/wire/v1 || [ -n "$(git ls-files --others --exclude-standard arena/wire/v1)" ]; then
  echo "test: arena/wire/v1 is out of date with proto/: run scripts/gen_proto.sh and commit the result" >&2
  git --no-pager diff --stat -- arena/wire/v1 >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
workers=$(($(nproc) > 3 ? $(nproc) : 3))
status=0
.venv/bin/python -m pytest -n "$workers" --dist worksteal -m "not serial" --durations=15 || status=$?
.venv/bin/python -m pytest -m serial --durations=5 || status=$?
exit "$status"
