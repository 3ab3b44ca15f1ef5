/* index_stats.c: the figures computed from a knowledge base. */
#include "dtk/index.h"

#include "dtk/dtk.h"
#include "dtk/nodesum.h"

#include <stdlib.h>
#include <string.h>

int dtk_percent(size_t part, size_t whole)
{
	if (!whole)
		return 0;
	return (int)((part * 200 + whole) / (whole * 2));
}

/* Returns how many distinct sources the entries name (source or verified_by). */
static size_t S_articles(const struct dtk_kb *kb)
{
	size_t bytes = (kb->n_sources + 7) / 8, j, n = 0;

	for (j = 0; kb->sources_named && j < bytes; j++)
		n += (size_t)__builtin_popcount(kb->sources_named[j]);
	return n;
}

void dtk_stats_compute(struct dtk_stats *out, const struct dtk_kb *kb)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->nodes = kb->n_nodes;
	for (i = 0; i < kb->n_nodes; i++) { /* retired entries: out of every figure */
		const struct dtk_node_sum *s = kb->nodes[i]->sum;
		out->nodes_with_entries += s->live > 0;
		out->entries += s->live;
		out->high += s->high;
		out->used += s->used;
		out->cited += s->cited;
		out->closed += s->closed;
		if (s->earliest && (!out->earliest || s->earliest < out->earliest))
			out->earliest = s->earliest;
	}
	out->articles = S_articles(kb);
	out->usage_pct = dtk_percent(out->used, out->entries);
	out->citation_pct = dtk_percent(out->cited, out->entries);
	out->closure_pct = dtk_percent(out->closed, out->entries);
}
