#!/usr/bin/env bash
# git_as_git_test.sh DTK SOURCE_DIR: dtk's git work checked against real git
# (docs/git.md): crystallize signs as git does (gpg and ssh keys made here,
# git verify-commit), runs git commit's hooks, resolves the repository,
# configuration and identities from git's variables, stores blobs through
# git's line-ending filters; the INDEX.md merge driver under merge, rebase,
# cherry-pick, revert and pull --rebase. Every refusal leaves HEAD, the refs,
# the index and the work tree byte for byte as they were. Prints one line per
# check and "N passed, M failed" last; exits non-zero when any check failed.
set -u

for p in git gpg gpgconf ssh-keygen; do
    command -v $p >/dev/null || { echo "$p is not installed (scripts/deps)" >&2; exit 2; }
done
. "$(dirname "$0")/lib.sh"
t_args "$@"

t_repo asgit
git -C "$repo" add -A
git -C "$repo" commit -q -m "the base"
pristine=$scratch/pristine
mv "$repo" "$pristine"

# fresh NAME: $r is a new copy of the committed base, at $scratch/NAME
fresh() { r=$scratch/$1; rm -rf "$r"; cp -R "$pristine" "$r"; }

# snap DIR: HEAD, every ref, the index and every work-tree file, hashed
snap()
{
    (cd "$1" && git rev-parse -q --verify HEAD; git for-each-ref
        find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs sha1sum
        sha1sum "$(git rev-parse --git-dir)/index")
}

# cryst DIR DATE [DTK-ARGS...]: dtk crystallize in DIR; output in $out, status in $rc
out=$scratch/out
cryst()
{
    local d=$1 date=$2
    shift 2
    (cd "$d" && "$DTK" crystallize --eval s=ok --date "$date" "$@") >"$out" 2>&1
    rc=$?
}

# made NAME: the last cryst exited 0
made()
{
    if [ "$rc" -eq 0 ]; then ok "$1: committed"
    else ko "$1: committed" "exit $rc" "$(head -n 20 "$out")"; fi
}

# refused NAME BEFORE-SNAP PATTERN: the last cryst exited 2, its output
# matches PATTERN and $r is as the snapshot says
refused()
{
    if [ "$rc" -ne 2 ]; then
        ko "$1: refused" "exit $rc" "$(head -n 20 "$out")"
    elif ! grep -Eq -- "$3" "$out"; then
        ko "$1: refused saying '$3'" "$(head -n 20 "$out")"
    elif ! snap "$r" | cmp -s - "$2"; then
        ko "$1: refused, nothing written" "$(snap "$r" | diff "$2" -)"
    else
        ok "$1: refused saying '$3', nothing written"
    fi
}

# same NAME GOT WANT
same()
{
    if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "got:  $2" "want: $3"; fi
}

# ---- 1. signing ----

export GNUPGHOME=$scratch/gnupg
mkdir -m 700 "$GNUPGHOME"
trap 'gpgconf --kill gpg-agent 2>/dev/null; rm -rf "$scratch"' EXIT
gpg --batch --quiet --passphrase '' --quick-gen-key 't <t@example.org>' ed25519 sign never \
    2>/dev/null || { echo "cannot make a gpg key" >&2; exit 2; }
ssh-keygen -q -t ed25519 -N '' -C signer -f "$scratch/sshkey" || exit 2
echo "t@example.org $(cat "$scratch/sshkey.pub")" >"$scratch/allowed"

fresh sign-gpg
git -C "$r" config commit.gpgsign true
cryst "$r" 2026-08-15
made "commit.gpgsign, openpgp"
if git -C "$r" verify-commit HEAD 2>/dev/null; then ok "openpgp: git verify-commit HEAD"
else ko "openpgp: git verify-commit HEAD" "$(git -C "$r" cat-file commit HEAD | head)"; fi
# the signed commit is what git itself would write: the signature over the
# commit without it, in a gpgsig header
git -C "$r" cat-file commit HEAD | sed '/^gpgsig /,/^ -----END/d' >"$scratch/payload"
git -C "$r" cat-file commit HEAD | sed -n '/^gpgsig /,/^ -----END/p' |
    sed 's/^gpgsig //; s/^ //' >"$scratch/sig"
if gpg --verify "$scratch/sig" "$scratch/payload" 2>/dev/null; then
    ok "openpgp: the signature covers the commit without its gpgsig header"
else ko "openpgp: the signature covers the commit without its gpgsig header"; fi

fresh sign-gpg-program
cat >"$scratch/gpg-wrap" <<EOF
#!/bin/sh
echo "\$*" >>"$scratch/gpg-args"
exec gpg "\$@"
EOF
chmod +x "$scratch/gpg-wrap"
git -C "$r" config gpg.program "$scratch/gpg-wrap"
git -C "$r" config user.signingkey t@example.org
cryst "$r" 2026-08-15 --gpg-sign
made "--gpg-sign, gpg.program, user.signingkey"
same "gpg.program is run as git runs it" "$(cat "$scratch/gpg-args" 2>/dev/null)" \
    "--status-fd=2 -bsau t@example.org"
git -C "$r" verify-commit HEAD 2>/dev/null && ok "--gpg-sign: verified" ||
    ko "--gpg-sign: verified"

fresh sign-gpg-nokey
git -C "$r" config commit.gpgsign true
git -C "$r" config user.signingkey nobody@example.org
snap "$r" >"$scratch/before"
cryst "$r" 2026-08-15
refused "openpgp, no such key" "$scratch/before" "gpg failed to sign the data"
cryst "$r" 2026-08-15 --no-gpg-sign
made "--no-gpg-sign over commit.gpgsign"
git -C "$r" verify-commit HEAD 2>/dev/null && ko "--no-gpg-sign: unsigned" ||
    ok "--no-gpg-sign: unsigned"

fresh sign-ssh
git -C "$r" config commit.gpgsign true
git -C "$r" config gpg.format ssh
git -C "$r" config user.signingkey "$scratch/sshkey.pub"
git -C "$r" config gpg.ssh.allowedSignersFile "$scratch/allowed"
cat >"$scratch/ssh-wrap" <<EOF
#!/bin/sh
echo "\$*" | sed 's|[^ ]*/[.]git_signing_buffer_tmp[^ ]*|BUFFER|' >>"$scratch/ssh-args"
exec ssh-keygen "\$@"
EOF
chmod +x "$scratch/ssh-wrap"
git -C "$r" config gpg.ssh.program "$scratch/ssh-wrap"
cryst "$r" 2026-08-15
made "commit.gpgsign, ssh"
if git -C "$r" verify-commit HEAD 2>/dev/null; then ok "ssh: git verify-commit HEAD"
else ko "ssh: git verify-commit HEAD" "$(git -C "$r" cat-file commit HEAD | head)"; fi
same "gpg.ssh.program is run as git runs it" "$(head -n 1 "$scratch/ssh-args" 2>/dev/null)" \
    "-Y sign -n git -f $scratch/sshkey.pub BUFFER"

# a literal key (from gpg.ssh.defaultKeyCommand) signs through the agent (-U)
if command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null; then
    eval "$(ssh-agent -s)" >/dev/null
    trap 'kill "$SSH_AGENT_PID" 2>/dev/null; gpgconf --kill gpg-agent 2>/dev/null; rm -rf "$scratch"' EXIT
    ssh-add -q "$scratch/sshkey" 2>/dev/null
    fresh sign-ssh-agent
    git -C "$r" config commit.gpgsign true
    git -C "$r" config gpg.format ssh
    git -C "$r" config gpg.ssh.defaultKeyCommand "cat $scratch/sshkey.pub"
    git -C "$r" config gpg.ssh.allowedSignersFile "$scratch/allowed"
    cryst "$r" 2026-08-15
    made "ssh, gpg.ssh.defaultKeyCommand (a literal key, from the agent)"
    git -C "$r" verify-commit HEAD 2>/dev/null && ok "ssh from the agent: git verify-commit HEAD" ||
        ko "ssh from the agent: git verify-commit HEAD"
fi

fresh sign-ssh-nokey
git -C "$r" config commit.gpgsign true
git -C "$r" config gpg.format ssh
snap "$r" >"$scratch/before"
cryst "$r" 2026-08-15
refused "ssh, no user.signingkey" "$scratch/before" "user.signingkey"
git -C "$r" config user.signingkey "$scratch/missing.pub"
cryst "$r" 2026-08-15
refused "ssh, a missing key file" "$scratch/before" "ssh-keygen failed to sign the data"

# the commit's options without a commit are refused
fresh sign-opts
snap "$r" >"$scratch/before"
for args in "--plan --gpg-sign" "--dry-run --no-gpg-sign" "--no-commit --no-verify"; do
    (cd "$r" && "$DTK" crystallize $args --date 2026-08-15 $([ "${args%% *}" = --plan ] ||
        echo --eval s=ok)) >"$out" 2>&1
    rc=$?
    refused "crystallize $args" "$scratch/before" "cannot be used together"
done

# ---- 2. hooks ----

# hook NAME DIR BODY: installs an executable hook in DIR that logs its name
# and arguments to $scratch/hooks.log, then runs BODY
hook()
{
    mkdir -p "$2"
    printf '#!/bin/sh\necho "%s $*" >>"%s/hooks.log"\n%s\n' "$1" "$scratch" "$3" >"$2/$1"
    chmod +x "$2/$1"
}

fresh hooks
h=$r/.git/hooks
rm -f "$scratch/hooks.log"
hook pre-commit "$h" 'echo "cwd=$(pwd) idx=$GIT_INDEX_FILE editor=$GIT_EDITOR author=$GIT_AUTHOR_NAME" >>"'"$scratch"'/hooks.env"
git rev-parse :insights/_crystallizations.yaml >"'"$scratch"'/pre-commit.rec"'
hook prepare-commit-msg "$h" ''
hook commit-msg "$h" 'printf "Reviewed-by: hook <h@example.org>\n" >>"$1"'
hook post-commit "$h" 'git rev-parse HEAD >"'"$scratch"'/post-commit.head"'
cryst "$r" 2026-08-15
made "all four hooks"
same "hooks run in git's order, with git's arguments" "$(cat "$scratch/hooks.log")" \
    "pre-commit 
prepare-commit-msg .git/COMMIT_EDITMSG message
commit-msg .git/COMMIT_EDITMSG
post-commit "
idx=$(sed 's/.*idx=\([^ ]*\).*/\1/' "$scratch/hooks.env")
same "hooks run at the top of the work tree, GIT_EDITOR=:, the author set" \
    "$(sed 's/ idx=[^ ]*//' "$scratch/hooks.env")" "cwd=$r editor=: author=t"
case $idx in "$r"/.git/next-index-*.lock) ok "pre-commit gets its own GIT_INDEX_FILE" ;;
*) ko "pre-commit gets its own GIT_INDEX_FILE" "$idx" ;; esac
[ ! -e "$idx" ] && ok "that index is removed" || ko "that index is removed"
same "pre-commit's index holds the commit's files" "$(cat "$scratch/pre-commit.rec")" \
    "$(git -C "$r" rev-parse HEAD:insights/_crystallizations.yaml)"
same "commit-msg may rewrite the message" "$(git -C "$r" log -1 --format=%B | grep -v "^$" | tail -n 2)" \
    "Dtk-Review-Pairs: 0
Reviewed-by: hook <h@example.org>"
same "post-commit runs after the commit" "$(cat "$scratch/post-commit.head")" \
    "$(git -C "$r" rev-parse HEAD)"

for which in pre-commit commit-msg; do
    fresh "hook-$which"
    rm -f "$scratch/hooks.log"
    hook "$which" "$r/.git/hooks" 'echo "no, says the hook" >&2; exit 1'
    hook prepare-commit-msg "$r/.git/hooks" ''
    snap "$r" >"$scratch/before"
    cryst "$r" 2026-08-15
    refused "a failing $which hook" "$scratch/before" "the .*hook refused the commit"
    grep -q "no, says the hook" "$out" && ok "$which: its words are shown" ||
        ko "$which: its words are shown" "$(cat "$out")"
    rm -f "$scratch/hooks.log"
    cryst "$r" 2026-08-15 --no-verify
    made "--no-verify skips a failing $which"
    same "--no-verify still runs prepare-commit-msg" "$(cat "$scratch/hooks.log")" \
        "prepare-commit-msg .git/COMMIT_EDITMSG message"
done

fresh hook-prepare
rm -f "$scratch/hooks.log"
hook prepare-commit-msg "$r/.git/hooks" 'exit 3'
snap "$r" >"$scratch/before"
cryst "$r" 2026-08-15 --no-verify
refused "a failing prepare-commit-msg (not skipped by --no-verify)" "$scratch/before" \
    "the prepare-commit-msg hook refused the commit"

fresh hook-not-executable
hook pre-commit "$r/.git/hooks" 'exit 1'
chmod -x "$r/.git/hooks/pre-commit"
cryst "$r" 2026-08-15
made "a hook that is not executable is not run"
grep -q "hook was ignored because it's not set as executable" "$out" &&
    ok "git's hint for a hook that is not executable" ||
    ko "git's hint for a hook that is not executable" "$(cat "$out")"

fresh hooks-path
rm -f "$scratch/hooks.log"
hook pre-commit "$r/.git/hooks" 'exit 1'
hook pre-commit "$r/my-hooks" ''
git -C "$r" config core.hooksPath my-hooks
cryst "$r" 2026-08-15
made "core.hooksPath (relative to the work tree)"
same "the hook of core.hooksPath ran" "$(cat "$scratch/hooks.log")" "pre-commit "

fresh hooks-contrib
cp "$SRC/contrib/pre-commit" "$r/.git/hooks/pre-commit"
chmod +x "$r/.git/hooks/pre-commit"
cryst "$r" 2026-08-15
made "contrib/pre-commit as the hook"

# ---- 3. repository, configuration and identity from git's variables ----

# ident DIR FORMAT: HEAD's fields by git log's FORMAT
ident() { git -C "$1" log -1 "${@:3}" --format="$2"; }

fresh env-a
fresh env-b
a=$scratch/env-a b=$scratch/env-b
head_a=$(git -C "$a" rev-parse HEAD)
(cd "$a" && GIT_DIR=$b/.git "$DTK" crystallize --eval s=ok --date 2026-08-15) >"$out" 2>&1
rc=$?
made "GIT_DIR names another repository"
same "GIT_DIR: the commit is in that repository" "$(ident "$b" %s)" \
    "crystallize 2026-08-15: 0 new, 0 high changes, 2 stale, 0 bloom changes, 0 stance rewrites, 0 new contradictions"
same "GIT_DIR: the repository of the current directory is untouched" \
    "$(git -C "$a" rev-parse HEAD)" "$head_a"

fresh env-wt
mv "$r/.git" "$scratch/env-wt.git"
(cd "$r" && GIT_DIR=$scratch/env-wt.git GIT_WORK_TREE=$r "$DTK" crystallize --eval s=ok \
    --date 2026-08-15) >"$out" 2>&1
rc=$?
made "GIT_DIR + GIT_WORK_TREE (no .git in the work tree)"
same "GIT_DIR + GIT_WORK_TREE: git status is clean" \
    "$(git --git-dir="$scratch/env-wt.git" --work-tree="$r" status --porcelain)" ""

fresh env-core-wt
mv "$r/.git" "$scratch/env-core-wt.git"
git --git-dir="$scratch/env-core-wt.git" config core.bare false
git --git-dir="$scratch/env-core-wt.git" config core.worktree "$r"
(cd "$r/insights" && GIT_DIR=$scratch/env-core-wt.git "$DTK" crystallize --eval s=ok \
    --date 2026-08-15) >"$out" 2>&1
rc=$?
made "GIT_DIR naming a separate repository with core.worktree"
same "core.worktree: git status is clean" \
    "$(git --git-dir="$scratch/env-core-wt.git" status --porcelain)" ""

# a bare repository (git clone --bare) with its work tree elsewhere, as the
# "dotfiles" setups use it: GIT_DIR + GIT_WORK_TREE
rm -rf "$scratch/env-bare.git" "$scratch/env-bare"
git clone -q --bare "$pristine" "$scratch/env-bare.git"
mkdir "$scratch/env-bare"
git --git-dir="$scratch/env-bare.git" --work-tree="$scratch/env-bare" checkout -q -f HEAD -- .
(cd "$scratch/env-bare" && GIT_DIR=$scratch/env-bare.git GIT_WORK_TREE=$scratch/env-bare \
    "$DTK" crystallize --eval s=ok --date 2026-08-15) >"$out" 2>&1
rc=$?
made "a bare repository with GIT_DIR + GIT_WORK_TREE"
same "bare + GIT_WORK_TREE: git status is clean" \
    "$(git --git-dir="$scratch/env-bare.git" --work-tree="$scratch/env-bare" status --porcelain)" ""
# core.bare with core.worktree: git refuses it ("unable to set up work
# tree using invalid config"), and so does dtk
git --git-dir="$scratch/env-bare.git" config core.worktree "$scratch/env-bare"
r=$scratch/env-bare
snap_bare() { GIT_DIR=$scratch/env-bare.git GIT_WORK_TREE=$r snap "$r"; }
snap_bare >"$scratch/before"
(cd "$r" && GIT_DIR=$scratch/env-bare.git "$DTK" crystallize --eval s=ok --date 2026-09-15) \
    >"$out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "core.bare and core.worktree do not make sense" "$out" &&
    snap_bare | cmp -s - "$scratch/before"; then
    ok "core.bare with core.worktree: refused as git refuses it, nothing written"
else ko "core.bare with core.worktree: refused as git refuses it" "exit $rc" "$(cat "$out")"; fi

fresh env-gitfile
mv "$r/.git" "$scratch/env-gitfile.git"
git --git-dir="$scratch/env-gitfile.git" config core.worktree "$r"
echo "gitdir: $scratch/env-gitfile.git" >"$r/.git"
cryst "$r" 2026-08-15
made "a .git file naming the repository"
same "a .git file: git status is clean" "$(git -C "$r" status --porcelain)" ""

# the identity variables: lib.sh exports GIT_AUTHOR_*/GIT_COMMITTER_* as t;
# these runs start from none and set what each check needs
noid=(env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL
    -u EMAIL)
# id_run NAME VAR=VALUE...: dtk crystallize in a fresh copy with only these
# variables of identity (and a configuration made before)
id_run()
{
    local name=$1
    shift
    (cd "$r" && "${noid[@]}" "$@" "$DTK" crystallize --eval s=ok --date 2026-08-15) \
        >"$out" 2>&1
    rc=$?
    made "$name"
}

fresh id-env
id_run "identity only in the environment" GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org \
    GIT_COMMITTER_NAME=Cy GIT_COMMITTER_EMAIL=cy@example.org
same "GIT_AUTHOR_NAME/EMAIL, GIT_COMMITTER_NAME/EMAIL" "$(ident "$r" '%an <%ae> / %cn <%ce>')" \
    "Ann <ann@example.org> / Cy <cy@example.org>"

fresh id-env-wins
git -C "$r" config user.name Conf
git -C "$r" config user.email conf@example.org
id_run "identity in both" GIT_AUTHOR_NAME=Ann GIT_COMMITTER_EMAIL=cy@example.org
same "the environment wins over user.*, per field" "$(ident "$r" '%an <%ae> / %cn <%ce>')" \
    "Ann <conf@example.org> / Conf <cy@example.org>"

fresh id-roles
git -C "$r" config user.name Conf
git -C "$r" config user.email conf@example.org
git -C "$r" config author.name Au
git -C "$r" config committer.email co@example.org
id_run "author.* and committer.*"
same "author.name and committer.email over user.*" "$(ident "$r" '%an <%ae> / %cn <%ce>')" \
    "Au <conf@example.org> / Conf <co@example.org>"

fresh id-dates
id_run "GIT_AUTHOR_DATE and GIT_COMMITTER_DATE" GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x \
    GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x GIT_AUTHOR_DATE=2005-04-07T22:13:13+02:00 \
    GIT_COMMITTER_DATE="@1700000000 -0130"
same "GIT_AUTHOR_DATE (ISO 8601), GIT_COMMITTER_DATE (git's own)" \
    "$(ident "$r" '%ad / %cd' --date=raw)" "1112904793 +0200 / 1700000000 -0130"
fresh id-date-rfc
id_run "GIT_AUTHOR_DATE in RFC 2822" GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x \
    GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x GIT_AUTHOR_DATE="Thu, 07 Apr 2005 22:13:13 +0200"
same "GIT_AUTHOR_DATE (RFC 2822)" "$(ident "$r" %ad --date=raw)" "1112904793 +0200"
snap "$r" >"$scratch/before"
(cd "$r" && GIT_AUTHOR_DATE=yesterdayish "$DTK" crystallize --eval s=ok --date 2026-09-15) \
    >"$out" 2>&1
rc=$?
refused "an invalid GIT_AUTHOR_DATE" "$scratch/before" "invalid date format: yesterdayish"

fresh id-global
printf '[user]\n\tname = Glob\n\temail = glob@example.org\n' >"$scratch/global-config"
id_run "GIT_CONFIG_GLOBAL" GIT_CONFIG_GLOBAL=$scratch/global-config
same "GIT_CONFIG_GLOBAL names the global file" "$(ident "$r" '%an <%ae>')" \
    "Glob <glob@example.org>"

fresh id-system
printf '[user]\n\tname = Sys\n\temail = sys@example.org\n' >"$scratch/system-config"
id_run "GIT_CONFIG_SYSTEM" -u GIT_CONFIG_NOSYSTEM GIT_CONFIG_SYSTEM=$scratch/system-config
same "GIT_CONFIG_SYSTEM names the system file" "$(ident "$r" '%an <%ae>')" "Sys <sys@example.org>"
snap "$r" >"$scratch/before"
(cd "$r" && "${noid[@]}" GIT_CONFIG_NOSYSTEM=true GIT_CONFIG_SYSTEM=$scratch/system-config \
    "$DTK" crystallize --eval s=ok --date 2026-09-15) >"$out" 2>&1
rc=$?
refused "GIT_CONFIG_NOSYSTEM: the system file is not read" "$scratch/before" "no author"

fresh id-email
id_run "EMAIL" GIT_AUTHOR_NAME=A GIT_COMMITTER_NAME=C EMAIL=mail@example.org
same "EMAIL when no email is configured" "$(ident "$r" '%ae / %ce')" \
    "mail@example.org / mail@example.org"

fresh id-count
id_run "GIT_CONFIG_COUNT" GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=Counted \
    GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=count@example.org
same "GIT_CONFIG_COUNT/KEY_n/VALUE_n" "$(ident "$r" '%an <%ae>')" "Counted <count@example.org>"

fresh id-dash-c
git -C "$r" config user.name Conf
git -C "$r" config user.email conf@example.org
(cd "$r" && "${noid[@]}" git -c user.name="Dash C" -c "alias.dtk=!\"$DTK\"" \
    dtk crystallize --eval s=ok --date 2026-08-15) >"$out" 2>&1
rc=$?
made "git -c (GIT_CONFIG_PARAMETERS)"
same "git -c user.name wins over the repository's" "$(ident "$r" '%an <%ae>')" \
    "Dash C <conf@example.org>"

fresh id-include-if
printf '[user]\n\tname = Included\n\temail = inc@example.org\n' >"$scratch/inc-config"
git -C "$r" config "includeIf.gitdir:$r/.git.path" "$scratch/inc-config"
id_run "includeIf.gitdir"
same "includeIf.gitdir: the included identity" "$(ident "$r" '%an <%ae>')" \
    "Included <inc@example.org>"

fresh id-none
snap "$r" >"$scratch/before"
(cd "$r" && "${noid[@]}" "$DTK" crystallize --eval s=ok --date 2026-08-15) >"$out" 2>&1
rc=$?
refused "no identity anywhere" "$scratch/before" "no author"

# ---- 4. line endings ----

# crlf_case NAME GIT-ARGS...: a clone of the base checked out with CRLF (by
# the clone's configuration or .gitattributes), checked, reindexed and
# crystallized: everything as git sees a clean, normalized repository
crlf_case()
{
    local name=$1 c=$scratch/crlf-$1
    shift
    git clone -q "$@" "$src" "$c"
    if ! grep -q $'\r$' "$c/INDEX.md"; then ko "$name: INDEX.md is checked out CRLF"; return; fi
    snap "$c" >"$scratch/before"
    (cd "$c" && "$DTK" check) >"$out" 2>&1 && ok "$name: a fresh checkout passes dtk check" ||
        ko "$name: a fresh checkout passes dtk check" "$(head -n 20 "$out")"
    (cd "$c" && "$DTK" reindex) >"$out" 2>&1
    if grep -q "up to date" "$out" && snap "$c" | cmp -s - "$scratch/before"; then
        ok "$name: dtk reindex finds it up to date, writes nothing"
    else ko "$name: dtk reindex finds it up to date, writes nothing" "$(cat "$out")"; fi
    sed -i 's/^bloom: apply\r$/bloom: analyze\r/' "$c/insights/alpha.yaml"
    r=$c
    cryst "$c" 2026-08-15
    made "$name: crystallize"
    same "$name: INDEX.md and the records are stored LF, checked out CRLF" \
        "$(git -C "$c" ls-files --eol INDEX.md insights/_crystallizations.yaml |
            awk '{print $1, $2, $NF}')" \
        "i/lf w/crlf INDEX.md
i/lf w/crlf insights/_crystallizations.yaml"
    same "$name: git status is clean after the crystallization" \
        "$(git -C "$c" status --porcelain)" ""
    git -C "$c" add --renormalize .
    same "$name: git add --renormalize . stages nothing" "$(git -C "$c" status --porcelain)" ""
    same "$name: the records only grow (no line rewritten)" \
        "$(git -C "$c" show --numstat --format= HEAD -- insights/_crystallizations.yaml |
            cut -f2)" "0"
    (cd "$c" && "$DTK" check) >"$out" 2>&1 && ok "$name: dtk check after it" ||
        ko "$name: dtk check after it" "$(head -n 20 "$out")"
    rm "$c/INDEX.md"
    (cd "$c" && "$DTK" reindex -q) >"$out" 2>&1
    same "$name: dtk reindex writes INDEX.md as git checks it out" \
        "$(git -C "$c" status --porcelain; git -C "$c" ls-files --eol INDEX.md | awk '{print $2}')" \
        "w/crlf"
    # a write command rebuilds INDEX.md by the same rule: every line CRLF
    (cd "$c" && "$DTK" use -q alpha-001 && "$DTK" add-node -q lf-check --category 策略) \
        >"$out" 2>&1 || ko "$name: dtk use and add-node" "$(cat "$out")"
    same "$name: a write command writes INDEX.md as reindex does (CRLF)" \
        "$(awk '!/\r$/' "$c/INDEX.md" | wc -l) $(git -C "$c" ls-files --eol INDEX.md | awk '{print $2}')" \
        "0 w/crlf"
    (cd "$c" && "$DTK" check -q) && ok "$name: dtk check after a write command" ||
        ko "$name: dtk check after a write command"
}
src=$pristine
crlf_case autocrlf -c core.autocrlf=true
fresh crlf-attr-src
printf '* text=auto eol=crlf\n' >"$r/.gitattributes"
git -C "$r" add .gitattributes 2>/dev/null
git -C "$r" commit -q -m "CRLF work trees"
src=$r
crlf_case attributes

# records stored with CRLF (no conversion): the record crystallize appends
# ends its lines CRLF too, as an edit of a user's file keeps its endings
fresh crlf-records
sed -i 's/$/\r/' "$r/insights/_crystallizations.yaml"
printf 'insights/_crystallizations.yaml -text\n' >"$r/.gitattributes"
git -C "$r" add -A && git -C "$r" commit -q -m "CRLF records"
sed -i 's/^bloom: apply$/bloom: analyze/' "$r/insights/alpha.yaml"
cryst "$r" 2026-08-15
made "CRLF records: crystallize"
same "CRLF records: every line of the records ends CRLF after the run" \
    "$(awk '!/\r$/' "$r/insights/_crystallizations.yaml" | wc -l)" "0"
same "CRLF records: the run only added lines" \
    "$(git -C "$r" show --numstat --format= HEAD -- insights/_crystallizations.yaml | cut -f2)" "0"

# a run made on a branch and merged with a merge commit: dtk log names the
# run's own commit, and the next run compares with the base as that commit
# has it, so a change made meanwhile on the other line is counted
fresh cr-merged
git -C "$r" checkout -q -b review
cryst "$r" 2026-08-15
made "a run on a branch"
run=$(git -C "$r" rev-parse --short=12 HEAD)
git -C "$r" checkout -q -
sed -i 's/^bloom: apply$/bloom: analyze/' "$r/insights/alpha.yaml"
git -C "$r" commit -q -am "alpha's bloom, beside the run"
git -C "$r" merge -q --no-edit review
same "merged with a merge commit: dtk log names the run's commit" \
    "$(cd "$r" && "$DTK" log | head -n 1 | awk '{print $2}')" "$run"
cryst "$r" 2026-09-15 --dry-run
same "merged with a merge commit: the next run counts the change made beside it" \
    "$(grep -c 'alpha: apply→analyze' "$out")" "1"

# a run on the 17th branch of an octopus merge: every parent is walked
fresh cr-octopus
(cd "$r" && for i in $(seq 1 16); do
    git checkout -q -b "o$i" && echo "$i" >"f$i" && git add "f$i" && git commit -q -m "o$i" &&
        git checkout -q -
done && git checkout -q -b o17) >/dev/null 2>&1
cryst "$r" 2026-08-15
run=$(git -C "$r" rev-parse --short=12 HEAD)
git -C "$r" checkout -q -
git -C "$r" merge -q --no-edit $(seq -f 'o%g' 1 17) >/dev/null 2>&1
same "an octopus of 17: dtk log names the run made on its last branch" \
    "$(cd "$r" && "$DTK" log | head -n 1 | awk '{print $2}')" "$run"

# ---- 5. the INDEX.md merge driver under every git operation that merges ----

# A base set up for the driver, and two changes that each move INDEX.md
# (alpha's and beta's bloom: adjacent rows, so a text merge would conflict);
# the side branch also changes gamma's, a second commit to pick.
fresh md-base
md=$r
(cd "$md" && "$DTK" setup-git >/dev/null && git add .gitattributes &&
    git commit -q -m "merge INDEX.md with dtk") || ko "dtk setup-git"
# change WHICH: commits alpha's (a) or beta's (b) change with its INDEX.md
change()
{
    case $1 in
    a) sed -i 's/^bloom: apply$/bloom: analyze/' insights/alpha.yaml ;;
    b) sed -i 's/^bloom: evaluate$/bloom: create/' insights/beta.yaml ;;
    c) sed -i 's/^bloom: remember$/bloom: understand/' insights/gamma.yaml ;;
    esac
    "$DTK" reindex -q && git commit -q -am "change $1"
}
(cd "$md" && git checkout -q -b side && change b && change c && git checkout -q - && change a) ||
    ko "the two changes"

# merged NAME DIR: the operation exited 0 (status in $rc), nothing is in
# conflict, git status is clean, both changes are there and INDEX.md is what
# dtk reindex writes
merged()
{
    if [ "$rc" -ne 0 ]; then ko "$1: exit 0" "exit $rc" "$(head -n 20 "$out")"; return; fi
    if [ -n "$(git -C "$2" status --porcelain)" ]; then
        ko "$1: git status clean" "$(git -C "$2" status --porcelain)" "$(head -n 20 "$out")"
        return
    fi
    if ! grep -q '^bloom: analyze$' "$2/insights/alpha.yaml" ||
        ! grep -q '^bloom: create$' "$2/insights/beta.yaml"; then
        ko "$1: both changes merged"
        return
    fi
    if (cd "$2" && "$DTK" check -q) >"$scratch/check" 2>&1; then
        ok "$1: no conflict, INDEX.md rebuilt from the merged insights/"
    else ko "$1: INDEX.md rebuilt from the merged insights/" "$(head -n 20 "$scratch/check")"; fi
}

# git ARGS...: in a fresh copy of the set-up base
op()
{
    local name=$1
    shift
    rm -rf "$scratch/md-$name"
    cp -R "$md" "$scratch/md-$name"
    (cd "$scratch/md-$name" && "$@") >"$out" 2>&1
    rc=$?
    merged "$name" "$scratch/md-$name"
}
# fix_after CMD...: CMD (a cherry-pick or revert of one commit, where git
# names the driver no commit), which says INDEX.md was kept, then the line
# it says
fix_after()
{
    "$@" 2>"$scratch/said" &&
        grep -qF "ours' INDEX.md kept, not rebuilt; after it, in the base run: dtk reindex && git commit --amend --no-edit INDEX.md" "$scratch/said" &&
        ! "$DTK" check -q >/dev/null 2>&1 && "$DTK" reindex -q && git commit -q --amend --no-edit INDEX.md
}
op merge git merge -q --no-edit side
op rebase git rebase -q side
op cherry-pick fix_after git cherry-pick side~1
op "cherry-pick of two commits" git cherry-pick HEAD..side
op "rebase -i (merge backend)" env GIT_SEQUENCE_EDITOR=: git rebase -q -i side
# revert: a and b in one line of history, a reverted on top of b
rm -rf "$scratch/md-revert"
cp -R "$md" "$scratch/md-revert"
(cd "$scratch/md-revert" && git merge -q --no-edit side && fix_after git revert --no-edit HEAD^1) \
    >"$out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -z "$(git -C "$scratch/md-revert" status --porcelain)" ] &&
    grep -q '^bloom: apply$' "$scratch/md-revert/insights/alpha.yaml" &&
    grep -q '^bloom: create$' "$scratch/md-revert/insights/beta.yaml" &&
    (cd "$scratch/md-revert" && "$DTK" check -q) >/dev/null 2>&1; then
    ok "revert: no conflict, INDEX.md rebuilt from the merged insights/"
else ko "revert: no conflict, INDEX.md rebuilt" "exit $rc" "$(head -n 20 "$out")"; fi
# pull --rebase: a clone holding a pulls the upstream that holds b
rm -rf "$scratch/md-up" "$scratch/md-pull"
cp -R "$md" "$scratch/md-up"
git -C "$scratch/md-up" checkout -q side
git clone -q -b side "$scratch/md-up" "$scratch/md-pull" 2>/dev/null
(cd "$scratch/md-pull" && "$DTK" setup-git >/dev/null &&
    git reset -q --hard "$(git -C "$md" rev-parse HEAD)") || ko "the clone for pull"
(cd "$scratch/md-pull" && git pull -q --rebase origin side) >"$out" 2>&1
rc=$?
merged "pull --rebase" "$scratch/md-pull"

# the node files' driver (merge=dtk-insights) inside it: both sides add an
# entry at the end of alpha.yaml (a line conflict for git), under each
# operation the same merged file and INDEX.md (the side also changes gamma:
# were both INDEX.md the same, git would take it without running the driver)
fresh md2-base
md2=$r
entry()
{
    printf '  - id: alpha-%s\n    title: entry %s\n    claim: Claim %s.\n' "$1" "$1" "$1"
    printf '    confidence: medium\n    source: paper-c\n    created: 2026-07-20\n'
}
(cd "$md2" && "$DTK" setup-git >/dev/null && git add .gitattributes &&
    git commit -q -m "merge with dtk" && git checkout -q -b side &&
    entry 004 >>insights/alpha.yaml && sed -i 's/^bloom: remember$/bloom: understand/' \
        insights/gamma.yaml && "$DTK" reindex -q && git commit -q -am "add 004" &&
    git checkout -q - && entry 005 >>insights/alpha.yaml && "$DTK" reindex -q &&
    git commit -q -am "add 005") >"$out" 2>&1 || ko "the two entries" "$(cat "$out")"
# both NAME CMD...: in a fresh copy, CMD exits 0, alpha.yaml holds both
# entries, git status is clean and INDEX.md is what dtk reindex writes
both()
{
    local name=$1 d=$scratch/md2-$1
    shift
    rm -rf "$d"
    cp -R "$md2" "$d"
    (cd "$d" && "$@") >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ -z "$(git -C "$d" status --porcelain)" ] &&
        grep -q 'alpha-004' "$d/insights/alpha.yaml" &&
        grep -q 'alpha-005' "$d/insights/alpha.yaml" &&
        (cd "$d" && "$DTK" check -q) >/dev/null 2>&1; then
        ok "one node file changed on both sides, $name: both entries, INDEX.md rebuilt"
    else
        ko "one node file changed on both sides, $name" "exit $rc" "$(head -n 20 "$out")" \
            "$(git -C "$d" status --porcelain)"
    fi
}
both merge git merge -q --no-edit side
both rebase git rebase -q side
both cherry-pick fix_after git cherry-pick side

# the hooks around a merge git keeps INDEX.md in (both sides add an entry
# to alpha: the same INDEX.md bytes, so git runs no driver)
fresh md3-base
md3=$r
(cd "$md3" && "$DTK" setup-git >/dev/null && git add .gitattributes &&
    git commit -q -m "merge with dtk" && git checkout -q -b side &&
    entry 004 >>insights/alpha.yaml && "$DTK" reindex -q && git commit -q -am "add 004" &&
    git checkout -q - && entry 005 >>insights/alpha.yaml && "$DTK" reindex -q &&
    git commit -q -am "add 005") >"$out" 2>&1 || ko "the two entries, same INDEX.md" "$(cat "$out")"
d=$scratch/md3-squash
rm -rf "$d" && cp -R "$md3" "$d"
(cd "$d" && git merge -q --squash side) >"$out" 2>&1
same "git merge --squash: post-merge says nothing (nothing is committed yet)" \
    "$(grep -c '^post-merge' "$out")" "0"
# (that commit's INDEX.md does not match the insights/ it holds, HEAD's: the
# check of contrib/pre-commit, the hook setup-git installs, refuses it)
(cd "$d" && "$DTK" reindex -q && cp INDEX.md "$scratch/rebuilt" && git rev-parse HEAD >"$scratch/head" &&
    ! git commit -q -m "INDEX.md only" INDEX.md) >"$out" 2>&1
if cmp -s "$d/INDEX.md" "$scratch/rebuilt" && ! grep -q '^pre-commit: INDEX.md rebuilt' "$out" &&
    grep -q '^pre-commit: commit refused: INDEX.md is out of date' "$out" &&
    [ "$(git -C "$d" rev-parse HEAD)" = "$(cat "$scratch/head")" ]; then
    ok "a commit of INDEX.md alone in a squash: pre-commit leaves it and the work tree alone, and refuses the stale commit"
else ko "a commit of INDEX.md alone in a squash" "$(cat "$out")" "$(git -C "$d" status --short)"; fi
rm -rf "$d" && cp -R "$md3" "$d"
(cd "$d" && git merge -q --squash side && git commit -q -m squashed) >"$out" 2>&1
line=$(sed -n "s/^pre-commit: INDEX.md does not match the staged insights\/; after the commit, run: //p" "$out")
if [ -z "$(git -C "$d" status --porcelain)" ] && [ -n "$line" ] && (cd "$d" && eval "$line") >/dev/null 2>&1 &&
    (cd "$d" && "$DTK" check -q) >/dev/null 2>&1 && [ -z "$(git -C "$d" status --porcelain)" ]; then
    ok "git merge --squash, then git commit: pre-commit says the line (it stages nothing); run, dtk check passes"
else ko "git merge --squash, then git commit" "$(cat "$out")"; fi
# the line post-merge says works in a base whose folder's name holds a quote
q=$scratch/quote
mkdir -p "$q/kb'dir" && cp -R "$pristine/insights" "$pristine/INDEX.md" "$q/kb'dir/"
(cd "$q" && git init -q && git add -A && git commit -q -m base && cd "kb'dir" &&
    "$DTK" setup-git >/dev/null && git add -A && git commit -q -m "merge with dtk" &&
    git checkout -q -b side && entry 004 >>insights/alpha.yaml && "$DTK" reindex -q &&
    git commit -q -am "add 004" && git checkout -q - && entry 005 >>insights/alpha.yaml &&
    "$DTK" reindex -q && git commit -q -am "add 005" && git merge -q --no-edit side) >"$out" 2>&1
line=$(sed -n "s/^post-merge: .*to fix it, run: //p" "$out")
if [ -n "$line" ] && (cd "$q" && eval "$line") >/dev/null 2>&1 &&
    (cd "$q/kb'dir" && "$DTK" check -q) >/dev/null 2>&1; then
    ok "a folder named with a quote: the line post-merge says runs and fixes INDEX.md"
else ko "a folder named with a quote: the line post-merge says" "$(cat "$out")"; fi

# both sides declare a contradiction on one entry of a file whose lists are
# flow: contradicts is written as block lines, which the driver merges item
# by item (a flow list of maps it could only conflict on whole)
d=$scratch/md-contradicts
rm -rf "$d" && cp -R "$md" "$d"
(cd "$d" && git checkout -q -b two && "$DTK" contradict -q beta-001 beta-002 --note A &&
    git commit -q -am "A" && git checkout -q - && "$DTK" contradict -q beta-001 alpha-002 --note M &&
    git commit -q -am "M" && git merge -q --no-edit two) >"$out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -z "$(git -C "$d" status --porcelain)" ] &&
    [ "$(grep -cE '^      - id: (beta|alpha)-002$' "$d/insights/beta.yaml")" = 2 ] &&
    (cd "$d" && "$DTK" check -q) >/dev/null 2>&1; then
    ok "both sides contradict one entry: merged, both kept, INDEX.md rebuilt"
else ko "both sides contradict one entry" "exit $rc" "$(cat "$out")" "$(git -C "$d" status --short)"; fi

t_done
