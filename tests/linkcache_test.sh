#!/usr/bin/env bash
# linkcache_test.sh DTK SOURCE_DIR: dtk show's links cache (docs/design.md,
# "The links cache"): show prints the same bytes with the cache, without it
# (DTK_NO_CACHE=1), cold and warm; a file changed after the cache was made is
# read again, also when its size and mtime are as they were; a damaged or
# unwritable cache is passed over in silence; the cache lives in the git
# directory (a worktree's own), never in the tracked tree.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo linkcache
export XDG_CACHE_HOME=$scratch/xdg
unset DTK_NO_CACHE
# no stat grain (a test build's): a file older than the cache is trusted at once
export DTK_TEST_CACHE_GRAIN_NS=0

# same NAME DIR ARGS...: show's stdout, stderr and status, with the cache as
# it is and then without any cache, are the same bytes
same() {
    local name=$1 dir=$2
    shift 2
    (cd "$dir" && dtk show "$@" >"$scratch/c.out" 2>"$scratch/c.err"; echo $? >>"$scratch/c.err")
    (cd "$dir" && DTK_NO_CACHE=1 dtk show "$@" >"$scratch/n.out" 2>"$scratch/n.err"
        echo $? >>"$scratch/n.err")
    if cmp -s "$scratch/c.out" "$scratch/n.out" && cmp -s "$scratch/c.err" "$scratch/n.err"; then
        ok "$name"
    else
        ko "$name" "$(diff "$scratch/n.out" "$scratch/c.out" | head -5)" \
            "$(diff "$scratch/n.err" "$scratch/c.err" | head -5)"
    fi
}

# ---- the shipped base, outside git: the cache in $XDG_CACHE_HOME/dtk ----
shipped=$scratch/shipped
mkdir -p "$shipped" && cp -R "$SRC/insights" "$SRC/INDEX.md" "$shipped/"
ids=$(sed -n 's/^  - id: \([a-z0-9-]*\)$/\1/p' "$shipped"/insights/[a-z]*.yaml)
nodes=$(cd "$shipped/insights" && ls [a-z]*.yaml | sed 's/\.yaml$//')
bad=0
for round in cold warm; do
    for t in $nodes $ids; do
        for fmt in text json; do
            (cd "$shipped" && dtk show --format $fmt "$t" >"$scratch/c.out" 2>&1)
            (cd "$shipped" && DTK_NO_CACHE=1 dtk show --format $fmt "$t" >"$scratch/n.out" 2>&1)
            cmp -s "$scratch/c.out" "$scratch/n.out" || { bad=$((bad + 1)); echo "differs: $round $fmt $t"; }
        done
    done
done
n=$(echo $nodes $ids | wc -w)
[ "$bad" -eq 0 ] && ok "shipped base: show of its $n nodes and entries, text and json, cold and warm: same bytes" ||
    ko "shipped base: $bad outputs differ with the cache"
ls "$XDG_CACHE_HOME"/dtk/links-* >/dev/null 2>&1 && ok "outside git: the cache is in \$XDG_CACHE_HOME/dtk" ||
    ko "outside git: no cache in $XDG_CACHE_HOME/dtk"
[ -z "$(cd "$shipped" && find . -newer INDEX.md -print | grep -v '^\.$')" ] &&
    ok "outside git: nothing written in the base" || ko "outside git: files written in the base"
rm -rf "$XDG_CACHE_HOME"
(cd "$shipped" && DTK_NO_CACHE=1 dtk show training-parallelism >/dev/null)
[ ! -e "$XDG_CACHE_HOME" ] && ok "DTK_NO_CACHE=1: no cache made" || ko "DTK_NO_CACHE=1 made a cache"

# ---- a base in git with links across nodes ----
# delta names alpha; alpha names beta (it contradicts beta-001)
(cd "$repo" && dtk add-node --category 策略 delta >/dev/null &&
    printf '%s\n' 'node: delta' 'bloom: remember' 'insights:' '  - id: delta-001' \
        '    title: D' '    claim: d.' '    confidence: low' '    source: paper-a' \
        '    created: 2026-02-10' '    relates: [alpha-002]' >insights/delta.yaml &&
    dtk relate beta-002 alpha-001 >/dev/null && dtk reindex -q && git add -A &&
    git commit -qm base) || ko "make a base with links across nodes"
for t in alpha beta gamma delta alpha-001 alpha-002 alpha-003 beta-001 beta-002 delta-001; do
    same "git base: show $t" "$repo" "$t"
    same "git base: show $t --format json" "$repo" --format json "$t"
done
grep -q '"referenced_by"' "$scratch/c.out" && ok "json: referenced_by is there" ||
    ko "json: no referenced_by" "$(head -c 300 "$scratch/c.out")"
cache=$(ls "$repo"/.git/dtk/links-* 2>/dev/null)
[ -n "$cache" ] && ok "in git: the cache is in .git/dtk/" || ko "in git: no cache in .git/dtk"
[ -z "$(cd "$repo" && git status --porcelain --ignored)" ] && ok "in git: the work tree is untouched" ||
    ko "in git: the work tree changed" "$(cd "$repo" && git status --porcelain --ignored)"

# ---- never stale: a same-size rewrite, its mtime set back (same inode) ----
# delta names alpha, not beta; rewritten to name beta, beta's show must see
# it (a stale entry would say delta does not name beta, and skip it)
b=$repo/insights/delta.yaml
touch -d '2020-01-01 00:00:00' "$b"
(cd "$repo" && dtk show beta >/dev/null && dtk show beta >"$scratch/before")
grep -q 'delta-001' "$scratch/before" && ko "stale: beta named by delta before the change" ||
    ok "stale: beta not named by delta, cached"
size0=$(stat -c %s "$b")
sed 's/\[alpha-002\]$/[beta-002] /' "$b" >"$scratch/b.new"
cat "$scratch/b.new" >"$b" # the same inode, rewritten
touch -d '2020-01-01 00:00:00' "$b"
[ "$(stat -c %s "$b")" = "$size0" ] && grep -q 'beta-002' "$b" &&
    [ "$(stat -c %Y "$b")" = "$(date -d '2020-01-01 00:00:00' +%s)" ] &&
    ok "stale: rewritten with the same size and mtime" ||
    ko "stale: the rewrite did not keep size and mtime"
same "stale: show beta after the rewrite" "$repo" beta
grep -q 'delta-001 relates beta-002' "$scratch/c.out" &&
    ok "stale: a same-size rewrite with the same mtime is read again" ||
    ko "stale: show beta misses the new link" "$(cat "$scratch/c.out")"
same "stale: show beta-002 after the rewrite" "$repo" beta-002
grep -q 'related by: *delta-001' "$scratch/c.out" && ok "stale: beta-002's new link found" ||
    ko "stale: beta-002's new link missing" "$(cat "$scratch/c.out")"
# within the same second as the cache: written, shown, rewritten at once
git -C "$repo" checkout -q -- insights/delta.yaml
cat "$b" >"$scratch/b.old" && cat "$scratch/b.old" >"$b"
(cd "$repo" && dtk show beta >/dev/null)
m=$(stat -c %y "$b")
sed 's/\[alpha-002\]$/[beta-002] /' "$b" >"$scratch/b.new"
cat "$scratch/b.new" >"$b"
touch -d "$m" "$b"
same "racy: a rewrite within the cache's second, mtime kept" "$repo" beta
grep -q 'delta-001 relates beta-002' "$scratch/c.out" && ok "racy: the new link is there" ||
    ko "racy: the new link is missing"
git -C "$repo" checkout -q -- insights/delta.yaml

# ---- damage: silent, and the same output ----
(cd "$repo" && dtk show alpha >/dev/null)
printf 'XXXX' | dd of="$cache" bs=1 seek=60 conv=notrunc 2>/dev/null
same "corrupt cache: same output, nothing on stderr" "$repo" alpha
[ "$(head -c -2 "$scratch/c.err")" = "" ] && ok "corrupt cache: silent" || ko "corrupt cache: said something"
(cd "$repo" && dtk show alpha >/dev/null)
head -c 100 "$cache" >"$scratch/trunc" && cat "$scratch/trunc" >"$cache"
same "truncated cache: same output" "$repo" alpha
sed -i 's/^dtk links cache 1$/dtk links cache 7/' "$cache"
same "cache of another version: same output" "$repo" --format json alpha
rm -f "$cache" && mkdir "$cache"
same "a directory in the cache's place: same output" "$repo" alpha
[ -d "$cache" ] && ok "a directory in the cache's place: left alone" || ko "the directory was replaced"
rm -rf "$cache" && mkfifo "$cache"
(cd "$repo" && timeout 20 dtk show alpha >"$scratch/f.out" 2>&1)
if [ $? -ne 124 ]; then
    ok "a FIFO in the cache's place: show does not wait on it"
    same "a FIFO in the cache's place: same output" "$repo" alpha
else
    ko "a FIFO in the cache's place: show hangs"
fi
rm -f "$cache"
rm -rf "$repo/.git/dtk" && echo x >"$repo/.git/dtk"
same "no place for the cache (a file where its folder goes): same output" "$repo" beta-001
[ "$(cat "$repo/.git/dtk")" = x ] && ok "unwritable place: left alone" || ko "unwritable place changed"
rm -f "$repo/.git/dtk"

# ---- concurrent shows: each right, the cache whole afterwards ----
for i in 1 2 3 4 5 6; do
    (cd "$repo" && dtk show --format json alpha >"$scratch/p$i.out" 2>&1) &
done
wait
(cd "$repo" && DTK_NO_CACHE=1 dtk show --format json alpha >"$scratch/ref.out")
k=0
for i in 1 2 3 4 5 6; do cmp -s "$scratch/p$i.out" "$scratch/ref.out" || k=$((k + 1)); done
[ "$k" -eq 0 ] && ok "six shows at once: all right" || ko "six shows at once: $k differ"
[ "$(ls "$repo/.git/dtk" | wc -l)" = 1 ] && ok "six shows at once: one cache file, no temporary left" ||
    ko "six shows at once: $(ls "$repo/.git/dtk")"
same "after six shows at once: the cache is whole" "$repo" --format json alpha

# ---- shows while writes change the base: then what the files say ----
(cd "$repo" && dtk show alpha >/dev/null)
(cd "$repo" && for t in alpha-002 alpha-003; do dtk relate beta-002 $t >/dev/null || exit 1; done) &
w=$!
for i in 1 2 3 4 5 6; do (cd "$repo" && dtk show alpha >/dev/null 2>&1) & done
wait $w && ok "writes during shows: done" || ko "writes during shows failed"
wait
same "after writes during shows: show alpha" "$repo" alpha
grep -q 'beta-002 relates alpha-003' "$scratch/c.out" && ok "after writes during shows: the new link is there" ||
    ko "after writes during shows: the new link is missing" "$(cat "$scratch/c.out")"
same "after writes during shows: show alpha-003 --format json" "$repo" --format json alpha-003

# ---- a worktree: its own git directory ----
git -C "$repo" worktree add -q "$scratch/wt" 2>/dev/null || ko "git worktree add"
same "worktree: show alpha" "$scratch/wt" alpha
ls "$repo"/.git/worktrees/wt/dtk/links-* >/dev/null 2>&1 &&
    ok "worktree: the cache is in the worktree's git directory" || ko "worktree: no cache in .git/worktrees/wt/dtk"

t_done
