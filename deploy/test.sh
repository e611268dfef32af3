#!/usr/bin/env bash
# Installs what the tests need and runs them: bash deploy/test.sh [pytest arguments]
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
.venv/bin/python -m pytest "$@"
