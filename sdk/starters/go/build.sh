#!/usr/bin/env bash
# Build the Go starter bot: ONE static binary OUT_DIR/bot plus OUT_DIR/arena-bot.toml.
#
#   bash sdk/starters/go/build.sh [OUT_DIR]      (OUT_DIR defaults to sdk/starters/go/dist)
#
# What it does: copies the protocol (proto/arena/wire/v1/arena.proto, or $ARENA_PROTO) into a
# temporary GOPATH, generates Go code with protoc, and builds main.go in GOPATH mode against
# Debian's Go packages (no module proxy needed). The result folder is a complete bot: play it
# with `arena play edible OUT_DIR builtin:random`, submit it with `arena bot submit OUT_DIR ...`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/dist}"
proto="${ARENA_PROTO:-$here/../../../proto/arena/wire/v1/arena.proto}"
# Where Debian's packages put the Go sources of grpc and protobuf.
gocode="${GOCODE:-/usr/share/gocode}"

die() { echo "build.sh: $*" >&2; exit 1; }

# The tools, each with the Debian package that provides it.
missing=()
command -v go >/dev/null || missing+=("go (apt-get install golang-go)")
command -v protoc >/dev/null || missing+=("protoc (apt-get install protobuf-compiler)")
command -v protoc-gen-go >/dev/null || missing+=("protoc-gen-go (apt-get install protoc-gen-go)")
command -v protoc-gen-go-grpc >/dev/null \
    || missing+=("protoc-gen-go-grpc (apt-get install protoc-gen-go-grpc)")
[ -d "$gocode/src/google.golang.org/grpc" ] \
    || missing+=("grpc for Go in $gocode (apt-get install golang-google-grpc-dev)")
[ -d "$gocode/src/google.golang.org/protobuf" ] \
    || missing+=("protobuf for Go in $gocode (apt-get install golang-google-protobuf-dev)")
if [ ${#missing[@]} -gt 0 ]; then
    printf 'build.sh: missing:\n' >&2
    printf '  %s\n' "${missing[@]}" >&2
    die "install them (Debian/Ubuntu: apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev)"
fi
[ -f "$proto" ] || die "no protocol file at $proto (set ARENA_PROTO to arena.proto's path)"

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT

# A GOPATH of our own: src/arenabot is the bot (main.go), src/arenabot/wirepb the generated code.
# The .proto has no go_package option, so the M options give it its Go import path.
mkdir -p "$build/proto/arena/wire/v1" "$build/src/arenabot"
cp "$proto" "$build/proto/arena/wire/v1/arena.proto"
cp "$here"/*.go "$build/src/arenabot/"
mapping="Marena/wire/v1/arena.proto=arenabot/wirepb"
protoc -I "$build/proto" \
    --go_out="$build/src" --go_opt="$mapping" \
    --go-grpc_out="$build/src" --go-grpc_opt="$mapping" \
    arena/wire/v1/arena.proto

mkdir -p "$out"
out="$(cd "$out" && pwd)"
# Go's build cache makes rebuilds fast; without a home folder for it, use a temporary one.
if [ -z "${GOCACHE:-}" ] && [ -z "$(go env GOCACHE 2>/dev/null)" ]; then
    export GOCACHE="$build/cache"
fi
# Static (no cgo), no local paths in the binary, symbols stripped: about 7 MB.
(cd "$build/src/arenabot" &&
    GO111MODULE=off GOPATH="$build:$gocode" GOFLAGS= CGO_ENABLED=0 \
        go build -trimpath -ldflags "-s -w" -o "$out/bot.new" .)
mv "$out/bot.new" "$out/bot"
printf 'run = ["./bot"]\n' > "$out/arena-bot.toml"
echo "built $out/bot ($(du -h "$out/bot" | cut -f1)) and $out/arena-bot.toml"
