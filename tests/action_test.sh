#!/usr/bin/env bash
# action_test.sh DTK SOURCE_DIR: the GitHub Action's scripts
# (scripts/action/*.sh, action.yml) run offline, as the workflow of
# docs/ci.md runs them, on a base made with dtk init in a repository of its
# own, against a bare repository standing for GitHub, whose merge button is
# a plain git merge in a clone with no drivers: check annotates, sync brings
# a pull request up to date and pushes it (fork requests and shallow clones
# refused with a notice or an error), reindex commits a rebuilt INDEX.md on
# the default branch as a commit of its own; a protected branch's refusal
# is said.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo action
cd "$scratch" || exit 2
git config --global init.defaultBranch main
run=$SRC/scripts/action/run.sh
hub=$scratch/hub.git

# gh EVENT [VAR=VALUE...] -- COMMAND: run.sh COMMAND as the action's step
# runs it, with GitHub's variables for EVENT; output in $scratch/out
gh() {
    local ev=$1
    shift
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    env GITHUB_EVENT_NAME="$ev" GITHUB_REPOSITORY=o/kb DTK="$DTK" DTK_DEFAULT_BRANCH=main \
        "${vars[@]}" bash "$run" "$@" >"$scratch/out" 2>&1
}

# ci NAME: a fresh clone of the hub, as actions/checkout with fetch-depth 0
# leaves it (every branch fetched, HEAD detached)
ci() {
    rm -rf "$scratch/$1" && git clone -q "$hub" "$scratch/$1" && cd "$scratch/$1" &&
        git checkout -q --detach
}

# branch NAME NODE WORD: a clone on branch NAME adding an entry to NODE
# (words of WORD), pushed
branch() {
    rm -rf "$scratch/w-$1" && git clone -q "$hub" "$scratch/w-$1" && cd "$scratch/w-$1" &&
        git checkout -q -b "$1" &&
        "$DTK" add "$2" --title "${3}qa ${3}qb" --claim "${3}qc ${3}qd." --source paper-a \
            --confidence low --created 2026-07-01 >/dev/null && git commit -qam "$1" &&
        git push -q origin "$1" && cd "$scratch"
}

# button BRANCH: the service's merge commit of BRANCH into main, no driver
button() {
    rm -rf "$scratch/svc" && git clone -q "$hub" "$scratch/svc" &&
        git -C "$scratch/svc" merge -q --no-ff -m "Merge $1" "origin/$1" >/dev/null 2>&1 &&
        git -C "$scratch/svc" push -q origin main
}

# The base: dtk init in a repository of its own, two nodes, on main.
mkdir seed && cd seed && git init -q && "$DTK" init --lang en --domain demo --title Demo >/dev/null &&
    "$DTK" add-source paper-a --title "A paper" >/dev/null &&
    "$DTK" add-node alpha --category core >/dev/null && "$DTK" add-node beta --category core >/dev/null &&
    "$DTK" add alpha --title "seed entry one" --claim "The seed holds one entry." --source paper-a \
        --confidence low --created 2026-07-01 >/dev/null &&
    git add -A && git commit -qm base && git clone -q --bare . "$hub" || exit 2
cd "$scratch" || exit 2

# The workflow of docs/ci.md runs the action with each command on its event.
wf=$(sed -n '/^<!-- dtk-workflow -->$/,/^```$/p' "$SRC/docs/ci.md")
for c in check sync reindex; do
    printf '%s\n' "$wf" | grep -q "command: $c\$" && ok "docs/ci.md's workflow runs command: $c" ||
        ko "docs/ci.md's workflow runs command: $c"
done
printf '%s\n' "$wf" | grep -q 'fetch-depth: 0' && ok "docs/ci.md's workflow fetches the whole history" ||
    ko "docs/ci.md's workflow fetches the whole history"
grep -q '"$GITHUB_ACTION_PATH/scripts/action/run.sh" "$DTK_COMMAND"' "$SRC/action.yml" &&
    grep -q '"$GITHUB_ACTION_PATH/scripts/action/install.sh"' "$SRC/action.yml" &&
    ok "action.yml runs scripts/action/install.sh and run.sh" || ko "action.yml runs the scripts"

# install.sh with a dtk already in the prefix (the cache): nothing built.
mkdir -p "$scratch/prefix/bin" && cp "$DTK" "$scratch/prefix/bin/dtk"
if DTK_SRC=/nonexistent DTK_PREFIX="$scratch/prefix" GITHUB_OUTPUT="$scratch/ghout" \
    bash "$SRC/scripts/action/install.sh" >"$scratch/out" 2>&1 &&
    grep -qx "dtk=$scratch/prefix/bin/dtk" "$scratch/ghout" && grep -q '(cached)' "$scratch/out"; then
    ok "install.sh: a cached dtk is used as it is, its path an output"
else
    ko "install.sh: a cached dtk is used" "$(cat "$scratch/out")"
fi

# check: valid (0); a warning annotated; INDEX.md stale (1, annotated).
ci c1 && gh pull_request -- check && ok "check: a valid base passes" ||
    ko "check: a valid base passes" "$(cat "$scratch/out")"
"$DTK" add beta --title "future zz" --claim "Written ahead zz." --source paper-a --confidence low \
    --created 2099-01-01 --allow-future >/dev/null 2>&1
gh pull_request -- check
[ "$(grep -cE "^::warning file=insights/beta.yaml,line=[0-9]+,col=[0-9]+::.*after today" "$scratch/out")" = 1 ] &&
    ok "check: a warning of dtk check is one ::warning annotation on its line" ||
    ko "check: a warning is annotated" "$(cat "$scratch/out")"
git checkout -q -- . && echo "stale" >>INDEX.md
gh pull_request -- check; rc=$?
[ $rc = 1 ] && grep -q "^::error file=INDEX.md::INDEX.md is out of date" "$scratch/out" &&
    ok "check: a stale INDEX.md fails (1), annotated" || ko "check: a stale INDEX.md fails" "rc=$rc" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

# sync: p2's base moved (p1 merged by the service); the action brings it up
# to date and pushes; the service's merge is then clean and main valid.
branch p1 alpha p1 && branch p2 alpha p2 && button p1 || exit 2
before=$(git -C "$hub" rev-parse p2)
ci c2 && gh pull_request GITHUB_HEAD_REF=p2 GITHUB_BASE_REF=main DTK_PR_HEAD_REPO=o/kb -- sync; rc=$?
after=$(git -C "$hub" rev-parse p2)
if [ $rc = 0 ] && [ "$(git -C "$hub" rev-parse p2^1)" = "$before" ] &&
    [ "$(git -C "$hub" rev-parse p2^2)" = "$(git -C "$hub" rev-parse main)" ] &&
    grep -q "^::notice::dtk sync: pushed to p2 with the workflow's own token: GitHub starts no workflow" "$scratch/out"; then
    ok "sync: the request's branch gets dtk sync's merge of main, pushed; without a token, said that no workflow starts"
else
    ko "sync: the merge pushed to the request's branch" "rc=$rc $before -> $after" "$(cat "$scratch/out")"
fi
ci c4 && gh pull_request GITHUB_HEAD_REF=p2 GITHUB_BASE_REF=main DTK_PR_HEAD_REPO=o/kb DTK_TOKEN=t0k -- sync
[ "$(git -C "$hub" rev-parse p2)" = "$after" ] && grep -q "^::notice::dtk sync: p2 is up to date with origin/main" "$scratch/out" &&
    ! grep -q "own token" "$scratch/out" &&
    ok "sync: a request up to date: a notice, nothing pushed" || ko "sync: up to date" "$(cat "$scratch/out")"
cd "$scratch" || exit 2
button p2 && ci c3 && "$DTK" check >/dev/null 2>&1 &&
    [ "$(grep -c 'qa .*qb' insights/alpha.yaml)" = 2 ] &&
    ok "sync: then the service's merge is clean and main valid, each entry once" ||
    ko "sync: then the service's merge is clean and main valid"
cd "$scratch" || exit 2
branch p3 beta p3 && button p3 && branch p4 beta p4 || exit 2
(cd "$scratch/svc" && "$DTK" add alpha --title "main zz9" --claim "Main moved zz9." --source paper-a \
    --confidence low --created 2026-07-01 >/dev/null && git commit -qam moved && git push -q origin main)
before=$(git -C "$hub" rev-parse p4)
ci c5 && gh pull_request GITHUB_HEAD_REF=p4 GITHUB_BASE_REF=main DTK_PR_HEAD_REPO=someone/kb -- sync; rc=$?
[ $rc = 0 ] && [ "$(git -C "$hub" rev-parse p4)" = "$before" ] &&
    grep -q "^::notice::dtk sync: the pull request comes from the fork someone/kb" "$scratch/out" &&
    ok "sync: a request from a fork: a notice, nothing pushed" || ko "sync: a fork" "$(cat "$scratch/out")"
cd "$scratch" && rm -rf c6 && git clone -q --depth 1 "file://$hub" c6 && cd c6 &&
    gh pull_request GITHUB_HEAD_REF=p4 GITHUB_BASE_REF=main DTK_PR_HEAD_REPO=o/kb -- sync; rc=$?
[ $rc = 2 ] && grep -q "^::error::dtk sync: the clone is shallow: give actions/checkout 'fetch-depth: 0'" "$scratch/out" &&
    ok "sync: a shallow clone: an error naming fetch-depth: 0" || ko "sync: a shallow clone" "rc=$rc" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

# sync: a key changed two ways fails the step, the merge aborted, nothing pushed.
branch p5 alpha p5 || exit 2
id=$(git -C "$hub" show main:insights/alpha.yaml | sed -n 's/^  - id: //p' | head -1)
(cd "$scratch/w-p5" && "$DTK" edit "$id" --title "one way" >/dev/null && git commit -qam one && git push -q origin p5)
(cd "$scratch/svc" && git pull -q && "$DTK" edit "$id" --title "other way" >/dev/null && git commit -qam other && git push -q origin main)
before=$(git -C "$hub" rev-parse p5)
ci c7 && gh pull_request GITHUB_HEAD_REF=p5 GITHUB_BASE_REF=main DTK_PR_HEAD_REPO=o/kb -- sync; rc=$?
[ $rc = 1 ] && [ "$(git -C "$hub" rev-parse p5)" = "$before" ] && [ ! -e .git/MERGE_HEAD ] &&
    grep -q "^::error::dtk sync: p5 does not merge origin/main cleanly even as data (insights/alpha.yaml" "$scratch/out" &&
    grep -q "alpha.yaml: conflict: $id changed two ways" "$scratch/out" &&
    ok "sync: a key changed two ways: an error naming the file and the entry, nothing pushed" ||
    ko "sync: a conflict" "rc=$rc" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

# reindex: a push to main that left INDEX.md stale gets a commit of its own.
(cd "$scratch/svc" && git pull -q && "$DTK" stance --no-reindex beta "changed by hand" >/dev/null &&
    git commit -qam "beta by hand" && git push -q origin main) || exit 2
stale=$(git -C "$hub" rev-parse main)
ci c8 && gh push GITHUB_REF_NAME=feature -- reindex
[ "$(git -C "$hub" rev-parse main)" = "$stale" ] && grep -q "^::notice::dtk reindex: runs on pushes to the default branch (main), not feature" "$scratch/out" &&
    ok "reindex: a push to another branch: a notice, nothing done" || ko "reindex: another branch" "$(cat "$scratch/out")"
gh push GITHUB_REF_NAME=main -- reindex; rc=$?
new=$(git -C "$hub" rev-parse main)
if [ $rc = 0 ] && [ "$(git -C "$hub" rev-parse main^)" = "$stale" ] &&
    [ "$(git -C "$hub" diff --name-only "$stale" main)" = INDEX.md ] &&
    ci c9 && "$DTK" check >/dev/null 2>&1; then
    ok "reindex: the rebuilt INDEX.md as a commit of its own on main, main valid"
else
    ko "reindex: the rebuilt INDEX.md committed" "rc=$rc" "$(cat "$scratch/out")"
fi
gh push GITHUB_REF_NAME=main -- reindex
[ "$(git -C "$hub" rev-parse main)" = "$new" ] && grep -q "^::notice::dtk reindex: INDEX.md is up to date on main" "$scratch/out" &&
    ok "reindex: INDEX.md up to date: a notice, nothing pushed" || ko "reindex: up to date" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

# A protected branch refuses the push (GitHub's GH006): said, step failed.
(cd "$scratch/svc" && git pull -q && "$DTK" stance --no-reindex beta "again by hand" >/dev/null &&
    git commit -qam "beta again" && git push -q origin main) || exit 2
printf '#!/bin/sh\necho "error: GH006: Protected branch update failed for refs/heads/main." >&2\nexit 1\n' \
    >"$hub/hooks/pre-receive" && chmod +x "$hub/hooks/pre-receive"
ci c10 && gh push GITHUB_REF_NAME=main -- reindex; rc=$?
[ $rc = 1 ] && grep -q "^::error::dtk reindex: main is protected and refused the push" "$scratch/out" &&
    ok "reindex: a protected branch: the refusal said, the step fails" ||
    ko "reindex: a protected branch" "rc=$rc" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

t_done
