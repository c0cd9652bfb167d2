#!/usr/bin/env bash
# Runs every fuzz target (fuzz/, crates/fuzz-harness) under libFuzzer for SECONDS each (default
# 60), one after the other, then minimizes each corpus (cargo fuzz cmin) and prints per target:
# executions, exec/s, corpus files and bytes, crashes. Not part of the test command: a plain
# `cargo test` only replays the checked-in corpora (crates/fuzz-harness/tests/corpus.rs).
#
#   scripts/fuzz.sh [SECONDS]             # every target
#   FUZZ_TARGETS="codec wire" scripts/fuzz.sh 30
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 7200   # stop a target after 10 M executions
#
# Needs the nightly toolchain; installs cargo-fuzz into .cache/cargo-fuzz when missing. Seeds
# each corpus from the recorded CLI transcripts (the providers' tests/fixtures, copies of
# shared/fixtures, and shared/fixtures itself when it is beside the repo) and fuzz/seeds/.
# A crash, OOM or hang leaves its input in fuzz/artifacts/<target>/ and makes the script exit
# non-zero: reproduce with `cargo +nightly fuzz run <target> <file>`, fix it, and check the
# input in under fuzz/regressions/<target>/ so the replay test keeps it fixed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seconds="${1:-60}"
targets="${FUZZ_TARGETS:-codec wire claude codex acp}"
runs="${FUZZ_RUNS:-0}"
fuzz_dir="$repo/fuzz"
work="$fuzz_dir/target/fuzz-sh"
export PATH="$repo/.cache/cargo-fuzz/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "==> installing cargo-fuzz into .cache/cargo-fuzz" >&2
  cargo install cargo-fuzz --locked --root "$repo/.cache/cargo-fuzz"
fi
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "the nightly toolchain is missing (rustup toolchain install nightly)" >&2
  exit 2
fi

# Memory-safe Rust: no sanitizer (several times faster); debug assertions and overflow checks on.
fuzz_flags=(--fuzz-dir "$fuzz_dir" -s none --debug-assertions)

# seed DIR MAXLEN FILE...: each non-blank line of each file, and runs of consecutive lines
# packed up to MAXLEN bytes (so a transcript's order survives), as inputs named by their hash.
seed() {
  local dir="$1" max="$2"
  shift 2
  local f part
  for f in "$@"; do
    [ -f "$f" ] || continue
    rm -rf "$work/split.$$" && mkdir -p "$work/split.$$"
    awk -v max="$max" -v out="$work/split.$$" '
      NF == 0 { next }
      { n++; print > (out "/line-" n); close(out "/line-" n)
        if (size + length($0) + 1 > max && size > 0) { p++; size = 0 }
        print >> (out "/pack-" p); size += length($0) + 1 }
    ' "$f"
    for part in "$work/split.$$"/*; do
      [ -f "$part" ] || continue
      mv "$part" "$dir/seed-$(sha1sum <"$part" | cut -c1-16)"
    done
  done
}

fixtures_of() {
  local shared="$repo/../shared/fixtures"
  case "$1" in
    codec) ls providers/*/tests/fixtures/*.jsonl "$shared"/*.jsonl "$shared"/*.sse 2>/dev/null || true ;;
    wire) ls fuzz/seeds/wire.jsonl providers/acp/tests/fixtures/*.jsonl 2>/dev/null || true ;;
    claude) ls providers/claude/tests/fixtures/claude-*.jsonl "$shared"/claude-*.jsonl 2>/dev/null | grep -v claude-agent-acp || true ;;
    codex) ls providers/codex/tests/fixtures/codex-appserver-*.jsonl "$shared"/codex-appserver-*.jsonl 2>/dev/null || true ;;
    acp) ls providers/acp/tests/fixtures/*-acp-*.jsonl "$shared"/*-acp-*.jsonl 2>/dev/null || true ;;
  esac
}

echo "==> building the fuzz targets (nightly)" >&2
nice -n 10 cargo +nightly fuzz build "${fuzz_flags[@]}" >&2

summary=()
status=0
for t in $targets; do
  corpus="$fuzz_dir/corpus/$t"
  artifacts="$fuzz_dir/artifacts/$t"
  mkdir -p "$corpus" "$artifacts" "$work/$t"
  # The input size limit: one stdout line of a CLI fits (a Codex thread answer needs more).
  max_len=4096
  [ "$t" = codex ] && max_len=12288
  # shellcheck disable=SC2046
  seed "$corpus" "$max_len" $(fixtures_of "$t" | sort -u)
  before=$(find "$artifacts" -type f | wc -l)
  echo "==> fuzzing $t for ${seconds}s" >&2
  log="$work/$t/fuzz-0.log"
  rm -f "$log"
  # -jobs=1 -workers=1: one fuzzing process (its output goes to fuzz-0.log in the cwd).
  (
    cd "$work/$t"
    nice -n 19 cargo +nightly fuzz run "${fuzz_flags[@]}" "$t" "$corpus" -- \
      -jobs=1 -workers=1 -max_total_time="$seconds" -runs="$([ "$runs" = 0 ] && echo -1 || echo "$runs")" \
      -max_len="$max_len" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" >/dev/null 2>&1
  ) || true
  # `|| true`: a run that left no log (e.g. a failed build) is reported below, not a silent exit.
  execs=$(grep -a 'stat::number_of_executed_units' "$log" 2>/dev/null | tail -1 | awk '{print $2}' || true)
  rate=$(grep -a 'stat::average_exec_per_sec' "$log" 2>/dev/null | tail -1 | awk '{print $2}' || true)
  crashes=$(($(find "$artifacts" -type f | wc -l) - before))
  if [ "$crashes" -gt 0 ] || [ -z "$execs" ]; then
    status=1
    grep -a -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" >&2 || tail -20 "$log" >&2 ||
      echo "no fuzzing log for $t: did the target build? (cargo +nightly fuzz build)" >&2
  fi
  echo "==> minimizing the $t corpus" >&2
  # Edges only (no hit counts): a small corpus that still covers every edge reached.
  nice -n 19 cargo +nightly fuzz cmin "${fuzz_flags[@]}" "$t" "$corpus" -- -max_len="$max_len" -use_counters=0 -timeout=10 \
    -rss_limit_mb=1024 >"$work/$t/cmin.log" 2>&1 || { status=1; tail -5 "$work/$t/cmin.log" >&2; }
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(find "$corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  summary+=("$(printf '%-7s executions %-11s exec/s %-7s corpus %4s files %8s bytes  crashes %s' \
    "$t" "${execs:-?}" "${rate:-?}" "$files" "$bytes" "$crashes")")
done

echo
printf '%s\n' "${summary[@]}"
exit "$status"
