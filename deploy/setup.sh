#!/usr/bin/env bash
# Installs Card Arena into ./.venv. Usage: bash deploy/setup.sh [EXTRAS]   (e.g. dev)
# Needs Python 3.11+ with venv; on Debian/Ubuntu as root it installs python3-venv if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}

if ! command -v "$python" >/dev/null; then
  echo "setup: $python not found: install Python 3.11 or newer (Debian: apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: $("$python" --version) is too old: Card Arena needs Python 3.11 or newer (set PYTHON=...)" >&2
  exit 1
fi
if ! "$python" -m venv --help >/dev/null 2>&1 || ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  else
    echo "setup: Python's venv module is missing (Debian: sudo apt-get install python3-venv)" >&2
    exit 1
  fi
fi

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
target="."
[ $# -gt 0 ] && target=".[$1]"
.venv/bin/python -m pip install --quiet -e "$target"
echo "setup: installed into .venv ($(.venv/bin/python --version)); the arena command is .venv/bin/arena"
