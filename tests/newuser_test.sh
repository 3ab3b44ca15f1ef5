#!/usr/bin/env bash
# newuser_test.sh DTK SOURCE_DIR: what a new user hit on a base of their own
# (issue 49): text YAML cut at a comment is warned of, warnings are
# annotated for GitHub too, and the smaller points, one check each.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo newuser

# expect NAME WANT GOT
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want: $2" "got:  $3"; fi
}

# ---- a plain value cut at ' #': a warning at the '#', the exit status kept
base=$scratch/cut
cp -R "$SRC/tests/fixtures/base" "$base"
sed -i 's/^    claim: Small messages are bound by synchronization steps, not bandwidth\.$/& #not always, 16 KB for OLAP/' \
    "$base/insights/alpha.yaml"
# a comment after a value that is no text, or after a quoted one: no warning
sed -i 's/^    confidence: medium$/& # for now/; s/^    title: A low one$/    title: "A low one" # quoted/' \
    "$base/insights/alpha.yaml"
want="insights/alpha.yaml:20:78: warning: 'claim' ends at ' #': YAML reads the rest of the line as a comment, not as text; to keep it, put the value in quotes, or the comment on a line of its own"
for run in first second; do # the second with the node cache warm
    (cd "$base" && dtk check -q >"$scratch/out" 2>"$scratch/err"); rc=$?
    expect "claim cut at ' #': warned ($run run), exit 0" "0:$want" "$rc:$(cat "$scratch/err")"
done
(cd "$base/insights" && dtk check --format github 2>/dev/null | grep '^::') >"$scratch/out"
expect "--format github annotates the warning" \
    "::warning file=insights/alpha.yaml,line=20,col=78::'claim' ends at ' #': YAML reads the rest of the line as a comment, not as text; to keep it, put the value in quotes, or the comment on a line of its own" \
    "$(cat "$scratch/out")"
(cd "$base/insights" && dtk check -q 2>&1 | cut -d: -f1) >"$scratch/out"
expect "from insights/, the warning names the file from there" "alpha.yaml" "$(cat "$scratch/out")"

# ---- smaller points
sh=$scratch/shipped
mkdir "$sh" && cp -R "$SRC/tests/fixtures/base/." "$sh/"
out=$(dtk --help add 2>&1 | head -n 1)
expect "dtk --help add shows add's help" "usage: dtk add --title T --claim C --source S --confidence high|medium|low" "$out"
out=$(cd "$sh" && dtk search zzqqxx 2>&1 >/dev/null); rc=$?
expect "search with no hits says so on stderr, exit 1" "1:dtk search: no entry holds every word given" "$rc:$out"
out=$(cd "$sh" && dtk search zzqqxx --format json 2>&1); rc=$?
expect "search --format json with no hits: the empty list, exit 1" "1:[]" "$rc:$out"
expect "a malformed id one character short: a suggestion" \
    "dtk use: error: <entry-id> 'alpha-00' is not an entry id (<node>-<suffix>); did you mean 'alpha-001'?" \
    "$(cd "$sh" && dtk use alpha-00 2>&1 | head -n 1)"
expect "show, a malformed id one character short: a suggestion" \
    "dtk show: error: node 'alpha' has no entry 'alpha-00'; did you mean 'alpha-001'?" \
    "$(cd "$sh" && dtk show alpha-00 2>&1)"
out=$(cd "$sh" && dtk confidence alpha-001 high 2>&1); rc=$?
expect "confidence with its operands swapped: the order, exit 2" \
    "2:dtk confidence: error: <level> comes first, then the entries: dtk confidence high alpha-001" \
    "$rc:$(head -n 1 <<<"$out")"
out=$(cd "$sh" && dtk add-node disks --category "Storage structures" 2>&1 &&
    dtk add-node files --category "Storage structure" 2>&1); rc=$?
expect "add-node, a category spelled like one there: refused, with the one meant" \
    "2:disks
dtk add-node: error: no category 'Storage structure'; did you mean 'Storage structures'? (--new-category adds 'Storage structure' as a new one)" \
    "$rc:$out"
(cd "$sh" && dtk add-node files --category "Storage structure" --new-category >/dev/null 2>&1) &&
    grep -q '^  - name: Storage structure$' "$sh/insights/_domain.yaml" &&
    ok "add-node --new-category adds it" || ko "add-node --new-category adds it"
(cd "$sh" && rm -f insights/disks.yaml insights/files.yaml; cp "$SRC/tests/fixtures/base/insights/_domain.yaml" insights/ && dtk reindex -q)
mkdir -p "$sh/docs/x"
expect "check from insights/ names the folders from there" \
    "dtk check: ./ is valid and ../INDEX.md is up to date" "$(cd "$sh/insights" && dtk check 2>&1)"
expect "check from a folder beside insights/" \
    "dtk check: ../../insights/ is valid and ../../INDEX.md is up to date" "$(cd "$sh/docs/x" && dtk check 2>&1)"
if command -v script >/dev/null 2>&1; then
    sed -i 's/^bloom: apply$/bloom: analyze/' "$sh/insights/alpha.yaml"
    out=$(cd "$sh" && unset NO_COLOR && TERM=dumb script -qec "dtk check" /dev/null | tr -d '\r')
    case $out in *$'\033'*) ko "TERM=dumb on a terminal: no colour" "$out" ;;
    *"+| alpha | analyze"*) ok "TERM=dumb on a terminal: no colour" ;;
    *) ko "TERM=dumb on a terminal: no colour" "no diff: $out" ;; esac
    out=$(cd "$sh" && unset NO_COLOR && TERM=xterm script -qec "dtk check" /dev/null | tr -d '\r')
    case $out in *$'\033['*) ok "TERM=xterm on a terminal: colour" ;;
    *) ko "TERM=xterm on a terminal: colour" "$out" ;; esac
    sed -i 's/^bloom: analyze$/bloom: apply/' "$sh/insights/alpha.yaml"
else
    skip "TERM=dumb on a terminal" "script(1) is not installed"
fi

# dtk init: English for an English title; what it made and the next step
ni=$scratch/newbase
mkdir "$ni"
out=$(cd "$ni" && dtk init --title "Storage notes" 2>"$scratch/err")
expect "init with an English title: an English base, the domain printed" "newbase:lang: en" \
    "$out:$(grep '^lang:' "$ni/insights/_domain.yaml")"
expect "init says the files made, the language and the next step" \
    "dtk init: a new base 'newbase' in English (--lang zh for Chinese): insights/_domain.yaml, insights/_sources.yaml, insights/_crystallizations.yaml, INDEX.md
next: dtk add-node <node> --category <category>, then dtk add-source <source-id> --title <title> and dtk add <node>" \
    "$(cat "$scratch/err")"
rm -rf "$ni" && mkdir "$ni"
(cd "$ni" && dtk init -q --title "存储笔记") && grep -q '^lang: zh$' "$ni/insights/_domain.yaml" &&
    ok "init with a Chinese title: a Chinese base" || ko "init with a Chinese title: a Chinese base"
case $(dtk init --help) in
*'json: the base made, {"domain", "lang", "files"}'*) ok "init --help says what --format json prints" ;;
*) ko "init --help says what --format json prints" ;; esac

# English INDEX.md: one of a count is singular; a first run is new "since the start"
en=$scratch/english
cp -R "$SRC/tests/fixtures/base" "$en"
echo 'lang: en' >>"$en/insights/_domain.yaml"
head -n 8 "$SRC/tests/fixtures/base/insights/_crystallizations.yaml" >"$en/insights/_crystallizations.yaml"
(cd "$en" && dtk reindex -q)
expect "English INDEX.md: singular for one, 'since the start' for a first run" \
    "2026-03-01: 4 new since the start; 1 high promotion or demotion; 0 stale (earliest insight 2026-01-15, expires 07-15); blooms unchanged; 2 stance rewrites; 0 new contradictions; eval scenario-001 self-rated acceptable." \
    "$(grep '^2026-03-01: ' "$en/INDEX.md")"

# crystallize --plan on the day of the last run: the error says --date
cp -R "$SRC/tests/fixtures/base" "$scratch/plan"
out=$(cd "$scratch/plan" && dtk crystallize --plan --date 2026-07-01 2>&1 >/dev/null); rc=$?
expect "crystallize --plan on the last run's day mentions --date" \
    "2:dtk crystallize: error: the date 2026-07-01 is not after the last run 2026-07-01; pick a later day with --date" \
    "$rc:$out"

grep -q '^`--eval SCENARIO=VERDICT` is the run.s self-evaluation' "$SRC/docs/commands.md" &&
    ok "docs/commands.md says what --eval SCENARIO=VERDICT is" ||
    ko "docs/commands.md says what --eval SCENARIO=VERDICT is"

# ---- installable: scripts/setup says how to put dtk on PATH; docs/install.md
# lists every CMake option of the build
grep -q 'export PATH="$PWD/build:' "$SRC/scripts/setup" && grep -q 'cpack -G DEB' "$SRC/scripts/setup" &&
    ok "scripts/setup says how to put dtk on PATH" || ko "scripts/setup says how to put dtk on PATH"
for o in $(cat "$SRC/CMakeLists.txt" "$SRC"/*/CMakeLists.txt | sed -n 's/^ *option(\([A-Z_]*\) .*/\1/p'); do
    grep -q "^| \`$o\` |" "$SRC/docs/install.md" && ok "docs/install.md lists $o" ||
        ko "docs/install.md lists $o"
done

# ---- README.md's edit example, run as written: the claim is corrected, not replaced
line=$(grep '^\$ build/dtk edit .* --claim ' "$SRC/README.md" | sed 's/^\$ //; s/build\/dtk/dtk/g')
rb=$scratch/readme
mkdir "$rb" && cp -R "$SRC/insights" "$SRC/INDEX.md" "$rb/"
before=$(cd "$rb" && dtk show training-parallelism-008 --format json | jq -r .claim)
(cd "$rb" && bash -o pipefail -c "$line" >/dev/null 2>&1)
after=$(cd "$rb" && dtk show training-parallelism-008 --format json | jq -r .claim)
if [ -n "$line" ] && [ "$after" != "$before" ] && [ "${after//按层数均分/均分层数}" = "$before" ]; then
    ok "README.md's dtk edit --claim example corrects one phrase of the claim"
else
    ko "README.md's dtk edit --claim example corrects one phrase of the claim" "$line" "$after"
fi

t_done
