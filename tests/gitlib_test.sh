#!/usr/bin/env bash
# gitlib_test.sh DTK SOURCE_DIR: dtk links libgit2 as any program does: the
# binary has a DT_NEEDED entry for it (so a package manager sees the
# dependency), and the git commands work in a scratch repository made from
# tests/fixtures/base. Prints one line per check and "N passed, M failed"
# last; exits non-zero when any check failed.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
command -v readelf >/dev/null || { echo "readelf is not installed" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo gitlib
git -C "$repo" add -A
git -C "$repo" commit -q -m "the base"

needed=$(readelf -d "$DTK" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if printf '%s\n' "$needed" | grep -q '^libgit2'; then
    ok "dtk has a NEEDED entry for libgit2"
else
    ko "dtk has a NEEDED entry for libgit2" "$needed"
fi

out=$(cd "$repo" && "$DTK" log 2>&1)
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q "$(git -C "$repo" rev-parse --short=7 HEAD)"; then
    ok "dtk log names the commit"
else
    ko "dtk log names the commit" "$out"
fi
# check's diff of a drifted INDEX.md is libgit2's buffer diff
sed -i 's/^bloom: apply$/bloom: analyze/' "$repo/insights/alpha.yaml"
out=$(cd "$repo" && "$DTK" check 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -Eq '^\+\| alpha \| analyze'; then
    ok "dtk check on a drifted INDEX.md: exit 1 and the diff"
else
    ko "dtk check on a drifted INDEX.md: exit 1 and the diff" "exit $rc" "$out"
fi

t_done
