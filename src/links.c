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

/* dtk_links_to, with self: a node's links to itself too (id NULL). */
static size_t S_links(struct dtk_link **out, const struct dtk_kb *kb, const char *id,
                      const char *node, int self)
{
	struct dtk_link *v = NULL, l;
	size_t n = 0, cap = 0, i, k, m, nlen = node ? strlen(node) : 0;

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *nd = kb->nodes[i];
		if (!id && !self && !strcmp(nd->name, node))
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

/* The links of a base by the node they name: groups sorted by node name,
 * each group's links in the one order. */
struct group {
	const char *node; /* in the base's arena */
	struct dtk_link *v;
	size_t n;
};

struct dtk_links_index {
	struct group *g;
	size_t n;
};

/* A link and the node it names, while the index is made. */
struct named {
	struct ranked r;
	const char *node;
	size_t len;
};

static int S_named_cmp(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c = strncmp(a->node, b->node, a->len < b->len ? a->len : b->len);

	if (c || a->len != b->len)
		return c ? c : a->len < b->len ? -1 : 1;
	return S_link_cmp(&a->r, &b->r);
}

/* Adds link l to v (grown) when its id names an entry id. */
static void S_index_add(struct named **v, size_t *n, size_t *cap, const struct dtk_link *l)
{
	size_t plen;

	if (!l->to || !dtk_entry_id_split(l->to, &plen))
		return;
	dtk_grow((void **)v, cap, *n + 1, sizeof(**v));
	(*v)[*n] = (struct named){{*l, *n}, l->to, plen};
	(*n)++;
}

void dtk_links_index(struct dtk_kb *kb)
{
	struct named *v = NULL;
	struct dtk_links_index *x = dtk_arena_alloc(kb->arena, sizeof(*x));
	size_t n = 0, cap = 0, i, k, m, start;

	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->n_linking; k++) {
			const struct dtk_entry *e = kb->nodes[i]->linking[k];
			for (m = 0; m < e->n_relates; m++)
				S_index_add(&v, &n, &cap,
				            &(struct dtk_link){DTK_LINK_RELATES, e, NULL, NULL,
				                               e->relates[m].id});
			for (m = 0; m < e->n_contradicts; m++)
				S_index_add(&v, &n, &cap,
				            &(struct dtk_link){DTK_LINK_CONTRADICTS, e, NULL,
				                               &e->contradicts[m],
				                               e->contradicts[m].ref.id});
			if (e->superseded_by.id)
				S_index_add(&v, &n, &cap,
				            &(struct dtk_link){DTK_LINK_SUPERSEDES, e, NULL, NULL,
				                               e->superseded_by.id});
		}
	for (i = 0; i < kb->n_gaps; i++)
		S_index_add(&v, &n, &cap,
		            &(struct dtk_link){DTK_LINK_GAP, NULL, &kb->gaps[i], NULL,
		                               kb->gaps[i].flagged_by.id});
	if (n)
		qsort(v, n, sizeof(*v), S_named_cmp);
	x->g = dtk_arena_alloc(kb->arena, (n ? n : 1) * sizeof(*x->g));
	x->n = 0;
	for (i = 0; i < n; i = k) {
		struct group *g = &x->g[x->n++];
		for (k = i + 1;
		     k < n && v[k].len == v[i].len && !strncmp(v[k].node, v[i].node, v[i].len); k++)
			;
		g->node = dtk_arena_strndup(kb->arena, v[i].node, v[i].len);
		g->n = k - i;
		g->v = dtk_arena_alloc(kb->arena, g->n * sizeof(*g->v));
		for (start = i; start < k; start++)
			g->v[start - i] = v[start].r.l;
	}
	kb->links_index = x;
	free(v);
}

size_t dtk_links_into(struct dtk_link **out, const struct dtk_kb *kb, const char *node)
{
	const struct dtk_links_index *x = kb->links_index;
	size_t lo = 0, hi = x ? x->n : 0, mid;

	if (!x)
		return S_links(out, kb, NULL, node, 1);
	*out = NULL;
	while (lo < hi) {
		int c;
		mid = lo + (hi - lo) / 2;
		c = strcmp(node, x->g[mid].node);
		if (!c) {
			*out = dtk_xmalloc(x->g[mid].n * sizeof(**out));
			memcpy(*out, x->g[mid].v, x->g[mid].n * sizeof(**out));
			return x->g[mid].n;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

size_t dtk_links_pick(struct dtk_link **out, const struct dtk_link *all, size_t n, const char *id,
                      const char *node)
{
	struct dtk_link *v = NULL;
	size_t i, k = 0, cap = 0;

	for (i = 0; i < n; i++) {
		const struct dtk_link *l = &all[i];
		if (id ? strcmp(l->to, id) : l->from && !strcmp(l->from->node->name, node))
			continue;
		dtk_grow((void **)&v, &cap, k + 1, sizeof(*v));
		v[k++] = *l;
	}
	*out = v;
	return k;
}

size_t dtk_links_to(struct dtk_link **out, const struct dtk_kb *kb, const char *id,
                    const char *node)
{
	struct dtk_link *all;
	size_t n, plen;
	char *prefix;

	if (!kb->links_index || !id || !dtk_entry_id_split(id, &plen))
		return S_links(out, kb, id, node, 0);
	prefix = dtk_xstrndup(id, plen); /* the index: its node's links, then id's */
	n = dtk_links_into(&all, kb, prefix);
	n = dtk_links_pick(out, all, n, id, NULL);
	free(all);
	free(prefix);
	return n;
}
