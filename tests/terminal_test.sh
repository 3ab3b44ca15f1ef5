#!/usr/bin/env bash
# terminal_test.sh DTK SOURCE_DIR: output on a terminal (a pseudo-terminal
# made by script(1)): check's diff in colour (NO_COLOR, --color), the
# changed part of a line marked (and --word-diff); show, list and log
# through the pager (DTK_PAGER, PAGER, LESS=FRX, -P, --no-pager), never when
# standard output is not a terminal.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
unset NO_COLOR DTK_PAGER PAGER LESS LV
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-terminal.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
base=$scratch/base
cp -R "$SRC/tests/fixtures/base" "$base"
sed -i 's/stance: 按延迟分层/stance: 按带宽分层/' "$base/insights/beta.yaml"
ESC=$'\033'

# tty CMD...: runs CMD in the base with a terminal as standard output;
# prints what the terminal got, line breaks as \n
tty() {
    (cd "$base" && script -qec "$*" /dev/null) | tr -d '\r'
}
has() { case $2 in *"$3"*) ok "$1" ;; *) ko "$1" "want: $3" "got:  $2" ;; esac; }
hasnt() { case $2 in *"$3"*) ko "$1" "unwanted: $3" "got:  $2" ;; *) ok "$1" ;; esac; }

# without a terminal: plain, as before
out=$(cd "$base" && dtk check 2>/dev/null)
has "check, no terminal: the plain diff" "$out" $'\n-| beta | evaluate | 2 | 暂定：按延迟分层 |\n'
hasnt "check, no terminal: no colour" "$out" "$ESC"
out=$(cd "$base" && dtk check --word-diff 2>/dev/null)
has "check --word-diff marks the changed cell's words" "$out" \
    $'\n| beta | evaluate | 2 | 暂定：按[-延迟-]{+带宽+}分层 |\n'
hasnt "check --word-diff: no -/+ lines for the pair" "$out" $'\n-| beta'
out=$(cd "$base" && dtk check --color always 2>/dev/null)
has "check --color: colour without a terminal" "$out" "$ESC[31m-| beta"
has "check --color: the changed part in reverse video" "$out" \
    "$ESC[32m+| beta | evaluate | 2 | 暂定：按$ESC[7m带宽$ESC[27m分层 |$ESC[m"
has "check --color: hunk headers in cyan" "$out" "$ESC[36m@@ "
out=$(cd "$base" && NO_COLOR=1 dtk check --color=always 2>/dev/null)
has "check --color=always beats NO_COLOR" "$out" "$ESC[31m"

if ! command -v script >/dev/null 2>&1; then
    skip "the pseudo-terminal checks" "script(1) is not installed"
    t_done
    exit
fi
out=$(tty dtk check)
has "check on a terminal: in colour" "$out" "$ESC[31m-| beta"
out=$(tty NO_COLOR=1 dtk check)
hasnt "check on a terminal, NO_COLOR=1: no colour" "$out" "$ESC"
out=$(tty dtk check --color=never)
hasnt "check on a terminal, --color=never: no colour" "$out" "$ESC"

# the pager: DTK_PAGER first, then PAGER; LESS and LV set for it
out=$(tty DTK_PAGER="'sed s/^/P:/'" dtk list --node beta)
has "list on a terminal goes through DTK_PAGER" "$out" $'P:beta-001\tmedium'
out=$(tty PAGER="'sed s/^/Q:/'" dtk show --color=never beta)
has "show on a terminal goes through PAGER" "$out" "Q:beta  [策略]"
out=$(tty DTK_PAGER="'sed s/^/P:/'" PAGER="'sed s/^/Q:/'" dtk show beta)
has "DTK_PAGER before PAGER; colour kept through the pager" "$out" "P:$ESC[1mbeta"
out=$(tty DTK_PAGER="'echo LESS=\$LESS LV=\$LV; cat'" dtk list --nodes)
has "the pager gets LESS=FRX and LV=-c" "$out" "LESS=FRX LV=-c"
out=$(tty LESS=R DTK_PAGER="'echo LESS=\$LESS; cat'" dtk list --nodes)
has "a LESS of the user's is kept" "$out" "LESS=R"$'\n'
out=$(tty DTK_PAGER="'sed s/^/P:/'" dtk -P list --node beta)
hasnt "dtk -P: no pager" "$out" "P:"
out=$(tty DTK_PAGER="'sed s/^/P:/'" dtk --no-pager show beta)
hasnt "dtk --no-pager: no pager" "$out" "P:"
out=$(tty DTK_PAGER="'sed s/^/P:/'" dtk list --no-pager --node beta)
hasnt "list --no-pager: no pager" "$out" "P:"
out=$(tty DTK_PAGER= PAGER="'sed s/^/Q:/'" dtk list --node beta)
hasnt "DTK_PAGER empty: no pager" "$out" "Q:"
out=$(tty DTK_PAGER=cat dtk list --node beta)
has "DTK_PAGER=cat: straight to the terminal" "$out" $'beta-001\tmedium'
out=$(cd "$base" && DTK_PAGER='sed s/^/P:/' dtk list --node beta)
hasnt "not a terminal: no pager" "$out" "P:"
out=$(tty DTK_PAGER="'sed s/^/P:/'" dtk check)
hasnt "check is not paged" "$out" "P:"

t_done
