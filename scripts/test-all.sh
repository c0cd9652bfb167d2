#!/usr/bin/env bash
# Runs every test of agent-bridge on a fresh machine: the lint gate (fmt, clippy, rustdoc, all
# warnings denied), then installs the pinned vendor CLIs into a
# cache folder (tests/clis/install.sh, skipped when current), the adapter's test tooling
# (tests/adapter), builds the binary, then runs the Rust suites (unit, conformance, mock
# server smoke tests against the real CLIs, provider end-to-end tests against the real CLIs),
# the Paseo adapter's node tests (among them the npm packages of scripts/package.sh, installed
# and run without cargo) and the Paseo host emulator (tests/paseo-host: every provider run the
# way Paseo's plugin process runs it: the newest host generation, and one provider per family on 0.9). Prints which real CLIs and
# versions were exercised, how many real-CLI tests did not run (and which), and the emulator's table.
#
#   scripts/test-all.sh            # everything
#   SKIP_CLIS=1 scripts/test-all.sh  # no CLI install: the real-CLI tests (#[ignore]d in a
#                                    # plain `cargo test`) are reported as ignored, not run
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
start=$(date +%s)
step() { printf '\n==> %s (%ss)\n' "$*" "$(( $(date +%s) - start ))"; }

export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# The PyPI agents' Python (a CPython build, minutes on a fresh machine; skipped when cached) and
# venvs install in the background while the lint gate and the build run; the tests wait for it.
python_pid=""
if [ "${SKIP_CLIS:-0}" != "1" ]; then
  mkdir -p "$repo/target"
  python_log="$repo/target/python-install.log"
  (
    t0=$(date +%s)
    tests/clis/python/install.sh "${AGENT_BRIDGE_CLI_CACHE:-$repo/.cache/clis}"
    echo "python/install.sh: finished in $(( $(date +%s) - t0 )) s"
  ) >"$python_log" 2>&1 &
  python_pid=$!
fi

# The lint gate comes first, so a formatting slip or a warning fails in a minute, not after the
# suites: formatting (the workspace, and the cargo-fuzz targets, which live outside it: rustfmt
# alone, no nightly needed), clippy with every warning an error, and the docs with every rustdoc
# warning an error (broken intra-doc links are denied in [workspace.lints] as well).
step "lint: cargo fmt --all --check (and the fuzz targets)"
cargo fmt --all --check
rustfmt --edition 2021 --check fuzz/fuzz_targets/*.rs
step "lint: cargo clippy --workspace --all-targets --locked -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "lint: cargo doc --workspace --no-deps --locked (RUSTDOCFLAGS=-D warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
export AGENT_BRIDGE_CLI_REPORT="$repo/target/cli-report.txt"
mkdir -p "$repo/target"
: > "$AGENT_BRIDGE_CLI_REPORT"

if [ "${SKIP_CLIS:-0}" != "1" ]; then
  step "installing the pinned vendor CLIs"
  AGENT_BRIDGE_CLI_BIN="$(AGENT_BRIDGE_PYTHON_STEP=skip tests/clis/install.sh)"
  export AGENT_BRIDGE_CLI_BIN
fi
if [ "${CI:-}" = "true" ] || [ "${CI:-}" = "1" ]; then
  # In CI a missing CLI is a failure, never a skip.
  export AGENT_BRIDGE_REQUIRE_CLIS=1
fi

step "building agent-bridge (and the mock model server, the fake ACP agent)"
cargo build --locked -p agent-bridge -p mock-llm -p fake-acp
export AGENT_BRIDGE_BIN="$repo/target/debug/agent-bridge"
export MOCK_LLM_BIN="$repo/target/debug/mock-llm"
export FAKE_ACP_BIN="$repo/target/debug/fake-acp"

if [ -n "$python_pid" ]; then
  step "waiting for the Python agents' install (started at 0 s, log $python_log)"
  if ! wait "$python_pid"; then
    cat "$python_log" >&2
    echo "tests/clis/python/install.sh failed" >&2
    exit 1
  fi
  cat "$python_log" >&2
fi

# The real-CLI tests are #[ignore]d so that a plain `cargo test` without the CLIs shows them as
# not run ("N ignored") instead of passing them silently; here they run.
ignored=(-- --include-ignored)
if [ "${SKIP_CLIS:-0}" = "1" ]; then
  ignored=()
fi
step "cargo test --workspace ${ignored[*]}"
cargo_log="$repo/target/cargo-test.log"
cargo test --locked --workspace --no-fail-fast "${ignored[@]}" 2>&1 | tee "$cargo_log"

step "Paseo adapter tests (node --test), npm packages installed without cargo"
tests/adapter/run.sh

step "ACP clients this project did not write (tests/acp-clients: @agentclientprotocol/sdk, acpx) against agent-bridge acp"
tests/acp-clients/run.sh

step "Paseo host emulator (tests/paseo-host): every provider on the newest host generation, one per family on 0.9"
tests/paseo-host/run.sh

step "real CLIs exercised"
if grep -qv '^SKIPPED ' "$AGENT_BRIDGE_CLI_REPORT"; then
  grep -v '^SKIPPED ' "$AGENT_BRIDGE_CLI_REPORT" | sort | awk '{ key=$1" "$2; s[key]=s[key] (s[key]?", ":"") $3 } END { for (k in s) print "  " k ": " s[k] }' | sort
else
  echo "  (none)"
fi
# A real-CLI test that did not run is counted, never taken for a pass: the tests that returned
# early for a missing CLI (or a sandbox the machine lacks) report themselves, and the #[ignore]d
# ones are what cargo counted as ignored.
skipped=$(grep -c '^SKIPPED ' "$AGENT_BRIDGE_CLI_REPORT" || true)
not_run_ignored=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^ignored/) n += $i } END { print n + 0 }' "$cargo_log")
step "real-CLI tests not run: $(( skipped + not_run_ignored ))"
echo "  returned early (CLI or sandbox missing): $skipped"
grep '^SKIPPED ' "$AGENT_BRIDGE_CLI_REPORT" | sort | sed 's/^SKIPPED /    /' || true
echo "  ignored by cargo test (run with the CLIs installed): $not_run_ignored"
step "Paseo host emulator"
cat target/paseo-host-report.txt target/paseo-host-shutdown.txt 2>/dev/null || echo "  (no report)"
step "done"
