#!/usr/bin/env bash
# budget_test.sh: INDEX.md and the pages of index/ within their budget
# (docs/index-format.md, "The budget"), on bases of several shapes: each
# page within policy.index_max_bytes and index_max_lines (as wc counts),
# every node named in INDEX.md or a page it links, what was left out said,
# check 0 after reindex and 1 after a page is edited, removed or added, and 1
# when no tier brings a page within the budget.
#   budget_test.sh <dtk binary> <source dir>
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo budget

# base DIR NODES CATS ENTRIES STANCE GAPS HOTSPOTS OPEN [HUGE] [POLICY...]:
# writes a base: NODES nodes in CATS categories (HUGE=1: all but one node in
# the first), ENTRIES entries a node (one high and one candidate in three
# nodes), stances of about STANCE bytes, GAPS gaps, HOTSPOTS hotspots, OPEN
# open contradictions; the POLICY lines join policy.
base() {
    local dir=$1
    mkdir -p "$dir/insights"
    awk -v dir="$dir/insights" -v n="$2" -v cats="$3" -v e="$4" -v sl="$5" \
        -v gaps="$6" -v hot="$7" -v open="$8" -v huge="${9:-0}" -v policy="${10:-}" '
    function name(i) { return sprintf("node-%s-%04d", substr("abcdefghij", i % 10 + 1, 1), i) }
    function words(k,   s, i) { # about k bytes, cut between words only
        split("通信 rank 立场 barrier 拓扑", w, " "); s = w[1]
        for (i = 1; length(s) < k; i++) s = s " " w[i % 5 + 1]
        return s
    }
    BEGIN {
        d = dir "/_domain.yaml"
        print "domain: budget-test\ntitle: Budget Test Index\ndescription: A base of a given shape." > d
        print "positioning: 测试\ncategories:" > d
        for (c = 0; c < cats; c++) {
            printf "  - name: \"Category %d 分类\"\n    nodes: [", c > d
            first = 1
            for (i = 0; i < n; i++) {
                cat = huge ? (i < n - 1 ? 0 : cats - 1) : i % cats
                if (cat != c) continue
                printf "%s%s", first ? "" : ", ", name(i) > d
                first = 0
            }
            print "]" > d
        }
        if (hot) print "hotspots:" > d
        for (k = 0; k < hot; k++)
            printf "  - node: %s\n    links: [other-domain/x-%d]\n    note: %s\n", name(k % n), k, words(40) > d
        if (gaps) print "gaps:" > d
        for (k = 0; k < gaps; k++)
            printf "  - text: 缺口 %d %s\n", k, words(30) > d
        print "policy:\n  stale_after_months: 6\n  high_min_verified: 2" > d
        if (policy != "") print policy > d
        s = dir "/_sources.yaml"
        for (k = 1; k <= 3; k++) printf "- id: src-%d\n  title: Source %d\n", k, k > s
        for (i = 0; i < n; i++) {
            f = dir "/" name(i) ".yaml"
            printf "node: %s\nbloom: apply\n", name(i) > f
            if (sl) printf "stance: %s\n", words(sl) > f
            print (e ? "insights:" : "insights: []") > f
            for (j = 1; j <= e; j++) {
                printf "  - id: %s-%03d\n    title: 条目 %d %s\n    claim: %s\n", name(i), j, j, words(20), words(80) > f
                if (i % 3 == 0 && j == 1) print "    confidence: high\n    source: src-1\n    verified_by: [src-2, src-3]" > f
                else if (i % 3 == 0 && j == 2) print "    confidence: medium\n    source: src-1\n    verified_by: [src-2]" > f
                else print "    confidence: low\n    source: src-1" > f
                print "    created: 2026-01-10" > f
                if (j == 1 && i < open && n > 1)
                    printf "    contradicts:\n      - id: %s-001\n        status: open\n        note: 未决\n", name((i + 1) % n) > f
            }
        }
    }'
}

# fits DIR NAME: DIR's INDEX.md and pages within budget (MAXB, MAXL), every
# node named within two reads, and check 0 after reindex
fits() {
    local dir=$1 what=$2 maxb=${MAXB:-24576} maxl=${MAXL:-200} bad="" f node named
    (cd "$dir" && dtk reindex -q) || { ko "$what: reindex" ; return; }
    for f in "$dir/INDEX.md" "$dir"/index/*.md; do
        [ -e "$f" ] || continue
        [ "$(wc -c < "$f")" -le "$maxb" ] && [ "$(wc -l < "$f")" -le "$maxl" ] ||
            bad="$bad ${f#"$dir"/}($(wc -c < "$f") bytes, $(wc -l < "$f") lines)"
        # every page INDEX.md links is there, and links back
        [ "$f" = "$dir/INDEX.md" ] || grep -q "](${f#"$dir"/})" "$dir/INDEX.md" ||
            bad="$bad ${f#"$dir"/}(not linked)"
    done
    [ -z "$bad" ] && ok "$what: within the budget" || ko "$what: within the budget" "$bad"
    named=$(cat "$dir/INDEX.md" "$dir"/index/*.md 2>/dev/null)
    bad=""
    for node in "$dir"/insights/[!_]*.yaml; do
        node=$(basename "$node" .yaml)
        grep -q "| $node |" <<<"$named" || bad="$bad $node"
    done
    [ -z "$bad" ] && ok "$what: every node named" || ko "$what: every node named" "$bad"
    (cd "$dir" && dtk check -q) && ok "$what: check after reindex" || ko "$what: check after reindex"
}

b=$scratch/bases
# 1: many small categories, long stances, many gaps, hotspots, contradictions
base "$b/many" 400 120 2 150 200 300 40
fits "$b/many" "many categories"
grep -q "此处从略：见 insights/\\\\_domain.yaml 的 hotspots" "$b/many/INDEX.md" &&
    grep -q "主题空白 200 条，此处从略" "$b/many/INDEX.md" &&
    grep -q "当前活跃矛盾 40 处（此处从略" "$b/many/INDEX.md" &&
    grep -q "（列表：dtk list --confidence high）" "$b/many/INDEX.md" &&
    grep -q "（列表：dtk list --candidates）" "$b/many/INDEX.md" &&
    grep -q "立场只列前 60 字" "$b/many"/index/*.md &&
    grep -q "个节点的表按分类移至生成页" "$b/many/INDEX.md" &&
    ok "many categories: what is left out is said" ||
    ko "many categories: what is left out is said" "$(head -c 4000 "$b/many/INDEX.md")"

# 2: one huge category, split over pages that INDEX.md each links
base "$b/huge" 900 3 1 40 0 0 0 1
fits "$b/huge" "one huge category"
n=$(ls "$b/huge/index" | wc -l)
[ "$n" -ge 4 ] && [ -e "$b/huge/index/category-0.2.md" ] && ok "one huge category: split ($n pages)" ||
    ko "one huge category: split" "$(ls "$b/huge/index")"

# 3: a small budget on few nodes: tables kept while they fit
base "$b/small" 12 4 3 80 3 3 1 0 "  index_max_bytes: 4096
  index_max_lines: 60"
MAXB=4096 MAXL=60 fits "$b/small" "a small budget"
grep -q '^### Category 0 分类$' "$b/small/INDEX.md" && ok "a small budget: a table stays" ||
    ko "a small budget: a table stays" "$(cat "$b/small/INDEX.md")"

# a write command writes the pages it changes with INDEX.md
last=$(grep -o 'index/[^)]*' "$b/small/INDEX.md" | tail -1)
node=$(grep -o '^| node-[a-z]-[0-9]*' "$b/small/$last" | tail -1 | cut -c3-)
(cd "$b/small" && dtk stance -q "$node" "一个新的立场 a new stance") &&
    grep -q "| $node | apply | 3 | 暂定：一个新的立场 a new stance |" "$b/small/$last" &&
    (cd "$b/small" && dtk check -q) && ok "a write command writes the pages" ||
    ko "a write command writes the pages" "$last $node" "$(cat "$b/small/$last")"

# crystallize writes and commits the pages with INDEX.md: those missing
# added, one no longer generated removed, the work tree as the commit
d=$b/cry && cp -R "$b/small" "$d" && rm -rf "$d/index" && printf 'old\n' >"$d/gone.md"
(cd "$d" && git init -q && mkdir index && mv gone.md index/ && git add -A && git commit -qm base &&
    dtk crystallize --eval s-001=ok >"$scratch/out" 2>&1) &&
    [ "$(grep -c "^  A  index/category-[0-9]*.md$" "$scratch/out")" = "$(ls "$d/index" | wc -l)" ] &&
    grep -q "^  D  index/gone.md$" "$scratch/out" && [ -z "$(cd "$d" && git status --porcelain)" ] &&
    [ ! -e "$d/index/gone.md" ] && (cd "$d" && dtk check -q) &&
    [ "$(cd "$d" && git ls-files index | wc -l)" = "$(ls "$d/index" | wc -l)" ] &&
    ok "crystallize commits the pages with INDEX.md" ||
    ko "crystallize commits the pages with INDEX.md" "$(cat "$scratch/out")" "$(cd "$d" && git status --porcelain)"
# --no-commit writes them
(cd "$d" && rm index/* && dtk crystallize --no-commit --date "$(date -d tomorrow +%F)" \
    --allow-future --eval s-002=ok >"$scratch/out" 2>&1) && [ -n "$(ls "$d/index")" ] &&
    (cd "$d" && dtk check -q) && ok "crystallize --no-commit writes the pages" ||
    ko "crystallize --no-commit writes the pages" "$(cat "$scratch/out")"
# dtk sync rebuilds the pages as it rebuilds INDEX.md: main and a branch
# each rewrite a stance on one page (a text conflict there for git), the
# branch syncs: one merge commit, every page current, check 0
git clone -q --bare "$d" "$scratch/pages.git" && git clone -q "$scratch/pages.git" "$scratch/pa" &&
    git clone -q "$scratch/pages.git" "$scratch/pb" || ko "sync: clones"
page=$(cd "$scratch/pa" && ls index | head -1)
set -- $(grep -o '^| node-[a-z]-[0-9]*' "$scratch/pa/index/$page" | cut -c3- | head -2)
(cd "$scratch/pa" && dtk stance -q "$1" "main 的立场" && git commit -qam "main: stance" && git push -q origin HEAD) &&
    (cd "$scratch/pb" && git checkout -q -b b && dtk stance -q "$2" "分支的立场" && git commit -qam "b: stance" &&
        git fetch -q && dtk sync >"$scratch/out" 2>&1) &&
    (cd "$scratch/pb" && dtk check -q && [ -z "$(git status --porcelain)" ] &&
        grep -q "main 的立场" "index/$page" && grep -q "分支的立场" "index/$page" &&
        [ "$(git log -1 --format=%P | wc -w)" = 2 ]) &&
    ok "dtk sync: the pages rebuilt from the merged insights/, both sides' changes" ||
    ko "dtk sync: the pages rebuilt" "$(cat "$scratch/out")" "$(cd "$scratch/pb" && git status --porcelain; dtk check 2>&1)"

# git merge with dtk's drivers: a page both sides changed is rebuilt from
# the merged insights/ as INDEX.md is (setup-git's /index/*.md line): no
# conflict, both sides' stances on the page, check 0 after the merge
git clone -q "$scratch/pages.git" "$scratch/pc" && cd "$scratch/pc" && dtk setup-git >"$scratch/out" 2>&1 &&
    grep -qx "/index/\*.md merge=dtk-index" .gitattributes &&
    git add -A && git commit -qm attrs && git checkout -q -b x && dtk stance -q "$2" "x 的立场" &&
    git commit -qam x && git checkout -q - && dtk stance -q "$1" "又一个立场" && git commit -qam y || ko "merge: setup"
git merge -q --no-edit x >"$scratch/out" 2>&1 && [ -z "$(git diff --name-only --diff-filter=U)" ] &&
    grep -q "x 的立场" "index/$page" && grep -q "又一个立场" "index/$page" &&
    dtk check -q && [ -z "$(git status --porcelain)" ] && [ "$(git log -1 --format=%P | wc -w)" = 2 ] &&
    ok "git merge: a page both sides changed, rebuilt by the driver" ||
    ko "git merge: a page both sides changed, rebuilt by the driver" "$(cat "$scratch/out")" "$(git status --porcelain)"
# pre-commit checks the staged pages too: a commit of a current base says nothing
dtk stance -q "$1" "再一个立场" && git commit -qam z 2>"$scratch/out" && [ ! -s "$scratch/out" ] &&
    ok "pre-commit: the staged pages are checked with INDEX.md (a current base: nothing said)" ||
    ko "pre-commit: the staged pages are checked with INDEX.md" "$(cat "$scratch/out")"
cd "$scratch" || exit 2

# the driver of a page run by hand during a merge (git's %O %A %B %P): it
# rebuilds the page; a failure (a write, no commit that fits, an invalid
# merged base) leaves <ours> byte for byte; a page the merged base no longer
# makes (ours raised the budget: no page) is kept as ours had it
git clone -q "$scratch/pages.git" "$scratch/pd" && cd "$scratch/pd" && dtk setup-git >/dev/null &&
    git add -A && git commit -qm attrs && main=$(git branch --show-current) && git checkout -q -b t && dtk stance -q "$2" "t 的立场" &&
    git commit -qam t && git checkout -q -b bad && printf 'bogus: 1\n' >>"insights/$2.yaml" &&
    git commit -qam bad --no-verify && git checkout -q -b big "$main" &&
    sed -i 's/index_max_bytes: 4096/index_max_bytes: 65536/; s/index_max_lines: 60/index_max_lines: 6000/' \
        insights/_domain.yaml && dtk reindex -q && [ ! -e index ] && git commit -qam big &&
    git checkout -q "$main" && dtk stance -q "$1" "o 的立场" && git commit -qam o || ko "page driver: setup"
# drv [COMMAND...]: the driver on the page as git runs it, %A a copy of ours'
drv() {
    git show "$(git merge-base HEAD MERGE_HEAD):index/$page" >"$scratch/pO" &&
        git show "MERGE_HEAD:index/$page" >"$scratch/pB" && cp "$scratch/pA.orig" "$scratch/pA" &&
        "${@:-$DTK}" merge-driver "$scratch/pO" "$scratch/pA" "$scratch/pB" "index/$page" >"$scratch/out" 2>&1
}
git show "HEAD:index/$page" >"$scratch/pA.orig" && git merge -q --no-commit t >/dev/null 2>&1 &&
    drv && grep -q "t 的立场" "$scratch/pA" && grep -q "o 的立场" "$scratch/pA" &&
    ok "page driver by hand: the page rebuilt from both sides" ||
    ko "page driver by hand: the page rebuilt from both sides" "$(cat "$scratch/out")"
if [ -n "${DTK_CRASH:-}" ]; then
    DTK_FAULT_AT="rename=$scratch/pA" drv "$DTK_CRASH"
    rc=$?
    [ $rc -eq 2 ] && cmp -s "$scratch/pA" "$scratch/pA.orig" && grep -q "$scratch/pA" "$scratch/out" &&
        ok "page driver: a write that fails leaves ours byte for byte (exit 2)" ||
        ko "page driver: a write that fails leaves ours byte for byte" "rc $rc" "$(cat "$scratch/out")" "$(ls "$scratch")"
else
    skip "page driver: a write that fails" "DTK_CRASH is not set"
fi
printf 'x\n' >"$scratch/pX" && cp "$scratch/pA.orig" "$scratch/pA" &&
    dtk merge-driver "$scratch/pX" "$scratch/pA" "$scratch/pB" "index/$page" >"$scratch/out" 2>&1 &&
    cmp -s "$scratch/pA" "$scratch/pA.orig" && grep -q "git names no commit it is merging" "$scratch/out" &&
    ok "page driver: no commit that fits: ours kept byte for byte, said" ||
    ko "page driver: no commit that fits: ours kept byte for byte, said" "$(cat "$scratch/out")"
git merge --abort && git merge -q --no-commit bad >/dev/null 2>&1
drv
[ $? -eq 1 ] && cmp -s "$scratch/pA" "$scratch/pA.orig" &&
    grep -q "the merged insights/ are not valid; index/$page is left in conflict" "$scratch/out" &&
    grep -q "bogus" "$scratch/out" &&
    ok "page driver: an invalid merged base: exit 1, ours byte for byte, the errors said" ||
    ko "page driver: an invalid merged base: exit 1, ours byte for byte" "$(cat "$scratch/out")"
git merge --abort && git checkout -q big && git merge -q --no-commit t >/dev/null 2>&1
drv && cmp -s "$scratch/pA" "$scratch/pA.orig" &&
    grep -q "index/$page: the merged base makes no such page; kept as ours had it" "$scratch/out" &&
    ok "page driver: a page the merged base no longer makes: kept as ours had it, said" ||
    ko "page driver: a page the merged base no longer makes: kept as ours had it" "$(cat "$scratch/out")"
git merge --abort
cd "$scratch" || exit 2

# the HTML export holds every node table whatever the budget (a site has
# no first read to keep short): every node linked from index.html
(cd "$d" && dtk export html "$scratch/site" >/dev/null) && bad= &&
    for f in "$d"/insights/node-*.yaml; do
        f=$(basename "$f" .yaml)
        grep -q "href=\"nodes/$f.html\"" "$scratch/site/index.html" || bad="$bad $f"
    done && [ -z "$bad" ] && ok "export: every node in index.html, the pages' tables too" ||
    ko "export: every node in index.html" "$bad"

# 4: within the budget: no page and no note
base "$b/fits" 10 2 3 30 2 2 1
(cd "$b/fits" && dtk reindex -q)
[ ! -e "$b/fits/index" ] && ! grep -q "dtk list" "$b/fits/INDEX.md" &&
    grep -q "（node-a-0000-001、node-g-0006-001、node-d-0003-001、node-j-0009-001）" "$b/fits/INDEX.md" &&
    ok "within the budget: the whole page" || ko "within the budget: the whole page" "$(cat "$b/fits/INDEX.md")"

# drift: a page edited, removed, or one no longer generated
d=$b/huge
printf 'x\n' >> "$d/index/category-0.md"
out=$(cd "$d" && dtk check 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "index/category-0.md is out of date" <<<"$out" && ok "a page edited: drift" ||
    ko "a page edited: drift" "rc=$rc" "$out"
(cd "$d" && dtk reindex -q) && rm "$d/index/category-0.2.md"
out=$(cd "$d" && dtk check 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "index/category-0.2.md is missing" <<<"$out" && ok "a page removed: drift" ||
    ko "a page removed: drift" "rc=$rc" "$out"
(cd "$d" && dtk reindex -q) && printf 'old\n' > "$d/index/gone.md"
out=$(cd "$d" && dtk check 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "index/gone.md is no longer generated" <<<"$out" && ok "a stale page: drift" ||
    ko "a stale page: drift" "rc=$rc" "$out"
(cd "$d" && dtk reindex -q)
[ ! -e "$d/index/gone.md" ] && (cd "$d" && dtk check -q) && ok "reindex removes a stale page" ||
    ko "reindex removes a stale page"
# the base shrinks within the budget: the pages go, and index/ with them
rm "$d"/insights/node-*-0[1-8]*.yaml
awk '/^    nodes: \[/ { n = split(substr($0, 13, length($0) - 13), v, ", "); s = "";
         for (i = 1; i <= n; i++) if (v[i] !~ /-0[1-8]/) s = s (s == "" ? "" : ", ") v[i];
         print "    nodes: [" s "]"; next } { print }' "$d/insights/_domain.yaml" > "$d/x" &&
    mv "$d/x" "$d/insights/_domain.yaml"
(cd "$d" && dtk reindex -q) && [ ! -e "$d/index" ] && (cd "$d" && dtk check -q) &&
    ok "no page needed: index/ removed" || ko "no page needed: index/ removed" "$(ls "$d" "$d/index" 2>&1)"

# 5: more categories than lines: the list of pages becomes one paragraph
base "$b/cats" 600 260 1 20 0 0 0
fits "$b/cats" "more categories than lines"
grep -q '^\[Category 0 分类\](index/category-0.md) 3、\[Category 1 分类\](index/category-1.md) 3、' "$b/cats/INDEX.md" &&
    ok "more categories than lines: one paragraph" ||
    ko "more categories than lines: one paragraph" "$(head -c 2000 "$b/cats/INDEX.md")"

# over the budget with every tier (a description longer than the budget):
# check and reindex say so, exit 1
base "$b/over" 50 45 1 10 0 0 0 0 "  index_max_bytes: 4096
  index_max_lines: 40"
sed -i "s/^description: .*/description: x$(printf '%04500d' 0)/" "$b/over/insights/_domain.yaml"
out=$(cd "$b/over" && dtk reindex 2>&1); rc=$?
out2=$(cd "$b/over" && dtk check 2>&1); rc2=$?
[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && grep -q "INDEX.md is over its budget with every tier applied" <<<"$out2" &&
    grep -q "raise the budget" <<<"$out" && ok "over with every tier: exit 1" ||
    ko "over with every tier: exit 1" "reindex $rc: $out" "check $rc2: $out2"

# the budget is checked as policy
base "$b/bad" 2 1 1 10 0 0 0 0 "  index_max_bytes: 100"
out=$(cd "$b/bad" && dtk check 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "index_max_bytes" <<<"$out" && ok "a budget too small: invalid" ||
    ko "a budget too small: invalid" "rc=$rc" "$out"

# the shipped base keeps its bytes
out=$(cd "$SRC" && dtk reindex --stdout | cmp - INDEX.md 2>&1) && [ ! -e "$SRC/index" ] &&
    ok "the shipped base: INDEX.md unchanged" || ko "the shipped base: INDEX.md unchanged" "$out"

# reads an agent can bound: dtk show --limit, --compact
out=$(cd "$SRC" && dtk show collective-communication --limit 2 --compact)
[ "$(grep -c '^collective-communication-0' <<<"$out")" -eq 2 ] &&
    grep -q "^11 more entries not printed (--limit 2 of 13)$" <<<"$out" &&
    grep -q "^claims not printed: dtk show <entry-id>" <<<"$out" &&
    ! grep -q "NCCL communicator 的 rank/size 在 init 时固化，成员变化只能重建。" <<<"$out" &&
    ok "show --limit --compact" || ko "show --limit --compact" "$out"
out=$(cd "$SRC" && dtk show collective-communication --limit 3 --format json)
python3 - "$out" <<'PY' && ok "show --limit: JSON counts what it left out" || ko "show --limit: JSON" "$out"
import json, sys
d = json.loads(sys.argv[1])
assert len(d["entries"]) == 3 and d["entries_total"] == 13 and d["entries_not_shown"] == 10
assert "claim" in d["entries"][0]
PY
out=$(cd "$SRC" && dtk show collective-communication --compact --format json)
python3 - "$out" <<'PY' && ok "show --compact: JSON" || ko "show --compact: JSON" "$out"
import json, sys
d = json.loads(sys.argv[1])
assert len(d["entries"]) == 13 and set(d["entries"][0]) == {"id", "title", "confidence"}
PY

# MCP: list {} and a node's show within 16 KB a response line, the pages
# of list covering every entry
mcp() { # mcp ARGS-OF-TOOLS/CALL...: the response lines, one a call
    local i=1 call
    {
        printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
            '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        for call in "$@"; do
            printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' $i "$call"
            i=$((i + 1))
        done
    } | (cd "$SRC" && dtk mcp 2>/dev/null) | tail -n +2
}
out=$(mcp '{"name":"list","arguments":{}}' '{"name":"show","arguments":{"target":"collective-communication"}}')
printf '%s\n' "$out" > "$scratch/mcp.out"
python3 - "$scratch/mcp.out" <<'PY' && ok "mcp: list {} and show within 16 KB" || ko "mcp: list {} and show within 16 KB" "$out"
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert len(lines[0]) + 1 <= 16384, len(lines[0])
assert len(lines[1]) + 1 <= 16384, len(lines[1])
r = json.loads(lines[0])["result"]["structuredContent"]
assert r["total"] == 69 and r["nextCursor"] == "o%d" % len(r["entries"])
s = json.loads(lines[1])["result"]["structuredContent"]
assert s["entries_total"] == 13 and s["entries_not_shown"] == 13 - len(s["entries"])
PY
out=$(mcp '{"name":"list","arguments":{"limit":100}}' '{"name":"list","arguments":{"limit":100,"cursor":"o20"}}' '{"name":"list","arguments":{"limit":100,"cursor":"o40"}}' '{"name":"list","arguments":{"limit":100,"cursor":"o60"}}')
printf '%s\n' "$out" > "$scratch/mcp.out"
python3 - "$scratch/mcp.out" <<'PY' && ok "mcp: list's pages end within 16 KB" || ko "mcp: list's pages end within 16 KB" "$out"
import json, sys
lines = [l for l in open(sys.argv[1], "rb").read().split(b"\n") if l]
assert len(lines) == 4
for l in lines:
    assert len(l) + 1 <= 16384, len(l)
    r = json.loads(l)["result"]["structuredContent"]
    assert 1 <= len(r["entries"]) < 100 and len(r["entries"]) < r["total"]
PY

t_done
