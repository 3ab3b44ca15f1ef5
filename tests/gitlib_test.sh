#!/usr/bin/env bash
# gitlib_test.sh DTK SOURCE_DIR: libgit2 is loaded at run time, only by the
# commands that use git (src/gitlib.c): the binary has no DT_NEEDED entry for
# it, git commands work in a scratch repository made from tests/fixtures/base,
# commands without git never load it, and with DTK_LIBGIT2 naming a missing
# or wrong library the git commands fail with "cannot load libgit2" (exit 2)
# while the others still work. DTK_TEST_LIBGIT2, when set, is a path of the
# real library (CMake passes the one it found) to load through DTK_LIBGIT2.
# Prints one line per check and "N passed, M failed" last; exits non-zero
# when any check failed.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
command -v readelf >/dev/null || { echo "readelf is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo gitlib
unset DTK_LIBGIT2
git -C "$repo" add -A
git -C "$repo" commit -q -m "the base"

# expect NAME STATUS PATTERN [VAR=VALUE...] -- DTK-ARGS...: runs dtk in the
# repository (with the variables set) and checks its exit status and that
# its standard output and error together match PATTERN (grep -E; "" for any).
expect()
{
    local name=$1 want=$2 pat=$3 vars=() rc
    shift 3
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    (cd "$repo" && env "${vars[@]}" "$DTK" "$@") >"$scratch/out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        ko "$name: exit $want" "exit $rc" "$(head -n 20 "$scratch/out")"
    elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$scratch/out"; then
        ko "$name: output matches '$pat'" "$(head -n 20 "$scratch/out")"
    else
        ok "$name: exit $want${pat:+, output matches '$pat'}"
    fi
}

# 1. The binary: no DT_NEEDED entry for libgit2 (but it has entries: the
#    check reads what it thinks it reads). Built with DTK_LINK_LIBGIT2=ON
#    (DTK_TEST_LINKED=1): it has one, the git commands work, and the checks
#    of run-time loading (2, 4, 5) do not apply; they are skipped.
needed=$(readelf -d "$DTK" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ "${DTK_TEST_LINKED:-0}" = 1 ]; then
    if printf '%s\n' "$needed" | grep -q '^libgit2'; then
        ok "dtk (DTK_LINK_LIBGIT2=ON) has a NEEDED entry for libgit2"
    else
        ko "dtk (DTK_LINK_LIBGIT2=ON) has a NEEDED entry for libgit2" "$needed"
    fi
    expect "dtk log" 0 "$(git -C "$repo" rev-parse --short=7 HEAD)" -- log
    expect "dtk log, DTK_LIBGIT2 ignored when linked" 0 \
        "$(git -C "$repo" rev-parse --short=7 HEAD)" DTK_LIBGIT2="$scratch/none.so" -- log
    sed -i 's/^bloom: apply$/bloom: analyze/' "$repo/insights/alpha.yaml"
    expect "dtk check on a drifted INDEX.md" 1 '^\+\| alpha \| analyze' -- check
    echo "skip - loading libgit2 at run time (DTK_LIBGIT2, no NEEDED entry, a missing" \
        "library): this dtk is built with DTK_LINK_LIBGIT2=ON and links libgit2"
    t_done
    exit
fi
if ! printf '%s\n' "$needed" | grep -q '^libyaml'; then
    ko "readelf -d lists dtk's NEEDED libraries" "$needed"
elif printf '%s\n' "$needed" | grep -q libgit2; then
    ko "dtk has no NEEDED entry for libgit2" "$needed"
else
    ok "dtk has no NEEDED entry for libgit2 ($(printf '%s\n' "$needed" | tr '\n' ' '))"
fi

# 2. Only commands that use git load it (the loader's own log says what it
#    maps; LD_DEBUG goes to standard error).
loads()
{
    (cd "$repo" && LD_DEBUG=files "$DTK" "$@" 2>&1 >/dev/null) | grep -q 'file=libgit2'
}
for args in "--version" "show alpha" "list" "reindex --stdout" "check -q"; do
    # shellcheck disable=SC2086
    if loads $args; then ko "dtk $args does not load libgit2"
    else ok "dtk $args does not load libgit2"; fi
done
if loads log; then ok "dtk log loads libgit2"
else ko "dtk log loads libgit2" "LD_DEBUG=files shows no libgit2"; fi

# 3. git commands work: the history of runs, and check's diff of a drifted
#    INDEX.md (libgit2's buffer diff).
expect "dtk log" 0 "$(git -C "$repo" rev-parse --short=7 HEAD)" -- log
expect "dtk log with DTK_LIBGIT2 empty (the default)" 0 "" DTK_LIBGIT2= -- log
sed -i 's/^bloom: apply$/bloom: analyze/' "$repo/insights/alpha.yaml"
expect "dtk check on a drifted INDEX.md" 1 '^\+\| alpha \| analyze' -- check
if [ -n "${DTK_TEST_LIBGIT2:-}" ]; then
    expect "dtk log with DTK_LIBGIT2=$DTK_TEST_LIBGIT2" 0 \
        "$(git -C "$repo" rev-parse --short=7 HEAD)" DTK_LIBGIT2="$DTK_TEST_LIBGIT2" -- log
else
    echo "skip - DTK_TEST_LIBGIT2 is not set: loading libgit2 by path is not tested"
fi

# 4. DTK_LIBGIT2 naming a file that does not exist: the git commands fail
#    (exit 2) saying why; show and reindex do not need libgit2 and work.
bad=$scratch/no/libgit2.so.1.5
msg="error: cannot load libgit2 \\($bad\\): .*No such file"
expect "dtk log, libgit2 missing" 2 "^dtk log: $msg" DTK_LIBGIT2="$bad" -- log
# drift is drift without libgit2 too (exit 1): only the diff is not shown
expect "dtk check on a drifted INDEX.md, libgit2 missing" 1 \
    "^dtk check: warning: no diff shown: cannot load libgit2" DTK_LIBGIT2="$bad" -- check
expect "dtk crystallize --plan, libgit2 missing" 2 "^dtk crystallize: $msg" \
    DTK_LIBGIT2="$bad" -- crystallize --plan
expect "dtk setup-git, libgit2 missing" 2 "^dtk setup-git: $msg" DTK_LIBGIT2="$bad" -- setup-git
if [ ! -e "$repo/.gitattributes" ]; then ok "setup-git wrote nothing"
else ko "setup-git wrote nothing" "$(cat "$repo/.gitattributes")"; fi
: >"$repo/o"; : >"$repo/a"; : >"$repo/b"
expect "dtk merge-driver, libgit2 missing" 1 "^dtk merge-driver: $msg" DTK_LIBGIT2="$bad" \
    -- merge-driver o a b INDEX.md
rm -f "$repo/o" "$repo/a" "$repo/b"
cp "$repo/insights/beta.yaml" "$scratch/beta.yaml"
sed -i 's/^  - id: beta-002$/  - id: beta-001/' "$repo/insights/beta.yaml"
expect "dtk check --format github on invalid data, libgit2 missing" 2 \
    "^dtk check: warning: cannot load libgit2 \\($bad\\)" DTK_LIBGIT2="$bad" \
    -- check --format github
cp "$scratch/beta.yaml" "$repo/insights/beta.yaml"
expect "dtk show, libgit2 missing" 0 "^alpha" DTK_LIBGIT2="$bad" -- show alpha
expect "dtk --version, libgit2 missing" 0 "^dtk " DTK_LIBGIT2="$bad" -- --version
expect "dtk reindex, libgit2 missing" 0 "" DTK_LIBGIT2="$bad" -- reindex -q
if grep -q '^| alpha | analyze' "$repo/INDEX.md"; then ok "reindex wrote INDEX.md"
else ko "reindex wrote INDEX.md" "$(grep '^| alpha' "$repo/INDEX.md")"; fi
expect "dtk check on an INDEX.md in sync, libgit2 missing" 0 "" DTK_LIBGIT2="$bad" -- check -q

# 5. DTK_LIBGIT2 naming a library that is not libgit2 (libyaml, which dtk
#    links): refused at the first missing function.
yaml=$(cd "$repo" && LD_DEBUG=libs "$DTK" --version 2>&1 >/dev/null |
    sed -n 's/.*trying file=\(.*libyaml[^ ]*\.so[^ ]*\).*/\1/p' | head -n 1)
if [ -n "$yaml" ] && [ -f "$yaml" ]; then
    expect "dtk log with DTK_LIBGIT2=$yaml" 2 \
        "^dtk log: error: cannot load libgit2 \\($yaml\\): .*undefined symbol: git_" \
        DTK_LIBGIT2="$yaml" -- log
else
    ko "LD_DEBUG=libs shows where libyaml was found" "$yaml"
fi

t_done
