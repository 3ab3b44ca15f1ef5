#!/usr/bin/env bash
# merge_test.sh DTK SOURCE_DIR: dtk's merge drivers (dtk setup-git) in real
# git merges, rebases, cherry-picks and pulls of branches that each add
# entries to one node and bump its counters, in a scratch repository made
# from tests/fixtures/base; and what git does when dtk is missing. Prints one
# line per check and "N passed, M failed" last; exits non-zero when any
# check failed.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo merge
cd "$repo" || exit 2
git config merge.conflictStyle merge
git symbolic-ref HEAD refs/heads/main
"$DTK" setup-git >/dev/null || { ko "setup-git"; t_done; exit 1; }
git add -A && git commit -qm base || exit 2

# add_entries BRANCH K: on a new branch off main, adds K entries to alpha
# (numbered by dtk next-id, as an agent would) and bumps alpha-001's used
# by one, reindexes and commits.
add_entries()
{
    local branch=$1 k=$2 i id
    git checkout -q -b "$branch" main
    for i in $(seq "$k"); do
        id=$("$DTK" next-id alpha) || return 1
        printf '  - id: %s\n    title: %s %s\n    claim: Found on branch %s (%s).\n    confidence: low\n    source: paper-a\n    created: 2026-07-0%s\n' \
            "$id" "$branch" "$i" "$branch" "$i" "$i" >>insights/alpha.yaml
    done
    used=$(sed -n '15s/^    used: //p' insights/alpha.yaml)
    sed -i "15s/^    used: .*/    used: $((used + 1))/" insights/alpha.yaml
    "$DTK" reindex >/dev/null && git commit -qam "$branch: $k entries" && git checkout -q main
}

# entry_ids: the ids of alpha's entries, one a line
entry_ids() { sed -n 's/^  - id: //p' insights/alpha.yaml; }

# -- three agents, five entries each, one counter bumped each: no conflict
add_entries a 5 && add_entries b 5 && add_entries c 5 || ko "branches made"
rc=0
for b in a b c; do
    git merge -q --no-edit "$b" >"$scratch/out" 2>&1 || rc=$?
done
if [ $rc -eq 0 ] && [ -z "$(git diff --name-only --diff-filter=U)" ]; then
    ok "three branches merge without a conflict"
else
    ko "three branches merge without a conflict" "rc $rc" "$(cat "$scratch/out")" "$(git status --short)"
fi
n=$(entry_ids | wc -l)
u=$(entry_ids | sort -u | wc -l)
new=$(grep -c 'Found on branch' insights/alpha.yaml)
if [ "$n" -eq 18 ] && [ "$u" -eq 18 ] && [ "$new" -eq 15 ] &&
    [ "$(entry_ids | tail -15 | tr '\n' ' ')" = "alpha-004 alpha-005 alpha-006 alpha-007 alpha-008 alpha-009 alpha-010 alpha-011 alpha-012 alpha-013 alpha-014 alpha-015 alpha-016 alpha-017 alpha-018 " ]; then
    ok "15 new entries, uniquely numbered"
else
    ko "15 new entries, uniquely numbered" "$n entries, $u distinct, $new new" "$(entry_ids | tr '\n' ' ')"
fi
if [ "$(sed -n '15p' insights/alpha.yaml)" = "    used: 6" ]; then
    ok "the counter is the sum (3 + 1 + 1 + 1)"
else
    ko "the counter is the sum (3 + 1 + 1 + 1)" "$(sed -n '15p' insights/alpha.yaml)"
fi
# every branch's INDEX.md was the same bytes (3 + 5 entries, the same
# figures): git keeps such a file without running any driver, so INDEX.md
# still describes one branch's base until it is rebuilt (docs/merging.md)
if ! "$DTK" check >"$scratch/out" 2>&1 && grep -q '^+  - Insight 总条目: 20$' "$scratch/out" &&
    "$DTK" reindex >/dev/null && "$DTK" check >/dev/null; then
    ok "INDEX.md the same on every branch: git keeps it; reindex rebuilds it"
else
    ko "INDEX.md the same on every branch: git keeps it; reindex rebuilds it" "$(cat "$scratch/out")"
fi
git commit -qam reindex
# the entries of each branch keep their text, in branch order
if [ "$(grep -o 'title: [abc] [0-9]' insights/alpha.yaml | tr '\n' ' ')" = \
    "title: a 1 title: a 2 title: a 3 title: a 4 title: a 5 title: b 1 title: b 2 title: b 3 title: b 4 title: b 5 title: c 1 title: c 2 title: c 3 title: c 4 title: c 5 " ]; then
    ok "each branch's entries in merge order"
else
    ko "each branch's entries in merge order" "$(grep -o 'title: [abc] [0-9]' insights/alpha.yaml | tr '\n' ' ')"
fi

# -- branches whose INDEX.md differ (4, 3 and 2 entries): INDEX.md's driver
# rebuilds it at each merge, dtk check exits 0 with no further step
add_entries d 4 && add_entries e 3 && add_entries f 2 || ko "branches d e f made"
rc=0
for b in d e f; do
    git merge -q --no-edit "$b" >"$scratch/out" 2>&1 || rc=$?
done
if [ $rc -eq 0 ] && [ "$(entry_ids | sort -u | wc -l)" -eq 27 ] &&
    [ "$(sed -n '15p' insights/alpha.yaml)" = "    used: 9" ] && "$DTK" check >"$scratch/out" 2>&1; then
    ok "INDEX.md rebuilt by its driver: dtk check exits 0 after the merges"
else
    ko "INDEX.md rebuilt by its driver: dtk check exits 0 after the merges" "rc $rc" "$(cat "$scratch/out")"
fi

# -- a real conflict: one entry changed two ways
for side in x y; do
    git checkout -q -b $side main &&
        sed -i "s/^    title: 小消息瓶颈在同步\$/    title: $side-title/" insights/alpha.yaml &&
        "$DTK" reindex >/dev/null && git commit -qam $side
done
git checkout -q x
if git merge -q --no-edit y >"$scratch/out" 2>&1; then
    ko "a conflict stops the merge" "$(cat "$scratch/out")"
else
    ok "a conflict stops the merge"
fi
if git diff --name-only --diff-filter=U | grep -qx insights/alpha.yaml; then
    ok "git reports insights/alpha.yaml conflicted"
else
    ko "git reports insights/alpha.yaml conflicted" "$(git status --short)"
fi
between=$(sed -n '/^<<<<<<< /,/^>>>>>>> /p' insights/alpha.yaml)
if [ "$(grep -c '^<<<<<<< ' insights/alpha.yaml)" -eq 1 ] &&
    [ "$(printf '%s\n' "$between" | grep -c '^  - id: ')" -eq 2 ] &&
    printf '%s\n' "$between" | grep -q '^    title: x-title$' &&
    printf '%s\n' "$between" | grep -q '^    title: y-title$' &&
    ! printf '%s\n' "$between" | grep -q '^  - id: alpha-00[13]'; then
    ok "the markers surround that one entry only"
else
    ko "the markers surround that one entry only" "$(cat insights/alpha.yaml)"
fi
if grep -q 'alpha.yaml: conflict: alpha-002 changed two ways' "$scratch/out"; then
    ok "the driver says which entry conflicts"
else
    ko "the driver says which entry conflicts" "$(cat "$scratch/out")"
fi
git merge --abort && git checkout -q main

# finished: no file left conflicted, no rebase or cherry-pick under way
finished()
{
    [ -z "$(git diff --name-only --diff-filter=U)" ] && ! [ -d .git/rebase-merge ] &&
        ! [ -e .git/CHERRY_PICK_HEAD ]
}

# -- rebase of one agent branch onto another
add_entries r1 3 && add_entries r2 4 || ko "rebase branches made"
git checkout -q r2
if git rebase -q r1 >"$scratch/out" 2>&1 && finished && [ "$(git rev-list --count r1..r2)" -eq 1 ]; then
    ok "rebase of one agent branch onto another"
else
    ko "rebase of one agent branch onto another" "$(cat "$scratch/out")" "$(git status --short)"
    git rebase --abort 2>/dev/null
fi
if [ "$(entry_ids | sort -u | wc -l)" -eq "$(entry_ids | wc -l)" ] && [ "$(grep -c 'Found on branch r' insights/alpha.yaml)" -eq 7 ] &&
    "$DTK" check >"$scratch/out" 2>&1; then
    ok "after the rebase: 7 new entries, ids distinct, dtk check exits 0"
else
    ko "after the rebase: 7 new entries, ids distinct, dtk check exits 0" "$(cat "$scratch/out")" "$(entry_ids | tr '\n' ' ')"
fi
git checkout -q main

# -- cherry-pick
add_entries p1 2 && add_entries p2 3 || ko "cherry-pick branches made"
git checkout -q p1
if git cherry-pick p2 >"$scratch/out" 2>&1 && finished && [ "$(grep -c 'Found on branch p' insights/alpha.yaml)" -eq 5 ] &&
    "$DTK" check >>"$scratch/out" 2>&1; then
    ok "cherry-pick: both branches' entries, dtk check exits 0"
else
    ko "cherry-pick: both branches' entries, dtk check exits 0" "$(cat "$scratch/out")" "$(git status --short)"
    git cherry-pick --abort 2>/dev/null
fi
git checkout -q main

# -- pull: a clone (that ran setup-git) and its origin both add entries
git clone -q "$repo" "$scratch/clone" && (
    cd "$scratch/clone" && "$DTK" setup-git >/dev/null &&
    add_entries mine 2 && git merge -q mine
) >/dev/null 2>&1 || ko "clone made"
add_entries origin-side 3 && git merge -q origin-side
want=$(($(grep -c 'Found on branch' insights/alpha.yaml) + 2))
if (cd "$scratch/clone" && git pull -q --no-rebase --no-edit origin main && "$DTK" check) >"$scratch/out" 2>&1 &&
    [ "$(grep -c 'Found on branch' "$scratch/clone/insights/alpha.yaml")" -eq "$want" ]; then
    ok "pull merges both sides' entries, dtk check exits 0"
else
    ko "pull merges both sides' entries, dtk check exits 0" "$(cat "$scratch/out")"
fi
(cd "$scratch/clone" && git reset -q --hard mine) >/dev/null
if (cd "$scratch/clone" && git pull -q --rebase origin main && finished && "$DTK" check) >"$scratch/out" 2>&1 &&
    [ "$(grep -c 'Found on branch' "$scratch/clone/insights/alpha.yaml")" -eq "$want" ]; then
    ok "pull --rebase likewise"
else
    ko "pull --rebase likewise" "$(cat "$scratch/out")"
fi

# -- the driver run by hand: a side that cannot be read changes nothing
cp insights/alpha.yaml "$scratch/ours.yaml" && cp insights/alpha.yaml "$scratch/ours.orig"
if ! "$DTK" merge-driver "$scratch/ours.orig" "$scratch/ours.yaml" "$scratch/missing.yaml" \
    insights/alpha.yaml >"$scratch/out" 2>&1 && cmp -s "$scratch/ours.yaml" "$scratch/ours.orig" &&
    grep -q 'missing.yaml' "$scratch/out"; then
    ok "a side that cannot be read: exit non-zero, ours' bytes unchanged"
else
    ko "a side that cannot be read: exit non-zero, ours' bytes unchanged" "$(cat "$scratch/out")"
fi

# -- without dtk: the driver's command cannot run. git counts that as a
# conflict and leaves ours' file as it was (no markers, nothing corrupted).
add_entries m1 1 && add_entries m2 1 || ko "branches without dtk made"
git config merge.dtk-insights.driver "$scratch/no-such-dtk merge-driver %O %A %B %P"
git config merge.dtk-index.driver "$scratch/no-such-dtk merge-driver %O %A %B %P"
git checkout -q m1
ours=$(git rev-parse HEAD:insights/alpha.yaml)
if ! git merge -q --no-edit m2 >"$scratch/out" 2>&1 &&
    git diff --name-only --diff-filter=U | grep -qx insights/alpha.yaml &&
    [ "$(git hash-object insights/alpha.yaml)" = "$ours" ]; then
    ok "dtk missing: the file is conflicted and holds ours' bytes"
else
    ko "dtk missing: the file is conflicted and holds ours' bytes" "$(cat "$scratch/out")" "$(git status --short)"
fi
git merge --abort
# a clone that never ran setup-git: the driver is not defined, git merges
# the text itself (both sides append at the same place: a conflict)
git config --unset merge.dtk-insights.driver
git config --unset merge.dtk-index.driver
git config --unset merge.dtk-insights.name
git config --unset merge.dtk-index.name
if ! git merge -q --no-edit m2 >"$scratch/out" 2>&1 && grep -q '^<<<<<<< ' insights/alpha.yaml &&
    [ "$(git diff --name-only --diff-filter=U)" = insights/alpha.yaml ]; then
    ok "driver not set up: git's own text merge (a conflict here)"
else
    ko "driver not set up: git's own text merge (a conflict here)" "$(cat "$scratch/out")"
fi
git merge --abort
# a name but no command: git stops before it changes anything
git config merge.dtk-insights.name dtk
head=$(git rev-parse HEAD)
if ! git merge -q --no-edit m2 >"$scratch/out" 2>&1 && grep -q 'lacks command line' "$scratch/out" &&
    [ "$(git rev-parse HEAD)" = "$head" ] && [ -z "$(git status --porcelain)" ]; then
    ok "a driver without a command: git refuses, nothing changed"
else
    ko "a driver without a command: git refuses, nothing changed" "$(cat "$scratch/out")" "$(git status --short)"
fi

t_done
