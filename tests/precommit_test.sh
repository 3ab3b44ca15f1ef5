#!/usr/bin/env bash
# precommit_test.sh DTK SOURCE_DIR: tests contrib/pre-commit for real, with
# git commits in a scratch repository made from tests/fixtures/base, the
# built dtk first on PATH; and that docs/ci.md shows contrib/pre-commit and
# contrib/github-workflow.yml exactly. Prints one line per check and
# "N passed, M failed" last; exits non-zero when any check failed.
set -u

command -v git >/dev/null || { echo "git is not installed" >&2; exit 2; }
SYSPATH=$PATH
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo precommit
cp "$SRC/contrib/pre-commit" "$repo/.git/hooks/pre-commit"
chmod +x "$repo/.git/hooks/pre-commit"

head_of() { git -C "$repo" rev-parse -q --verify HEAD 2>/dev/null; }

# commit NAME WANT [GIT-ARGS...]: runs 'git commit -q -m NAME GIT-ARGS' in the
# repository (from its insights/ directory, as a user might) and checks that
# the hook allowed it (WANT=allowed: exit 0, a new HEAD) or refused it
# (WANT=refused: exit non-zero, HEAD unchanged, a message naming the fix).
commit()
{
    local name=$1 want=$2 before after rc
    shift 2
    before=$(head_of)
    (cd "$repo/insights" && git commit -q -m "$name" "$@") >"$scratch/out" 2>&1
    rc=$?
    after=$(head_of)
    if [ "$want" = allowed ]; then
        if [ $rc -eq 0 ] && [ "$after" != "$before" ]; then
            ok "$name: commit allowed"
        else
            ko "$name: commit allowed" "git commit exited $rc" "$(cat "$scratch/out")"
        fi
    else
        if [ $rc -ne 0 ] && [ "$after" = "$before" ] &&
            grep -q "commit refused\|not on PATH" "$scratch/out"; then
            ok "$name: commit refused (exit $rc)"
        else
            ko "$name: commit refused" "git commit exited $rc; HEAD $before -> $after" \
                "$(cat "$scratch/out")"
        fi
    fi
}

# 1. A valid base with its INDEX.md: allowed.
git -C "$repo" add -A
commit "valid base" allowed

# 2. INDEX.md made stale (a node's bloom changed, no reindex): refused; the
#    message says to run dtk reindex. Then dtk reindex: allowed.
sed -i 's/^bloom: apply$/bloom: analyze/' "$repo/insights/alpha.yaml"
commit "stale INDEX.md" refused -a
if grep -q "dtk reindex" "$scratch/out"; then ok "the refusal says to run dtk reindex"
else ko "the refusal says to run dtk reindex" "$(cat "$scratch/out")"; fi
if grep -q "^+| alpha | analyze" "$scratch/out"; then ok "the refusal shows INDEX.md's diff"
else ko "the refusal shows INDEX.md's diff" "$(cat "$scratch/out")"; fi
(cd "$repo" && dtk reindex -q)
commit "after dtk reindex" allowed -a
if [ -z "$(git -C "$repo" status --porcelain)" ]; then ok "the work tree is clean after the commit"
else ko "the work tree is clean after the commit" "$(git -C "$repo" status --porcelain)"; fi

# 3. INDEX.md edited by hand: refused; restored: allowed with other changes.
echo "hand edit" >>"$repo/INDEX.md"
commit "INDEX.md edited by hand" refused -a
git -C "$repo" checkout -q -- INDEX.md
echo "notes" >"$repo/NOTES.txt"
git -C "$repo" add NOTES.txt
commit "a change outside the base" allowed

# 4. Invalid data: refused (dtk check exits 2), the error is shown.
cp "$repo/insights/beta.yaml" "$scratch/beta.yaml"
sed -i 's/^  - id: beta-002$/  - id: beta-001/' "$repo/insights/beta.yaml"
commit "invalid data" refused -a
if grep -q "insights/beta.yaml:[0-9]*:[0-9]*: error:" "$scratch/out"; then
    ok "the refusal shows the data's errors"
else
    ko "the refusal shows the data's errors" "$(cat "$scratch/out")"
fi
cp "$scratch/beta.yaml" "$repo/insights/beta.yaml"

# 5. What is staged is checked, not the work tree: a change staged without
#    its INDEX.md is refused though the work tree was reindexed; staging
#    INDEX.md too is allowed.
sed -i 's/^bloom: analyze$/bloom: evaluate/' "$repo/insights/alpha.yaml"
git -C "$repo" add insights/alpha.yaml
(cd "$repo" && dtk reindex -q)
commit "staged change, INDEX.md reindexed but not staged" refused
git -C "$repo" add INDEX.md
commit "staged change with its INDEX.md" allowed

# 6. An untracked, invalid node file in insights/ is not part of the commit:
#    allowed (the staged files are checked); dtk check in the work tree fails.
printf 'node: delta\nbloom: apply\ninsights: []\n' >"$repo/insights/delta.yaml"
if (cd "$repo" && dtk check -q >/dev/null 2>&1); then
    ko "an untracked invalid node makes dtk check fail in the work tree"
else
    ok "an untracked invalid node makes dtk check fail in the work tree"
fi
echo "more notes" >>"$repo/NOTES.txt"
commit "an untracked invalid node file, not committed" allowed -a
rm "$repo/insights/delta.yaml"

# 7. dtk not on PATH: refused, saying so. The PATH is a directory of links
#    to every command on the system PATH but dtk, so the case runs even
#    where dtk is installed.
nodtk=$scratch/nodtk
mkdir -p "$nodtk"
IFS=: read -ra dirs <<<"$SYSPATH"
for d in "${dirs[@]}"; do
    for f in "$d"/*; do
        b=${f##*/}
        [ "$b" != dtk ] && [ -x "$f" ] && [ ! -e "$nodtk/$b" ] && ln -s "$f" "$nodtk/$b"
    done
done
echo "still more" >>"$repo/NOTES.txt"
PATH=$nodtk commit "dtk not on PATH" refused -a
if grep -q "dtk is not on PATH" "$scratch/out"; then ok "the refusal says dtk is not on PATH"
else ko "the refusal says dtk is not on PATH" "$(cat "$scratch/out")"; fi
git -C "$repo" checkout -q -- NOTES.txt

# 8. docs/ci.md shows the two files of contrib/ exactly: the fenced block
#    after the line "<!-- contrib/FILE -->".
for f in pre-commit github-workflow.yml; do
    awk -v m="<!-- contrib/$f -->" '
        $0 == m { want = 1; next }
        want == 1 && /^```/ { want = 2; next }
        want == 2 && /^```$/ { exit }
        want == 2 { print }' "$SRC/docs/ci.md" >"$scratch/shown"
    if [ -s "$scratch/shown" ] && cmp -s "$scratch/shown" "$SRC/contrib/$f"; then
        ok "docs/ci.md shows contrib/$f exactly"
    else
        ko "docs/ci.md shows contrib/$f exactly" \
            "$(diff "$SRC/contrib/$f" "$scratch/shown" | head -n 20)"
    fi
done
if [ -x "$SRC/contrib/pre-commit" ]; then ok "contrib/pre-commit is executable"
else ko "contrib/pre-commit is executable"; fi

t_done
