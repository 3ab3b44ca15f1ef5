# lib.sh: what the shell tests share; source it, then call t_args "$@".
#   t_args DTK SOURCE_DIR  sets DTK (absolute), SRC, and puts DTK's folder
#                          first on PATH (NO_COLOR set)
#   ok NAME / ko NAME [DETAIL...]  count a check that passed / failed
#   t_done                 prints "N passed, M failed"; the script's status
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

t_done() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
