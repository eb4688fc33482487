#!/usr/bin/env bash
# Runs each libFuzzer target of a sanitizer tree for SECONDS, JOBS at a time (make test-fuzz,
# make fuzz). New inputs go to BUILD/corpus/<target> (the first directory); the committed seeds in
# tests/fuzz/corpus are only read. A crash fails the run with its log's tail; its input is saved
# as BUILD/<target>-crash-*.
# Usage: scripts/run-fuzzers.sh BUILD SECONDS JOBS TARGET...
set -uo pipefail
build=$1 seconds=$2 jobs=$3
shift 3
run() {
  local t=$1
  mkdir -p "$build/corpus/$t"
  "$build/tests/fuzz/$t" "$build/corpus/$t" "tests/fuzz/corpus/$t" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/$t-" >"$build/$t.log" 2>&1
}
pids=() status=0
for t in "$@"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  run "$t" &
  pids+=("$!")
done
for i in "${!pids[@]}"; do
  t=${*:i+1:1}
  if wait "${pids[$i]}"; then
    echo "$t: $(grep -o 'number_of_executed_units: [0-9]*' "$build/$t.log" | grep -o '[0-9]*') runs" \
      "in $seconds s, nothing found"
  else
    tail -n 60 "$build/$t.log"
    echo "$t: crashed"
    status=1
  fi
done
exit $status
