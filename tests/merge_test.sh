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
# dtk with its fault points (src/crash.c), for the failure checks
[ -n "${DTK_CRASH:-}" ] && DTK_CRASH=$(cd "$(dirname "$DTK_CRASH")" && pwd)/$(basename "$DTK_CRASH")

t_repo merge
cd "$repo" || exit 2
git config merge.conflictStyle merge
git symbolic-ref HEAD refs/heads/main
"$DTK" setup-git >/dev/null || { ko "setup-git"; t_done; exit 1; }
git add -A && git commit -qm base || exit 2

# dtk, as the lines the hooks print name it
dtk() { "$DTK" "$@"; }

# add_entries BRANCH K: on a new branch off main, adds K entries to alpha
# (each with a fresh id from dtk next-id, as an agent writing by hand would)
# and bumps alpha-001's used by one, reindexes and commits; their ids go to
# $scratch/ids.BRANCH.
add_entries()
{
    local branch=$1 k=$2 i id
    git checkout -q -b "$branch" main
    : >"$scratch/ids.$branch"
    for i in $(seq "$k"); do
        id=$("$DTK" next-id alpha) || return 1
        echo "$id" >>"$scratch/ids.$branch"
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
: >"$scratch/merges"
for b in a b c; do
    git merge -q --no-edit "$b" >>"$scratch/merges" 2>&1 || rc=$?
done
if [ $rc -eq 0 ] && [ -z "$(git diff --name-only --diff-filter=U)" ]; then
    ok "three branches merge without a conflict"
else
    ko "three branches merge without a conflict" "rc $rc" "$(cat "$scratch/merges")" "$(git status --short)"
fi
n=$(entry_ids | wc -l)
u=$(entry_ids | sort -u | wc -l)
new=$(grep -c 'Found on branch' insights/alpha.yaml)
if [ "$n" -eq 18 ] && [ "$u" -eq 18 ] && [ "$new" -eq 15 ] &&
    [ "$(entry_ids | tail -15)" = "$(cat "$scratch/ids.a" "$scratch/ids.b" "$scratch/ids.c")" ]; then
    ok "15 new entries, each with the id its branch gave it"
else
    ko "15 new entries, each with the id its branch gave it" "$n entries, $u distinct, $new new" "$(entry_ids | tr '\n' ' ')"
fi
if [ "$(sed -n '15p' insights/alpha.yaml)" = "    used: 6" ]; then
    ok "the counter is the sum (3 + 1 + 1 + 1)"
else
    ko "the counter is the sum (3 + 1 + 1 + 1)" "$(sed -n '15p' insights/alpha.yaml)"
fi
# every branch's INDEX.md was the same bytes (3 + 5 entries, the same
# figures): git keeps such a file without running any driver; the
# post-merge hook says the line that fixes it, and the commits are git's own
fix="dtk reindex && git commit -m 'INDEX.md rebuilt' INDEX.md"
if ! "$DTK" check >/dev/null 2>&1 &&
    grep -qxF "post-merge: INDEX.md does not match insights/ (git kept one side's INDEX.md); to fix it, run: $fix" "$scratch/merges" &&
    [ "$(git rev-list --merges --count HEAD)" -eq 2 ] && [ "$(git rev-parse HEAD^2)" = "$(git rev-parse c)" ] &&
    [ "$(git reflog -2 --format=%gs)" = "merge c: Merge made by the 'ort' strategy.
merge b: Merge made by the 'ort' strategy." ] &&
    eval "$fix" >/dev/null && "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "INDEX.md the same on every branch: git's merges, the hook says the line; run, dtk check exits 0"
else
    ko "INDEX.md the same on every branch: git's merges, the hook says the line; run, dtk check exits 0" \
        "$(cat "$scratch/check" 2>/dev/null)" "$(git status --short)" "$(cat "$scratch/merges")" "$(git reflog -4)"
fi
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
# git 2.39 names a driver no commit in a cherry-pick that does not stop:
# INDEX.md's driver keeps ours', says so and the line that fixes it
pick_fix="dtk reindex && git commit --amend --no-edit INDEX.md"
if git cherry-pick p2 >"$scratch/out" 2>&1 && finished &&
    grep -qF "git names no commit it is merging (a cherry-pick or revert that does not stop, a stash applied, a patch; docs/git.md): ours' INDEX.md kept, not rebuilt; after it, in the base run: $pick_fix" "$scratch/out" &&
    ! "$DTK" check >/dev/null 2>&1 && eval "$pick_fix" >/dev/null &&
    [ "$(grep -c 'Found on branch p' insights/alpha.yaml)" -eq 5 ] &&
    "$DTK" check >>"$scratch/out" 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "cherry-pick: ours' INDEX.md kept and the line said; run, both branches' entries, dtk check exits 0"
else
    ko "cherry-pick: ours' INDEX.md kept and the line said; run, both branches' entries, dtk check exits 0" "$(cat "$scratch/out")" "$(git status --short)"
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

# -- the hooks, each case in a repository of its own
# fresh NAME [SETUP-GIT ARGS...]: a new repository $scratch/NAME holding the
# base, set up with dtk setup-git ARGS and committed on main; cd into it
fresh()
{
    local name=$1
    shift
    cp -R "$SRC/tests/fixtures/base" "$scratch/$name" && cd "$scratch/$name" &&
        git init -q && git symbolic-ref HEAD refs/heads/main &&
        git config merge.conflictStyle merge &&
        "$DTK" setup-git "$@" >"$scratch/setup.out" 2>"$scratch/setup.err" &&
        git add -A && git commit -qm base
}

# same_index: merges into main two branches that each add 2 entries to
# alpha and bump one counter: both sides' INDEX.md are the same bytes
same_index()
{
    add_entries s1 2 && add_entries s2 2 && git merge -q --no-edit s1 &&
        git merge -q --no-edit s2 >"$scratch/merge.out" 2>&1
}

# told NAME [REFLOG]: after a merge of s2 whose INDEX.md was the same bytes
# on both sides: HEAD is the merge commit git made (its reflog line REFLOG,
# by default git merge's), the post-merge hook said the line that fixes
# INDEX.md and dtk check exits 1; that line run, dtk check exits 0, git
# status is clean, both branches' 4 entries are there
told()
{
    local line want=${2:-"merge s2: Merge made by the 'ort' strategy."}
    line=$(sed -n "s/^post-merge: INDEX.md does not match insights\/ (git kept one side's INDEX.md); to fix it, run: //p" "$scratch/merge.out")
    if [ "$(git reflog -1 --format=%gs)" = "$want" ] &&
        [ "$(git rev-parse HEAD^2)" = "$(git rev-parse s2)" ] && [ -n "$line" ] &&
        ! "$DTK" check >/dev/null 2>&1 && eval "$line" >/dev/null &&
        "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ] &&
        [ "$(grep -c 'Found on branch s' insights/alpha.yaml)" -eq 4 ]; then
        ok "$1"
    else
        ko "$1" "$(cat "$scratch/check" 2>/dev/null)" "$(git status --short)" "$(cat "$scratch/merge.out")" "$(git reflog -3)"
    fi
}

# fixed NAME: after a merge, dtk check exits 0, git status is clean,
# HEAD is the merge commit, with both branches' 4 entries, and ORIG_HEAD
# the commit before it
fixed()
{
    if "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ] &&
        [ "$(git rev-parse HEAD^2)" = "$(git rev-parse s2)" ] &&
        [ "$(git rev-parse ORIG_HEAD)" = "$(git rev-parse HEAD^1)" ] &&
        [ "$(grep -c 'Found on branch s' insights/alpha.yaml)" -eq 4 ]; then
        ok "$1"
    else
        ko "$1" "$(cat "$scratch/check")" "$(git status --short)" "$(cat "$scratch/merge.out")"
    fi
}

# told_pre NAME: a merge committed by git commit (HEAD^2 is s2), whose
# pre-commit hook staged nothing but said the line that rebuilds INDEX.md;
# that line run, dtk check exits 0, git status is clean, 4 entries
told_pre()
{
    local line
    line=$(sed -n "s/^pre-commit: INDEX.md does not match the staged insights\/; after the commit, run: //p" "$scratch/merge.out")
    if [ "$(git rev-parse HEAD^2)" = "$(git rev-parse s2)" ] && [ -n "$line" ] &&
        [ -z "$(git status --porcelain)" ] && ! "$DTK" check >/dev/null 2>&1 && eval "$line" >/dev/null &&
        "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ] &&
        [ "$(grep -c 'Found on branch s' insights/alpha.yaml)" -eq 4 ]; then
        ok "$1"
    else
        ko "$1" "$(cat "$scratch/check" 2>/dev/null)" "$(git status --short)" "$(cat "$scratch/merge.out")"
    fi
}

# without the hooks, git keeps INDEX.md as it is: dtk check exits 1
fresh no-hooks --no-hooks && same_index || ko "no-hooks: merged"
if [ -z "$(ls "$(git rev-parse --git-path hooks)" | grep -v '\.sample$')" ] &&
    ! "$DTK" check >"$scratch/check" 2>&1 && grep -q 'INDEX.md' "$scratch/check"; then
    ok "--no-hooks: no hook installed; INDEX.md the same on both sides stays stale (dtk check exits 1)"
else
    ko "--no-hooks: no hook installed; INDEX.md the same on both sides stays stale (dtk check exits 1)" \
        "$(cat "$scratch/check")"
fi

# a merge stopped before its commit (--no-commit), committed by git commit:
# the pre-commit hook says the line that rebuilds INDEX.md (a hook stages
# nothing of its own)
fresh no-commit && add_entries s1 2 && add_entries s2 2 && git merge -q --no-edit s1 &&
    git merge -q --no-commit s2 >"$scratch/merge.out" 2>&1 &&
    git commit -q --no-edit >>"$scratch/merge.out" 2>&1 || ko "no-commit: merged"
told_pre "merge --no-commit, then git commit: the pre-commit hook says the line; run, dtk check exits 0"

# each side valid, the two merged key by key not: alpha-002's source made
# paper-c on one side, paper-c added to its verified_by on the other; git
# merges cleanly, and the pre-merge-commit hook refuses the merge commit
# with dtk check's message (once); git merge --no-verify commits it, and
# the post-merge hook says the result is not valid
fresh invalid && git checkout -q -b s1 main &&
    "$DTK" edit alpha-002 --source paper-c --date 2026-08-01 >/dev/null && git commit -qam s1 &&
    git checkout -q -b s2 main && "$DTK" verify alpha-002 paper-c >/dev/null &&
    git commit -qam s2 && git checkout -q s1 || ko "invalid: branches made"
"$DTK" check >/dev/null 2>&1
before=$?
if ! git merge -q --no-edit s2 >"$scratch/merge.out" 2>&1 && [ "$before" -eq 0 ] &&
    [ "$(git rev-parse HEAD)" = "$(git rev-parse s1)" ] &&
    [ "$(grep -c "names the entry.s own source 'paper-c'" "$scratch/merge.out")" -eq 1 ] &&
    grep -q "^pre-merge-commit: the staged insights/ are not valid: commit refused" "$scratch/merge.out"; then
    ok "a clean merge into data that is not valid: pre-merge-commit refuses it with dtk check's message, once"
else
    ko "a clean merge into data that is not valid: pre-merge-commit refuses it" "before: $before" \
        "$(cat "$scratch/merge.out")"
fi
git merge --abort
if git merge -q --no-edit --no-verify s2 >"$scratch/merge.out" 2>&1 &&
    grep -qxF "post-merge: the merged insights/ are not valid; run 'dtk check' to see where" \
        "$scratch/merge.out"; then
    "$DTK" check >"$scratch/check" 2>&1
    if [ $? -eq 2 ] && grep -q "names the entry.s own source" "$scratch/check"; then
        ok "  ... git merge --no-verify commits it; the post-merge hook says so"
    else
        ko "  ... git merge --no-verify commits it; the post-merge hook says so" "$(cat "$scratch/check")"
    fi
else
    ko "  ... git merge --no-verify commits it; the post-merge hook says so" "$(cat "$scratch/merge.out")"
fi

# a merge that stops on a conflict (alpha-002's claim changed two ways, an
# entry added on each side: INDEX.md the same on both), resolved and
# committed with git commit
fresh conflict && for b in s1 s2; do
    add_entries $b 1 && git checkout -q $b &&
        sed -i "s/^    claim: Small messages are bound by synchronization steps, not bandwidth.\$/    claim: $b way./" \
            insights/alpha.yaml && git commit -qam "$b claim" && git checkout -q main
done && git merge -q --no-edit s1 || ko "conflict: branches made"
if ! git merge -q --no-edit s2 >"$scratch/merge.out" 2>&1 &&
    [ "$(git diff --name-only --diff-filter=U)" = insights/alpha.yaml ] &&
    cp insights/alpha.yaml "$scratch/conflicted" &&
    # resolved by keeping both sides: alpha-002 twice, refused by pre-commit
    sed -i '/^<<<<<<< /d; /^=======$/d; /^>>>>>>> /d' insights/alpha.yaml && git add insights/alpha.yaml &&
    ! git commit -q --no-edit >"$scratch/both.out" 2>&1 &&
    [ "$(grep -c "duplicate entry id 'alpha-002'" "$scratch/both.out")" -eq 1 ] &&
    grep -q '^pre-commit: commit refused: dtk check failed' "$scratch/both.out" &&
    [ -f .git/MERGE_HEAD ] && [ "$(git rev-parse HEAD^2 2>/dev/null)" != "$(git rev-parse s2)" ] &&
    cp "$scratch/conflicted" insights/alpha.yaml &&
    sed -i '/^=======$/,/^>>>>>>> /d; /^<<<<<<< /d' insights/alpha.yaml &&
    git add insights/alpha.yaml && git commit -q --no-edit >>"$scratch/merge.out" 2>&1 &&
    line=$(sed -n "s/^pre-commit: INDEX.md does not match the staged insights\/; after the commit, run: //p" "$scratch/merge.out") &&
    [ "$(git rev-parse HEAD^2)" = "$(git rev-parse s2)" ] && eval "$line" >/dev/null &&
    "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "a conflict resolved by keeping both sides: pre-commit refuses it (duplicate id, said once); resolved, committed, the line it says run, dtk check exits 0"
else
    ko "a conflict resolved by keeping both sides: pre-commit refuses it; resolved, committed" \
        "$(cat "$scratch/both.out" 2>/dev/null)" \
        "$(cat "$scratch/merge.out")" "$(cat "$scratch/check" 2>/dev/null)" "$(git status --short)"
fi

# s2's commits cherry-picked onto s1 one at a time: the first (an entry)
# is committed by git itself, no hook runs (INDEX.md left as it was); the
# second stops on the same conflict; resolved (theirs' claim),
# git cherry-pick --continue runs git commit: the post-commit hook says the
# line that rebuilds INDEX.md
git checkout -q -b pick s1
if git cherry-pick s2~1 >"$scratch/merge.out" 2>&1 && ! git cherry-pick s2 >>"$scratch/merge.out" 2>&1 &&
    [ "$(git diff --name-only --diff-filter=U)" = insights/alpha.yaml ] &&
    sed -i '/^<<<<<<< /,/^=======$/d; /^>>>>>>> /d' insights/alpha.yaml &&
    git add insights/alpha.yaml && GIT_EDITOR=: git cherry-pick --continue >>"$scratch/merge.out" 2>&1 &&
    line=$(sed -n "s/^post-commit: INDEX.md does not match insights\/ .*; to fix it, run: //p" "$scratch/merge.out") &&
    eval "$line" >/dev/null && "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ] &&
    [ "$(grep -c 'Found on branch s' insights/alpha.yaml)" -eq 2 ] && grep -q '^    claim: s2 way.$' insights/alpha.yaml; then
    ok "a cherry-pick's conflict resolved, then --continue: the post-commit hook says the line; run, dtk check exits 0"
else
    ko "a cherry-pick's conflict resolved, then --continue: the post-commit hook says the line" \
        "$(cat "$scratch/merge.out")" "$(cat "$scratch/check" 2>/dev/null)" "$(git status --short)"
fi
# both in one cherry-pick: the hook says INDEX.md is stale; dtk check tells
git checkout -q -b pick2 s1
if ! git cherry-pick "$(git merge-base s1 s2)..s2" >"$scratch/merge.out" 2>&1 &&
    sed -i '/^<<<<<<< /,/^=======$/d; /^>>>>>>> /d' insights/alpha.yaml &&
    git add insights/alpha.yaml && GIT_EDITOR=: git cherry-pick --continue >>"$scratch/merge.out" 2>&1 &&
    grep -q "^post-commit: INDEX.md does not match insights/ .*; to fix it, run: " "$scratch/merge.out" &&
    ! [ -d .git/sequencer ] && [ -z "$(git status --porcelain)" ] && ! "$DTK" check >/dev/null 2>&1; then
    ok "a cherry-pick of several commits: --continue completes, the hook says INDEX.md is stale, dtk check exits 1"
else
    ko "a cherry-pick of several commits: --continue completes, the hook says INDEX.md is stale, dtk check exits 1" \
        "$(cat "$scratch/merge.out")" "$(git status --short)"
fi

# pull (merge): a clone and its origin each add 2 entries
fresh origin && git clone -q "$scratch/origin" "$scratch/pull" &&
    (cd "$scratch/pull" && "$DTK" setup-git >/dev/null && add_entries s1 2 && git merge -q s1) &&
    add_entries s2 2 && git merge -q s2 || ko "pull: clone made"
cd "$scratch/pull" || exit 2
if git pull -q --no-rebase --no-edit origin main >"$scratch/merge.out" 2>&1 && git branch -q -f s2 origin/main; then
    told "pull (merge), INDEX.md the same on both sides: the hook says the line; run, dtk check exits 0" \
        "pull -q --no-rebase --no-edit origin main: Merge made by the 'ort' strategy."
else
    ko "pull (merge), INDEX.md the same on both sides: the hook says the line; run, dtk check exits 0" "$(cat "$scratch/merge.out")"
fi
# pull --rebase: the post-rewrite hook says the same line
git reset -q --hard HEAD~2
if git pull -q --rebase origin main >"$scratch/merge.out" 2>&1 && ! "$DTK" check >/dev/null 2>&1 &&
    grep -qxF "post-rewrite: INDEX.md does not match insights/ (git kept one side's INDEX.md); to fix it, run: $fix" "$scratch/merge.out" &&
    eval "$fix" >/dev/null && "$DTK" check >"$scratch/check" 2>&1 && [ -z "$(git status --porcelain)" ] &&
    [ "$(grep -c 'Found on branch s' insights/alpha.yaml)" -eq 4 ]; then
    ok "pull --rebase, INDEX.md the same on both sides: the hook says the line; run, dtk check exits 0"
else
    ko "pull --rebase, INDEX.md the same on both sides: the hook says the line; run, dtk check exits 0" \
        "$(cat "$scratch/merge.out")" "$(cat "$scratch/check" 2>/dev/null)" "$(git log --oneline -5)"
fi

# a pre-commit hook that is not dtk's: left byte for byte, the line to add
# printed; the other hooks installed; a second run changes nothing
cp -R "$SRC/tests/fixtures/base" "$scratch/foreign" && cd "$scratch/foreign" && git init -q || exit 2
printf '#!/bin/sh\necho mine\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
cp .git/hooks/pre-commit "$scratch/pre-commit.orig"
if "$DTK" setup-git >"$scratch/out" 2>"$scratch/err" && cmp -s .git/hooks/pre-commit "$scratch/pre-commit.orig" &&
    grep -qxF "dtk setup-git: $PWD/.git/hooks/pre-commit is not dtk's: left as it is; for INDEX.md to be checked after merges, add this line to it, before anything that checks INDEX.md:" "$scratch/err" &&
    grep -qxF '  "$(dirname "$0")/dtk-merge-index" pre-commit || exit' "$scratch/err" &&
    [ -x .git/hooks/post-rewrite ] && [ -x .git/hooks/post-merge ] && [ -x .git/hooks/dtk-merge-index ]; then
    ok "a hook that is not dtk's: left as it is, the line to add said on stderr"
else
    ko "a hook that is not dtk's: left as it is, the line to add said on stderr" "$(cat "$scratch/out" "$scratch/err")"
fi
tar -C .git -cf "$scratch/hooks1.tar" hooks config && cp .gitattributes "$scratch/attr1"
if "$DTK" setup-git >"$scratch/out" 2>/dev/null && tar -C .git -cf "$scratch/hooks2.tar" hooks config &&
    cmp -s "$scratch/hooks1.tar" "$scratch/hooks2.tar" && cmp -s .gitattributes "$scratch/attr1" &&
    [ "$(grep -c '^hook up to date: ' "$scratch/out")" -eq 5 ]; then
    ok "setup-git run again: hooks, config and .gitattributes unchanged"
else
    ko "setup-git run again: hooks, config and .gitattributes unchanged" "$(cat "$scratch/out")"
fi
# the line added to that hook: a conflict committed with git commit
printf '"$(dirname "$0")/dtk-merge-index" pre-commit || exit\n' >>.git/hooks/pre-commit
git symbolic-ref HEAD refs/heads/main && git add -A && git commit -qm base >/dev/null &&
    { add_entries s1 2 && add_entries s2 2; } >/dev/null && git merge -q --no-edit s1 >/dev/null &&
    git merge -q --no-commit s2 >"$scratch/merge.out" 2>&1 &&
    git commit -q --no-edit >>"$scratch/merge.out" 2>&1 || ko "foreign hook: merged" "$(cat "$scratch/merge.out")"
told_pre "that line added to the hook: git commit of a merge says the line; run, dtk check exits 0"
if "$DTK" setup-git >"$scratch/out" 2>"$scratch/err" && ! [ -s "$scratch/err" ] &&
    grep -qxF "hook (not dtk's) runs dtk-merge-index: $PWD/.git/hooks/pre-commit" "$scratch/out"; then
    ok "setup-git again: the hook that runs dtk-merge-index is seen, nothing said on stderr"
else
    ko "setup-git again: the hook that runs dtk-merge-index is seen, nothing said on stderr" "$(cat "$scratch/out" "$scratch/err")"
fi
# contrib/pre-commit linked in as the hook: it runs dtk-merge-index, the
# link is kept
cp -R "$SRC/tests/fixtures/base" "$scratch/linked" && cd "$scratch/linked" && git init -q || exit 2
ln -s "$SRC/contrib/pre-commit" .git/hooks/pre-commit
if "$DTK" setup-git >"$scratch/out" 2>"$scratch/err" && ! [ -s "$scratch/err" ] &&
    [ "$(readlink .git/hooks/pre-commit)" = "$SRC/contrib/pre-commit" ] &&
    grep -qxF "hook (not dtk's) runs dtk-merge-index: $PWD/.git/hooks/pre-commit" "$scratch/out"; then
    ok "contrib/pre-commit linked in: kept, seen to run dtk-merge-index"
else
    ko "contrib/pre-commit linked in: kept, seen to run dtk-merge-index" "$(cat "$scratch/out" "$scratch/err")"
fi
git symbolic-ref HEAD refs/heads/main && git add -A && git commit -qm base 2>/dev/null &&
    { add_entries s1 2 && add_entries s2 2; } >/dev/null 2>&1 && git merge -q --no-edit s1 >/dev/null &&
    git merge -q --no-commit s2 >"$scratch/merge.out" 2>&1 || ko "contrib: merged" "$(cat "$scratch/merge.out")"
# the commit that concludes the merge goes through with its stale INDEX.md
# said, as the hook dtk setup-git installs (the same script) says it: the
# line it gives rebuilds it (dtk-merge-index stages nothing)
if git commit -q --no-edit >>"$scratch/merge.out" 2>&1 &&
    line=$(sed -n "s/^pre-commit: INDEX.md does not match the staged insights\/; after the commit, run: //p" "$scratch/merge.out") &&
    [ -n "$line" ] && [ "$(git rev-parse HEAD^2)" = "$(git rev-parse s2)" ] &&
    eval "$line" >/dev/null && "$DTK" check >/dev/null 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "contrib/pre-commit: the merge's stale INDEX.md said, with the line that rebuilds it"
else
    ko "contrib/pre-commit: the merge's stale INDEX.md said, with the line that rebuilds it" "$(cat "$scratch/merge.out")"
fi

# a helper name taken by a file not dtk's: no hook at all
cp -R "$SRC/tests/fixtures/base" "$scratch/taken" && cd "$scratch/taken" && git init -q || exit 2
echo 'not dtk' >.git/hooks/dtk-merge-index
if "$DTK" setup-git >/dev/null 2>"$scratch/err" && [ "$(cat .git/hooks/dtk-merge-index)" = 'not dtk' ] &&
    ! [ -e .git/hooks/pre-merge-commit ] && ! [ -e .git/hooks/pre-commit ] &&
    grep -q 'dtk-merge-index is not dtk.s: no hook installed' "$scratch/err"; then
    ok "dtk-merge-index not dtk's: no hook installed, said on stderr"
else
    ko "dtk-merge-index not dtk's: no hook installed, said on stderr" "$(cat "$scratch/err")"
fi

# core.hooksPath (absolute; relative to the top of the work tree)
cp -R "$SRC/tests/fixtures/base" "$scratch/hookspath" && cd "$scratch/hookspath" && git init -q || exit 2
git config core.hooksPath "$scratch/hooks-elsewhere/git"
if "$DTK" setup-git >/dev/null 2>&1 && [ -x "$scratch/hooks-elsewhere/git/post-merge" ] &&
    [ -x "$scratch/hooks-elsewhere/git/dtk-merge-index" ] && ! [ -e .git/hooks/post-merge ]; then
    ok "core.hooksPath: the hooks are written there"
else
    ko "core.hooksPath: the hooks are written there" "$(ls -R "$scratch/hooks-elsewhere" .git/hooks)"
fi
git symbolic-ref HEAD refs/heads/main && git add -A && git commit -qm base && same_index ||
    ko "core.hooksPath: merged" "$(cat "$scratch/merge.out")"
told "core.hooksPath: the hook there says the line that fixes INDEX.md"
git config core.hooksPath relative-hooks
if "$DTK" setup-git >/dev/null 2>&1 && [ -x relative-hooks/post-merge ]; then
    ok "core.hooksPath relative: from the top of the work tree"
else
    ko "core.hooksPath relative: from the top of the work tree" "$(ls -a)"
fi

# a hooks folder that cannot be made (a file there): exit 2, nothing written
cp -R "$SRC/tests/fixtures/base" "$scratch/nohooks" && cd "$scratch/nohooks" && git init -q || exit 2
echo file >"$scratch/hooks-file" && git config core.hooksPath "$scratch/hooks-file"
cp .git/config "$scratch/config.orig"
"$DTK" setup-git >"$scratch/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && cmp -s .git/config "$scratch/config.orig" && ! [ -e .gitattributes ] &&
    [ "$(cat "$scratch/hooks-file")" = file ] && grep -q 'hooks-file' "$scratch/out"; then
    ok "hooks cannot be written: exit 2, configuration and .gitattributes unchanged"
else
    ko "hooks cannot be written: exit 2, configuration and .gitattributes unchanged" "rc $rc" "$(cat "$scratch/out")"
fi

# a linked worktree: git runs the main repository's hooks
fresh wt-main --no-hooks && add_entries s1 2 && add_entries s2 2 &&
    git worktree add -q -b wt "$scratch/wt" main && cd "$scratch/wt" || exit 2
if "$DTK" setup-git >/dev/null 2>&1 && [ -x "$scratch/wt-main/.git/hooks/post-merge" ]; then
    ok "a linked worktree: the hooks go to the common git directory"
else
    ko "a linked worktree: the hooks go to the common git directory" "$(ls "$scratch/wt-main/.git/hooks")"
fi
git merge -q --no-edit s1 && git merge -q --no-edit s2 >"$scratch/merge.out" 2>&1 || ko "worktree: merged" "$(cat "$scratch/merge.out")"
told "a linked worktree: the hook says the line that fixes INDEX.md"

# dtk gone: the hooks say so and never stop the merge
fresh gone && cp "$DTK" "$scratch/dtk-gone" && "$DTK" setup-git --dtk "$scratch/dtk-gone" >/dev/null &&
    rm "$scratch/dtk-gone" || ko "gone: made"
git checkout -q -b g1 && echo one >g1.txt && git add g1.txt && git commit -qm g1 &&
    git checkout -q main && echo two >g2.txt && git add g2.txt && git commit -qm g2
if git merge -q --no-edit g1 >"$scratch/out" 2>&1 && [ "$(git rev-parse HEAD^2)" = "$(git rev-parse g1)" ] &&
    grep -q "^post-merge: $scratch/dtk-gone is missing: INDEX.md not checked" "$scratch/out"; then
    ok "dtk missing: the merge is committed, the hook says dtk is missing"
else
    ko "dtk missing: the merge is committed, the hook says dtk is missing" "$(cat "$scratch/out")"
fi

# setup-git with another dtk: the helper (dtk's, out of date) replaced,
# still executable; the five hooks, up to date, left byte for byte
h=$(git rev-parse --git-path hooks)
cp "$h/post-merge" "$h/pre-commit" "$h/post-rewrite" "$scratch/" &&
    cp "$h/dtk-merge-index" "$scratch/helper.old" || ko "replaced: copied"
if "$DTK" setup-git >"$scratch/out" 2>"$scratch/err" && [ ! -s "$scratch/err" ] &&
    grep -qxF "hook replaced: $PWD/$h/dtk-merge-index" "$scratch/out" &&
    [ "$(grep -c '^hook up to date: ' "$scratch/out")" -eq 5 ] && cmp -s "$h/post-merge" "$scratch/post-merge" &&
    cmp -s "$h/pre-commit" "$scratch/pre-commit" && cmp -s "$h/post-rewrite" "$scratch/post-rewrite" &&
    [ -x "$h/dtk-merge-index" ] &&
    ! cmp -s "$h/dtk-merge-index" "$scratch/helper.old" && ! grep -qF dtk-gone "$h/dtk-merge-index" &&
    diff "$scratch/helper.old" "$h/dtk-merge-index" | grep -q '^> dtk='; then
    ok "setup-git with another dtk: the helper replaced, the hooks left byte for byte"
else
    ko "setup-git with another dtk: the helper replaced, the hooks left byte for byte" \
        "$(cat "$scratch/out" "$scratch/err")"
fi

# revert of a commit that added entries, after later commits touched alpha:
# INDEX.md kept as in a cherry-pick; the line said run
fresh revert && add_entries s1 2 && git merge -q s1 && add_entries s2 1 && git merge -q s2 &&
    sed -i 's/^    title: A low one$/    title: A low one, retitled/' insights/alpha.yaml &&
    "$DTK" reindex >/dev/null && git commit -qam retitle || ko "revert: made"
if git revert --no-edit s1 >"$scratch/out" 2>&1 && ! "$DTK" check >/dev/null 2>&1 &&
    eval "$pick_fix" >/dev/null && "$DTK" check >>"$scratch/out" 2>&1 &&
    [ -z "$(git status --porcelain)" ] && ! grep -q 'Found on branch s1' insights/alpha.yaml &&
    [ "$(grep -c 'Found on branch s2' insights/alpha.yaml)" -eq 1 ] &&
    grep -q '^    title: A low one, retitled$' insights/alpha.yaml &&
    [ "$(sed -n '15p' insights/alpha.yaml)" = "    used: 4" ]; then
    ok "revert of a commit that added entries: the line run, those go, later changes stay, dtk check exits 0"
else
    ko "revert of a commit that added entries: the line run, those go, later changes stay, dtk check exits 0" \
        "$(cat "$scratch/out")" "$(git status --short)"
fi

# two bases in one repository: the hooks serve one; setup-git in the second
# says the first is served no more
mkdir -p "$scratch/two/kb1" && cp -R "$SRC/tests/fixtures/base/." "$scratch/two/kb1" &&
    cp -R "$SRC/tests/fixtures/base" "$scratch/two/kb2" && git init -q "$scratch/two" || ko "two bases: made"
if "$DTK" -C "$scratch/two/kb1" setup-git >/dev/null 2>"$scratch/err1" && [ ! -s "$scratch/err1" ] &&
    "$DTK" -C "$scratch/two/kb2" setup-git >/dev/null 2>"$scratch/err2" &&
    grep -qF "the hooks served the base at 'kb1/' in this repository; they now serve this one only" "$scratch/err2" &&
    "$DTK" -C "$scratch/two/kb2" setup-git >/dev/null 2>"$scratch/err3" && [ ! -s "$scratch/err3" ]; then
    ok "two bases in one repository: setup-git in the second says the hooks leave the first"
else
    ko "two bases in one repository: setup-git in the second says the hooks leave the first" \
        "$(cat "$scratch/err1" "$scratch/err2" "$scratch/err3" 2>/dev/null)"
fi
# -- failures, with dtk-crash's fault points (DTK_FAULT_AT; ctest sets
# DTK_CRASH)
if [ -n "${DTK_CRASH:-}" ]; then
    # setup-git fails writing post-rewrite (the last hook): the hooks
    # before it are whole and executable (the helper, post-merge,
    # pre-commit), no temporary file left, the configuration and
    # .gitattributes as they were; run again, it completes
    cp -R "$SRC/tests/fixtures/base" "$scratch/setup-fault" && cd "$scratch/setup-fault" && git init -q || exit 2
    h=$PWD/.git/hooks
    cp .git/config "$scratch/config.orig"
    DTK_FAULT_AT="rename=$h/post-rewrite" "$DTK_CRASH" setup-git >"$scratch/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && [ -x "$h/dtk-merge-index" ] && [ -x "$h/post-merge" ] && [ -x "$h/pre-commit" ] &&
        ! [ -e "$h/post-rewrite" ] &&
        [ -z "$(ls "$h" | grep -v '\.sample$' | grep -v -x -e dtk-merge-index -e post-merge -e pre-commit)" ] &&
        cmp -s .git/config "$scratch/config.orig" && ! [ -e .gitattributes ] && grep -q 'post-rewrite' "$scratch/out"; then
        ok "setup-git fails writing a hook: those written are whole and executable, the rest as it was"
    else
        ko "setup-git fails writing a hook: those written are whole and executable, the rest as it was" \
            "rc $rc" "$(cat "$scratch/out")" "$(ls -l "$h")"
    fi
    if "$DTK" setup-git >"$scratch/out" 2>&1 && [ -x "$h/post-rewrite" ] && [ -s .gitattributes ] &&
        grep -qxF "hook written: $h/post-rewrite" "$scratch/out" &&
        [ "$(grep -c '^hook up to date: ' "$scratch/out")" -eq 2 ] && [ -n "$(git config merge.dtk-insights.driver)" ]; then
        ok "setup-git run again after the failure completes"
    else
        ko "setup-git run again after the failure completes" "$(cat "$scratch/out")"
    fi
    # setup-git fails writing .gitattributes (last): hooks and drivers set,
    # each driver with its command; git merges as it did without dtk
    cp -R "$SRC/tests/fixtures/base" "$scratch/setup-fault2" && cd "$scratch/setup-fault2" && git init -q || exit 2
    DTK_FAULT_AT="rename=$PWD/.gitattributes" "$DTK_CRASH" setup-git >"$scratch/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && ! [ -e .gitattributes ] && [ -x .git/hooks/post-merge ] &&
        [ -n "$(git config merge.dtk-index.driver)" ] && [ -n "$(git config merge.dtk-insights.driver)" ] &&
        [ -z "$(ls -a | grep 'tmp-')" ]; then
        ok "setup-git fails writing .gitattributes: hooks and drivers set, .gitattributes absent"
    else
        ko "setup-git fails writing .gitattributes: hooks and drivers set, .gitattributes absent" \
            "rc $rc" "$(cat "$scratch/out")"
    fi
else
    skip "the merge driver's failure checks" "DTK_CRASH is not set"
fi
cd "$repo" || exit 2

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
