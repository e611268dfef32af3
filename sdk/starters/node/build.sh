#!/usr/bin/env bash
# Builds the bot into one folder ready to play or submit: bash build.sh [OUT_DIR]  (default: dist)
#   OUT_DIR/bot.js           the bot, its libraries and the protocol's .proto in one file
#   OUT_DIR/arena-bot.toml   the manifest: how the arena runs it (node bot.js)
# Needs node (18 or newer) and npm. ARENA_PROTO names another arena.proto (default: the repository's).
set -euo pipefail
kit="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$kit/dist}"
proto="${ARENA_PROTO:-$kit/../../../proto/arena/wire/v1/arena.proto}"

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "build: $tool not found: install Node.js 18 or newer" >&2; exit 1; }
done
[ -f "$proto" ] || { echo "build: $proto not found (set ARENA_PROTO to the protocol's arena.proto)" >&2; exit 1; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$kit"
# The exact versions of package-lock.json; no install scripts are needed (esbuild's binary comes
# as a platform package).
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
# The bundle embeds this copy of the protocol.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$proto" "$work/arena.proto"
node build.mjs "$out/bot.js" "$work/arena.proto"
printf 'run = ["node", "bot.js"]\n' >"$out/arena-bot.toml"
echo "build: $out/bot.js ($(wc -c <"$out/bot.js") bytes) and $out/arena-bot.toml"
