#!/usr/bin/env bash
# counts_test.sh DTK SOURCE_DIR: counts that no merge can lose
# (docs/merging.md, "Counts"), with real git on the shipped base. 2, 3 and 5
# agents on branches each count uses of a shared entry and of an entry of
# their own node (dtk use, dtk cite) in commits of their own and in a commit
# with other work (an entry added to their node; with the drivers, to the
# shared node too), integrated by merge, squash, cherry-pick, git pull
# --rebase in clones, and a plain git merge (and squash) in a clone with no
# driver, as a hosting service merges. Every case: each count the base's
# plus every use counted, as many records as use and cite commands, each
# entry once, node files byte for byte, no conflict in insights/. Then
# git's octopus merge (docs/merging.md, "Octopus"); then two branches that
# each crystallize, folding overlapping records, integrated every way. Prints
# one line per check and "N passed, M failed" last.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"
dtk() { "$DTK" "$@"; }
t_repo counts
cd "$repo" || exit 2
# the shipped base, not the fixture
rm -rf insights INDEX.md && cp -R "$SRC/insights" "$SRC/INDEX.md" . || exit 2
git symbolic-ref HEAD refs/heads/main
git config merge.conflictStyle merge
"$DTK" setup-git >/dev/null 2>&1 || { ko "setup-git"; t_done; }
git add -A && git commit -qm base || exit 2
base=$scratch/base && cp -R "$repo" "$base"

shared=weight-management-001
owns="async-distributed-001 collective-communication-002 correctness-verification-001 fault-tolerance-training-001 large-scale-training-001"
agents="a b c d e"

# count ID KEY: entry ID's count KEY (used, cited) as dtk show gives it
count() { "$DTK" show "$1" --format json | sed -n "s/^ *\"$2\": \\([0-9]*\\),\$/\\1/p"; }
# ids: every entry id of the base, one a line, sorted
ids() { "$DTK" list --include-retired --format ids | sort; }
ids >"$scratch/ids.base"
for id in $shared $owns; do
    echo "$id used $(count "$id" used)" >>"$scratch/counts.base"
    echo "$id cited $(count "$id" cited)" >>"$scratch/counts.base"
done

# run LOG KEY ID...: dtk KEY ID... (use or cite), each ID logged to LOG
run() {
    local log=$1 cmd=$2 id
    shift 2
    "$DTK" "$cmd" "$@" >/dev/null || return 1
    for id in "$@"; do echo "$id $cmd" >>"$log"; done
    echo "command" >>"$log.commands"
}

# agent N I SHARED_ADD: agent I (a letter) of N, on branch N-I off main: a
# commit that counts only, one with its work (an entry added to its own node,
# and to the shared node when SHARED_ADD is 1) and counts, one that counts
# only; its uses are logged in $scratch/log.N, the ids it added in
# $scratch/added.N
agent() {
    local n=$1 i=$2 add=$3 k own node log=$scratch/log.$1
    k=$(printf '%s\n' $agents | grep -n "^$i\$" | cut -d: -f1)
    own=$(echo $owns | cut -d' ' -f"$k")
    node=${own%-*}
    git checkout -q -b "$n-$i" main &&
        run "$log" use "$shared" && git add -A && git commit -qm "$i: use" &&
        "$DTK" add "$node" --title "agent $n$i zq$k" --claim "Agent $n$i found xk$k$n." \
            --source perplexity-weight-transfer-2025 --confidence low --created 2026-07-01 \
            >>"$scratch/added.$n" &&
        { [ "$add" = 0 ] || "$DTK" add weight-management --title "shared $n$i qz$k" \
            --claim "Shared $n$i noted vq$k$n." --source perplexity-weight-transfer-2025 \
            --confidence low --created 2026-07-01 >>"$scratch/added.$n"; } &&
        run "$log" use "$shared" "$own" && run "$log" cite "$own" &&
        git add -A && git commit -qm "$i: add, use, cite" &&
        run "$log" use "$own" && run "$log" cite "$shared" && git add -A &&
        git commit -qm "$i: use own, cite shared" && git checkout -q main
}

# verify NAME N: the base in the current directory holds every count the
# base had plus every use of $scratch/log.N, one record per command, every
# entry once (the base's and those added), the node files byte for byte
# (the base's, then what was appended), and dtk check passes (after the
# dtk reindex a stale INDEX.md asks for, when git kept one side's)
verify() {
    local name=$1 n=$2 bad= id key want have f
    while read -r id key want; do
        have=$(count "$id" "$key")
        want=$((want + $(grep -c "^$id ${key%d}\$" "$scratch/log.$n")))
        [ "$have" = "$want" ] || bad="$bad [$id $key $have, not $want]"
    done <"$scratch/counts.base"
    have=$(find insights/_uses -name '*.yaml' | wc -l)
    [ "$have" = "$(wc -l <"$scratch/log.$n.commands")" ] || bad="$bad [$have records]"
    ids >"$scratch/ids.now"
    sort "$scratch/ids.base" "$scratch/added.$n" | cmp -s - "$scratch/ids.now" ||
        bad="$bad [entries: $(sort "$scratch/ids.base" "$scratch/added.$n" | diff - "$scratch/ids.now")]"
    for f in "$base"/insights/*.yaml; do
        cmp -s -n "$(wc -c <"$f")" "$f" "insights/${f##*/}" ||
            bad="$bad [${f##*/} does not start with the base's bytes]"
    done
    [ -z "$(git diff --name-only --diff-filter=U)" ] || bad="$bad [unmerged]"
    "$DTK" check >/dev/null 2>&1 || { "$DTK" reindex -q && git commit -qm 'INDEX.md rebuilt' INDEX.md &&
        "$DTK" check >/dev/null 2>&1; } || bad="$bad [check: $("$DTK" check 2>&1)]"
    [ -z "$(git status --porcelain)" ] || bad="$bad [status: $(git status --porcelain)]"
    if [ -z "$bad" ]; then ok "$name"; else ko "$name" "$bad"; fi
}

# uses counted alike on every branch: before, git kept one side's node file
# (3 -> 4 on each side -> 4) and dtk check passed
for n in 2 3 5; do
    cd "$repo" || exit 2
    : >"$scratch/log.$n" && : >"$scratch/log.$n.commands" && : >"$scratch/added.$n"
    for i in $(echo $agents | cut -d' ' -f1-$n); do
        agent "$n" "$i" 1 || ko "$n agents: agent $i"
    done
    list=$(echo $agents | cut -d' ' -f1-$n)
    # merge, one branch after another
    git checkout -q -B "m$n" main && : >"$scratch/out"
    for i in $list; do git merge -q --no-edit "$n-$i" >>"$scratch/out" 2>&1 || ko "merge $n-$i" "$(cat "$scratch/out")"; done
    verify "$n agents, git merge with dtk's drivers: no count lost, each entry once" "$n"
    # squash: git commit concludes each (the hooks run)
    git checkout -q -B "s$n" main
    for i in $list; do
        git merge -q --squash "$n-$i" >"$scratch/out" 2>&1 && git commit -qm "squash $i" >>"$scratch/out" 2>&1 ||
            ko "squash $n-$i" "$(cat "$scratch/out")"
    done
    verify "$n agents, git merge --squash with dtk's drivers: no count lost" "$n"
    # cherry-pick, every commit of each branch
    git checkout -q -B "c$n" main
    for i in $list; do git cherry-pick "main..$n-$i" >"$scratch/out" 2>&1 || ko "cherry-pick $n-$i" "$(cat "$scratch/out")"; done
    verify "$n agents, git cherry-pick with dtk's drivers: no count lost" "$n"
    git checkout -q main

    # git pull --rebase: each agent in a clone of one origin, pulling and
    # pushing in turn; an agent's commit that counts only is never
    # "previously applied" (each use a file of its own)
    rm -rf "$scratch/origin$n.git" && git clone -q --bare "$repo" "$scratch/origin$n.git"
    for i in $list; do
        rm -rf "$scratch/clone$n$i" && git clone -q "$scratch/origin$n.git" "$scratch/clone$n$i" &&
            (cd "$scratch/clone$n$i" && git config merge.conflictStyle merge &&
                "$DTK" setup-git >/dev/null 2>&1 && git fetch -q "$repo" "$n-$i" &&
                git reset -q --hard FETCH_HEAD) || ko "clone $n$i"
    done
    for i in $list; do
        (cd "$scratch/clone$n$i" && git pull -q --rebase origin main >"$scratch/out" 2>&1 &&
            git push -q origin HEAD:main 2>>"$scratch/out") || ko "pull --rebase $n$i" "$(cat "$scratch/out")"
    done
    (cd "$scratch/clone$n$(echo $list | cut -d' ' -f$n)" &&
        verify "$n agents, git pull --rebase in turn: no count lost, no commit dropped" "$n")
done

# the hosting service: a clone that never ran dtk setup-git merges each
# branch (merge commit, or squash) with git's text merge; agents add to
# their own nodes only (two appends to one node conflict as text:
# docs/merging.md): no file of insights/ conflicts; INDEX.md may (its
# totals), resolved by dtk reindex as a person or dtk sync would
for n in 2 3 5; do
    cd "$repo" || exit 2
    : >"$scratch/log.$n" && : >"$scratch/log.$n.commands" && : >"$scratch/added.$n"
    for i in $(echo $agents | cut -d' ' -f1-$n); do
        git branch -q -D "$n-$i" && agent "$n" "$i" 0 || ko "$n agents, no driver: agent $i"
    done
    list=$(echo $agents | cut -d' ' -f1-$n)
    for how in merge squash; do
        cd "$scratch" && rm -rf service && git clone -q "$repo" service && cd service || exit 2
        git config merge.conflictStyle merge
        [ -z "$(git config --get-regexp '^merge\.dtk')" ] || ko "the service's clone has no driver"
        git fetch -q origin && conflicts=
        for i in $list; do
            if [ $how = merge ]; then
                git merge -q --no-edit "origin/$n-$i" >"$scratch/out" 2>&1
            else
                git merge -q --squash "origin/$n-$i" >"$scratch/out" 2>&1
            fi
            u=$(git diff --name-only --diff-filter=U)
            conflicts="$conflicts$(echo "$u" | grep '^insights/')"
            if [ -n "$u" ] || [ $how = squash ]; then
                "$DTK" reindex -q && git add INDEX.md && git commit -qm "$how $i" >>"$scratch/out" 2>&1 ||
                    ko "$how $n-$i on the service" "$(cat "$scratch/out")"
            fi
        done
        [ -z "$conflicts" ] && ok "$n agents, the service's $how (no driver): no file of insights/ conflicts" ||
            ko "$n agents, the service's $how (no driver): no file of insights/ conflicts" "$conflicts"
        verify "$n agents, the service's $how (no driver): no count lost, each entry once" "$n"
        cmp -s "$base/insights/weight-management.yaml" insights/weight-management.yaml &&
            ok "  ... the shared entry's node file byte for byte the base's: a use never touches it" ||
            ko "  ... the shared entry's node file changed"
    done
done

# octopus: git's octopus strategy runs no merge driver and stops when two
# branches changed one file (here both added to weight-management.yaml);
# merging one branch at a time merges them (docs/merging.md, "Octopus")
cd "$repo" || exit 2
for i in a b; do
    git checkout -q -b "oct2-$i" main && "$DTK" add weight-management --title "octopus $i wq" \
        --claim "Octopus $i zv." --source perplexity-weight-transfer-2025 --confidence low \
        --created 2026-07-01 >/dev/null && git add -A && git commit -qm "oct $i" || ko "octopus: branch $i"
done
git checkout -q -B o main
rc=0
git merge --no-edit oct2-a oct2-b >"$scratch/out" 2>&1 || rc=$?
if [ $rc -ne 0 ] && grep -q "content conflict in insights/weight-management.yaml" "$scratch/out" &&
    [ "$(git rev-parse HEAD)" = "$(git rev-parse main)" ] && ! grep -q "^<<<<<<< ours" insights/weight-management.yaml; then
    ok "octopus of two branches that changed one node file: stops on it (no driver runs), nothing committed"
else
    ko "octopus of two branches that changed one node file: stops on it, nothing committed" "exit $rc" "$(cat "$scratch/out")"
fi
git reset -q --hard main
# one at a time: both sides' INDEX.md are the same bytes (one entry added to
# one node each), so git keeps it and post-merge says the line to run
git merge -q --no-edit oct2-a >/dev/null 2>&1 && git merge -q --no-edit oct2-b >"$scratch/out" 2>&1 &&
    [ "$(grep -c '^  - id: weight-management-' insights/weight-management.yaml)" = 7 ] &&
    line=$(sed -n 's/^post-merge: INDEX.md does not match insights\/ .*; to fix it, run: //p' "$scratch/out") &&
    eval "$line" >/dev/null && "$DTK" check >/dev/null 2>&1 &&
    ok "  ... the same merged one branch at a time: both entries; post-merge's line, then dtk check passes" ||
    ko "  ... one branch at a time" "$(cat "$scratch/out")" "$("$DTK" check 2>&1)"
# a cherry-pick whose INDEX.md is the same on both sides (one entry added
# to one node each): git runs no driver and keeps it; the post-commit hook
# says the line that rebuilds it
git checkout -q -B pick oct2-a
if git cherry-pick oct2-b >"$scratch/out" 2>&1 &&
    line=$(sed -n 's/^post-commit: INDEX.md does not match insights\/ .*; to fix it, run: //p' "$scratch/out") &&
    [ -n "$line" ] && ! "$DTK" check >/dev/null 2>&1 && eval "$line" >/dev/null &&
    "$DTK" check >/dev/null 2>&1 && [ -z "$(git status --porcelain)" ]; then
    ok "a cherry-pick whose INDEX.md is the same on both sides: post-commit says the line; run, dtk check passes"
else
    ko "a cherry-pick whose INDEX.md is the same on both sides: post-commit says the line" "$(cat "$scratch/out")"
fi
# branches that only count touch no common file: the octopus merges them
git checkout -q -B o main
for i in a b c; do
    git checkout -q -b "oct-$i" main && "$DTK" use "$shared" >/dev/null && git add -A &&
        git commit -qm "oct $i" && git checkout -q o
done
if git merge -q --no-edit oct-a oct-b oct-c >"$scratch/out" 2>&1 &&
    [ "$(count "$shared" used)" = $(($(sed -n "s/^$shared used //p" "$scratch/counts.base") + 3)) ] &&
    "$DTK" check >/dev/null 2>&1; then
    ok "octopus of three branches that only counted: merged, every use counted"
else
    ko "octopus of three branches that only counted" "$(cat "$scratch/out")" "$("$DTK" check 2>&1)"
fi
# crystallize folds the records into one file per run, each record named in
# it; a record counts once by its name, live or folded, in one fold or two.
# Main holds records r1 r2 (committed) and r3 (not); branch f-a counts, then
# crystallizes (folding r1 r2 r3 and its own), f-b likewise (r1 r2 and its
# own), f-c counts only. Every integration (merges with the drivers, squash,
# pull --rebase, the service's merge and squash with no driver): each count
# the base's plus every use once, no file of insights/_uses/ in conflict.
# Two runs both append a record to _crystallizations.yaml: that conflict is
# resolved as docs/merging.md says (ours kept here; INDEX.md rebuilt).
cd "$repo" && git checkout -q -B fmain main || exit 2
: >"$scratch/log.f"
run "$scratch/log.f" use "$shared" && git add -A && git commit -qm r1 &&
    run "$scratch/log.f" cite "${owns%% *}" "$shared" && git add -A && git commit -qm r2 ||
    ko "fold: the records on main"
date=2026-12-01
for i in a b c; do
    # a and b: uses not committed (crystallize folds them too), then a run
    git checkout -q -b "f-$i" fmain && run "$scratch/log.f" use "$shared" &&
        run "$scratch/log.f" cite "$shared" || ko "fold: f-$i counts"
    if [ $i != c ]; then
        "$DTK" crystallize --date $date --eval s-00$i=ok >"$scratch/out" 2>&1 &&
            [ -z "$(git status --porcelain)" ] && [ "$(ls insights/_uses | grep -vc '^fold-')" = 0 ] ||
            ko "fold: crystallize on f-$i leaves one fold, nothing else" "$(cat "$scratch/out")" "$(git status --porcelain)"
        date=2026-12-02
    else
        git add -A && git commit -qm "c counts" || ko "fold: f-c commits"
    fi
    git checkout -q fmain
done
# resolve: the two runs' _crystallizations.yaml kept as ours has it (and
# INDEX.md rebuilt), then the operation concluded by CONT (a git command)
resolve() {
    local u
    u=$(git diff --name-only --diff-filter=U)
    if [ -n "$u" ]; then
        conflicts="$conflicts$(echo "$u" | grep '^insights/_uses/')"
        git checkout -q --ours insights/_crystallizations.yaml 2>/dev/null || git checkout -q HEAD -- insights/_crystallizations.yaml
        "$DTK" reindex -q; git add -A insights INDEX.md
    fi
    "$@" >>"$scratch/out" 2>&1
}
# fverify NAME: each count the base's plus every use in $scratch/log.f once,
# no file of _uses/ in conflict, dtk check passes; then a crystallize folds
# what is live and the counts stay
fverify() {
    local name=$1 bad= id key want have
    while read -r id key want; do
        have=$(count "$id" "$key")
        want=$((want + $(grep -c "^$id ${key%d}\$" "$scratch/log.f")))
        [ "$have" = "$want" ] || bad="$bad [$id $key $have, not $want]"
    done <"$scratch/counts.base"
    [ -z "$conflicts" ] || bad="$bad [conflicts: $conflicts]"
    [ -z "$(git diff --name-only --diff-filter=U)" ] || bad="$bad [unmerged]"
    "$DTK" check >/dev/null 2>&1 || { "$DTK" reindex -q && git commit -qm 'INDEX.md rebuilt' INDEX.md &&
        "$DTK" check >/dev/null 2>&1; } || bad="$bad [check: $("$DTK" check 2>&1)]"
    if [ -z "$bad" ]; then ok "$name"; else ko "$name" "$bad" "$(cat "$scratch/out")"; fi
}
n=0
for how in merge squash; do
    git checkout -q -B "fm-$how" fmain && conflicts= && : >"$scratch/out"
    for i in a b c; do
        if [ $how = merge ]; then
            git merge -q --no-edit "f-$i" >>"$scratch/out" 2>&1 || resolve git commit -q --no-edit
        else
            git merge -q --squash "f-$i" >>"$scratch/out" 2>&1; resolve git commit -qm "squash $i"
        fi
    done
    fverify "two branches crystallized, folding overlapping records; git $how with the drivers: every count once"
done
# pull --rebase: each branch in a clone, pulling and pushing in turn
rm -rf "$scratch/forigin.git" && git clone -q --bare "$repo" "$scratch/forigin.git" &&
    git -C "$scratch/forigin.git" update-ref refs/heads/main refs/heads/fmain || exit 2
conflicts= && : >"$scratch/out"
for i in a b c; do
    rm -rf "$scratch/fclone$i" && git clone -q "$scratch/forigin.git" "$scratch/fclone$i" &&
        (cd "$scratch/fclone$i" && git config merge.conflictStyle merge && "$DTK" setup-git >/dev/null 2>&1 &&
            git reset -q --hard "origin/f-$i" && { git pull -q --rebase origin main >>"$scratch/out" 2>&1 ||
                GIT_EDITOR=true resolve git rebase --continue; } && git push -q origin HEAD:main 2>>"$scratch/out") ||
        ko "fold: pull --rebase f-$i" "$(cat "$scratch/out")"
done
(cd "$scratch/fclonec" && fverify "two branches crystallized, folding overlapping records; git pull --rebase in turn: every count once")
# the service: a clone with no driver merges (or squashes) each branch
for how in merge squash; do
    cd "$scratch" && rm -rf fservice && git clone -q "$repo" fservice && cd fservice || exit 2
    git config merge.conflictStyle merge && git checkout -q -B main origin/fmain && conflicts= && : >"$scratch/out"
    for i in a b c; do
        if [ $how = merge ]; then
            git merge -q --no-edit "origin/f-$i" >>"$scratch/out" 2>&1 || resolve git commit -q --no-edit
        else
            git merge -q --squash "origin/f-$i" >>"$scratch/out" 2>&1; resolve git commit -qm "squash $i"
        fi
    done
    fverify "two branches crystallized, folding overlapping records; the service's $how (no driver): every count once"
    # the next run folds what is live; the counts stay
    "$DTK" crystallize --date 2026-12-05 --eval s-00d=ok >/dev/null 2>&1 &&
        [ "$(ls insights/_uses | grep -vc '^fold-')" = 0 ] || ko "  ... the next crystallize" "$("$DTK" check 2>&1)"
    fverify "  ... and after the next crystallize folds what was live: every count once"
done
cd "$repo" && git checkout -q -f main && git clean -qfd insights

# dtk sync renders INDEX.md with the records of uses counted: a branch's
# first use of an entry moves the usage rate, which the merged INDEX.md shows
cd "$repo" && git checkout -q -f -B sy main && git clean -qfd insights || exit 2
zero=collective-communication-010
git checkout -q -b sy-b && "$DTK" use $zero >/dev/null && git add -A && git commit -qm use &&
    git checkout -q sy && "$DTK" add weight-management --title "sync qz" --claim "Sync noted vq." \
        --source perplexity-weight-transfer-2025 --confidence low --created 2026-07-01 >/dev/null 2>&1 &&
    git add -A && git commit -qm other && git checkout -q sy-b || ko "sync: the branches"
[ "$(git checkout -q sy && count $zero used && git checkout -q sy-b)" = 0 ] && "$DTK" sync sy >"$scratch/out" 2>&1 && "$DTK" check >/dev/null 2>&1 &&
    ok "dtk sync: INDEX.md rendered with the records of uses counted" ||
    ko "dtk sync: INDEX.md rendered with the records of uses counted" "$(cat "$scratch/out")" "$("$DTK" check 2>&1)"
git checkout -q main

# records are checked as the rest: every error with its place, exit 2; a
# record naming a retired entry counts (the rates leave it out)
cd "$repo" && git checkout -q -B bad main && mkdir -p insights/_uses || exit 2
printf 'used:\n- nope-001\n- not an id\nusd: [x]\n' >insights/_uses/2026-12-01-aaaaaaaaaa.yaml
printf 'cited: []\n' >insights/_uses/2026-12-01-bbbbbbbbbb.yaml
printf -- '- x\n' >insights/_uses/fold-2026-12-01-cccccccccc.yaml
printf -- '"2026-12-01-dddddddddd":\n  used: [nope-001]\n' >insights/_uses/fold-2026-12-01-dddddddddd.yaml
"$DTK" check >/dev/null 2>"$scratch/err"
rc=$?
want="insights/_uses/2026-12-01-aaaaaaaaaa.yaml:2:3: error: 'used' names unknown entry 'nope-001'
insights/_uses/2026-12-01-aaaaaaaaaa.yaml:3:3: error: 'used' must list entry ids (<node>-<suffix>), found 'not an id'
insights/_uses/2026-12-01-aaaaaaaaaa.yaml:4:1: error: unknown key 'usd' in a record of uses (did you mean 'used'?)
insights/_uses/2026-12-01-bbbbbbbbbb.yaml:1:1: error: a record of uses names no entry ('used' or 'cited': a list of ids)
insights/_uses/fold-2026-12-01-cccccccccc.yaml:1:1: error: a fold of records of uses must be a mapping of record names to records, found a list
insights/_uses/fold-2026-12-01-dddddddddd.yaml:2:10: error: 'used' names unknown entry 'nope-001'"
if [ $rc -eq 2 ] && [ "$(grep -v '^dtk: ' "$scratch/err")" = "$want" ]; then
    ok "records of uses checked: every error with its path, line and column, exit 2"
else
    ko "records of uses checked: every error with its path, line and column, exit 2" "exit $rc" "$(cat "$scratch/err")"
fi
rm insights/_uses/2026-12-01-*.yaml insights/_uses/fold-2026-12-01-*.yaml
"$DTK" retract "$shared" --reason "a test" >/dev/null && before=$(count "$shared" used) &&
    "$DTK" use "$shared" >/dev/null && [ "$(count "$shared" used)" = $((before + 1)) ] &&
    "$DTK" check >/dev/null 2>&1 && ok "a use of a retired entry: counted, the base valid" ||
    ko "a use of a retired entry: counted, the base valid" "$("$DTK" check 2>&1)"
git checkout -q . && git clean -qfd insights && git checkout -q main
t_done
