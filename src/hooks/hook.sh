#!/bin/sh
# written by 'dtk setup-git', which replaces this file when it runs again
# (docs/merging.md): runs dtk's dtk-merge-index beside it, which checks
# insights/ and INDEX.md. It fails only when that refuses a commit of an
# invalid base (pre-commit, pre-merge-commit).
h=$(dirname "$0")/dtk-merge-index
if [ -x "$h" ]; then
	"$h" @HOOK@ "$@"
	exit
fi
echo "@HOOK@: $h is missing: INDEX.md not checked; run 'dtk setup-git' again" >&2
exit 0
