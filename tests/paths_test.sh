#!/usr/bin/env bash
# paths_test.sh DTK SOURCE_DIR: the files dtk writes by path are written
# only where they should be. INDEX.md and insights/_crystallizations.yaml,
# which crystallize replaces, must be regular files or absent (as for
# reindex: a symbolic link, a FIFO or a directory is an error, exit 2,
# nothing written, git's index lock released), also for --no-commit,
# --continue and --abort, the write commands, and the journal in the git
# directory; a node file that is a link inside the base is written through
# by the write commands (the link kept); export does not write its pages
# through a link; a failed directory sync is reported. DTK_CRASH (the
# dtk-crash binary) runs the --continue and sync checks. Prints one line per check and "N passed, M failed" last.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
[ -n "${DTK_CRASH:-}" ] && DTK_CRASH=$(cd "$(dirname "$DTK_CRASH")" && pwd)/$(basename "$DTK_CRASH")

t_repo paths
cd "$repo" || exit 2
git symbolic-ref HEAD refs/heads/main
git add -A && git commit -qm base || exit 2
T=
command -v timeout >/dev/null && T='timeout 20'
date=2026-08-15

# state: what must not change when a run is refused
state() {
    {
        git rev-parse HEAD
        git ls-files -s
        cat insights/_crystallizations.yaml
        ls -l --time-style=+ INDEX.md | sed 's/ [0-9][0-9]* [0-9:]* //'
        [ -L INDEX.md ] && readlink INDEX.md
        [ -f .git/index.lock ] && echo LOCKED
        [ -f .git/dtk-crystallize ] && echo JOURNAL
        cat "$scratch/secret"
    } 2>&1
}

# refused NAME MESSAGE ARGS...: crystallize ARGS exits 2 saying MESSAGE,
# and nothing changed
refused() {
    local name=$1 msg=$2 before rc=0
    shift 2
    before=$(state)
    $T "$DTK" crystallize "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF "$msg" "$scratch/err" && [ "$(state)" = "$before" ]; then
        ok "$name"
    else
        ko "$name" "exit $rc" "$(cat "$scratch/err")" "$(diff <(echo "$before") <(state))"
    fi
}

echo 'TOP-SECRET' >"$scratch/secret"
cp INDEX.md "$scratch/INDEX.md"
link='it is a symbolic link (it must be a regular file)'
special='it is a special file (it must be a regular file)'

rm INDEX.md && ln -s "$scratch/secret" INDEX.md
refused "crystallize: INDEX.md a link to a file outside" "INDEX.md: $link" --date $date --eval s=ok
refused "crystallize --no-commit: INDEX.md a link outside" "INDEX.md: $link" \
    --date $date --eval s=ok --no-commit
grep -q TOP-SECRET "$scratch/out" "$scratch/err" && ko "the target is not shown" || ok "the target is not shown"
cp "$scratch/INDEX.md" insights/index-copy.md
rm INDEX.md && ln -s insights/index-copy.md INDEX.md
refused "crystallize: INDEX.md a link to a file inside" "INDEX.md: $link" --date $date --eval s=ok
cmp -s insights/index-copy.md "$scratch/INDEX.md" && ok "the link's target inside is unchanged" ||
    ko "the link's target inside is unchanged"
rm INDEX.md insights/index-copy.md && mkfifo INDEX.md
refused "crystallize: INDEX.md a FIFO (no hang)" "INDEX.md: $special" --date $date --eval s=ok
refused "crystallize --no-commit: INDEX.md a FIFO" "INDEX.md: $special" \
    --date $date --eval s=ok --no-commit
rm INDEX.md && mkdir INDEX.md
refused "crystallize: INDEX.md a directory" "INDEX.md: Is a directory" --date $date --eval s=ok
rmdir INDEX.md && cp "$scratch/INDEX.md" INDEX.md

# the write commands rebuild INDEX.md: the same (with --no-reindex they
# leave it alone)
rm INDEX.md && ln -s "$scratch/secret" INDEX.md
before=$(state)
rc=0
$T "$DTK" use alpha-001 >"$scratch/out" 2>"$scratch/err" || rc=$?
if [ $rc -eq 2 ] && grep -qF "INDEX.md: $link" "$scratch/err" && [ "$(state)" = "$before" ] &&
    [ -z "$(git status --porcelain insights)" ]; then
    ok "use: INDEX.md a link is refused, nothing written"
else
    ko "use: INDEX.md a link is refused, nothing written" "exit $rc" "$(cat "$scratch/err")"
fi
rm INDEX.md && cp "$scratch/INDEX.md" INDEX.md

# the journal of an interrupted run (in the git directory): a FIFO there is
# an error, not a hang
mkfifo .git/dtk-crystallize
before=$(state)
rc=0
$T "$DTK" crystallize --date $date --eval s=ok >"$scratch/out" 2>"$scratch/err" || rc=$?
if [ $rc -eq 2 ] && grep -qF "dtk-crystallize: $special" "$scratch/err" && [ "$(state)" = "$before" ]; then
    ok "crystallize: a FIFO as the journal is an error, not a hang"
else
    ko "crystallize: a FIFO as the journal is an error, not a hang" "exit $rc" "$(cat "$scratch/err")"
fi
rm .git/dtk-crystallize

# the records file, which crystallize rewrites, the same
mkdir -p data && mv insights/_crystallizations.yaml data/ &&
    ln -s ../data/_crystallizations.yaml insights/_crystallizations.yaml
refused "crystallize: the records file a link" "_crystallizations.yaml: $link" \
    --date $date --eval s=ok
refused "crystallize --no-commit: the records file a link" "_crystallizations.yaml: $link" \
    --date $date --eval s=ok --no-commit
rm insights/_crystallizations.yaml && mv data/_crystallizations.yaml insights/ && rmdir data
[ -z "$(git status --porcelain)" ] || ko "the work tree is as committed" "$(git status --short)"

# --continue writes INDEX.md from the decided commit: the same checks
if [ -n "${DTK_CRASH:-}" ]; then
    rc=0
    # (in a shell of its own, whose notice of the kill is not shown)
    DTK_CRASH_AT=after-records bash -c '"$0" crystallize --date "$1" --eval s=ok; exit $?' \
        "$DTK_CRASH" $date >/dev/null 2>&1 || rc=$?
    [ $rc -ne 0 ] && [ -f .git/dtk-crystallize ] || ko "a run cut after the records" "exit $rc"
    rm INDEX.md && ln -s "$scratch/secret" INDEX.md
    rc=0
    "$DTK" crystallize --continue >"$scratch/out" 2>"$scratch/err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF "INDEX.md: $link" "$scratch/err" && [ -L INDEX.md ] &&
        [ "$(cat "$scratch/secret")" = TOP-SECRET ]; then
        ok "crystallize --continue: INDEX.md a link is refused, not replaced"
    else
        ko "crystallize --continue: INDEX.md a link is refused, not replaced" "exit $rc" \
            "$(cat "$scratch/err")" "$(ls -l INDEX.md)"
    fi
    rm INDEX.md && mkfifo INDEX.md
    rc=0
    $T "$DTK" crystallize --continue >"$scratch/out" 2>"$scratch/err" || rc=$?
    [ $rc -eq 2 ] && [ -p INDEX.md ] && grep -qF "INDEX.md: $special" "$scratch/err" &&
        ok "crystallize --continue: INDEX.md a FIFO is refused" ||
        ko "crystallize --continue: INDEX.md a FIFO is refused" "exit $rc" "$(cat "$scratch/err")"
    # --abort puts back only what the run wrote: a FIFO is left, not read
    rc=0
    $T "$DTK" crystallize --abort >"$scratch/out" 2>"$scratch/err" || rc=$?
    [ $rc -eq 0 ] && [ -p INDEX.md ] && [ ! -f .git/dtk-crystallize ] &&
        ok "crystallize --abort: INDEX.md a FIFO is left as it is, no hang" ||
        ko "crystallize --abort: INDEX.md a FIFO is left as it is, no hang" "exit $rc" \
            "$(cat "$scratch/err")"
    rm INDEX.md && git checkout -q . && git status --porcelain
    DTK_CRASH_AT=after-records bash -c '"$0" crystallize --date "$1" --eval s=ok; exit $?' \
        "$DTK_CRASH" $date >/dev/null 2>&1
    if "$DTK" crystallize --continue >/dev/null 2>"$scratch/err" && "$DTK" check 2>/dev/null &&
        [ -z "$(git status --porcelain)" ]; then
        ok "crystallize --continue finishes once INDEX.md is a file"
    else
        ko "crystallize --continue finishes once INDEX.md is a file" "$(cat "$scratch/err")" \
            "$(git status --short)"
    fi
    git reset -q --hard HEAD~1
else
    skip "crystallize --continue" "DTK_CRASH is not set"
fi

# a write command through a node file that is a link inside the base
mkdir -p data && mv insights/alpha.yaml data/ && ln -s ../data/alpha.yaml insights/alpha.yaml
rc=0
"$DTK" stance alpha 'written through' >/dev/null 2>"$scratch/err" || rc=$?
if [ $rc -eq 0 ] && [ -L insights/alpha.yaml ] &&
    [ "$(readlink insights/alpha.yaml)" = ../data/alpha.yaml ] &&
    [ "$(diff <(git show HEAD:insights/alpha.yaml) data/alpha.yaml | grep -c '^[<>]')" = 2 ] &&
    "$DTK" check 2>/dev/null; then
    ok "stance: a node file that is a link is written through, the link kept"
else
    ko "stance: a node file that is a link is written through, the link kept" "exit $rc" \
        "$(cat "$scratch/err")" "$(ls -l insights/alpha.yaml)"
fi
if [ -n "${DTK_CRASH:-}" ]; then
    # its directory swapped for a link out of the base after the checks:
    # refused, nothing written there
    mkdir -p "$scratch/away" && cp data/alpha.yaml "$scratch/away/" && cp data/alpha.yaml "$scratch/alpha.orig"
    cp data/alpha.yaml "$scratch/alpha.before"
    rc=0
    DTK_CRASH_AT=before-write DTK_CRASH_RUN="mv data data.real && ln -s '$scratch/away' data" \
        "$DTK_CRASH" review alpha-001 --date 2026-08-01 >/dev/null 2>"$scratch/err" || rc=$?
    rm data && mv data.real data
    if [ $rc -eq 2 ] && grep -q "nothing was written" "$scratch/err" &&
        cmp -s "$scratch/away/alpha.yaml" "$scratch/alpha.orig" && [ "$(ls "$scratch/away")" = alpha.yaml ] &&
        cmp -s data/alpha.yaml "$scratch/alpha.before"; then
        ok "review: the directory a node file links into swapped for a link out: exit 2, nothing written"
    else
        ko "review: the directory a node file links into swapped for a link out: exit 2, nothing written" \
            "exit $rc" "$(cat "$scratch/err")" "$(ls "$scratch/away")"
    fi
    # a write through the link killed between its renames: put back there
    cp insights/beta.yaml "$scratch/beta.before"
    DTK_CRASH_AT=before-rename:2 "$DTK_CRASH" review alpha-001 beta-001 --date 2026-08-01 >/dev/null 2>&1
    rc=0
    "$DTK" reindex -q 2>"$scratch/err" || rc=$?
    if [ $rc -eq 0 ] && [ -L insights/alpha.yaml ] && cmp -s data/alpha.yaml "$scratch/alpha.before" &&
        cmp -s insights/beta.yaml "$scratch/beta.before" && [ "$(ls data)" = alpha.yaml ]; then
        ok "review through a link killed between its renames: the next write puts the linked file back"
    else
        ko "review through a link killed between its renames: the next write puts the linked file back" \
            "exit $rc" "$(cat "$scratch/err")" "$(ls -la data insights)"
    fi
    # a write of the linked file alone (no journal) killed before its
    # rename: its temporary file there is swept by the next write, as one
    # beside INDEX.md is
    DTK_CRASH_AT=before-rename bash -c '"$0" edit alpha-001 --claim killed; exit $?' \
        "$DTK_CRASH" >/dev/null 2>&1
    left=$(ls data | grep -c '^alpha\.yaml\.tmp-')
    rc=0
    "$DTK" reindex -q 2>"$scratch/err" || rc=$?
    if [ "$left" = 1 ] && [ $rc -eq 0 ] && [ "$(ls data)" = alpha.yaml ] &&
        cmp -s data/alpha.yaml "$scratch/alpha.before"; then
        ok "edit through a link killed before its rename: the next write sweeps its temporary file there"
    else
        ko "edit through a link killed before its rename: the next write sweeps its temporary file there" \
            "left $left, exit $rc" "$(cat "$scratch/err")" "$(ls -la data)"
    fi
fi
rm insights/alpha.yaml && git checkout -q insights/alpha.yaml && rm -r data
# insights/ itself a link inside the base: a new node file is made there
mkdir -p store && mv insights store/ && ln -s store/insights insights
rc=0
"$DTK" add-node delta --category 策略 >/dev/null 2>"$scratch/err" || rc=$?
if [ $rc -eq 0 ] && [ -L insights ] && [ -f store/insights/delta.yaml ] && "$DTK" check >/dev/null 2>&1; then
    ok "add-node: insights/ a link inside the base, the new node file made where it leads"
else
    ko "add-node: insights/ a link inside the base, the new node file made where it leads" "exit $rc" \
        "$(cat "$scratch/err")"
fi
rm insights && mv store/insights insights && rmdir store && rm insights/delta.yaml && git checkout -q .

# export: the pages are not written through a link in the output directory
out=$scratch/site
"$DTK" export html "$out" 2>/dev/null || ko "export html"
mkdir "$scratch/elsewhere" && rm -r "$out/nodes" && ln -s "$scratch/elsewhere" "$out/nodes"
rc=0
"$DTK" export html "$out" >/dev/null 2>"$scratch/err" || rc=$?
if [ $rc -eq 2 ] && [ -z "$(ls -A "$scratch/elsewhere")" ] && grep -q 'nodes is not a directory' "$scratch/err"; then
    ok "export html: a link in place of nodes/ is refused"
else
    ko "export html: a link in place of nodes/ is refused" "exit $rc" "$(cat "$scratch/err")" \
        "$(ls -A "$scratch/elsewhere")"
fi

# A failed sync of the directory after a rename (DTK_FAULT_AT=fsync-dir in
# dtk-crash) is an error saying what failed, for every command that writes
# (the same commands pass without the fault): exit 1 for a command of the
# base (its files were written: never 2 after a byte changed), 2 for export.
if [ -n "${DTK_CRASH:-}" ]; then
    synced='but cannot sync its directory'
    for cmd in "reindex" "use alpha-001" "crystallize --date $date --eval s=ok --no-commit" \
        "export html $scratch/site2"; do
        echo stale >>INDEX.md
        rc=0
        want=1
        case $cmd in export*) want=2 ;; esac
        DTK_FAULT_AT=fsync-dir "$DTK_CRASH" $cmd >/dev/null 2>"$scratch/err" || rc=$?
        if [ $rc -eq $want ] && grep -qF "$synced" "$scratch/err"; then
            ok "$cmd: a failed directory sync is reported, exit $want"
        else
            ko "$cmd: a failed directory sync is reported, exit $want" "exit $rc" "$(cat "$scratch/err")"
        fi
        git checkout -q . && rm -rf "$scratch/site2"
        echo stale >>INDEX.md
        "$DTK_CRASH" $cmd >/dev/null 2>&1 || ko "$cmd without the fault"
        git checkout -q . && git clean -fdq insights # a use's record
    done
    echo stale >>INDEX.md
    DTK_FAULT_AT=fsync-dir "$DTK" reindex >/dev/null 2>&1 && ok "dtk itself has no fault point" ||
        ko "dtk itself has no fault point"
    git checkout -q .
    # crystallize --no-commit writes INDEX.md, then the records, all or
    # nothing: when the records are not replaced (their rename fails),
    # INDEX.md is put back; when they are but not synced, both stay the run's
    cp INDEX.md "$scratch/INDEX.before"
    cp insights/_crystallizations.yaml "$scratch/records.before"
    rc=0
    DTK_FAULT_AT="rename=$PWD/insights/_crystallizations.yaml" "$DTK_CRASH" crystallize --date $date --eval s=ok --no-commit \
        >/dev/null 2>"$scratch/err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF "(the files already replaced were put back)" "$scratch/err" &&
        cmp -s INDEX.md "$scratch/INDEX.before" &&
        cmp -s insights/_crystallizations.yaml "$scratch/records.before" &&
        "$DTK" crystallize --date $date --eval s=ok --no-commit >/dev/null 2>&1; then
        ok "crystallize --no-commit: records not written, INDEX.md put back, a rerun works"
    else
        ko "crystallize --no-commit: records not written, INDEX.md put back, a rerun works" \
            "exit $rc" "$(cat "$scratch/err")" "$(git status --short)"
    fi
    git checkout -q .
    rc=0
    DTK_FAULT_AT="fsync-dir=$PWD/insights/_crystallizations.yaml" "$DTK_CRASH" crystallize --date $date --eval s=ok --no-commit \
        >/dev/null 2>"$scratch/err" || rc=$?
    if [ $rc -eq 1 ] && grep -qF "_crystallizations.yaml, $synced" "$scratch/err" &&
        ! grep -q "put back" "$scratch/err" && grep -q "date: $date" insights/_crystallizations.yaml &&
        "$DTK" check >/dev/null 2>&1; then
        ok "crystallize --no-commit: records written but not synced: reported, both files the run's"
    else
        ko "crystallize --no-commit: records written but not synced: reported, both files the run's" \
            "exit $rc" "$(cat "$scratch/err")" "$(git status --short)"
    fi
    git checkout -q .
    # the previous run's base, copied out of git to compare with: a failure
    # there is an error, not a run missing from history (other figures)
    before=$(state)
    rc=0
    DTK_FAULT_AT=rename "$DTK_CRASH" crystallize --date $date --eval s=ok --no-commit \
        >/dev/null 2>"$scratch/err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF "cannot read the previous run's base: cannot replace" "$scratch/err" &&
        ! grep -q "history" "$scratch/err" && [ "$(state)" = "$before" ]; then
        ok "crystallize: the previous run's base not read is an error, nothing written"
    else
        ko "crystallize: the previous run's base not read is an error, nothing written" \
            "exit $rc" "$(cat "$scratch/err")"
    fi
    # crystallize: the first write fails (the message file, before the commit
    # is decided): refused, nothing committed, no lock or journal left
    before=$(state)
    rc=0
    DTK_FAULT_AT=fsync-dir "$DTK_CRASH" crystallize --date $date --eval s=ok \
        >/dev/null 2>"$scratch/err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF "$synced" "$scratch/err" && [ "$(state)" = "$before" ] &&
        [ -z "$(git status --porcelain)" ]; then
        ok "crystallize: a failed directory sync is reported, nothing committed"
    else
        ko "crystallize: a failed directory sync is reported, nothing committed" "exit $rc" \
            "$(cat "$scratch/err")" "$(diff <(echo "$before") <(state))"
    fi
fi

t_done
