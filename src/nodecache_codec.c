/* nodecache_codec.c: a node as the node cache keeps it: packed (a head, then
 * the entries' long texts), unpacked with the checks that read other files,
 * made lean. The file that holds the packed nodes is nodecache.c's. */
#include "dtk/nodecache.h"

#include "dtk/pack.h"
#include "schema.h"

#include <string.h>

#define S_TEXT_CLAIM 1  /* the entry has a claim (in the tail) */
#define S_TEXT_REASON 2 /* it has a reason of retraction (likewise) */

/* A key added to the entries (model.h's table) is lost by a cached load
 * until it is packed here: dtk_nodecache_pack, S_get_entry (copied into the
 * arena: only titles, claims and relates borrow from the blob, and search's
 * S_keep copies those), dtk_nodecache_lean when a lean load keeps none. */
_Static_assert(DTK_ENTRY_KEYS == 20, "an entry's key added: pack it here, then count it");

/* ---- packing ---- */

static void S_refs(struct dtk_buf *b, const struct dtk_ref *v, unsigned n)
{
	unsigned i;
	dtk_pack_u32(b, n);
	for (i = 0; i < n; i++) {
		dtk_pack_str(b, v[i].id);
		dtk_pack_pos(b, v[i].pos);
	}
}

void dtk_nodecache_pack(struct dtk_buf *b, const struct dtk_node *node)
{
	size_t i, at = b->len;
	unsigned k;
	uint32_t head;

	dtk_pack_u32(b, 0); /* the head's length, set below */
	dtk_pack_str(b, node->stance);
	dtk_pack_u32(b, (uint32_t)node->bloom);
	dtk_pack_pos(b, node->name_pos);
	dtk_pack_u32(b, (uint32_t)node->n_entries);
	for (i = 0; i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		dtk_pack_str(b, e->id);
		dtk_pack_str(b, e->title);
		/* which long texts the tail holds (S_TEXT_*) */
		dtk_pack_u32(b, (e->claim ? S_TEXT_CLAIM : 0) |
		                        (e->retracted_reason ? S_TEXT_REASON : 0));
		dtk_pack_str(b, e->source.id);
		dtk_pack_pos(b, e->source.pos);
		dtk_pack_pos(b, e->pos);
		dtk_pack_i64(b, e->used);
		dtk_pack_i64(b, e->cited);
		dtk_pack_u32(b, (uint32_t)e->created);
		dtk_pack_u32(b, (uint32_t)e->reviewed);
		dtk_pack_u32(b, e->confidence);
		dtk_pack_u32(b, e->closed);
		S_refs(b, e->verified_by, e->n_verified_by);
		S_refs(b, e->relates, e->n_relates);
		dtk_pack_u32(b, e->n_contradicts);
		for (k = 0; k < e->n_contradicts; k++) {
			dtk_pack_str(b, e->contradicts[k].ref.id);
			dtk_pack_pos(b, e->contradicts[k].ref.pos);
			dtk_pack_u32(b, (uint32_t)e->contradicts[k].open);
			dtk_pack_str(b, e->contradicts[k].note);
			dtk_pack_u32(b, (uint32_t)e->contradicts[k].opened);
			dtk_pack_u32(b, (uint32_t)e->contradicts[k].resolved);
		}
		dtk_pack_u32(b, (uint32_t)e->revised);
		dtk_pack_u32(b, (uint32_t)e->superseded);
		dtk_pack_u32(b, (uint32_t)e->retracted);
		dtk_pack_str(b, e->superseded_by.id);
		dtk_pack_pos(b, e->superseded_by.pos);
		dtk_pack_u32(b, (uint32_t)e->confidence_changed);
		dtk_pack_u32(b, e->confidence_was);
	}
	head = (uint32_t)(b->len - at);
	memcpy(b->ptr + at, &head, sizeof(head));
	for (i = 0; i < node->n_entries; i++) { /* the tail */
		dtk_pack_str(b, node->entries[i].claim);
		dtk_pack_str(b, node->entries[i].retracted_reason);
	}
}

uint32_t dtk_nodecache_head_len(const char *blob, size_t len)
{
	uint32_t head = 0;

	if (len >= sizeof(head))
		memcpy(&head, blob, sizeof(head));
	return head >= sizeof(head) && head <= len ? head : 0;
}

/* ---- unpacking: every read is checked against the end ---- */

/* Returns the id of a source the entry names: the source's own string when
 * kb has it (its bit set in named), else s copied into arena. A source
 * _sources.yaml does not hold is an error of the node file (schema.c's
 * S_id): r is then bad, and the file is parsed to say so. */
static const char *S_source_id(struct dtk_rd *r, const struct dtk_kb *kb, struct dtk_arena *arena,
                               const char *s, unsigned char *named)
{
	const struct dtk_source *src = s ? dtk_kb_source(kb, s) : NULL;

	if (s && !src && kb->sources_ok)
		r->bad = 1;
	if (src && named) {
		size_t i = (size_t)(src - kb->sources);
		named[i / 8] |= (unsigned char)(1u << (i % 8));
	}
	return src ? src->id : s ? dtk_arena_strdup(arena, s) : NULL;
}

/* Reads a list of references into *out (in arena); ids that name sources
 * are looked up, the others copied into copy (or left in blob). Returns the
 * count. */
static unsigned S_get_refs(struct dtk_rd *r, struct dtk_ref **out, struct dtk_arena *arena,
                           struct dtk_arena *copy, const struct dtk_kb *kb, unsigned char *named)
{
	long n = dtk_rd_count(r, 12), i;
	struct dtk_ref *v;

	*out = NULL;
	if (n <= 0)
		return 0;
	v = dtk_arena_alloc(arena, (size_t)n * sizeof(*v));
	for (i = 0; i < n && !r->bad; i++) {
		const char *id = dtk_rd_str(r, kb ? NULL : copy);
		v[i].id = kb ? S_source_id(r, kb, copy, id, named) : id;
		v[i].pos = dtk_rd_pos(r);
		if (!v[i].id)
			r->bad = 1;
	}
	*out = v;
	return (unsigned)n;
}

/* Reads e's long texts from the tail t, or, when t is NULL (the head was
 * read alone, for a lean load), sets those it has to "". r is bad when
 * the tail does not hold what the head says (has: S_TEXT_*). */
static void S_get_texts(struct dtk_rd *r, struct dtk_rd *t, struct dtk_entry *e, uint32_t has,
                        struct dtk_arena *text)
{
	if (!t) {
		e->claim = has & S_TEXT_CLAIM ? "" : NULL;
		e->retracted_reason = has & S_TEXT_REASON ? "" : NULL;
		return;
	}
	e->claim = dtk_rd_str(t, text);
	e->retracted_reason = dtk_rd_str(t, text);
	r->bad |= t->bad || !e->claim != !(has & S_TEXT_CLAIM) ||
	          !e->retracted_reason != !(has & S_TEXT_REASON);
}

static void S_get_entry(struct dtk_rd *r, struct dtk_rd *t, struct dtk_entry *e,
                        const struct dtk_kb *kb, struct dtk_arena *arena, struct dtk_arena *scratch,
                        int borrow, unsigned char *named)
{
	struct dtk_arena *text = borrow ? NULL : arena, *lists = borrow ? scratch : arena;
	long n, k;
	uint32_t v;

	e->id = dtk_rd_str(r, arena);
	e->title = dtk_rd_str(r, text);
	v = dtk_rd_u32(r);
	r->bad |= v > (S_TEXT_CLAIM | S_TEXT_REASON);
	S_get_texts(r, t, e, v, text);
	e->source.id = S_source_id(r, kb, arena, dtk_rd_str(r, NULL), named);
	e->source.pos = dtk_rd_pos(r);
	e->pos = dtk_rd_pos(r);
	e->used = dtk_rd_i64(r);
	e->cited = dtk_rd_i64(r);
	e->created = (dtk_date)dtk_rd_u32(r);
	e->reviewed = (dtk_date)dtk_rd_u32(r);
	v = dtk_rd_u32(r);
	e->confidence = (unsigned char)v;
	r->bad |= v >= DTK_CONF_COUNT;
	v = dtk_rd_u32(r);
	e->closed = (unsigned char)v;
	r->bad |= v > 1 || !e->id;
	e->n_verified_by = S_get_refs(r, &e->verified_by, lists, arena, kb, named);
	/* the policy's check (schema.c's S_entry), which reads _domain.yaml */
	r->bad |= e->confidence == DTK_CONF_HIGH && !dtk_entry_verified_for_high(kb, e);
	e->n_relates = S_get_refs(r, &e->relates, lists, text, NULL, NULL);
	n = dtk_rd_count(r, 24);
	if (n > 0)
		e->contradicts = dtk_arena_alloc(arena, (size_t)n * sizeof(*e->contradicts));
	for (k = 0; k < n && !r->bad; k++) {
		struct dtk_contradiction *c = &e->contradicts[k];
		c->ref.id = dtk_rd_str(r, arena);
		c->ref.pos = dtk_rd_pos(r);
		v = dtk_rd_u32(r);
		c->open = (int)v;
		c->note = dtk_rd_str(r, arena);
		c->opened = (dtk_date)dtk_rd_u32(r);
		c->resolved = (dtk_date)dtk_rd_u32(r);
		r->bad |= v > 1 || !c->ref.id;
	}
	e->n_contradicts = n > 0 ? (unsigned)n : 0;
	e->revised = (dtk_date)dtk_rd_u32(r);
	e->superseded = (dtk_date)dtk_rd_u32(r);
	e->retracted = (dtk_date)dtk_rd_u32(r);
	e->superseded_by.id = dtk_rd_str(r, arena);
	e->superseded_by.pos = dtk_rd_pos(r);
	e->confidence_changed = (dtk_date)dtk_rd_u32(r);
	v = dtk_rd_u32(r);
	e->confidence_was = (unsigned char)v;
	r->bad |= v >= DTK_CONF_COUNT;
}

void dtk_nodecache_lean(const struct dtk_kb *kb, struct dtk_arena *arena, struct dtk_node *node,
                        unsigned flags)
{
	size_t i, k, n;

	for (i = 0; i < node->n_entries; i++) {
		struct dtk_entry *e = &node->entries[i];
		struct dtk_ref *kept = NULL;
		if (e->claim)
			e->claim = "";
		if (e->title)
			e->title = (flags & DTK_NODECACHE_TITLES) || dtk_entry_is_candidate(kb, e)
			                   ? dtk_arena_strdup(arena, e->title)
			                   : "";
		if (e->retracted_reason)
			e->retracted_reason = "";
		e->verified_by = NULL;
		for (k = 0; k < e->n_contradicts; k++)
			if (!e->contradicts[k].open)
				e->contradicts[k].note = NULL;
		for (k = 0, n = 0; k < e->n_relates; k++) {
			const struct dtk_entry *o = dtk_node_entry(node, e->relates[k].id);
			if (!o || dtk_entry_retired(o))
				e->relates[n++] = e->relates[k];
		}
		if (n)
			kept = dtk_arena_alloc(arena, n * sizeof(*kept));
		for (k = 0; k < n; k++) {
			kept[k].id = dtk_arena_strdup(arena, e->relates[k].id);
			kept[k].pos = e->relates[k].pos;
		}
		e->relates = kept;
		e->n_relates = (unsigned)n;
	}
	node->n_linking = 0;
	for (i = 0; i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		if (e->n_relates || e->n_contradicts || e->superseded_by.id)
			node->linking[node->n_linking++] = &node->entries[i];
	}
}

int dtk_nodecache_unpack(struct dtk_node **out, const struct dtk_kb *kb, struct dtk_arena *arena,
                         struct dtk_arena *scratch, const char *blob, size_t len, const char *name,
                         const char *path, unsigned flags, unsigned char *named)
{
	int borrow = (flags & (DTK_NODECACHE_BORROW | DTK_NODECACHE_LEAN)) != 0;
	uint32_t head = dtk_nodecache_head_len(blob, len), bloom;
	/* the head, past its length; the tail, when read */
	struct dtk_rd r = {blob + sizeof(head), blob + head, !head},
	              t = {blob + head, blob + len, 0};
	struct dtk_node *node = dtk_arena_alloc(arena, sizeof(*node));
	long n, i;

	*out = NULL;
	if (!head)
		return -1;
	node->name = dtk_arena_strdup(arena, name);
	node->path = dtk_arena_strdup(arena, path);
	node->category = -1;
	node->stance = dtk_rd_str(&r, arena);
	bloom = dtk_rd_u32(&r);
	node->bloom = (enum dtk_bloom)bloom;
	node->name_pos = dtk_rd_pos(&r);
	n = dtk_rd_count(&r, 64);
	/* a head alone (no tail, entries) only for a lean load */
	if (r.bad || bloom >= DTK_BLOOM_COUNT ||
	    (head == len && n && !(flags & DTK_NODECACHE_LEAN)))
		return -1;
	node->entries = dtk_arena_alloc(arena, (size_t)(n ? n : 1) * sizeof(*node->entries));
	for (i = 0; i < n && !r.bad; i++) {
		struct dtk_entry *e = &node->entries[i];
		S_get_entry(&r, head < len ? &t : NULL, e, kb, arena, scratch, borrow, named);
		e->node = node;
	}
	node->n_entries = (size_t)n;
	if (r.bad || r.p != r.end || t.p != t.end || dtk_schema_index_node(arena, node) < 0)
		return -1;
	if (flags & DTK_NODECACHE_LEAN)
		dtk_nodecache_lean(kb, arena, node, flags);
	*out = node;
	return 0;
}
