#!/bin/sh
# written by 'dtk setup-git', which replaces this file when it runs again
# (docs/merging.md). git's pre-commit, post-merge and post-rewrite hooks run
# it as 'dtk-merge-index HOOK [ARGS]'. git keeps INDEX.md without running
# its merge driver when both sides' INDEX.md are the same bytes, although
# insights/ merged into more. This script never makes, rewrites or amends a
# commit, never moves a ref, and never fails a git command ('dtk check'
# still tells):
#   pre-commit    in a commit that concludes a merge, a squash merge, or a
#                 cherry-pick or revert of one commit: rebuilds INDEX.md from
#                 the staged insights/ and stages it when it differs
#   post-merge    after git made a merge or a rebase: when INDEX.md does not
#   post-rewrite  match insights/, says the line that fixes it; when the
#                 merged insights/ are not valid, says so
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
several=
case $hook in
post-merge | post-rewrite)
	# post-rewrite: after a rebase, not an amend; post-merge: not after a
	# squash merge (nothing is committed yet: the commit that concludes it
	# rebuilds INDEX.md, pre-commit below)
	[ "$hook" = post-merge ] || [ "${2:-}" = rebase ] || exit 0
	[ "$hook" != post-merge ] || [ "${2:-0}" = 0 ] || exit 0
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
pre-commit)
	# a commit of some paths only ('git commit <path>', --only) stages
	# them over HEAD in an index of its own: its insights/ are not the
	# merge's, nor is INDEX.md rebuilt from them the commit's to make
	case ${GIT_INDEX_FILE:-} in
	*/next-index-*) exit 0 ;;
	esac
	if git rev-parse -q --verify MERGE_HEAD >/dev/null ||
		[ -f "$(git rev-parse --git-path SQUASH_MSG)" ]; then
		:
	elif git rev-parse -q --verify CHERRY_PICK_HEAD >/dev/null ||
		git rev-parse -q --verify REVERT_HEAD >/dev/null; then
		# picking several commits, git compares the index it holds with
		# the commit 'git commit' made, and stops on what this stages
		[ ! -d "$(git rev-parse --git-path sequencer)" ] || several=1
	else
		exit 0
	fi
	;;
*)
	exit 0
	;;
esac
if ! [ -x "$dtk" ]; then
	echo "$hook: $dtk is missing: INDEX.md not checked; run 'dtk check'" \
		"(and 'dtk setup-git' with the dtk you use)" >&2
	exit 0
fi
# "<mode> <id> <stage>\t<path>": the path (quoted or not) is not read
entry=$(git ls-files -s -- "${base}INDEX.md")
[ -n "$entry" ] || exit 0
mode=${entry%% *}
old=${entry#* }
old=${old%% *}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtk-merge-index.XXXXXX") || exit 0
trap 'rm -rf "$tmp"' EXIT
git ls-files -z -- "${base}insights" |
	git checkout-index -z --stdin --prefix="$tmp/" || exit 0
if ! "$dtk" -C "$tmp/$base" reindex -q >/dev/null 2>&1; then
	echo "$hook: dtk cannot rebuild INDEX.md from the staged insights/: run 'dtk check'" >&2
	exit 0
fi
new=$(git hash-object -w --path="${base}INDEX.md" "$tmp/${base}INDEX.md") || exit 0
[ "$new" != "$old" ] || exit 0
if [ -n "$several" ]; then
	echo "$hook: INDEX.md does not match the staged insights/; not rebuilt while" \
		"several commits are picked: after them, run: $fix" >&2
	exit 0
fi
clean=
if git diff --quiet -- "${base}INDEX.md"; then
	clean=1
fi
printf '%s %s\t%s\0' "$mode" "$new" "${base}INDEX.md" |
	git update-index -z --index-info || exit 0
if [ -n "$clean" ]; then
	git checkout-index -f -- "${base}INDEX.md"
	echo "$hook: INDEX.md rebuilt from the merged insights/ and staged" >&2
else
	echo "$hook: INDEX.md rebuilt from the merged insights/ and staged; the" \
		"work tree's INDEX.md has changes of its own, left as they are" >&2
fi
exit 0
