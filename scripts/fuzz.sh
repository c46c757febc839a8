#!/usr/bin/env bash
# Fuzzes plaincall's text parsers with cargo-fuzz (libFuzzer + AddressSanitizer): the targets in
# fuzz/fuzz_targets (parse_calls, holdback, sse, schema), each for FUZZ_SECONDS. Exits non-zero if any
# target crashes (a panic is a crash: every invariant is an assert); the input that did it is
# kept under fuzz/artifacts/<target>/ and printed, with the command that replays it.
#
#   scripts/fuzz.sh                     # every target, 60 s each
#   FUZZ_SECONDS=10 scripts/fuzz.sh sse # one target, 10 s
#
# Works on stable Rust: cargo-fuzz passes nightly-only flags (-Zsanitizer=address, ...), which
# RUSTC_BOOTSTRAP=1 lets a stable compiler accept. cargo-fuzz is installed into
# $CARGO_HOME/bin (~/.cargo/bin) when missing (`cargo install --locked`, from crates.io).
# The first build compiles plaincall and all its dependencies instrumented, into fuzz/target:
# minutes; later runs reuse it.
#
# Corpus: fuzz/seeds/<target> (hand-written, tracked) is read; what libFuzzer finds goes to
# fuzz/corpus/<target> (ignored by git, kept between runs so each run starts where the last
# one stopped).
#
# Environment:
#   FUZZ_SECONDS     seconds per target (default 60)
#   FUZZ_TIMEOUT     seconds one input may take before it counts as a hang (default 10)
#   FUZZ_SANITIZER   address (default) or none (faster, catches panics only: plaincall is safe
#                    Rust, so that is most of what there is to catch); a change rebuilds all
#   FUZZ_ARGS        more libFuzzer flags, e.g. "-jobs=4 -workers=4" or "-max_len=65536"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec </dev/null

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-10}"
FUZZ_SANITIZER="${FUZZ_SANITIZER:-address}"
ALL_TARGETS=(parse_calls holdback sse schema)

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'scripts/fuzz.sh: %s\n' "$*" >&2; exit 2; }

[[ "$FUZZ_SECONDS" =~ ^[0-9]+$ && "$FUZZ_SECONDS" -gt 0 ]] || die "FUZZ_SECONDS must be a positive integer"
[[ "$FUZZ_TIMEOUT" =~ ^[0-9]+$ && "$FUZZ_TIMEOUT" -gt 0 ]] || die "FUZZ_TIMEOUT must be a positive integer"
command -v cargo >/dev/null 2>&1 || die "cargo is not installed"

if [ "$#" -gt 0 ]; then
  targets=("$@")
  for t in "${targets[@]}"; do
    [ -f "fuzz/fuzz_targets/$t.rs" ] || die "no fuzz target $t (have: ${ALL_TARGETS[*]})"
  done
else
  targets=("${ALL_TARGETS[@]}")
fi

export RUSTC_BOOTSTRAP=1
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$cargo_bin:$PATH"

if ! cargo fuzz --version >/dev/null 2>&1; then
  step "Installing cargo-fuzz into $cargo_bin"
  cargo install cargo-fuzz --locked
fi
cargo fuzz --version

cd fuzz
step "Building the fuzz targets (sanitizer: $FUZZ_SANITIZER)"
build_start=$SECONDS
cargo fuzz build --sanitizer "$FUZZ_SANITIZER"
echo "built in $((SECONDS - build_start)) s"

failed=()
for t in "${targets[@]}"; do
  step "Fuzzing $t for ${FUZZ_SECONDS} s"
  mkdir -p "corpus/$t"
  dirs=("corpus/$t")
  [ -d "seeds/$t" ] && dirs+=("seeds/$t")
  flags=(-max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" -print_final_stats=1)
  [ -f "$t.dict" ] && flags+=(-dict="$t.dict")
  # shellcheck disable=SC2206 # FUZZ_ARGS is a list of flags, split on purpose.
  [ -n "${FUZZ_ARGS:-}" ] && flags+=(${FUZZ_ARGS})
  log="target/fuzz-$t.log"
  status=0
  cargo fuzz run --sanitizer "$FUZZ_SANITIZER" "$t" "${dirs[@]}" -- "${flags[@]}" >"$log" 2>&1 || status=$?
  # The final stats: executions, speed, coverage.
  grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb))' "$log" || true
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    echo "--- $t FAILED (exit $status); the end of $PWD/$log:"
    tail -n 60 "$log"
    grep -o 'Test unit written to .*' "$log" | sed 's/^Test unit written to //' | while read -r artifact; do
      echo "input: $artifact"
      echo "replay: (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer $FUZZ_SANITIZER $t $artifact)"
    done || true
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  step "Fuzzing FAILED: ${failed[*]}"
  exit 1
fi
step "Fuzzing passed: ${targets[*]} (${FUZZ_SECONDS} s each)"
