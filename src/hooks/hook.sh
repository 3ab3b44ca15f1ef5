#!/bin/sh
# written by 'dtk setup-git', which replaces this file when it runs again
# (docs/merging.md): runs dtk's dtk-merge-index beside it, which checks
# INDEX.md against insights/ (and rebuilds it in a commit that concludes a
# merge). It never fails.
h=$(dirname "$0")/dtk-merge-index
if [ -x "$h" ]; then
	"$h" @HOOK@ "$@"
else
	echo "@HOOK@: $h is missing: INDEX.md not checked; run 'dtk setup-git' again" >&2
fi
exit 0
