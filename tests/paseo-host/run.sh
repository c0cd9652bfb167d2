#!/bin/sh
# Runs the Paseo host emulator's tests (tests/paseo-host): the schemas' self-test, the adapter's
# types against the SDK's, the event guard, every provider on the newest host generation and one
# per family on 0.9 (PASEO_HOST_OLD; the demo and the pinned real CLIs against mock-llm) and the
# shutdown / SIGKILL tests.
# Needs the agent-bridge and mock-llm binaries (AGENT_BRIDGE_BIN, MOCK_LLM_BIN; default
# target/debug/...; `cargo build -p agent-bridge -p mock-llm`) and the pinned CLIs
# (tests/clis/install.sh; AGENT_BRIDGE_CLI_BIN). Installs the pinned test tooling (esbuild, zod,
# typescript, @types/node) with `npm ci` when node_modules does not match package-lock.json.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

STAMP="$HERE/node_modules/.package-lock.json"
if [ ! -f "$STAMP" ] || [ "$HERE/package-lock.json" -nt "$STAMP" ] || [ "$HERE/package.json" -nt "$STAMP" ]; then
  (cd "$HERE" && npm ci --no-audit --no-fund)
fi

cd "$ROOT"
rm -f target/paseo-host-report.txt target/paseo-host-shutdown.txt target/paseo-host-history.txt
# One test file at a time: the scenarios run their own provider pairs in parallel
# (PASEO_HOST_JOBS, default 2) and the shutdown tests measure times.
exec node --test --test-concurrency=1 tests/paseo-host/
