#!/usr/bin/env bash
# run.sh COMMAND: what action.yml runs after installing dtk, from the base's
# directory (docs/ci.md). COMMAND is
#   check    dtk check --format github: errors and warnings annotated by dtk;
#            exits as dtk check does
#   sync     on a pull request: when its base branch moved, checks out the
#            request's branch, runs dtk sync origin/<base> and pushes the
#            merge to the branch; a request from a fork is skipped (the
#            workflow's token cannot push there); a conflict dtk cannot
#            merge fails the step, the merge aborted, nothing pushed
#   reindex  on a push to the default branch: when INDEX.md is stale, a
#            commit of the rebuilt INDEX.md (no other change), pushed;
#            tried again up to three times when the branch moved meanwhile
# It reads DTK (the binary), DTK_TOKEN (pushes; empty: the credentials
# actions/checkout left), DTK_UPSTREAM (sync: what to merge), and GitHub's
# GITHUB_EVENT_NAME, GITHUB_BASE_REF, GITHUB_HEAD_REF, GITHUB_REF_NAME,
# GITHUB_REPOSITORY, DTK_PR_HEAD_REPO (the request's head repository) and
# DTK_DEFAULT_BRANCH. The remote is origin, whatever its URL (the tests use
# local bare repositories).
set -euo pipefail
dtk=${DTK:-dtk}
token=${DTK_TOKEN:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

notice() { echo "::notice::dtk $cmd: $*"; }
fail() { echo "::error::dtk $cmd: $*"; exit "${2:-1}"; }

# dtk needs the whole history (libgit2 1.5 cannot walk a shallow clone)
whole() {
  [ "$(git rev-parse --is-shallow-repository)" != true ] ||
    fail "the clone is shallow: give actions/checkout 'fetch-depth: 0' (libgit2 1.5 cannot walk a shallow clone)" 2
}

# the commits the action makes: the repository's identity, else the bot's
ident() {
  git config user.name >/dev/null || git config user.name 'github-actions[bot]'
  git config user.email >/dev/null ||
    git config user.email '41898282+github-actions[bot]@users.noreply.github.com'
}

# push BRANCH: HEAD to BRANCH on origin, with DTK_TOKEN when given (over
# the header actions/checkout set); says what a push without it means.
# Returns 1 after an error annotation when refused ($tmp/push: git's words).
push() {
  local auth=() url host
  url=$(git remote get-url origin)
  if [ -n "$token" ] && [[ $url == https://* ]]; then
    host=${url#https://}
    host=${host%%/*}
    auth=(-c "http.https://$host/.extraheader="
      -c "http.https://$host/.extraheader=AUTHORIZATION: basic $(printf 'x-access-token:%s' "$token" | base64 -w0)")
  fi
  if ! git "${auth[@]}" push -q origin "HEAD:refs/heads/$1" 2>"$tmp/push"; then
    cat "$tmp/push" >&2
    if grep -qiE 'protected branch|GH006|GH013|rule violations' "$tmp/push"; then
      echo "::error::dtk $cmd: $1 is protected and refused the push: allow the token's app or user to bypass the rule (or push to it), or let a person merge the change"
    elif ! grep -qE 'fetch first|non-fast-forward' "$tmp/push"; then
      echo "::error::dtk $cmd: the push to $1 failed (see the log; a token needs contents: write)"
    fi
    return 1
  fi
  [ -n "$token" ] ||
    notice "pushed to $1 with the workflow's own token: GitHub starts no workflow for that push, so required checks do not run on the new commit; give the action a token input (a GitHub App token or a fine-grained token with contents: write) to have them run"
}

do_check() {
  local rc=0
  # dtk check --format github annotates its errors and its warnings itself
  "$dtk" check --format github || rc=$?
  exit "$rc"
}

do_sync() {
  local head base upstream rc=0
  case ${GITHUB_EVENT_NAME:-} in
    pull_request | pull_request_target) ;;
    *) notice "runs on pull requests, not on ${GITHUB_EVENT_NAME:-this event}: nothing done"; exit 0 ;;
  esac
  head=${GITHUB_HEAD_REF:?GITHUB_HEAD_REF}
  base=${GITHUB_BASE_REF:?GITHUB_BASE_REF}
  if [ -n "${DTK_PR_HEAD_REPO:-}" ] && [ "$DTK_PR_HEAD_REPO" != "${GITHUB_REPOSITORY:-}" ]; then
    notice "the pull request comes from the fork $DTK_PR_HEAD_REPO, which this workflow's token cannot push to: nothing done (in the fork: git fetch upstream && dtk sync upstream/$base && git push)"
    exit 0
  fi
  whole
  git fetch -q origin "+refs/heads/$base:refs/remotes/origin/$base" \
    "+refs/heads/$head:refs/remotes/origin/$head"
  git checkout -q -B "$head" "origin/$head"
  upstream=${DTK_UPSTREAM:-origin/$base}
  if git merge-base --is-ancestor "$upstream" HEAD; then
    notice "$head is up to date with $upstream: nothing to do"
    exit 0
  fi
  ident
  "$dtk" sync "$upstream" 2>"$tmp/err" || rc=$?
  cat "$tmp/err" >&2
  case $rc in
    0) push "$head" || exit 1 ;;
    1)
      git merge --abort
      fail "$head does not merge $upstream cleanly even as data ($(sed -n 's/^CONFLICT: //p' "$tmp/err" | paste -sd, -)): run dtk sync $upstream in a clone, resolve, commit and push" ;;
    *) fail "dtk sync failed (see the log)" "$rc" ;;
  esac
}

do_reindex() {
  local branch try rc
  branch=${GITHUB_REF_NAME:?GITHUB_REF_NAME}
  if [ "${GITHUB_EVENT_NAME:-}" != push ]; then
    notice "runs on a push, not on ${GITHUB_EVENT_NAME:-this event}: nothing done"
    exit 0
  fi
  if [ -n "${DTK_DEFAULT_BRANCH:-}" ] && [ "$branch" != "$DTK_DEFAULT_BRANCH" ]; then
    notice "runs on pushes to the default branch ($DTK_DEFAULT_BRANCH), not $branch: nothing done"
    exit 0
  fi
  whole
  ident
  for try in 1 2 3; do
    git fetch -q origin "+refs/heads/$branch:refs/remotes/origin/$branch"
    git checkout -q -B "$branch" "origin/$branch"
    rc=0
    "$dtk" check -q >/dev/null 2>&1 || rc=$?
    case $rc in
      0) notice "INDEX.md is up to date on $branch"; exit 0 ;;
      1) ;;
      *) "$dtk" check --format github || true; fail "the base on $branch is not valid: INDEX.md cannot be rebuilt" 2 ;;
    esac
    "$dtk" reindex -q
    git add -- INDEX.md
    git commit -q -m "INDEX.md rebuilt (dtk reindex)" -- INDEX.md
    if push "$branch"; then
      echo "dtk reindex: pushed $(git rev-parse --short HEAD) to $branch"
      exit 0
    fi
    grep -qE 'fetch first|non-fast-forward' "$tmp/push" || exit 1
    echo "dtk reindex: $branch moved meanwhile (try $try of 3)"
  done
  fail "$branch kept moving: INDEX.md not pushed"
}

cmd=${1:-check}
# in a container the workspace belongs to another user: git and libgit2
# refuse it unless it is a safe.directory
if [ "${GITHUB_ACTIONS:-}" = true ] && top=$(git rev-parse --show-toplevel 2>/dev/null); then
  git config --global --get-all safe.directory | grep -qxF "$top" ||
    git config --global --add safe.directory "$top"
fi
case $cmd in
  check) do_check ;;
  sync) do_sync ;;
  reindex) do_reindex ;;
  *) echo "::error::dtk: the command input must be check, sync or reindex, not '$cmd'"; exit 2 ;;
esac
