/* index.c: INDEX.md, section by section (docs/index-format.md). */
#include "dtk/index.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/markdown.h"
#include "dtk/nodesum.h"
#include "lang.h"

#include <stdlib.h>
#include <string.h>

#define N_SLOTS(a) (sizeof(a) / sizeof(*(a)))

/* Formats a number for a slot into buf. */
static const char *S_num(char buf[32], long n)
{
	snprintf(buf, 32, "%ld", n);
	return buf;
}

static void S_heading(struct dtk_md *md, int level, const char *text)
{
	dtk_md_heading(md, level);
	dtk_md_text(md, text);
	dtk_md_close(md);
}

static void S_item_n(struct dtk_md *md, const char *tpl, long n, const char *extra)
{
	char num[32];
	struct dtk_md_slot s[] = {{"n", S_num(num, n), 0}, {"ids", extra ? extra : "", 0}};
	dtk_md_item(md);
	dtk_md_fill(md, tpl, s, N_SLOTS(s));
	dtk_md_close(md);
}

static void S_status(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                     const struct dtk_stats *st)
{
	struct dtk_buf high = DTK_BUF_INIT;
	char date[11], u[32], c[32], kk[32];
	size_t i, k;
	int n = 0;

	S_heading(md, 2, L->status);
	dtk_md_list(md);
	S_item_n(md, L->st_nodes, (long)st->nodes, NULL);
	S_item_n(md, L->st_with, (long)st->nodes_with_entries, NULL);
	S_item_n(md, L->st_entries, (long)st->entries, NULL);
	for (i = 0; i < kb->n_nodes; i++) { /* nodes in category order, entries in file order */
		const char *p = kb->nodes[i]->sum->highs;
		for (k = 0; k < kb->nodes[i]->sum->high; k++) {
			dtk_buf_puts(&high, n++ ? L->sep : L->lpar);
			dtk_buf_puts(&high, dtk_nodesum_str(&p));
		}
	}
	if (n)
		dtk_buf_puts(&high, L->rpar);
	S_item_n(md, L->st_high, (long)st->high, dtk_buf_cstr(&high));
	{
		struct dtk_md_slot s[] = {
		        {"date",
		         kb->n_records ? dtk_date_format(date, kb->records[kb->n_records - 1].date)
		                       : "—",
		         0}};
		dtk_md_item(md);
		dtk_md_fill(md, L->st_last, s, N_SLOTS(s));
		dtk_md_close(md);
	}
	S_item_n(md, L->st_articles, (long)st->articles, NULL);
	{
		struct dtk_md_slot s[] = {{"positioning", kb->positioning, 1},
		                          {"usage", S_num(u, st->usage_pct), 0},
		                          {"citation", S_num(c, st->citation_pct), 0},
		                          {"closure", S_num(kk, st->closure_pct), 0}};
		dtk_md_item(md);
		dtk_md_fill(md, L->st_positioning, s, N_SLOTS(s));
		dtk_md_close(md);
	}
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

/* Adds a node's name: a link to its page in the HTML export. */
static void S_node_name(struct dtk_md *md, const char *name, int links)
{
	struct dtk_buf url = DTK_BUF_INIT;
	dtk_md_cell(md);
	if (links) {
		dtk_buf_printf(&url, "nodes/%s.html", name);
		dtk_md_link(md, url.ptr, name);
	} else {
		dtk_md_text(md, name);
	}
	dtk_md_close(md);
	dtk_buf_release(&url);
}

static void S_nodes(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L, int links)
{
	size_t c, i;
	char count[32];

	S_heading(md, 2, L->node_index);
	for (c = 0; c < kb->n_categories; c++) {
		S_heading(md, 3, kb->categories[c].name);
		if (!kb->categories[c].n_nodes) { /* no table of no rows */
			dtk_md_paragraph(md);
			dtk_md_text(md, L->nodes_none);
			dtk_md_close(md);
			continue;
		}
		S_table_head(md, L->node_cols);
		for (i = 0; i < kb->n_nodes; i++) {
			const struct dtk_node *node = kb->nodes[i];
			if (node->category != (int)c)
				continue;
			dtk_md_row(md, 0);
			S_node_name(md, node->name, links);
			S_cell_text(md, dtk_bloom_names[node->bloom]);
			S_cell_text(md, S_num(count, (long)dtk_node_live(node)));
			dtk_md_cell(md);
			if (!node->stance) {
				dtk_md_text(md, "—");
			} else {
				if (!dtk_node_has_high(node))
					dtk_md_text(md, L->tentative);
				dtk_md_plain(md, node->stance);
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

static void S_hotspots(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                       int links)
{
	size_t i;
	int part;

	S_heading(md, 2, L->hotspots);
	dtk_md_paragraph(md);
	dtk_md_text(md, L->hotspots_intro);
	dtk_md_close(md);
	if (!kb->n_hotspots) { /* no table of no rows */
		dtk_md_paragraph(md);
		dtk_md_text(md, L->hotspots_none);
		dtk_md_close(md);
		return;
	}
	S_table_head(md, L->hot_cols);
	for (i = 0; i < kb->n_hotspots; i++) {
		const struct dtk_hotspot *h = &kb->hotspots[i];
		dtk_md_row(md, 0);
		S_node_name(md, h->node.id, links);
		for (part = 0; part < 2; part++) {
			struct dtk_buf b = DTK_BUF_INIT;
			S_link_parts(&b, h, part);
			S_cell_text(md, dtk_buf_cstr(&b));
			dtk_buf_release(&b);
		}
		dtk_md_cell(md);
		dtk_md_plain(md, h->note);
		dtk_md_close(md);
		dtk_md_close(md);
	}
	dtk_md_close(md);
}

/* The review paragraph of a record (spec section 5). */
static void S_review(struct dtk_md *md, const struct dtk_record *r, const struct dtk_lang *L)
{
	struct dtk_buf pairs = DTK_BUF_INIT, cross = DTK_BUF_INIT, note = DTK_BUF_INIT;
	char date[11], nn[32], np[32], nk[32], nt[32], nc[32];
	long total = 0;
	size_t i;

	for (i = 0; i < r->n_pairs; i++) {
		total += r->pairs[i].count;
		dtk_buf_printf(&pairs, "%s%s %ld", i ? L->sep : L->lpar, r->pairs[i].node,
		               r->pairs[i].count);
	}
	if (r->n_pairs)
		dtk_buf_puts(&pairs, L->rpar);
	for (i = 0; i < r->n_cross_pairs; i++)
		dtk_buf_printf(&cross, "%s%s", i ? L->sep : L->lpar, r->cross_pairs[i]);
	if (r->n_cross_pairs)
		dtk_buf_puts(&cross, L->rpar);
	if (r->review_note) {
		dtk_buf_puts(&note, L->review_note);
		dtk_buf_puts(&note, r->review_note);
	}
	{
		struct dtk_md_slot s[] = {
		        {"date", dtk_date_format(date, r->date), 0},
		        {"new", S_num(nn, r->new_entries), 0},
		        {"pairs", S_num(np, total), 0},
		        {"pair_list", dtk_buf_cstr(&pairs), 0},
		        {"k", S_num(nk, (long)r->n_cross_pairs), 0},
		        {"cross_list", dtk_buf_cstr(&cross), 0},
		        {"verdict", r->review_verdict, 1},
		        {"note", dtk_buf_cstr(&note), 1},
		        {"total", S_num(nt, total + (long)r->n_cross_pairs), 0},
		        {"c", S_num(nc, r->contradictions_new), 0},
		};
		dtk_md_paragraph(md);
		dtk_md_fill(md, L->review, s, N_SLOTS(s));
		dtk_md_close(md);
	}
	dtk_buf_release(&pairs);
	dtk_buf_release(&cross);
	dtk_buf_release(&note);
}

/* Returns 1 when the open contradiction c of node is listed already: the
 * other entry comes first (category order of nodes, file order) and
 * declares the same pair as open. */
static int S_listed_before(const struct dtk_kb *kb, const struct dtk_node *node,
                           const struct dtk_sum_open *c)
{
	const char *suffix;
	const struct dtk_node *on =
	        strchr(c->other, ':') ? NULL : dtk_kb_id_node(kb, c->other, &suffix);
	const struct dtk_sum_open *oc = on ? dtk_nodesum_open(on->sum, c->other, c->id) : NULL;

	return oc && (on != node ? on->order < node->order : oc->index < c->index);
}

/* Calls item (when not NULL) with each open contradiction to list, in
 * order; returns how many there are. */
static size_t S_each_open(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                          int items)
{
	size_t i, k, n = 0;

	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->sum->n_opens; k++) {
			const struct dtk_sum_open *c = &kb->nodes[i]->sum->opens[k];
			struct dtk_buf note = DTK_BUF_INIT;
			if (S_listed_before(kb, kb->nodes[i], c))
				continue;
			n++;
			if (!items)
				continue;
			if (c->note) {
				dtk_buf_puts(&note, L->open_note);
				dtk_buf_puts(&note, c->note);
			}
			{
				struct dtk_md_slot s[] = {{"id", c->id, 0},
				                          {"other", c->other, 0},
				                          {"note", dtk_buf_cstr(&note), 1}};
				dtk_md_item(md);
				dtk_md_fill(md, L->open_item, s, N_SLOTS(s));
				dtk_md_close(md);
			}
			dtk_buf_release(&note);
		}
	return n;
}

static void S_contradictions(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L)
{
	const struct dtk_record *last = kb->n_records ? &kb->records[kb->n_records - 1] : NULL;
	size_t open;
	char num[32];

	S_heading(md, 2, L->contradictions);
	if (last && last->has_review)
		S_review(md, last, L);
	open = S_each_open(md, kb, L, 0);
	{
		struct dtk_md_slot s[] = {{"n", S_num(num, (long)open), 0}};
		dtk_md_paragraph(md);
		dtk_md_fill(md, L->open_count, s, N_SLOTS(s));
		dtk_md_close(md);
	}
	if (!open)
		return;
	dtk_md_list(md);
	S_each_open(md, kb, L, 1);
	dtk_md_close(md);
}

/* Returns the run (markdown.h) of what md holds (md is freed), kept in keep
 * until the page is finished; *len bytes. */
static const char *S_keep_run(struct dtk_md *md, struct dtk_arena *keep, size_t *len)
{
	char *run = dtk_md_run_render(md, len), *kept;

	if (!run) /* a separator or a candidate ends in no '&': a run */
		abort();
	kept = dtk_arena_strndup(keep, run, *len);
	free(run);
	dtk_md_free(md);
	return kept;
}

/* Adds the candidates of the base as text (the HTML export: its nodes have
 * their entries); returns how many. */
static size_t S_candidates_text(struct dtk_md *md, const struct dtk_kb *kb,
                                const struct dtk_lang *L)
{
	size_t i, n = 0;

	for (i = 0; i < kb->n_nodes; i++) {
		if (!kb->nodes[i]->sum->n_cands)
			continue;
		if (n)
			dtk_md_text(md, L->sep);
		n += kb->nodes[i]->sum->n_cands;
		dtk_nodesum_candidates(md, kb->nodes[i], kb->high_min_verified, kb->lang_en);
	}
	return n;
}

/* Adds the candidates of the base as runs (markdown.h), rendered once: each
 * node's as its summary keeps it (a node of a DTK_KB_INDEX load has no
 * entries: its summary holds them, made for the base as it is) or made from
 * its entries now, the separator's between them (those made kept in keep).
 * Returns how many candidates there are. */
static size_t S_candidates(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                           struct dtk_arena *keep)
{
	const char *sep = NULL, *run;
	size_t i, n = 0, sep_len = 0, len;

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = kb->nodes[i];
		struct dtk_md *one;
		if (!node->sum->n_cands)
			continue;
		if (n && !sep) {
			one = dtk_md_new_run();
			dtk_md_text(one, L->sep);
			sep = S_keep_run(one, keep, &sep_len);
		}
		if (n)
			dtk_md_rendered(md, sep, sep_len);
		n += node->sum->n_cands;
		if (node->sum->run) {
			dtk_md_rendered(md, node->sum->run, node->sum->run_len);
			continue;
		}
		one = dtk_md_new_run();
		dtk_nodesum_candidates(one, node, kb->high_min_verified, kb->lang_en);
		run = S_keep_run(one, keep, &len);
		dtk_md_rendered(md, run, len);
	}
	return n;
}

/* keep: where the runs made go until the page is finished; NULL for the
 * HTML export (whose candidates are text) */
static void S_gaps(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                   struct dtk_arena *keep)
{
	struct dtk_buf names = DTK_BUF_INIT;
	char num[32];
	size_t i, n = 0;

	S_heading(md, 2, L->gaps);
	for (i = 0; i < kb->n_nodes; i++)
		if (kb->nodes[i]->bloom <= DTK_BLOOM_REMEMBER && !dtk_node_live(kb->nodes[i]))
			dtk_buf_printf(&names, "%s%s", n++ ? L->sep : L->gaps_names,
			               kb->nodes[i]->name);
	{
		struct dtk_md_slot s[] = {{"n", S_num(num, (long)n), 0},
		                          {"names", dtk_buf_cstr(&names), 0}};
		dtk_md_paragraph(md);
		/* "below:" only when a list follows */
		dtk_md_fill(md, kb->n_gaps ? L->gaps_intro : L->gaps_intro_none, s, N_SLOTS(s));
		dtk_md_close(md);
	}
	dtk_buf_release(&names);
	if (kb->n_gaps) {
		dtk_md_list(md);
		for (i = 0; i < kb->n_gaps; i++) {
			struct dtk_md_slot s[] = {{"id", kb->gaps[i].flagged_by.id, 0}};
			dtk_md_item(md);
			dtk_md_plain(md, kb->gaps[i].text);
			if (kb->gaps[i].flagged_by.id)
				dtk_md_fill(md, L->gap_flag, s, N_SLOTS(s));
			dtk_md_close(md);
		}
		dtk_md_close(md);
	}
	{
		struct dtk_md_slot s[] = {{"k", S_num(num, kb->high_min_verified - 1), 0}};
		dtk_md_paragraph(md);
		dtk_md_fill(md, L->candidates, s, N_SLOTS(s));
	}
	n = keep ? S_candidates(md, kb, L, keep) : S_candidates_text(md, kb, L);
	dtk_md_text(md, n ? L->stop : L->candidates_none);
	dtk_md_close(md);
}

/* Formats d as MM-DD when it is in year, else in full. */
static const char *S_short_date(char buf[11], dtk_date d, int year)
{
	dtk_date_format(buf, d);
	return d / 10000 == year ? buf + 5 : buf;
}

static void S_last_run(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L)
{
	const struct dtk_record *r;
	struct dtk_buf bloom = DTK_BUF_INIT;
	char d1[11], d2[11], d3[11], d4[11], n[32], h[32], s_[32], rw[32], c[32];
	int year;
	size_t i;

	S_heading(md, 2, L->last);
	dtk_md_paragraph(md);
	if (!kb->n_records) {
		dtk_md_text(md, L->no_record);
		dtk_md_close(md);
		return;
	}
	r = &kb->records[kb->n_records - 1];
	year = r->date / 10000;
	if (!r->n_bloom_changes)
		dtk_buf_puts(&bloom, L->bloom_same);
	for (i = 0; i < r->n_bloom_changes; i++)
		dtk_buf_printf(&bloom, "%s%s %s→%s", i ? L->sep : L->bloom_changed,
		               r->bloom_changes[i].node, dtk_bloom_names[r->bloom_changes[i].from],
		               dtk_bloom_names[r->bloom_changes[i].to]);
	{
		struct dtk_md_slot s[] = {
		        {"date", dtk_date_format(d1, r->date), 0},
		        {"since", r->since ? S_short_date(d2, r->since, year) : L->since_none, 0},
		        {"n", S_num(n, r->new_entries), 0},
		        {"h", S_num(h, r->high_changes), 0},
		        {"s", S_num(s_, r->stale), 0},
		        {"earliest", dtk_date_format(d3, r->earliest), 0},
		        {"expiry",
		         S_short_date(d4, dtk_date_add_months(r->earliest, kb->stale_after_months),
		                      year),
		         0},
		        {"bloom", bloom.ptr, 0},
		        {"r", S_num(rw, r->stance_rewrites), 0},
		        {"c", S_num(c, r->contradictions_new), 0},
		        {"scenario", r->eval_scenario, 0},
		        {"verdict", r->eval_verdict, 0},
		        {"hs", r->high_changes == 1 ? "" : L->plural, 0},
		        {"rs", r->stance_rewrites == 1 ? "" : L->plural, 0},
		        {"cs", r->contradictions_new == 1 ? "" : L->plural, 0},
		};
		dtk_md_fill(md, L->last_line, s, N_SLOTS(s));
	}
	dtk_md_close(md);
	dtk_buf_release(&bloom);
}

/* Builds INDEX.md's document in md; links: node names link to their pages
 * (the HTML export); keep: see S_gaps. */
static void S_build(struct dtk_md *md, const struct dtk_kb *kb, int links, struct dtk_arena *keep)
{
	const struct dtk_lang *L = kb->lang_en ? &dtk_lang_en : &dtk_lang_zh;
	struct dtk_stats st;

	dtk_stats_compute(&st, kb);
	S_heading(md, 1, kb->title);
	dtk_md_paragraph(md);
	dtk_md_plain(md, kb->description);
	dtk_md_close(md);
	S_status(md, kb, L, &st);
	S_nodes(md, kb, L, links);
	S_hotspots(md, kb, L, links);
	S_contradictions(md, kb, L);
	S_gaps(md, kb, L, keep);
	S_last_run(md, kb, L);
}

int dtk_index_write(const struct dtk_kb *kb, dtk_write_fn write, void *arg)
{
	struct dtk_md *md = dtk_md_new_stream(write, arg);
	struct dtk_arena *keep = dtk_arena_new();
	int rc;

	S_build(md, kb, 0, keep);
	rc = dtk_md_finish(md);
	dtk_md_free(md);
	dtk_arena_free(keep);
	return rc;
}

char *dtk_index_render(const struct dtk_kb *kb)
{
	struct dtk_buf b = DTK_BUF_INIT;
	dtk_index_write(kb, dtk_buf_write, &b); /* cannot fail */
	return dtk_buf_detach(&b);
}

char *dtk_index_render_html(const struct dtk_kb *kb)
{
	struct dtk_md *md = dtk_md_new();
	char *out;

	S_build(md, kb, 1, NULL);
	out = dtk_md_render_html(md);
	dtk_md_free(md);
	return out;
}

int dtk_index_build(const char *root, struct dtk_diags *diags, dtk_write_fn write, void *arg)
{
	struct dtk_kb *kb = NULL;
	int rc = dtk_kb_load(&kb,
	                     &(struct dtk_kb_load_opts){
	                             .root = root, .what = DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_INDEX},
	                     diags);

	if (rc < 0)
		return rc;
	rc = dtk_index_write(kb, write, arg);
	dtk_kb_free(kb);
	return rc;
}

int dtk_index_compare(const char *root, const char *path, struct dtk_file_cmp *c,
                      struct dtk_diags *diags)
{
	int rc = dtk_file_cmp_open(c, path, DTK_MAX_INDEX_BYTES);

	if (rc == 0)
		rc = dtk_index_build(root, diags, dtk_file_cmp_write, c);
	return rc == 0 ? dtk_file_cmp_finish(c) : rc;
}
