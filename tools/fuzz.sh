#!/usr/bin/env bash
# Runs the libFuzzer programs of a `fuzz` build for a bounded time, each on a
# fresh copy of its seed corpus inside the build folder (the source tree is
# never written), and prints one line per program:
#
#   fuzz json_reader_fuzzer: 812345 executions in 60 s, 0 crashes, corpus 31 -> 402 inputs
#
# Fails if any program found a crash (sanitizer report, leak, timeout or
# out-of-memory input); the input is kept as
# <build>/fuzz-runs/<program>/artifacts/<kind>-<sha1> and replays with
# `<program> <file>`.
#
#   tools/fuzz.sh [--seconds N] [--jobs N] [--build DIR] [program...]
#
# Defaults: 60 seconds per program, 2 programs at a time, build/fuzz, every
# program listed in <build>/tests/fuzz/fuzzers.txt.
set -euo pipefail

seconds=60
parallel=2
build=build/fuzz
only=()

usage() {
  echo "usage: $0 [--seconds N] [--jobs N] [--build DIR] [program...]" >&2
  exit 2
}

while (($#)); do
  case "$1" in
    --seconds) seconds=${2:?}; shift 2 ;;
    --jobs) parallel=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) only+=("$1"); shift ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$parallel" =~ ^[1-9][0-9]*$ ]] || usage

manifest="$build/tests/fuzz/fuzzers.txt"
if [[ ! -f "$manifest" ]]; then
  echo "fuzz: $manifest not found; build first:" \
       "cmake --preset fuzz && cmake --build --preset fuzz" >&2
  exit 2
fi
runs="$build/fuzz-runs"

# A UB report is already fatal (-fno-sanitize-recover); show where it happened.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Fuzzes one program; writes its summary line to <dir>/summary.
run_one() {
  local name=$1 exe=$2 dict=$3
  shift 3
  local dir="$runs/$name"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # Seeds keep their names, prefixed with their folder's index so that two
  # folders can't overwrite each other's files.
  local i=0 seed
  for corpus in "$@"; do
    i=$((i + 1))
    for seed in "$corpus"/*; do
      if [[ -f "$seed" ]]; then
        cp -- "$seed" "$dir/corpus/$i-${seed##*/}"
      fi
    done
  done
  local seeds
  seeds=$(find "$dir/corpus" -type f | wc -l)
  local args=(
    "-max_total_time=$seconds" -print_final_stats=1 -timeout=10
    -rss_limit_mb=2048 -max_len=16384 "-artifact_prefix=$dir/artifacts/"
  )
  if [[ "$dict" != - ]]; then
    args+=("-dict=$dict")
  fi
  local start=$SECONDS rc=0
  "$exe" "${args[@]}" "$dir/corpus" >"$dir/log.txt" 2>&1 || rc=$?
  local took=$((SECONDS - start))
  local execs crashes inputs
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$dir/log.txt")
  crashes=$(find "$dir/artifacts" -type f \
              \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
              | wc -l)
  inputs=$(find "$dir/corpus" -type f | wc -l)
  if ((rc != 0 && crashes == 0)); then
    # Died without saving an input (e.g. a crash while loading the corpus).
    crashes=1
  fi
  echo "fuzz $name: ${execs:-?} executions in $took s, $crashes crashes," \
       "corpus $seeds -> $inputs inputs" >"$dir/summary"
  echo "$rc" >"$dir/rc"
}

names=()
while IFS=$'\t' read -r name exe dict corpora; do
  [[ -n "$name" ]] || continue
  if ((${#only[@]})) && [[ ! " ${only[*]} " == *" $name "* ]]; then
    continue
  fi
  IFS=$'\t' read -r -a corpus_dirs <<<"$corpora"
  names+=("$name")
  while (($(jobs -rp | wc -l) >= parallel)); do
    wait -n || true
  done
  echo "fuzz $name: running for $seconds s"
  run_one "$name" "$exe" "$dict" "${corpus_dirs[@]}" &
done <"$manifest"
wait

if ((${#names[@]} == 0)); then
  echo "fuzz: no program matched ${only[*]:-(none listed in $manifest)}" >&2
  exit 2
fi

failed=0
for name in "${names[@]}"; do
  dir="$runs/$name"
  if [[ "$(cat "$dir/rc" 2>/dev/null || echo missing)" != 0 ]]; then
    failed=1
    echo "---- $name failed; the end of $dir/log.txt:"
    tail -n 60 "$dir/log.txt" || true
    ls "$dir/artifacts" 2>/dev/null | sed "s|^|     input: $dir/artifacts/|"
  fi
done
for name in "${names[@]}"; do
  cat "$runs/$name/summary" 2>/dev/null || echo "fuzz $name: no summary (runner died)"
done
exit "$failed"
