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

# Disk: every temporary file of the run (the suites' scratch homes and work dirs, the agents' own
# TMPDIR, rustc's) goes under one folder, removed when the run ends however it ends, so a test
# killed by a timeout or a rig that keeps its folders for a post-mortem leaves nothing behind. The
# free space is printed at the start and after each phase: a CI machine with little disk fails
# with "No space left on device", and the log should say how much there was.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/ab.XXXXXX")"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
disk() { printf '  disk: %s (repo), target %s, scratch %s\n' \
  "$(df -Ph "$repo" | awk 'NR==2 { print $4 " free on " $6 }')" \
  "$(du -sh "$repo/target" 2>/dev/null | cut -f1)" "$(du -sh "$scratch" 2>/dev/null | cut -f1)"; }
if [ "${CI:-}" = "true" ] || [ "${CI:-}" = "1" ]; then
  # In CI a missing CLI is a failure, never a skip.
  export AGENT_BRIDGE_REQUIRE_CLIS=1
  # A clean clone builds once: incremental compilation only adds its caches (3.7 GB here), and
  # line tables are all a test's backtrace needs (the test binaries and rlibs shrink by half and
  # link faster). A developer's own runs keep their usual profile.
  export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
  export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
  # npm's download cache (1.6 GB after the CLIs) lives in the scratch folder and goes once the
  # CLIs are installed; the node stages fetch their few packages again.
  if [ -z "${NPM_CONFIG_CACHE:-}" ]; then
    export NPM_CONFIG_CACHE="$scratch/npm-cache"
    drop_npm_cache=1
  fi
fi
step "start"
disk

# The PyPI agents' Python (a CPython build, minutes on a fresh machine; skipped when cached) and
# venvs install in the background while the lint gate and the build run; the tests wait for it.
# (So do the npm CLIs, below.)
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
# The npm CLIs too (npm ci of the pinned lock, node 22 and its CLIs; mostly download and disk):
# their bin dir is the install script's one stdout line.
cli_pid=""
if [ "${SKIP_CLIS:-0}" != "1" ]; then
  cli_log="$repo/target/cli-install.log"
  cli_bin_file="$repo/target/cli-bin.txt"
  (
    t0=$(date +%s)
    AGENT_BRIDGE_PYTHON_STEP=skip tests/clis/install.sh >"$cli_bin_file"
    if [ "${drop_npm_cache:-0}" = "1" ]; then
      rm -rf "$NPM_CONFIG_CACHE"
    fi
    echo "install.sh: finished in $(( $(date +%s) - t0 )) s"
  ) >"$cli_log" 2>&1 &
  cli_pid=$!
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

nextest=0
if [ "${AGENT_BRIDGE_NEXTEST:-1}" != "0" ] && cargo nextest --version >/dev/null 2>&1; then
  nextest=1
fi

disk
step "building agent-bridge (and the mock model server, the fake ACP agent)"
cargo build --locked -p agent-bridge -p mock-llm -p fake-acp
# The test binaries too, while the Python agents may still be installing (pip is partly network
# and disk): the suites then start as soon as it is done.
if [ "$nextest" = "1" ]; then
  step "building the test binaries (cargo nextest run --no-run)"
  cargo nextest run --locked --workspace --no-run
fi
disk
export AGENT_BRIDGE_BIN="$repo/target/debug/agent-bridge"
export MOCK_LLM_BIN="$repo/target/debug/mock-llm"
export FAKE_ACP_BIN="$repo/target/debug/fake-acp"

# wait_install WHAT PID LOG SCRIPT: waits for a background install; shows its log, and fails the
# run when it failed.
wait_install() {
  step "waiting for the $1 install (started at 0 s, log $3)"
  if ! wait "$2"; then
    cat "$3" >&2
    echo "$4 failed" >&2
    exit 1
  fi
  cat "$3" >&2
}
if [ -n "$cli_pid" ]; then
  wait_install "pinned vendor CLIs'" "$cli_pid" "$cli_log" tests/clis/install.sh
  AGENT_BRIDGE_CLI_BIN="$(cat "$cli_bin_file")"
  export AGENT_BRIDGE_CLI_BIN
fi
if [ -n "$python_pid" ]; then
  wait_install "Python agents'" "$python_pid" "$python_log" tests/clis/python/install.sh
fi

# The real-CLI tests are #[ignore]d so that a plain `cargo test` without the CLIs shows them as
# not run ("N ignored") instead of passing them silently; here they run.
#
# They run under cargo-nextest when the machine has it (the machines we test on do): every test
# binary's tests in one pool of AGENT_BRIDGE_TEST_JOBS processes (default 2), so a binary's last
# slow test does not idle the other core while the next binary waits. Doc-tests, which nextest
# does not run, run after it with cargo test. Without nextest (or with AGENT_BRIDGE_NEXTEST=0):
# cargo test.
run_ignored=(--run-ignored all)
if [ "${SKIP_CLIS:-0}" = "1" ]; then
  run_ignored=(--run-ignored default)
fi
# The late suites (a nextest filterset of whole test binaries; AGENT_BRIDGE_LATE_TESTS, empty for
# none) leave the main pool and run, one test at a time, once the node stages are done: the main
# pool alone keeps the two cores only 83 % busy (agent starts and model replies wait), so the
# stretch after the node stages takes a third job. By default Deep Agents', Qwen's and Grok's
# suites, about a sixth of the tests' time, which ends the two runs about together. Binary-level
# filters keep nextest's "skipped" count meaning "not run" (a filtered-out binary is not
# counted).
late=""
if [ "$nextest" = "1" ]; then
  late="${AGENT_BRIDGE_LATE_TESTS-binary(agnostic_deepagents) | binary(agnostic_qwen) | binary(agnostic_grok)}"
fi
late_log="$repo/target/cargo-test-late.log"
rm -f "$late_log"

# The node stages (the Paseo adapter's tests and npm packages, the third-party ACP clients, the
# Paseo host emulator) need only the binaries built above: they run one after another in the
# background while the Rust suites run, each CPU-bound stretch of one filling the other's waits
# (agent starts, model replies, timeouts). Their output goes to target/node-stages.log, shown
# once the Rust suites are done. Each side runs fewer agents at once than it would alone
# (ACP_CLIENTS_POOL=1, PASEO_HOST_JOBS=1, nextest -j 2), so the two together load the machine
# about as much as one alone did. The late Rust suites follow them.
node_log="$repo/target/node-stages.log"
node_status="$repo/target/node-stages.status"
: > "$node_status"
node_stage() {
  local name=$1
  shift
  local t0=$(date +%s) rc=0
  printf '\n==> %s\n' "$name"
  "$@" || rc=$?
  printf '%s: exit %s after %ss\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" | tee -a "$node_status"
}
late_suites() {
  cargo nextest run --locked --workspace --no-fail-fast "${run_ignored[@]}" -j 1 -E "$late" \
    --final-status-level fail >"$late_log" 2>&1
}
step "node stages started in the background (log: $node_log)"
(
  export ACP_CLIENTS_POOL="${ACP_CLIENTS_POOL:-1}" PASEO_HOST_JOBS="${PASEO_HOST_JOBS:-1}"
  node_stage "Paseo adapter tests (node --test), npm packages installed without cargo" tests/adapter/run.sh
  node_stage "ACP clients this project did not write (tests/acp-clients: @agentclientprotocol/sdk, acpx) against agent-bridge acp" tests/acp-clients/run.sh
  node_stage "Paseo host emulator (tests/paseo-host): every provider on the newest host generation, one per family on 0.9" tests/paseo-host/run.sh
  if [ -n "$late" ]; then
    node_stage "late Rust suites (cargo nextest -j 1 -E '$late', log: $late_log)" late_suites
  fi
) >"$node_log" 2>&1 &
node_pid=$!

cargo_log="$repo/target/cargo-test.log"
rust_rc=0
if [ "$nextest" = "1" ]; then
  jobs="${AGENT_BRIDGE_TEST_JOBS:-2}"
  filter=()
  if [ -n "$late" ]; then
    filter=(-E "not ($late)")
  fi
  step "cargo nextest run --workspace ${run_ignored[*]} -j $jobs ${filter[*]} (then the doc-tests)"
  cargo nextest run --locked --workspace --no-fail-fast "${run_ignored[@]}" -j "$jobs" "${filter[@]}" \
    --final-status-level fail 2>&1 | tee "$cargo_log" || rust_rc=$?
  cargo test --locked --workspace --doc 2>&1 | tee -a "$cargo_log" || rust_rc=$?
else
  ignored=(-- --include-ignored)
  if [ "${SKIP_CLIS:-0}" = "1" ]; then
    ignored=()
  fi
  step "cargo test --workspace ${ignored[*]}"
  cargo test --locked --workspace --no-fail-fast "${ignored[@]}" 2>&1 | tee "$cargo_log" || rust_rc=$?
fi

disk
step "waiting for the node stages"
wait "$node_pid" || true
cat "$node_log"
if [ -f "$late_log" ]; then
  step "late Rust suites ($late_log)"
  cat "$late_log"
fi
step "node stages"
cat "$node_status"

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
# cargo test: "N ignored" per binary; nextest: "N skipped" on its summary line.
not_run_ignored=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^ignored/) n += $i }
  /^ *Summary \[/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^skipped/) n += $i } END { print n + 0 }' \
  "$cargo_log" $( [ -f "$late_log" ] && echo "$late_log" ))
step "real-CLI tests not run: $(( skipped + not_run_ignored ))"
echo "  returned early (CLI or sandbox missing): $skipped"
grep '^SKIPPED ' "$AGENT_BRIDGE_CLI_REPORT" | sort | sed 's/^SKIPPED /    /' || true
echo "  ignored by cargo test / skipped by nextest (run with the CLIs installed): $not_run_ignored"
step "Paseo host emulator"
cat target/paseo-host-report.txt target/paseo-host-shutdown.txt 2>/dev/null || echo "  (no report)"
step "disk at the end"
disk
failed=0
if [ "$rust_rc" != "0" ]; then
  echo "the Rust suites failed (exit $rust_rc): $cargo_log" >&2
  failed=1
fi
if grep -qv ': exit 0 after' "$node_status" || [ "$(wc -l <"$node_status")" -lt $(( ${late:+1} + 3 )) ]; then
  echo "a background stage (node, late Rust suites) failed or did not run:" >&2
  grep -v ': exit 0 after' "$node_status" >&2 || true
  failed=1
fi
if [ "$failed" != "0" ]; then
  step "FAILED"
  exit 1
fi
step "done"
