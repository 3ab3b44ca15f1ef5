# lib.sh: what the shell tests share; source it, then call t_args "$@".
#   t_args DTK SOURCE_DIR  sets DTK (absolute), SRC, and puts DTK's folder
#                          first on PATH (NO_COLOR set)
#   ok NAME / ko NAME [DETAIL...]  count a check that passed / failed
#   skip NAME WHY          a check that could not run here (a tool missing);
#                          under CI (CI set) it counts as failed: CI installs
#                          every tool (scripts/deps --ci)
#   t_done                 prints "N passed, M failed, K skipped"; the script's
#                          status: 0, 1 when a check failed, 77 (CTest's
#                          SKIP_RETURN_CODE) when every check was skipped
#   t_repo NAME            makes $scratch (removed on exit) and in it $repo,
#                          a git repository holding tests/fixtures/base and
#                          no commit, with git's settings isolated from the
#                          machine's and an author and committer set
t_args() {
    if [ $# -ne 2 ]; then
        echo "usage: $0 <dtk binary> <source dir>" >&2
        exit 2
    fi
    DTK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    SRC=$(cd "$2" && pwd)
    [ -x "$DTK" ] || { echo "not executable: $DTK" >&2; exit 2; }
    PATH=$(dirname "$DTK"):$PATH
    export PATH NO_COLOR=1
}

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; shift; printf '       %s\n' "$@"; }

skipped=0
skip() {
    if [ -n "${CI:-}" ]; then ko "$1" "not run under CI: $2"; return; fi
    skipped=$((skipped + 1)); echo "skip - $1: $2"
}

t_done() {
    echo "$pass passed, $fail failed, $skipped skipped"
    [ "$fail" -eq 0 ] || exit 1
    [ "$pass" -gt 0 ] || [ "$skipped" -eq 0 ] || exit 77
    exit 0
}

t_repo() {
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-$1.XXXXXX") || exit 2
    trap 'rm -rf "$scratch"' EXIT
    repo=$scratch/repo
    cp -R "$SRC/tests/fixtures/base" "$repo"
    export GIT_CONFIG_NOSYSTEM=1 HOME=$scratch GIT_AUTHOR_NAME=t \
        GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
    unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
    git -C "$repo" init -q
}
