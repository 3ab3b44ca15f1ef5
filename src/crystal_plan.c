/* crystal_plan.c: the worklist of a crystallization, as text and as JSON. */
#include "dtk/crystal.h"

#include "dtk/json.h"
#include "dtk/similar.h"

#include <stdlib.h>
#include <string.h>

/* A review pair and how alike its two entries are (similar.h). */
struct pair {
	const struct dtk_entry *e, *o;
	double score;
	size_t order;
};

static int S_pair_cmp(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Returns how alike o is to e among the entries docs[0..n) of their node:
 * e's score of o as dtk similar gives it (0 when they share no term). */
static double S_score(const struct dtk_entry *e, const struct dtk_entry *o,
                      const struct dtk_similar_hit *hits, size_t n_hits)
{
	size_t i;
	(void)e;
	for (i = 0; i < n_hits; i++)
		if (hits[i].entry == o)
			return hits[i].same ? 1 : hits[i].score;
	return 0;
}

/* Calls fn on every review pair of node review rv: each new entry beside
 * every live entry of its node created before it (older entries, and the new
 * entries before it in file order), the most alike first (likeliest
 * duplicates or contradictions), ties in that order. */
static void S_pairs(const struct dtk_crystal *c, const struct dtk_node_review *rv,
                    void (*fn)(void *, const struct pair *), void *ctx)
{
	const struct dtk_node *n = rv->node;
	const struct dtk_entry **docs = dtk_xcalloc(n->n_entries + 1, sizeof(*docs));
	struct pair *v = NULL;
	size_t i, j, n_docs = 0, n_pairs = 0, cap = 0;

	for (i = 0; i < n->n_entries; i++)
		if (dtk_similar_live(&n->entries[i]))
			docs[n_docs++] = &n->entries[i];
	for (i = 0; i < n->n_entries; i++) {
		const struct dtk_entry *e = &n->entries[i];
		struct dtk_similar_query q = {0};
		struct dtk_similar_hit *hits = NULL;
		size_t n_hits = 0;
		if (c->since && e->created <= c->since)
			continue;
		q.title = e->title;
		q.claim = e->claim;
		q.skip = e->id;
		if (dtk_similar_rank_in(&hits, &n_hits, docs, n_docs, &q) < 0)
			n_hits = 0; /* not UTF-8: the loader let no such text in */
		for (j = 0; j < n->n_entries; j++) {
			const struct dtk_entry *o = &n->entries[j];
			int o_new = !c->since || o->created > c->since;
			if (o == e || (o_new && j > i))
				continue;
			if (n_pairs == cap)
				dtk_grow((void **)&v, &cap, n_pairs + 1, sizeof(*v));
			v[n_pairs] = (struct pair){e, o, S_score(e, o, hits, n_hits), n_pairs};
			n_pairs++;
		}
		free(hits);
	}
	if (n_pairs)
		qsort(v, n_pairs, sizeof(*v), S_pair_cmp);
	for (i = 0; i < n_pairs; i++)
		fn(ctx, &v[i]);
	free(v);
	free(docs);
}

static void S_text_pair(void *ctx, const struct pair *p)
{
	FILE *f = ctx;
	fprintf(f, "    %s ↔ %s  %.2f\n", p->e->id, p->o->id, p->score);
	fprintf(f, "      new: %s\n", dtk_esc(p->e->claim));
	fprintf(f, "      old: %s\n", dtk_esc(p->o->claim));
}

static void S_list(FILE *f, const char *what, const struct dtk_entry *const *v, size_t n)
{
	size_t i;
	fprintf(f, "\n%s (%zu):\n", what, n);
	for (i = 0; i < n; i++)
		fprintf(f, "  %s  %s\n", v[i]->id, dtk_esc(v[i]->title));
}

void dtk_crystal_plan_text(FILE *f, const struct dtk_crystal *c)
{
	char d1[11], d2[11];
	size_t i;

	fprintf(f, "crystallization plan for %s (previous run %s)\n", dtk_date_format(d1, c->date),
	        c->since ? dtk_date_format(d2, c->since) : "none");
	if (c->since && !c->has_prev)
		fprintf(f, "note: the base at the previous run is not in history; high changes, "
		           "bloom changes, stance rewrites and new contradictions count only what "
		           "the files show\n");
	S_list(f, "new entries", c->new_entries, c->n_new);
	fprintf(f, "\nreview pairs: %ld in all\n", c->pairs);
	for (i = 0; i < c->n_reviews; i++) {
		const struct dtk_node_review *rv = &c->reviews[i];
		fprintf(f, "  %s: %zu new × %zu older + %zu among the new = %zu\n", rv->node->name,
		        rv->new_entries, rv->older, rv->new_entries * (rv->new_entries - 1) / 2,
		        rv->pairs);
		S_pairs(c, rv, S_text_pair, f);
	}
	S_list(f, "stale entries", c->stale, c->n_stale);
	S_list(f, "candidates, one verification short of high", c->candidates, c->n_candidates);
	S_list(f, "entries that meet the high rule but are not high", c->promotable,
	       c->n_promotable);
	S_list(f, "entries revised since the last run", c->revised, c->n_revised);
	fprintf(f, "\nsources revised since the last run (%zu):\n", c->n_revised_sources);
	for (i = 0; i < c->n_revised_sources; i++)
		fprintf(f, "  %s  %s\n", c->revised_sources[i]->id,
		        dtk_esc(c->revised_sources[i]->title));
	fprintf(f, "\nnodes with new entries whose stance has not changed (%zu):\n",
	        c->n_stance_unchanged);
	for (i = 0; i < c->n_stance_unchanged; i++)
		fprintf(f, "  %s\n", c->stance_unchanged[i]->name);
	fprintf(f, "\ncross-domain references to check by hand (%zu):\n", c->n_cross_refs);
	for (i = 0; i < c->n_cross_refs; i++)
		fprintf(f, "  %s\n", c->cross_refs[i]->id);
	fprintf(f, "\ngaps whose nodes got entries after they were written, to read again "
	           "(%zu):\n",
	        c->n_gaps_reread);
	for (i = 0; i < c->n_gaps_reread; i++)
		fprintf(f, "  %s  %s\n", c->gaps_reread[i]->id ? c->gaps_reread[i]->id : "-",
		        dtk_esc(c->gaps_reread[i]->text));
}

static void S_json_ids(struct dtk_json *j, const char *key, const struct dtk_entry *const *v,
                       size_t n)
{
	size_t i;
	dtk_json_key(j, key);
	dtk_json_array(j);
	for (i = 0; i < n; i++) {
		dtk_json_object(j);
		dtk_json_kstring(j, "id", v[i]->id);
		dtk_json_kstring(j, "title", v[i]->title);
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
}

static void S_json_pair(void *ctx, const struct pair *p)
{
	struct dtk_json *j = ctx;
	dtk_json_object(j);
	dtk_json_kstring(j, "new", p->e->id);
	dtk_json_kstring(j, "new_claim", p->e->claim);
	dtk_json_kstring(j, "old", p->o->id);
	dtk_json_kstring(j, "old_claim", p->o->claim);
	dtk_json_key(j, "score");
	dtk_json_fixed(j, p->score, 4);
	dtk_json_end(j, '}');
}

static void S_json_reviews(struct dtk_json *j, const struct dtk_crystal *c)
{
	size_t i;
	dtk_json_key(j, "reviews");
	dtk_json_array(j);
	for (i = 0; i < c->n_reviews; i++) {
		const struct dtk_node_review *rv = &c->reviews[i];
		dtk_json_object(j);
		dtk_json_kstring(j, "node", rv->node->name);
		dtk_json_kint(j, "new_entries", (long)rv->new_entries);
		dtk_json_kint(j, "older_entries", (long)rv->older);
		dtk_json_kint(j, "pair_count", (long)rv->pairs);
		dtk_json_key(j, "pairs");
		dtk_json_array(j);
		S_pairs(c, rv, S_json_pair, j);
		dtk_json_end(j, ']');
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
}

void dtk_crystal_plan_json(struct dtk_buf *out, const struct dtk_crystal *c)
{
	struct dtk_json j;
	char d[11];
	size_t i;

	dtk_json_init(&j, out);
	dtk_json_object(&j);
	dtk_json_kstring(&j, "date", dtk_date_format(d, c->date));
	dtk_json_kstring(&j, "since", c->since ? dtk_date_format(d, c->since) : NULL);
	dtk_json_kbool(&j, "previous_state_known", c->has_prev || !c->since);
	S_json_ids(&j, "new_entries", c->new_entries, c->n_new);
	dtk_json_kint(&j, "review_pairs", c->pairs);
	S_json_reviews(&j, c);
	S_json_ids(&j, "stale", c->stale, c->n_stale);
	S_json_ids(&j, "candidates", c->candidates, c->n_candidates);
	S_json_ids(&j, "meet_high_rule", c->promotable, c->n_promotable);
	S_json_ids(&j, "revised", c->revised, c->n_revised);
	dtk_json_key(&j, "revised_sources");
	dtk_json_array(&j);
	for (i = 0; i < c->n_revised_sources; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", c->revised_sources[i]->id);
		dtk_json_kstring(&j, "title", c->revised_sources[i]->title);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "stance_unchanged");
	dtk_json_array(&j);
	for (i = 0; i < c->n_stance_unchanged; i++)
		dtk_json_string(&j, c->stance_unchanged[i]->name);
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "cross_domain_refs");
	dtk_json_array(&j);
	for (i = 0; i < c->n_cross_refs; i++)
		dtk_json_string(&j, c->cross_refs[i]->id);
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "gaps_to_reread");
	dtk_json_array(&j);
	for (i = 0; i < c->n_gaps_reread; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", c->gaps_reread[i]->id);
		dtk_json_kstring(&j, "text", c->gaps_reread[i]->text);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_end(&j, '}');
}
