#!/usr/bin/env bash
# bench/add-check.sh: what dtk add's duplicate check costs, side by side with
# an add without it (DTK_NO_DUPLICATE_CHECK=1), on a copy of a synthetic base.
#
#   bench/add-check.sh [-r N] [--nodes N] [--stale N] [BUILD_DIR]
#
# Each round runs both adds, in turn, on the same copy (each appends an entry
# of new words, so that none is refused); prints each round's wall times and
# the median of the rounds' ratios (docs/performance.md, "The duplicate check").
# --stale N first adds an entry (with the check) to N other nodes, so that
# the index of terms holds them no more (docs/design.md, the packed terms).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reps=7
nodes=1000
stale=0
build=""
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift ;;
	--nodes) nodes=$2; shift ;;
	--stale) stale=$2; shift ;;
	-h | --help) sed -n '5p' "$0" | sed 's/^#  /usage:/'; exit 0 ;;
	*) build=$1 ;;
	esac
	shift
done
build=$(cd "${build:-$root/build}" && pwd)
dtk=$build/dtk
rusage=$build/bench/rusage
scratch=${TMPDIR:-/tmp}/dtk-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the caches of its copy of the base go with it (outside git they would go
# to the user cache directory, one per run)
export XDG_CACHE_HOME=$work/cache
base=$scratch/add-check-${nodes}x100
if [ ! -f "$base/.done" ]; then
	rm -rf "$base"
	mkdir -p "$scratch"
	"$build/bench/gen" --nodes "$nodes" --entries 100 --seed 1 --out "$base" >&2
	"$dtk" -C "$base" reindex -q
	touch "$base/.done"
fi
cp -R "$base" "$work/b"
node=""
others=()
for f in "$work/b/insights"/[!_]*.yaml; do # the first node file, then N others
	[ -n "$node" ] || { node=$(basename "$f" .yaml); continue; }
	[ ${#others[@]} -lt "$stale" ] || break
	others+=("$(basename "$f" .yaml)")
done
source=$(sed -n 's/^- id: \(.*\)$/\1/p;T;q' "$work/b/insights/_sources.yaml")

# A claim of words of the base's vocabulary (six of these, at random) and
# words no entry holds: alike no other entry.
vocab=(checkpoint RDMA pipeline tensor expert rollout straggler topology NVLink FSDP barrier
	cache 训练 吞吐 通信 显存 调度 故障)
claim() {
	local w
	for w in 1 2 3 4 5 6; do printf '%s ' "${vocab[RANDOM % ${#vocab[@]}]}"; done
	for w in $(seq 1 24); do printf 'w%sx%s ' "$RANDOM" "$RANDOM"; done
}

# run I ENV [NODE]: one add (to NODE, else the first node); appends its wall
# time to $work/t.ENV
run() {
	local i=$1 mode=$2 st
	env ${mode:+DTK_NO_DUPLICATE_CHECK=1} "$rusage" -o "$work/ru" "$dtk" -C "$work/b" add "${3:-$node}" \
		--title "t$RANDOM$RANDOM" --claim "$(claim)" --source "$source" \
		--confidence low >/dev/null 2>"$work/err" || {
		cat "$work/err" >&2
		exit 1
	}
	read -r wall _ st <"$work/ru"
	echo "$wall" >>"$work/t.${mode:-check}"
}

run 0 off
run 0 "" # warm the page cache (and write the index of terms)
for o in "${others[@]}"; do
	run 0 "" "$o"
done
: >"$work/t.off"
: >"$work/t.check"
for ((i = 1; i <= reps; i++)); do
	run "$i" off
	run "$i" ""
done
paste "$work/t.off" "$work/t.check" | awk '{ printf "round %d: without %.3f s, with %.3f s, ratio %.3f\n", NR, $1, $2, $2 / $1 }'
paste "$work/t.off" "$work/t.check" | awk '{ print $2 / $1 - 1 }' | sort -g |
	awk '{ t[NR] = $1 } END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
		printf "the check costs %.3f x an add without it (median of %d rounds; %.3f to %.3f)\n", m, NR, t[1], t[NR] }'
