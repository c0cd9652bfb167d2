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

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && verify 2>/dev/null; then
  log "up to date ($cache)"
  echo "$bin"
  exit 0
fi

log "installing pinned CLIs into $cache (npm ci)"
start=$(date +%s)
mkdir -p "$cache"
rm -f "$stamp"
cp "$here/package.json" "$lock" "$cache/"
# --include=optional: the platform binaries of codex, claude, opencode and codex-acp are
# optionalDependencies and must not be dropped by an inherited omit=optional setting.
npm_flags=(--include=optional --no-audit --no-fund --loglevel=error)
if ! (cd "$cache" && npm ci "${npm_flags[@]}" >"$cache/npm-ci.log" 2>&1); then
  # npm ci rejects a lock in which optional platform packages of other OSes are missing
  # ("Missing: opencode-darwin-arm64@ from lock file"), which is what `npm install` writes
  # when the registry (e.g. a filtered mirror) does not carry them. Fall back to
  # `npm install` against the copied lock and insist that it did not change the lock, so
  # exactly the pinned tree is installed.
  grep -q "Missing: .* from lock file" "$cache/npm-ci.log" || { cat "$cache/npm-ci.log" >&2; die "npm ci failed"; }
  log "npm ci refused the lock (optional platform packages absent from the registry); using npm install with the lock"
  (cd "$cache" && npm install "${npm_flags[@]}" >&2) || die "npm install failed"
  [ "$(sha256sum "$cache/package-lock.json" | cut -d' ' -f1)" = "$want" ] \
    || die "npm install changed package-lock.json (diff $cache/package-lock.json $lock)"
fi
verify || die "installed CLIs failed verification (see above)"
echo "$want" >"$stamp"
log "done in $(( $(date +%s) - start )) s"
for name in claude codex gemini opencode qwen copilot kilo cline; do
  log "  $name $("$bin/$name" --version 2>/dev/null | head -n1)"
done
echo "$bin"
