/* index.c: INDEX.md, section by section (docs/index-format.md). */
#include "dtk/index.h"

#include "dtk/dtk.h"
#include "dtk/kb.h"
#include "dtk/markdown.h"
#include "dtk/nodesum.h"
#include "lang.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_SLOTS(a) (sizeof(a) / sizeof(*(a)))

/* The tiers of a page over its budget (docs/index-format.md, "The budget"),
 * each adding to those before it: lists of ids become a count and the
 * command that lists them; hotspots a count; the open contradictions and
 * the gaps a count; stances are cut; the node tables move to index/; the
 * list of those pages becomes one paragraph. */
enum { S_FULL, S_IDS, S_HOTSPOTS, S_LISTS, S_STANCES, S_PAGES, S_INLINE };
#define S_STANCE_CHARS 60

/* How INDEX.md is rendered: its tier; at S_PAGES, the pages its node
 * tables went to. */
struct S_fit {
	int tier;
	const struct dtk_index_pages *pages;
	const unsigned char *kept; /* S_PAGES: 1 for a category whose table stays */
};

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

/* Adds a list item (item set) or a paragraph: tpl with s[0..n) filled. */
static void S_block(struct dtk_md *md, int item, const char *tpl, const struct dtk_md_slot *s,
                    size_t n)
{
	if (item)
		dtk_md_item(md);
	else
		dtk_md_paragraph(md);
	dtk_md_fill(md, tpl, s, n);
	dtk_md_close(md);
}

/* S_block with the slots {n} and {ids} (extra; NULL: none). */
static void S_fill_n(struct dtk_md *md, int item, const char *tpl, long n, const char *extra)
{
	char num[32];
	struct dtk_md_slot s[] = {{"n", S_num(num, n), 0}, {"ids", extra ? extra : "", 0}};
	S_block(md, item, tpl, s, N_SLOTS(s));
}

static void S_status(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                     const struct dtk_stats *st, int tier)
{
	struct dtk_buf high = DTK_BUF_INIT;
	char date[11], u[32], c[32], kk[32];
	size_t i, k;
	int n = 0;

	S_heading(md, 2, L->status);
	dtk_md_list(md);
	S_fill_n(md, 1, L->st_nodes, (long)st->nodes, NULL);
	S_fill_n(md, 1, L->st_with, (long)st->nodes_with_entries, NULL);
	S_fill_n(md, 1, L->st_entries, (long)st->entries, NULL);
	for (i = 0; i < kb->n_nodes && tier < S_IDS; i++) { /* category order, file order */
		const char *p = kb->nodes[i]->sum->highs;
		for (k = 0; k < kb->nodes[i]->sum->high; k++) {
			dtk_buf_puts(&high, n++ ? L->sep : L->lpar);
			dtk_buf_puts(&high, dtk_nodesum_str(&p));
		}
	}
	if (n)
		dtk_buf_puts(&high, L->rpar);
	else if (st->high)
		dtk_buf_puts(&high, L->cut_high);
	S_fill_n(md, 1, L->st_high, (long)st->high, dtk_buf_cstr(&high));
	{
		struct dtk_md_slot s[] = {
		        {"date",
		         kb->n_records ? dtk_date_format(date, kb->records[kb->n_records - 1].date)
		                       : "—",
		         0}};
		S_block(md, 1, L->st_last, s, N_SLOTS(s));
	}
	S_fill_n(md, 1, L->st_articles, (long)st->articles, NULL);
	{
		struct dtk_md_slot s[] = {{"positioning", kb->positioning, 1},
		                          {"usage", S_num(u, st->usage_pct), 0},
		                          {"citation", S_num(c, st->citation_pct), 0},
		                          {"closure", S_num(kk, st->closure_pct), 0}};
		S_block(md, 1, L->st_positioning, s, N_SLOTS(s));
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

/* Returns the length of the first k characters of s (UTF-8); all of s when
 * it has no more than k. */
static size_t S_chars(const char *s, size_t k)
{
	size_t i = 0;

	for (; s[i] && k; k--)
		for (i++; ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	return i;
}

/* Returns 1 when the stance of node is cut at tier. */
static int S_cut(const struct dtk_node *node, int tier)
{
	return tier >= S_STANCES && node->stance &&
	       node->stance[S_chars(node->stance, S_STANCE_CHARS)];
}

/* Adds the row of node to the table at the cursor; its stance cut at tier. */
static void S_row(struct dtk_md *md, const struct dtk_node *node, const struct dtk_lang *L,
                  int links, int tier)
{
	char count[32];

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
		if (S_cut(node, tier)) {
			char *cut =
			        dtk_xstrndup(node->stance, S_chars(node->stance, S_STANCE_CHARS));
			dtk_md_plain(md, cut);
			dtk_md_text(md, "…");
			free(cut);
		} else {
			dtk_md_plain(md, node->stance);
		}
	}
	dtk_md_close(md);
	dtk_md_close(md);
}

/* Adds the paragraph that says how many stances of nodes[0..n) are cut,
 * when any is. */
static void S_cut_note(struct dtk_md *md, const struct dtk_node *const *nodes, size_t n,
                       const struct dtk_lang *L, int tier)
{
	char num[32], k[32];
	size_t i, cut = 0;

	for (i = 0; i < n; i++)
		cut += (size_t)S_cut(nodes[i], tier);
	if (!cut)
		return;
	{
		struct dtk_md_slot s[] = {{"n", S_num(num, (long)cut), 0},
		                          {"k", S_num(k, S_STANCE_CHARS), 0}};
		S_block(md, 0, L->cut_stances, s, N_SLOTS(s));
	}
}

/* Adds an item of the list of pages: a link to rel (NULL: the name of a
 * category without a page) and the count n; inline: in the paragraph
 * (S_INLINE), after a separator unless first. */
static void S_page_item(struct dtk_md *md, const struct dtk_lang *L, const char *rel,
                        const char *label, size_t n, int inline_, int first)
{
	char num[32];
	struct dtk_md_slot s[] = {{"n", S_num(num, (long)n), 0}};

	if (!inline_)
		dtk_md_item(md);
	else if (!first)
		dtk_md_text(md, L->sep);
	if (rel)
		dtk_md_link(md, rel, label);
	else
		dtk_md_plain(md, label);
	if (inline_)
		dtk_md_textf(md, " %s", num);
	else
		dtk_md_fill(md, L->page_item, s, N_SLOTS(s));
	if (!inline_)
		dtk_md_close(md);
}

/* Adds the list of the generated pages (S_PAGES; S_INLINE: as one
 * paragraph). */
static void S_page_list(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                        const struct S_fit *f, size_t moved)
{
	const struct dtk_index_pages *p = f->pages;
	int inline_ = f->tier >= S_INLINE, first = 1;
	size_t c, i = 0;

	S_fill_n(md, 0, L->pages_intro, (long)moved, NULL);
	if (inline_)
		dtk_md_paragraph(md);
	else
		dtk_md_list(md);
	for (c = 0; c < kb->n_categories; c++) {
		if (f->kept && f->kept[c]) {
			while (i < p->n && p->v[i].category == c)
				i++;
			continue;
		}
		if (i == p->n || p->v[i].category != c) { /* a category without a node */
			S_page_item(md, L, NULL, kb->categories[c].name, 0, inline_, first);
			first = 0;
		}
		for (; i < p->n && p->v[i].category == c; i++) {
			struct dtk_buf label = DTK_BUF_INIT;
			dtk_buf_puts(&label, kb->categories[c].name);
			if (p->v[i].first || (i + 1 < p->n && p->v[i + 1].category == c))
				dtk_buf_printf(&label, " %zu", p->v[i].part);
			S_page_item(md, L, p->v[i].rel, dtk_buf_cstr(&label), p->v[i].n, inline_,
			            first);
			first = 0;
			dtk_buf_release(&label);
		}
	}
	if (inline_)
		dtk_md_text(md, L->stop);
	dtk_md_close(md);
}

/* Returns the nodes of category c in order (malloc'd, the caller frees;
 * *n of them). */
static const struct dtk_node **S_category_nodes(const struct dtk_kb *kb, size_t c, size_t *n)
{
	const struct dtk_node **v = dtk_xcalloc(kb->n_nodes + 1, sizeof(*v));
	size_t i;

	for (*n = i = 0; i < kb->n_nodes; i++)
		if (kb->nodes[i]->category == (int)c)
			v[(*n)++] = kb->nodes[i];
	return v;
}

/* Adds the heading and table of category c. */
static void S_category(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                       size_t c, int links, int tier)
{
	size_t i;

	S_heading(md, 3, kb->categories[c].name);
	if (!kb->categories[c].n_nodes) { /* no table of no rows */
		S_block(md, 0, L->nodes_none, NULL, 0);
		return;
	}
	S_table_head(md, L->node_cols);
	for (i = 0; i < kb->n_nodes; i++)
		if (kb->nodes[i]->category == (int)c)
			S_row(md, kb->nodes[i], L, links, tier);
	dtk_md_close(md);
}

static void S_nodes(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L, int links,
                    const struct S_fit *f)
{
	const struct dtk_node **shown = dtk_xcalloc(kb->n_nodes + 1, sizeof(*shown));
	size_t c, i, n = 0;

	S_heading(md, 2, L->node_index);
	for (c = 0; c < kb->n_categories; c++)
		if (f->tier < S_PAGES || (f->kept && f->kept[c]))
			S_category(md, kb, L, c, links, f->tier);
	for (i = 0; i < kb->n_nodes; i++)
		if (f->tier < S_PAGES || (f->kept && f->kept[kb->nodes[i]->category]))
			shown[n++] = kb->nodes[i];
	S_cut_note(md, shown, n, L, f->tier);
	if (f->tier >= S_PAGES && n < kb->n_nodes)
		S_page_list(md, kb, L, f, kb->n_nodes - n);
	free(shown);
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
                       int links, int tier)
{
	size_t i;
	int part;

	S_heading(md, 2, L->hotspots);
	S_block(md, 0, L->hotspots_intro, NULL, 0);
	if (!kb->n_hotspots) { /* no table of no rows */
		S_block(md, 0, L->hotspots_none, NULL, 0);
		return;
	}
	if (tier >= S_HOTSPOTS) {
		S_fill_n(md, 0, L->cut_hotspots, (long)kb->n_hotspots, NULL);
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

/* Puts in b, when n > 0, the count of a list left out (S_IDS). */
static void S_cut_list(struct dtk_buf *b, const struct dtk_lang *L, size_t n)
{
	const char *p;

	b->len = 0;
	if (!n)
		return;
	for (p = L->cut_list; *p; p++)
		if (!strncmp(p, "{n}", 3)) {
			dtk_buf_printf(b, "%zu", n);
			p += 2;
		} else {
			dtk_buf_putc(b, *p);
		}
}

/* The review paragraph of a record (spec section 5). */
static void S_review(struct dtk_md *md, const struct dtk_record *r, const struct dtk_lang *L,
                     int tier)
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
	if (tier >= S_IDS) { /* each list a count and where it is */
		S_cut_list(&pairs, L, r->n_pairs);
		S_cut_list(&cross, L, r->n_cross_pairs);
	}
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
		        {"verdict", r->review_verdict ? r->review_verdict : L->no_verdict,
		         !!r->review_verdict},
		        {"note", dtk_buf_cstr(&note), 1},
		        {"total", S_num(nt, total + (long)r->n_cross_pairs), 0},
		        {"c", S_num(nc, r->contradictions_new), 0},
		};
		S_block(md, 0, L->review, s, N_SLOTS(s));
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
				S_block(md, 1, L->open_item, s, N_SLOTS(s));
			}
			dtk_buf_release(&note);
		}
	return n;
}

/* Fills template tpl with the counts of r's events (slots named as the
 * kinds, dtk_event_names) and the lists of its contradictions opened and
 * resolved ({opened_list}, {resolved_list}; counts alone from tier S_IDS). */
static void S_events(struct dtk_md *md, const struct dtk_record *r, const struct dtk_lang *L,
                     const char *tpl, int tier)
{
	struct dtk_md_slot s[DTK_EV_COUNT + 3];
	struct dtk_buf lists[2] = {DTK_BUF_INIT, DTK_BUF_INIT};
	char nums[DTK_EV_COUNT][32], date[11];
	size_t k, i;

	for (k = 0; k < DTK_EV_COUNT; k++)
		s[k] = (struct dtk_md_slot){dtk_event_names[k], S_num(nums[k], (long)r->n_events[k]),
		                            0};
	for (k = 0; k < 2; k++) {
		const int ev = k ? DTK_EV_RESOLVED : DTK_EV_OPENED;
		for (i = 0; i < r->n_events[ev]; i++)
			dtk_buf_printf(&lists[k], "%s%s", i ? L->sep : L->lpar, r->events[ev][i]);
		if (r->n_events[ev])
			dtk_buf_puts(&lists[k], L->rpar);
		if (tier >= S_IDS)
			S_cut_list(&lists[k], L, r->n_events[ev]);
	}
	s[DTK_EV_COUNT] = (struct dtk_md_slot){"opened_list", dtk_buf_cstr(&lists[0]), 0};
	s[DTK_EV_COUNT + 1] = (struct dtk_md_slot){"resolved_list", dtk_buf_cstr(&lists[1]), 0};
	s[DTK_EV_COUNT + 2] = (struct dtk_md_slot){"date", dtk_date_format(date, r->date), 0};
	dtk_md_fill(md, tpl, s, N_SLOTS(s));
	dtk_buf_release(&lists[0]);
	dtk_buf_release(&lists[1]);
}

static void S_contradictions(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                             int tier)
{
	const struct dtk_record *last = kb->n_records ? &kb->records[kb->n_records - 1] : NULL;
	size_t open;

	S_heading(md, 2, L->contradictions);
	if (last && last->has_review)
		S_review(md, last, L, tier);
	if (last && (last->n_events[DTK_EV_OPENED] || last->n_events[DTK_EV_RESOLVED])) {
		dtk_md_paragraph(md);
		S_events(md, last, L, L->events_contradictions, tier);
		dtk_md_close(md);
	}
	open = S_each_open(md, kb, L, 0);
	S_fill_n(md, 0, open && tier >= S_LISTS ? L->cut_opens : L->open_count, (long)open, NULL);
	if (!open || tier >= S_LISTS)
		return;
	dtk_md_list(md);
	S_each_open(md, kb, L, 1);
	dtk_md_close(md);
}

/* Returns the candidates of node (NULL: text) rendered as a run
 * (markdown.h), malloc'd, *len bytes (the caller frees). */
static char *S_run(const struct dtk_kb *kb, const struct dtk_node *node, const char *text,
                   size_t *len)
{
	struct dtk_md *one = dtk_md_new_run();
	char *run;

	if (node)
		dtk_nodesum_candidates(one, node, kb);
	else
		dtk_md_text(one, text);
	run = dtk_md_run_render(one, len);
	if (!run) /* a separator or a candidate ends in no '&': a run */
		abort();
	dtk_md_free(one);
	return run;
}

/* Adds the candidates of the base, the separator between those of two
 * nodes; returns how many there are. runs: as runs (markdown.h) rendered
 * once, each node's as its summary keeps it (a node of a DTK_KB_INDEX load
 * has no entries: its summary holds them, made for the base as it is) or
 * made from its entries now; else (the HTML export, whose nodes have their
 * entries) as text. */
static size_t S_candidates(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                           int runs)
{
	char *sep = NULL, *run;
	size_t i, n = 0, sep_len = 0, len;

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = kb->nodes[i];
		if (!node->sum->n_cands)
			continue;
		if (n && !runs) {
			dtk_md_text(md, L->sep);
		} else if (n) {
			if (!sep)
				sep = S_run(kb, NULL, L->sep, &sep_len);
			dtk_md_rendered(md, sep, sep_len);
		}
		n += node->sum->n_cands;
		if (!runs) {
			dtk_nodesum_candidates(md, node, kb);
		} else if (node->sum->run) {
			dtk_md_rendered(md, node->sum->run, node->sum->run_len);
		} else {
			run = S_run(kb, node, NULL, &len);
			dtk_md_rendered(md, run, len);
			free(run);
		}
	}
	free(sep);
	return n;
}

/* runs: see S_candidates */
static void S_gaps(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L, int runs,
                   int tier)
{
	struct dtk_buf names = DTK_BUF_INIT;
	char num[32], g[32];
	int lists = tier >= S_LISTS && kb->n_gaps;
	size_t i, n = 0;

	S_heading(md, 2, L->gaps);
	for (i = 0; i < kb->n_nodes; i++)
		if (kb->nodes[i]->bloom <= DTK_BLOOM_REMEMBER && !dtk_node_live(kb->nodes[i]))
			dtk_buf_printf(&names, "%s%s", n++ ? L->sep : L->gaps_names,
			               kb->nodes[i]->name);
	if (n && tier >= S_IDS) {
		names.len = 0;
		dtk_buf_puts(&names, L->cut_gap_nodes);
	}
	{
		struct dtk_md_slot s[] = {{"n", S_num(num, (long)n), 0},
		                          {"names", dtk_buf_cstr(&names), 0},
		                          {"g", S_num(g, (long)kb->n_gaps), 0}};
		/* "below:" only when a list follows */
		S_block(md, 0,
		        lists        ? L->cut_gaps
		        : kb->n_gaps ? L->gaps_intro
		                     : L->gaps_intro_none,
		        s, N_SLOTS(s));
	}
	dtk_buf_release(&names);
	if (kb->n_gaps && !lists) {
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
	if (tier >= S_IDS) {
		for (i = n = 0; i < kb->n_nodes; i++)
			n += kb->nodes[i]->sum->n_cands;
		if (n) {
			struct dtk_md_slot s[] = {{"n", S_num(num, (long)n), 0}};
			dtk_md_fill(md, L->cut_cands, s, N_SLOTS(s));
		} else {
			dtk_md_text(md, L->candidates_none);
		}
		dtk_md_close(md);
		return;
	}
	n = S_candidates(md, kb, L, runs);
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
	dtk_date expiry;
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
	expiry = dtk_date_add_months(r->earliest, kb->stale_after_months);
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
		        {"expiry", S_short_date(d4, expiry, year), 0},
		        {"past", expiry < r->date ? L->expiry_past : L->expiry_coming, 0},
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
	if (r->has_events)
		S_events(md, r, L, L->events_line, S_FULL);
	dtk_md_close(md);
	dtk_buf_release(&bloom);
}

/* Builds INDEX.md's document in md; links: node names link to their pages
 * (the HTML export, whose candidates are text); f: the tier. */
static void S_build(struct dtk_md *md, const struct dtk_kb *kb, int links, const struct S_fit *f)
{
	const struct dtk_lang *L = kb->lang_en ? &dtk_lang_en : &dtk_lang_zh;
	struct dtk_stats st;

	dtk_stats_compute(&st, kb);
	S_heading(md, 1, kb->title);
	dtk_md_paragraph(md);
	dtk_md_plain(md, kb->description);
	dtk_md_close(md);
	S_status(md, kb, L, &st, f->tier);
	S_nodes(md, kb, L, links, f);
	S_hotspots(md, kb, L, links, f->tier);
	S_contradictions(md, kb, L, f->tier);
	S_gaps(md, kb, L, !links, f->tier);
	S_last_run(md, kb, L);
}

/* Returns how many lines (line feeds) s[0..len) holds. */
static size_t S_lines(const char *s, size_t len)
{
	size_t n = 0;
	const char *p = s, *end = s + len;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL && ++p)
		n++;
	return n;
}

/* A dtk_write_fn keeping the text, failing once it is over its budget. */
struct S_bounded {
	struct dtk_buf b;
	size_t max_bytes, max_lines, lines;
};

static int S_bounded_write(void *arg, const char *s, size_t len)
{
	struct S_bounded *w = arg;

	dtk_buf_put(&w->b, s, len);
	w->lines += S_lines(s, len);
	return w->b.len > w->max_bytes || w->lines > w->max_lines ? -1 : 0;
}

/* Renders INDEX.md at f into w->b; returns 1 when it is within w's budget. */
static int S_render_fit(struct S_bounded *w, const struct dtk_kb *kb, const struct S_fit *f)
{
	struct dtk_md *md = dtk_md_new_stream(S_bounded_write, w);
	int rc;

	w->b.len = w->lines = 0;
	S_build(md, kb, 0, f);
	rc = dtk_md_finish(md);
	dtk_md_free(md);
	return rc == 0;
}

/* Puts in b the slug of category c (docs/index-format.md): the ASCII
 * letters (lowercased) and digits of its name, each run of other bytes one
 * '-', none at either end, at most 40; a name that gives none, or gives the
 * slug of another category, adds its FNV-1a hash as 8 hex digits (after a
 * '-' when there is a slug). */
static void S_slug(struct dtk_buf *b, const struct dtk_kb *kb, size_t c, int hash)
{
	const unsigned char *p = (const unsigned char *)kb->categories[c].name;
	uint32_t h = 2166136261u;
	size_t o;
	int dash = 0;

	b->len = 0;
	for (; *p; p++) {
		h = (h ^ *p) * 16777619u;
		if (((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') || (*p >= '0' && *p <= '9')) {
			if (dash && b->len && b->len < 40)
				dtk_buf_putc(b, '-');
			if (b->len < 40)
				dtk_buf_putc(b, (char)(*p >= 'A' && *p <= 'Z' ? *p | 0x20 : *p));
			dash = 0;
		} else {
			dash = 1;
		}
	}
	for (o = 0; hash == 1 && b->len && o < kb->n_categories; o++) {
		struct dtk_buf other = DTK_BUF_INIT;
		if (o != c) {
			S_slug(&other, kb, o, 0);
			if (other.len == b->len && !memcmp(other.ptr, b->ptr, b->len))
				hash = 2;
		}
		dtk_buf_release(&other);
	}
	if (hash && (!b->len || hash == 2))
		dtk_buf_printf(b, "%s%08x", b->len ? "-" : "", (unsigned)h);
	dtk_buf_cstr(b);
}

/* Renders the generated page of nodes[first..first+n) of category c, its
 * part k of m (of total nodes); returns it malloc'd (the caller frees). */
static char *S_page_text(const struct dtk_kb *kb, const struct dtk_lang *L, size_t c,
                         const struct dtk_node **nodes, size_t first, size_t n, size_t total,
                         size_t k, size_t m)
{
	struct dtk_md *md = dtk_md_new();
	char from[32], to[32], nn[32], kk[32], mm[32], *text;
	const char *name = kb->categories[c].name;
	struct dtk_md_slot t[] = {{"title", kb->title, 1}, {"category", name, 1}};
	struct dtk_md_slot s[] = {{"category", name, 1},
	                          {"from", S_num(from, (long)first + 1), 0},
	                          {"to", S_num(to, (long)(first + n)), 0},
	                          {"n", S_num(nn, (long)total), 0},
	                          {"k", S_num(kk, (long)k), 0},
	                          {"m", S_num(mm, (long)m), 0}};
	size_t i;

	dtk_md_heading(md, 1);
	dtk_md_fill(md, L->page_title, t, N_SLOTS(t));
	dtk_md_close(md);
	dtk_md_paragraph(md);
	dtk_md_fill(md, L->page_intro, s, N_SLOTS(s));
	dtk_md_link(md, "../" DTK_INDEX_FILE, DTK_INDEX_FILE);
	dtk_md_text(md, L->stop);
	dtk_md_close(md);
	S_table_head(md, L->node_cols);
	for (i = first; i < first + n; i++)
		S_row(md, nodes[i], L, 0, S_PAGES);
	dtk_md_close(md);
	S_cut_note(md, nodes + first, n, L, S_PAGES);
	text = dtk_md_render(md);
	dtk_md_free(md);
	return text;
}

/* Adds a page of p. */
static void S_page_add(struct dtk_index_pages *p, const struct dtk_buf *slug, size_t c, size_t part,
                       size_t first, size_t n)
{
	struct dtk_index_page *g;
	struct dtk_buf rel = DTK_BUF_INIT;

	p->v = dtk_xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	g = &p->v[p->n++];
	memset(g, 0, sizeof(*g));
	dtk_buf_printf(&rel, "%s/%s", DTK_INDEX_PAGES_DIR, slug->ptr);
	if (part > 1)
		dtk_buf_printf(&rel, ".%zu", part);
	dtk_buf_puts(&rel, ".md");
	g->rel = dtk_buf_detach(&rel);
	g->category = c;
	g->part = part;
	g->first = first;
	g->n = n;
}

/* Says in p->over (when nothing did yet) that the page rel of text[0..len)
 * is over the budget of kb. */
static void S_over(struct dtk_index_pages *p, const struct dtk_kb *kb, const char *rel,
                   const char *text, size_t len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t lines = S_lines(text, len);

	if (p->over || (len <= (size_t)kb->index_max_bytes && lines <= (size_t)kb->index_max_lines))
		return;
	dtk_buf_printf(&b,
	               "%s is over its budget with every tier applied (%zu bytes, %zu lines; "
	               "policy.index_max_bytes %ld, index_max_lines %ld): raise the budget in "
	               "insights/_domain.yaml or split the base",
	               rel, len, lines, kb->index_max_bytes, kb->index_max_lines);
	p->over = dtk_buf_detach(&b);
}

/* Splits the node table of category c into pages within kb's budget, adds
 * them to p and renders them. */
static void S_category_pages(struct dtk_index_pages *p, const struct dtk_kb *kb,
                             const struct dtk_lang *L, size_t c)
{
	struct dtk_buf slug = DTK_BUF_INIT;
	size_t n, i, head, head_lines, at, bytes = 0, lines = 0, first = 0, part = 1, from = p->n;
	const struct dtk_node **nodes = S_category_nodes(kb, c, &n);
	char *table, *note, *row, *text;
	struct dtk_md *md, *md_note;

	if (!n) {
		free(nodes);
		return;
	}
	/* each row is one line of the table rendered whole */
	md = dtk_md_new();
	S_table_head(md, L->node_cols);
	for (i = 0; i < n; i++)
		S_row(md, nodes[i], L, 0, S_PAGES);
	dtk_md_close(md);
	table = dtk_md_render(md);
	dtk_md_free(md);
	md_note = dtk_md_new();
	S_cut_note(md_note, nodes, n, L, S_PAGES); /* the most a page's note can be */
	note = dtk_md_render(md_note);
	dtk_md_free(md_note);
	text = S_page_text(kb, L, c, nodes, 0, 0, n, 1, 1);
	/* the page without rows, its note, and room for the digits of its numbers */
	head = strlen(text) + (*note ? strlen(note) + 1 : 0) + 32;
	head_lines = S_lines(text, strlen(text)) + (*note ? S_lines(note, strlen(note)) + 1 : 0);
	free(text);
	free(note);
	row = strchr(strchr(table, '\n') + 1, '\n') + 1;
	S_slug(&slug, kb, c, 1);
	for (i = 0; i < n; i++, row += at + 1) {
		at = (size_t)(strchr(row, '\n') - row);
		if (i > first && (head + bytes + at + 1 > (size_t)kb->index_max_bytes ||
		                  head_lines + lines + 1 > (size_t)kb->index_max_lines)) {
			S_page_add(p, &slug, c, part++, first, i - first);
			first = i;
			bytes = lines = 0;
		}
		bytes += at + 1;
		lines++;
	}
	S_page_add(p, &slug, c, part, first, n - first);
	for (i = from; i < p->n; i++) {
		p->v[i].text = S_page_text(kb, L, c, nodes, p->v[i].first, p->v[i].n, n,
		                           p->v[i].part, part);
		p->v[i].len = strlen(p->v[i].text);
	}
	dtk_buf_release(&slug);
	free(table);
	free(nodes);
}

/* Returns the bytes and (in *lines) the lines md renders to, one blank line
 * more (the separator of a block in a page); frees md. */
static size_t S_measure(struct dtk_md *md, size_t *lines)
{
	char *text = dtk_md_render(md);
	size_t len = strlen(text);

	*lines = S_lines(text, len) + 1;
	free(text);
	dtk_md_free(md);
	return len + 1;
}

/*
 * Sets kept[c] for the categories whose tables INDEX.md can hold at
 * S_PAGES, in category order, with what w holds (the page with every
 * table moved): a table kept costs its bytes and lines less those of its
 * items in the list of pages.
 */
static void S_keep(unsigned char *kept, const struct dtk_kb *kb, const struct dtk_lang *L,
                   const struct S_fit *f, const struct S_bounded *w)
{
	/* room for the note of cut stances and the digits of the moved count */
	long room = kb->index_max_bytes - (long)w->b.len - 256;
	long room_lines = kb->index_max_lines - (long)w->lines - 2;
	struct dtk_md *md = dtk_md_new();
	char *list, *line;
	size_t c, i = 0, lines;

	S_page_list(md, kb, L, f, kb->n_nodes);
	list = dtk_md_render(md);
	dtk_md_free(md);
	line = strchr(list, '\n'); /* past the intro and its blank line */
	line = line && line[1] == '\n' ? line + 2 : list + strlen(list);
	for (c = 0; c < kb->n_categories; c++) {
		long bytes = 0, n_lines = 0, items = 0;
		for (; i < f->pages->n && f->pages->v[i].category == c; i++)
			items++;
		for (items += !items; items-- && *line; n_lines++) {
			char *end = strchr(line, '\n');
			bytes += end - line + 1;
			line = end + 1;
		}
		if (!kb->categories[c].n_nodes)
			continue;
		md = dtk_md_new();
		S_category(md, kb, L, c, 0, S_PAGES);
		bytes = (long)S_measure(md, &lines) - bytes;
		n_lines = (long)lines - n_lines;
		if (bytes <= room && n_lines <= room_lines) {
			kept[c] = 1;
			room -= bytes;
			room_lines -= n_lines;
		}
	}
	free(list);
}

int dtk_index_write_pages(const struct dtk_kb *kb, dtk_write_fn write, void *arg,
                          struct dtk_index_pages *pages)
{
	const struct dtk_lang *L = kb->lang_en ? &dtk_lang_en : &dtk_lang_zh;
	struct dtk_index_pages own = {NULL, 0, NULL}, *p = pages ? pages : &own;
	struct S_bounded w = {DTK_BUF_INIT, (size_t)kb->index_max_bytes,
	                      (size_t)kb->index_max_lines, 0};
	unsigned char *kept = dtk_xcalloc(kb->n_categories + 1, 1);
	struct S_fit f = {S_FULL, p, NULL};
	size_t c, i, n;
	int rc;

	memset(p, 0, sizeof(*p));
	/* a row a node and a heading a category: more lines than the budget's
	 * go to pages without a page rendered at each tier */
	if (kb->n_nodes + kb->n_categories > (size_t)kb->index_max_lines)
		f.tier = S_PAGES;
	while (f.tier < S_PAGES && !S_render_fit(&w, kb, &f))
		f.tier++;
	if (f.tier >= S_PAGES) { /* node tables go to index/, as few as can */
		for (c = 0; c < kb->n_categories; c++)
			S_category_pages(p, kb, L, c);
		w.max_bytes = w.max_lines = SIZE_MAX;
		S_render_fit(&w, kb, &f);
		if (w.b.len > (size_t)kb->index_max_bytes ||
		    w.lines > (size_t)kb->index_max_lines) {
			f.tier = S_INLINE; /* the list of pages is one paragraph */
			S_render_fit(&w, kb, &f);
		} else {
			S_keep(kept, kb, L, &f, &w);
			f.kept = kept;
			w.max_bytes = (size_t)kb->index_max_bytes;
			w.max_lines = (size_t)kb->index_max_lines;
			if (!S_render_fit(&w, kb, &f)) { /* not as measured: all move */
				memset(kept, 0, kb->n_categories);
				w.max_bytes = w.max_lines = SIZE_MAX;
				S_render_fit(&w, kb, &f);
			}
		}
		for (i = n = 0; i < p->n; i++) { /* the pages of kept tables go */
			if (kept[p->v[i].category]) {
				free(p->v[i].rel);
				free(p->v[i].text);
				continue;
			}
			p->v[n++] = p->v[i];
			S_over(p, kb, p->v[i].rel, p->v[i].text, p->v[i].len);
		}
		p->n = n;
		S_over(p, kb, DTK_INDEX_FILE, w.b.ptr, w.b.len);
	}
	rc = write(arg, w.b.ptr ? w.b.ptr : "", w.b.len);
	dtk_buf_release(&w.b);
	dtk_index_pages_release(&own);
	free(kept);
	return rc;
}

void dtk_index_pages_release(struct dtk_index_pages *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->v[i].rel);
		free(p->v[i].text);
	}
	free(p->v);
	free(p->over);
	memset(p, 0, sizeof(*p));
}

char *dtk_index_render_html(const struct dtk_kb *kb)
{
	struct dtk_md *md = dtk_md_new();
	char *out;

	S_build(md, kb, 1, &(struct S_fit){S_FULL, NULL, NULL});
	out = dtk_md_render_html(md);
	dtk_md_free(md);
	return out;
}

int dtk_index_build(const char *root, struct dtk_diags *diags, dtk_write_fn write, void *arg,
                    struct dtk_index_pages *pages)
{
	struct dtk_kb *kb = NULL;
	int rc = dtk_kb_load(&kb,
	                     &(struct dtk_kb_load_opts){
	                             .root = root, .what = DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_INDEX},
	                     diags);

	if (rc < 0)
		return rc;
	rc = dtk_index_write_pages(kb, write, arg, pages);
	dtk_kb_free(kb);
	return rc;
}
