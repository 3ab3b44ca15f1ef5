#!/usr/bin/env bash
# completion_test.sh DTK SOURCE_DIR: tests completions/dtk.bash (and, when zsh
# is installed, completions/_dtk) on copies of tests/fixtures/base and of the
# shipped base. Prints one line per check and "N passed, M failed" last;
# exits non-zero when any check failed.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-completion.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
cp -R "$SRC/tests/fixtures/base" "$scratch/base"
mkdir "$scratch/shipped" "$scratch/nobase"
cp -R "$SRC/insights" "$SRC/INDEX.md" "$scratch/shipped/"
cp -R "$SRC/tests/fixtures/base" "$scratch/broken"
printf 'node: gamma\nbloom: [\n' >"$scratch/broken/insights/gamma.yaml"

# ---- bash ----

# shellcheck source=../completions/dtk.bash
source "$SRC/completions/dtk.bash"

# complete WORD...: runs _dtk as bash would for a command line whose words
# are the arguments, the last one being the word under the cursor (give ""
# for an empty one). Sets $got to the sorted replies, space-separated, and
# $got_err to what the completion printed on standard error.
complete_words()
{
    local errf="$scratch/stderr"
    COMP_WORDS=("$DTK" "$@")
    COMP_CWORD=$#
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _dtk 2>"$errf"
    got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | sed '/^$/d' | tr '\n' ' ')
    got=${got% }
    got_err=$(cat "$errf")
}

# expect DIR WANT WORD...: completing WORD... inside DIR gives exactly WANT
# (sorted, space-separated) and prints nothing on standard error.
expect()
{
    local dir=$1 want=$2 name
    shift 2
    name="dtk $* [in ${dir#"$scratch"/}]"
    (cd "$dir" && complete_words "$@" && printf '%s\n%s' "$got" "$got_err") >"$scratch/out"
    got=$(head -n 1 "$scratch/out")
    got_err=$(tail -n +2 "$scratch/out")
    if [ "$got" = "$want" ] && [ -z "$got_err" ]; then
        ok "$name -> ${want:-(nothing)}"
    else
        ko "$name" "want: '$want'" "got:  '$got'" "stderr: $got_err"
    fi
}

B=$scratch/base
S=$scratch/shipped
all_commands="add add-node add-source bloom check cite close confidence contradict crystallize edit edit-source export gap help hotspot init list log mcp merge-driver next-id reindex relate resolve retract review search setup-git show similar stance supersede sync unrelate unverify use verify"

expect "$B" "show" sh
expect "$B" "$all_commands" ""
expect "$B" "--help --no-pager --version -C -P -h" -
expect "$B" "reindex" -C "$B" rei
expect "$B" "alpha beta gamma" show ""
expect "$B" "alpha alpha-001 alpha-002 alpha-003" show al
expect "$B" "gamma" show g
expect "$B" "alpha alpha-001 alpha-002 alpha-003" show alpha
expect "$B" "alpha-001 alpha-002 alpha-003" show alpha-00
expect "$B" "beta-002" show --format json beta-002
expect "$B" "" show alpha ""
expect "$B" "json text" show --format ""
expect "$B" "json text" show -f ""
expect "$B" "always auto" show --color a
expect "$B" "--color --compact --format --help --limit --no-pager --quiet" show --
expect "$B" "--format" list --for
expect "$B" "json jsonl" list --format j
expect "$B" "json jsonl" list --format = j
expect "$B" "ids" list --format=i
expect "$B" "alpha beta gamma" list --node ""
expect "$B" "beta" list -n b
expect "$B" "high low medium" list --confidence ""
expect "$B" "" list --since ""
expect "$B" "--candidates --confidence" list --c
expect "$B" "github text" check --format ""
expect "$B" "--quiet" check --qu
# source ids and categories, from the base's files
# verify: not the entry's own source nor its verified_by (verify refuses them)
expect "$B" "docs-d" verify alpha-001 ""
expect "$B" "paper-a paper-c" verify alpha-002 pa
expect "$B" "paper-a paper-b paper-c" add beta --source pa
expect "$B" "paper-a paper-b paper-c" add beta --verified-by=pa
expect "$B" "策略 通信" add-node delta --category ""
# a category name with spaces: one word, quoted for the shell
SP=$scratch/spaces
cp -R "$B" "$SP"
(cd "$SP" && dtk add-node disks --category "Storage structures" >/dev/null)
expect "$SP" 'Storage\ structures' add-node delta --category St
expect "$SP" 'Storage\ structures' add-node delta --category 'Storage\ s'
expect "$B" "alpha-001 alpha-002 alpha-003" add beta --relates alpha-00
own=$(cd "$S" && dtk show collective-communication-001 --format json | jq -r '.source.id, .verified_by[].id')
expect "$S" "$(sed -n 's/^- id: //p' "$S/insights/_sources.yaml" | grep '^nccl' | grep -vxF "$own" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" verify collective-communication-001 nccl
expect "$B" "json text" log --format ""
expect "$B" "json text" crystallize --plan --format ""
expect "$B" "--date --dry-run" crystallize --d
expect "$B" "gamma" next-id g
expect "$B" "" next-id gamma ""
expect "$B" "crystallize" help cr
expect "$B" "html" export ""
mkdir -p "$B/site"
expect "$B" "site" export html si
expect "$B/insights" "alpha beta gamma" show ""
expect "$scratch/nobase" "alpha beta gamma" -C ../base show ""
expect "$scratch/nobase" "alpha-002" -C "$B" show alpha-002
expect "$scratch/nobase" "alpha beta gamma" -C "$scratch" -C base list --node ""
expect "$scratch/nobase" "" show ""
expect "$scratch/broken" "" show alpha-0
# The shipped base grows: what it should offer is read from its files.
shipped_nodes() { (cd "$S/insights" && ls -- "$1"*.yaml 2>/dev/null) | sed 's/\.yaml$//' | tr '\n' ' ' | sed 's/ $//'; }
shipped_ids() { "$DTK" -C "$S" list --node "$1" --format ids | grep "^${2:-}" | tr '\n' ' ' | sed 's/ $//'; }
CC=collective-communication
[ -n "$(shipped_ids $CC $CC-00)" ] || ko "the shipped base has entries $CC-00N to complete"
expect "$S" "$CC $(shipped_ids $CC)" show coll
expect "$S" "$(shipped_nodes co)" show co
expect "$S" "$(shipped_ids $CC $CC-00)" show $CC-00
expect "$S" "$(shipped_nodes tr)" list --node tr

# Every command 'dtk --help' lists, every option of each in 'dtk help <cmd>'
# and the values its usage line gives --format, --color and --confidence
# are completed.
listed=$("$DTK" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
listed=$(printf '%s\nhelp\n' "$listed" | LC_ALL=C sort | tr '\n' ' ')
if [ "${listed% }" = "$all_commands" ]; then
    ok "the commands of 'dtk --help' are completed"
else
    ko "the commands of 'dtk --help' are completed" "dtk --help: ${listed% }" \
        "completed: $all_commands"
fi
for cmd in ${listed% }; do
    [ "$cmd" = help ] && continue
    (cd "$B" && complete_words "$cmd" - && echo "$got") >"$scratch/out"
    offered=" $(cat "$scratch/out") "
    missing=""
    for o in $("$DTK" help "$cmd" | sed -n '1,/^$/p; /^options/,/^$/p' |
        grep -oE '(^|[ [|,])--?[a-zA-Z][a-z-]*' |
        sed 's/^[ [|,]//' | LC_ALL=C sort -u); do
        case $offered in *" $o "*) ;; *) missing="$missing $o" ;; esac
    done
    if [ -z "$missing" ]; then
        ok "dtk $cmd: every option of 'dtk help $cmd' is completed"
    else
        ko "dtk $cmd: every option of 'dtk help $cmd' is completed" "missing:$missing"
    fi
    "$DTK" help "$cmd" | sed -n '1,/^$/p' |
        grep -oE -- '--(format|color|confidence) [a-z]+(\|[a-z]+)+' | sort -u |
        while read -r opt values; do
            want=$(echo "$values" | tr '|' '\n' | LC_ALL=C sort | tr '\n' ' ')
            (cd "$B" && complete_words "$cmd" "$opt" "" && echo "$got") >"$scratch/out"
            if [ "$(cat "$scratch/out")" = "${want% }" ]; then
                echo "ok $opt"
            else
                echo "ko $opt want '${want% }', got '$(cat "$scratch/out")'"
            fi
        done >"$scratch/values"
    while read -r res opt rest; do
        if [ "$res" = ok ]; then ok "dtk $cmd $opt: the values its usage line gives"
        else ko "dtk $cmd $opt: the values its usage line gives" "$rest"; fi
    done <"$scratch/values"
done

# ---- zsh ----

if command -v zsh >/dev/null 2>&1; then
    if err=$(zsh -n "$SRC/completions/_dtk" 2>&1); then
        ok "zsh -n completions/_dtk"
    else
        ko "zsh -n completions/_dtk" "$err"
    fi
    if head -n 1 "$SRC/completions/_dtk" | grep -qx '#compdef dtk'; then
        ok "completions/_dtk starts with '#compdef dtk'"
    else
        ko "completions/_dtk starts with '#compdef dtk'"
    fi
    if zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
        # zcomplete DIR LINE: sets $got to the matches (sorted, space-separated)
        # that completing LINE offers in an interactive zsh (in a pseudo-
        # terminal, compinit with completions/ first in fpath) started in DIR.
        zcomplete()
        {
            got=$(cd "$1" && ZDOTDIR=$scratch timeout 60 zsh -f \
                "$SRC/tests/zsh_complete.zsh" "$SRC/completions" "$2" "$scratch/zcompdump" 2>&1 |
                LC_ALL=C sort -u | sed '/^$/d' | tr '\n' ' ')
            got=${got% }
        }
        # zexpect DIR WANT LINE: completing LINE in DIR offers exactly WANT.
        zexpect()
        {
            zcomplete "$1" "$3"
            if [ "$got" = "$2" ]; then
                ok "zsh: $3 [in ${1#"$scratch"/}] -> ${2:-(nothing)}"
            else
                ko "zsh: $3 [in ${1#"$scratch"/}]" "want: '$2'" "got:  '$got'"
            fi
        }
        zexpect "$B" "show" "dtk sh"
        zexpect "$B" "$all_commands" "dtk "
        zexpect "$B" "--help --no-pager --version -C -P -h" "dtk -"
        zexpect "$B" "alpha beta gamma" "dtk show "
        zexpect "$B" "alpha alpha-001 alpha-002 alpha-003" "dtk show al"
        zexpect "$B" "alpha alpha-001 alpha-002 alpha-003" "dtk show alpha"
        zexpect "$B" "alpha-001 alpha-002 alpha-003" "dtk show alpha-00"
        zexpect "$B" "json jsonl" "dtk list --format j"
        zexpect "$B" "json jsonl" "dtk list --format=j"
        zexpect "$B" "alpha beta gamma" "dtk list --node "
        zexpect "$B" "beta" "dtk list -n b"
        zexpect "$B" "high low medium" "dtk list --confidence "
        zexpect "$B" "github text" "dtk check --format "
        zexpect "$B" "json text" "dtk log --format "
        zexpect "$B" "always auto" "dtk show --color a"
        zexpect "$B" "gamma" "dtk next-id g"
        zexpect "$B" "crystallize" "dtk help cr"
        zexpect "$B" "html" "dtk export "
        zexpect "$B" "docs-d paper-a paper-b paper-c" "dtk verify alpha-001 "
        zexpect "$B" "paper-a paper-b paper-c" "dtk add beta --source=pa"
        zexpect "$B" "paper-a paper-b paper-c" "dtk add beta --verified-by=pa"
        zexpect "$B" "策略 通信" "dtk add-node delta --category="
        zexpect "$B/insights" "alpha beta gamma" "dtk show "
        zexpect "$scratch/nobase" "alpha beta gamma" "dtk -C ../base show "
        zexpect "$scratch/broken" "" "dtk show alpha-0"
        zexpect "$S" "$CC $(shipped_ids $CC)" "dtk show coll"
        zexpect "$S" "$(shipped_nodes co)" "dtk show co"
        zexpect "$S" "$(shipped_ids $CC $CC-00)" "dtk show $CC-00"
        for cmd in ${listed% }; do
            [ "$cmd" = help ] && continue
            zcomplete "$B" "dtk $cmd -"
            offered=" $got "
            missing=""
            for o in $("$DTK" help "$cmd" | sed -n '1,/^$/p; /^options/,/^$/p' |
                grep -oE '(^|[ [|,])--?[a-zA-Z][a-z-]*' | sed 's/^[ [|,]//' | LC_ALL=C sort -u); do
                case $offered in *" $o "*) ;; *) missing="$missing $o" ;; esac
            done
            if [ -z "$missing" ]; then
                ok "zsh: dtk $cmd: every option of 'dtk help $cmd' is completed"
            else
                ko "zsh: dtk $cmd: every option of 'dtk help $cmd' is completed" "missing:$missing"
            fi
        done
    else
        skip "zsh: completion of every command" "zsh has no zsh/zpty module"
    fi
else
    skip "zsh: completions/_dtk" "zsh is not installed"
fi

t_done
