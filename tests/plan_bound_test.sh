#!/bin/bash
# plan_bound_test.sh: crystallize --plan stays within 64 KB by default on the
# bench base of 100 nodes x 100 entries (21 entries new since the last run),
# text and JSON, each new entry beside at most 5 review pairs; the rest is
# on the next pages (issue 46; the sizes in docs/commands.md).
# usage: plan_bound_test.sh <dtk binary> <source dir> <bench gen binary>
set -u
. "$(dirname "$0")/lib.sh"
gen=$3
t_args "$1" "$2"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-plan-bound.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
"$gen" --nodes 100 --entries 100 --out "$scratch/base" >/dev/null || exit 2
cd "$scratch/base" || exit 2

dtk crystallize --plan --date 2026-07-01 >"$scratch/text" 2>/dev/null
dtk crystallize --plan --date 2026-07-01 --format json >"$scratch/json" 2>/dev/null
for f in text json; do
    n=$(wc -c <"$scratch/$f")
    if [ "$n" -lt 65536 ]; then ok "the $f plan is under 64 KB ($n bytes)"; else
        ko "the $f plan is under 64 KB" "$n bytes"; fi
done
grep -q '^new entries (21):$' "$scratch/text" && ok "21 new entries" || ko "21 new entries"
# each new entry's pairs: at most 5 lines under it
worst=$(awk '/^    [^ ]/ { n = 0 } /^      [0-9]/ { n++; if (n > m) m = n } END { print m + 0 }' \
    "$scratch/text")
[ "$worst" -eq 5 ] && ok "at most 5 pairs a new entry" || ko "at most 5 pairs a new entry" "$worst"
grep -q '^  … 1 more, next page with --page 2$' "$scratch/text" &&
    ok "the new entries go on on page 2" || ko "the new entries go on on page 2"
grep -q '^next page: dtk crystallize --plan --date 2026-07-01 --page 2$' "$scratch/text" &&
    ok "the next page named" || ko "the next page named"
dtk crystallize --plan --date 2026-07-01 --page 2 >"$scratch/p2" 2>/dev/null
grep -A1 '^new entries (21):$' "$scratch/p2" | tail -1 | grep -q '^  [a-z]' &&
    ok "page 2 holds the 21st new entry" || ko "page 2 holds the 21st new entry"
grep -q '"next_page": 2,' "$scratch/json" && ok "json: next_page" || ko "json: next_page"
t_done
