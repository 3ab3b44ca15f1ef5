#!/usr/bin/env bash
# examples_test.sh DTK SOURCE_DIR: every example of every command's --help,
# of the manual page's EXAMPLES and of README.md's and docs/*.md's ```sh
# blocks runs on a copy of
# the shipped base (a git repository with one commit) and does what the text
# says: exit 0 (or the "# exit N" its comment names), the output a "# word"
# comment or the lines after a "$ command" give. Examples that are not dtk's
# (the first word neither dtk, echo nor cd: "claude mcp add ...") are
# skipped and counted.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-examples.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$scratch GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org DTK_PAGER=cat
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
pristine=$scratch/pristine
mkdir "$pristine"
cp -R "$SRC/insights" "$SRC/INDEX.md" "$pristine/"
(cd "$pristine" && git init -q && git add -A && git commit -q -m base) || exit 2
n=0 skipped=0

# run NAME SCRIPT: runs SCRIPT (bash) in a new copy of the base; checks the
# exit status against the last "# exit N" comment of it (0 without one)
run() {
    local name=$1 script=$2 want=0 dir rc
    n=$((n + 1))
    dir=$scratch/ex-$n
    cp -R "$pristine" "$dir"
    case $script in *"# exit "[0-9]*) want=$(sed -n 's/.*# exit \([0-9]\).*/\1/p' <<<"$script" | tail -n 1) ;; esac
    (cd "$dir" && bash -e -o pipefail -c "$script") >"$scratch/out" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name"
    else ko "$name" "exit $rc, want $want" "$(head -n 15 "$scratch/out")"; fi
}

# one_word NAME LINE: a single-line example "cmd   # word" prints word
one_word() {
    local cmd=${2%%#*} word=${2##*# } dir=$scratch/w
    rm -rf "$dir" && cp -R "$pristine" "$dir"
    got=$(cd "$dir" && bash -c "$cmd" 2>/dev/null)
    if [ "$got" = "$word" ]; then ok "$1: prints $word"
    else ko "$1: prints $word" "got: $got"; fi
}

dtk_example() {
    case $1 in dtk\ * | echo\ * | cd\ *) return 0 ;; esac
    return 1
}

# ---- every command's --help: each example (a line indented by two spaces,
# with the lines indented more that continue it) on its own copy
for cmd in $("$DTK" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'); do
    "$DTK" "$cmd" --help | awk '/^examples:/ { on = 1; next } /^$/ { on = 0 } on' >"$scratch/ex"
    [ "$cmd" = merge-driver ] && continue # run by git, with git's arguments
    [ -s "$scratch/ex" ] || { ko "dtk $cmd --help has examples"; continue; }
    script=""
    while IFS= read -r line || [ -n "$line" ]; do
        if [[ $line == "  "[^\ ]* ]]; then
            if [ -n "$script" ]; then
                if dtk_example "$script"; then run "dtk $cmd --help: ${script%%$'\n'*}" "$script"
                else skipped=$((skipped + 1)); fi
            fi
            script=${line#  }
        else
            script+=$'\n'${line#  }
        fi
    done <"$scratch/ex"
    if dtk_example "$script"; then
        run "dtk $cmd --help: ${script%%$'\n'*}" "$script"
        case $script in
        *$'\n'*) ;;
        *"# "[a-z0-9]*) [[ ${script##*# } == *" "* ]] || one_word "dtk $cmd --help" "$script" ;;
        esac
    else
        skipped=$((skipped + 1))
    fi
done

# ---- the manual page: each .EX block is one session
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" "$SRC/docs/dtk.1" |
    awk '/^\.SH EXAMPLES/ { on = 1 } /^\.SH SEE ALSO/ { on = 0 }
        on && /^\.EX/ { ex = 1; next } on && /^\.EE/ { ex = 0; print "%%"; next }
        ex' >"$scratch/man"
script=""
while IFS= read -r line; do
    if [ "$line" = "%%" ]; then
        run "dtk.1 EXAMPLES: ${script%%$'\n'*} ..." "$script"
        script=""
    else
        script+=${script:+$'\n'}$line
    fi
done <"$scratch/man"

# ---- README.md and docs/*.md: each ```sh block is an example. One with
# "$ " prompts is a session on one copy of the base: each command runs in
# turn, and the lines that follow a command, when there are any, are its
# output (standard output and error); one without prompts is a script, run
# as the --help examples are when it is dtk's (its first word dtk, echo or
# cd), else skipped and counted
session=$scratch/session
check_session_cmd() { # the last command and the output it should give
    [ -n "$rcmd" ] || return 0
    local want=0 got rc
    case $rcmd in *"# exit "[0-9]*) want=$(sed -n 's/.*# exit \([0-9]\).*/\1/p' <<<"$rcmd") ;; esac
    got=$(cd "$session" && PATH=$(dirname "$DTK"):$PATH bash -o pipefail -c "${rcmd//build\/dtk/dtk}" 2>&1)
    rc=$?
    n=$((n + 1))
    if [ "$rc" -ne "$want" ]; then ko "$doc: $rcmd" "exit $rc, want $want" "$(head -n 15 <<<"$got")"
    elif [ -n "$rwant" ] && [ "$got" != "$rwant" ]; then ko "$doc: $rcmd" "got: $got" "want: $rwant"
    else ok "$doc: $rcmd"; fi
    rcmd="" rwant=""
}
# run_session FILE: the session in FILE, one block's lines
run_session() {
    rm -rf "$session" && cp -R "$pristine" "$session"
    rcmd="" rwant=""
    while IFS= read -r line; do
        case $line in
        '$ '*) check_session_cmd; rcmd=${line#\$ } ;;
        "") check_session_cmd ;;
        *) [ -n "$rcmd" ] && rwant+=${rwant:+$'\n'}$line ;;
        esac
    done <"$1"
    check_session_cmd
}
for f in "$SRC"/README.md "$SRC"/docs/*.md; do
    doc=${f#"$SRC"/}
    rm -rf "$scratch/blocks" && mkdir "$scratch/blocks"
    awk -v d="$scratch/blocks" '/^```sh$/ { on = 1; k++; next } /^```$/ { on = 0 }
        on { print > (d "/" k) }' "$f"
    for b in $(ls "$scratch/blocks" | sort -n); do
        b=$scratch/blocks/$b
        if grep -q '^\$ ' "$b"; then
            run_session "$b"
        elif dtk_example "$(head -n 1 "$b")"; then
            run "$doc: $(head -n 1 "$b") ..." "$(cat "$b")"
        else
            skipped=$((skipped + 1))
        fi
    done
done

echo "skipped (not dtk's): $skipped"
t_done
