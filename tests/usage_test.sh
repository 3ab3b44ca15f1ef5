#!/usr/bin/env bash
# usage_test.sh DTK SOURCE_DIR: every argument error has one shape,
#   dtk <command>: error: <message>
#   see 'dtk <command> --help'
# exit 2, nothing on standard output, never the usage nor getopt's wording;
# conflicting options are refused with the reason; nothing is written.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo usage
base=$repo

# t EXPECTED_STDERR ARGS...: dtk ARGS in the base exits 2 with exactly
# EXPECTED_STDERR (a trailing newline added) and an empty standard output.
t() {
    local want=$1 out err rc
    shift
    out=$(cd "$base" && "$DTK" "$@" 2>"$scratch/err")
    rc=$?
    err=$(cat "$scratch/err")
    if [ "$rc" -eq 2 ] && [ "$err" = "$want" ] && [ -z "$out" ]; then
        ok "dtk $*"
    else
        ko "dtk $*" "exit $rc" "stderr: $err" "want:   $want" "stdout: $out"
    fi
}

see() { printf "dtk %s: error: %s\nsee 'dtk %s --help'" "$1" "$2" "$1"; }
top() { printf "dtk: error: %s\nsee 'dtk --help'" "$1"; }

# global options and commands
t "$(top "option '-C' needs a directory")" -C
t "$(top "unknown option '--bogus'")" --bogus
t "$(top "unknown option '-x'")" -x list
t "$(top "no command given")"
t "$(top "'reindx' is not a dtk command; did you mean 'reindex'?")" reindx
t "$(top "'lsit' is not a dtk command; did you mean 'list'?")" help lsit
t "$(see help "unexpected argument 'y'")" help list y

# unknown options, missing values, values given to flags, ambiguity
t "$(see list "unknown option '--bogus'")" list --bogus
t "$(see list "unknown option '--nodes-of'; did you mean '--nodes'?")" list --nodes-of
t "$(see list "unknown option '--frobnicate'")" list --frobnicate
t "$(see list "unknown option '--candidtes'; did you mean '--candidates'?")" list --candidtes
t "$(see list "unknown option '-x'")" list -x
t "$(see crystallize "unknown option '-f'; did you mean '--format'?")" crystallize -f json
t "$(see list "option '--confidence' needs a value")" list --confidence
t "$(see list "option '-n' needs a value")" list -n
t "$(see list "option '--candidates' takes no value")" list --candidates=yes
t "$(see list "option '--c' is ambiguous; it could be '--confidence' or '--candidates'")" list --c x
t "$(see check "unknown option '--colour'; did you mean '--color'?")" check --colour=always -q

# values out of their set, with a did-you-mean when one is close
t "$(see list "--confidence must be high, medium or low, not 'HIGH'; did you mean 'high'?")" \
    list --confidence HIGH
t "$(see list "--format must be text, json, jsonl or ids, not 'yaml'")" list --format yaml
t "$(see list "--since must be a date (YYYY-MM-DD), not '2026-13-01'")" list --since 2026-13-01
t "$(see show "--format must be text or json, not 'jsno'; did you mean 'json'?")" show -f jsno alpha
t "$(see show "--color must be auto, always or never, not 'blue'")" show --color blue alpha
t "$(see check "--format must be text or github, not 'githib'; did you mean 'github'?")" \
    check --format=githib
t "$(see log "--format must be text or json, not 'yaml'")" log -f yaml
t "$(see export "the format must be html, not 'pdf'")" export pdf x
t "$(see export "the format must be html, not 'HTML'; did you mean 'html'?")" export HTML x
t "$(see crystallize "--date must be a date (YYYY-MM-DD), not 'today'")" crystallize --plan --date today
t "$(see crystallize "--eval must be SCENARIO=VERDICT, not 'scenario-001'")" \
    crystallize --eval scenario-001

# operands: missing, unexpected, malformed
t "$(see list "unexpected argument 'extra'")" list extra
t "$(see check "unexpected argument 'INDEX.md'")" check INDEX.md
t "$(see reindex "unexpected argument 'now'")" reindex now
t "$(see log "unexpected argument 'HEAD'")" log HEAD
t "$(see show "missing <node|entry-id>")" show
t "$(see show "unexpected argument 'beta'")" show alpha beta
t "$(see show "'../INDEX' is not a node name or entry id")" show ../INDEX
t "$(see next-id "missing <node>")" next-id
# only what is missing: the operands given are not named again
t "$(see confidence "missing <level> <entry-id>...")" confidence
t "$(see confidence "missing <entry-id>...")" confidence high
t "$(see relate "missing <other-id>")" relate alpha-001
# the operands as the command's entry declares them, checked before it runs
t "$(see close "missing <entry-id>")" close
t "$(see use "missing <entry-id>")" use
t "$(see similar "missing <text>")" similar
t "$(see gap "missing <action> <text|gap>")" gap
t "$(see gap "missing <text|gap>")" gap add
t "$(see gap "<action> must be add, edit, close or remove, not 'ad'; did you mean 'add'?")" gap ad x
t "$(see hotspot "missing <action> <node|hotspot>")" hotspot
t "$(see sync "unexpected argument 'b'")" sync a b
# an option's operands: confidence --qualified takes the level only
t "$(see confidence "unexpected argument 'alpha-001'")" confidence --qualified high alpha-001
t "$(see crystallize "unexpected argument 'b'")" crystallize --amend a b
t "$(see next-id "'insights/alpha.yaml' is not a node name; did you mean 'alpha'?")" \
    next-id insights/alpha.yaml
t "$(see next-id "unknown option '--width'")" next-id --width 4 alpha
t "$(see export "missing the format (html) and <dir>")" export
t "$(see export "missing <dir>")" export html
t "$(see export "unexpected argument 'more'")" export html site more
t "$(see crystallize "a run needs --eval SCENARIO=VERDICT (or --plan for the worklist)")" crystallize
t "$(see crystallize "unexpected argument 'now'")" crystallize --plan now
t "$(see setup-git "unexpected argument 'now'")" setup-git now
t "$(see merge-driver "missing <theirs> (git passes %O %A %B %P)")" merge-driver a b
# a file it cannot read: an error (2), not a conflict (1)
t "dtk merge-driver: error: cannot open /nonexistent/a: No such file or directory" \
    merge-driver /nonexistent/a b c insights/x.yaml

# a list over its limit: refused, not written without it
many=()
for _ in $(seq 257); do many+=(--relates alpha-001); done
t "$(see add "at most 256 ids in a list")" \
    add beta --title t --claim c --source paper-a --confidence low "${many[@]}"

# an operand that starts with '-': named whole, with '--', which ends the options
dash="is not an option: put '--' before an argument that starts with '-' ('--' ends the options)"
t "$(see stance "'- item' $dash")" stance beta "- item"
t "$(see stance "'-5 %' $dash")" stance beta "-5 %"
t "$(see stance "'--- rule' $dash")" stance beta "--- rule"
t "$(see search "'-通信' $dash")" search -通信

# values that name nothing in the base: the error and the closest name
t "dtk list: error: no node 'alph'; did you mean 'alpha'?" list --node alph
t "dtk list: error: no node 'bet'; did you mean 'beta'?" list --node bet

# conflicting or repeated options, refused with the reason
why_plan="--plan prints the worklist and records nothing"
t "$(see crystallize "--plan and --eval cannot be used together: $why_plan")" \
    crystallize --plan --eval s=ok
t "$(see crystallize "--plan and --review cannot be used together: $why_plan")" \
    crystallize --plan --review r.yaml
t "$(see crystallize "--plan and --dry-run cannot be used together: --plan never writes")" \
    crystallize --plan --dry-run
t "$(see crystallize "--dry-run and --no-commit cannot be used together: --dry-run writes nothing, --no-commit writes the files")" \
    crystallize --eval s=ok --dry-run --no-commit
t "$(see crystallize "--no-commit and --author cannot be used together: --no-commit makes no commit")" \
    crystallize --eval s=ok --no-commit --author 'A <a@b>'
t "$(see crystallize "--dry-run and --gpg-sign cannot be used together: no commit is made")" \
    crystallize --eval s=ok --dry-run --gpg-sign
t "$(see crystallize "--plan and --no-verify cannot be used together: no commit is made")" \
    crystallize --plan --no-verify
t "$(see crystallize "--format applies to --plan only (a run prints one line)")" \
    crystallize --eval s=ok --format json
t "$(see setup-git "--dtk /nonexistent/dtk: No such file or directory")" \
    setup-git --dtk /nonexistent/dtk
t "$(see setup-git "--dtk $base/INDEX.md: not an executable file")" setup-git --dtk "$base/INDEX.md"
t "$(see setup-git "--dtk given twice")" setup-git --dtk "$DTK" --dtk "$DTK"

# a refusal writes nothing: the base is byte for byte as it was
if [ -z "$(cd "$base" && git status --porcelain --ignored --untracked-files=all | grep -v '^?? ')" ] &&
    ! [ -e "$base/.gitattributes" ] && ! git -C "$base" config merge.dtk-index.driver >/dev/null &&
    diff -r -x .git "$SRC/tests/fixtures/base" "$base" >/dev/null; then
    ok "the refusals wrote nothing"
else
    ko "the refusals wrote nothing" "$(diff -r -x .git "$SRC/tests/fixtures/base" "$base")"
fi

# help for help, as documented
out=$("$DTK" help help) && [ "${out%%$'\n'*}" = "usage: dtk help [<command>]" ] &&
    ok "dtk help help" || ko "dtk help help" "$out"
out=$("$DTK" help --help) && [ "${out%%$'\n'*}" = "usage: dtk help [<command>]" ] &&
    ok "dtk help --help" || ko "dtk help --help" "$out"

t_done
