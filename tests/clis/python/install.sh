#!/usr/bin/env bash
# Installs the pinned Python agents (Mistral Vibe `vibe-acp`, Deep Agents Code `dcode`, OpenHands
# `openhands`) into
# CACHE_DIR/python and links their commands into CACHE_DIR/python/bin (found there by the tests,
# tests/mock-llm/src/locator.rs). Prints nothing on stdout.
#
#   tests/clis/python/install.sh CACHE_DIR
#
# 1. CPython from the source pinned in pins.env (URL + sha256), built with ./configure && make
#    into CACHE_DIR/python/cpython; skipped when CACHE_DIR/python/cpython/.source-sha256 holds the
#    pinned sha256 and the interpreter runs. Build packages (pins.env PYTHON_BUILD_DEBS) are
#    installed with apt-get when missing (as root, else through sudo).
# 2. One venv per agent (CACHE_DIR/python/venvs/<name>) from its lock (<name>.txt here: every
#    package pinned, installed with --no-deps, so exactly that tree), by the pip on this machine
#    (`pip --python <venv>/bin/python`; the built Python has no pip of its own); skipped when the
#    venv's stamp holds the sha256 of the lock and of the interpreter's source and its first
#    command answers --version.
# Concurrent runs wait for each other (flock on CACHE_DIR/python/.lock).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${1:?usage: install.sh CACHE_DIR}"
root="$cache/python"
log() { echo "python/install.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# shellcheck source=pins.env
. "$here/pins.env"
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9

prefix="$root/cpython"
py="$prefix/bin/python3"
stamp="$prefix/.source-sha256"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "not root and no sudo: install $PYTHON_BUILD_DEBS yourself"; fi
}

build_debs() {
  local missing=() p
  for p in $PYTHON_BUILD_DEBS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "missing build packages ${missing[*]} and no apt-get"
  log "apt-get install ${missing[*]}"
  as_root apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

fetch() { # url dest
  if command -v curl >/dev/null; then curl -fsSL --retry 3 -o "$2" "$1"
  elif command -v wget >/dev/null; then wget -q -O "$2" "$1"
  else die "neither curl nor wget found"; fi
}

build_python() {
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PYTHON_SHA256" ] && "$py" -c 'import ssl, sqlite3, ctypes, lzma, bz2, zlib' 2>/dev/null; then
    return 0
  fi
  build_debs
  local start src tarball
  start=$(date +%s)
  src="$root/src"
  tarball="$root/python-$PYTHON_VERSION.tar.xz"
  rm -rf "$prefix" "$src"
  log "downloading $PYTHON_URL"
  fetch "$PYTHON_URL" "$tarball"
  echo "$PYTHON_SHA256  $tarball" | sha256sum -c --quiet - || die "sha256 mismatch for $tarball"
  mkdir -p "$src"
  tar -xJf "$tarball" -C "$src" --strip-components=1
  log "building CPython $PYTHON_VERSION into $prefix (log: $root/build.log)"
  # No test modules (Lib/test is most of the install), and the install's byte-compiling of the
  # standard library on every core: CI builds this from scratch beside the lint gate.
  (cd "$src" && ./configure --prefix="$prefix" --without-ensurepip --disable-test-modules \
     && make -j"$(nproc)" && make install COMPILEALL_OPTS=-j0) >"$root/build.log" 2>&1 \
    || { tail -n 40 "$root/build.log" >&2; die "CPython build failed"; }
  rm -rf "$src" "$tarball"
  "$py" -c 'import ssl, sqlite3, ctypes, lzma, bz2, zlib' \
    || die "the built Python lacks a module (build packages: $PYTHON_BUILD_DEBS)"
  echo "$PYTHON_SHA256" >"$stamp"
  log "CPython $("$py" -c 'import platform; print(platform.python_version())') built in $(( $(date +%s) - start )) s"
}

pip_cmd() {
  local p
  for p in pip3 pip; do
    command -v "$p" >/dev/null && "$p" --help 2>/dev/null | grep -q -- '--python' && { echo "$p"; return 0; }
  done
  if python3 -m pip --help 2>/dev/null | grep -q -- '--python'; then echo "python3 -m pip"; return 0; fi
  return 1
}

# venv NAME BIN...: CACHE_DIR/python/venvs/NAME from NAME.txt, BINs linked into CACHE_DIR/python/bin
venv() {
  local name=$1; shift
  local lock="$here/$name.txt" dir="$root/venvs/$name" want start pip b
  want="$(cat "$lock" "$stamp" | sha256sum | cut -d' ' -f1)"
  # A moved cache keeps the stamp but not the venv (its python and entry points name the old
  # path): it must still run.
  if [ -f "$dir/.lock-sha256" ] && [ "$(cat "$dir/.lock-sha256")" = "$want" ] \
    && "$dir/bin/python" -c '' 2>/dev/null && "$dir/bin/$1" --version >/dev/null 2>&1; then
    for b in "$@"; do ln -sf "../venvs/$name/bin/$b" "$root/bin/$b"; done
    return 0
  fi
  if ! pip="$(pip_cmd)"; then
    log "no pip with --python on PATH: apt-get install python3-pip"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-pip >&2
    pip="$(pip_cmd)" || die "no pip >= 22.3 (with --python) found"
  fi
  start=$(date +%s)
  rm -rf "$dir"
  "$py" -m venv --without-pip "$dir"
  log "installing $name ($lock) into $dir"
  # shellcheck disable=SC2086 # "python3 -m pip" is a command with arguments
  # --no-compile: the packages' .pyc are written by the first import of each module (a few
  # hundred of the tens of thousands installed are ever imported), not all of them up front.
  PIP_DISABLE_PIP_VERSION_CHECK=1 $pip --python "$dir/bin/python" install -q --no-compile --no-deps -r "$lock" >&2 \
    || die "pip install of $lock failed"
  for b in "$@"; do
    [ -x "$dir/bin/$b" ] || die "$name: $b missing after install"
    ln -sf "../venvs/$name/bin/$b" "$root/bin/$b"
  done
  echo "$want" >"$dir/.lock-sha256"
  log "$name installed in $(( $(date +%s) - start )) s ($(du -sh "$dir" | cut -f1))"
}

build_python
mkdir -p "$root/bin"
venv vibe vibe-acp vibe
venv dcode dcode
# openhands >= 1.3 declares Requires-Python ==3.12.* and no registry we reach ships a 3.12: pip
# would refuse its pins on 3.13 (a resolving install silently picks 1.2.1, which has no `acp`).
# PIP_IGNORE_REQUIRES_PYTHON (pip's --ignore-requires-python) installs the locked tree anyway; it
# runs on 3.13.5 (tested end to end: tests/conformance/tests/agnostic_openhands.rs).
PIP_IGNORE_REQUIRES_PYTHON=1 venv openhands openhands
