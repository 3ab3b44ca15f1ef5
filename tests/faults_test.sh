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
git tag base
date=2026-08-15
# Puts the repository back at its first commit, nothing else in it.
fresh() {
    git -C "$repo" reset -q --hard base && git -C "$repo" clean -qfdx
    git -C "$repo" config --unset core.fileMode
    rm -f "$repo/.git/hooks/"*
}

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
if [ -z "$(ls -A "$scratch/victim")" ] && ls "$XDG_CACHE_HOME"/dtk/nodes-* >/dev/null 2>&1; then
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
ls "$repo/.git/worktrees/linked/dtk"/nodes-* >/dev/null 2>&1 &&
    ok "a linked worktree: its cache in its own git dir" ||
    ko "a linked worktree: its cache in its own git dir" "$(ls -R "$repo/.git/worktrees/linked")"
git init -q --separate-git-dir "$scratch/sep.git" "$scratch/sep"
cp -R "$SRC/tests/fixtures/base/." "$scratch/sep/"
git --git-dir="$scratch/sep.git" config core.worktree "$scratch/sep"
(cd "$scratch/sep" && "$DTK" show alpha >/dev/null 2>&1)
ls "$scratch/sep.git/dtk"/nodes-* >/dev/null 2>&1 &&
    ok "a .git file whose git dir's core.worktree is this work tree: the cache there" ||
    ko "a .git file whose git dir's core.worktree is this work tree: the cache there"

# ---- 1. a hook that runs dtk during crystallize: no wait on itself ----
cd "$repo" || exit 2
hooks=$repo/.git/hooks
printf '#!/bin/sh\ndtk reindex >/dev/null && git add INDEX.md\n' >"$hooks/pre-commit"
printf '#!/bin/sh\ndtk use alpha-001\n' >"$hooks/post-commit"
chmod +x "$hooks/pre-commit" "$hooks/post-commit"
rc=0
timeout 60 "$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 0 ] && [ ! -e .git/index.lock ] && grep -q "^alpha-001: used" "$scratch/out" &&
    git log -1 --format=%s | grep -q "^crystallize $date" && "$DTK" check >/dev/null 2>&1 &&
    [ "$(git status --porcelain)" = "?? insights/_uses/" ]; then
    ok "crystallize: pre-commit running dtk reindex and post-commit running dtk use work"
else
    ko "crystallize: pre-commit running dtk reindex and post-commit running dtk use work" \
        "exit $rc" "$(cat "$scratch/out")" "$(git status --porcelain)" "$(ls .git)"
fi
fresh
# a program between the hook and dtk that closes the lock's descriptor:
# refused with a message, not a wait
printf '#!/bin/sh\nexec python3 -c "import subprocess,sys; sys.exit(subprocess.run([\\"dtk\\", \\"reindex\\"]).returncode)"\n' \
    >"$hooks/pre-commit"
chmod +x "$hooks/pre-commit"
before=$(state)
rc=0
timeout 60 "$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 2 ] && grep -q "it would wait on itself" "$scratch/out" &&
    grep -q "pre-commit hook refused" "$scratch/out" && [ "$(state)" = "$before" ]; then
    ok "crystallize: a hook's dtk without the lock's descriptor is refused, nothing written"
else
    ko "crystallize: a hook's dtk without the lock's descriptor is refused, nothing written" \
        "exit $rc" "$(cat "$scratch/out")" "$(diff <(echo "$before") <(state))"
fi
fresh
# a hook that crystallizes again: refused (git's index is locked), no wait
printf '#!/bin/sh\ndtk crystallize --date 2026-08-16 --eval s=ok\n' >"$hooks/pre-commit"
chmod +x "$hooks/pre-commit"
rc=0
timeout 60 "$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 2 ] && grep -q "index is locked" "$scratch/out" && [ ! -e .git/index.lock ]; then
    ok "crystallize: a hook crystallizing again is refused, no lock left"
else
    ko "crystallize: a hook crystallizing again is refused, no lock left" "exit $rc" \
        "$(cat "$scratch/out")"
fi
fresh

# ---- 2. a write that fails midway writes nothing, or says what it wrote ----
cd "$repo" || exit 2
add="add alpha --title T --claim C --source paper-a --confidence low"
# Runs dtk-crash with DTK_FAULT_AT=$1 and the rest; checks exit 2, the
# message, and every byte of the repository as it was.
refused() {
    local fault=$1 name=$2
    shift 2
    local before rc=0
    before=$(state)
    DTK_FAULT_AT=$fault "$DTK_CRASH" "$@" >"$scratch/out" 2>&1 || rc=$?
    if [ $rc -eq 2 ] && grep -q "nothing was written" "$scratch/out" &&
        [ "$(state)" = "$before" ] && ! ls insights | grep -q tmp; then
        ok "$name: exit 2, nothing was written, every byte as it was"
    else
        ko "$name: exit 2, nothing was written, every byte as it was" "exit $rc" \
            "$(cat "$scratch/out")" "$(diff <(echo "$before") <(state))"
    fi
    fresh
}
if [ -n "${DTK_CRASH:-}" ]; then
    refused "rename=$PWD/INDEX.md" "add, INDEX.md not replaced" $add
    refused "write=$PWD/INDEX.md" "add, the disk full at INDEX.md's temporary file" $add
    # a use's record is written, then INDEX.md (the rates move): the record
    # is removed when INDEX.md cannot be replaced
    refused "rename=$PWD/INDEX.md" "cite, INDEX.md not replaced: its record removed" cite alpha-003 beta-002
    refused "rename=$PWD/INDEX.md" "use, INDEX.md not replaced: its record removed" \
        use alpha-003 beta-002
    refused "rename=$PWD/INDEX.md" "add-node, INDEX.md not replaced" \
        add-node delta --category 策略
    # MCP add: an error result, and nothing written
    before=$(state)
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"node":"alpha","title":"T","claim":"C","source":"paper-a","confidence":"low"}}}' |
        DTK_FAULT_AT="rename=$PWD/INDEX.md" "$DTK_CRASH" mcp >"$scratch/out" 2>&1
    if grep '"id":2' "$scratch/out" | grep -q '"isError":true' &&
        grep '"id":2' "$scratch/out" | grep -q 'nothing was written' && [ "$(state)" = "$before" ]; then
        ok "mcp add, INDEX.md not replaced: an error, nothing written"
    else
        ko "mcp add, INDEX.md not replaced: an error, nothing written" "$(cat "$scratch/out")" \
            "$(diff <(echo "$before") <(state))"
    fi
    fresh
    # written but its directory not synced: exit 1, the message says what
    DTK_FAULT_AT="fsync-dir=$PWD/INDEX.md" "$DTK_CRASH" $add >"$scratch/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "wrote INDEX.md, but cannot sync" "$scratch/out" &&
        grep -q "^  - id: $(tail -n 1 "$scratch/out")$" insights/alpha.yaml && "$DTK" check >/dev/null 2>&1; then
        ok "add, INDEX.md written but not synced: exit 1, said so, both files written"
    else
        ko "add, INDEX.md written but not synced: exit 1, said so" "exit $rc" "$(cat "$scratch/out")"
    fi
    fresh
fi
# an immutable INDEX.md (chattr +i; root on a file system that has it)
if chattr +i INDEX.md 2>/dev/null; then
    before=$(state)
    rc=0
    "$DTK" $add >"$scratch/out" 2>&1 || rc=$?
    after=$(state)
    chattr -i INDEX.md
    if [ $rc -eq 2 ] && grep -q "nothing was written" "$scratch/out" && [ "$after" = "$before" ]; then
        ok "add, an immutable INDEX.md: exit 2, nothing written"
    else
        ko "add, an immutable INDEX.md: exit 2, nothing written" "exit $rc" "$(cat "$scratch/out")"
    fi
    fresh
else
    skip "add, an immutable INDEX.md" "chattr +i does not work here"
fi

# ---- 3. what a killed dtk leaves, the next one removes ----
cd "$repo" || exit 2
export TMPDIR=$scratch/tmp
mkdir -p "$TMPDIR"
# Lists what a dtk killed may have left: temporary files, locks, scratch
# bases (an index.lock is expected only beside a pending journal).
leftovers() {
    ls -a insights insights/_uses . .git .git/hooks 2>/dev/null | grep -e '\.tmp-'
    ls .git | grep -e '\.dtk-' -e '^next-index-' -e '^config.lock$' -e '^dtk-config-'
    [ -e .git/dtk-crystallize ] || ls .git | grep -e '^index.lock$'
    ls .git/refs/heads | grep -e '\.lock$'
    ls "$TMPDIR" | grep -e '^dtk-prev-'
}
# a pid that no longer exists
sh -c 'exit 0' & wait $!; dead=$!
if [ -n "${DTK_CRASH:-}" ]; then
    DTK_CRASH_AT=before-rename "$DTK_CRASH" use alpha-001 beta-001 >/dev/null 2>&1
    ls insights/_uses | grep -q '\.tmp-' || ko "a kill before the rename leaves temporary files (the test's premise)"
    "$DTK" use alpha-001 >/dev/null 2>&1
    [ -z "$(leftovers)" ] && ok "a writer killed before its renames: the next writer removes its temporary files" ||
        ko "a writer killed before its renames: the next writer removes its temporary files" "$(leftovers)"
    fresh
fi
# kill -9 at random moments (bounded): every write command, crystallize,
# setup-git; then one run of each: nothing left behind, the base valid
for i in $(seq 1 25); do
    for cmd in "use alpha-001" "add alpha --title T$i --claim C --source paper-a --confidence low" \
        "crystallize --date $date --eval s=ok" "setup-git"; do
        "$DTK" $cmd >/dev/null 2>&1 &
        pid=$!
        sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
    done
    if [ -e .git/dtk-crystallize ]; then
        "$DTK" crystallize --abort >/dev/null 2>&1 || "$DTK" crystallize --continue >/dev/null 2>&1
    fi
    git log -1 --format=%s | grep -q '^crystallize' && git reset -q --hard HEAD~1
done
# a killed dtk's children (git, the hooks setup-git installed) may still
# run, in the repository: they are not dtk's leftovers; wait for them (10 s)
for i in $(seq 1 50); do
    busy=
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = $$ ] && continue
        case $(readlink "$p/cwd" 2>/dev/null) in "$repo" | "$repo"/*) busy=1; break ;; esac
    done
    [ -z "$busy" ] && break
    sleep 0.2
done
rc=0
out=$("$DTK" use alpha-001 2>&1 && "$DTK" setup-git 2>&1 && "$DTK" crystallize --date $date --eval s=ok 2>&1) || rc=$?
if [ $rc -eq 0 ] && [ -z "$(leftovers)" ] && "$DTK" check >/dev/null 2>&1; then
    ok "100 kills at random moments: the next runs work and leave nothing behind"
else
    ko "100 kills at random moments: the next runs work and leave nothing behind" "exit $rc" "$out" \
        "$(leftovers)"
fi
fresh
# a killed dtk's marked locks and scratch files, made by hand with a dead pid
: >".git/next-index-$dead.lock"
: >".git/next-index-$dead.lock.lock" # libgit2's lock of it, killed while writing
printf 'x' >".git/index.lock.dtk-$dead"
mkdir -p "$TMPDIR/dtk-prev-$dead-AbC123/insights" && cp insights/alpha.yaml "$TMPDIR/dtk-prev-$dead-AbC123/insights/"
mkdir -p "$TMPDIR/dtk-prev-1-AbC123" # pid 1 lives: not removed
: >".git/dtk-config-$dead" && : >.git/config.lock
out=$("$DTK" setup-git 2>&1 && "$DTK" crystallize --date $date --eval s=ok 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ -z "$(leftovers | grep -v dtk-prev-1-)" ] && [ -d "$TMPDIR/dtk-prev-1-AbC123" ]; then
    ok "a dead dtk's next-index, lock content, scratch base and config.lock: removed by the next run"
else
    ko "a dead dtk's next-index, lock content, scratch base and config.lock: removed by the next run" \
        "exit $rc" "$out" "$(leftovers)"
fi
rm -rf "$TMPDIR/dtk-prev-1-AbC123"
fresh
# a config.lock that no dtk left: refused with the reason, the lock kept
git config --remove-section merge.dtk-index
: >.git/config.lock
rc=0
"$DTK" setup-git >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 2 ] && grep -q "config.lock exists: another git process" "$scratch/out" && [ -e .git/config.lock ]; then
    ok "setup-git: another's config.lock is refused with its reason, and kept"
else
    ko "setup-git: another's config.lock is refused with its reason, and kept" "exit $rc" "$(cat "$scratch/out")"
fi
rm -f .git/config.lock
fresh
# a write under a pending crystallization journal: refused, said so
if [ -n "${DTK_CRASH:-}" ]; then
    DTK_CRASH_AT=after-journal "$DTK_CRASH" crystallize --date $date --eval s=ok >/dev/null 2>&1
    before=$(state)
    rc=0
    "$DTK" reindex >"$scratch/out" 2>&1 || rc=$?
    rc2=0
    "$DTK" use alpha-001 >>"$scratch/out" 2>&1 || rc2=$?
    if [ -e .git/dtk-crystallize ] && [ $rc -eq 2 ] && [ $rc2 -eq 2 ] &&
        [ "$(grep -c "crystallization was interrupted" "$scratch/out")" = 2 ] && [ "$(state)" = "$before" ] &&
        "$DTK" crystallize --continue >/dev/null 2>&1 && "$DTK" check >/dev/null 2>&1; then
        ok "reindex and use under a pending crystallization: refused, said so; --continue finishes it"
    else
        ko "reindex and use under a pending crystallization: refused, said so" "exit $rc $rc2" \
            "$(cat "$scratch/out")"
    fi
    fresh
fi
# the branch's ref locked by another git command: the run is decided and its
# files written when the branch cannot move: exit 1 (not 2, which says
# nothing was written), the lock named; --continue finishes it once it goes
branch=$(git symbolic-ref --short HEAD)
: >".git/refs/heads/$branch.lock"
rc=0
"$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
rm -f ".git/refs/heads/$branch.lock"
if [ $rc -eq 1 ] && grep -q "cannot move the branch: failed to lock file '.*$branch.lock' for writing (a git command holds the lock" "$scratch/out" &&
    [ -e .git/dtk-crystallize ] && "$DTK" crystallize --continue >/dev/null 2>&1 &&
    "$DTK" check >/dev/null 2>&1; then
    ok "crystallize with the branch's ref locked: exit 1, the lock named; --continue finishes it"
else
    ko "crystallize with the branch's ref locked" "exit $rc" "$(cat "$scratch/out")"
fi
fresh
unset TMPDIR

# ---- 4. the modes git keeps ----
cd "$repo" || exit 2
chmod +x INDEX.md && git add INDEX.md && git commit -qm exec
out=$("$DTK" crystallize --date $date --eval s=ok 2>&1)
mode=$(git ls-tree HEAD INDEX.md | cut -d' ' -f1)
if [ "$mode" = 100755 ] && [ -z "$(git status --porcelain)" ] && ! grep -q "T  INDEX.md" <<<"$out"; then
    ok "an executable INDEX.md stays 100755 in the commit, git status clean"
else
    ko "an executable INDEX.md stays 100755 in the commit, git status clean" "mode $mode" "$out" \
        "$(git status --porcelain)"
fi
fresh
git config core.fileMode false
chmod +x INDEX.md insights/_crystallizations.yaml insights/alpha.yaml
out=$("$DTK" crystallize --date $date --eval s=ok 2>&1)
modes=$(git ls-tree HEAD INDEX.md insights/ | cut -d' ' -f1 | sort -u)
if [ "$modes" = 100644 ] && [ -z "$(git status --porcelain)" ]; then
    ok "core.fileMode=false: no mode change committed, git status clean"
else
    ko "core.fileMode=false: no mode change committed, git status clean" "$modes" "$out" \
        "$(git status --porcelain)"
fi
fresh

# ---- 6. a write of several files killed between its renames ----
# the next write puts every file back as it was, byte for byte; check says
# so before, naming the command; a retry then applies once
cd "$repo" || exit 2
if [ -n "${DTK_CRASH:-}" ]; then
    # Runs dtk $2... once (what one run gives), then dtk-crash killed before
    # its rename number $1, then check, reindex and dtk $2... again.
    # The work tree's files, each with its checksum (leftovers show).
    work() { find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum; }
    killed_between() {
        local at=$1 before once rc=0 out
        shift
        before=$(work)
        "$DTK" "$@" >/dev/null 2>&1 || ko "$*: runs (the test's premise)"
        once=$(work)
        fresh
        DTK_CRASH_AT=before-rename:$at "$DTK_CRASH" "$@" >/dev/null 2>&1 && ko "$*: killed (the test's premise)"
        out=$("$DTK" check 2>&1) || rc=$?
        if [ $rc -eq 1 ] && grep -q "a write was interrupted .*run 'dtk reindex' to put them back" <<<"$out" &&
            "$DTK" reindex -q 2>/dev/null && [ "$(work)" = "$before" ] &&
            "$DTK" "$@" >/dev/null 2>&1 && [ "$(work)" = "$once" ]; then
            ok "$* killed before rename $at: check names reindex, which puts every byte back; a retry applies once"
        else
            ko "$* killed before rename $at: check names reindex, which puts every byte back; a retry applies once" \
                "check: exit $rc $out" "$(diff <(echo "$before") <(work))" "$(diff <(echo "$once") <(work))"
        fi
        fresh
    }
    killed_between 2 review alpha-003 beta-001 --date $date
    killed_between 2 edit alpha-002 --title Retitled --date $date
    killed_between 2 add-node delta --category 策略
    killed_between 3 add-node delta --category 策略
    # the reads meanwhile say so on stderr, naming what settles it (the MCP
    # server's tools in their result), and leave the journal to it
    DTK_CRASH_AT=before-rename:2 "$DTK_CRASH" review alpha-003 beta-001 --date $date >/dev/null 2>&1
    warned=() n=0
    for c in list "show alpha" "search alpha" "similar alpha" log "next-id alpha" "export html $scratch/site"; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # the command's words
        "$DTK" $c 2>&1 >/dev/null | grep -q "^dtk ${c%% *}: warning: a write was interrupted before it finished (.dtk-journal): insights/alpha.yaml, insights/beta.yaml .*run 'dtk reindex'" &&
            warned+=("${c%% *}")
    done
    mcp=$(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}' \
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":{"limit":1}}}' | "$DTK" mcp 2>/dev/null)
    if [ ${#warned[@]} = $n ] && grep -q '"text":"list: warning: a write was interrupted before it finished .*reindex' <<<"$mcp" &&
        [ -e .dtk-journal ]; then
        ok "reads after a write killed between its renames: each warns, naming reindex (MCP: in the tool's result)"
    else
        ko "reads after a write killed between its renames: each warns, naming reindex (MCP: in the tool's result)" \
            "warned: ${warned[*]}" "$mcp"
    fi
    fresh
    # (use writes a record of its own and INDEX.md: test_write.c kills it)
    # a check while a live writer's journal stands waits for the writer, then
    # judges the files written (the writer lets the check start, and goes on
    # once it waits)
    rm -f "$scratch/chk"
    run="\"$DTK\" check >'$scratch/chk' 2>&1 & for i in \$(seq 200); do grep -q waiting '$scratch/chk' 2>/dev/null && break; sleep 0.05; done; echo \$! >'$scratch/chk.pid'"
    DTK_CRASH_AT=before-rename:2 DTK_CRASH_RUN=$run "$DTK_CRASH" review alpha-002 beta-001 --date $date >/dev/null 2>&1
    rc=0
    wait_pid=$(cat "$scratch/chk.pid")
    while kill -0 "$wait_pid" 2>/dev/null; do sleep 0.05; done
    if grep -q "waiting" "$scratch/chk" && grep -q "INDEX.md is up to date" "$scratch/chk" &&
        ! grep -q "interrupted" "$scratch/chk"; then
        ok "check during a write of two files: waits for the writer's lock, then passes"
    else
        ko "check during a write of two files: waits for the writer's lock, then passes" "$(cat "$scratch/chk")"
    fi
    fresh
    # the journal's files are reached from the root, no link followed:
    # insights/ swapped for a link before the rollback is refused, the
    # journal kept; put back, the next write rolls back
    mkdir -p "$scratch/outside" && cp -R insights "$scratch/outside/" && cp -R "$scratch/outside" "$scratch/outside.orig"
    before=$(work)
    DTK_CRASH_AT=before-rename:2 "$DTK_CRASH" review alpha-002 beta-001 --date $date >/dev/null 2>&1
    mv insights i.real && ln -s "$scratch/outside/insights" insights
    rc=0
    "$DTK" reindex -q >"$scratch/err" 2>&1 || rc=$?
    rm insights && mv i.real insights
    if [ $rc -eq 2 ] && grep -q "cannot put back insights/alpha.yaml" "$scratch/err" &&
        diff -r "$scratch/outside" "$scratch/outside.orig" >/dev/null && [ -e .dtk-journal ] &&
        "$DTK" reindex -q 2>/dev/null && [ "$(work)" = "$before" ]; then
        ok "a rollback with insights/ swapped for a link: refused, nothing outside touched; the next one puts every byte back"
    else
        ko "a rollback with insights/ swapped for a link: refused, nothing outside touched" "exit $rc" \
            "$(cat "$scratch/err")" "$(diff -r "$scratch/outside" "$scratch/outside.orig")"
    fi
    fresh
fi

# ---- 7. a directory swapped for a link during a write: nothing outside ----
cd "$repo" || exit 2
rm -rf "$scratch/outside" "$scratch/outside.orig"
mkdir -p "$scratch/outside" && cp -R insights "$scratch/outside/"
sh -c 'exit 0' & wait $!; dead=$!
: >"$scratch/outside/insights/alpha.yaml.tmp-$dead-abc123" # a dead pid's, not the base's
cp -R "$scratch/outside" "$scratch/outside.orig"
swap="mv insights i.real && ln -s '$scratch/outside/insights' insights"
unswap() { [ -d i.real ] && rm -f insights && mv i.real insights; }
outside_same() {
    diff -r "$scratch/outside" "$scratch/outside.orig" >/dev/null
}
if [ -n "${DTK_CRASH:-}" ]; then
    # swapped after the checks, before anything is written: refused
    before=$(state)
    rc=0
    DTK_CRASH_AT=before-write DTK_CRASH_RUN=$swap "$DTK_CRASH" review alpha-002 beta-001 --date $date >"$scratch/err" 2>&1 || rc=$?
    unswap
    if [ $rc -eq 2 ] && grep -q "nothing was written" "$scratch/err" && outside_same && [ "$(state)" = "$before" ]; then
        ok "insights/ swapped for a link after the checks: exit 2, nothing written here or there"
    else
        ko "insights/ swapped for a link after the checks: exit 2, nothing written here or there" "exit $rc" \
            "$(cat "$scratch/err")" "$(diff -r "$scratch/outside" "$scratch/outside.orig")"
    fi
    fresh
    # swapped between the temporary files and the renames: the write ends
    # in the directory it opened
    for at in before-rename:1 before-rename:2; do
        rc=0
        DTK_CRASH_AT=$at DTK_CRASH_RUN=$swap "$DTK_CRASH" review alpha-002 beta-001 --date $date >"$scratch/err" 2>&1 || rc=$?
        unswap
        if [ $rc -eq 0 ] && outside_same && grep -q "reviewed: $date" insights/alpha.yaml &&
            ! ls -a insights | grep -q tmp && "$DTK" check >/dev/null 2>&1; then
            ok "insights/ swapped for a link at $at: the write ends inside the base, nothing outside"
        else
            ko "insights/ swapped for a link at $at: the write ends inside the base, nothing outside" "exit $rc" \
                "$(cat "$scratch/err")" "$(diff -r "$scratch/outside" "$scratch/outside.orig")"
        fi
        fresh
    done
fi
# the race as found: insights/ swapped back and forth while uses run (a
# soak, bounded: 60 uses, DTK_SOAK=n for n; the swapper stops with them)
rm -f "$scratch/stop"
(
    for i in $(seq 1 5000); do
        [ -e "$scratch/stop" ] && break
        mv insights i.real 2>/dev/null && ln -s "$scratch/outside/insights" insights &&
            mv -T insights i.l && mv i.real insights
    done
) &
swapper=$!
for i in $(seq 1 "${DTK_SOAK:-60}"); do "$DTK" use alpha-002 >/dev/null 2>&1; done
: >"$scratch/stop"
wait $swapper
unswap
rm -f i.l
if outside_same && [ -d insights ] && [ ! -L insights ]; then
    ok "${DTK_SOAK:-60} uses while insights/ is swapped for a link and back: nothing outside the base written or removed"
else
    ko "${DTK_SOAK:-60} uses while insights/ is swapped for a link and back: nothing outside the base written or removed" \
        "$(diff -r "$scratch/outside" "$scratch/outside.orig")"
fi
fresh

t_done
