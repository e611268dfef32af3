#!/usr/bin/env bash
# Installs Card Arena into ./.venv and builds the Python bot runtime python-1 (the venv sandboxed
# Python bots run on: deploy/runtime/python-1.txt) into ./.runtimes/python-1, or into
# $ARENA_RUNTIMES/python-1. Usage: bash deploy/setup.sh [EXTRAS]   (default: server,sandbox)
# Needs Python 3.11+ with venv. On Debian/Ubuntu as root it also installs what is missing of
# python3-venv, bubblewrap and libseccomp2 (the bot sandbox) and nodejs (bots in JavaScript) from
# the distribution's packages, and with the dev extra what the tests need: chromium (the web tests
# drive it headless), redis-server and postgresql (the tests start private servers of their own)
# and what the starter kits' builds need (npm, Go, protoc).
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
command -v node >/dev/null || packages+=(nodejs)  # the runtime of bots written in JavaScript
extras=${1:-server,sandbox}
if [[ ",$extras," == *",dev,"* ]]; then
  command -v chromium >/dev/null || packages+=(chromium)
  command -v redis-server >/dev/null || packages+=(redis-server)
  command -v initdb >/dev/null || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ||
    packages+=(postgresql)
  # What the starter kits' builds need (sdk/starters): npm for Node.js; Go, protoc and their
  # gRPC plugins and libraries for the compiled one.
  command -v npm >/dev/null || packages+=(npm)
  command -v go >/dev/null || packages+=(golang-go)
  command -v protoc >/dev/null || packages+=(protobuf-compiler)
  command -v protoc-gen-go >/dev/null || packages+=(protoc-gen-go)
  command -v protoc-gen-go-grpc >/dev/null || packages+=(protoc-gen-go-grpc)
  [ -d /usr/share/gocode/src/google.golang.org/grpc ] || packages+=(golang-google-grpc-dev)
  [ -d /usr/share/gocode/src/google.golang.org/protobuf ] || packages+=(golang-google-protobuf-dev)
fi
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${packages[*]} from the distribution's packages"
    apt_log=$(mktemp)
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"; } \
      >"$apt_log" 2>&1; then
      cat "$apt_log" >&2  # only when it failed: its notices would crowd the first screen
      rm -f "$apt_log"
      exit 1
    fi
    rm -f "$apt_log"
  else
    echo "setup: missing ${packages[*]} (Debian: sudo apt-get install ${packages[*]})" >&2
    [[ " ${packages[*]} " == *" python3-venv "* ]] && exit 1
    echo "setup: continuing: without bubblewrap, local matches run unsandboxed with a warning;" \
      "without nodejs, bots in JavaScript cannot run; without chromium, npm, go, redis-server or" \
      "postgresql, tests fail" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv ($("$python" --version))"
  "$python" -m venv .venv
fi
# pip -qq: errors only. A newcomer's first screen is this script's progress and its result, not
# pip's notices (an editable install says it is one); an error still shows, and stops the script.
target=".[$extras]"
# What was installed, and from which pyproject.toml: a second run with the same is done at once.
stamp="$extras $(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ -x .venv/bin/arena ] && [ "$(cat .venv/.card-arena-installed 2>/dev/null)" = "$stamp" ]; then
  installed="setup: .venv is up to date ($(.venv/bin/python --version), $target)"
else
  echo "setup: installing Card Arena ($target) and its dependencies into .venv; this takes a minute or two"
  if ! { .venv/bin/python -m pip install -qq --upgrade pip && .venv/bin/python -m pip install -qq -e "$target"; }; then
    echo "setup: installing failed (the error is above; for every detail: .venv/bin/python -m pip install -e '$target')" >&2
    exit 1
  fi
  echo "$stamp" >.venv/.card-arena-installed
  installed="setup: installed into .venv ($(.venv/bin/python --version))"
fi
# The bot runtime: built once, and again only when deploy/runtime/python-1.txt changes.
runtime="${ARENA_RUNTIMES:-.runtimes}/python-1"
if ! built=$(bash deploy/runtime/build.sh .venv/bin/python "$runtime"); then
  echo "setup: building the Python bot runtime into $runtime failed (the error is above)" >&2
  exit 1
fi
[ "$built" = built ] && installed+="; built the bot runtime $runtime"
echo "$installed; the arena command is .venv/bin/arena"
