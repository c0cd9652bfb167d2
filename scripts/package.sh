#!/bin/sh
# Packs the npm packages into dist/ (or --out DIR) with `npm pack`:
# - the main package (npm/platforms.json "main": the Paseo plugin, optionalDependencies on every
#   platform package);
# - one platform package per binary: each `--binary ID=PATH` given (ID as in npm/platforms.json,
#   e.g. linux-arm64; how the release workflow packs binaries built elsewhere) and, unless one
#   is given for it, this machine's, built with `cargo build --release --locked -p agent-bridge`.
# Every version is the workspace version of Cargo.toml.
#
#   scripts/package.sh
#   scripts/package.sh --out /tmp/dist --binary darwin-arm64=artifacts/darwin-arm64/agent-bridge
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/dist"
BINARIES=""
usage() { echo "usage: scripts/package.sh [--out DIR] [--binary ID=PATH]..." >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    --binary)
      [ $# -ge 2 ] || usage
      case "$2" in *=*) ;; *) usage ;; esac
      BINARIES="$BINARIES
$2"
      shift 2
      ;;
    *) usage ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

HOST=$(node "$ROOT/scripts/npm-stage.mjs" host)
if ! printf '%s\n' "$BINARIES" | grep -q "^$HOST="; then
  echo "==> cargo build --release --locked -p agent-bridge (for $HOST)" >&2
  (cd "$ROOT" && cargo build --release --locked -p agent-bridge)
  EXE=agent-bridge
  case "$HOST" in win32-*) EXE=agent-bridge.exe ;; esac
  BINARIES="$BINARIES
$HOST=${CARGO_TARGET_DIR:-$ROOT/target}/release/$EXE"
fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/agent-bridge-stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT INT TERM

# npm pack DIR into $OUT; prints "file  packed size  unpacked size".
pack() {
  (cd "$1" && npm pack --json --pack-destination "$OUT" >"$STAGE/pack.json")
  node -e '
    const [r] = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const mb = (n) => (n / 1e6).toFixed(2) + " MB";
    console.log(`${r.filename}  ${mb(r.size)} packed, ${mb(r.unpackedSize)} unpacked`);
  ' "$STAGE/pack.json"
}

printf '%s\n' "$BINARIES" | while IFS= read -r entry; do
  [ -n "$entry" ] || continue
  id=${entry%%=*}
  binary=${entry#*=}
  [ -f "$binary" ] || { echo "package.sh: no binary at $binary (for $id)" >&2; exit 1; }
  node "$ROOT/scripts/npm-stage.mjs" platform "$id" "$binary" "$STAGE/$id"
  pack "$STAGE/$id"
done
node "$ROOT/scripts/npm-stage.mjs" main "$STAGE/main"
pack "$STAGE/main"
