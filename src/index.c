/* index.c: INDEX.md, section by section (docs/index-format.md). */
#include "dtk/index.h"

#include "dtk/dtk.h"
#include "dtk/kb.h"
#include "dtk/markdown.h"

#include <string.h>

/* Calls fn for every entry, nodes in category order, entries in file order. */
#define FOR_EACH_ENTRY(kb, e)                                                        \
	for (size_t ni_ = 0; ni_ < (kb)->n_nodes; ni_++)                             \
		for (const struct dtk_entry *e = (kb)->nodes[ni_]->entries;           \
		     e < (kb)->nodes[ni_]->entries + (kb)->nodes[ni_]->n_entries; e++)

static void S_item(struct dtk_md *md, const char *fmt, ...) DTK_PRINTF(2, 3);

static void S_item(struct dtk_md *md, const char *fmt, ...)
{
	struct dtk_buf b = DTK_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	dtk_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dtk_md_item(md);
	dtk_md_text(md, b.ptr);
	dtk_md_close(md);
	dtk_buf_release(&b);
}

static void S_heading(struct dtk_md *md, int level, const char *text)
{
	dtk_md_heading(md, level);
	dtk_md_text(md, text);
	dtk_md_close(md);
}

static void S_status(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_stats *st)
{
	struct dtk_buf high = DTK_BUF_INIT;
	char date[11];
	int n = 0;

	S_heading(md, 2, "知识体系状态");
	dtk_md_list(md);
	S_item(md, "节点总数: %zu", st->nodes);
	S_item(md, "有 Insights 的节点: %zu", st->nodes_with_entries);
	S_item(md, "Insight 总条目: %zu", st->entries);
	FOR_EACH_ENTRY(kb, e)
	if (e->confidence == DTK_CONF_HIGH)
		dtk_buf_printf(&high, "%s%s", n++ ? "、" : "（", e->id);
	S_item(md, "high 条目: %zu%s%s", st->high, dtk_buf_cstr(&high), n ? "）" : "");
	S_item(md, "上次结晶: %s",
	       kb->n_records ? dtk_date_format(date, kb->records[kb->n_records - 1].date) : "—");
	S_item(md, "覆盖文章数: %zu", st->articles);
	dtk_md_item(md);
	dtk_md_text(md, "定位: ");
	dtk_md_inline(md, kb->positioning);
	dtk_md_textf(md, "（使用率 %d%%、引用率 %d%%、闭环率 %d%%）", st->usage_pct,
		     st->citation_pct, st->closure_pct);
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_buf_release(&high);
}

static void S_table_head(struct dtk_md *md, const char *const cols[4])
{
	int i;
	dtk_md_table(md, 4);
	dtk_md_row(md, 1);
	for (i = 0; i < 4; i++) {
		dtk_md_cell(md);
		dtk_md_text(md, cols[i]);
		dtk_md_close(md);
	}
	dtk_md_close(md);
}

static void S_cell_text(struct dtk_md *md, const char *text)
{
	dtk_md_cell(md);
	dtk_md_text(md, text);
	dtk_md_close(md);
}

static void S_nodes(struct dtk_md *md, const struct dtk_kb *kb)
{
	static const char *const cols[4] = {"节点", "Bloom", "Insights", "当前核心立场"};
	size_t c, i;

	S_heading(md, 2, "节点索引");
	for (c = 0; c < kb->n_categories; c++) {
		S_heading(md, 3, kb->categories[c].name);
		S_table_head(md, cols);
		for (i = 0; i < kb->n_nodes; i++) {
			const struct dtk_node *node = kb->nodes[i];
			char count[32];
			if (node->category != (int)c)
				continue;
			snprintf(count, sizeof(count), "%zu", node->n_entries);
			dtk_md_row(md, 0);
			S_cell_text(md, node->name);
			S_cell_text(md, dtk_bloom_names[node->bloom]);
			S_cell_text(md, count);
			dtk_md_cell(md);
			if (!node->stance) {
				dtk_md_text(md, "—");
			} else {
				if (!dtk_node_has_high(node))
					dtk_md_text(md, "暂定：");
				dtk_md_inline(md, node->stance);
			}
			dtk_md_close(md);
			dtk_md_close(md);
		}
		dtk_md_close(md);
	}
}

/* Appends the distinct domains (part 0) or the nodes (part 1) of links. */
static void S_link_parts(struct dtk_buf *b, const struct dtk_hotspot *h, int part)
{
	size_t i, j;
	for (i = 0; i < h->n_links; i++) {
		const char *s = h->links[i].id, *slash = strchr(s, '/');
		size_t dlen = (size_t)(slash - s);
		int seen = 0;
		if (part == 0) {
			for (j = 0; j < i && !seen; j++)
				seen = !strncmp(h->links[j].id, s, dlen + 1);
			if (!seen)
				dtk_buf_printf(b, "%s%.*s", b->len ? " / " : "", (int)dlen, s);
		} else {
			dtk_buf_printf(b, "%s%s", b->len ? " / " : "", slash + 1);
		}
	}
}

static void S_hotspots(struct dtk_md *md, const struct dtk_kb *kb)
{
	static const char *const cols[4] = {"本域节点", "交叉域", "交叉节点", "连接说明"};
	size_t i;
	int part;

	S_heading(md, 2, "跨域热点");
	dtk_md_paragraph(md);
	dtk_md_text(md, "本域节点与其他域的已知交叉连接。");
	dtk_md_close(md);
	S_table_head(md, cols);
	for (i = 0; i < kb->n_hotspots; i++) {
		const struct dtk_hotspot *h = &kb->hotspots[i];
		dtk_md_row(md, 0);
		S_cell_text(md, h->node.id);
		for (part = 0; part < 2; part++) {
			struct dtk_buf b = DTK_BUF_INIT;
			S_link_parts(&b, h, part);
			S_cell_text(md, dtk_buf_cstr(&b));
			dtk_buf_release(&b);
		}
		dtk_md_cell(md);
		dtk_md_inline(md, h->note);
		dtk_md_close(md);
		dtk_md_close(md);
	}
	dtk_md_close(md);
}

/* The review paragraph of a record (spec section 5). */
static void S_review(struct dtk_md *md, const struct dtk_record *r)
{
	struct dtk_buf b = DTK_BUF_INIT;
	long pairs = 0;
	size_t i;
	char date[11];

	for (i = 0; i < r->n_pairs; i++)
		pairs += r->pairs[i].count;
	dtk_buf_printf(&b, "%s 比对范围：新增 %ld 条逐条与所在节点既有 claim 比对约 %ld 组",
		       dtk_date_format(date, r->date), r->new_entries, pairs);
	for (i = 0; i < r->n_pairs; i++)
		dtk_buf_printf(&b, "%s%s %ld", i ? "、" : "（", r->pairs[i].node, r->pairs[i].count);
	dtk_buf_printf(&b, "%s，另复核 %zu 组跨节点/跨域主题对", r->n_pairs ? "）" : "",
		       r->n_cross_pairs);
	for (i = 0; i < r->n_cross_pairs; i++)
		dtk_buf_printf(&b, "%s%s", i ? "、" : "（", r->cross_pairs[i]);
	dtk_buf_puts(&b, r->n_cross_pairs ? "），" : "，");
	dtk_md_paragraph(md);
	dtk_md_text(md, b.ptr);
	dtk_md_inline(md, r->review_verdict);
	if (r->review_note) {
		dtk_md_text(md, "；");
		dtk_md_inline(md, r->review_note);
	}
	dtk_md_textf(md, "。合计约 %ld 组，新增矛盾 %ld。", pairs + (long)r->n_cross_pairs,
		     r->contradictions_new);
	dtk_md_close(md);
	dtk_buf_release(&b);
}

/* Returns e's place in listing order: category order of nodes, file order. */
static size_t S_rank(const struct dtk_kb *kb, const struct dtk_entry *e)
{
	size_t i, rank = 0;
	for (i = 0; i < kb->n_nodes && kb->nodes[i] != e->node; i++)
		rank += kb->nodes[i]->n_entries;
	return rank + (size_t)(e - e->node->entries);
}

/* Returns 1 when e's open contradiction c is listed already: the other entry
 * comes first and declares the same pair as open. */
static int S_listed_before(const struct dtk_kb *kb, const struct dtk_entry *e,
			   const struct dtk_contradiction *c)
{
	const struct dtk_entry *o = strchr(c->ref.id, ':') ? NULL : dtk_kb_entry(kb, c->ref.id);
	size_t k;

	if (!o || S_rank(kb, o) >= S_rank(kb, e))
		return 0;
	for (k = 0; k < o->n_contradicts; k++)
		if (o->contradicts[k].open && !strcmp(o->contradicts[k].ref.id, e->id))
			return 1;
	return 0;
}

static void S_contradictions(struct dtk_md *md, const struct dtk_kb *kb)
{
	const struct dtk_record *last = kb->n_records ? &kb->records[kb->n_records - 1] : NULL;
	size_t open = 0, k;
	int pass;

	S_heading(md, 2, "活跃矛盾");
	if (last && last->has_review)
		S_review(md, last);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			dtk_md_paragraph(md);
			dtk_md_textf(md, "当前活跃矛盾 %zu 处。", open);
			dtk_md_close(md);
			if (!open)
				return;
			dtk_md_list(md);
		}
		FOR_EACH_ENTRY(kb, e)
		for (k = 0; k < e->n_contradicts; k++) {
			const struct dtk_contradiction *c = &e->contradicts[k];
			if (!c->open || S_listed_before(kb, e, c))
				continue;
			if (pass == 0) {
				open++;
				continue;
			}
			dtk_md_item(md);
			dtk_md_textf(md, "%s ↔ %s", e->id, c->ref.id);
			if (c->note) {
				dtk_md_text(md, "：");
				dtk_md_inline(md, c->note);
			}
			dtk_md_close(md);
		}
	}
	dtk_md_close(md);
}

static void S_gaps(struct dtk_md *md, const struct dtk_kb *kb)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, n = 0;

	S_heading(md, 2, "知识缺口");
	for (i = 0; i < kb->n_nodes; i++)
		if (kb->nodes[i]->bloom <= DTK_BLOOM_REMEMBER && !kb->nodes[i]->n_entries)
			dtk_buf_printf(&b, "%s%s", n++ ? "、" : "：", kb->nodes[i]->name);
	dtk_md_paragraph(md);
	dtk_md_textf(md,
		     "Bloom ≤ remember 且 Insights 为 0 的节点（%zu 个%s）；"
		     "下列为已识别但尚未沉淀成条目的主题空白。",
		     n, dtk_buf_cstr(&b));
	dtk_md_close(md);
	dtk_buf_release(&b);
	if (kb->n_gaps) {
		dtk_md_list(md);
		for (i = 0; i < kb->n_gaps; i++) {
			dtk_md_item(md);
			dtk_md_inline(md, kb->gaps[i].text);
			if (kb->gaps[i].flagged_by.id)
				dtk_md_textf(md, "（%s 标记）", kb->gaps[i].flagged_by.id);
			dtk_md_close(md);
		}
		dtk_md_close(md);
	}
	dtk_md_paragraph(md);
	dtk_md_textf(md, "待验证候选（verified_by 仅 %d 篇，再补 1 篇独立来源即可升 high）：",
		     kb->high_min_verified - 1);
	n = 0;
	FOR_EACH_ENTRY(kb, e)
	if (dtk_entry_is_candidate(kb, e)) {
		dtk_md_textf(md, "%s%s（", n++ ? "、" : "", e->id);
		dtk_md_inline(md, e->title);
		dtk_md_text(md, "）");
	}
	dtk_md_text(md, n ? "。" : "无。");
	dtk_md_close(md);
}

/* Formats d as MM-DD when it is in year, else in full. */
static const char *S_short_date(char buf[11], dtk_date d, int year)
{
	dtk_date_format(buf, d);
	return d / 10000 == year ? buf + 5 : buf;
}

static void S_last_run(struct dtk_md *md, const struct dtk_kb *kb)
{
	const struct dtk_record *r;
	struct dtk_buf b = DTK_BUF_INIT;
	char d1[11], d2[11], d3[11], d4[11];
	int year;
	size_t i;

	S_heading(md, 2, "上次结晶记录");
	dtk_md_paragraph(md);
	if (!kb->n_records) {
		dtk_md_text(md, "尚无结晶记录。");
		dtk_md_close(md);
		return;
	}
	r = &kb->records[kb->n_records - 1];
	year = r->date / 10000;
	dtk_buf_printf(&b, "%s：距 %s 新增 %ld 条；%ld 处升/降 high；%ld 条 stale（最早条目 %s，%s 到期）；",
		       dtk_date_format(d1, r->date),
		       r->since ? S_short_date(d2, r->since, year) : "—", r->new_entries,
		       r->high_changes, r->stale, dtk_date_format(d3, r->earliest),
		       S_short_date(d4, dtk_date_add_months(r->earliest, kb->stale_after_months),
				    year));
	if (!r->n_bloom_changes)
		dtk_buf_puts(&b, "bloom 均维持");
	for (i = 0; i < r->n_bloom_changes; i++)
		dtk_buf_printf(&b, "%s%s %s→%s", i ? "、" : "bloom 变化：", r->bloom_changes[i].node,
			       dtk_bloom_names[r->bloom_changes[i].from],
			       dtk_bloom_names[r->bloom_changes[i].to]);
	dtk_buf_printf(&b, "；%ld 个节点 stance 重写；矛盾 %ld 新增；eval %s 自评 %s。",
		       r->stance_rewrites, r->contradictions_new, r->eval_scenario,
		       r->eval_verdict);
	dtk_md_text(md, b.ptr);
	dtk_md_close(md);
	dtk_buf_release(&b);
}

char *dtk_index_render(const struct dtk_kb *kb)
{
	struct dtk_md *md = dtk_md_new();
	struct dtk_stats st;
	char *out;

	dtk_stats_compute(&st, kb);
	S_heading(md, 1, kb->title);
	dtk_md_paragraph(md);
	dtk_md_inline(md, kb->description);
	dtk_md_close(md);
	S_status(md, kb, &st);
	S_nodes(md, kb);
	S_hotspots(md, kb);
	S_contradictions(md, kb);
	S_gaps(md, kb);
	S_last_run(md, kb);
	out = dtk_md_render(md);
	dtk_md_free(md);
	return out;
}

int dtk_index_build(char **out, const char *root, struct dtk_diags *diags)
{
	struct dtk_kb *kb = NULL;
	int rc = dtk_kb_load(&kb, root, DTK_KB_ALL | DTK_KB_LEAN, NULL, diags);

	*out = NULL;
	if (rc < 0)
		return rc;
	*out = dtk_index_render(kb);
	dtk_kb_free(kb);
	return 0;
}
