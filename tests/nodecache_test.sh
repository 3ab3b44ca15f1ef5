#!/usr/bin/env bash
# nodecache_test.sh DTK SOURCE_DIR: the node cache (docs/design.md, "The node
# cache"): search, show and the other commands print the same bytes, on
# stdout and stderr, with the same status, with the cache cold, warm and
# without it (DTK_NO_CACHE=1), on the shipped base and after every kind of
# change a cached node depends on: its file rewritten (same size and mtime
# too), a source it names gone, the policy changed, the file made invalid or
# a link, a link to another node added; a damaged cache is passed over; the
# cache lives in the git directory (a worktree's own), never in the tree.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo nodecache
export XDG_CACHE_HOME=$scratch/xdg
unset DTK_NO_CACHE
# no stat grain (a test build's): a file older than the cache is trusted at
# once, without waiting for the clock
export DTK_TEST_CACHE_GRAIN_NS=0

# run DIR OUT ARGS...: search's stdout, then stderr and status, in OUT.out/.err
run() {
    local dir=$1 out=$2
    shift 2
    (cd "$dir" && dtk search "$@" >"$out.out" 2>"$out.err"; echo "status $?" >>"$out.err")
}

# runc DIR OUT ARGS...: dtk ARGS's stdout, then stderr and status, in OUT.out/.err
runc() {
    local dir=$1 out=$2
    shift 2
    (cd "$dir" && dtk "$@" >"$out.out" 2>"$out.err"; echo "status $?" >>"$out.err")
}

# The other commands that read the base through the cache (each compared
# as search is): the checks across files, INDEX.md, the lists, the plan.
others=("check" "reindex --stdout" "list --format json" "list --nodes --format jsonl"
    "crystallize --plan --date 2026-04-01")
# prep: a command run before each run with the cache (the damage tests
# damage it again: a run mends it)
prep=:

# same NAME DIR ARGS...: with the cache as it is, and without any, search
# prints the same bytes with the same status; so do the other commands
same() {
    local name=$1 dir=$2 c bad=""
    shift 2
    $prep
    run "$dir" "$scratch/c" "$@"
    DTK_NO_CACHE=1 run "$dir" "$scratch/n" "$@"
    cmp -s "$scratch/c.out" "$scratch/n.out" && cmp -s "$scratch/c.err" "$scratch/n.err" ||
        bad="search $*: $(diff "$scratch/n.out" "$scratch/c.out" | head -5) $(diff "$scratch/n.err" "$scratch/c.err" | head -5)"
    cp "$scratch/c.out" "$scratch/s.out" && cp "$scratch/c.err" "$scratch/s.err"
    local shows=() t
    for t in "$dir"/insights/[a-z]*.yaml; do
        t=${t##*/}
        shows+=("show --format json ${t%.yaml}")
    done
    for c in "${others[@]}" "${shows[@]}"; do
        $prep
        # shellcheck disable=SC2086 # each is words
        runc "$dir" "$scratch/o" $c
        # shellcheck disable=SC2086
        DTK_NO_CACHE=1 runc "$dir" "$scratch/p" $c
        cmp -s "$scratch/o.out" "$scratch/p.out" && cmp -s "$scratch/o.err" "$scratch/p.err" ||
            bad="$bad; $c: $(diff "$scratch/p.out" "$scratch/o.out" | head -5) $(diff "$scratch/p.err" "$scratch/o.err" | head -5)"
    done
    cp "$scratch/s.out" "$scratch/c.out" && cp "$scratch/s.err" "$scratch/c.err"
    if [ -z "$bad" ]; then
        ok "$name"
    else
        ko "$name" "$bad"
    fi
}

# old DIR: the base's files older than the cache's grain (their ctimes too)
old() {
    touch -d '2020-01-01 00:00:00' "$1"/insights/*.yaml
}

# ---- the shipped base, outside git: the cache in $XDG_CACHE_HOME/dtk ----
shipped=$scratch/shipped
mkdir -p "$shipped" && cp -R "$SRC/insights" "$SRC/INDEX.md" "$shipped/"
old "$shipped"
queries=("nccl" "通信" "rank 通信" "ＮＣＣＬ" "checkpoint" "a" "zzznothing" "--node=collective-communication 通信"
    "--confidence=high a" "--limit=3 a" "--format=json a" "--format=jsonl 通信" "--format=ids e"
    "--node=nosuch a" "--color=always nccl")
bad=0
for round in cold warm again; do
    for q in "${queries[@]}"; do
        # shellcheck disable=SC2086 # each query is words and options
        run "$shipped" "$scratch/c" $q
        # shellcheck disable=SC2086
        DTK_NO_CACHE=1 run "$shipped" "$scratch/n" $q
        cmp -s "$scratch/c.out" "$scratch/n.out" && cmp -s "$scratch/c.err" "$scratch/n.err" ||
            { bad=$((bad + 1)); echo "differs: $round: search $q"; }
    done
done
[ "$bad" -eq 0 ] && ok "shipped base: ${#queries[@]} searches (every format, filters, CJK, none found), cold, warm and again: same bytes and status" ||
    ko "shipped base: $bad searches differ with the cache"
cache=$(ls "$XDG_CACHE_HOME"/dtk/nodes-* 2>/dev/null)
[ -n "$cache" ] && ok "outside git: the cache is in \$XDG_CACHE_HOME/dtk" ||
    ko "outside git: no node cache in $XDG_CACHE_HOME/dtk"
# builds of one version may make other nodes (a new check): the cache names
# the program's build id, so that another build's cache is not read
id=$(readelf -n "$DTK" 2>/dev/null | sed -n 's/^ *Build ID: *//p')
if [ -n "$id" ]; then
    grep -aqx "build [^ ]* [0-9]* $id" "$cache" && ok "the cache names the program's build id" ||
        ko "the cache does not name the build id $id" "$(grep -a '^build' "$cache")"
else
    grep -aqx "build [^ ]* [0-9]* exe-[0-9-]*" "$cache" && ok "the cache names the program's file" ||
        ko "the cache names neither a build id nor the program" "$(grep -a '^build' "$cache")"
fi
n=$(ls "$shipped"/insights/[a-z]*.yaml | wc -l)
recs=$(grep -ac '^[a-z0-9-]*\.yaml [0-9]' "$cache" 2>/dev/null || true)
[ "$recs" = "$n" ] && ok "every node file of the shipped base has a record ($n)" ||
    ko "the cache holds $recs records for $n node files"
before=$(stat -c %Y.%Z "$cache")
run "$shipped" "$scratch/c" 通信
[ "$(stat -c %Y.%Z "$cache")" = "$before" ] && ok "a warm search leaves the cache as it is" ||
    ko "a warm search wrote the cache again"
[ -z "$(cd "$shipped" && find . -newer INDEX.md -print | grep -v '^\.$')" ] &&
    ok "outside git: nothing written in the base" || ko "outside git: files written in the base"
rm -rf "$XDG_CACHE_HOME"
(cd "$shipped" && DTK_NO_CACHE=1 dtk search nccl >/dev/null)
[ ! -e "$XDG_CACHE_HOME" ] && ok "DTK_NO_CACHE=1: no cache made" || ko "DTK_NO_CACHE=1 made a cache"

# ---- a base in git: every change a cached node depends on ----
old "$repo"
(cd "$repo" && dtk search a >/dev/null)
ls "$repo"/.git/dtk/nodes-* >/dev/null 2>&1 && ok "in git: the cache is in .git/dtk" ||
    ko "in git: no node cache in .git/dtk"
[ -z "$(cd "$repo" && git status --porcelain --ignored | grep -v '^??')" ] &&
    ok "in git: the work tree is untouched" || ko "in git: the work tree changed"
same "warm, in git" "$repo" a --format json

# alpha.yaml rewritten to other bytes of the same size, its mtime put back
a=$repo/insights/alpha.yaml
m=$(stat -c %y "$a")
sed -i 's/Communicators fix rank/COMMUNICATORS fix rank/' "$a" && touch -d "$m" "$a"
same "a file rewritten, same size and mtime: read again" "$repo" communicators --format json
grep -q 'COMMUNICATORS' "$scratch/c.out" && ok "  ... and the new bytes are what search shows" ||
    ko "  ... search shows the old bytes" "$(head -3 "$scratch/c.out")"
old "$repo"
(cd "$repo" && dtk search a >/dev/null)

# a source a cached node names is gone from _sources.yaml
cp "$repo/insights/_sources.yaml" "$scratch/sources"
sed -i '/^- id: paper-a$/,/^  read:/d' "$repo/insights/_sources.yaml"
same "a source a cached node names is gone: the error is reported" "$repo" a
grep -q "unknown source 'paper-a'" "$scratch/c.err" && ok "  ... as an unknown source, exit 2" ||
    ko "  ... not reported" "$(cat "$scratch/c.err")"
cp "$scratch/sources" "$repo/insights/_sources.yaml"
same "the source back: no error" "$repo" a

# the policy asks more verifications of a high entry
sed -i 's/high_min_verified: 2/high_min_verified: 3/' "$repo/insights/_domain.yaml"
same "the policy changed: a cached high entry is checked again" "$repo" a
grep -q "needs at least 3" "$scratch/c.err" && ok "  ... and reported" ||
    ko "  ... not reported" "$(cat "$scratch/c.err")"
sed -i 's/high_min_verified: 3/high_min_verified: 2/' "$repo/insights/_domain.yaml"

# check warns of invisible characters in every node file: a cached record
# says whether its bytes hold one (or a backslash), so that a warm check
# reads again only those that do; the warning stays, cache or not
cp "$a" "$scratch/alpha"
printf '# a zero width space: \xe2\x80\x8b\n' >>"$a"
old "$repo"
(cd "$repo" && dtk check >/dev/null 2>&1)
same "an invisible character in a comment: check warns with the cache warm" "$repo" a
(cd "$repo" && dtk check >/dev/null 2>"$scratch/w.err")
grep -q "U+200B" "$scratch/w.err" && ok "  ... warned of, warm" || ko "  ... no warning when warm" "$(cat "$scratch/w.err")"
cp "$scratch/alpha" "$a"
old "$repo"
(cd "$repo" && dtk check >/dev/null 2>&1)
(cd "$repo" && dtk check >/dev/null 2>"$scratch/w.err")
grep -q "U+200B" "$scratch/w.err" && ko "  ... warned of after it was removed" || ok "  ... gone once removed"

# a cached file made invalid, then a link to another file
cp "$a" "$scratch/alpha"
printf '  - id: broken\n' >>"$a"
same "a cached file made invalid: its errors are reported" "$repo" a
grep -q "status 2" "$scratch/c.err" && ok "  ... exit 2" || ko "  ... not exit 2"
cp "$scratch/alpha" "$a"
(cd "$repo/insights" && cp beta.yaml beta2.yaml && rm beta.yaml && ln -s beta2.yaml beta.yaml)
same "a node file made a link: as without the cache" "$repo" a --format json
(cd "$repo/insights" && rm beta.yaml && mv beta2.yaml beta.yaml)
(cd "$repo/insights" && mv gamma.yaml "$scratch/gamma")
same "a cached node file removed" "$repo" a --format jsonl
mv "$scratch/gamma" "$repo/insights/gamma.yaml"

# insights/ made a link leading out of the base, its files (the same inodes)
# moved with it: the node files are outside, as without the cache
old "$repo"
(cd "$repo" && dtk search a >/dev/null)
mkdir "$scratch/away" && mv "$repo/insights" "$scratch/away/" && ln -s ../away/insights "$repo/insights"
same "insights/ a link leading out: the node files are reported" "$repo" a
grep -q "insights/alpha.yaml:1:1: error" "$scratch/c.err" && ok "  ... alpha.yaml among them" ||
    ko "  ... alpha.yaml not reported" "$(cat "$scratch/c.err")"
rm "$repo/insights" && mv "$scratch/away/insights" "$repo/"

# --node: another node file that cannot be read is reported, cache or not
cp "$repo/insights/beta.yaml" "$scratch/beta"
head -c 17000000 /dev/zero | tr '\0' '#' >>"$repo/insights/beta.yaml"
same "--node: another node file over the size limit is reported" "$repo" a --node alpha
grep -q "insights/beta.yaml:1:1: error: file is larger" "$scratch/c.err" && ok "  ... exit 2" ||
    ko "  ... not reported" "$(cat "$scratch/c.err")"
cp "$scratch/beta" "$repo/insights/beta.yaml"

# ---- the summaries (docs/design.md, "Node summaries"): check, reindex and
# the writes read a node file the cache holds as its summary alone; what
# the summary says across files (open contradictions listed once, links to
# retired entries, references left dangling, dates after today, the
# language of INDEX.md) is what the node file says ----
keep=$scratch/insights.keep
rm -rf "$keep" && cp -R "$repo/insights" "$keep"
# warm NAME: the files older than the grain, the cache warm, then compared
warm() {
    old "$repo"
    (cd "$repo" && dtk check >/dev/null 2>&1)
    same "summaries: $1" "$repo" a
}
# says WHAT PATTERN: warm check's standard error matches PATTERN
says() {
    (cd "$repo" && dtk check >/dev/null 2>"$scratch/w.err")
    grep -q "$2" "$scratch/w.err" && ok "  ... $1" || ko "  ... not $1" "$(cat "$scratch/w.err")"
}
(cd "$repo" && dtk contradict beta-002 alpha-002 --note x >/dev/null) 2>"$scratch/w.err" ||
    ko "summaries: contradict" "$(cat "$scratch/w.err")"
# the other side declares it too (by hand: dtk contradict refuses a pair twice)
sed -i 's/^    relates: \[alpha-001, cluster-infra:scale-up-interconnect-055\]$/&\n    contradicts: [{id: beta-002, status: open, note: y}]/' \
    "$repo/insights/alpha.yaml"
grep -q 'id: beta-002, status: open' "$repo/insights/alpha.yaml" || ko "summaries: alpha-002 contradicts beta-002"
warm "a contradiction open on both sides, in two nodes"
[ "$(cd "$repo" && dtk reindex --stdout | grep -c 'beta-002.*alpha-002\|alpha-002.*beta-002')" = 1 ] &&
    ok "  ... listed once" || ko "  ... not listed once" "$(cd "$repo" && dtk reindex --stdout | grep beta-002)"
(cd "$repo" && dtk relate beta-001 alpha-001 >/dev/null && dtk retract --reason gone alpha-001 >/dev/null) ||
    ko "summaries: relate and retract"
warm "an entry of another node relates to one retracted"
says "warned of, warm" "beta-001 relates to alpha-001, which is retracted"
sed -i '/^  - id: beta-002$/,$d' "$repo/insights/beta.yaml"
warm "an entry another node names removed: the reference dangles"
says "reported at the cached node's line" "alpha.yaml:.*'contradicts' names unknown entry 'beta-002'"
rm -rf "$repo/insights" && cp -R "$keep" "$repo/insights"
sed -i 's/created: 2026-02-01/created: 2099-02-01/' "$repo/insights/alpha.yaml"
warm "a date after today in a cached node"
says "warned of, warm" "'created' 2099-02-01 is after today"
rm -rf "$repo/insights" && cp -R "$keep" "$repo/insights"
warm "back as it was"
# a source put first: every place a summary names moves, so none holds;
# the files are parsed once and their records made again, which hold
{ printf -- '- id: aaa-first\n  title: First\n'; cat "$keep/_sources.yaml"; } >"$repo/insights/_sources.yaml"
warm "a source put first: the places the summaries name move"
cache=$(ls "$repo"/.git/dtk/nodes-*)
before=$(stat -c %s.%Y.%Z "$cache")
sleep 0.01
(cd "$repo" && dtk check >/dev/null 2>&1)
[ "$(stat -c %s.%Y.%Z "$cache")" = "$before" ] && ok "  ... the records made again hold: the cache is left as it is" ||
    ko "  ... the cache is written again at each run"
rm -rf "$repo/insights" && cp -R "$keep" "$repo/insights"
# a source renamed in _sources.yaml and in beta, not in alpha: alpha's
# summary names it by its place, which now holds another id
sed -i 's/^- id: paper-b$/- id: paper-x/' "$repo/insights/_sources.yaml"
sed -i 's/paper-b/paper-x/g' "$repo/insights/beta.yaml"
warm "a source alpha names renamed"
says "reported, warm" "alpha.yaml:.*unknown source 'paper-b'"
rm -rf "$repo/insights" && cp -R "$keep" "$repo/insights"
printf 'lang: en\n' >>"$repo/insights/_domain.yaml"
same "summaries: INDEX.md in English with the cache made for Chinese" "$repo" a
warm "INDEX.md in English, warm"
rm -rf "$repo/insights" && cp -R "$keep" "$repo/insights"

# ---- the racily clean rule: a file changed within the stat grain (2 s,
# DTK_TEST_CACHE_GRAIN_NS unset) is never trusted: its record is made again ----
touch "$repo"/insights/*.yaml
(cd "$repo" && unset DTK_TEST_CACHE_GRAIN_NS && dtk check -q)
c=$(ls "$repo"/.git/dtk/nodes-*)
# what says the cache was written (appended to, or made anew): its inode,
# its size and its head (where its index is)
csig() { echo "$(stat -c '%i %s' "$c") $(head -c 64 "$c" | cksum)"; }
sig=$(csig)
(cd "$repo" && unset DTK_TEST_CACHE_GRAIN_NS && dtk check -q)
[ "$(csig)" != "$sig" ] &&
    ok "files changed within the grain: not trusted, the cache written again" ||
    ko "files changed within the grain were trusted"
sig=$(csig)
(cd "$repo" && dtk check -q) # no grain: trusted
[ "$(csig)" = "$sig" ] &&
    ok "  ... older than the cache, with no grain: trusted, the cache left as it is" ||
    ko "  ... with no grain, the cache was written again"

# ---- a write: the same files and output with the cache and without; the
# next command finds the base as it is ----
for m in c n; do
    rm -rf "$scratch/w$m" && cp -R "$repo" "$scratch/w$m"
    (cd "$scratch/w$m" && dtk check -q >/dev/null)
done
runc "$scratch/wc" "$scratch/wc" use alpha-001
DTK_NO_CACHE=1 runc "$scratch/wn" "$scratch/wn" use alpha-001
cmp -s "$scratch/wc.out" "$scratch/wn.out" && cmp -s "$scratch/wc.err" "$scratch/wn.err" &&
    diff -r -x _uses "$scratch/wc/insights" "$scratch/wn/insights" >/dev/null &&
    [ "$(cat "$scratch"/wc/insights/_uses/*)" = "$(cat "$scratch"/wn/insights/_uses/*)" ] &&
    cmp -s "$scratch/wc/INDEX.md" "$scratch/wn/INDEX.md" &&
    ok "use: the same output, node files, record and INDEX.md with the cache and without" ||
    ko "use differs with the cache"
same "after a write" "$scratch/wc" used

# ---- one node file changed: its record is appended to the cache file;
# the other records stay where they are, not written again ----
c=$(ls -t "$scratch/wc"/.git/dtk/nodes-* | head -1) # the base copied has its own
ino=$(stat -c %i "$c") size=$(stat -c %s "$c")
echo "# appended" >>"$scratch/wc/insights/beta.yaml"
(cd "$scratch/wc" && dtk check -q)
grown=$(($(stat -c %s "$c") - size))
[ "$(stat -c %i "$c")" = "$ino" ] && [ "$grown" -gt 0 ] &&
    [ "$grown" -lt $(($(stat -c %s "$scratch/wc/insights/beta.yaml") * 2 + 4096)) ] &&
    ok "one file changed: its record appended to the cache ($grown bytes)" ||
    ko "one file changed: the cache was not appended to" "inode $ino -> $(stat -c %i "$c"), grown $grown"
same "after a record appended" "$scratch/wc" used

# ---- damage: the cache passed over, the output the same ----
old "$repo"
(cd "$repo" && dtk search a >/dev/null)
cache=$(ls "$repo"/.git/dtk/nodes-*)
cp "$cache" "$scratch/good"
size=$(stat -c %s "$cache")
damage_at() {
    cp "$scratch/good" "$cache"
    printf '\x01' | dd of="$cache" bs=1 seek="$at" conv=notrunc 2>/dev/null
}
for at in 1 30 70 $((size / 4)) $((size / 2)) $((size - 20)) $((size - 1)); do
    prep=damage_at
    same "a byte changed at $at of $size" "$repo" a --format json
done
truncated() { cp "$scratch/good" "$cache" && truncate -s $((size - 7)) "$cache"; }
prep=truncated
same "truncated" "$repo" a
for cut in 64 $((size / 2)); do
    cut_at() { cp "$scratch/good" "$cache" && truncate -s "$cut" "$cache"; }
    prep=cut_at
    same "truncated to $cut bytes" "$repo" a
done
garbage() { printf 'garbage\n' >"$cache"; }
prep=garbage
same "garbage" "$repo" a
linked() { rm -rf "$cache" && cp "$scratch/good" "$scratch/elsewhere" && ln -s "$scratch/elsewhere" "$cache"; }
prep=linked
same "a link in its place (to a good cache)" "$repo" a
[ -L "$cache" ] || [ ! -e "$scratch/elsewhere" ] || cmp -s "$scratch/elsewhere" "$scratch/good" &&
    ok "  ... the file it leads to is not written" || ko "  ... the file it leads to was written"
prep=:
rm -f "$cache" && mkdir "$cache"
same "a directory in its place" "$repo" a
rmdir "$cache"
mkfifo "$cache"
(cd "$repo" && timeout 20 dtk search a >/dev/null 2>&1)
if [ $? -ne 124 ]; then
    ok "a FIFO in its place: search does not wait on it"
    fifo() { [ -p "$cache" ] || { rm -f "$cache" && mkfifo "$cache"; }; }
    prep=fifo
    same "a FIFO in its place" "$repo" a
    prep=:
else
    ko "a FIFO in its place: search hangs"
fi
rm -f "$cache"
chmod 500 "$repo/.git/dtk"
same "its directory read-only" "$repo" a
chmod 700 "$repo/.git/dtk"

# ---- several searches at once, the cache being written ----
rm -f "$repo"/.git/dtk/nodes-*
DTK_NO_CACHE=1 run "$repo" "$scratch/n" a --format json
pids=()
for i in 1 2 3 4 5 6; do
    run "$repo" "$scratch/p$i" a --format json &
    pids+=($!)
done
wait "${pids[@]}"
bad=0
for i in 1 2 3 4 5 6; do
    cmp -s "$scratch/p$i.out" "$scratch/n.out" && cmp -s "$scratch/p$i.err" "$scratch/n.err" ||
        bad=$((bad + 1))
done
[ "$bad" -eq 0 ] && ok "six searches at once: the same bytes" || ko "$bad of six searches at once differ"
same "after them: the cache they left" "$repo" a --format json
[ -z "$(ls "$repo"/.git/dtk/ | grep -v '^nodes-[0-9a-f]*$')" ] &&
    ok "no temporary file left beside the cache" || ko "left: $(ls "$repo"/.git/dtk/)"

# a writer killed before its rename left its temporary file (as large as the
# cache): the next writer removes those unchanged for 10 minutes, no other
name=$(basename "$(ls "$repo"/.git/dtk/nodes-*)")
touch -d '2020-01-01' "$repo/.git/dtk/$name.Kil1ed" "$repo/.git/dtk/other.Abc123"
touch "$repo/.git/dtk/$name.Live01"
rm "$repo/.git/dtk/$name"
run "$repo" "$scratch/c" a
[ ! -e "$repo/.git/dtk/$name.Kil1ed" ] && ok "a killed writer's temporary file: removed" ||
    ko "a killed writer's temporary file is left"
[ -e "$repo/.git/dtk/$name.Live01" ] && [ -e "$repo/.git/dtk/other.Abc123" ] &&
    ok "  ... a recent one and another file: left" || ko "  ... a recent one or another file removed"

# ---- show: it reads only the node files that name the node shown, by the
# links each record keeps ----
# show_same NAME DIR ARGS...: show's stdout, stderr and status, with the
# cache as it is and then without any cache, are the same bytes
show_same() {
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
shipped_ids=$(sed -n 's/^  - id: \([a-z0-9-]*\)$/\1/p' "$shipped"/insights/[a-z]*.yaml)
shipped_nodes=$(cd "$shipped/insights" && ls [a-z]*.yaml | sed 's/\.yaml$//')
bad=0
for round in cold warm; do
    [ $round = cold ] && rm -rf "$XDG_CACHE_HOME"
    for t in $shipped_nodes $shipped_ids; do
        for fmt in text json; do
            (cd "$shipped" && dtk show --format $fmt "$t" >"$scratch/c.out" 2>&1)
            (cd "$shipped" && DTK_NO_CACHE=1 dtk show --format $fmt "$t" >"$scratch/n.out" 2>&1)
            cmp -s "$scratch/c.out" "$scratch/n.out" || { bad=$((bad + 1)); echo "differs: $round $fmt $t"; }
        done
    done
done
n=$(echo $shipped_nodes $shipped_ids | wc -w)
[ "$bad" -eq 0 ] && ok "shipped base: show of its $n nodes and entries, text and json, cold and warm: same bytes" ||
    ko "shipped base: $bad shows differ with the cache"
repo=$scratch/showrepo
git init -q "$repo" && cp -R "$SRC/tests/fixtures/base/." "$repo/" &&
    (cd "$repo" && git add -A && git commit -qm fixture) || ko "make the show base"
# ---- a base in git with links across nodes ----
# delta names alpha; alpha names beta (it contradicts beta-001)
(cd "$repo" && dtk add-node --category 策略 delta >/dev/null &&
    printf '%s\n' 'node: delta' 'bloom: remember' 'insights:' '  - id: delta-001' \
        '    title: D' '    claim: d.' '    confidence: low' '    source: paper-a' \
        '    created: 2026-02-10' '    relates: [alpha-002]' >insights/delta.yaml &&
    dtk relate beta-002 alpha-001 >/dev/null && dtk reindex -q && git add -A &&
    git commit -qm base) || ko "make a base with links across nodes"
for t in alpha beta gamma delta alpha-001 alpha-002 alpha-003 beta-001 beta-002 delta-001; do
    show_same "git base: show $t" "$repo" "$t"
    show_same "git base: show $t --format json" "$repo" --format json "$t"
done
grep -q '"referenced_by"' "$scratch/c.out" && ok "json: referenced_by is there" ||
    ko "json: no referenced_by" "$(head -c 300 "$scratch/c.out")"
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
show_same "stale: show beta after the rewrite" "$repo" beta
grep -q 'delta-001 relates beta-002' "$scratch/c.out" &&
    ok "stale: a same-size rewrite with the same mtime is read again" ||
    ko "stale: show beta misses the new link" "$(cat "$scratch/c.out")"
show_same "stale: show beta-002 after the rewrite" "$repo" beta-002
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
show_same "racy: a rewrite within the cache's second, mtime kept" "$repo" beta
grep -q 'delta-001 relates beta-002' "$scratch/c.out" && ok "racy: the new link is there" ||
    ko "racy: the new link is missing"
git -C "$repo" checkout -q -- insights/delta.yaml

# a fresh id (not digits) named from another node: the node's show lists it
fresh=$(cd "$repo" && dtk add --title "Fresh" --claim "fresh." --source paper-a \
    --confidence low beta 2>/dev/null | sed -n 's/^\(beta-[0-9a-z]*\).*/\1/p' | head -1)
(cd "$repo" && dtk relate delta-001 "$fresh" >/dev/null) || ko "relate delta-001 to a fresh id"
show_same "a fresh id named from another node: show beta" "$repo" beta
grep -q "delta-001 relates $fresh" "$scratch/c.out" && ok "  ... the node's show lists the link to $fresh" ||
    ko "  ... the link to the fresh id $fresh is missing" "$(cat "$scratch/c.out")"
show_same "  ... and the entry's show, json" "$repo" --format json "$fresh"
git -C "$repo" checkout -q -- . && git -C "$repo" clean -qfd insights

# ---- concurrent shows: each right, the cache whole afterwards ----
for i in 1 2 3 4 5 6; do
    (cd "$repo" && dtk show --format json alpha >"$scratch/p$i.out" 2>&1) &
done
wait
(cd "$repo" && DTK_NO_CACHE=1 dtk show --format json alpha >"$scratch/ref.out")
k=0
for i in 1 2 3 4 5 6; do cmp -s "$scratch/p$i.out" "$scratch/ref.out" || k=$((k + 1)); done
[ "$k" -eq 0 ] && ok "six shows at once: all right" || ko "six shows at once: $k differ"
# (beside it, the index of terms that dtk add's check wrote: similar_index.c)
[ "$(ls "$repo/.git/dtk" | grep -vc '^terms-')" = 1 ] && ok "six shows at once: one cache file, no temporary left" ||
    ko "six shows at once: $(ls "$repo/.git/dtk")"
show_same "after six shows at once: the cache is whole" "$repo" --format json alpha

# ---- shows while writes change the base: then what the files say ----
(cd "$repo" && dtk show alpha >/dev/null)
(cd "$repo" && for t in alpha-002 alpha-003; do dtk relate beta-002 $t >/dev/null || exit 1; done) &
w=$!
for i in 1 2 3 4 5 6; do (cd "$repo" && dtk show alpha >/dev/null 2>&1) & done
wait $w && ok "writes during shows: done" || ko "writes during shows failed"
wait
show_same "after writes during shows: show alpha" "$repo" alpha
grep -q 'beta-002 relates alpha-003' "$scratch/c.out" && ok "after writes during shows: the new link is there" ||
    ko "after writes during shows: the new link is missing" "$(cat "$scratch/c.out")"
show_same "after writes during shows: show alpha-003 --format json" "$repo" --format json alpha-003

# ---- a worktree: its own git directory ----
git -C "$repo" worktree add -q "$scratch/wt" 2>/dev/null || ko "git worktree add"
show_same "worktree: show alpha" "$scratch/wt" alpha
ls "$repo"/.git/worktrees/wt/dtk/nodes-* >/dev/null 2>&1 &&
    ok "worktree: the cache is in the worktree's git directory" || ko "worktree: no cache in .git/worktrees/wt/dtk"

t_done
