#!/bin/bash
# Faults leave nothing behind: a hook calling dtk during crystallize, writes
# that fail midway (dtk-crash's fault points, DTK_FAULT_AT), kill -9 at
# random moments, the modes git keeps, and where the caches go.
# usage: faults_test.sh <dtk binary> <source dir>   (DTK_CRASH: dtk-crash)
set -u
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo faults
export XDG_CACHE_HOME=$scratch/xdg
cd "$repo" || exit 2
git add -A && git commit -qm base || exit 2
date=$(date -u +%Y-%m-%d)

# Every file of the repository (work tree and git dir but the caches), with
# its mode: a byte or mode changed anywhere shows.
state() {
    (cd "$repo" && find . -path ./.git/dtk -prune -o -type f -print0 | sort -z |
        xargs -0 sha1sum && find . -type f -perm -u+x | sort)
}

# ---- 5. a .git file sends the caches only to this work tree's git dir ----
mkdir -p "$scratch/victim" "$scratch/arch/a/b"
cp -R "$SRC/tests/fixtures/base" "$scratch/arch/a/b/base"
echo "gitdir: ../../../../victim" >"$scratch/arch/a/b/base/.git"
(cd "$scratch/arch/a/b/base" && "$DTK" show alpha >/dev/null 2>&1 &&
    "$DTK" search alpha >/dev/null 2>&1)
if [ -z "$(ls -A "$scratch/victim")" ] && ls "$XDG_CACHE_HOME"/dtk/links-* >/dev/null 2>&1; then
    ok "a .git file naming a directory not this work tree's: no cache there, the user's cache used"
else
    ko "a .git file naming a directory not this work tree's: no cache there" \
        "$(cd "$scratch/victim" && find .)"
fi
# the same with a real repository's git dir that is not this work tree's
git init -q "$scratch/other"
echo "gitdir: $scratch/other/.git" >"$scratch/arch/a/b/base/.git"
(cd "$scratch/arch/a/b/base" && "$DTK" show alpha >/dev/null 2>&1)
[ ! -e "$scratch/other/.git/dtk" ] && ok "a .git file naming another work tree's repository: no cache there" ||
    ko "a .git file naming another work tree's repository: no cache there"
rm -f "$scratch/arch/a/b/base/.git"
# a linked worktree's and core.worktree's git dirs are this work tree's
git worktree add -q "$scratch/linked" -b linked 2>/dev/null
(cd "$scratch/linked" && "$DTK" show alpha >/dev/null 2>&1)
ls "$repo/.git/worktrees/linked/dtk"/links-* >/dev/null 2>&1 &&
    ok "a linked worktree: its cache in its own git dir" ||
    ko "a linked worktree: its cache in its own git dir" "$(ls -R "$repo/.git/worktrees/linked")"
git init -q --separate-git-dir "$scratch/sep.git" "$scratch/sep"
cp -R "$SRC/tests/fixtures/base/." "$scratch/sep/"
git --git-dir="$scratch/sep.git" config core.worktree "$scratch/sep"
(cd "$scratch/sep" && "$DTK" show alpha >/dev/null 2>&1)
ls "$scratch/sep.git/dtk"/links-* >/dev/null 2>&1 &&
    ok "a .git file whose git dir's core.worktree is this work tree: the cache there" ||
    ko "a .git file whose git dir's core.worktree is this work tree: the cache there"

t_done
