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
	for (i = 0; i < c->n_new; i++)
		if (c->new_entries[i] == e)
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

/* ---- text ---- */

/* Prints what follows page pg of a list of n items ("  … 3 more: --page 2"). */
static void S_more(FILE *f, const struct dtk_plan_page *pg, size_t n)
{
	size_t end;
	(void)S_window(pg, n, &end);
	if (end < n)
		fprintf(f, "  … %zu more, next page with --page %zu\n", n - end, pg->page + 1);
}

static void S_why_text(FILE *f, unsigned why, const struct dtk_entry *o)
{
	size_t i, n = 0;
	fputs(why ? "  (" : "  (same node", f);
	for (i = 0; i < sizeof(S_why) / sizeof(*S_why); i++)
		if (why & (1u << i))
			fprintf(f, "%s%s", n++ ? ", " : "", S_why[i]);
	if (why & WHY_NODE)
		fprintf(f, " %s", o->node->name);
	fputs(")\n", f);
}

static void S_text_pairs(FILE *f, const struct dtk_crystal *c, const struct dtk_entry *e,
                         const struct dtk_plan_page *pg)
{
	struct pair *v = NULL;
	size_t i, n = S_pairs_of(c, e, pg->pairs, &v);

	fprintf(f, "    %s  %s\n", e->id, dtk_esc(e->title));
	for (i = 0; i < n; i++) {
		fprintf(f, "      %.2f %s%s  %s", v[i].score, S_class(&v[i]) ? "" : "likely duplicate ",
		        v[i].o->id, dtk_esc(v[i].o->title));
		S_why_text(f, v[i].why, v[i].o);
	}
	if (!n)
		fputs("      (no entry to compare it with)\n", f);
	free(v);
}

static void S_list(FILE *f, const char *what, const struct dtk_entry *const *v, size_t n,
                   const struct dtk_plan_page *pg)
{
	size_t i, end;
	fprintf(f, "\n%s (%zu):\n", what, n);
	for (i = S_window(pg, n, &end); i < end; i++)
		fprintf(f, "  %s  %s\n", v[i]->id, dtk_esc(v[i]->title));
	S_more(f, pg, n);
}

/* The events of kind k (not added and revised, which have their lists). */
static void S_text_events(FILE *f, const struct dtk_crystal *c, int k,
                          const struct dtk_plan_page *pg)
{
	const struct dtk_crystal_event *v = c->events[k];
	size_t i, end, n = c->n_events[k];

	fprintf(f, "  %s (%zu):\n", dtk_event_names[k], n);
	for (i = S_window(pg, n, &end); i < end; i++) {
		if (v[i].other)
			fprintf(f, "    %s ↔ %s\n", v[i].e->id, v[i].other);
		else if (v[i].from >= 0)
			fprintf(f, "    %s  %s→%s  %s\n", v[i].e->id, dtk_confidence_names[v[i].from],
			        dtk_confidence_names[v[i].e->confidence], dtk_esc(v[i].e->title));
		else
			fprintf(f, "    %s  %s\n", v[i].e->id, dtk_esc(v[i].e->title));
	}
	S_more(f, pg, n);
}

/* Returns 1 when a list of page pg goes on past it. */
static int S_has_more(const struct dtk_crystal *c, const struct dtk_plan_page *pg)
{
	const size_t lists[] = {
	        c->n_new,        c->n_stale,           c->n_candidates,       c->n_promotable,
	        c->n_revised,    c->n_revised_sources, c->n_stance_unchanged, c->n_cross_refs,
	        c->n_gaps_reread};
	size_t k, n = 0, end = pg->page * pg->limit;

	for (k = 0; k < DTK_EV_COUNT; k++)
		n = c->n_events[k] > n ? c->n_events[k] : n;
	for (k = 0; k < sizeof(lists) / sizeof(*lists); k++)
		n = lists[k] > n ? lists[k] : n;
	return n > end;
}

void dtk_crystal_plan_text(FILE *f, const struct dtk_crystal *c, const struct dtk_plan_page *pg)
{
	static const int kinds[] = {DTK_EV_RAISED,     DTK_EV_LOWERED,   DTK_EV_OPENED,
	                            DTK_EV_RESOLVED,   DTK_EV_SUPERSEDED, DTK_EV_RETRACTED,
	                            DTK_EV_NEWLY_STALE};
	char d1[11], d2[11];
	size_t i, j, at = 0, from, end;

	fprintf(f, "crystallization plan for %s (previous run %s)", dtk_date_format(d1, c->date),
	        c->since ? dtk_date_format(d2, c->since) : "none");
	fprintf(f, ", page %zu\n", pg->page);
	if (c->since && !c->has_prev)
		fprintf(f, "note: the base at the previous run is not in history; high changes, "
		           "bloom changes, stance rewrites and new contradictions count only what "
		           "the files show\n");
	S_list(f, "new entries", c->new_entries, c->n_new, pg);
	fprintf(f, "\nevents since the last run:\n");
	for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		S_text_events(f, c, kinds[i], pg);
	fprintf(f,
	        "\nreview pairs: %ld in all; each new entry beside at most %zu, likely "
	        "duplicates first\n",
	        c->pairs, pg->pairs);
	from = S_window(pg, c->n_new, &end);
	for (i = 0; i < c->n_reviews; i++) {
		const struct dtk_node_review *rv = &c->reviews[i];
		if (at + rv->new_entries <= from || at >= end) {
			at += rv->new_entries;
			continue;
		}
		fprintf(f, "  %s: %zu new × %zu older + %zu among the new = %zu\n", rv->node->name,
		        rv->new_entries, rv->older, rv->new_entries * (rv->new_entries - 1) / 2,
		        rv->pairs);
		for (j = 0; j < c->n_new; j++)
			if (c->new_entries[j]->node == rv->node && j >= from && j < end)
				S_text_pairs(f, c, c->new_entries[j], pg);
		at += rv->new_entries;
	}
	S_more(f, pg, c->n_new);
	S_list(f, "stale entries", c->stale, c->n_stale, pg);
	S_list(f, "candidates, one verification short of high", c->candidates, c->n_candidates,
	       pg);
	S_list(f, "entries that meet the high rule but are not high", c->promotable,
	       c->n_promotable, pg);
	S_list(f, "entries revised since the last run", c->revised, c->n_revised, pg);
	fprintf(f, "\nsources revised since the last run (%zu):\n", c->n_revised_sources);
	for (i = S_window(pg, c->n_revised_sources, &end); i < end; i++)
		fprintf(f, "  %s  %s\n", c->revised_sources[i]->id,
		        dtk_esc(c->revised_sources[i]->title));
	S_more(f, pg, c->n_revised_sources);
	fprintf(f, "\nnodes with new entries whose stance has not changed (%zu):\n",
	        c->n_stance_unchanged);
	for (i = S_window(pg, c->n_stance_unchanged, &end); i < end; i++)
		fprintf(f, "  %s\n", c->stance_unchanged[i]->name);
	S_more(f, pg, c->n_stance_unchanged);
	fprintf(f, "\ncross-domain references of new or revised entries, to check by hand (%zu):\n",
	        c->n_cross_refs);
	for (i = S_window(pg, c->n_cross_refs, &end); i < end; i++)
		fprintf(f, "  %s ↔ %s\n", c->cross_refs[i].e->id, c->cross_refs[i].other);
	S_more(f, pg, c->n_cross_refs);
	fprintf(f, "\ngaps whose nodes got entries after they were written, to read again "
	           "(%zu):\n",
	        c->n_gaps_reread);
	for (i = S_window(pg, c->n_gaps_reread, &end); i < end; i++)
		fprintf(f, "  %s  %s\n", c->gaps_reread[i]->id ? c->gaps_reread[i]->id : "-",
		        dtk_esc(c->gaps_reread[i]->text));
	S_more(f, pg, c->n_gaps_reread);
	if (S_has_more(c, pg))
		fprintf(f, "\nnext page: dtk crystallize --plan --date %s --page %zu\n", d1,
		        pg->page + 1);
}

/* ---- JSON ---- */

static void S_json_ids(struct dtk_json *j, const char *key, const struct dtk_entry *const *v,
                       size_t n, const struct dtk_plan_page *pg)
{
	size_t i, end;
	dtk_json_key(j, key);
	dtk_json_array(j);
	for (i = S_window(pg, n, &end); i < end; i++) {
		dtk_json_object(j);
		dtk_json_kstring(j, "id", v[i]->id);
		dtk_json_kstring(j, "title", v[i]->title);
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
}

static void S_json_events(struct dtk_json *j, const struct dtk_crystal *c, int k,
                          const struct dtk_plan_page *pg)
{
	const struct dtk_crystal_event *v = c->events[k];
	size_t i, end;

	dtk_json_key(j, dtk_event_names[k]);
	dtk_json_array(j);
	for (i = S_window(pg, c->n_events[k], &end); i < end; i++) {
		dtk_json_object(j);
		dtk_json_kstring(j, "id", v[i].e->id);
		if (v[i].other) {
			dtk_json_kstring(j, "other", v[i].other);
		} else {
			dtk_json_kstring(j, "title", v[i].e->title);
		}
		if (v[i].from >= 0) {
			dtk_json_kstring(j, "from", dtk_confidence_names[v[i].from]);
			dtk_json_kstring(j, "to", dtk_confidence_names[v[i].e->confidence]);
		}
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
}

static void S_json_pairs(struct dtk_json *j, const struct dtk_crystal *c,
                         const struct dtk_entry *e, const struct dtk_plan_page *pg)
{
	struct pair *v = NULL;
	size_t i, k, n = S_pairs_of(c, e, pg->pairs, &v);

	for (i = 0; i < n; i++) {
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
		for (k = 0; k < sizeof(S_why) / sizeof(*S_why); k++)
			if (v[i].why & (1u << k))
				dtk_json_string(j, S_why[k]);
		if (!v[i].why)
			dtk_json_string(j, "same node");
		dtk_json_end(j, ']');
		dtk_json_end(j, '}');
	}
	free(v);
}

static void S_json_reviews(struct dtk_json *j, const struct dtk_crystal *c,
                           const struct dtk_plan_page *pg)
{
	size_t i, k, end, from = S_window(pg, c->n_new, &end);

	dtk_json_key(j, "reviews");
	dtk_json_array(j);
	for (i = 0; i < c->n_reviews; i++) {
		const struct dtk_node_review *rv = &c->reviews[i];
		int shown = 0;
		for (k = from; k < end; k++)
			shown |= c->new_entries[k]->node == rv->node;
		if (!shown)
			continue;
		dtk_json_object(j);
		dtk_json_kstring(j, "node", rv->node->name);
		dtk_json_kint(j, "new_entries", (long)rv->new_entries);
		dtk_json_kint(j, "older_entries", (long)rv->older);
		dtk_json_kint(j, "pair_count", (long)rv->pairs);
		dtk_json_key(j, "pairs");
		dtk_json_array(j);
		for (k = from; k < end; k++)
			if (c->new_entries[k]->node == rv->node)
				S_json_pairs(j, c, c->new_entries[k], pg);
		dtk_json_end(j, ']');
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
}

void dtk_crystal_plan_json(struct dtk_buf *out, const struct dtk_crystal *c,
                           const struct dtk_plan_page *pg)
{
	struct dtk_json j;
	char d[11];
	size_t i, end;
	int k;

	dtk_json_init(&j, out);
	dtk_json_object(&j);
	dtk_json_kstring(&j, "date", dtk_date_format(d, c->date));
	dtk_json_kstring(&j, "since", c->since ? dtk_date_format(d, c->since) : NULL);
	dtk_json_kbool(&j, "previous_state_known", c->has_prev || !c->since);
	dtk_json_kint(&j, "page", (long)pg->page);
	dtk_json_key(&j, "next_page");
	if (S_has_more(c, pg))
		dtk_json_int(&j, (long)pg->page + 1);
	else
		dtk_json_null(&j);
	S_json_ids(&j, "new_entries", c->new_entries, c->n_new, pg);
	for (k = DTK_EV_RAISED; k < DTK_EV_COUNT; k++)
		if (k != DTK_EV_REVISED)
			S_json_events(&j, c, k, pg);
	dtk_json_kint(&j, "review_pairs", c->pairs);
	S_json_reviews(&j, c, pg);
	S_json_ids(&j, "stale", c->stale, c->n_stale, pg);
	S_json_ids(&j, "candidates", c->candidates, c->n_candidates, pg);
	S_json_ids(&j, "meet_high_rule", c->promotable, c->n_promotable, pg);
	S_json_ids(&j, "revised", c->revised, c->n_revised, pg);
	dtk_json_key(&j, "revised_sources");
	dtk_json_array(&j);
	for (i = S_window(pg, c->n_revised_sources, &end); i < end; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", c->revised_sources[i]->id);
		dtk_json_kstring(&j, "title", c->revised_sources[i]->title);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "stance_unchanged");
	dtk_json_array(&j);
	for (i = S_window(pg, c->n_stance_unchanged, &end); i < end; i++)
		dtk_json_string(&j, c->stance_unchanged[i]->name);
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "cross_domain_refs");
	dtk_json_array(&j);
	for (i = S_window(pg, c->n_cross_refs, &end); i < end; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", c->cross_refs[i].e->id);
		dtk_json_kstring(&j, "ref", c->cross_refs[i].other);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "gaps_to_reread");
	dtk_json_array(&j);
	for (i = S_window(pg, c->n_gaps_reread, &end); i < end; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", c->gaps_reread[i]->id);
		dtk_json_kstring(&j, "text", c->gaps_reread[i]->text);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "totals");
	dtk_json_object(&j);
	dtk_json_kint(&j, "new_entries", (long)c->n_new);
	for (k = DTK_EV_RAISED; k < DTK_EV_COUNT; k++)
		if (k != DTK_EV_REVISED)
			dtk_json_kint(&j, dtk_event_names[k], (long)c->n_events[k]);
	dtk_json_kint(&j, "stale", (long)c->n_stale);
	dtk_json_kint(&j, "candidates", (long)c->n_candidates);
	dtk_json_kint(&j, "meet_high_rule", (long)c->n_promotable);
	dtk_json_kint(&j, "revised", (long)c->n_revised);
	dtk_json_kint(&j, "revised_sources", (long)c->n_revised_sources);
	dtk_json_kint(&j, "stance_unchanged", (long)c->n_stance_unchanged);
	dtk_json_kint(&j, "cross_domain_refs", (long)c->n_cross_refs);
	dtk_json_kint(&j, "gaps_to_reread", (long)c->n_gaps_reread);
	dtk_json_end(&j, '}');
	dtk_json_end(&j, '}');
}
