#!/usr/bin/env bash
# claims_test.sh DTK SOURCE_DIR: what docs/ promise about writing nothing and
# about the git operations dtk supports, where no other test checked it.
# Prints one line per check and "N passed, M failed" last.
#
# Each claim of docs/ (commands.md, schema.md, git.md, merging.md, agents.md,
# dtk.1) that nothing is written, that bytes stay unchanged or are replaced
# atomically, or that a git operation is supported, and the test that fails
# when it breaks ("here": this script):
#
# claim                                                  test
# ---------------------------------------------------    ------------------------------------------
# invalid data: every error, exit 2, nothing written     test_e2e.c test_invalid_input_writes_nothing
#   (reindex; commands.md "Errors", dtk.1)               (reindex); here "invalid base: <cmd>" (every
#                                                        write command, crystallize, --no-commit)
# write commands: a refusal leaves every file            test_write.c test_refusals_write_nothing
#   byte-identical (commands.md "Writing", "Refusals")
# write commands: --dry-run writes nothing               test_write.c test_no_reindex_and_dry_run
#                                                        (cite, add); here "--dry-run: <cmd>" (all 13)
# write commands: each file replaced atomically, a kill  test_write.c test_kill_at_each_step,
#   leaves every file old or new                         test_kill_between_files,
#                                                        test_add_node_killed_then_rerun
# --no-reindex leaves INDEX.md as it is                  test_write.c test_no_reindex_and_dry_run
# MCP write tools: dry_run writes nothing, refusals      tests/mcp/client_test.mjs (mcp-sdk)
#   leave the bytes (agents.md)
# check, show, list, next-id, log never write            test_safety.c test_read_only_commands_write_nothing
# reindex writes only when the bytes change              test_e2e.c test_reindex_writes_only_on_change
# reindex: readers see the old file or the new one       test_git.c test_reindex_crash_leaves_old_index
# INDEX.md a link, FIFO, directory: nothing read         test_safety.c test_index_must_be_a_regular_file
#   through it nor written over it (schema.md)           (check, reindex); paths_test.sh (crystallize,
#                                                        --no-commit, --continue, the records file)
# a failed directory sync is an error (design.md)        paths_test.sh
# a node file that is a link is written through          paths_test.sh
# export: a directory not its own is refused, nothing    test_e2e.c test_export_owns_its_directory;
#   written                                              paths_test.sh (nodes/ a link)
# setup-git: .gitattributes unreadable: nothing written  test_safety.c test_setup_git_attributes
# crystallize --plan, --dry-run write nothing            test_git.c test_plan_and_dry_run_write_nothing
# crystallize refusals, nothing written or committed:
#   invalid data                                         test_git.c test_refusals; here (--no-commit)
#   a record that would not be valid                     test_git.c test_invalid_record_refused
#   a date not after the last run, a locked index,       test_git.c test_refusals
#     no author, HEAD detached, unresolved conflicts,
#     not in a work tree, MERGE_HEAD present
#   a date after today                                   test_git.c test_future_dates
#   a shallow clone without the previous run             test_git.c test_shallow_clone_without_previous_run
#   a rebase under way                                   test_git.c test_git_states_explained; here
#                                                        (git rebase -i stopped at an edit)
#   a merge, cherry-pick, revert, git am under way       here (each a real git operation stopped on
#                                                        a conflict)
#   a sparse index                                       test_git.c test_sparse_index
#   a linked worktree's locked index                     test_git.c test_git_states_explained
#   an interrupted run                                   test_git.c test_crash_at_every_step
#   a signing failure                                    git_as_git_test.sh "openpgp, no such key",
#                                                        "ssh, no user.signingkey", "ssh, a missing key"
#   a hook's refusal (index, work tree, refs unchanged)  git_as_git_test.sh "a failing <hook> hook"
#   core.bare with core.worktree                         git_as_git_test.sh
#   INDEX.md or the records not a regular file           paths_test.sh
# crystallize: a crash leaves files whole, the index     test_git.c test_crash_at_every_step,
#   old until the last step; --continue, --abort         test_abort, test_interrupted_then_branch_moved
# --continue on another branch writes nothing there      test_git.c test_interrupted_on_another_branch
# --no-commit: INDEX.md first, put back when the         test_git.c test_no_commit_interrupted;
#   records cannot be written                            paths_test.sh (DTK_FAULT_AT=rename=...)
# setup-git run again changes nothing but dtk's path     test_safety.c test_setup_git_attributes
#   (merging.md)                                         (.gitattributes); here (.git/config, hooks)
# crystallize: files it does not own stay as they were   test_git.c test_unrelated_changes_stay,
#   (tree and index), links stay links                   test_files_not_owned_and_links
#
# git operations named as supported:
# GIT_DIR, GIT_DIR + GIT_WORK_TREE, bare + GIT_WORK_TREE, git_as_git_test.sh section 3
#   core.worktree, a .git file
# GIT_CEILING_DIRECTORIES                                here
# a bare repository without a work tree refused; a work  here
#   tree without the base refused
# GIT_WORK_TREE replacing the work tree found            here
# $XDG_CONFIG_HOME/git/config; core.hooksPath ~/         here
# a linked worktree (git worktree add)                   here (crystallize there: its branch only)
# configuration: GIT_CONFIG_GLOBAL/SYSTEM/NOSYSTEM,      git_as_git_test.sh section 3
#   GIT_CONFIG_COUNT, git -c, includeIf.gitdir
# includeIf.onbranch                                     here
# identities, GIT_AUTHOR_DATE forms                      git_as_git_test.sh section 3
# signing: openpgp, ssh (x509: documented as untested)   git_as_git_test.sh section 1
# hooks: pre-commit, prepare-commit-msg, commit-msg,     git_as_git_test.sh section 2
#   post-commit, core.hooksPath, --no-verify
# line endings: core.autocrlf, .gitattributes eol        git_as_git_test.sh section 4
# INDEX.md driver: merge, rebase, rebase -i,             git_as_git_test.sh section 5
#   cherry-pick, revert, pull --rebase
# INDEX.md and node drivers: pull (merge), pull --rebase merge_test.sh
# node-file driver: merge, rebase, cherry-pick           git_as_git_test.sh section 5 ("both")
# node-file driver: revert, rebase -i                    here
# git without dtk (driver missing, not set up)           merge_test.sh
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo claims
git -C "$repo" symbolic-ref HEAD refs/heads/main
git -C "$repo" add -A && git -C "$repo" commit -qm base || exit 2
pristine=$scratch/pristine
mv "$repo" "$pristine"
out=$scratch/out

# fresh NAME [FROM]: $r is a new copy of the committed base (or of FROM)
fresh() { r=$scratch/$1; rm -rf "$r"; cp -R "${2:-$pristine}" "$r"; }

# snap DIR: HEAD, every ref, the index and every file of the work tree, hashed
snap()
{
    (cd "$1" && git rev-parse -q --verify HEAD; git for-each-ref
        find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs sha1sum
        sha1sum "$(git rev-parse --git-dir)/index")
}

# refused NAME PATTERN CMD...: in $r, CMD exits 2 saying PATTERN and changes
# nothing
refused()
{
    local name=$1 pat=$2 before rc=0
    shift 2
    before=$(snap "$r")
    (cd "$r" && "$@") >"$out" 2>&1 || rc=$?
    if [ $rc -ne 2 ]; then
        ko "$name: refused" "exit $rc" "$(head -n 20 "$out")"
    elif ! grep -Eq -- "$pat" "$out"; then
        ko "$name: refused saying '$pat'" "$(head -n 20 "$out")"
    elif [ "$(snap "$r")" != "$before" ]; then
        ko "$name: nothing written" "$(diff <(echo "$before") <(snap "$r"))"
    else
        ok "$name: refused, nothing written"
    fi
}

# ---- the write commands: --dry-run, and an invalid base ----

writes=(
    "add beta --title t --claim c --source paper-a --confidence low"
    "add-node delta --category 策略"
    "add-source paper-z --title t"
    "use alpha-001"
    "cite alpha-002"
    "close alpha-002"
    "review beta-002 --date 2026-07-01"
    "verify beta-002 paper-a"
    "relate beta-002 alpha-002"
    "contradict beta-002 alpha-002 --note n"
    "resolve alpha-003 alpha-001"
    "stance gamma words"
    "bloom gamma apply"
)
fresh writes
for w in "${writes[@]}"; do
    # each is a real change: without --dry-run it writes
    before=$(snap "$r")
    rc=0
    (cd "$r" && "$DTK" $w --dry-run) >"$out" 2>&1 || rc=$?
    if [ $rc -eq 0 ] && grep -q '^+++ ' "$out" && [ "$(snap "$r")" = "$before" ]; then
        ok "--dry-run: $w: a diff, nothing written"
    else
        ko "--dry-run: $w: a diff, nothing written" "exit $rc" "$(head -n 5 "$out")" \
            "$(diff <(echo "$before") <(snap "$r"))"
    fi
    (cd "$r" && "$DTK" $w) >"$out" 2>&1 && [ "$(snap "$r")" != "$before" ] ||
        ko "$w: writes without --dry-run" "$(head -n 5 "$out")"
    (cd "$r" && git checkout -q . && git clean -qfd)
done

# a base that does not validate (a node file none of them edits) refuses
# every write
printf 'node: zeta\nbloom: nope\ninsights: []\n' >"$r/insights/zeta.yaml"
for w in "${writes[@]}" "reindex"; do
    refused "invalid base: $w" '^dtk: [0-9]+ errors?; nothing was written$' "$DTK" $w
    grep -q '^insights/zeta\.yaml:2:8: error: ' "$out" || ko "invalid base: $w: the error" "$(cat "$out")"
done
refused "invalid base: crystallize --no-commit" '^insights/zeta\.yaml:2:8: error:' \
    "$DTK" crystallize --date 2026-08-15 --eval s=ok --no-commit
refused "invalid base: crystallize" '^insights/zeta\.yaml:2:8: error:' \
    "$DTK" crystallize --date 2026-08-15 --eval s=ok

# ---- crystallize while git is in the middle of an operation ----

cryst() { "$DTK" crystallize --date 2026-08-15 --eval s=ok; }

# conflicting NAME: $r with branches main and side that change alpha's
# bloom (and INDEX.md) each their own way, no merge driver: they conflict
conflicting()
{
    fresh "$1"
    (cd "$r" && git checkout -q -b side && sed -i 's/^bloom: apply$/bloom: analyze/' \
        insights/alpha.yaml && "$DTK" reindex -q && git commit -qam side &&
        git checkout -q main && sed -i 's/^bloom: apply$/bloom: create/' insights/alpha.yaml &&
        "$DTK" reindex -q && git commit -qam main) >"$out" 2>&1 ||
        ko "$1: branches made" "$(cat "$out")"
}

conflicting st-merge
(cd "$r" && git merge -q side) >/dev/null 2>&1
refused "during a git merge" "a merge is under way" cryst
conflicting st-cherry
(cd "$r" && git cherry-pick side) >/dev/null 2>&1
refused "during a git cherry-pick" "a cherry-pick is under way; finish it" cryst
# a revert that conflicts: revert main's change on top of a commit that
# changed the same line again
fresh st-revert
(cd "$r" && sed -i 's/^bloom: apply$/bloom: create/' insights/alpha.yaml && git commit -qam one &&
    sed -i 's/^bloom: create$/bloom: analyze/' insights/alpha.yaml && git commit -qam two &&
    git revert --no-edit HEAD~1) >/dev/null 2>&1
[ -f "$r/.git/REVERT_HEAD" ] || ko "a revert stopped on a conflict"
refused "during a git revert" "a revert is under way; finish it" cryst
conflicting st-am
(cd "$r" && git format-patch -q -1 side -o "$scratch/patches" && git am -q --3way \
    "$scratch"/patches/*.patch) >/dev/null 2>&1
[ -d "$r/.git/rebase-apply" ] || ko "a git am stopped on a conflict"
refused "during a git am" "a git am is under way" cryst
fresh st-rebase-i
(cd "$r" && git commit -q --allow-empty -m two &&
    GIT_SEQUENCE_EDITOR="sed -i 's/^pick/edit/'" git rebase -q -i HEAD~1) >/dev/null 2>&1
[ -d "$r/.git/rebase-merge" ] || ko "a git rebase -i stopped at an edit"
refused "during a git rebase -i" "a rebase is under way" cryst

# ---- where the repository is ----

# GIT_CEILING_DIRECTORIES: as git, the repository above the ceiling is not
# found, and dtk says it is not in a work tree
fresh ceiling
mkdir "$r/sub" && (cd "$r" && git mv insights INDEX.md sub/ && git commit -qm moved)
if (cd "$r/sub" && GIT_CEILING_DIRECTORIES=$r git rev-parse --git-dir) >/dev/null 2>&1; then
    ko "git itself stops at the ceiling"
fi
r=$r/sub
refused "GIT_CEILING_DIRECTORIES above the base" "is not inside a git work tree" \
    env GIT_CEILING_DIRECTORIES="$(dirname "$r")" "$DTK" crystallize --date 2026-08-15 --eval s=ok
rc=0
(cd "$r" && GIT_CEILING_DIRECTORIES=$scratch "$DTK" crystallize --date 2026-08-15 --eval s=ok) \
    >"$out" 2>&1 || rc=$?
[ $rc -eq 0 ] && ok "GIT_CEILING_DIRECTORIES below the repository: committed" ||
    ko "GIT_CEILING_DIRECTORIES below the repository: committed" "exit $rc" "$(cat "$out")"

# a bare repository without a work tree is refused; so is a work tree
# that does not hold the base
fresh bare
git clone -q --bare "$pristine" "$scratch/bare.git" 2>/dev/null
refused "GIT_DIR a bare repository, no work tree" "is a bare repository \(core.bare\); set GIT_WORK_TREE" \
    env GIT_DIR="$scratch/bare.git" "$DTK" crystallize --date 2026-08-15 --eval s=ok
[ "$(git --git-dir="$scratch/bare.git" rev-parse main)" = "$(git -C "$pristine" rev-parse main)" ] ||
    ko "the bare repository's branch did not move"
mkdir -p "$scratch/empty-wt"
refused "GIT_WORK_TREE not holding the base" "is not inside the work tree of its repository" \
    env GIT_DIR="$r/.git" GIT_WORK_TREE="$scratch/empty-wt" "$DTK" crystallize --date 2026-08-15 \
    --eval s=ok

# GIT_WORK_TREE without GIT_DIR: the repository found upwards, the work
# tree replaced by it (as git: git status agrees)
fresh gwt
mkdir "$r/wt" && cp -R "$r/insights" "$r/INDEX.md" "$r/wt/"
cp "$r/INDEX.md" "$scratch/root-index"
rc=0
(cd "$r/wt" && GIT_WORK_TREE=$r/wt "$DTK" crystallize --date 2026-08-15 --eval s=ok) >"$out" 2>&1 ||
    rc=$?
if [ $rc -eq 0 ] && [ -z "$(cd "$r/wt" && GIT_WORK_TREE=$r/wt git status --porcelain)" ] &&
    cmp -s "$r/INDEX.md" "$scratch/root-index" &&
    [ "$(git -C "$r" show HEAD:INDEX.md | sha1sum)" = "$(sha1sum <"$r/wt/INDEX.md")" ]; then
    ok "GIT_WORK_TREE (repository found upwards): committed from that work tree, git status clean"
else
    ko "GIT_WORK_TREE (repository found upwards)" "exit $rc" "$(cat "$out")" \
        "$(cd "$r/wt" && GIT_WORK_TREE=$r/wt git status --short)"
fi

# core.hooksPath with ~/ (HOME) and the global file of XDG_CONFIG_HOME
fresh xdg
mkdir -p "$scratch/xdg/git" "$scratch/home-hooks"
printf '[user]\n\tname = Xdg\n\temail = xdg@example.org\n[core]\n\thooksPath = ~/home-hooks\n' \
    >"$scratch/xdg/git/config"
printf '#!/bin/sh\necho ran >"%s/home-hook.log"\n' "$scratch" >"$scratch/home-hooks/pre-commit"
chmod +x "$scratch/home-hooks/pre-commit"
rm -f "$scratch/home-hook.log"
rc=0
(cd "$r" && env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL \
    HOME="$scratch" XDG_CONFIG_HOME="$scratch/xdg" "$DTK" crystallize --date 2026-08-15 --eval s=ok) \
    >"$out" 2>&1 || rc=$?
if [ $rc -eq 0 ] && [ "$(git -C "$r" log -1 --format='%an <%ae>')" = "Xdg <xdg@example.org>" ] &&
    [ "$(cat "$scratch/home-hook.log" 2>/dev/null)" = ran ]; then
    ok "XDG_CONFIG_HOME/git/config read; core.hooksPath ~/ expanded"
else
    ko "XDG_CONFIG_HOME/git/config read; core.hooksPath ~/ expanded" "exit $rc" "$(cat "$out")" \
        "$(git -C "$r" log -1 --format='%an <%ae>')"
fi

# a linked worktree: the commit goes on its branch, the main work tree and
# its branch stay as they were
fresh worktree
(cd "$r" && git worktree add -q ../wt-linked -b linked) >"$out" 2>&1 || ko "git worktree add"
# (the linked branch, which moves, left out)
main_snap() { snap "$r" | grep -v 'refs/heads/linked$'; }
main_before=$(main_snap)
rc=0
(cd "$scratch/wt-linked" && "$DTK" crystallize --date 2026-08-15 --eval s=ok) >"$out" 2>&1 ||
    rc=$?
if [ $rc -eq 0 ] && [ "$(main_snap)" = "$main_before" ] &&
    [ "$(git -C "$r" rev-parse linked~1)" = "$(git -C "$r" rev-parse main)" ] &&
    git -C "$r" log -1 --format=%B linked | grep -q '^Dtk-Crystallization: 2026-08-15$' &&
    [ -z "$(git -C "$scratch/wt-linked" status --porcelain)" ] &&
    (cd "$scratch/wt-linked" && "$DTK" check -q); then
    ok "a linked worktree: committed on its branch, git status clean, main untouched"
else
    ko "a linked worktree: committed on its branch" "exit $rc" "$(cat "$out")" \
        "$(git -C "$scratch/wt-linked" status --short)" "$(diff <(echo "$main_before") <(main_snap))"
fi

# includeIf.onbranch: the identity of the branch's include
fresh onbranch
printf '[user]\n\tname = On Branch\n\temail = onbranch@example.org\n' >"$scratch/onbranch.inc"
git -C "$r" config includeIf.onbranch:main.path "$scratch/onbranch.inc"
rc=0
(cd "$r" && env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
    -u GIT_COMMITTER_EMAIL "$DTK" crystallize --date 2026-08-15 --eval s=ok) >"$out" 2>&1 || rc=$?
got=$(git -C "$r" log -1 --format='%an <%ae>')
want=$(cd "$r" && env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL git var GIT_AUTHOR_IDENT | sed 's/> .*/>/')
if [ $rc -eq 0 ] && [ "$got" = "On Branch <onbranch@example.org>" ] && [ "$got" = "$want" ]; then
    ok "includeIf.onbranch: the included identity, as git reads it"
else
    ko "includeIf.onbranch: the included identity" "exit $rc" "got $got, git: $want" "$(cat "$out")"
fi

# ---- setup-git: "Run again, it changes nothing but the path of dtk" ----

fresh setup
gitfiles() { (cd "$r" && sha1sum .gitattributes .git/config .git/hooks/* 2>/dev/null); }
(cd "$r" && "$DTK" setup-git) >"$out" 2>&1 || ko "setup-git" "$(cat "$out")"
first=$(gitfiles)
(cd "$r" && "$DTK" setup-git) >"$out" 2>&1 || ko "setup-git again" "$(cat "$out")"
[ "$(gitfiles)" = "$first" ] && ok "setup-git run again: .gitattributes, .git/config, hooks unchanged" ||
    ko "setup-git run again: .gitattributes, .git/config, hooks unchanged" \
        "$(diff <(echo "$first") <(gitfiles))"
cp "$DTK" "$scratch/other-dtk"
cp "$r/.git/config" "$scratch/config.before"
(cd "$r" && "$DTK" setup-git --dtk "$scratch/other-dtk") >"$out" 2>&1 ||
    ko "setup-git --dtk" "$(cat "$out")"
changed=$(diff "$scratch/config.before" "$r/.git/config" | grep '^>' | grep -vc "/other-dtk' merge-driver %O %A %B %P$")
if [ "$changed" = 0 ] && grep -q "other-dtk' merge-driver" "$r/.git/config" &&
    [ "$(diff "$scratch/config.before" "$r/.git/config" | grep -c '^<')" = 2 ]; then
    ok "setup-git --dtk: only the drivers' path changes in .git/config"
else
    ko "setup-git --dtk: only the drivers' path changes in .git/config" \
        "$(diff "$scratch/config.before" "$r/.git/config")"
fi

# ---- the node files' merge driver under revert and rebase -i ----

fresh drv
entry()
{
    printf '  - id: alpha-%s\n    title: entry %s\n    claim: Claim %s.\n' "$1" "$1" "$1"
    printf '    confidence: medium\n    source: paper-c\n    created: 2026-07-20\n'
}
(cd "$r" && "$DTK" setup-git >/dev/null && git add .gitattributes && git commit -qm drivers) ||
    ko "setup-git"
drv=$r
# revert: 004 then 005 appended in two commits; reverting 004 must drop
# the lines next to 005's, which git's own text merge calls a conflict
fresh drv-revert "$drv"
(cd "$r" && entry 004 >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam "add 004" &&
    entry 005 >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam "add 005") ||
    ko "revert: the two commits"
rc=0
# (git names INDEX.md's driver no commit in a revert: it keeps ours' and says
# the line that rebuilds it)
(cd "$r" && git revert --no-edit HEAD~1 && "$DTK" reindex -q &&
    git commit -q --amend --no-edit INDEX.md) >"$out" 2>&1 || rc=$?
if [ $rc -eq 0 ] && ! grep -q alpha-004 "$r/insights/alpha.yaml" &&
    grep -q alpha-005 "$r/insights/alpha.yaml" && [ -z "$(git -C "$r" status --porcelain)" ] &&
    grep -qF "ours' INDEX.md kept, not rebuilt; after it, in the base run: dtk reindex && git commit --amend --no-edit INDEX.md" "$out" &&
    (cd "$r" && "$DTK" check -q); then
    ok "node-file driver, git revert: the entry reverted, the later one kept, INDEX.md rebuilt by the line said"
else
    ko "node-file driver, git revert" "exit $rc" "$(head -n 20 "$out")" "$(git -C "$r" status --short)"
fi
# and without the driver, git conflicts there (so the check above can fail)
fresh drv-revert-plain
(cd "$r" && entry 004 >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam "add 004" &&
    entry 005 >>insights/alpha.yaml && "$DTK" reindex -q && git commit -qam "add 005") ||
    ko "revert: the two commits (no driver)"
(cd "$r" && git revert --no-edit HEAD~1) >"$out" 2>&1 &&
    ko "without the driver git's revert conflicts" || ok "without the driver git's revert conflicts"
# rebase -i: two branches each append an entry; picking one onto the other
# (the side also changes gamma: were both INDEX.md the same, git would keep
# it without running a driver, docs/merging.md)
fresh drv-rebase-i "$drv"
(cd "$r" && git checkout -q -b side && entry 004 >>insights/alpha.yaml &&
    sed -i 's/^bloom: remember$/bloom: understand/' insights/gamma.yaml && "$DTK" reindex -q &&
    git commit -qam "add 004" && git checkout -q main && entry 005 >>insights/alpha.yaml &&
    "$DTK" reindex -q && git commit -qam "add 005") || ko "rebase -i: the branches"
rc=0
(cd "$r" && GIT_SEQUENCE_EDITOR=: git rebase -q -i side) >"$out" 2>&1 || rc=$?
if [ $rc -eq 0 ] && grep -q alpha-004 "$r/insights/alpha.yaml" &&
    grep -q alpha-005 "$r/insights/alpha.yaml" && [ -z "$(git -C "$r" status --porcelain)" ] &&
    grep -q '^bloom: understand$' "$r/insights/gamma.yaml" && (cd "$r" && "$DTK" check -q); then
    ok "node-file driver, git rebase -i: both entries, INDEX.md rebuilt"
else
    ko "node-file driver, git rebase -i" "exit $rc" "$(head -n 20 "$out")" "$(git -C "$r" status --short)"
fi

t_done
