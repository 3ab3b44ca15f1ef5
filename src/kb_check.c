/* kb_check.c: the checks across the files of a base. */
#include "kb_int.h"

#include "dtk/nodesum.h"

#include <stdlib.h>
#include <string.h>

int dtk_kb_node_cmp(const void *a, const void *b)
{
	return strcmp((*(struct dtk_node *const *)a)->name, (*(struct dtk_node *const *)b)->name);
}

/* Sorts nodes into category order, reporting unknown, repeated and missing ones. */
static void S_order_nodes(struct loader *l)
{
	struct dtk_kb *kb = l->kb;
	struct dtk_node **ordered = dtk_xmalloc((kb->n_nodes + 1) * sizeof(*ordered));
	const char **names = dtk_xmalloc((kb->n_nodes + 1) * sizeof(*names));
	size_t i, j, n = 0;

	for (i = 0; i < kb->n_nodes; i++)
		names[i] = kb->nodes[i]->name; /* still sorted by name */
	for (i = 0; i < kb->n_categories; i++) {
		const struct dtk_category *cat = &kb->categories[i];
		for (j = 0; j < cat->n_nodes; j++) {
			const struct dtk_ref *r = &cat->nodes[j];
			struct dtk_node *node = dtk_kb_node(kb, r->id);
			const char *hint;
			if (!node && dtk_kb_is_broken(l, r->id, strlen(r->id))) {
				continue;
			} else if (!node) {
				struct dtk_buf m = DTK_BUF_INIT;
				hint = dtk_suggest(r->id, names, kb->n_nodes);
				dtk_buf_printf(&m, "category '%s' names unknown node '%s'",
				               cat->name, r->id);
				if (hint)
					dtk_buf_printf(&m, " (did you mean '%s'?)", hint);
				/* what an add-node killed between its renames leaves */
				if (dtk_is_name(r->id))
					dtk_buf_printf(
					        &m,
					        ", and there is no insights/%s.yaml: if 'dtk "
					        "add-node %s --category %s' was cut short, run "
					        "it again",
					        r->id, r->id, cat->name);
				dtk_diags_add(l->d, "insights/_domain.yaml", r->pos.line,
				              r->pos.col, "%s", m.ptr);
				dtk_buf_release(&m);
			} else if (node->category >= 0) {
				dtk_diags_add(l->d, "insights/_domain.yaml", r->pos.line,
				              r->pos.col, "node '%s' is already in category '%s'",
				              r->id, kb->categories[node->category].name);
			} else {
				node->category = (int)i;
				ordered[n++] = node;
			}
		}
	}
	for (i = 0; i < kb->n_nodes; i++) {
		struct dtk_node *node = kb->nodes[i];
		if (node->category >= 0)
			continue;
		if (l->domain_ok)
			dtk_diags_add(l->d, node->path, node->name_pos.line, node->name_pos.col,
			              "node '%s' is in no category of insights/_domain.yaml",
			              node->name);
		ordered[n++] = node;
	}
	if (n)
		memcpy(kb->nodes, ordered, n * sizeof(*ordered));
	for (i = 0; i < kb->n_nodes; i++)
		kb->nodes[i]->order = i;
	free(ordered);
	free(names);
}

/* Returns 1 when id[0..len) is the name of the base's own domain. */
static int S_own_domain(const struct dtk_kb *kb, const char *id, size_t len)
{
	return kb->domain && strlen(kb->domain) == len && !strncmp(kb->domain, id, len);
}

static void S_check_entry_ref(struct loader *l, const char *path, const struct dtk_ref *r,
                              const char *what)
{
	const char *colon = strchr(r->id, ':');
	struct dtk_sum_entry e;
	size_t plen = 0;

	if (colon) { /* another domain's: its form only, checked as it was read */
		if (S_own_domain(l->kb, r->id, (size_t)(colon - r->id)))
			dtk_diags_add(l->d, path, r->pos.line, r->pos.col,
			              "%s '%s', an entry of this base's own domain: write '%s'",
			              what, r->id, colon + 1);
		return;
	}
	if (!dtk_kb_sum_entry(l->kb, r->id, &e) &&
	    !(dtk_entry_id_split(r->id, &plen) && dtk_kb_is_broken(l, r->id, plen)))
		dtk_diags_add(l->d, path, r->pos.line, r->pos.col, "%s unknown entry '%s'", what,
		              r->id);
}

/* Checks the references of node's entries to other entries, as its
 * summary keeps them (the schema checked its sources as it read them). */
static void S_check_node_refs(struct loader *l, const struct dtk_node *node)
{
	static const char *const what[] = {"'relates' names", "'contradicts' names",
	                                   "'superseded_by' names"};
	size_t i;

	for (i = 0; i < node->sum->n_refs; i++) {
		const struct dtk_sum_ref *r = &node->sum->refs[i];
		struct dtk_ref ref = {r->id, r->pos};
		S_check_entry_ref(l, node->path, &ref, what[r->kind]);
	}
}

/* Reports node names that read as an entry id of another node ("x-001"
 * beside "x"): dtk show could not tell them apart. */
static void S_check_node_names(struct loader *l)
{
	struct dtk_kb *kb = l->kb;
	size_t i, plen;
	char node[256];

	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *n = kb->nodes[i];
		if (!dtk_entry_id_split(n->name, &plen) || plen >= sizeof(node))
			continue;
		memcpy(node, n->name, plen);
		node[plen] = '\0';
		if (dtk_kb_node(kb, node))
			dtk_diags_add(
			        l->d, n->path, n->name_pos.line, n->name_pos.col,
			        "node name '%s' reads as an entry id of node '%s'; rename the node",
			        n->name, node);
	}
}

static void S_check_domain_refs(struct loader *l)
{
	struct dtk_kb *kb = l->kb;
	size_t i;

	for (i = 0; i < kb->n_hotspots; i++) {
		const struct dtk_hotspot *h = &kb->hotspots[i];
		const struct dtk_ref *r = &h->node;
		size_t k;
		if (!dtk_kb_node(kb, r->id) && !dtk_kb_is_broken(l, r->id, strlen(r->id)))
			dtk_diags_add(l->d, "insights/_domain.yaml", r->pos.line, r->pos.col,
			              "hotspot names unknown node '%s'", r->id);
		for (k = 0; k < h->n_links; k++) {
			const struct dtk_ref *x = &h->links[k];
			const char *slash = strchr(x->id, '/');
			if (slash && S_own_domain(kb, x->id, (size_t)(slash - x->id)))
				dtk_diags_add(l->d, "insights/_domain.yaml", x->pos.line,
				              x->pos.col,
				              "hotspot links to '%s', a node of this base's own "
				              "domain: a hotspot links to other domains",
				              x->id);
		}
	}
	for (i = 0; i < kb->n_gaps; i++) {
		const struct dtk_gap *g = &kb->gaps[i];
		size_t k;
		if (g->flagged_by.id)
			S_check_entry_ref(l, "insights/_domain.yaml", &g->flagged_by,
			                  "gap is flagged_by");
		for (k = 0; k < g->n_nodes; k++)
			if (!dtk_kb_node(kb, g->nodes[k].id) &&
			    !dtk_kb_is_broken(l, g->nodes[k].id, strlen(g->nodes[k].id)))
				dtk_diags_add(l->d, "insights/_domain.yaml", g->nodes[k].pos.line,
				              g->nodes[k].pos.col, "gap names unknown node '%s'",
				              g->nodes[k].id);
	}
}

void dtk_kb_check_across(struct loader *l)
{
	size_t i;

	S_order_nodes(l);
	S_check_node_names(l);
	S_check_domain_refs(l);
	for (i = 0; i < l->kb->n_nodes; i++)
		S_check_node_refs(l, l->kb->nodes[i]);
}
