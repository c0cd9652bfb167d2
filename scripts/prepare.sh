#!/bin/sh
# Paseo preparation command (paseo-plugin.json "build"): makes sure the agent-bridge binary named
# by plugin.json ("main": target/release/agent-bridge) exists.
#
# - cargo available, binary missing or older than the Rust sources: `cargo build --release`.
# - cargo available, binary up to date: nothing to do.
# - no cargo, binary present (prebuilt, e.g. shipped in the npm package): use it as is.
# - no cargo, no binary: fail with instructions.
# A failed build does not fail the install when a binary is already there (it is kept, with a
# warning). AGENT_BRIDGE_SKIP_BUILD=1 skips building whenever a binary exists.
set -u

cd "$(dirname "$0")/.." || exit 1
BIN=target/release/agent-bridge

say() { printf 'agent-bridge prepare: %s\n' "$*" >&2; }

CARGO=$(command -v cargo 2>/dev/null || true)
if [ -z "$CARGO" ] && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
  CARGO="${CARGO_HOME:-$HOME/.cargo}/bin/cargo"
fi

if [ -x "$BIN" ]; then
  if [ "${AGENT_BRIDGE_SKIP_BUILD:-}" = "1" ]; then
    say "AGENT_BRIDGE_SKIP_BUILD=1: using $BIN as is"
    exit 0
  fi
  if [ -z "$CARGO" ]; then
    say "cargo not found; using the prebuilt $BIN"
    exit 0
  fi
  NEWER=$(find Cargo.toml Cargo.lock crates providers -type f -newer "$BIN" 2>/dev/null | head -n 1)
  if [ -z "$NEWER" ]; then
    say "$BIN is up to date"
    exit 0
  fi
  say "$BIN is older than $NEWER; rebuilding"
elif [ -z "$CARGO" ]; then
  say "no binary at $BIN and cargo is not installed."
  say "Install Rust (https://rustup.rs) and reinstall the plugin, or put a prebuilt"
  say "agent-bridge binary for this machine at $(pwd)/$BIN."
  exit 1
fi

say "building with $CARGO build --release --locked -p agent-bridge"
if "$CARGO" build --release --locked -p agent-bridge; then
  exit 0
fi
if [ -x "$BIN" ]; then
  say "WARNING: the build failed; keeping the existing $BIN"
  exit 0
fi
say "the build failed and there is no binary at $BIN"
exit 1
