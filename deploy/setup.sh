#!/usr/bin/env bash
# Installs Card Arena into ./.venv. Usage: bash deploy/setup.sh [EXTRAS]   (default: server,sandbox)
# Needs Python 3.11+ with venv. On Debian/Ubuntu as root it also installs what is missing of
# python3-venv, bubblewrap and libseccomp2 (the bot sandbox) from the distribution's packages, and
# with the dev extra chromium (the web tests drive it headless).
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
packages=()
"$python" -c 'import venv, ensurepip' >/dev/null 2>&1 || packages+=(python3-venv)
command -v bwrap >/dev/null || packages+=(bubblewrap)
ldconfig -p 2>/dev/null | grep -q libseccomp.so.2 || packages+=(libseccomp2)
extras=${1:-server,sandbox}
if [[ ",$extras," == *",dev,"* ]] && ! command -v chromium >/dev/null; then
  packages+=(chromium)
fi
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${packages[*]} from the distribution's packages"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
  else
    echo "setup: missing ${packages[*]} (Debian: sudo apt-get install ${packages[*]})" >&2
    [[ " ${packages[*]} " == *" python3-venv "* ]] && exit 1
    echo "setup: continuing: without bubblewrap, local matches run unsandboxed with a warning;" \
      "without chromium, the browser tests fail" >&2
  fi
fi

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
target=".[$extras]"
.venv/bin/python -m pip install --quiet -e "$target"
echo "setup: installed into .venv ($(.venv/bin/python --version)); the arena command is .venv/bin/arena"
