/* view.c: entries and nodes as JSON, the shape docs/commands.md documents. */
#include "dtk/view.h"

#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/links.h"

#include <stdlib.h>

static void S_json_source(struct dtk_json *j, const struct dtk_kb *kb, const char *id)
{
	const struct dtk_source *s = dtk_kb_source(kb, id);
	dtk_json_object(j);
	dtk_json_kstring(j, "id", id);
	dtk_json_kstring(j, "title", s ? s->title : NULL);
	dtk_json_kstring(j, "url", s ? s->url : NULL);
	dtk_json_end(j, '}');
}

static void S_json_date(struct dtk_json *j, const char *key, dtk_date d)
{
	char buf[11];
	dtk_json_kstring(j, key, d ? dtk_date_format(buf, d) : NULL);
}

void dtk_view_source_json(struct dtk_json *j, const struct dtk_source *s)
{
	dtk_json_object(j);
	dtk_json_kstring(j, "id", s->id);
	dtk_json_kstring(j, "title", s->title);
	dtk_json_kstring(j, "url", s->url);
	S_json_date(j, "read", s->read);
	S_json_date(j, "revised", s->revised);
	dtk_json_end(j, '}');
}

/* Writes one backlink as an object; with to, the id it names too. */
static void S_json_link(struct dtk_json *j, const struct dtk_link *l, int to)
{
	dtk_json_object(j);
	dtk_json_kstring(j, "id", l->from ? l->from->id : NULL);
	dtk_json_kstring(j, "how", dtk_link_how_names[l->how]);
	if (to)
		dtk_json_kstring(j, "to", l->to);
	if (l->from)
		dtk_json_kstring(j, "title", l->from->title);
	if (l->con) {
		dtk_json_kstring(j, "status", l->con->open ? "open" : "resolved");
		dtk_json_kstring(j, "note", l->con->note);
	}
	if (l->gap)
		dtk_json_kstring(j, "gap", l->gap->text);
	dtk_json_end(j, '}');
}

static void S_json_links(struct dtk_json *j, const struct dtk_link *links, size_t n, int to)
{
	size_t i;
	dtk_json_key(j, "referenced_by");
	dtk_json_array(j);
	for (i = 0; i < n && (!j->refs || i < j->refs); i++)
		S_json_link(j, &links[i], to);
	dtk_json_end(j, ']');
	if (i < n) /* cut at j->refs */
		dtk_json_kint(j, "referenced_by_total", (long)n);
}

/* Writes the keys of entry e into the object open in j. */
static void S_keys(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	size_t i;

	dtk_json_kstring(j, "id", e->id);
	dtk_json_kstring(j, "node", e->node->name);
	{ /* where it is written: an editor or an agent can go there */
		struct dtk_buf file = DTK_BUF_INIT;
		dtk_buf_printf(&file, "insights/%s.yaml", e->node->name);
		dtk_json_kstring(j, "file", file.ptr);
		dtk_json_kint(j, "line", e->pos.line);
		dtk_buf_release(&file);
	}
	dtk_json_kstring(j, "title", e->title);
	dtk_json_kstring(j, "claim", e->claim);
	dtk_json_kstring(j, "confidence", dtk_confidence_names[e->confidence]);
	dtk_json_kbool(j, "candidate", dtk_entry_is_candidate(kb, e));
	dtk_json_key(j, "source");
	S_json_source(j, kb, e->source.id);
	dtk_json_key(j, "verified_by");
	dtk_json_array(j);
	for (i = 0; i < e->n_verified_by; i++)
		S_json_source(j, kb, e->verified_by[i].id);
	dtk_json_end(j, ']');
	S_json_date(j, "created", e->created);
	S_json_date(j, "reviewed", e->reviewed);
	S_json_date(j, "fresh", dtk_entry_fresh(e));
	dtk_json_kint(j, "used", e->used);
	dtk_json_kint(j, "cited", e->cited);
	dtk_json_kbool(j, "closed", e->closed);
	dtk_json_key(j, "relates");
	dtk_json_array(j);
	for (i = 0; i < e->n_relates; i++)
		dtk_json_string(j, e->relates[i].id);
	dtk_json_end(j, ']');
	dtk_json_key(j, "contradicts");
	dtk_json_array(j);
	for (i = 0; i < e->n_contradicts; i++) {
		dtk_json_object(j);
		dtk_json_kstring(j, "id", e->contradicts[i].ref.id);
		dtk_json_kstring(j, "status", e->contradicts[i].open ? "open" : "resolved");
		dtk_json_kstring(j, "note", e->contradicts[i].note);
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
	/* the keys of its later life, only when set */
	if (e->revised)
		S_json_date(j, "revised", e->revised);
	if (e->superseded_by.id) {
		dtk_json_kstring(j, "superseded_by", e->superseded_by.id);
		S_json_date(j, "superseded", e->superseded);
	}
	if (e->retracted) {
		S_json_date(j, "retracted", e->retracted);
		dtk_json_kstring(j, "retracted_reason", e->retracted_reason);
	}
}

void dtk_view_entry_json_keys(struct dtk_json *j, const struct dtk_kb *kb,
                              const struct dtk_entry *e, const struct dtk_link *links,
                              size_t n_links)
{
	S_keys(j, kb, e);
	S_json_links(j, links, n_links, 0);
}

void dtk_view_entry_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	dtk_json_object(j);
	S_keys(j, kb, e);
	dtk_json_end(j, '}');
}

void dtk_view_entry_json_links(struct dtk_json *j, const struct dtk_kb *kb,
                               const struct dtk_entry *e, const struct dtk_link *links,
                               size_t n_links)
{
	dtk_json_object(j);
	dtk_view_entry_json_keys(j, kb, e, links, n_links);
	dtk_json_end(j, '}');
}

/* Writes "nextCursor" (dtk mcp's cursor: "o<next>") when next < total. */
static void S_next_cursor(struct dtk_json *j, size_t next, size_t total)
{
	char s[32];

	if (next >= total)
		return;
	snprintf(s, sizeof(s), "o%zu", next);
	dtk_json_kstring(j, "nextCursor", s);
}

void dtk_view_node_page(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node,
                        size_t offset, size_t limit, int compact, size_t max_bytes)
{
	struct dtk_link *all, *links;
	size_t i, n, n_all = dtk_links_into(&all, kb, node->name), start;
	size_t from = limit ? offset : 0, to = node->n_entries;

	dtk_json_object(j);
	dtk_json_kstring(j, "node", node->name);
	dtk_json_kstring(j, "category",
	                 node->category >= 0 ? kb->categories[node->category].name : NULL);
	dtk_json_kstring(j, "bloom", dtk_bloom_names[node->bloom]);
	dtk_json_kstring(j, "stance", node->stance);
	dtk_json_key(j, "tentative"); /* null without a stance */
	if (node->stance)
		dtk_json_bool(j, !dtk_node_has_high(node));
	else
		dtk_json_null(j);
	dtk_json_key(j, "entries");
	dtk_json_array(j);
	if (from > to)
		from = to;
	if (limit && limit < to - from)
		to = from + limit;
	for (i = from, start = j->out->len; i < to; i++) {
		const struct dtk_entry *e = &node->entries[i];
		if (max_bytes && i > from && j->out->len - start >= max_bytes) {
			to = i; /* the page is full */
			break;
		}
		if (compact) {
			dtk_json_object(j);
			dtk_json_kstring(j, "id", e->id);
			dtk_json_kstring(j, "title", e->title);
			dtk_json_kstring(j, "confidence", dtk_confidence_names[e->confidence]);
			dtk_json_end(j, '}');
			continue;
		}
		n = dtk_links_pick(&links, all, n_all, e->id, NULL);
		dtk_view_entry_json_links(j, kb, e, links, n);
		free(links);
	}
	dtk_json_end(j, ']');
	if (limit) { /* a page of the entries (dtk mcp, show --limit) */
		dtk_json_kint(j, "entries_total", (long)node->n_entries);
		dtk_json_kint(j, "entries_not_shown", (long)(node->n_entries - (to - from)));
		S_next_cursor(j, to, node->n_entries);
	}
	n = dtk_links_pick(&links, all, n_all, NULL, node->name);
	S_json_links(j, links, n, 1);
	free(links);
	free(all);
	dtk_json_end(j, '}');
}

void dtk_view_entry_short(struct dtk_json *j, const struct dtk_entry *e)
{
	struct dtk_buf claim = DTK_BUF_INIT;
	size_t i, chars = 0;

	for (i = 0; e->claim[i]; i++) /* i: the first byte of character 161 */
		if (((unsigned char)e->claim[i] & 0xC0) != 0x80 && chars++ == DTK_VIEW_CLAIM_CHARS)
			break;
	dtk_buf_put(&claim, e->claim, i);
	dtk_buf_puts(&claim, e->claim[i] ? "…" : "");
	dtk_json_object(j);
	dtk_json_kstring(j, "id", e->id);
	dtk_json_kstring(j, "title", e->title);
	dtk_json_kstring(j, "confidence", dtk_confidence_names[e->confidence]);
	S_json_date(j, "fresh", dtk_entry_fresh(e));
	dtk_json_kstring(j, "claim", dtk_buf_cstr(&claim));
	dtk_json_end(j, '}');
	dtk_buf_release(&claim);
}

void dtk_view_list_begin(struct dtk_json *j, struct dtk_page *page)
{
	if (!page) {
		dtk_json_array(j);
		return;
	}
	page->total = page->shown = 0;
	page->full = 0;
	dtk_json_object(j);
	dtk_json_key(j, "entries");
	dtk_json_array(j);
	page->start = page->mark = j->out->len;
}

/* Takes the item written last off page when it took the items past
 * DTK_VIEW_PAGE_BYTES, unless it is the first: the page is full. */
static void S_page_fit(struct dtk_json *j, struct dtk_page *page)
{
	if (page->full || page->shown < 2 || j->out->len - page->start <= DTK_VIEW_PAGE_BYTES)
		return;
	j->out->ptr[j->out->len = page->mark] = '\0';
	j->count[j->depth]--;
	page->shown--;
	page->full = 1;
}

int dtk_view_list_item(struct dtk_json *j, struct dtk_page *page)
{
	size_t i;

	if (!page)
		return 1;
	i = page->total++;
	S_page_fit(j, page);
	if (page->full || i < page->offset || page->shown >= page->size)
		return 0;
	page->mark = j->out->len;
	page->shown++;
	return 1;
}

void dtk_view_list_end(struct dtk_json *j, struct dtk_page *page)
{
	if (page)
		S_page_fit(j, page);
	dtk_json_end(j, ']');
	if (!page)
		return;
	dtk_json_kint(j, "total", (long)page->total);
	S_next_cursor(j, page->offset + page->shown, page->total);
	dtk_json_end(j, '}');
}
