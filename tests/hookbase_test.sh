#!/usr/bin/env bash
# hookbase_test.sh DTK SOURCE_DIR: the pre-commit hook (contrib/pre-commit)
# in a base's own repository, as docs/ci.md installs it: a fresh 'dtk init'
# base, cloned from a local bare remote, at the top of the work tree and in
# a folder below it; the hook installed by 'dtk setup-git', and run as the
# pre-commit framework runs it (dtk-pre-commit, beside dtk). A commit that
# changes no base passes; a bad one is refused, each error printed once and
# named with the base's folder; a good one is pushed.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo hookbase
hookcmd=$(dirname "$DTK")/dtk-pre-commit
[ -x "$hookcmd" ] && ok "dtk-pre-commit is built beside dtk" ||
    ko "dtk-pre-commit is built beside dtk" "$hookcmd"
git init -q --bare "$scratch/remote.git"

# try NAME WANT DIR [GIT-COMMIT-ARGS...]: a commit in clone DIR, allowed
# (exit 0, HEAD moved) or refused (exit non-zero, HEAD kept); output in $scratch/out
try() {
    local name=$1 want=$2 dir=$3 before rc
    shift 3
    before=$(git -C "$dir" rev-parse -q --verify HEAD)
    git -C "$dir" commit -q -m "$name" "$@" >"$scratch/out" 2>&1
    rc=$?
    if [ "$want" = allowed ] && [ $rc -eq 0 ] && [ "$(git -C "$dir" rev-parse HEAD)" != "$before" ]; then
        ok "$name: allowed"
    elif [ "$want" = refused ] && [ $rc -ne 0 ] && [ "$(git -C "$dir" rev-parse -q --verify HEAD)" = "$before" ]; then
        ok "$name: refused"
    else
        ko "$name: $want" "exit $rc" "$(cat "$scratch/out")"
    fi
}
# once NAME PATTERN: the output of the last commit holds one line matching PATTERN
once() {
    local n
    n=$(grep -c -- "$2" "$scratch/out")
    [ "$n" -eq 1 ] && ok "$1" || ko "$1" "$n lines match '$2'" "$(cat "$scratch/out")"
}

for where in top kb; do
    c=$scratch/clone-$where
    git clone -q "$scratch/remote.git" "$c" 2>/dev/null
    git -C "$c" checkout -q -b "$where"
    if [ "$where" = top ]; then b=; else b=kb/; mkdir "$c/kb"; fi
    (cd "$c/$b" && dtk init --lang en --title "Storage notes" >/dev/null && dtk setup-git >/dev/null &&
        dtk add-node pages --category Storage >/dev/null) || ko "$where: dtk init, setup-git, add-node"
    echo "# notes" >"$c/README.md"
    git -C "$c" add -A
    try "$where: the first commit of a new base" allowed "$c"
    git -C "$c" push -q origin "$where" 2>"$scratch/out" && ok "$where: pushed to the bare remote" ||
        ko "$where: pushed to the bare remote" "$(cat "$scratch/out")"

    # invalid data in the work tree, not staged; a commit of README.md only
    printf 'node: pages\nbloom: 5\ninsights: []\n' >"$c/${b}insights/pages.yaml"
    echo "more" >>"$c/README.md"
    try "$where: a commit that does not touch the base" allowed "$c" README.md

    # the same data staged: refused, the error once, named from the top
    try "$where: invalid data staged" refused "$c" -a
    once "$where: the error printed once, with the base's folder" \
        "^${b}insights/pages.yaml:2:8: error: 'bloom' must be one of"
    once "$where: one refusal" "commit refused"
    git -C "$c" checkout -q -- "${b}insights/pages.yaml"

    # INDEX.md stale: refused, the diff once, naming the base's INDEX.md
    sed -i 's/^bloom: .*/bloom: apply/' "$c/${b}insights/pages.yaml"
    try "$where: INDEX.md out of date" refused "$c" -a
    once "$where: the diff printed once, with the base's folder" "^+++ b/${b}INDEX.md"
    once "$where: the refusal names the fix" "dtk.* reindex && git add '*${b}INDEX.md"

    # as the pre-commit framework runs it: dtk-pre-commit from the top, dtk on PATH
    git -C "$c" add -A
    (cd "$c" && "$hookcmd") >"$scratch/out" 2>&1 && ko "$where: dtk-pre-commit refuses the stale INDEX.md" ||
        ok "$where: dtk-pre-commit refuses the stale INDEX.md"
    once "$where: dtk-pre-commit prints the diff once" "^+++ b/${b}INDEX.md"
    (cd "$c/$b" && dtk reindex -q) && git -C "$c" add -A
    (cd "$c" && "$hookcmd") >"$scratch/out" 2>&1 && ok "$where: dtk-pre-commit passes the reindexed base" ||
        ko "$where: dtk-pre-commit passes the reindexed base" "$(cat "$scratch/out")"
    try "$where: reindexed" allowed "$c"
    git -C "$c" push -q origin "$where" 2>"$scratch/out" && ok "$where: pushed again" ||
        ko "$where: pushed again" "$(cat "$scratch/out")"
done

t_done
