#!/bin/sh
# Agentty's entry point (agentty-plugin.json "main", runtime "executable"). Agentty runs it with
# the plugin folder as the working directory and its AGENTTY_* variables; it finds the
# agent-bridge binary the way the Paseo adapter does (server/binary-location.ts) and replaces
# itself with `agent-bridge agentty` (exec: Agentty's SIGTERM and SIGKILL reach the binary,
# which Agentty knows by this process's id):
#
# 1. AGENT_BRIDGE_BIN, when set;
# 2. the platform package of an npm install, @agent-bridge/<os>-<cpu>/bin/agent-bridge, in the
#    node_modules of this folder or of a parent folder, nearest first (as Node resolves it);
# 3. target/release/agent-bridge of a source checkout (`cargo build --release -p agent-bridge`).
#
# Nothing found: one line on stderr (Agentty's plugin log) naming where it looked, exit 1.
set -u
DIR=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd) || exit 1

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
PACKAGE="@agent-bridge/$os-$cpu"
EXE=agent-bridge
[ "$os" = win32 ] && EXE=agent-bridge.exe

run() {
  exec "$1" agentty --plugin-dir "$DIR"
}

if [ -n "${AGENT_BRIDGE_BIN:-}" ]; then
  run "$AGENT_BRIDGE_BIN"
fi

SEARCHED=""
dir=$DIR
while :; do
  case "$dir" in
    */node_modules) ;; # as Node does: no node_modules/node_modules
    *)
      candidate="${dir%/}/node_modules/$PACKAGE/bin/$EXE"
      SEARCHED="$SEARCHED ${dir%/}/node_modules/$PACKAGE"
      if [ -x "$candidate" ]; then
        run "$candidate"
      fi
      ;;
  esac
  [ "$dir" = / ] && break
  dir=$(dirname -- "$dir")
done

if [ -x "$DIR/target/release/$EXE" ]; then
  run "$DIR/target/release/$EXE"
fi

echo "agent-bridge: no agent-bridge binary for $os-$cpu: not AGENT_BRIDGE_BIN, not $PACKAGE (looked in:$SEARCHED), not $DIR/target/release/$EXE. Install the npm package's dependencies in this folder (npm install --omit=dev), or build a checkout with cargo build --release -p agent-bridge." >&2
exit 1
