#!/bin/bash
# After a fault: what dtk leaves (no cache of a scratch base), what it
# commits (a hook's stale INDEX.md), the status it exits with and what it
# says (the files written, the command that settles it), and one limit for
# every command (issue 43).
# usage: recovery_test.sh <dtk binary> <source dir>   (DTK_CRASH: dtk-crash)
set -u
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo recovery
export XDG_CACHE_HOME=$scratch/xdg TMPDIR=$scratch/tmp
mkdir -p "$TMPDIR"
cd "$repo" || exit 2
repo=$(pwd -P) # as dtk and git name its files (the fault points compare them)
git add -A && git commit -qm base || exit 2
git tag base
date=2026-08-15
# Puts the repository back at its first commit, nothing else in it.
fresh() {
    git -C "$repo" reset -q --hard base && git -C "$repo" clean -qfdx
    rm -f "$repo/.git/hooks/"* "$repo/.git/dtk-crystallize" "$repo/.git/index.lock"
}
# The work tree, git's index and HEAD: a byte changed anywhere shows.
state() {
    (cd "$repo" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum &&
        git ls-files -s && git rev-parse HEAD)
}
# Files in the caches' places (the user's cache directory and the git dir's).
caches() {
    find "$XDG_CACHE_HOME" "$repo/.git/dtk" -type f 2>/dev/null | wc -l
}

# ---- crystallize's scratch copy of the previous base leaves no node cache ----
"$DTK" crystallize --date $date --eval s=ok >/dev/null 2>&1 || ko "a first run"
"$DTK" crystallize --plan --date 2026-08-20 >/dev/null 2>&1
before=$(caches)
for i in 1 2 3; do
    "$DTK" crystallize --plan --date 2026-08-2$i >/dev/null 2>&1
    "$DTK" crystallize --dry-run --date 2026-08-2$i --eval s=ok >/dev/null 2>&1
done
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crystallize_plan","arguments":{"date":"2026-08-20"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"crystallize_plan","arguments":{"date":"2026-08-21"}}}' |
    "$DTK" mcp >"$scratch/out" 2>&1
"$DTK" crystallize --date 2026-08-25 --eval s=ok >/dev/null 2>&1 || ko "a second run"
after=$(caches)
if [ "$before" -gt 0 ] && [ "$after" = "$before" ] && grep -q '"id":3' "$scratch/out"; then
    ok "6 plans and dry runs, 2 MCP plans, a run: the caches hold as many files as before ($before)"
else
    ko "plans and runs leave no node cache of their scratch base" "before $before, after $after" \
        "$(find "$XDG_CACHE_HOME" "$repo/.git/dtk" -type f)"
fi
fresh

# ---- a pre-commit hook's 'dtk reindex' reads the old records: the commit
# holds the INDEX.md of its insights/ all the same ----
printf '#!/bin/sh\ndtk reindex -q && git add INDEX.md\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
rc=0
"$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 0 ] && [ -z "$(git status --porcelain)" ] && "$DTK" check >/dev/null 2>&1 &&
    git diff --name-only HEAD~1 HEAD | grep -qx INDEX.md; then
    ok "crystallize with a pre-commit hook 'dtk reindex -q && git add INDEX.md': the commit's INDEX.md is current"
else
    ko "crystallize with a pre-commit hook 'dtk reindex && git add INDEX.md': the commit's INDEX.md is current" \
        "exit $rc" "$(cat "$scratch/out")" "$(git status --porcelain)" "$("$DTK" check 2>&1 | tail -n 3)"
fi
fresh
# a hook that stages a change of insights/: refused, nothing written
printf '#!/bin/sh\ngit update-index --add --cacheinfo "100644,$(git hash-object -w .git/HEAD),insights/zeta.yaml"\n' \
    >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
before=$(state)
rc=0
"$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 2 ] && grep -q "the pre-commit hook changed insights/ in the commit" "$scratch/out" &&
    grep -q "nothing was written" "$scratch/out" && [ "$(state)" = "$before" ] &&
    [ "$(git rev-parse HEAD)" = "$(git rev-parse base)" ]; then
    ok "crystallize with a pre-commit hook that stages a change of insights/: refused, nothing written"
else
    ko "crystallize with a pre-commit hook that stages a change of insights/: refused" "exit $rc" \
        "$(cat "$scratch/out")" "$(diff <(echo "$before") <(state))"
fi
fresh

# ---- faults after a file was written: exit 1, what was written, the way out ----
if [ -n "${DTK_CRASH:-}" ]; then
    # the journal written, .git not synced: the run is decided
    rc=0
    DTK_FAULT_AT="fsync-dir=$repo/.git/dtk-crystallize" "$DTK_CRASH" crystallize --date $date \
        --eval s=ok >"$scratch/out" 2>&1 || rc=$?
    if [ $rc -eq 1 ] && [ -e .git/dtk-crystallize ] && grep -q "cannot sync" "$scratch/out" &&
        grep -q "crystallize --continue" "$scratch/out" && grep -q "crystallize --abort" "$scratch/out" &&
        "$DTK" crystallize --continue >/dev/null 2>&1 && "$DTK" check >/dev/null 2>&1 &&
        git log -1 --format=%s | grep -q "^crystallize $date"; then
        ok "crystallize, its journal not synced: exit 1, --continue and --abort named; --continue finishes it"
    else
        ko "crystallize, its journal not synced: exit 1, --continue and --abort named" "exit $rc" \
            "$(cat "$scratch/out")"
    fi
    fresh
    # a write of two files, one directory not synced: both named
    add="add alpha --title T --claim C --source paper-a --confidence low"
    for f in INDEX.md insights/alpha.yaml; do
        rc=0
        # shellcheck disable=SC2086 # the command's words
        DTK_FAULT_AT="fsync-dir=$repo/$f" "$DTK_CRASH" $add >"$scratch/out" 2>&1 || rc=$?
        if [ $rc -eq 1 ] && grep -q "cannot sync" "$scratch/out" &&
            grep -q "written: insights/alpha.yaml, INDEX.md" "$scratch/out"; then
            ok "add, $f not synced: exit 1, both files written named"
        else
            ko "add, $f not synced: exit 1, both files written named" "exit $rc" "$(cat "$scratch/out")"
        fi
        fresh
    done
    rc=0
    DTK_FAULT_AT="fsync-dir=$repo/insights/_crystallizations.yaml" "$DTK_CRASH" crystallize \
        --no-commit --date $date --eval s=ok >"$scratch/out" 2>&1 || rc=$?
    if [ $rc -eq 1 ] && grep -q "written: INDEX.md, insights/_crystallizations.yaml" "$scratch/out"; then
        ok "crystallize --no-commit, the records not synced: exit 1, both files named"
    else
        ko "crystallize --no-commit, the records not synced: exit 1, both files named" "exit $rc" \
            "$(cat "$scratch/out")"
    fi
    fresh
    # merge-driver: 2 only when <ours> is as it was
    mkdir -p "$scratch/m"
    cp insights/alpha.yaml "$scratch/m/base"
    cp insights/alpha.yaml "$scratch/m/theirs"
    sed 's/used: 3/used: 4/' insights/alpha.yaml >"$scratch/m/ours"
    cp "$scratch/m/ours" "$scratch/m/ours.0"
    cmp -s "$scratch/m/ours" insights/alpha.yaml && ko "the merge's sides differ (the test's premise)"
    for fault in fsync-dir rename; do
        cp "$scratch/m/ours.0" "$scratch/m/ours"
        rc=0
        DTK_FAULT_AT="$fault=$scratch/m/ours" "$DTK_CRASH" merge-driver "$scratch/m/base" \
            "$scratch/m/ours" "$scratch/m/theirs" insights/alpha.yaml >"$scratch/out" 2>&1 || rc=$?
        if [ $fault = fsync-dir ]; then want=1; else want=2; fi
        if [ $rc -eq $want ] && { [ $fault = fsync-dir ] || cmp -s "$scratch/m/ours" "$scratch/m/ours.0"; }; then
            ok "merge-driver, $fault failing on <ours>: exit $want"
        else
            ko "merge-driver, $fault failing on <ours>: exit $want" "exit $rc" "$(cat "$scratch/out")"
        fi
    done
fi

# ---- messages after a kill: the command that settles it ----
if [ -n "${DTK_CRASH:-}" ]; then
    # a write killed between its renames leaves its journal: check names the
    # command that puts every file back, after which the add is run again
    DTK_CRASH_AT=after-file "$DTK_CRASH" add-node delta --category 策略 >/dev/null 2>&1
    out=$("$DTK" check 2>&1)
    if grep -qF "run 'dtk reindex' to put them back" <<<"$out" &&
        "$DTK" reindex >/dev/null 2>&1 && "$DTK" check >/dev/null 2>&1 &&
        "$DTK" add-node delta --category 策略 >/dev/null 2>&1 && "$DTK" check >/dev/null 2>&1; then
        ok "add-node killed between its renames: check says to run it again, and that settles it"
    else
        ko "add-node killed between its renames: check says to run it again" "$out"
    fi
    fresh
    for at in after-journal after-records; do
        DTK_CRASH_AT=$at "$DTK_CRASH" crystallize --date $date --eval s=ok >/dev/null 2>&1
        rc=0
        "$DTK" check >"$scratch/out" 2>&1 || rc=$?
        if [ $rc -eq 1 ] && grep -q "crystallization was interrupted" "$scratch/out" &&
            grep -q "dtk crystallize --continue" "$scratch/out" && ! grep -q "reindex" "$scratch/out" &&
            "$DTK" crystallize --continue >/dev/null 2>&1 && "$DTK" check >/dev/null 2>&1; then
            ok "crystallize killed $at: check exits 1 naming the journal and --continue"
        else
            ko "crystallize killed $at: check exits 1 naming the journal and --continue" "exit $rc" \
                "$(cat "$scratch/out")"
        fi
        fresh
    done
fi

# ---- messages: a file over the limit, a repository of another user ----
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' 'a' >"$scratch/big"
for from in "$scratch/big" /dev/zero; do
    rc=0
    "$DTK" add alpha --from "$from" >"$scratch/out" 2>&1 || rc=$?
    if [ $rc -eq 2 ] && grep -qF "cannot read $from: it is larger than the limit of 16777216 bytes" "$scratch/out"; then
        ok "add --from $(basename "$from") over 16 MiB: exit 2, the file and the limit named"
    else
        ko "add --from $(basename "$from") over 16 MiB: exit 2, the file and the limit named" "exit $rc" \
            "$(cat "$scratch/out")"
    fi
done
cp insights/alpha.yaml "$scratch/ours"
rc=0
"$DTK" merge-driver "$scratch/big" "$scratch/ours" insights/alpha.yaml insights/alpha.yaml \
    >"$scratch/out" 2>&1 || rc=$?
if [ $rc -eq 2 ] && grep -qF "cannot read $scratch/big: it is larger than the limit" "$scratch/out" &&
    cmp -s "$scratch/ours" insights/alpha.yaml; then
    ok "merge-driver, a side over 16 MiB: exit 2, the file and the limit named, ours as it was"
else
    ko "merge-driver, a side over 16 MiB: exit 2, the file and the limit named" "exit $rc" \
        "$(cat "$scratch/out")"
fi
rm -f "$scratch/big"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    other=$scratch/other
    cp -R "$SRC/tests/fixtures/base" "$other"
    git init -q "$other" && chown -R nobody "$other"
    other=$(cd "$other" && pwd -P)
    rc=0
    (cd "$other/insights" && "$DTK" log) >"$scratch/out" 2>&1 || rc=$?
    if [ $rc -eq 2 ] && grep -qF "detected dubious ownership in repository at '$other'" "$scratch/out" &&
        grep -qF "git config --global --add safe.directory $other" "$scratch/out"; then
        ok "a repository of another user: dubious ownership and the safe.directory line, as git says"
    else
        ko "a repository of another user: dubious ownership, as git says" "exit $rc" "$(cat "$scratch/out")"
    fi
    git config --global --add safe.directory "$other"
    (cd "$other" && "$DTK" log >/dev/null 2>&1) && ok "safe.directory set: dtk uses that repository" ||
        ko "safe.directory set: dtk uses that repository"
    rm -rf "$other"
else
    skip "a repository of another user" "needs root to give a repository to another user"
fi

# ---- one limit of values for every command, _sources.yaml too ----
# Writes n sources of four keys after the base's own (9 values each).
sources() {
    git -C "$repo" show base:insights/_sources.yaml >insights/_sources.yaml
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
        printf "- id: src-%d\n  title: Source %d\n  url: https://example.org/%d\n  read: 2026-01-10\n", i, i, i }' \
        >>insights/_sources.yaml
}
sources 58000
"$DTK" reindex -q >/dev/null 2>&1
rc=0
for t in 1 2; do DTK_THREADS=$t "$DTK" check -q || rc=$?; done
"$DTK" add -q alpha --title T --claim C --source src-5 --confidence low >/dev/null 2>&1 || rc=$?
"$DTK" add-source -q src-new --title N >/dev/null 2>&1 || rc=$?
"$DTK" edit-source -q src-7 --title M >/dev/null 2>&1 || rc=$?
[ $rc -eq 0 ] && ok "58,000 sources of four keys: check passes, and add, add-source, edit-source write" ||
    ko "58,000 sources of four keys: check passes, and the writes write" "exit $rc"
fresh
sources 60000
line=
for c in "check" "add alpha --title T --claim C --source src-5 --confidence low" \
    "add-source src-new --title N" "edit-source src-7 --title M"; do
    for t in 1 2; do
        rc=0
        # shellcheck disable=SC2086 # the command's words
        out=$(DTK_THREADS=$t "$DTK" $c 2>&1 | grep "more than 524288 values") || rc=1
        [ -z "$line" ] && line=$out
        if [ $rc -eq 0 ] && [ "$out" = "$line" ]; then
            ok "60,000 sources, ${c%% *} ($t thread(s)): refused at the same value"
        else
            ko "60,000 sources, ${c%% *} ($t thread(s)): refused at the same value" "want: $line" "got: $out"
        fi
    done
done
fresh

t_done
