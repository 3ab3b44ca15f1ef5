/* crystal_plan.c: the worklist of a crystallization, as text and as JSON,
 * a page at a time. */
#include "dtk/crystal.h"

#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/similar.h"

#include <stdlib.h>
#include <string.h>

/* Why an entry is paired with a new one (WHY_*), as the plan names it. */
enum { WHY_SAME = 1, WHY_TERMS = 2, WHY_CONTRADICTS = 4, WHY_RELATES = 8, WHY_NODE = 16 };
static const char *const S_why[] = {"same claim", "shared terms", "contradiction", "relation",
                                    "other node"};

/* A review pair: the new entry e beside o, how alike (similar.h) and why. */
struct pair {
	const struct dtk_entry *e, *o;
	double score;
	unsigned why;
	size_t order; /* o's place in listing order */
};

/* Returns the class of p: 0 a likely duplicate, 1 a contradiction or a
 * relation, 2 the rest. */
static int S_class(const struct pair *p)
{
	return (p->why & WHY_SAME) || p->score >= DTK_SIMILAR_LIKELY ? 0
	       : p->why & (WHY_CONTRADICTS | WHY_RELATES)            ? 1
	                                                             : 2;
}

/* Likely duplicates first, then contradictions and relations, each the
 * most alike first, ties in listing order. */
static int S_pair_cmp(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (S_class(a) != S_class(b))
		return S_class(a) - S_class(b);
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Returns the place of e among the new entries of c, or SIZE_MAX. */
static size_t S_new_at(const struct dtk_crystal *c, const struct dtk_entry *e)
{
	size_t i;
	for (i = 0; i < c->lists[DTK_CL_NEW].n; i++)
		if (c->lists[DTK_CL_NEW].v[i].e == e)
			return i;
	return SIZE_MAX;
}

/* Adds o to the pairs v[0..*n) of new entry e (the pair once, under the
 * new entry listed first; o live) with why and score (the larger kept). */
static void S_add(const struct dtk_crystal *c, struct pair **v, size_t *n, size_t *cap,
                  const struct dtk_entry *e, const struct dtk_entry *o, unsigned why,
                  double score, size_t order)
{
	size_t i, o_new;

	if (!o || o == e || !dtk_similar_live(o))
		return;
	o_new = S_new_at(c, o);
	if (o_new != SIZE_MAX && o_new > S_new_at(c, e))
		return;
	if (o->node != e->node)
		why |= WHY_NODE;
	for (i = 0; i < *n; i++)
		if ((*v)[i].o == o) {
			(*v)[i].why |= why;
			if (score > (*v)[i].score)
				(*v)[i].score = score;
			return;
		}
	dtk_grow((void **)v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct pair){e, o, score, why, order};
}

/* Sets *out to the review pairs of new entry e, at most k, best first
 * (S_pair_cmp): the live entries of the base that share terms with it
 * (dtk similar's score), those it names and those that name it (relates,
 * contradicts), then the other entries of its node (a contradiction may
 * share no word). Returns their count; the caller frees *out. */
static size_t S_pairs_of(const struct dtk_crystal *c, const struct dtk_entry *e, size_t k,
                         struct pair **out)
{
	const struct dtk_kb *kb = c->kb;
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *hits = NULL;
	struct pair *v = NULL;
	size_t i, j, m, n = 0, cap = 0, n_hits = 0;

	q.title = e->title;
	q.claim = e->claim;
	q.skip = e->id;
	if (dtk_similar_rank(&hits, &n_hits, kb, &q) < 0)
		n_hits = 0; /* not UTF-8: the loader let no such text in */
	for (i = 0; i < n_hits; i++)
		S_add(c, &v, &n, &cap, e, hits[i].entry, hits[i].same ? WHY_SAME : WHY_TERMS,
		      hits[i].same ? 1 : hits[i].score, hits[i].order);
	free(hits);
	for (i = 0; i < kb->n_nodes; i++)
		for (j = 0; j < kb->nodes[i]->n_entries; j++) {
			const struct dtk_entry *o = &kb->nodes[i]->entries[j];
			for (m = 0; m < o->n_relates; m++)
				if (!strcmp(o->relates[m].id, e->id))
					S_add(c, &v, &n, &cap, e, o, WHY_RELATES, 0, SIZE_MAX);
			for (m = 0; m < o->n_contradicts; m++)
				if (!strcmp(o->contradicts[m].ref.id, e->id))
					S_add(c, &v, &n, &cap, e, o, WHY_CONTRADICTS, 0, SIZE_MAX);
		}
	for (m = 0; m < e->n_relates; m++)
		S_add(c, &v, &n, &cap, e, dtk_kb_entry(kb, e->relates[m].id), WHY_RELATES, 0,
		      SIZE_MAX);
	for (m = 0; m < e->n_contradicts; m++)
		S_add(c, &v, &n, &cap, e, dtk_kb_entry(kb, e->contradicts[m].ref.id),
		      WHY_CONTRADICTS, 0, SIZE_MAX);
	for (j = 0; n < k && j < e->node->n_entries; j++)
		S_add(c, &v, &n, &cap, e, &e->node->entries[j], 0, 0, j);
	if (n)
		qsort(v, n, sizeof(*v), S_pair_cmp);
	*out = v;
	return n < k ? n : k;
}

/* A list of the plan: its key in the JSON, its heading in the text (NULL:
 * an event kind's, its key, under "events since the last run"), which of
 * c->lists it is (DTK_CL_; -1: none), its items (NULL: the review pairs). */
struct list {
	const char *key, *heading;
	int cl;
	const struct dtk_crystal_list *l;
};

/* The key and the heading of each of c->lists (DTK_CL_). */
static const char *const S_named[DTK_CL_COUNT][2] = {
        {"new_entries", "new entries"},
        {"stale", "stale entries"},
        {"candidates", "candidates, one verification short of high"},
        {"meet_high_rule", "entries that meet the high rule but are not high"},
        {"revised", "entries revised since the last run"},
        {"revised_sources", "sources revised since the last run"},
        {"stance_unchanged", "nodes with new entries whose stance has not changed"},
        {"cross_domain_refs",
         "cross-domain references of new or revised entries, to check by hand"},
        {"gaps_to_reread", "gaps whose nodes got entries after they were written, to read again"}};

/* Sets v to the lists of the plan of c, in the order both forms show them:
 * the new entries, the events, the review pairs, the other lists. Returns
 * their count. */
static size_t S_lists(struct list *v, const struct dtk_crystal *c)
{
	size_t i, n = 0;
	int k;

	for (i = 0; i < DTK_CL_COUNT; i++) {
		v[n++] = (struct list){S_named[i][0], S_named[i][1], (int)i, &c->lists[i]};
		for (k = DTK_EV_RAISED; !i && k < DTK_EV_COUNT; k++)
			if (k != DTK_EV_REVISED)
				v[n++] = (struct list){dtk_event_names[k], NULL, -1, &c->events[k]};
		if (!i)
			v[n++] = (struct list){"reviews", NULL, -1, NULL};
	}
	return n;
}

#define S_MAX_LISTS (DTK_EV_COUNT + DTK_CL_COUNT + 1)

/* Returns the first item of page pg of a list of n items; sets *end past
 * its last. */
static size_t S_window(const struct dtk_plan_page *pg, size_t n, size_t *end)
{
	size_t from = (pg->page - 1) * pg->limit;
	if (from > n)
		from = n;
	*end = n - from < pg->limit ? n : from + pg->limit;
	return from;
}

/* Returns 1 when a list of page pg goes on past it. */
static int S_has_more(const struct list *v, size_t n, const struct dtk_plan_page *pg)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (v[k].l && v[k].l->n > pg->page * pg->limit)
			return 1;
	return 0;
}

/* Sets v to the names of why ("same node" when none); returns their count. */
static size_t S_whys(unsigned why, const char **v)
{
	size_t i, n = 0;
	for (i = 0; i < sizeof(S_why) / sizeof(*S_why); i++)
		if (why & (1u << i))
			v[n++] = S_why[i];
	if (!n)
		v[n++] = "same node";
	return n;
}

/* ---- the page: each part written as JSON into j, or, j NULL, as text
 * into b ---- */

/* Appends what follows page pg of a list of n items ("  … 3 more: --page 2"). */
static void S_more(struct dtk_buf *b, const struct dtk_plan_page *pg, size_t n)
{
	size_t end;
	(void)S_window(pg, n, &end);
	if (end < n)
		dtk_buf_printf(b, "  … %zu more, next page with --page %zu\n", n - end,
		               pg->page + 1);
}

/* The review pairs of new entry e. */
static void S_pairs(struct dtk_buf *b, struct dtk_json *j, const struct dtk_crystal *c,
                    const struct dtk_entry *e, const struct dtk_plan_page *pg)
{
	struct pair *v = NULL;
	const char *why[8];
	size_t i, k, n_why, n = S_pairs_of(c, e, pg->pairs, &v);

	if (!j)
		dtk_buf_printf(b, "    %s  %s\n", e->id, dtk_esc(e->title));
	for (i = 0; i < n; i++) {
		if (j) {
			dtk_json_object(j);
			dtk_json_kstring(j, "new", e->id);
			dtk_json_kstring(j, "old", v[i].o->id);
			dtk_json_kstring(j, "old_title", v[i].o->title);
			dtk_json_kstring(j, "old_node", v[i].o->node->name);
			dtk_json_key(j, "score");
			dtk_json_fixed(j, v[i].score, 4);
			dtk_json_kbool(j, "likely_duplicate", S_class(&v[i]) == 0);
			dtk_json_key(j, "why");
			dtk_json_array(j);
		} else {
			dtk_buf_printf(b, "      %.2f %s%s  %s  (", v[i].score,
			               S_class(&v[i]) ? "" : "likely duplicate ", v[i].o->id,
			               dtk_esc(v[i].o->title));
		}
		for (k = 0, n_why = S_whys(v[i].why, why); k < n_why; k++)
			if (j)
				dtk_json_string(j, why[k]);
			else
				dtk_buf_printf(b, "%s%s", k ? ", " : "", why[k]);
		if (j) {
			dtk_json_end(j, ']');
			dtk_json_end(j, '}');
		} else {
			if (v[i].why & WHY_NODE)
				dtk_buf_printf(b, " %s", v[i].o->node->name);
			dtk_buf_puts(b, ")\n");
		}
	}
	if (!n && !j)
		dtk_buf_puts(b, "      (no entry to compare it with)\n");
	free(v);
}

/* The review pairs of the new entries on the page, node by node: a node
 * with k new entries and E older has k·E + k(k−1)/2. */
static void S_reviews(struct dtk_buf *b, struct dtk_json *j, const struct dtk_crystal *c,
                      const struct dtk_plan_page *pg)
{
	const struct dtk_crystal_list *l = &c->lists[DTK_CL_NEW];
	size_t i, k, news, older, end, from = S_window(pg, l->n, &end);
	int shown;

	if (j) {
		dtk_json_kint(j, "review_pairs", c->pairs);
		dtk_json_key(j, "reviews");
		dtk_json_array(j);
	} else {
		dtk_buf_printf(b,
		               "\nreview pairs: %ld in all; each new entry beside at most %zu, "
		               "likely duplicates first\n",
		               c->pairs, pg->pairs);
	}
	for (i = 0; i < c->kb->n_nodes; i++) {
		const struct dtk_node *n = c->kb->nodes[i];
		for (k = news = 0, shown = 0; k < l->n; k++) {
			news += l->v[k].e->node == n;
			shown |= l->v[k].e->node == n && k >= from && k < end;
		}
		if (!shown)
			continue;
		older = n->n_entries - news;
		if (j) {
			dtk_json_object(j);
			dtk_json_kstring(j, "node", n->name);
			dtk_json_kint(j, "new_entries", (long)news);
			dtk_json_kint(j, "older_entries", (long)older);
			dtk_json_kint(j, "pair_count",
			              (long)(news * older + news * (news - 1) / 2));
			dtk_json_key(j, "pairs");
			dtk_json_array(j);
		} else {
			dtk_buf_printf(b, "  %s: %zu new × %zu older + %zu among the new = %zu\n",
			               n->name, news, older, news * (news - 1) / 2,
			               news * older + news * (news - 1) / 2);
		}
		for (k = from; k < end; k++)
			if (l->v[k].e->node == n)
				S_pairs(b, j, c, l->v[k].e, pg);
		if (j) {
			dtk_json_end(j, ']');
			dtk_json_end(j, '}');
		}
	}
	if (j)
		dtk_json_end(j, ']');
	else
		S_more(b, pg, l->n);
}

/* Item it of list l, as text: "id[ ↔ other][  from→to][  title]". */
static void S_text_item(struct dtk_buf *b, const struct list *l, const struct dtk_crystal_item *it)
{
	dtk_buf_printf(b, "%*s%s", l->heading ? 2 : 4, "", it->id ? it->id : "-");
	if (it->other)
		dtk_buf_printf(b, " ↔ %s", it->other);
	if (it->from >= 0)
		dtk_buf_printf(b, "  %s→%s", dtk_confidence_names[it->from],
		               dtk_confidence_names[it->to]);
	if (it->title)
		dtk_buf_printf(b, "  %s", dtk_esc(it->title));
	dtk_buf_putc(b, '\n');
}

/* Item it of list l, as JSON: a node's name, else an object. */
static void S_json_item(struct dtk_json *j, const struct list *l, const struct dtk_crystal_item *it)
{
	if (l->cl == DTK_CL_STANCE) {
		dtk_json_string(j, it->id);
		return;
	}
	dtk_json_object(j);
	dtk_json_kstring(j, "id", it->id);
	if (it->other)
		dtk_json_kstring(j, l->cl == DTK_CL_CROSS ? "ref" : "other", it->other);
	if (it->title)
		dtk_json_kstring(j, l->cl == DTK_CL_GAPS ? "text" : "title", it->title);
	if (it->from >= 0) {
		dtk_json_kstring(j, "from", dtk_confidence_names[it->from]);
		dtk_json_kstring(j, "to", dtk_confidence_names[it->to]);
	}
	dtk_json_end(j, '}');
}

static void S_list(struct dtk_buf *b, struct dtk_json *j, const struct list *l,
                   const struct dtk_plan_page *pg)
{
	size_t i, end;

	if (j) {
		dtk_json_key(j, l->key);
		dtk_json_array(j);
	} else {
		dtk_buf_printf(b, l->heading ? "\n%s (%zu):\n" : "  %s (%zu):\n",
		               l->heading ? l->heading : l->key, l->l->n);
	}
	for (i = S_window(pg, l->l->n, &end); i < end; i++)
		if (j)
			S_json_item(j, l, &l->l->v[i]);
		else
			S_text_item(b, l, &l->l->v[i]);
	if (j)
		dtk_json_end(j, ']');
	else
		S_more(b, pg, l->l->n);
}

void dtk_crystal_plan(struct dtk_buf *out, const struct dtk_crystal *c,
                      const struct dtk_plan_page *pg, int json)
{
	struct list v[S_MAX_LISTS];
	size_t i, n = S_lists(v, c);
	struct dtk_json j;
	char d1[11], d2[11];
	int more = S_has_more(v, n, pg);

	dtk_json_init(&j, out);
	dtk_date_format(d1, c->rec.date);
	if (json) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "date", d1);
		dtk_json_kstring(&j, "since",
		                 c->rec.since ? dtk_date_format(d2, c->rec.since) : NULL);
		dtk_json_kbool(&j, "previous_state_known", c->has_prev || !c->rec.since);
		dtk_json_kint(&j, "page", (long)pg->page);
		dtk_json_key(&j, "next_page");
		if (more)
			dtk_json_int(&j, (long)pg->page + 1);
		else
			dtk_json_null(&j);
	} else {
		dtk_buf_printf(out, "crystallization plan for %s (previous run %s), page %zu\n", d1,
		               c->rec.since ? dtk_date_format(d2, c->rec.since) : "none", pg->page);
		if (c->rec.since && !c->has_prev)
			dtk_buf_puts(out,
			             "note: the base at the previous run is not in history; high "
			             "changes, bloom changes, stance rewrites and new "
			             "contradictions count only what the files show\n");
	}
	for (i = 0; i < n; i++) {
		if (!json && i == 1) /* after the new entries */
			dtk_buf_puts(out, "\nevents since the last run:\n");
		if (!v[i].l)
			S_reviews(out, json ? &j : NULL, c, pg);
		else
			S_list(out, json ? &j : NULL, &v[i], pg);
	}
	if (!json) {
		if (more)
			dtk_buf_printf(out,
			               "\nnext page: dtk crystallize --plan --date %s --page %zu\n",
			               d1, pg->page + 1);
		return;
	}
	dtk_json_key(&j, "totals");
	dtk_json_object(&j);
	for (i = 0; i < n; i++)
		if (v[i].l)
			dtk_json_kint(&j, v[i].key, (long)v[i].l->n);
	dtk_json_end(&j, '}');
	dtk_json_end(&j, '}');
}
