#!/bin/sh
# Paseo preparation command (paseo-plugin.json "build"): makes sure there is an agent-bridge
# binary for the adapter to run, in the adapter's order of preference:
#
# 1. the platform package of an npm install (@agent-bridge/<os>-<cpu>, found in node_modules
#    the way Node finds it from this folder): checked that it runs, nothing built, no cargo;
# 2. plugin.json's "main" (target/release/agent-bridge) in a source checkout:
#    - cargo available, binary missing or older than the Rust sources: `cargo build --release`;
#    - cargo available, binary up to date: nothing to do;
#    - no cargo, binary present (prebuilt): use it as is;
#    - no cargo, no binary: fail with instructions.
# A failed build does not fail the install when a binary is already there (it is kept, with a
# warning). AGENT_BRIDGE_SKIP_BUILD=1 skips building whenever a binary exists.
set -u

cd "$(dirname "$0")/.." || exit 1
BIN=target/release/agent-bridge

say() { printf 'agent-bridge prepare: %s\n' "$*" >&2; }

# This machine as Node names it (process.platform-process.arch), e.g. linux-x64.
host_platform() {
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) os=win32 ;;
    *) os=$(uname -s) ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) cpu=x64 ;;
    aarch64 | arm64) cpu=arm64 ;;
    *) cpu=$(uname -m) ;;
  esac
  printf '%s-%s' "$os" "$cpu"
}

PLATFORM=$(host_platform)
PACKAGE="@agent-bridge/$PLATFORM"
EXE=agent-bridge
case "$PLATFORM" in win32-*) EXE=agent-bridge.exe ;; esac

# 1. The platform package: <dir>/node_modules/@agent-bridge/<platform> for this folder and each
# parent, nearest first.
SEARCHED=""
dir=$(pwd)
while :; do
  case "$dir" in
    */node_modules) ;; # as Node does: no node_modules/node_modules
    *)
      candidate="${dir%/}/node_modules/$PACKAGE"
      SEARCHED="$SEARCHED $candidate"
      if [ -f "$candidate/package.json" ]; then
        if [ ! -f "$candidate/bin/$EXE" ]; then
          say "$PACKAGE is installed at $candidate but has no bin/$EXE; reinstall the plugin"
          exit 1
        fi
        if version=$("$candidate/bin/$EXE" --version 2>&1); then
          say "using $version from $PACKAGE ($candidate/bin/$EXE); nothing to build"
          exit 0
        fi
        say "$candidate/bin/$EXE does not run on this machine: $version"
        exit 1
      fi
      ;;
  esac
  [ "$dir" = / ] && break
  dir=$(dirname "$dir")
done

# 2. A source checkout's target/release build.
CARGO=$(command -v cargo 2>/dev/null || true)
if [ -z "$CARGO" ] && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
  CARGO="${CARGO_HOME:-$HOME/.cargo}/bin/cargo"
fi
if [ ! -f Cargo.toml ]; then
  # An npm install whose platform package npm did not install (unsupported platform, or
  # optional dependencies turned off): there is nothing to build from.
  if [ -x "$BIN" ]; then
    say "using the prebuilt $BIN"
    exit 0
  fi
  say "no agent-bridge binary for $PLATFORM: $PACKAGE is not installed (looked in:$SEARCHED)"
  say "and there is no $(pwd)/$BIN. Reinstall the plugin with npm's optional dependencies"
  say "enabled on a platform the README lists, or put an agent-bridge built for this machine at"
  say "$(pwd)/$BIN."
  exit 1
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
  say "no binary at $BIN and cargo is not installed (and no $PACKAGE in node_modules)."
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
