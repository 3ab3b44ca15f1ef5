#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default
# 60), all at once, from seed corpora made of the test fixtures and the case
# corpus. New crashes land in fuzz/findings/; copy each into fuzz/regress/
# once fixed, so that the test suite replays it.
#   fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
build=build-fuzz

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DDTK_FUZZ=ON -DBUILD_TESTING=OFF \
  -DDTK_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_node fuzz_base fuzz_merge fuzz_edit fuzz_mcp fuzz_write fuzz_index \
  >/dev/null

# seed corpora: node files for fuzz_node; whole bases and the cases for fuzz_base
mkdir -p "$build/corpus-node" "$build/corpus-base" "$build/corpus-merge" "$build/corpus-edit" \
  fuzz/findings
cp fuzz/regress/merge-* "$build/corpus-merge/" 2>/dev/null || true
cp tests/fixtures/base/insights/[a-z]*.yaml insights/[a-z]*.yaml fuzz/regress/node-* \
  "$build/corpus-node/" 2>/dev/null || true
cp tests/fixtures/base/insights/[a-z]*.yaml insights/[a-z]*.yaml fuzz/regress/edit-* \
  "$build/corpus-edit/" 2>/dev/null || true
cp tests/cases/*.case fuzz/regress/base-* "$build/corpus-base/" 2>/dev/null || true
mkdir -p "$build/corpus-mcp" "$build/corpus-write" "$build/corpus-index"
cp fuzz/regress/index-* "$build/corpus-index/" 2>/dev/null || true
cp fuzz/regress/write-* "$build/corpus-write/" 2>/dev/null || true
cp fuzz/regress/mcp-* "$build/corpus-mcp/" 2>/dev/null || true
for base in tests/fixtures/base .; do
  out="$build/corpus-base/whole-$(basename "$(realpath "$base")").case"
  : >"$out"
  for f in "$base"/insights/*.yaml; do
    printf '=== insights/%s\n' "$(basename "$f")" >>"$out"
    cat "$f" >>"$out"
  done
done

run() {
  local t=$1 len=$2
  "$build/fuzz/fuzz_$t" "$build/corpus-$t" -max_total_time="$secs" -max_len="$len" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="fuzz/findings/$t-" >"$build/fuzz_$t.log" 2>&1 || true
}
# DTK_FUZZ_SKIP: targets not run (a space-separated list), e.g. one with a
# known, reported finding that is not fixed yet.
skip=" ${DTK_FUZZ_SKIP:-} "
targets=""
for t in node base merge edit mcp write index; do
  case "$skip" in *" $t "*) echo "== fuzz_$t skipped (DTK_FUZZ_SKIP)"; continue ;; esac
  targets="$targets $t"
done
has() { case " $targets " in *" $1 "*) return 0 ;; esac; return 1; }
has node && run node 8192 &
has base && run base 32768 &
has merge && run merge 4096 &
has edit && run edit 8192 &
wait
# after the others, two at a time: the machine has two cores
has mcp && run mcp 16384 &
has write && run write 8192 &
wait
has index && run index 8192

for t in $targets; do
  echo "== fuzz_$t ($secs s)"
  grep -E "^#[0-9]+.*(DONE|pulse|NEW)" "$build/fuzz_$t.log" | tail -1
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$build/fuzz_$t.log" | tail -3
  grep -E "ERROR|SUMMARY" "$build/fuzz_$t.log" | head -5 || true
done
# A "slow unit" is an input that took 10 s or more once. Inputs that are
# slow take as long again when replayed alone; one that replays in under a
# second was slowed by the machine (a stall, another process), not by the
# code: it is listed and set aside in $build/stalls/, not counted as a
# finding. The fastest of three replays decides.
replay_ms() {
  "$build/fuzz/fuzz_$1" -runs=1 -timeout=30 "$2" 2>&1 |
    sed -n 's/^Executed .* in \([0-9]*\) ms$/\1/p' | tail -1
}
mkdir -p "$build/stalls"
for f in fuzz/findings/*-slow-unit-*; do
  [ -e "$f" ] || continue
  t=$(basename "$f"); t=${t%%-slow-unit-*}
  best=
  for _ in 1 2 3; do
    ms=$(replay_ms "$t" "$f")
    [ -n "$ms" ] || { best=; break; }
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  if [ -n "$best" ] && [ "$best" -lt 1000 ]; then
    echo "== $(basename "$f"): slow once, $best ms when replayed alone: a stall of the machine, set aside"
    mv "$f" "$build/stalls/"
  else
    echo "== $(basename "$f"): still slow when replayed alone (${best:-no time} ms)"
  fi
done
if [ -n "$(ls fuzz/findings)" ]; then
  echo "fuzzing found inputs that fail: fuzz/findings/"; ls fuzz/findings
  exit 1
fi
echo "no findings"
