#!/usr/bin/env bash
# Runs the ACP clients this project did not write (pinned in package.json / package-lock.json)
# against `agent-bridge acp`. Needs node >= 20 and a built binary (AGENT_BRIDGE_BIN, default
# target/debug/agent-bridge).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --silent
node --test sdk-client.test.mjs
