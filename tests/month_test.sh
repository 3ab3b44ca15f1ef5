#!/bin/bash
# month_test.sh: a scripted month of a base in git (entries added, a
# relation, a contradiction opened and resolved, a promotion to high, a
# supersede, a retraction, an edit, a gap written before the month's entries
# on its node and another closed), then crystallize --plan and a run: the
# plan, the record and INDEX.md name each event. The edits that
# date an event change the node file by the lines expected, byte for byte.
# usage: month_test.sh <dtk binary> <source dir>
set -u
. "$(dirname "$0")/lib.sh"
t_args "$@"
t_repo month
cd "$repo" || exit 2
git add -A && git commit -qm base

today=$(date +%F)
run=$(date -d "$today + 10 days" +%F)

# Checks that $2 (a command's output) holds $3, naming the check $1.
has() {
    if [[ "$2" == *"$3"* ]]; then ok "$1"; else ko "$1" "no '$3' in:" "$2"; fi
}

# Checks that command $2... changes file $1 by exactly the diff lines on
# stdin (diff's output, line numbers and all): every other byte kept.
edits() {
    local file=$1 want got
    shift
    want=$(cat)
    cp "$file" "$scratch/before"
    "$@" >/dev/null || { ko "$*" "exit $?"; return; }
    got=$(diff "$scratch/before" "$file")
    if [ "$got" = "$want" ]; then ok "$* changes $file as expected"; else
        ko "$* changes $file as expected" "want:" "$want" "got:" "$got"
    fi
}

yesterday=$(date -d "$today - 1 day" +%F)
gap=$(dtk gap add "ring rebuild cost unmeasured" --node alpha --date "$yesterday" | cut -d: -f1)
closed=gap-04yx43s # the id the text of the fixture's second gap hashes to
edits insights/_domain.yaml dtk gap close 2 <<EOF
22a23,24
>     id: $closed
>     closed: $today
EOF
grep -q "^  - id: $gap\$" insights/_domain.yaml && ok "gap added with its id" || ko "gap added with its id"

n1=$(dtk add alpha --title "Rings rebuild on membership change" --claim \
    "Rebuilding the ring after a rank joins costs one full initialization." \
    --source paper-b --confidence low --created "$today" --distinct-from alpha-001 | head -1)
n2=$(dtk add beta --title "Zero bubbles need weight splits" --claim \
    "Splitting the backward pass into input and weight parts removes the bubble." \
    --source paper-a --confidence medium --created "$today" | head -1)
[ -n "$n1" ] && [ -n "$n2" ] && ok "two entries added" || ko "two entries added"
dtk relate "$n1" alpha-002 >/dev/null || ko "relate"

edits insights/alpha.yaml dtk contradict "$n1" alpha-002 --note "one says rebuild, one says keep" <<EOF
45a46,50
>     contradicts:
>       - id: alpha-002
>         status: open
>         note: one says rebuild, one says keep
>         opened: $today
EOF
edits insights/alpha.yaml dtk resolve "$n1" alpha-002 <<EOF
48c48
<         status: open
---
>         status: resolved
50a51
>         resolved: $today
EOF
edits insights/alpha.yaml dtk verify alpha-002 paper-c --promote <<EOF
21c21,23
<     confidence: medium
---
>     confidence: high
>     confidence_changed: $today
>     confidence_was: medium
23c25
<     verified_by: [docs-d]
---
>     verified_by: [docs-d, paper-c]
EOF
dtk supersede alpha-003 "$n1" >/dev/null || ko "supersede"
dtk retract beta-002 --reason "the measurement was wrong" >/dev/null || ko "retract"
dtk edit "$n2" --claim "Splitting the backward pass into input and weight parts removes most of the bubble." >/dev/null ||
    ko "edit"
git add -A && git commit -qm month

plan=$(dtk crystallize --plan --date "$run")
has "plan: new entries named" "$plan" "new entries (2):
  $n1  Rings rebuild on membership change"
has "plan: the promotion" "$plan" "raised (1):
    alpha-002  medium→high"
has "plan: the contradiction opened" "$plan" "opened (1):
    $n1 ↔ alpha-002"
has "plan: and resolved" "$plan" "resolved (1):
    $n1 ↔ alpha-002"
has "plan: the supersede" "$plan" "superseded (1):
    alpha-003"
has "plan: the retraction" "$plan" "retracted (1):
    beta-002"
has "plan: the edit" "$plan" "entries revised since the last run (1):
  $n2"
has "plan: newly stale" "$plan" "newly_stale (3):
    alpha-001  初始化即固化
    alpha-002  小消息瓶颈在同步
    beta-001"
has "plan: the pair a relation and a contradiction suggest" "$plan" \
    "alpha-002  小消息瓶颈在同步  (contradiction, relation)"
has "plan: the gap written before its node's new entries" "$plan" "to read again (1):
  $gap  ring rebuild cost unmeasured"
json=$(dtk crystallize --plan --date "$run" --format json)
has "plan json: raised" "$json" '"raised": [
    {
      "id": "alpha-002",'
has "plan json: a pair's why" "$json" '"why": [
            "contradiction",
            "relation"
          ]'

out=$(dtk crystallize --date "$run" --eval s=v --allow-future 2>&1) || ko "the run" "$out"
rec=$(git show HEAD:insights/_crystallizations.yaml)
has "record: events" "$rec" "  events:
    added: [$n1, $n2]
    raised: [alpha-002]
    opened: [$n1↔alpha-002]
    resolved: [$n1↔alpha-002]
    superseded: [alpha-003]
    retracted: [beta-002]
    revised: [$n2]
    newly_stale: [alpha-001, alpha-002, beta-001]"
index=$(cat INDEX.md)
has "page: the month's counts" "$index" "本期事件：新增 2 条，置信度上调 1、下调 0 条，矛盾新开 1、解决 1 处，取代 1、撤回 1、修订 1 条，新 stale 3 条。"
has "page: the contradiction opened and resolved" "$index" "$run 结晶期内新开矛盾 1 处（$n1↔alpha-002），解决 1 处（$n1↔alpha-002）。"
[[ "$index" != *"gamma 尚无条目"* && "$index" == *"ring rebuild cost unmeasured"* ]] &&
    ok "page: the closed gap gone, the open one listed" ||
    ko "page: the closed gap gone, the open one listed" "$index"
dtk check >/dev/null 2>&1 && ok "the base checks after the run" || ko "check after the run"
printf 'lang: en\n' >>insights/_domain.yaml
index=$(dtk reindex --stdout)
has "page (en): the month's counts" "$index" "This period: 2 added; confidence raised 1, lowered 0; contradictions opened 1, resolved 1; 1 superseded, 1 retracted, 1 revised; 3 newly stale."
has "page (en): the contradictions" "$index" "In the period ending $run, contradictions opened: 1 ($n1↔alpha-002); resolved: 1 ($n1↔alpha-002)."
git checkout -q insights/_domain.yaml

# a record written before events were kept renders as before: the page of
# the month's commit (the fixture's last record) has no events sentence
old=$(git show HEAD~1:INDEX.md)
has "before the run: the old record's line" "$old" "2026-07-01：距 03-01 新增 2 条；"
[[ "$old" != *本期事件* && "$old" != *结晶期内* ]] && ok "an old record: no events on the page" ||
    ko "an old record: no events on the page"
dtk -C "$SRC" crystallize --plan --date 2026-12-01 >/dev/null 2>&1 &&
    ok "the shipped base plans" || ko "the shipped base plans"
t_done
