#!/bin/sh
# written by 'dtk setup-git', which replaces this file when it runs again
# (docs/merging.md). git's pre-commit, pre-merge-commit, post-commit,
# post-merge and post-rewrite hooks run it as 'dtk-merge-index HOOK [ARGS]'. git keeps
# INDEX.md without running its merge driver when both sides' INDEX.md are
# the same bytes, although insights/ merged into more. This script checks
# and refuses; it never makes, rewrites or amends a commit, never stages or
# writes a file, never moves a ref:
#   pre-commit    the staged insights/ checked as 'dtk check' checks them:
#   pre-merge-    not valid (a conflict resolved by keeping both sides, a
#   commit        hand edit), the commit is refused with dtk check's
#                 messages ('git commit --no-verify' commits anyway); INDEX.md
#                 not matching them, pre-commit says the line that fixes it
#   post-merge    after git made a merge, a rebase, or a cherry-pick or
#   post-rewrite  revert (post-commit while CHERRY_PICK_HEAD or REVERT_HEAD
#   post-commit   is there): when INDEX.md does not match insights/, says
#                 the line that fixes it; when the merged insights/ are not
#                 valid, says so
# It reads git's output only in forms configuration cannot change.
dtk=@DTK@
base=@BASE@
hook=$1
# the base's folder is a path, never a pattern
GIT_LITERAL_PATHSPECS=1
export GIT_LITERAL_PATHSPECS
# in a linked worktree git names the git directory to its hooks in GIT_DIR,
# the current directory (the top) being the work tree: said for dtk, which
# runs in the base's folder
if [ -n "${GIT_DIR:-}" ] && [ -z "${GIT_WORK_TREE:-}" ]; then
	GIT_WORK_TREE=$(pwd) && export GIT_WORK_TREE
fi
# q S: S quoted for a shell, a quote in it too
q() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
if [ -n "$base" ]; then
	fix="dtk -C $(q "$base") reindex && git commit -m 'INDEX.md rebuilt' -- $(q "${base}INDEX.md")"
	check="dtk -C $(q "$base") check"
else
	fix="dtk reindex && git commit -m 'INDEX.md rebuilt' INDEX.md"
	check="dtk check"
fi
# a base with pages of index/ (docs/index-format.md): rebuilt with INDEX.md,
# both committed
if [ -e "./${base}index" ] || [ -n "$(git ls-files -- "${base}index" 2>/dev/null)" ]; then
	fix="${fix%% && git commit*} && git add -A -- $(q "${base}INDEX.md") $(q "${base}index") &&"
	fix="$fix git commit -m 'INDEX.md rebuilt'"
fi
case $hook in
post-merge | post-rewrite | post-commit)
	# post-rewrite: after a rebase, not an amend; post-merge: not after a
	# squash merge (nothing is committed yet: pre-commit, below, checks the
	# commit that concludes it); post-commit: a commit of a cherry-pick or
	# a revert (the sequencer runs no pre-commit), no other
	case $hook in
	post-rewrite) [ "${2:-}" = rebase ] || exit 0 ;;
	post-merge) [ "${2:-0}" = 0 ] || exit 0 ;;
	*) git rev-parse -q --verify CHERRY_PICK_HEAD >/dev/null ||
		git rev-parse -q --verify REVERT_HEAD >/dev/null || exit 0 ;;
	esac
	if ! [ -x "$dtk" ]; then
		echo "$hook: $dtk is missing: INDEX.md not checked; run 'dtk check'" \
			"(and 'dtk setup-git' with the dtk you use)" >&2
		exit 0
	fi
	"$dtk" -C "./$base" check -q >/dev/null 2>&1
	case $? in
	1)
		echo "$hook: INDEX.md does not match insights/ (git kept one side's" \
			"INDEX.md); to fix it, run: $fix" >&2
		;;
	2)
		# each side valid, the two merged key by key are not
		echo "$hook: the merged insights/ are not valid; run '$check' to" \
			"see where" >&2
		;;
	esac
	exit 0
	;;
pre-commit | pre-merge-commit) ;;
*)
	exit 0
	;;
esac
if ! [ -x "$dtk" ]; then
	echo "$hook: $dtk is missing: insights/ not checked; run 'dtk check'" \
		"(and 'dtk setup-git' with the dtk you use)" >&2
	exit 0
fi
# what the commit will hold: the staged insights/, INDEX.md and index/ (in a commit
# of some paths only, git's index of its own: HEAD's with those paths)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtk-merge-index.XXXXXX") || exit 0
trap 'rm -rf "$tmp"' EXIT
git ls-files -z -- "${base}insights" "${base}INDEX.md" "${base}index" |
	git checkout-index -z --stdin --prefix="$tmp/" || exit 0
[ -f "$tmp/${base}insights/_domain.yaml" ] || exit 0
(cd "$tmp/$base" && "$dtk" check) >/dev/null 2>"$tmp/said"
case $? in
2)
	# contrib/pre-commit checks every base itself, and says it once
	[ -n "${DTK_HOOK_CHECKED:-}" ] && exit 0
	cat "$tmp/said" >&2
	echo "$hook: the staged insights/ are not valid: commit refused; fix them," \
		"or commit anyway with --no-verify" >&2
	exit 1
	;;
1)
	# not said of a merge, a cherry-pick or a revert (post-merge and
	# post-commit will), nor of a commit of some paths only (git's index
	# of its own: the rest is committed later)
	case $hook:${GIT_INDEX_FILE:-} in
	pre-merge-commit:* | *:*/next-index-*) ;;
	*)
		git rev-parse -q --verify CHERRY_PICK_HEAD >/dev/null ||
			git rev-parse -q --verify REVERT_HEAD >/dev/null ||
			echo "$hook: INDEX.md does not match the staged insights/; after" \
				"the commit, run: $fix" >&2
		;;
	esac
	;;
esac
exit 0
