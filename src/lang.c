/* lang.c: the words of INDEX.md and of the HTML export, in Chinese (the
 * default) and English. */
#include "lang.h"

#include <stddef.h>

const char *const dtk_lang_names[] = {"zh", "en", NULL};

const struct dtk_lang dtk_lang_zh = {
        .lpar = "（",
        .sep = "、",
        .rpar = "）",
        .stop = "。",
        .status = "知识体系状态",
        .st_nodes = "节点总数: {n}",
        .st_with = "有 Insights 的节点: {n}",
        .st_entries = "Insight 总条目: {n}",
        .st_high = "high 条目: {n}{ids}",
        .st_last = "上次结晶: {date}",
        .st_articles = "覆盖文章数: {n}",
        .st_positioning =
                "定位: {positioning}（使用率 {usage}%、引用率 {citation}%、闭环率 {closure}%）",
        .node_index = "节点索引",
        .node_cols = {"节点", "Bloom", "Insights", "当前核心立场"},
        .tentative = "暂定：",
        .nodes_none = "尚无节点。",
        .hotspots = "跨域热点",
        .hotspots_intro = "本域节点与其他域的已知交叉连接。",
        .hotspots_none = "尚无已知的交叉连接。",
        .hot_cols = {"本域节点", "交叉域", "交叉节点", "连接说明"},
        .contradictions = "活跃矛盾",
        .review = "{date} 比对范围：新增 {new} 条逐条与所在节点既有 claim 比对约 {pairs} "
                  "组{pair_list}，"
                  "另复核 {k} 组跨节点/跨域主题对{cross_list}，{verdict}{note}。合计约 {total} 组，"
                  "新增矛盾 {c}。",
        .review_note = "；",
        .no_verdict = "尚未记录复核结论",
        .open_count = "当前活跃矛盾 {n} 处。",
        .open_item = "{id} ↔ {other}{note}",
        .open_note = "：",
        .gaps = "知识缺口",
        .gaps_intro = "Bloom ≤ remember 且 Insights 为 0 的节点（{n} 个{names}）；"
                      "下列为已识别但尚未沉淀成条目的主题空白。",
        .gaps_intro_none = "Bloom ≤ remember 且 Insights 为 0 的节点（{n} 个{names}）；"
                           "尚无已识别的主题空白。",
        .gaps_names = "：",
        .gap_flag = "（{id} 标记）",
        .candidates = "待验证候选（verified_by 仅 {k} 篇，再补 1 篇独立来源即可升 high）：",
        .candidate = "{id}（{title}）",
        .candidates_none = "无。",
        .last = "上次结晶记录",
        .last_line = "{date}：距 {since} 新增 {n} 条；{h} 处升/降 high；{s} 条 stale（最早条目 "
                     "{earliest}，{past}{expiry} 到期）；{bloom}；{r} 个节点 stance 重写；矛盾 {c} 新增；"
                     "eval {scenario} 自评 {verdict}。",
        .since_none = "—",
        .plural = "",
        .events_line = "本期事件：新增 {added} 条，置信度上调 {raised}、下调 {lowered} 条，矛盾新开 "
                       "{opened}、解决 {resolved} 处，取代 {superseded}、撤回 {retracted}、修订 "
                       "{revised} 条，新 stale {newly_stale} 条。",
        .events_contradictions = "{date} 结晶期内新开矛盾 {opened} 处{opened_list}，解决 {resolved} "
                                 "处{resolved_list}。",
        .expiry_past = "已于 ",
        .expiry_coming = "",
        .bloom_same = "bloom 均维持",
        .bloom_changed = "bloom 变化：",
        .no_record = "尚无结晶记录。",
        .cut_high = "（列表：dtk list --confidence high）",
        .cut_list = "（{n} 项，见 insights/_crystallizations.yaml）",
        .cut_gap_nodes = "，列表：dtk list --nodes",
        .cut_cands = "{n} 条（列表：dtk list --candidates）。",
        .cut_hotspots = "共 {n} 条，此处从略：见 insights/_domain.yaml 的 hotspots。",
        .cut_opens = "当前活跃矛盾 {n} 处（此处从略：dtk show 节点名 列出该节点的矛盾）。",
        .cut_gaps = "Bloom ≤ remember 且 Insights 为 0 的节点（{n} 个{names}）；"
                    "已识别但尚未沉淀成条目的主题空白 {g} 条，此处从略：见 insights/_domain.yaml "
                    "的 gaps。",
        .cut_stances = "{n} 个节点的立场只列前 {k} 字（以 … 结尾）；全文：dtk show 节点名。",
        .pages_intro = "{n} 个节点的表按分类移至生成页，每页一次读取：",
        .page_item = "：{n} 个节点",
        .page_title = "{title}：{category}",
        .page_intro = "{category}的第 {from}–{to} 个节点（共 {n} 个，第 {k}/{m} 页）；总索引：",
        .x_entries = "Insight 条目: {x}",
        .x_stance = "核心立场：",
        .x_tentative = "暂定立场：",
        .x_no_stance = "尚无核心立场。",
        .x_confidence = "置信度 {x}",
        .x_candidate = "（候选）",
        .x_created = "创建于 {x}",
        .x_reviewed = "复核于 {x}",
        .x_used = "使用 {x}",
        .x_cited = "引用 {x}",
        .x_closed = "已闭环",
        .x_source = "来源：",
        .x_verified_by = "佐证：",
        .x_relates = "关联：",
        .x_contradicts_open = "矛盾（未解决）：",
        .x_contradicts_resolved = "矛盾（已解决）：",
        .x_related_by = "被关联：",
        .x_contradicted_by_open = "被指矛盾（未解决）：",
        .x_contradicted_by_resolved = "被指矛盾（已解决）：",
        .x_flags_gap = "标记缺口：",
        .x_superseded_by = "已被取代（{x}）：",
        .x_retracted = "已撤回（{x}）：",
        .x_retired_note = "（已停用 {x} 条）",
        .x_retired = "（已停用）",
        .x_supersedes = "取代：",
        .x_search = "搜索标题与 claim",
        .x_search_none = "没有匹配的条目。",
};

const struct dtk_lang dtk_lang_en = {
        .lpar = " (",
        .sep = ", ",
        .rpar = ")",
        .stop = ".",
        .status = "Status",
        .st_nodes = "Nodes: {n}",
        .st_with = "Nodes with insights: {n}",
        .st_entries = "Insights: {n}",
        .st_high = "High-confidence insights: {n}{ids}",
        .st_last = "Last crystallization: {date}",
        .st_articles = "Sources covered: {n}",
        .st_positioning = "Positioning: {positioning} (usage {usage}%, citation {citation}%, "
                          "closure {closure}%)",
        .node_index = "Nodes",
        .node_cols = {"Node", "Bloom", "Insights", "Current stance"},
        .tentative = "Tentative: ",
        .nodes_none = "No nodes yet.",
        .hotspots = "Cross-domain hotspots",
        .hotspots_intro = "Known links between this domain's nodes and other domains.",
        .hotspots_none = "None known yet.",
        .hot_cols = {"Node", "Domains", "Linked nodes", "Note"},
        .contradictions = "Active contradictions",
        .review = "{date} review: each of the {new} new insights was compared with the earlier "
                  "claims of its node, about {pairs} pairs{pair_list}; {k} cross-node or "
                  "cross-domain topic pairs were also checked{cross_list}; {verdict}{note}. "
                  "About {total} pairs in all, {c} new contradictions.",
        .review_note = "; ",
        .no_verdict = "no verdict recorded yet",
        .open_count = "Open contradictions: {n}.",
        .open_item = "{id} ↔ {other}{note}",
        .open_note = ": ",
        .gaps = "Knowledge gaps",
        .gaps_intro = "Nodes at Bloom ≤ remember with no insights: {n}{names}. Below: topic gaps "
                      "identified but not yet written up as insights.",
        .gaps_intro_none = "Nodes at Bloom ≤ remember with no insights: {n}{names}. No topic "
                           "gaps identified yet.",
        .gaps_names = " — ",
        .gap_flag = " (flagged by {id})",
        .candidates = "Candidates (only {k} verified_by; one more independent source makes them "
                      "high): ",
        .candidate = "{id} ({title})",
        .candidates_none = "none.",
        .last = "Last crystallization",
        .last_line = "{date}: {n} new since {since}; {h} high promotion{hs} or demotion{hs}; "
                     "{s} stale (earliest insight {earliest}, {past} {expiry}); {bloom}; {r} "
                     "stance rewrite{rs}; {c} new contradiction{cs}; eval {scenario} self-rated "
                     "{verdict}.",
        .since_none = "the start",
        .plural = "s",
        .events_line = " This period: {added} added; confidence raised {raised}, lowered "
                       "{lowered}; contradictions opened {opened}, resolved {resolved}; "
                       "{superseded} superseded, {retracted} retracted, {revised} revised; "
                       "{newly_stale} newly stale.",
        .events_contradictions = "In the period ending {date}, contradictions opened: "
                                 "{opened}{opened_list}; resolved: {resolved}{resolved_list}.",
        .expiry_past = "expired",
        .expiry_coming = "expires",
        .bloom_same = "blooms unchanged",
        .bloom_changed = "bloom changes: ",
        .no_record = "No crystallization recorded yet.",
        .cut_high = " (listed by dtk list --confidence high)",
        .cut_list = " ({n}, listed in insights/_crystallizations.yaml)",
        .cut_gap_nodes = " (listed by dtk list --nodes)",
        .cut_cands = "{n} (listed by dtk list --candidates).",
        .cut_hotspots = "{n} links, not listed here: see hotspots in insights/_domain.yaml.",
        .cut_opens = "Open contradictions: {n} (not listed here: dtk show NODE lists a node's).",
        .cut_gaps = "Nodes at Bloom ≤ remember with no insights: {n}{names}. {g} topic gaps "
                    "identified but not yet written up, not listed here: see gaps in "
                    "insights/_domain.yaml.",
        .cut_stances = "{n} stances show only their first {k} characters (ending in …); dtk "
                       "show NODE prints them whole.",
        .pages_intro = "The tables of {n} nodes are on generated pages, by category, one read "
                       "each:",
        .page_item = ": {n} nodes",
        .page_title = "{title}: {category}",
        .page_intro = "Nodes {from}–{to} of the {n} in {category} (page {k} of {m}); the index: ",
        .x_entries = "Insights: {x}",
        .x_stance = "Stance: ",
        .x_tentative = "Tentative stance: ",
        .x_no_stance = "No stance yet.",
        .x_confidence = "confidence {x}",
        .x_candidate = " (candidate)",
        .x_created = "created {x}",
        .x_reviewed = "reviewed {x}",
        .x_used = "used {x}",
        .x_cited = "cited {x}",
        .x_closed = "closed",
        .x_source = "source: ",
        .x_verified_by = "verified by: ",
        .x_relates = "relates to: ",
        .x_contradicts_open = "contradicts (open): ",
        .x_contradicts_resolved = "contradicts (resolved): ",
        .x_related_by = "related by: ",
        .x_contradicted_by_open = "contradicted by (open): ",
        .x_contradicted_by_resolved = "contradicted by (resolved): ",
        .x_flags_gap = "flags a gap: ",
        .x_superseded_by = "superseded on {x} by: ",
        .x_retracted = "retracted on {x}: ",
        .x_retired_note = " ({x} retired)",
        .x_retired = " (retired)",
        .x_supersedes = "supersedes: ",
        .x_search = "Search titles and claims",
        .x_search_none = "No matching insight.",
};
