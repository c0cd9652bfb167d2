#!/usr/bin/env bash
# Runs the ACP clients this project did not write (pinned: exact versions in package.json, the
# rest in package-lock.json) against `agent-bridge acp`. Needs node >= 20 (acpx asks for 22 but
# runs on 20) and a built binary (AGENT_BRIDGE_BIN, default target/debug/agent-bridge). The
# real-provider files (real-*.test.mjs) also need the mock model server (MOCK_LLM_BIN, default
# target/debug/mock-llm) and the pinned CLIs (tests/clis/install.sh, AGENT_BRIDGE_CLI_BIN); a
# missing CLI is a SKIPPED line in AGENT_BRIDGE_CLI_REPORT, or a failure under CI /
# AGENT_BRIDGE_REQUIRE_CLIS=1. The four files run in parallel; each real file drives its providers
# two at a time (ACP_CLIENTS_POOL), and ACP_CLIENTS_PROVIDERS=a,b limits a run to those providers.
set -euo pipefail
cd "$(dirname "$0")"
flags=(--no-audit --no-fund --loglevel=error)
# npm ci refuses a lock without other OSes' optional platform packages (acpx's fs-safe); npm
# install then installs from the same lock.
if ! npm ci "${flags[@]}" >npm-ci.log 2>&1; then
  grep -q "Missing: .* from lock file" npm-ci.log || { cat npm-ci.log >&2; exit 1; }
  npm install "${flags[@]}"
fi
rm -f npm-ci.log
start=$(date +%s)
node --test --test-concurrency=4 sdk-client.test.mjs acpx.test.mjs real-sdk.test.mjs real-acpx.test.mjs
echo "acp-clients: $(( $(date +%s) - start ))s"
