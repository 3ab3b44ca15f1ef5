/* links.c: backlinks, what names an entry or a node. */
#include "dtk/links.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

const char *const dtk_link_how_names[4] = {"relates", "contradicts", "gap", "superseded_by"};

/* Returns 1 when ref names what is asked: the entry id, or an entry of node
 * (an id of old or a fresh one). */
static int S_names(const char *ref, const char *id, const char *node, size_t nlen)
{
	size_t plen;

	if (id)
		return !strcmp(ref, id);
	return !strncmp(ref, node, nlen) && dtk_entry_id_split(ref, &plen) && plen == nlen;
}

/* The one order of links, whatever the order of kb->nodes: by the naming
 * entry's node name, then its place in its node, then the order S_add made
 * (relates, contradicts, superseded_by); the gaps last, in their order. */
struct ranked {
	struct dtk_link l;
	size_t seq;
};

static int S_link_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	const struct dtk_entry *x = a->l.from, *y = b->l.from;
	int c;

	if (!x || !y)
		return x ? -1 : y ? 1 : (a->seq > b->seq) - (a->seq < b->seq);
	c = x->node == y->node ? 0 : strcmp(x->node->name, y->node->name);
	if (c)
		return c;
	if (x != y)
		return x < y ? -1 : 1; /* entries of one node: one array */
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Sorts v[0..n) into the one order. */
static void S_sort(struct dtk_link *v, size_t n)
{
	struct ranked *r;
	size_t i;

	if (n < 2)
		return;
	r = dtk_xmalloc(n * sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){v[i], i};
	qsort(r, n, sizeof(*r), S_link_cmp);
	for (i = 0; i < n; i++)
		v[i] = r[i].l;
	free(r);
}

static void S_add(struct dtk_link **v, size_t *n, size_t *cap, const struct dtk_link *l)
{
	dtk_grow((void **)v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *l;
}

size_t dtk_links_to(struct dtk_link **out, const struct dtk_kb *kb, const char *id,
                    const char *node)
{
	struct dtk_link *v = NULL, l;
	size_t n = 0, cap = 0, i, k, m, nlen = node ? strlen(node) : 0;

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *nd = kb->nodes[i];
		if (!id && !strcmp(nd->name, node))
			continue; /* a node's links to itself are not inbound */
		for (k = 0; k < nd->n_linking; k++) {
			const struct dtk_entry *e = nd->linking[k];
			for (m = 0; m < e->n_relates; m++)
				if (S_names(e->relates[m].id, id, node, nlen)) {
					l = (struct dtk_link){DTK_LINK_RELATES, e, NULL, NULL,
					                      e->relates[m].id};
					S_add(&v, &n, &cap, &l);
				}
			for (m = 0; m < e->n_contradicts; m++)
				if (S_names(e->contradicts[m].ref.id, id, node, nlen)) {
					l = (struct dtk_link){DTK_LINK_CONTRADICTS, e, NULL,
					                      &e->contradicts[m],
					                      e->contradicts[m].ref.id};
					S_add(&v, &n, &cap, &l);
				}
			if (e->superseded_by.id && S_names(e->superseded_by.id, id, node, nlen)) {
				l = (struct dtk_link){DTK_LINK_SUPERSEDES, e, NULL, NULL,
				                      e->superseded_by.id};
				S_add(&v, &n, &cap, &l);
			}
		}
	}
	for (i = 0; i < kb->n_gaps; i++) {
		const struct dtk_gap *g = &kb->gaps[i];
		if (g->flagged_by.id && S_names(g->flagged_by.id, id, node, nlen)) {
			l = (struct dtk_link){DTK_LINK_GAP, NULL, g, NULL, g->flagged_by.id};
			S_add(&v, &n, &cap, &l);
		}
	}
	S_sort(v, n);
	*out = v;
	return n;
}
