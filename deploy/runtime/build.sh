#!/usr/bin/env bash
# Builds the Python bot runtime python-1 into FOLDER: bash deploy/runtime/build.sh PYTHON FOLDER
# PYTHON is an interpreter with pip (the runtime's venv is based on the Python it runs on). The
# runtime is a venv without pip holding exactly deploy/runtime/python-1.txt, compiled (bots run it
# read-only, with -B) and readable by every uid (each bot runs as a uid of its own). A FOLDER built
# from the same file is left as it is; exit status 0 either way, and the first line of output says
# which ("built" or "up to date").
set -euo pipefail
python=$1
folder=$2
requirements="$(cd "$(dirname "$0")" && pwd)/python-1.txt"
stamp=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ -x "$folder/bin/python" ] && [ "$(cat "$folder/.card-arena-runtime" 2>/dev/null)" = "$stamp" ]; then
  echo "up to date"
  exit 0
fi
rm -rf "$folder"
mkdir -p "$(dirname "$folder")"
"$python" -m venv --without-pip "$folder"
"$python" -m pip --python "$folder/bin/python" install -qq --no-deps --no-warn-script-location \
  -r "$requirements"
chmod -R a+rX "$folder"
echo "$stamp" >"$folder/.card-arena-runtime"
echo "built"
