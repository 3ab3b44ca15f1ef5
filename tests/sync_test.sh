#!/usr/bin/env bash
# sync_test.sh DTK SOURCE_DIR: dtk sync with real git, in clones that never
# ran dtk setup-git, against a bare repository standing for a hosting
# service whose merge button is a plain 'git merge --no-ff' or
# 'git merge --squash' in a clone with no drivers (docs/merging.md): two and
# three branches adding entries to a shared node and nodes of their own,
# each synced after main's last change and then merged by the service, with
# no conflict, no entry lost or duplicated and main valid after every merge;
# a key changed two ways stopping as git merge stops; --dry-run writing
# nothing; the merge commit's identity and signature as git's.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo sync
cd "$scratch" || exit 2
base=$SRC/tests/fixtures/base
git config --global init.defaultBranch main

# hub: a bare repository holding the base on main (the service), and svc, a
# clone of it with no drivers where the service's merges are made
hub()
{
    cd "$scratch" && rm -rf "$scratch/hub.git" "$scratch/seed" "$scratch/svc" "$scratch"/w-*
    cp -R "$base" "$scratch/seed" && git -C "$scratch/seed" init -q &&
        git -C "$scratch/seed" add -A && git -C "$scratch/seed" commit -qm base &&
        git clone -q --bare "$scratch/seed" "$scratch/hub.git" &&
        git clone -q "$scratch/hub.git" "$scratch/svc"
}

# work BRANCH: a clone w-BRANCH of the hub on a new BRANCH that adds an
# entry to alpha (shared) and a node of its own with an entry, and pushes
# it; the entry's alpha lines in $scratch/block.BRANCH
work()
{
    local w=$scratch/w-$1
    git clone -q "$scratch/hub.git" "$w" && cd "$w" && git checkout -q -b "$1" &&
        "$DTK" add alpha --title "${1}qa ${1}qb" --claim "${1}qc ${1}qd ${1}qe." \
            --source paper-a --confidence low --created 2026-07-01 >/dev/null &&
        "$DTK" add-node "own-$1" --category 策略 >/dev/null &&
        "$DTK" add "own-$1" --title "${1}qf ${1}qg" --claim "${1}qh ${1}qi." \
            --source paper-a --confidence low --created 2026-07-01 >/dev/null &&
        git add -A && git commit -qm "$1: work" &&
        git diff origin/main -- insights/alpha.yaml | sed -n 's/^+\(  .*\)$/\1/p' \
            >"$scratch/block.$1" &&
        git push -q origin "$1" && cd "$scratch"
}

# button METHOD BRANCH: the service merges BRANCH into main (merge: a merge
# commit; squash: one commit) with no driver, as git merges text, and
# pushes; fails on a conflict
button()
{
    cd "$scratch/svc" && git pull -q --ff-only && git fetch -q &&
        if [ "$1" = squash ]; then
            git merge -q --squash "origin/$2" >/dev/null && git commit -qm "$2 (squashed)"
        else
            git merge -q --no-ff -m "Merge $2" "origin/$2" >/dev/null
        fi && git push -q origin main && cd "$scratch"
}

# flow METHOD BRANCH...: each branch made off the same main, then in turn
# synced (dtk sync, pushed) and merged by the button; every merge clean,
# main valid after each; then alpha holds each entry once: the base's file
# with the blocks in the reverse order of merging (a sync puts the branch's
# entry before main's), byte for byte
flow()
{
    local method=$1 b name="$1 of $(($# - 1)) branches" bad=
    shift
    hub || { ko "$name: setup"; return; }
    for b in "$@"; do work "$b" || { ko "$name: work $b"; return; }; done
    for b in "$@"; do
        (cd "$scratch/w-$b" && git fetch -q && "$DTK" sync >/dev/null 2>"$scratch/err" &&
            git push -q origin "$b") || bad="$bad sync $b: $(cat "$scratch/err");"
        button "$method" "$b" || { bad="$bad the button conflicts on $b;"; cd "$scratch"; break; }
        "$DTK" -C "$scratch/svc" check >/dev/null 2>&1 || bad="$bad main invalid after $b;"
    done
    # the expected file: the base's lines, then the blocks last merged first
    {
        cat "$base/insights/alpha.yaml"
        for b in $(printf '%s\n' "$@" | tac); do cat "$scratch/block.$b"; done
    } >"$scratch/want"
    if [ -n "$bad" ]; then
        ko "$name: every sync and merge clean, main valid" "$bad"
    elif cmp -s "$scratch/want" "$scratch/svc/insights/alpha.yaml"; then
        ok "$name: 0 conflicts, main valid after each merge, alpha byte for byte"
    else
        ko "$name: alpha byte for byte" "$(diff "$scratch/want" "$scratch/svc/insights/alpha.yaml" | head -20)"
    fi
    for b in "$@"; do
        [ "$(grep -c "^  - id: own-$b-" "$scratch/svc/insights/own-$b.yaml")" = 1 ] &&
            grep -q "own-$b" "$scratch/svc/insights/_domain.yaml" ||
            { ko "$name: own-$b and its entry on main"; return; }
    done
    ok "$name: every branch's own node and entry on main, once"
}

flow merge b1 b2
flow merge b1 b2 b3
flow squash b1 b2 b3
flow merge b1 b2 b3 b4 b5
flow squash b1 b2 b3 b4 b5

# Without dtk sync, the same service merges conflict (what sync is for).
hub && work n1 && work n2 && button merge n1 &&
    if button merge n2 2>/dev/null; then
        ko "without sync, the second request conflicts on the service"
    else
        ok "without sync, the second request conflicts on the service"
    fi
cd "$scratch" || exit 2

# Up to date, --dry-run, a fast-forward, refusals.
hub && work u1 && work u2 && button merge u1
w=$scratch/w-u2
cd "$w" && git fetch -q || exit 2
snap() { (cd "$1" && find . -type f ! -name '*.lock' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
snap "$w" >"$scratch/before"
out=$("$DTK" sync --dry-run 2>&1); rc=$?
snap "$w" >"$scratch/after"
if [ $rc = 0 ] && cmp -s "$scratch/before" "$scratch/after" &&
    printf '%s\n' "$out" | grep -qx "would merge origin/main ([0-9a-f]*) into u2" &&
    printf '%s\n' "$out" | grep -qx "  merged by dtk: insights/alpha.yaml"; then
    ok "--dry-run says what it would merge and writes nothing (every file of the clone, .git too)"
else
    ko "--dry-run says what it would merge and writes nothing" "rc=$rc" "$out" \
        "$(diff "$scratch/before" "$scratch/after")"
fi
echo '# mine' >>README-local && git add README-local
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$out" | grep -q "the work tree has changes not committed (README-local)" &&
    [ ! -e .git/MERGE_HEAD ] && ok "a work tree with changes: refused (2), nothing done" ||
    ko "a work tree with changes: refused" "rc=$rc" "$out"
git rm -qf README-local
echo 'mine' >insights/own-u1.yaml
head=$(git rev-parse HEAD)
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 2 ] && [ ! -e .git/MERGE_HEAD ] && [ "$(git rev-parse HEAD)" = "$head" ] &&
    [ "$(cat insights/own-u1.yaml)" = mine ] && [ "$(git status --porcelain)" = "?? insights/own-u1.yaml" ] &&
    ok "an untracked file where the merge brings one: refused before anything is written" ||
    ko "an untracked file in the way" "rc=$rc" "$out" "$(git status --short)"
rm insights/own-u1.yaml

# identity and signing as git's: user.* of the repository, an ssh key
git config user.name 'Ann Merger' && git config user.email ann@example.org
signed=
if command -v ssh-keygen >/dev/null && ssh-keygen -q -t ed25519 -N '' -C ann -f "$scratch/key"; then
    git config gpg.format ssh && git config user.signingkey "$scratch/key.pub" &&
        git config commit.gpgsign true &&
        echo "ann@example.org namespaces=\"git\" $(cat "$scratch/key.pub")" >"$scratch/allowed" &&
        git config gpg.ssh.allowedSignersFile "$scratch/allowed" && signed=1
fi
out=$(env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL \
    "$DTK" sync 2>&1); rc=$?
parents=$(git rev-list --parents -n 1 HEAD | wc -w)
who=$(git log -1 --format='%an <%ae>|%cn <%ce>')
if [ $rc = 0 ] && [ "$parents" = 3 ] && [ "$who" = 'Ann Merger <ann@example.org>|Ann Merger <ann@example.org>' ] &&
    [ "$(git log -1 --format=%s)" = "Merge remote-tracking branch 'origin/main' into u2" ] &&
    [ "$(git rev-parse HEAD^2)" = "$(git rev-parse origin/main)" ] &&
    [ -z "$(git status --porcelain)" ] && [ ! -e .git/MERGE_HEAD ] &&
    [ "$(git reflog -1 --format=%gs)" = "merge origin/main: Merge made by dtk sync." ] &&
    "$DTK" check >/dev/null 2>&1; then
    ok "the merge commit: two parents, git's message, user.* as author and committer, clean, valid"
else
    ko "the merge commit as git makes it" "rc=$rc parents=$parents who=$who" "$out" "$(git status --short)"
fi
if [ -n "$signed" ]; then
    git verify-commit HEAD >/dev/null 2>&1 && ok "commit.gpgsign: the merge is signed (git verify-commit)" ||
        ko "commit.gpgsign: the merge is signed" "$(git cat-file commit HEAD)"
    git config --unset commit.gpgsign
else
    skip "commit.gpgsign: the merge is signed" "no ssh-keygen"
fi
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "u2 is up to date with origin/main ($(git rev-parse --short=7 origin/main))" ] &&
    ok "already up to date: said, exit 0" || ko "already up to date: said, exit 0" "rc=$rc" "$out"
git push -q origin u2 && button merge u2 &&
    [ "$(git -C "$scratch/svc" diff HEAD^2 HEAD --stat)" = "" ] &&
    ok "after sync the service's merge is the branch's tree" ||
    ko "after sync the service's merge is the branch's tree"
cd "$w" && git fetch -q && git checkout -q -b ff origin/main~1
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 0 ] && [ "$(git rev-parse HEAD)" = "$(git rev-parse origin/main)" ] &&
    [ -z "$(git status --porcelain)" ] && printf '%s\n' "$out" | grep -q "a fast-forward" &&
    ok "a branch with nothing of its own: a fast-forward" || ko "a fast-forward" "rc=$rc" "$out"
cd "$scratch" || exit 2

# A pre-merge-commit hook that refuses: the merge left for git commit, as
# git merge leaves it; --no-verify skips the hook. In a clone that ran dtk
# setup-git (drivers and hooks): the same merge.
hub && work h1 && work h2 && button merge h1 && cd "$scratch/w-h2" && git fetch -q || exit 2
"$DTK" setup-git >/dev/null 2>&1 && git add .gitattributes && git commit -qm attributes
printf '#!/bin/sh\nexit 1\n' >.git/hooks/pre-merge-commit && chmod +x .git/hooks/pre-merge-commit
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 2 ] && [ -e .git/MERGE_HEAD ] && [ "$(git rev-list --parents -n 1 HEAD | wc -w)" = 2 ] &&
    printf '%s\n' "$out" | grep -q "the pre-merge-commit hook refused the commit" &&
    git commit -q --no-verify --no-edit && [ "$(git rev-list --parents -n 1 HEAD | wc -w)" = 3 ] &&
    "$DTK" check >/dev/null 2>&1 &&
    ok "pre-merge-commit refuses: the merge left for git commit (MERGE_HEAD), which concludes it" ||
    ko "pre-merge-commit refuses" "rc=$rc" "$out"
git reset -q --hard HEAD~1
out=$("$DTK" sync --no-verify 2>&1); rc=$?
[ $rc = 0 ] && [ "$(git rev-list --parents -n 1 HEAD | wc -w)" = 3 ] && "$DTK" check >/dev/null 2>&1 &&
    ok "--no-verify: the hook skipped; with dtk setup-git's drivers and hooks: the same merge, valid" ||
    ko "--no-verify" "rc=$rc" "$out"
cd "$scratch" || exit 2

# A conflict outside the base (README changed two ways): git's markers
# there, insights/ merged and INDEX.md rebuilt all the same.
hub && work r1 && (cd "$scratch/svc" && echo main >README && git add README &&
    "$DTK" add alpha --title "svcqa svcqb" --claim "svcqc svcqd." --source paper-a \
        --confidence low --created 2026-07-01 >/dev/null &&
    git commit -qam readme && git push -q origin main) || exit 2
cd "$scratch/w-r1" && echo mine >README && git add README && git commit -qm readme && git fetch -q
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 1 ] && [ "$(git status --porcelain | LC_ALL=C sort)" = "$(printf 'AA README\nM  INDEX.md\nM  insights/alpha.yaml')" ] &&
    grep -qx '<<<<<<< HEAD' README && printf '%s\n' "$out" | grep -qx "CONFLICT: README" &&
    printf 'mine\n' >README && git add README && git commit -q --no-edit && "$DTK" check >/dev/null 2>&1 &&
    ok "a conflict outside insights/: git's markers there, INDEX.md rebuilt from the merged insights/" ||
    ko "a conflict outside insights/" "rc=$rc" "$out" "$(git status --short)"
cd "$scratch" || exit 2

# A key changed two ways: stops as git merge stops, with dtk's message; then
# resolved and committed with git.
hub && work c1 || exit 2
(cd "$scratch/svc" && "$DTK" edit alpha-001 --title "one way" >/dev/null && git commit -qam one &&
    git push -q origin main) || exit 2
cd "$scratch/w-c1" && "$DTK" edit alpha-001 --title "another way" >/dev/null &&
    git commit -qam another && git fetch -q || exit 2
out=$("$DTK" sync 2>"$scratch/err"); rc=$?
if [ $rc = 1 ] && [ "$(cat .git/MERGE_HEAD)" = "$(git rev-parse origin/main)" ] &&
    grep -qx "alpha.yaml: conflict: alpha-001 changed two ways" "$scratch/err" &&
    grep -qx "CONFLICT: insights/alpha.yaml" "$scratch/err" &&
    [ "$(git status --porcelain | LC_ALL=C sort)" = "$(printf 'UU INDEX.md\nUU insights/alpha.yaml')" ] &&
    grep -qx '<<<<<<< ours' insights/alpha.yaml && grep -qx '    title: one way' insights/alpha.yaml &&
    grep -qx '    title: another way' insights/alpha.yaml; then
    ok "a key changed two ways: stops as git merge (exit 1, MERGE_HEAD, UU), dtk's message names the entry"
else
    ko "a key changed two ways stops as git merge" "rc=$rc" "$out" "$(cat "$scratch/err")" "$(git status --short)"
fi
# only the conflicting entry is between markers: the branch's new entry is merged
n_markers=$(grep -c '^<<<<<<< ' insights/alpha.yaml)
[ "$n_markers" = 1 ] && grep -q "c1qa c1qb" insights/alpha.yaml &&
    ok "the markers stand around that entry only" || ko "the markers around that entry only" "$(cat insights/alpha.yaml)"
out=$("$DTK" sync 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$out" | grep -q "a merge is under way" &&
    ok "a merge under way: refused (2)" || ko "a merge under way: refused" "rc=$rc" "$out"
# resolved: main's title kept (ours' side of the markers dropped)
awk '/^<<<<<<< / { skip = 1; next } /^=======$/ { skip = 0; next } /^>>>>>>> / { next } !skip' \
    insights/alpha.yaml >"$scratch/resolved" && cat "$scratch/resolved" >insights/alpha.yaml
"$DTK" reindex >/dev/null 2>&1; git add insights INDEX.md
if git commit -q --no-edit 2>/dev/null && [ "$(git rev-list --parents -n 1 HEAD | wc -w)" = 3 ] &&
    "$DTK" check >/dev/null 2>&1; then
    ok "resolved, dtk reindex, git commit: the merge concluded by git, valid"
else
    ko "resolved and concluded by git commit" "$(git status --short)"
fi
cd "$scratch" || exit 2

t_done
