#!/bin/sh
# Runs the Paseo adapter tests against the agent-bridge binary
# (AGENT_BRIDGE_BIN, default target/debug/agent-bridge; build it with `cargo build -p agent-bridge`).
# npm-install.test.mjs packs AGENT_BRIDGE_BIN when it is set, else the release build with
# scripts/package.sh, which runs `cargo build --release --locked -p agent-bridge` first (a no-op
# when it is up to date).
# Installs the pinned test tooling (typescript, esbuild, @types/node) with `npm ci` when
# node_modules does not match package-lock.json.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

STAMP="$HERE/node_modules/.package-lock.json"
if [ ! -f "$STAMP" ] || [ "$HERE/package-lock.json" -nt "$STAMP" ] || [ "$HERE/package.json" -nt "$STAMP" ]; then
  (cd "$HERE" && npm ci --no-audit --no-fund)
fi

cd "$ROOT"
exec node --test tests/adapter/
