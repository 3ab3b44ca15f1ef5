/* lang.c: the words of INDEX.md, in Chinese (the default) and English. */
#include "lang.h"

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
        .hotspots = "跨域热点",
        .hotspots_intro = "本域节点与其他域的已知交叉连接。",
        .hot_cols = {"本域节点", "交叉域", "交叉节点", "连接说明"},
        .contradictions = "活跃矛盾",
        .review = "{date} 比对范围：新增 {new} 条逐条与所在节点既有 claim 比对约 {pairs} "
                  "组{pair_list}，"
                  "另复核 {k} 组跨节点/跨域主题对{cross_list}，{verdict}{note}。合计约 {total} 组，"
                  "新增矛盾 {c}。",
        .review_note = "；",
        .open_count = "当前活跃矛盾 {n} 处。",
        .open_item = "{id} ↔ {other}{note}",
        .open_note = "：",
        .gaps = "知识缺口",
        .gaps_intro = "Bloom ≤ remember 且 Insights 为 0 的节点（{n} 个{names}）；"
                      "下列为已识别但尚未沉淀成条目的主题空白。",
        .gaps_names = "：",
        .gap_flag = "（{id} 标记）",
        .candidates = "待验证候选（verified_by 仅 {k} 篇，再补 1 篇独立来源即可升 high）：",
        .candidate = "{id}（{title}）",
        .candidates_none = "无。",
        .last = "上次结晶记录",
        .last_line = "{date}：距 {since} 新增 {n} 条；{h} 处升/降 high；{s} 条 stale（最早条目 "
                     "{earliest}，{expiry} 到期）；{bloom}；{r} 个节点 stance 重写；矛盾 {c} 新增；"
                     "eval {scenario} 自评 {verdict}。",
        .bloom_same = "bloom 均维持",
        .bloom_changed = "bloom 变化：",
        .no_record = "尚无结晶记录。",
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
        .hotspots = "Cross-domain hotspots",
        .hotspots_intro = "Known links between this domain's nodes and other domains.",
        .hot_cols = {"Node", "Domains", "Linked nodes", "Note"},
        .contradictions = "Active contradictions",
        .review = "{date} review: each of the {new} new insights was compared with the earlier "
                  "claims of its node, about {pairs} pairs{pair_list}; {k} cross-node or "
                  "cross-domain topic pairs were also checked{cross_list}; {verdict}{note}. "
                  "About {total} pairs in all, {c} new contradictions.",
        .review_note = "; ",
        .open_count = "Open contradictions: {n}.",
        .open_item = "{id} ↔ {other}{note}",
        .open_note = ": ",
        .gaps = "Knowledge gaps",
        .gaps_intro = "Nodes at Bloom ≤ remember with no insights: {n}{names}. Below: topic gaps "
                      "identified but not yet written up as insights.",
        .gaps_names = " — ",
        .gap_flag = " (flagged by {id})",
        .candidates = "Candidates (only {k} verified_by; one more independent source makes them "
                      "high): ",
        .candidate = "{id} ({title})",
        .candidates_none = "none.",
        .last = "Last crystallization",
        .last_line = "{date}: {n} new since {since}; {h} high promotions or demotions; {s} stale "
                     "(earliest insight {earliest}, expires {expiry}); {bloom}; {r} stance "
                     "rewrites; {c} new contradictions; eval {scenario} self-rated {verdict}.",
        .bloom_same = "blooms unchanged",
        .bloom_changed = "bloom changes: ",
        .no_record = "No crystallization recorded yet.",
};
