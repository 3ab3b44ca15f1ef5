#!/usr/bin/env bash
# split_test.sh: a long _sources.yaml is parsed in two parts at once
# (docs/design.md, "Loading, threads and memory"); what dtk prints must be
# what it prints parsing in one part (DTK_THREADS=1), byte for byte: the
# sources in order, errors from both halves, a quoted scalar across the line
# where the second part would start.
#   split_test.sh <dtk binary> <source dir>
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo split

# The fixture's sources, then 3,000 more (about 150 KiB); ERR adds errors
# to both halves; QUOTE puts a quoted scalar across the middle's lines.
sources() {
    [ -z "${TAG:-}" ] || printf '%%TAG !! tag:example.com,2000:\n---\n'
    cat "$SRC/tests/fixtures/base/insights/_sources.yaml"
    awk -v err="${ERR:-}" -v quote="${QUOTE:-}" -v tag="${TAG:-}" 'BEGIN {
        for (i = 1; i <= 3000; i++) {
            printf "- id: extra-%04d\n", i
            if (quote && i % 500 == 0) {
                print "  title: \"A title over lines"
                # 40 lines that start as items do (short: a title holds
                # at most 200 characters)
                for (k = 0; k < 40; k++) printf "- %c\n", 97 + k % 26
                print "  \""
            } else if (tag && i == 2500) {
                print "  title: !!str A tag whose handle the directive names"
            } else {
                printf "  title: Extra source number %d of the list\n", i
            }
            if (err && i == 700) print "  read: 2026-02-30"
            if (err && i == 2300) print "  read: 2026-13-01\n  colour: red"
            if (err && i == 2900) print "- id: extra-0042\n  title: again"
        }
    }'
}

run_both() { # run_both NAME ARGS...: one part and two give the same
    local name=$1
    shift
    (cd "$repo" && DTK_THREADS=1 "$DTK" "$@" >"$scratch/one.out" 2>&1)
    echo "exit $?" >>"$scratch/one.out"
    (cd "$repo" && DTK_THREADS=2 "$DTK" "$@" >"$scratch/two.out" 2>&1)
    echo "exit $?" >>"$scratch/two.out"
    if cmp -s "$scratch/one.out" "$scratch/two.out"; then
        ok "$name: the same bytes in one part and in two"
    else
        ko "$name: one part and two differ" "$(diff "$scratch/one.out" "$scratch/two.out" | head -5)"
    fi
}

sources >"$repo/insights/_sources.yaml"
[ "$(wc -c <"$repo/insights/_sources.yaml")" -gt 131072 ] || ko "the list is long enough to split"
(cd "$repo" && "$DTK" reindex >/dev/null 2>&1)
run_both "check, valid" check
# the split happened: parsing in two parts starts a thread that one part
# does not (the fixture's three node files are read by one thread)
clones() {
    (cd "$repo" && DTK_THREADS=$1 strace -f -qq -e trace=clone,clone3 -o "$scratch/trace" \
        "$DTK" check >/dev/null 2>&1)
    grep -c 'clone' "$scratch/trace"
}
if ! command -v strace >/dev/null; then
    skip "the list is parsed in two parts" "strace is not installed"
elif [ "$(clones 2)" -gt "$(clones 1)" ]; then
    ok "the list is parsed in two parts (a thread more than in one)"
else
    ko "the list is parsed in two parts" "DTK_THREADS=2: $(clones 2) clones, 1: $(clones 1)"
fi
run_both "show a node" show alpha
run_both "show json" show alpha --format json
run_both "list json" list --format json

ERR=1 sources >"$repo/insights/_sources.yaml"
run_both "check, errors in both halves" check
for want in ":1411:9: error: 'read' must be a real calendar date" \
    ":4612:9: error: 'read' must be a real calendar date" ":4613:3: error: unknown key 'colour'" \
    "duplicate source id 'extra-0042'"; do
    if grep -q -- "$want" "$scratch/two.out"; then ok "reported: $want"; else
        ko "reported: $want" "$(head -5 "$scratch/two.out")"; fi
done
grep -q "^exit 2$" "$scratch/two.out" && ok "errors: exit 2" || ko "errors: exit 2"

QUOTE=1 sources >"$repo/insights/_sources.yaml"
run_both "check, quoted scalars across lines that start with '- '" check
grep -q "^exit 0$" "$scratch/two.out" && ok "quoted: valid" || ko "quoted: valid" "$(head -3 "$scratch/two.out")"
# a %TAG directive gives '!!' another prefix: it holds in the second half
# too ('!!str' there is not YAML's core str)
TAG=1 sources >"$repo/insights/_sources.yaml"
run_both "check, a %TAG directive naming !!" check
if grep -q ":5012:10: error: tag 'tag:example.com,2000:str' is not allowed" "$scratch/two.out" &&
    grep -q "^exit 2$" "$scratch/two.out"; then
    ok "%TAG: the tag in the second half is refused"
else
    ko "%TAG: the tag in the second half is refused" "$(head -3 "$scratch/two.out")"
fi
t_done
