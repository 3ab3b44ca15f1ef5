#!/usr/bin/env bash
# flows_test.sh DTK SOURCE_DIR: the flows agents use, with real git and the
# drivers and hooks of dtk setup-git (docs/merging.md): branches that each
# add an entry to one node with dtk add and bump one counter, merged in
# every order and rebased onto each other (git pull --rebase); an entry, a
# reference to it and a gap it flags in one branch, merged, squash-merged,
# cherry-picked and reverted; a hosting service's text merge and the one
# command that brings a branch up to date for it; the hooks checked for
# commit-writing commands; and the drivers' refusals (a path they have no
# rule for, a comment they cannot carry). Every case: no entry lost, ids as
# born, counters summed, byte comparisons, dtk check exits 0 (after the line
# a hook said, when it said one), and the reflog holds only git's commits.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
dtk() { "$DTK" "$@"; }
t_repo flows
cd "$scratch" || exit 2
base=$SRC/tests/fixtures/base

# fresh NAME: a repository NAME holding the base, set up, committed on main
fresh()
{
    cp -R "$base" "$scratch/$1" && cd "$scratch/$1" && git init -q &&
        git symbolic-ref HEAD refs/heads/main && git config merge.conflictStyle merge &&
        "$DTK" setup-git >/dev/null 2>&1 && git add -A && git commit -qm base
}

# agent BRANCH: on BRANCH off main, dtk add one entry to alpha (its id in
# $scratch/id.BRANCH, the node file's new lines in $scratch/block.BRANCH)
# and dtk use alpha-001 (a new file of insights/_uses/), committed together
agent()
{
    git checkout -q -b "$1" main &&
        "$DTK" add alpha --title "from $1" --claim "Found by agent $1." --source paper-a \
            --confidence low --created 2026-07-01 >"$scratch/id.$1" &&
        "$DTK" use alpha-001 >/dev/null && git add -A && git commit -qm "$1: add, use" &&
        git diff main -- insights/alpha.yaml | sed -n 's/^+\(  .*\)$/\1/p' >"$scratch/block.$1" &&
        git checkout -q main
}

# expect_alpha N BRANCH...: the node file main should hold after merging the
# branches in that order: the base's (used 3, as a use leaves it) and each
# block in turn; alpha-001's count must then be 3 + N
expect_alpha()
{
    local b
    shift
    cp "$base/insights/alpha.yaml" "$scratch/want"
    for b in "$@"; do cat "$scratch/block.$b" >>"$scratch/want"; done
}

# used_of ID: entry ID's count, the node file's and its records' (dtk show)
used_of() { "$DTK" show "$1" --format json | sed -n 's/^ *"used": \([0-9]*\),$/\1/p'; }

# settle: dtk check exits 0; or a hook said in $scratch/out the line that
# fixes INDEX.md, or dtk check says what to run: that run, dtk check exits 0;
# returns non-zero otherwise
settle()
{
    local line
    # not -q: check -q says nothing, its exit status tells
    "$DTK" check >/dev/null 2>"$scratch/said" && return 0
    line=$(sed -n 's/^post-[a-z]*: INDEX.md does not match insights\/ .*; to fix it, run: //p' "$scratch/out" | tail -1)
    if [ -z "$line" ] && grep -qxF "dtk check: INDEX.md is out of date; run 'dtk reindex' and commit it" "$scratch/said"; then
        line="dtk reindex && git commit -m 'INDEX.md rebuilt' INDEX.md"
    fi
    [ -n "$line" ] && eval "$line" >/dev/null 2>&1 && "$DTK" check -q >/dev/null 2>&1
}

# git_only: every reflog line is one git's own commands wrote (merge,
# commit, checkout, pull, rebase, cherry-pick, revert, reset, clone), none
# from a hook
git_only()
{
    ! git reflog --format=%gs | grep -qvE '^(merge |commit|checkout: |pull |rebase|cherry-pick|revert|reset: |clone: |branch: )' &&
        ! git reflog --format=%gs | grep -q "dtk's hooks"
}

# -- 2, 3 and 5 agents, merged into main in every order (5: ten orders,
# each rotation and its reverse)
orders2="a b
b a"
orders3="a b c
a c b
b a c
b c a
c a b
c b a"
orders5="a b c d e
b c d e a
c d e a b
d e a b c
e a b c d
e d c b a
a e d c b
b a e d c
c b a e d
d c b a e"
for n in 2 3 5; do
    fresh "agents$n" || { ko "$n agents: repository"; continue; }
    branches=$(echo a b c d e | cut -d' ' -f1-$n)
    for b in $branches; do agent "$b" || ko "$n agents: agent $b"; done
    eval "orders=\$orders$n"
    bad=
    while read -r order; do
        # shellcheck disable=SC2086
        git checkout -q -B try main && : >"$scratch/out" &&
            for b in $order; do git merge -q --no-edit "$b" >>"$scratch/out" 2>&1 || exit 1; done ||
            { bad="$bad [$order: merge failed: $(cat "$scratch/out")]"; git merge --abort 2>/dev/null; continue; }
        # shellcheck disable=SC2086
        expect_alpha "$n" $order
        cmp -s insights/alpha.yaml "$scratch/want" || { bad="$bad [$order: alpha.yaml differs: $(diff "$scratch/want" insights/alpha.yaml)]"; }
        [ "$(used_of alpha-001)" = $((3 + n)) ] || bad="$bad [$order: used $(used_of alpha-001)]"
        for b in $order; do grep -qx "  - id: $(cat "$scratch/id.$b")" insights/alpha.yaml || bad="$bad [$order: $b's id]"; done
        settle || bad="$bad [$order: dtk check: $(cat "$scratch/out")]"
        [ -z "$(git status --porcelain)" ] || bad="$bad [$order: status]"
    done <<EOF
$orders
EOF
    if [ -z "$bad" ] && git_only; then
        ok "$n agents merged in every order: each entry once with its born id, used summed, bytes as expected, dtk check exits 0, git's commits only"
    else
        ko "$n agents merged in every order" "$bad" "$(git reflog --format=%gs | sort | uniq -c)"
    fi
done

# -- git pull --rebase: 3 agents in clones of one origin, each pulling with
# --rebase and pushing in turn
fresh origin && git config receive.denyCurrentBranch ignore && git checkout -q --detach || ko "origin"
bad=
for b in a b c; do
    git clone -q "$scratch/origin" "$scratch/clone-$b" 2>/dev/null && cd "$scratch/clone-$b" &&
        git config merge.conflictStyle merge && "$DTK" setup-git >/dev/null 2>&1 &&
        git checkout -q -B main origin/main && agent "$b" && git merge -q --ff-only "$b" || bad="$bad [$b made]"
    cd "$scratch" || exit 2
done
for b in a b c; do
    cd "$scratch/clone-$b" || exit 2
    git pull -q --rebase origin main >"$scratch/out" 2>&1 || bad="$bad [$b pull: $(cat "$scratch/out")]"
    settle || bad="$bad [$b: dtk check: $(cat "$scratch/out")]"
    git push -q origin main 2>/dev/null || bad="$bad [$b push]"
    git_only || bad="$bad [$b reflog: $(git reflog --format=%gs)]"
done
for b in a b c; do grep -qx "  - id: $(cat "$scratch/id.$b")" insights/alpha.yaml || bad="$bad [$b's id]"; done
if [ -z "$bad" ] && [ "$(used_of alpha-001)" = 6 ] && [ "$(grep -c 'Found by agent' insights/alpha.yaml)" -eq 3 ] &&
    [ -z "$(git status --porcelain)" ]; then
    ok "git pull --rebase by three agents in turn: every entry with its born id, used 6, dtk check exits 0, git's commits only"
else
    ko "git pull --rebase by three agents in turn" "$bad" "$(grep -n 'used\|Found' insights/alpha.yaml)"
fi

# -- an entry, a reference to it from another node and a gap it flags, in
# one branch r; main adds an entry to beta meanwhile
fresh refs || ko "refs: repository"
git checkout -q -b r main &&
    new=$("$DTK" add beta --title "from r" --claim "Found on r." --source paper-a --confidence low --created 2026-07-02) &&
    git commit -qam "r: add" && "$DTK" relate alpha-002 "$new" >/dev/null && git commit -qam "r: relate" &&
    printf '  - text: r 的空白\n    flagged_by: %s\n' "$new" >"$scratch/gap" &&
    sed -i "/^  - text: gamma 尚无条目\$/r $scratch/gap" insights/_domain.yaml && "$DTK" reindex -q &&
    git commit -qam "r: gap" && git checkout -q main &&
    mine=$("$DTK" add beta --title "from main" --claim "Found on main." --source paper-b --confidence low --created 2026-07-02) &&
    git commit -qam "main: add" || ko "refs: branches made"
# refs_right WHAT: r's entry is there once with r's title, alpha-002 relates
# to it, the gap names it, main's entry is there; dtk check after the line
refs_right()
{
    if [ "$(grep -cx "  - id: $new" insights/beta.yaml)" -eq 1 ] &&
        grep -A1 -x "  - id: $new" insights/beta.yaml | grep -qx '    title: from r' &&
        grep -qx "  - id: $mine" insights/beta.yaml &&
        sed -n '/^  - id: alpha-002$/,/^  - id: alpha-003$/p' insights/alpha.yaml | grep -q "relates: .*$new" &&
        grep -qx "    flagged_by: $new" insights/_domain.yaml && settle && [ -z "$(git status --porcelain)" ] && git_only; then
        ok "$1"
    else
        ko "$1" "$(cat "$scratch/out")" "$(git status --short)" "$(git reflog --format=%gs | head -5)"
    fi
}
git checkout -q -B m main && git merge -q --no-edit r >"$scratch/out" 2>&1
refs_right "add + relate + gap merged: each reference names r's entry, dtk check exits 0"
git checkout -q -B sq main && git merge -q --squash r >"$scratch/out" 2>&1 && git commit -q --no-edit >>"$scratch/out" 2>&1
refs_right "the same squash-merged (git commit; pre-commit rebuilt INDEX.md)"
git checkout -q -B cp main && git cherry-pick main..r >"$scratch/out" 2>&1
refs_right "the same cherry-picked (the three commits)"
before=$(git rev-parse HEAD)
if git revert --no-edit main..HEAD >"$scratch/out" 2>&1 && ! grep -q "$new" insights/*.yaml &&
    grep -qx "  - id: $mine" insights/beta.yaml && settle && [ -z "$(git status --porcelain)" ] &&
    [ "$(git rev-list --count "$before"..HEAD)" -ge 3 ] && git_only; then
    ok "the cherry-picks reverted: r's entry and every reference to it gone, main's kept, dtk check exits 0"
else
    ko "the cherry-picks reverted" "$(cat "$scratch/out")" "$(git status --short)"
fi

# -- the same id on both sides with different content (an entry written by
# hand with one id on two branches): a conflict around that entry only
fresh sameid || ko "sameid: repository"
entry() { printf '  - id: alpha-k3x9q2m\n    title: %s\n    claim: c.\n    confidence: low\n    source: paper-a\n    created: 2026-07-01\n' "$1"; }
git checkout -q -b x main && entry X >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam x &&
    git checkout -q main && entry Y >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam y || ko "sameid: made"
if ! git merge -q --no-edit x >"$scratch/out" 2>&1 && [ "$(grep -c '^<<<<<<< ' insights/alpha.yaml)" -eq 1 ] &&
    [ "$(sed -n '/^<<<<<<< /,/^>>>>>>> /p' insights/alpha.yaml | grep -c '^  - id: alpha-k3x9q2m$')" -eq 2 ] &&
    grep -q 'alpha-k3x9q2m added on both sides with different content' "$scratch/out" &&
    ! grep -q 'alpha-00[4-9]' insights/alpha.yaml; then
    ok "one id added two ways: a conflict around that entry, nothing renumbered"
else
    ko "one id added two ways: a conflict around that entry, nothing renumbered" "$(cat "$scratch/out")"
fi
git merge --abort

# -- the hosting service: a text merge with dtk's drivers out of the way
# (a clone that never ran dtk setup-git, as a service is); agents p and q
# both add to alpha; p's request is merged first
fresh hosted && git config receive.denyCurrentBranch ignore || ko "hosted: origin"
for b in p q; do
    git clone -q "$scratch/hosted" "$scratch/agent-$b" 2>/dev/null && cd "$scratch/agent-$b" &&
        git config merge.conflictStyle merge && "$DTK" setup-git >/dev/null 2>&1 && agent "$b" &&
        git push -q origin "$b" 2>/dev/null || ko "hosted: agent $b"
    cd "$scratch" || exit 2
done
git clone -q "$scratch/hosted" "$scratch/service" 2>/dev/null && cd "$scratch/service" || exit 2
git fetch -q origin p q && git checkout -q main
if git merge -q --no-edit origin/p >/dev/null 2>&1 && ! git merge -q --no-edit origin/q >"$scratch/out" 2>&1 &&
    git diff --name-only --diff-filter=U | grep -qx insights/alpha.yaml; then
    ok "the service's text merge: the first request merges, the second conflicts (no driver runs there)"
else
    ko "the service's text merge: the first request merges, the second conflicts" "$(cat "$scratch/out")"
fi
git merge --abort 2>/dev/null
git push -q origin main 2>/dev/null || ko "hosted: p's merge pushed"
# q brings its branch up to date with dtk's drivers: one command
cd "$scratch/agent-q" || exit 2
git checkout -q q
if git pull -q --rebase origin main >"$scratch/out" 2>&1 && settle && git push -q -f origin q 2>/dev/null &&
    cd "$scratch/service" && git fetch -q origin q && git merge -q --no-edit origin/q >"$scratch/out" 2>&1 &&
    [ "$(grep -c 'Found by agent' insights/alpha.yaml)" -eq 2 ] && [ "$(used_of alpha-001)" = 5 ] &&
    "$DTK" check -q >/dev/null 2>&1; then
    ok "git pull --rebase origin main first: the service's text merge is clean, both entries, used 5, dtk check exits 0"
else
    ko "git pull --rebase origin main first: the service's text merge is clean" "$(cat "$scratch/out")" "$(git status --short)"
fi

# -- no hook of dtk's writes a commit or a ref
cd "$scratch/agents2" || exit 2
h=$(git rev-parse --git-path hooks)
if [ -x "$h/dtk-merge-index" ] && [ -x "$h/pre-commit" ] && [ -x "$h/post-merge" ] && [ -x "$h/post-rewrite" ] &&
    [ -x "$h/pre-merge-commit" ] && [ -x "$h/post-commit" ] &&
    ! grep -nE 'commit-tree|update-ref|symbolic-ref|git (commit|merge|rebase|reset|cherry-pick|revert|am|stash|push|branch|tag|notes)\b|replace' \
        "$h/dtk-merge-index" "$h/pre-commit" "$h/pre-merge-commit" "$h/post-commit" "$h/post-merge" "$h/post-rewrite" | grep -v '^[^:]*:[0-9]*:[[:space:]]*#' | grep -v 'fix="' |
        grep -v 'echo ' | grep -q .; then
    ok "the installed hooks hold no command that makes a commit or moves a ref"
else
    ko "the installed hooks hold no command that makes a commit or moves a ref" "$(ls "$h")" \
        "$(grep -nE 'commit-tree|update-ref|git commit' "$h"/* | grep -v '\.sample')"
fi

# -- the drivers handle only their own files: a .gitattributes line naming a
# dtk driver for README.md (and * for the other) leaves it to a text merge
fresh paths || ko "paths: repository"
printf 'one\ntwo\nthree\nfour\nfive\n' >README.md && printf 'README.md merge=dtk-index\n* merge=dtk-insights\n' >>.gitattributes &&
    git add -A && git commit -qm readme && git checkout -q -b o main && sed -i 's/^one$/ONE/' README.md &&
    git commit -qam o && git checkout -q main && sed -i 's/^five$/FIVE/' README.md && git commit -qam m || ko "paths: made"
if git merge -q --no-edit o >"$scratch/out" 2>&1 && [ "$(cat README.md)" = "ONE
two
three
four
FIVE" ] && grep -q 'README.md is neither INDEX.md nor a file of insights/' "$scratch/out"; then
    ok "README.md named for dtk's drivers: merged as text, both edits kept, never replaced by INDEX.md"
else
    ko "README.md named for dtk's drivers: merged as text" "$(cat "$scratch/out")" "$(head -3 README.md)"
fi

# -- a comment the insights driver cannot carry: a conflict, both texts
# kept; git stash + merge + stash pop keeps the user's uncommitted comment
fresh comments || ko "comments: repository"
agent t >/dev/null && agent u >/dev/null || ko "comments: agents"
# git stash, merge, stash pop with an uncommitted comment in the node file
git checkout -q u && pre=$(git rev-parse HEAD) &&
    sed -i 's/^bloom: apply$/bloom: apply  # mine, not committed/' insights/alpha.yaml &&
    git stash -q && git merge -q --no-edit t >/dev/null 2>&1 || ko "comments: stash made"
git stash pop >"$scratch/out" 2>&1
if grep -q '# mine, not committed' insights/alpha.yaml && { [ -n "$(git stash list)" ] || ! grep -q '^<<<<<<< ' insights/alpha.yaml; }; then
    ok "git stash, merge, stash pop: the uncommitted comment kept (or its stash kept with the conflict)"
else
    ko "git stash, merge, stash pop: the uncommitted comment kept" "$(cat "$scratch/out")" "$(git stash list)"
fi
git reset -q --hard "$pre" && git stash clear
git checkout -q t && sed -i 's/^node: alpha$/node: alpha  # theirs/' insights/alpha.yaml && git commit -qam comment
git checkout -q u
if ! git merge -q --no-edit t >"$scratch/out" 2>&1 && grep -q "a comment changed on one side cannot be carried" "$scratch/out" &&
    grep -qx 'node: alpha  # theirs' insights/alpha.yaml && grep -q '^<<<<<<< ' insights/alpha.yaml; then
    ok "a comment theirs added that the merge cannot carry: a conflict with both sides' text"
else
    ko "a comment theirs added that the merge cannot carry: a conflict" "$(cat "$scratch/out")"
fi
git merge --abort

# -- the hooks read git's output as data only: a base folder whose name holds
# a newline, log.showSignature set; a merge stopped and concluded by git
# commit: pre-commit checks the staged base and says INDEX.md is stale
odd=$(printf 'kb\nx')
mkdir -p "$scratch/odd" && cp -R "$base" "$scratch/odd/$odd" && cd "$scratch/odd" && git init -q &&
    git symbolic-ref HEAD refs/heads/main && git config log.showSignature true && git config core.quotePath true &&
    (cd "$odd" && "$DTK" setup-git >/dev/null 2>&1) && git add -A && git commit -qm base || ko "odd: made"
cd "$scratch/odd/$odd" || exit 2
for b in v w; do
    git checkout -q -b $b main && "$DTK" add alpha --title "from $b" --claim "By $b." --source paper-a \
        --confidence low --created 2026-07-01 >/dev/null && git commit -qam $b && git checkout -q main
done
if git merge -q --no-edit v >/dev/null 2>&1 && git merge -q --no-commit w >"$scratch/out" 2>&1 &&
    git commit -q --no-edit >>"$scratch/out" 2>&1 && grep -q "^pre-commit: INDEX.md does not match the staged insights/; after the commit, run: dtk -C 'kb$" "$scratch/out" &&
    [ "$(git rev-parse HEAD^2)" = "$(git rev-parse w)" ] && "$DTK" reindex -q && git commit -qm rebuilt INDEX.md &&
    "$DTK" check -q >/dev/null 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "a base folder with a newline in its name, log.showSignature set: pre-commit says the line, dtk check exits 0 after it"
else
    ko "a base folder with a newline in its name, log.showSignature set" "$(cat "$scratch/out")" "$(git status --short)"
fi

t_done
