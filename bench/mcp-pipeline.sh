#!/usr/bin/env bash
# bench/mcp-pipeline.sh: what a request to dtk mcp costs with much input
# queued behind it: N pings written at once (pipelined), answered in turn.
#
#   bench/mcp-pipeline.sh [-r N] [BUILD_DIR]
#
# Each round times a session of 1,000 pings and one of 50,000 (and one of
# initialize alone, the start-up taken off both); prints the time per ping of
# each, the median of the rounds, and their ratio (50,000 over 1,000): about
# 1 when a request costs the same however much input waits, at most 1.5 by
# issue 43 (docs/performance.md, "Pipelined requests").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reps=5
build=""
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift ;;
	-h | --help) sed -n '5p' "$0" | sed 's/^#  /usage:/'; exit 0 ;;
	*) build=$1 ;;
	esac
	shift
done
build=$(cd "${build:-$root/build}" && pwd)
dtk=$build/dtk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the input of a session: initialize, then n pings
session() {
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i }'
}
for n in 0 1000 50000; do
	session "$n" >"$work/in.$n"
done

# prints the wall seconds of a session on input file $1, checking its answers
run() {
	local t0 t1 lines
	t0=$(date +%s%N)
	lines=$("$dtk" -C "$work" mcp <"$1" | wc -l)
	t1=$(date +%s%N)
	[ "$lines" -eq "$(wc -l <"$1")" ] || { echo "mcp-pipeline.sh: $lines answers to $1" >&2; exit 1; }
	echo "$(( t1 - t0 ))"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$work/small"
: >"$work/big"
for ((i = 1; i <= reps; i++)); do
	t0=$(run "$work/in.0")
	ts=$(run "$work/in.1000")
	tb=$(run "$work/in.50000")
	# ns per ping
	awk -v s="$ts" -v z="$t0" 'BEGIN { printf "%.1f\n", (s - z) / 1000 }' >>"$work/small"
	awk -v b="$tb" -v z="$t0" 'BEGIN { printf "%.1f\n", (b - z) / 50000 }' >>"$work/big"
done
small=$(median <"$work/small")
big=$(median <"$work/big")
printf 'per ping, 1,000 queued: %.1f us; 50,000 queued: %.1f us (medians of %d rounds)\n' \
	"$(awk -v v="$small" 'BEGIN { print v / 1000 }')" "$(awk -v v="$big" 'BEGIN { print v / 1000 }')" "$reps"
awk -v s="$small" -v b="$big" 'BEGIN { printf "ratio (50,000 over 1,000): %.2f\n", b / s }'
