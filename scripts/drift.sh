#!/usr/bin/env bash
# Drift check: installs the newest published version of every pinned npm CLI
# (tests/clis/package.json) in a scratch folder, runs the smoke scenarios of each agent against
# the mock model server with those CLIs, and prints per agent the pinned and newest versions and
# pass/fail, so that a pin can move on evidence. Not part of CI (the newest versions move); CI
# keeps the pins.
#
#   scripts/drift.sh [SCRATCH_DIR]        (default: a new temp folder, kept for inspection)
#
# Agents whose package this script does not map to a conformance suite are listed as
# "no suite". Needs npm and the registry; builds agent-bridge and mock-llm.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
scratch="${1:-$(mktemp -d -t agent-bridge-drift-XXXXXX)}"
mkdir -p "$scratch"
log() { echo "drift: $*" >&2; }

# package -> "cli suite": the CLI's bin name and its conformance test file (tests/conformance/tests/<suite>.rs).
declare -A suite=(
  ["@anthropic-ai/claude-code"]="claude agnostic_claude"
  ["@openai/codex"]="codex agnostic_codex"
  ["@google/gemini-cli"]="gemini agnostic_gemini"
  ["opencode-ai"]="opencode agnostic_opencode"
  ["@qwen-code/qwen-code"]="qwen agnostic_qwen"
  ["@zed-industries/claude-agent-acp"]="claude-agent-acp agnostic_claude_acp"
  ["@zed-industries/codex-acp"]="codex-acp agnostic_codex_acp"
  ["@github/copilot"]="copilot agnostic_copilot"
  ["@kilocode/cli"]="kilo agnostic_kilo"
  ["cline"]="cline agnostic_cline"
)
# The smoke scenarios: a turn, an interrupt, a permission allowed, the unattended mode (each
# suite runs those it has).
smoke=(open_prompt_completes interrupt_cancels_a_running_turn permission_allowed unattended_mode_runs_without_asking)

mapfile -t pins < <(node -e '
  const deps = require(process.argv[1]).dependencies;
  for (const [name, version] of Object.entries(deps)) console.log(name + " " + version);
' "$repo/tests/clis/package.json")

# Each package in a folder of its own: one that does not install (a platform package missing
# from the registry) fails alone.
declare -A pinned newest installed_ok
for line in "${pins[@]}"; do
  read -r name version <<<"$line"
  pinned[$name]=$version
  latest="$(npm view "$name" version 2>/dev/null | tail -n1)"
  newest[$name]="${latest:-?}"
  [ -n "$latest" ] || continue
  dir="$scratch/pkgs/${name//\//+}"
  mkdir -p "$dir"
  printf '{"name": "agent-bridge-drift", "private": true, "dependencies": {"%s": "%s"}}\n' "$name" "$latest" >"$dir/package.json"
  log "installing $name@$latest"
  if (cd "$dir" && npm install --include=optional --no-audit --no-fund --loglevel=error >"$dir/npm-install.log" 2>&1); then
    installed_ok[$name]=1
  else
    log "$name@$latest did not install (see $dir/npm-install.log)"
  fi
done

log "building agent-bridge and mock-llm"
cargo build --locked -p agent-bridge -p mock-llm >&2 || exit 1
export AGENT_BRIDGE_BIN="$repo/target/debug/agent-bridge"
export MOCK_LLM_BIN="$repo/target/debug/mock-llm"
export AGENT_BRIDGE_REQUIRE_CLIS=1
export AGENT_BRIDGE_CLI_REPORT="$scratch/cli-report.txt"
: >"$AGENT_BRIDGE_CLI_REPORT"

report="$scratch/drift-report.txt"
printf '%-34s %-12s %-12s %s\n' "package" "pinned" "newest" "smoke scenarios (newest)" >"$report"
for line in "${pins[@]}"; do
  read -r name _ <<<"$line"
  entry="${suite[$name]:-}"
  if [ -z "$entry" ]; then
    result="no suite"
  elif [ "${newest[$name]}" = "?" ]; then
    result="not found on the registry"
  elif [ -z "${installed_ok[$name]:-}" ]; then
    result="did not install (see $scratch/pkgs/${name//\//+}/npm-install.log)"
  else
    read -r cli test <<<"$entry"
    bin="$scratch/pkgs/${name//\//+}/node_modules/.bin"
    installed="$("$bin/$cli" --version 2>/dev/null | head -n1)"
    out="$scratch/$test.log"
    AGENT_BRIDGE_CLI_BIN="$bin" cargo test --locked -p agent-bridge-conformance --test "$test" \
      -- --include-ignored "${smoke[@]}" >"$out" 2>&1
    summary="$(grep -E '^test result:' "$out" | tail -n1 | sed -E 's/^test result: ([a-zA-Z]+)\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2 passed, \3 failed/')"
    failed="$(grep -E '^test .* FAILED$' "$out" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | paste -sd, -)"
    result="${summary:-did not run (see $out)}${failed:+ ($failed)}; --version: ${installed:-?}"
  fi
  printf '%-34s %-12s %-12s %s\n' "$name" "${pinned[$name]}" "${newest[$name]}" "$result" >>"$report"
done
cat "$report"
log "report: $report (logs: $scratch)"
