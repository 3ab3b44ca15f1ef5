#!/usr/bin/env bash
# messages_test.sh DTK SOURCE_DIR: what dtk says when there is little to say
# or when the help and the output must agree: dtk log without runs, the
# plan's note and headings, the help's columns and options.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo messages

# expect NAME WANT GOT
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want: $2" "got:  $3"; fi
}

# dtk log on a branch with no commit, then with no records at HEAD
out=$(cd "$repo" && dtk log 2>"$scratch/err"); rc=$?
expect "dtk log, unborn branch: exit 0, nothing on stdout" "0:" "$rc:$out"
expect "dtk log, unborn branch: says so" \
    "dtk log: no crystallization runs: the branch has no commit yet" "$(cat "$scratch/err")"
out=$(cd "$repo" && dtk log --format json 2>/dev/null)
expect "dtk log --format json, unborn branch: []" "[]" "$out"
(cd "$repo" && : >insights/_crystallizations.yaml && dtk reindex -q && git add -A &&
    git commit -qm base) || ko "commit a base without records"
out=$(cd "$repo" && dtk log 2>"$scratch/err"); rc=$?
expect "dtk log, no records: exit 0, nothing on stdout" "0:" "$rc:$out"
expect "dtk log, no records: says so" \
    "dtk log: no crystallization runs: HEAD's insights/_crystallizations.yaml records none" \
    "$(cat "$scratch/err")"

# the plan outside git: its note names the four figures the warning names
plain=$scratch/plain
cp -R "$SRC/tests/fixtures/base" "$plain"
out=$(cd "$plain" && dtk crystallize --plan --date 2026-08-15 2>"$scratch/err")
warn=$(cat "$scratch/err")
expect "plan's note names the figures the warning names" \
    "note: the base at the previous run is not in history; high changes, bloom changes, stance rewrites and new contradictions count only what the files show" \
    "$(printf '%s\n' "$out" | grep '^note:')"
case $warn in
*"high changes, bloom changes, stance rewrites and new contradictions count only what the files show"*)
    ok "the warning names the same four figures" ;;
*) ko "the warning names the same four figures" "$warn" ;;
esac
expect "plan's candidates heading" "candidates, one verification short of high (1):" \
    "$(printf '%s\n' "$out" | grep '^candidates')"

# crystallize --no-commit says what it wrote (and wrote it)
out=$(cd "$plain" && dtk crystallize --eval s=ok --date 2026-08-15 --no-commit 2>/dev/null)
case $out in
"wrote insights/_crystallizations.yaml and INDEX.md for 2026-08-15, not committed: "*" new"*)
    ok "crystallize --no-commit says what it wrote" ;;
*) ko "crystallize --no-commit says what it wrote" "$out" ;;
esac
grep -q '^- date: 2026-08-15$' "$plain/insights/_crystallizations.yaml" &&
    grep -q '2026-08-15' "$plain/INDEX.md" && ok "crystallize --no-commit wrote both files" ||
    ko "crystallize --no-commit wrote both files"

# paths relative to where the user stands, as git and compilers print them;
# --format github keeps paths relative to the work tree
rel=$repo
mkdir -p "$rel/docs"
printf 'node: gamma\nbloom: x\ninsights: []\n' >"$rel/insights/gamma.yaml"
e="2:8: error: 'bloom' must be one of"
for at in ".:insights/gamma.yaml" "insights:gamma.yaml" "docs:../insights/gamma.yaml"; do
    err=$(cd "$rel/${at%%:*}" && dtk check 2>&1 >/dev/null)
    case $err in
    "${at#*:}:$e"*) ok "from ${at%%:*}/: ${at#*:}" ;;
    *) ko "from ${at%%:*}/: ${at#*:}" "$err" ;;
    esac
done
err=$(cd "$rel" && dtk -C insights check 2>&1 >/dev/null)
case $err in "gamma.yaml:$e"*) ok "-C insights: gamma.yaml" ;; *) ko "-C insights: gamma.yaml" "$err" ;; esac
out=$(cd "$rel/insights" && dtk check --format github 2>/dev/null)
case $out in "::error file=insights/gamma.yaml,line=2,col=8::"*) ok "--format github: work tree paths" ;;
*) ko "--format github: work tree paths" "$out" ;; esac
git -C "$rel" checkout -q -- insights/gamma.yaml
echo >>"$rel/INDEX.md"
err=$(cd "$rel/insights" && dtk check 2>&1 >/dev/null)
expect "check from insights/: ../INDEX.md is out of date" \
    "dtk check: ../INDEX.md is out of date; run 'dtk reindex' and commit it" "$err"
err=$(cd "$rel/insights" && dtk reindex 2>&1)
expect "reindex from insights/: wrote ../INDEX.md" "wrote ../INDEX.md" "$err"

# a node name that begins the one node it stands for: did you mean it
ad=$scratch/ad
cp -R "$SRC/tests/fixtures/base" "$ad"
printf 'node: async-distributed\nbloom: remember\ninsights: []\n' >"$ad/insights/async-distributed.yaml"
sed -i 's/nodes: \[beta, gamma\]/nodes: [beta, gamma, async-distributed]/' "$ad/insights/_domain.yaml"
(cd "$ad" && dtk reindex -q) || ko "a base with async-distributed"
err=$(cd "$ad" && dtk list --node async-distrib 2>&1); rc=$?
expect "list --node async-distrib: did you mean async-distributed" \
    "2:dtk list: error: no node 'async-distrib'; did you mean 'async-distributed'?" "$rc:$err"

# dtk --help: the summaries in one column, with at least two spaces before each
col=$(dtk --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {
    match($0, /^  [a-z-]+ +/); if (RLENGTH - 2 - length($1) < 2) bad = bad " " $1; print RLENGTH }
    END { if (bad) print "cramped:" bad }' | sort -u)
expect "dtk --help: one column of summaries" "1" "$(printf '%s\n' "$col" | grep -c .)"

# dtk check --help names -f as well as --format
dtk check --help | grep -q -- '^  -f, --format' && ok "dtk check --help names -f" ||
    ko "dtk check --help names -f" "$(dtk check --help)"

# a write command's refusal about the data has check's shape: the path from
# the working directory, then line, column and "error:"
cp "$repo/insights/alpha.yaml" "$scratch/alpha.keep"
sed -i '0,/^    relates: .*/s//    relates: beta-001/' "$repo/insights/alpha.yaml"
line=$(grep -n '^    relates: beta-001$' "$repo/insights/alpha.yaml" | head -n 1 | cut -d: -f1)
(cd "$repo/insights" && dtk relate alpha-002 beta-002 2>"$scratch/err" >/dev/null)
(cd "$repo/insights" && dtk check 2>"$scratch/err2" >/dev/null)
expect "a write's refusal about the data, from insights/: as check prints errors" \
    "alpha.yaml:$line:14: error: 'relates' is a string, not a list
dtk: 1 error; nothing was written" "$(cat "$scratch/err")"
cp "$scratch/alpha.keep" "$repo/insights/alpha.yaml"

# every command's help: no line over 80 columns; add's required options
# outside brackets; the options every command takes, in every help
for c in $(dtk --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'); do
    long=$(dtk "$c" --help | awk 'length($0) > 80')
    expect "dtk $c --help: no line over 80 columns" "" "$long"
    [ "$c" = merge-driver ] && continue
    dtk "$c" --help | grep -q '^  -q, --quiet ' && ok "dtk $c --help names -q" ||
        ko "dtk $c --help names -q"
done
case $(dtk add --help | head -n 1) in
*"[--title"* | *"[--confidence"*) ko "dtk add's usage: required options not in brackets" ;;
*) ok "dtk add's usage: required options not in brackets" ;;
esac

# -q has one meaning everywhere: nothing on standard output, no note on
# standard error, the exit status as without it; --no-pager is taken by
# every command that can print more than a screen
q=$scratch/q
rm -rf "$q" && cp -R "$repo" "$q"
quiet() {
    local want=$1 out err rc
    shift
    out=$(cd "$q" && dtk "$@" 2>"$scratch/qerr"); rc=$?
    err=$(cat "$scratch/qerr")
    expect "dtk $*: exit $want, nothing printed" "$want::" "$rc:$out:$err"
}
quiet 0 reindex -q
quiet 0 check -q
quiet 0 show -q alpha
quiet 0 list -q --no-pager
quiet 0 search -q --no-pager alpha
quiet 1 search -q zzzqqqxxx
quiet 0 next-id -q alpha
quiet 0 log -q --no-pager
quiet 0 crystallize -q --no-pager --plan --date 2026-08-15
quiet 0 export html -q "$scratch/site"
quiet 0 use -q --no-pager alpha-001
quiet 0 cite --quiet alpha-001
quiet 0 close -q alpha-001
quiet 0 review -q alpha-001 --date 2026-08-01
quiet 0 verify -q alpha-003 paper-c
quiet 0 relate -q alpha-003 beta-002
quiet 0 contradict -q alpha-003 beta-002 --note n
quiet 0 resolve -q alpha-003 beta-002
quiet 0 stance -q beta s
quiet 0 bloom -q beta apply
quiet 0 add-source -q paper-q --title q
quiet 0 add -q beta --title t --claim c --source paper-q --confidence low
quiet 0 add-node -q delta --category 策略
quiet 0 use -q alpha-001 --dry-run
echo "a line by hand" >>"$q/INDEX.md"
quiet 1 check -q
out=$(cd "$q" && dtk mcp -q </dev/null 2>&1); rc=$?
expect "dtk mcp -q: exit 0" "0:" "$rc:$out"
for c in next-id export setup-git mcp; do
    err=$(cd "$q" && dtk "$c" --no-pager 2>&1 >/dev/null)
    case $err in
    *"unknown option '--no-pager'"*) ok "dtk $c (one screen at most) takes no --no-pager" ;;
    *) ko "dtk $c (one screen at most) takes no --no-pager" "$err" ;;
    esac
done

# more files in insights/ than the limit: said as the base's errors are
many=$scratch/many
cp -R "$SRC/tests/fixtures/base" "$many"
(cd "$many/insights" && seq 1 100001 | sed 's/$/.txt/' | xargs touch) ||
    ko "make 100,001 files"
for c in check "show alpha"; do
    # shellcheck disable=SC2086 # the command and its argument
    err=$(cd "$many" && dtk $c 2>&1 >/dev/null); rc=$?
    expect "dtk $c, 100,001 files: exit 2, the folder named as the base names it" \
        "2:insights:1:1: error: the folder holds more than 100000 files" "$rc:${err%%$'\n'*}"
done
rm -rf "$many"

t_done
