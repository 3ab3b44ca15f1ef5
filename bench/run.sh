#!/usr/bin/env bash
# bench/run.sh: times dtk against the libyaml floor (bench/scan) on the shipped
# knowledge base and on synthetic ones, and records the figures.
#
#   bench/run.sh [-r N] [--only LIST] [--no-plot] [--commit LABEL] [BUILD_DIR]
#   bench/run.sh --callgrind [BUILD_DIR]
#
# BUILD_DIR (default: build/ of this repository) must hold dtk and bench/{gen,
# scan,rusage}: cmake -S . -B build && cmake --build build. Nothing is built
# here. Synthetic bases go to ${TMPDIR:-/tmp}/dtk-bench and are reused while
# their stamp matches. See docs/performance.md for what each figure means.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reps=7
big_reps=3 # at most this many for the 3000 x 100 base
only=""
plot=1
mode=run
build=""
commit=""

usage() {
	sed -n '5,6p' "$0" | sed 's/^#  /usage:/'
	cat <<'EOF'
  -r N          rounds: each command runs once per round (default 7; at most 3 on 3000x100)
  --only LIST   bases to run, comma-separated: shipped,100x100,1000x100,3000x100,
                1000x100s33k (1000 x 100 with 33,000 sources: a 2.9 MB _sources.yaml)
  --no-plot     do not draw docs/bench.png
  --commit L    label the results L (default: HEAD, +uncommitted when src/ differs)
  --callgrind   count the instructions of `dtk check -q` on the shipped base
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	-r) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "-r needs a positive number"; reps=$2; shift ;;
	--only) only=${2:-}; shift ;;
	--no-plot) plot=0 ;;
	--commit) commit=${2:-}; shift ;;
	--callgrind) mode=callgrind ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) [ -z "$build" ] || die "one build directory only"; build=$1 ;;
	esac
	shift
done
build=$(cd "${build:-$root/build}" 2>/dev/null && pwd) || die "no build directory ${build:-$root/build}"
dtk=$build/dtk
gen=$build/bench/gen
scan=$build/bench/scan
rusage=$build/bench/rusage
mcpcall=$build/bench/mcpcall
for t in "$dtk" "$gen" "$scan" "$rusage" "$mcpcall"; do
	[ -x "$t" ] || die "$t is missing: cmake -S $root -B $build -DDTK_BENCH=ON && cmake --build $build"
done

# ---- callgrind: one repeatable figure ----
if [ "$mode" = callgrind ]; then
	command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$dtk" -C "$root" check -q 2>"$log" || { cat "$log" >&2; die "dtk check failed under valgrind"; }
	ir=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' "$log")
	[ -n "$ir" ] || { cat "$log" >&2; die "no 'Collected' line in valgrind's output"; }
	printf 'dtk check -q on the shipped base (%s): %s instructions (Ir)\n' "$root" "$ir"
	exit 0
fi

scratch=${TMPDIR:-/tmp}/dtk-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$root/bench/results.tsv
rows=$work/rows.tsv
: >"$rows"

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# the node cache (docs/design.md): outside git in $XDG_CACHE_HOME/dtk, here
# one of the run's own; in a repository, in its git directory
export XDG_CACHE_HOME=$work/cache
unset DTK_NO_CACHE

# Prints the folder of the node cache of the base in $1.
cache_dir() {
	local g
	if g=$(git -C "$1" rev-parse --absolute-git-dir 2>/dev/null); then
		echo "$g/dtk"
	else
		echo "$XDG_CACHE_HOME/dtk"
	fi
}

# drop_cache NAME DIR: before a run of row NAME, removes the cache it runs
# without from the cache folder DIR (the node cache)
drop_cache() {
	case $1 in
	show-cold | search-cold | reindex-cold) rm -f "$2"/nodes-* ;;
	esac
}

# change_one NAME NODE: before a run of a row that follows one changed node
# file, changes NODE's file of the copy of the base (a comment added: the
# base stays valid, INDEX.md as it was)
change_one() {
	case $1 in
	check-1 | reindex-1) echo "# changed" >>"$work/use-base/insights/$2.yaml" ;;
	esac
}

want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# Prints the path of synthetic base NxM (seed 1; K sources when given),
# generating it unless its stamp (the generator's source and the arguments)
# matches.
synthetic() {
	local n=$1 m=$2 k=${3:-} dir=$scratch/syn-$1x$2${3:+-k$3}-s1 stamp need
	stamp="gen $(cat "$root"/bench/gen.c "$root"/bench/gentext.[ch] | sha256sum | cut -c1-16)"
	stamp="$stamp nodes $n entries $m${k:+ sources $k} seed 1"
	if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ]; then
		echo "$dir"
		return
	fi
	rm -rf "$dir"
	mkdir -p "$scratch"
	need=$((n * m * 800 / 1024 + 20480)) # KiB: the YAML and INDEX.md, with room
	[ "$(df -Pk "$scratch" | awk 'NR == 2 { print $4 }')" -gt "$need" ] ||
		die "not enough space in $scratch for ${n}x$m (about $((need / 1024)) MiB)"
	"$gen" --nodes "$n" --entries "$m" ${k:+--sources "$k"} --seed 1 --out "$dir" >&2 ||
		die "gen failed for ${n}x$m${k:+ with $k sources}"
	echo "$stamp" >"$dir/.stamp"
	echo "$dir"
}

# Runs CMD... once with rusage; sets last_wall and last_rss. Dies, showing its
# standard error, when CMD exits non-zero.
run_once() {
	local st=0
	if [ "$1" = "$mcpcall" ]; then # a warm call's time, inside the session
		"$@" >"$work/ru" 2>"$work/err" || st=$?
		[ "$st" -ne 0 ] || { read -r last_wall <"$work/ru"; last_rss=0; return; }
	else
		"$rusage" -o "$work/ru" "$@" >/dev/null 2>"$work/err" || st=$?
	fi
	if [ "$st" -ne 0 ]; then
		echo "run.sh: FAILED (exit $st): $*" >&2
		head -c 4000 "$work/err" >&2
		exit 1
	fi
	read -r last_wall last_rss _ <"$work/ru"
}

# Prints the median, the smallest and the largest of sorted numbers.
median_awk='{ t[NR] = $1 } END {
	print ((NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), t[1], t[NR] }'

# cmd_args NAME DIR NODE DATE: sets the array args to the command line of the
# row NAME on the base in DIR.
cmd_args() {
	local ins=$2/insights
	case $1 in
	scan) args=("$scan" "$2") ;;
	reindex) args=("$dtk" -C "$2" reindex --stdout) ;;
	# with no node cache at all, read or written: every file parsed
	reindex-off) args=(env DTK_NO_CACHE=1 "$dtk" -C "$2" reindex --stdout) ;;
	# with no node cache (run_row removes it): every file parsed, the cache made
	reindex-cold) args=("$dtk" -C "$2" reindex --stdout) ;;
	# on one thread: no render threads (warm) and no loader pool (cold)
	reindex-off-t1) args=(env DTK_THREADS=1 DTK_NO_CACHE=1 "$dtk" -C "$2" reindex --stdout) ;;
	# after one node file changed (change_one), on the copy of the base
	# (the copy's cache in a folder of its own: the cold rows remove theirs)
	check-1) args=(env XDG_CACHE_HOME="$work/cache-copy" "$dtk" -C "$work/use-base" check -q) ;;
	reindex-1) args=(env XDG_CACHE_HOME="$work/cache-copy" "$dtk" -C "$work/use-base" reindex --stdout) ;;
	check) args=("$dtk" -C "$2" check -q) ;;
	show-floor) args=("$scan" -f "$ins/_domain.yaml" "$ins/_sources.yaml" "$ins/$3.yaml") ;;
	show) args=("$dtk" -C "$2" show "$3") ;;
	# show with no node cache: it parses every node file and writes the
	# cache (run_row removes the cache before each run)
	show-cold) args=("$dtk" -C "$2" show "$3") ;;
	# a warm call of a dtk mcp session (the base held): show and search
	mcp-show) args=("$mcpcall" "$dtk" "$2" show "{\"target\":\"$3\",\"limit\":100}") ;;
	mcp-search) args=("$mcpcall" "$dtk" "$2" search '{"query":"infiniband rdma"}') ;;
	plan) args=("$dtk" -C "$2" crystallize --plan --date "$4") ;;
	startup) args=("$dtk" --version) ;; # what any dtk run costs before reading
	# a write: used + 1 of the node's first entry, validated with the whole
	# base, the node file and INDEX.md replaced; on a copy of the base
	use) args=(env XDG_CACHE_HOME="$work/cache-copy" "$dtk" -C "$work/use-base" use "$(first_id "$work/use-base" "$3")") ;;
	# a search of two words of the generator's vocabulary: every node file
	# holds them, so every one is parsed (the most a search does)
	search) args=("$dtk" -C "$2" search infiniband rdma) ;;
	# a search that a few files hold: the node's name
	search-node) args=("$dtk" -C "$2" search "$3") ;;
	# search with no node cache: it parses every file and makes the cache
	# (run_row removes the cache before each run)
	search-cold) args=("$dtk" -C "$2" search infiniband rdma) ;;
	esac
}

# Prints the id of the first entry of node $2 of the base in $1.
first_id() {
	sed -n 's/^ *- id: \([a-z0-9-]*\).*/\1/p' "$1/insights/$2.yaml" | head -1
}

# Prints the row a row's ratio is taken against ("-": none).
floor_of() {
	case $1 in
	use | check-1 | reindex-1 | reindex-off-t1) echo reindex-off ;;
	search | search-node | search-cold) echo reindex ;;
	mcp-show) echo show ;;
	mcp-search) echo search ;;
	reindex | reindex-off | reindex-cold | check | plan) echo scan ;;
	show | show-cold) echo show-floor ;;
	*) echo - ;;
	esac
}

# bench_base LABEL DIR REPS: every command on one base. Each command runs once
# to warm the page cache, then the commands take turns, REPS rounds, so that
# a slow spell of the machine falls on all of them alike; a row holds the
# median wall time and the largest peak RSS of a command's REPS runs.
bench_base() {
	local label=$1 dir=$2 n=$3 ins=$2/insights node last date nodes entries bytes cache
	local name i median lo hi rss floor ratio names=(scan reindex check show-floor show-cold show plan)
	node=$(cd "$ins" && LC_ALL=C ls -- *.yaml | grep -v '^_' | awk '{ a[NR] = $0 } END {
		print a[int((NR + 1) / 2)] }')
	node=${node%.yaml}
	nodes=$(cd "$ins" && LC_ALL=C ls -- *.yaml | grep -vc '^_')
	entries=$(cat "$ins"/*.yaml | grep -c '^  - id: ' || true)
	bytes=$(cat "$ins"/*.yaml | wc -c)
	last=$(sed -n 's/^- date: \([0-9-]*\).*/\1/p' "$ins/_crystallizations.yaml" | tail -1)
	date=$(date -u -d "${last:-2026-01-01} +30 days" +%F)
	echo "== $label: $nodes nodes, $entries entries, $((bytes / 1024)) KiB; show $node; plan --date $date" >&2
	if [ "$label" = shipped ]; then
		names+=(startup)
	else # the write commands change the base: they run on a copy
		rm -rf "$work/use-base"
		cp -R "$dir" "$work/use-base"
		names+=(reindex-off reindex-cold reindex-off-t1 check-1 reindex-1 use search search-node search-cold
			mcp-show mcp-search)
	fi

	cache=$(cache_dir "$dir")
	for name in "${names[@]}"; do
		cmd_args "$name" "$dir" "$node" "$date"
		drop_cache "$name" "$cache"
		change_one "$name" "$node"
		run_once "${args[@]}"
		: >"$work/t.$name"
		echo 0 >"$work/rss.$name"
	done
	for ((i = 0; i < n; i++)); do
		for name in "${names[@]}"; do
			cmd_args "$name" "$dir" "$node" "$date"
			# show-cold and search-cold run with no cache and make it:
			# show and search, after them, warm
			drop_cache "$name" "$cache"
			change_one "$name" "$node"
			run_once "${args[@]}"
			echo "$last_wall" >>"$work/t.$name"
			read -r rss <"$work/rss.$name"
			if [ "$last_rss" -gt "$rss" ]; then echo "$last_rss" >"$work/rss.$name"; fi
		done
	done
	for name in "${names[@]}"; do
		read -r rss <"$work/rss.$name"
		floor=$(floor_of "$name")
		# median, fastest and slowest of the runs
		read -r median lo hi < <(sort -g "$work/t.$name" | awk "$median_awk")
		# the ratio: the median of each round's time over its floor's time
		# in the same round, which a slow spell of the machine shifts less
		# than a ratio of medians
		ratio=1
		if [ "$floor" != - ]; then
			read -r ratio _ < <(paste "$work/t.$name" "$work/t.$floor" |
				awk '{ print $1 / $2 }' | sort -g | awk "$median_awk")
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$nodes" \
			"$entries" "$bytes" "$name" "$n" "$median" "$floor" "$rss" "$lo" "$hi" \
			"$ratio" >>"$rows"
		printf '  %-10s %-12s %9.4f s %8.1f MiB\n' "$label" "$name" "$median" \
			"$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" >&2
	done
}

if want shipped; then
	bench_base shipped "$root" "$reps"
fi
for size in 100x100 1000x100 1000x100s33k 3000x100; do
	want "$size" || continue
	n=$reps
	if [ "$size" = 3000x100 ] && [ "$n" -gt "$big_reps" ]; then n=$big_reps; fi
	if [ "$size" = 1000x100s33k ]; then
		dir=$(synthetic 1000 100 33000)
	else
		dir=$(synthetic "${size%x*}" "${size#*x}")
	fi
	"$dtk" -C "$dir" reindex -q || die "dtk reindex failed on the generated base $dir"
	bench_base "$size" "$dir" "$n"
done

# ---- results: ratios to the floor, TSV and table ----
if [ -z "$commit" ]; then
	commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
	git -C "$root" diff --quiet HEAD -- src include 2>/dev/null || commit="$commit+uncommitted"
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	printf '# dtk bench %s, commit %s, %s cores (%s), build %s\n' \
		"$(date -u +%F)" "$commit" "$(nproc)" "${cpu:-unknown cpu}" "$build"
	printf '# load average before the runs: %s; after: %s\n' "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf 'base\tnodes\tentries\tbytes\tcommand\treps\tmedian_s\tfloor\tratio\tpeak_rss_mib\tmin_s\tmax_s\n'
	awk -F'\t' -v OFS='\t' '
		{ row[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				split(row[i], f, "\t")
				ratio = sprintf("%.2f", f[12])
				print f[1], f[2], f[3], f[4], f[5], f[6], sprintf("%.4f", f[7]),
				      f[8], ratio, sprintf("%.1f", f[9] / 1024), sprintf("%.4f", f[10]),
				      sprintf("%.4f", f[11])
			}
		}' "$rows"
} >"$results"

echo
grep '^#' "$results"
awk -F'\t' '
	/^#/ { next }
	$1 == "base" { printf "%-9s %-11s %8s %10s %-19s %8s %-15s %8s\n", "base", "command",
		       "entries", "median s", "(min-max)", "ratio", "", "RSS MiB"; next }
	{
		if (prev != "" && $1 != prev)
			print ""
		printf "%-9s %-11s %8s %10.4f %-19s %7sx %-15s %8s\n", $1, $5, $3, $7,
		       sprintf("(%.4f-%.4f)", $11, $12), $9, ($8 == "-" ? "" : "of " $8), $10
		prev = $1
	}' "$results"

# ---- the project's targets, as measured ----
echo
echo "show: the median of warm runs (the node cache made by the run before it);"
echo "show-cold: every run with no node cache (it parses every node file and makes the cache)"
echo "mcp-show, mcp-search: a warm call of a dtk mcp session, against a process of its own"
echo "search: warm runs (the node cache made by the run before it); search-cold: every run"
echo "with no node cache (it parses every file holding the words and makes the cache)"
awk -F'\t' '
	!/^#/ && $1 != "base" { t[$1, $5] = $7; r[$1, $5] = $9; m[$1, $5] = $10; e[$1] = $3 }
	function say(what, ok) { printf "  %-64s %s\n", what, ok ? "met" : "NOT met" }
	END {
		print "targets:"
		if (!(("1000x100", "reindex") in r))
			print "  (the targets are read on 1000x100 and 3000x100: run those bases)"
		split("100x100 1000x100", one, " ")
		split("check-1 reindex-1 use", after, " ")
		for (b = 1; b <= 2; b++)
			for (c = 1; c <= 3; c++)
				if ((one[b], after[c]) in r)
					say(sprintf("%s after one file changed <= 0.15 x cold reindex (%s): %.2f x",
					            after[c], one[b], r[one[b], after[c]]), r[one[b], after[c]] <= 0.15)
		# the cold reindexes: with no cache, and making it
		split("reindex-off reindex-cold", all, " ")
		split("no cache|cache made", how, "|")
		for (c = 1; c <= 2; c++)
			if (("1000x100", all[c]) in r)
				say(sprintf("cold reindex (%s) 1000x100 <= 0.75 x scan: %.2f x", how[c],
				            r["1000x100", all[c]]), r["1000x100", all[c]] <= 0.75)
		if (("1000x100", "search") in r)
			say(sprintf("search 1000x100 <= 1.0 x reindex: %.2f x (every file holds the words)",
			            r["1000x100", "search"]), r["1000x100", "search"] <= 1.0)
		if (("1000x100", "search-node") in r)
			say(sprintf("search 1000x100 <= 1.0 x reindex: %.2f x (a few files hold them)",
			            r["1000x100", "search-node"]), r["1000x100", "search-node"] <= 1.0)
		if (("1000x100", "search-cold") in r)
			printf "  %-64s %s\n", sprintf("search with no node cache (1000x100; reported): %.2f x",
			       r["1000x100", "search-cold"]), "-"
		split("1000x100 1000x100s33k", bases, " ")
		for (b = 1; b <= 2; b++) {
			rss = ""
			for (c = 1; c <= 2; c++)
				if ((bases[b], all[c]) in m && m[bases[b], all[c]] + 0 > rss + 0)
					rss = m[bases[b], all[c]]
			if (rss != "")
				say(sprintf("peak RSS <= 32 MiB (cold reindex; %s): %.1f MiB", bases[b], rss),
				    rss <= 32)
			if ((bases[b], "show") in r)
				say(sprintf("show <= 1.5 x its files scanned (%s; warm node cache): %.2f x",
				            bases[b], r[bases[b], "show"]), r[bases[b], "show"] <= 1.5)
			if ((bases[b], "show-cold") in r)
				printf "  %-64s %s\n", sprintf("show with no node cache (%s; reported): %.2f x",
				       bases[b], r[bases[b], "show-cold"]), "-"
		}
		for (b = 1; b <= 2; b++)
			for (c = 1; c <= 2; c++) {
				k = c == 1 ? "mcp-show" : "mcp-search"
				if ((one[b], k) in r)
					say(sprintf("warm %s <= 0.1 x a process of its own (%s): %.3f x", k, one[b],
					            r[one[b], k]), r[one[b], k] <= 0.1)
			}
		split("reindex check", cmds, " ")
		for (c = 1; c <= 2; c++)
			if (("100x100", cmds[c]) in t && ("3000x100", cmds[c]) in t) {
				k = (t["3000x100", cmds[c]] / e["3000x100"]) / (t["100x100", cmds[c]] / e["100x100"])
				say(sprintf("linear %s 100x100 -> 3000x100: time per entry x %.2f", cmds[c], k),
				    k <= 1.25)
			}
	}' "$results"
echo "results: $results"

# ---- the plot ----
if [ "$plot" -eq 1 ]; then
	if command -v gnuplot >/dev/null; then
		gnuplot -e "results='$results'; out='$root/docs/bench.png'" \
			-e "label='commit $commit, $(date -u +%F), $(nproc) cores'" "$root/bench/plot.gp" &&
			echo "plot: $root/docs/bench.png"
	else
		echo "gnuplot not found: docs/bench.png not drawn (apt-get install gnuplot-nox)"
	fi
fi
echo "instructions (Ir) of dtk check on the shipped base: bench/run.sh --callgrind"
