/* nodesum.c: a node's summary (nodesum.h), packed and read in place. */
#include "dtk/nodesum.h"

#include "dtk/markdown.h"
#include "dtk/pack.h"
#include "lang.h"

#include <stdlib.h>
#include <string.h>

/* ---- packing ---- */

/* Appends the counts of node's entries. */
static void S_pack_counts(struct dtk_buf *b, const struct dtk_node *node)
{
	uint32_t live = 0, high = 0, used = 0, cited = 0, closed = 0, min_high = UINT32_MAX;
	dtk_date earliest = 0, latest = 0;
	size_t i;

	for (i = 0; i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		dtk_date f = dtk_entry_fresh(e);
		latest = e->created > latest ? e->created : latest;
		latest = e->reviewed > latest ? e->reviewed : latest;
		if (e->confidence == DTK_CONF_HIGH && e->n_verified_by < min_high)
			min_high = e->n_verified_by;
		if (dtk_entry_retired(e))
			continue;
		live++;
		high += e->confidence == DTK_CONF_HIGH;
		used += e->used > 0;
		cited += e->cited > 0;
		closed += e->closed != 0;
		if (!earliest || f < earliest)
			earliest = f;
	}
	dtk_pack_u32(b, (uint32_t)node->n_entries);
	dtk_pack_u32(b, live);
	dtk_pack_u32(b, high);
	dtk_pack_u32(b, used);
	dtk_pack_u32(b, cited);
	dtk_pack_u32(b, closed);
	dtk_pack_u32(b, (uint32_t)earliest);
	dtk_pack_u32(b, (uint32_t)latest);
	dtk_pack_u32(b, min_high);
}

static int S_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Appends the distinct sources node's entries name, by their places in
 * kb's sources, and how far into them those places reach, with the hash of
 * the ids up to there; when not wanted, or for a lean node or one naming a
 * source kb lacks, none and a reach no base has. */
static void S_pack_sources(struct dtk_buf *b, const struct dtk_node *node, const struct dtk_kb *kb,
                           int wanted)
{
	uint32_t *v = NULL, upto = 0;
	size_t i, k, n = 0, cap = 0, u = 0;
	int whole;

	/* a load with no node cache keeps no summary: it hashes no sources */
	whole = wanted = wanted && kb->source_prefix != NULL;
	for (i = 0; wanted && i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		whole &= !e->n_verified_by || e->verified_by;
		dtk_grow((void **)&v, &cap, n + 1 + (e->verified_by ? e->n_verified_by : 0),
		         sizeof(*v));
		for (k = 0; k <= (e->verified_by ? e->n_verified_by : 0); k++) {
			const char *id = k ? e->verified_by[k - 1].id : e->source.id;
			const struct dtk_source *src = id ? dtk_kb_source(kb, id) : NULL;
			whole &= !id || src;
			if (src)
				v[n++] = (uint32_t)(src - kb->sources);
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), S_cmp_u32);
	for (i = 0; i < n; i++)
		if (!u || v[u - 1] != v[i])
			v[u++] = v[i];
	upto = whole ? (u ? v[u - 1] + 1 : 0) : UINT32_MAX;
	dtk_pack_u32(b, upto);
	dtk_pack_i64(b, (int64_t)(whole ? kb->source_prefix[upto] : 0));
	dtk_pack_u32(b, (uint32_t)u);
	for (i = 0; i < u; i++)
		dtk_pack_u32(b, v[i]);
	free(v);
}

/* Returns 1 when ref names an entry outside node, or a retired one in it
 * and relates (rel): the references a summary keeps. */
static int S_kept_ref(const struct dtk_node *node, const char *id, int rel)
{
	const struct dtk_entry *o = strchr(id, ':') ? NULL : dtk_node_entry(node, id);
	return !o || (rel && dtk_entry_retired(o));
}

static void S_pack_ref(struct dtk_buf *b, const struct dtk_entry *e, const struct dtk_ref *r,
                       int kind)
{
	dtk_pack_u32(b, (uint32_t)kind);
	dtk_pack_u32(b, (uint32_t)dtk_entry_retired(e));
	dtk_pack_str(b, e->id);
	dtk_pack_str(b, r->id);
	dtk_pack_pos(b, r->pos);
}

/* Appends the open contradictions (opens) or the references kept. */
static void S_pack_links(struct dtk_buf *b, const struct dtk_node *node, int opens)
{
	size_t i, k, at = b->len;
	uint32_t n = 0;

	dtk_pack_u32(b, 0); /* the count, set below */
	for (i = 0; i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		for (k = 0; !opens && k < e->n_relates; k++)
			if (S_kept_ref(node, e->relates[k].id, 1) && ++n)
				S_pack_ref(b, e, &e->relates[k], DTK_SUM_RELATES);
		for (k = 0; k < e->n_contradicts; k++) {
			const struct dtk_contradiction *c = &e->contradicts[k];
			if (!opens && S_kept_ref(node, c->ref.id, 0) && ++n)
				S_pack_ref(b, e, &c->ref, DTK_SUM_CONTRADICTS);
			if (!opens || !c->open)
				continue;
			n++;
			dtk_pack_u32(b, (uint32_t)i);
			dtk_pack_str(b, e->id);
			dtk_pack_str(b, c->ref.id);
			dtk_pack_str(b, c->note);
		}
		if (!opens && e->superseded_by.id && S_kept_ref(node, e->superseded_by.id, 0) &&
		    ++n)
			S_pack_ref(b, e, &e->superseded_by, DTK_SUM_SUPERSEDED_BY);
	}
	memcpy(b->ptr + at, &n, sizeof(n));
}

#define S_RETRACTED 1
#define S_SUPERSEDED 2
#define S_USED 4  /* used > 0 in the node file (the baseline) */
#define S_CITED 8 /* cited > 0 likewise */

/* Appends the entries sorted by id: their offsets from start, then each:
 * its id past the node's name and '-', its flags (S_*) and the id that
 * superseded it. */
static void S_pack_ids(struct dtk_buf *b, const struct dtk_node *node, size_t start)
{
	size_t i, at, plen = strlen(node->name) + 1;

	dtk_pack_u32(b, (uint32_t)node->n_by_id);
	at = b->len;
	for (i = 0; i < node->n_by_id; i++)
		dtk_pack_u32(b, 0);
	for (i = 0; i < node->n_by_id; i++) {
		const struct dtk_entry *e = node->by_id[i];
		uint32_t off = (uint32_t)(b->len - start);
		memcpy(b->ptr + at + i * sizeof(off), &off, sizeof(off));
		dtk_buf_puts(b, strlen(e->id) > plen ? e->id + plen : e->id);
		dtk_buf_putc(b, '\0');
		dtk_buf_putc(b, (char)((e->retracted ? S_RETRACTED : 0) |
		                       (e->superseded_by.id ? S_SUPERSEDED : 0) |
		                       (e->used > 0 ? S_USED : 0) | (e->cited > 0 ? S_CITED : 0)));
		if (e->superseded_by.id) {
			dtk_buf_puts(b, e->superseded_by.id);
			dtk_buf_putc(b, '\0');
		}
	}
}

void dtk_nodesum_candidates(struct dtk_md *md, const struct dtk_node *node, const struct dtk_kb *kb)
{
	const struct dtk_lang *L = kb->lang_en ? &dtk_lang_en : &dtk_lang_zh;
	size_t i, n = 0;

	for (i = 0; i < node->n_entries; i++) {
		const struct dtk_entry *e = &node->entries[i];
		struct dtk_md_slot s[] = {{"id", e->id, 0}, {"title", e->title, 1}};
		if (!dtk_entry_is_candidate(kb, e))
			continue;
		if (n++)
			dtk_md_text(md, L->sep);
		dtk_md_fill(md, L->candidate, s, 2);
	}
}

/* Appends the count of node's candidates and, with run, their text
 * rendered (NULL: none, or not made). */
static void S_pack_candidates(struct dtk_buf *b, const struct dtk_node *node,
                              const struct dtk_kb *kb, int run)
{
	struct dtk_md *md = NULL;
	char *r = NULL;
	size_t i, n = 0, len;

	for (i = 0; i < node->n_entries; i++)
		n += dtk_entry_is_candidate(kb, &node->entries[i]);
	if (n && run) {
		md = dtk_md_new_run();
		dtk_nodesum_candidates(md, node, kb);
		r = dtk_md_run_render(md, &len);
	}
	dtk_pack_u32(b, (uint32_t)n);
	dtk_pack_str(b, r);
	free(r);
	dtk_md_free(md);
}

void dtk_nodesum_pack(struct dtk_buf *b, const struct dtk_node *node, const struct dtk_kb *kb,
                      unsigned flags)
{
	size_t start = b->len, i;

	dtk_pack_u32(b, (uint32_t)kb->high_min_verified);
	dtk_pack_u32(b, kb->lang_en != 0);
	dtk_pack_u32(b, (uint32_t)node->bloom);
	dtk_pack_pos(b, node->name_pos);
	dtk_pack_str(b, node->stance);
	S_pack_counts(b, node);
	for (i = 0; i < node->n_entries; i++) /* the live high ids: counted above */
		if (dtk_entry_high(&node->entries[i]))
			dtk_pack_str(b, node->entries[i].id);
	S_pack_candidates(b, node, kb, (flags & DTK_NODESUM_RUN) != 0);
	S_pack_sources(b, node, kb, (flags & DTK_NODESUM_SOURCES) != 0);
	S_pack_links(b, node, 1);
	S_pack_links(b, node, 0);
	S_pack_ids(b, node, start);
}

/* ---- reading ---- */

const char *dtk_nodesum_str(const char **p)
{
	uint32_t len;
	const char *s;

	memcpy(&len, *p, sizeof(len));
	s = *p + sizeof(len);
	*p = s + len + 1;
	return s;
}

/* Skips n strings (pairs: 2n) of r, each not NULL; returns where they start. */
static const char *S_skip(struct dtk_rd *r, size_t n)
{
	const char *at = r->p;
	size_t i;

	for (i = 0; i < n && !r->bad; i++)
		r->bad |= !dtk_rd_str(r, NULL);
	return at;
}

static void S_read_opens(struct dtk_rd *r, struct dtk_arena *arena, struct dtk_node_sum *s)
{
	long n = dtk_rd_count(r, 16), i;
	struct dtk_sum_open *v = n > 0 ? dtk_arena_alloc(arena, (size_t)n * sizeof(*v)) : NULL;

	for (i = 0; i < n && !r->bad; i++) {
		v[i].index = dtk_rd_u32(r);
		v[i].id = dtk_rd_str(r, NULL);
		v[i].other = dtk_rd_str(r, NULL);
		v[i].note = dtk_rd_str(r, NULL);
		r->bad |= !v[i].id || !v[i].other || v[i].index >= s->n_entries;
	}
	s->opens = v;
	s->n_opens = n > 0 ? (size_t)n : 0;
}

static void S_read_refs(struct dtk_rd *r, struct dtk_arena *arena, struct dtk_node_sum *s)
{
	long n = dtk_rd_count(r, 26), i;
	struct dtk_sum_ref *v = n > 0 ? dtk_arena_alloc(arena, (size_t)n * sizeof(*v)) : NULL;

	for (i = 0; i < n && !r->bad; i++) {
		v[i].kind = (int)dtk_rd_u32(r);
		v[i].from_retired = (int)dtk_rd_u32(r);
		v[i].from = dtk_rd_str(r, NULL);
		v[i].id = dtk_rd_str(r, NULL);
		v[i].pos = dtk_rd_pos(r);
		r->bad |= !v[i].from || !v[i].id || v[i].kind < 0 ||
		          v[i].kind > DTK_SUM_SUPERSEDED_BY || v[i].from_retired < 0 ||
		          v[i].from_retired > 1;
	}
	s->refs = v;
	s->n_refs = n > 0 ? (size_t)n : 0;
}

/* Reads the NUL-terminated string at r->p; NULL (r bad) past the end. */
static const char *S_cstr(struct dtk_rd *r)
{
	const char *s = r->p, *nul = r->bad ? NULL : memchr(s, '\0', (size_t)(r->end - s));

	if (!nul) {
		r->bad = 1;
		return NULL;
	}
	r->p = nul + 1;
	return s;
}

/* Reads the entry at r into *e; returns its suffix (NULL: r bad). */
static const char *S_entry(struct dtk_rd *r, struct dtk_sum_entry *e)
{
	const char *suffix = S_cstr(r);
	unsigned char flags = 0;

	dtk_rd_get(r, &flags, 1);
	r->bad |= flags > (S_RETRACTED | S_SUPERSEDED | S_USED | S_CITED);
	e->retracted = (flags & S_RETRACTED) != 0;
	e->used = (flags & S_USED) != 0;
	e->cited = (flags & S_CITED) != 0;
	e->superseded_by = flags & S_SUPERSEDED ? S_cstr(r) : NULL;
	return r->bad ? NULL : suffix;
}

/* Checks the entries sorted by id: each where its offset says, in order. */
static void S_read_ids(struct dtk_rd *r, const char *blob, struct dtk_node_sum *s)
{
	long n = dtk_rd_count(r, 4 + 2), i;
	const char *prev = NULL, *suffix;
	struct dtk_sum_entry e;

	s->ids = r->p;
	s->n_ids = n > 0 ? (size_t)n : 0;
	if (n > 0 && !r->bad)
		r->p += (size_t)n * sizeof(uint32_t);
	for (i = 0; i < n && !r->bad; i++) {
		uint32_t off;
		memcpy(&off, s->ids + (size_t)i * sizeof(off), sizeof(off));
		r->bad |= off != (size_t)(r->p - blob);
		suffix = S_entry(r, &e);
		r->bad |= !suffix || (prev && strcmp(prev, suffix) >= 0);
		prev = suffix;
	}
}

const struct dtk_node_sum *dtk_nodesum_read(struct dtk_arena *arena, const char *blob, size_t len)
{
	struct dtk_node_sum *s = dtk_arena_alloc(arena, sizeof(*s));
	struct dtk_rd r = {blob, blob + len, 0};
	uint32_t bloom;
	size_t i;

	s->blob = blob;
	s->len = len;
	s->k = (int)dtk_rd_u32(&r);
	s->lang_en = (int)dtk_rd_u32(&r);
	bloom = dtk_rd_u32(&r);
	s->bloom = (enum dtk_bloom)bloom;
	s->name_pos = dtk_rd_pos(&r);
	s->stance = dtk_rd_str(&r, NULL);
	s->n_entries = dtk_rd_u32(&r);
	s->live = dtk_rd_u32(&r);
	s->high = dtk_rd_u32(&r);
	s->used = dtk_rd_u32(&r);
	s->cited = dtk_rd_u32(&r);
	s->closed = dtk_rd_u32(&r);
	s->earliest = (dtk_date)dtk_rd_u32(&r);
	s->latest = (dtk_date)dtk_rd_u32(&r);
	s->min_high = dtk_rd_u32(&r);
	r.bad |= bloom >= DTK_BLOOM_COUNT || s->lang_en > 1 || s->lang_en < 0 ||
	         s->live > s->n_entries || s->high > s->live || s->used > s->live ||
	         s->cited > s->live || s->closed > s->live;
	s->highs = S_skip(&r, s->high);
	s->n_cands = dtk_rd_u32(&r);
	s->run = dtk_rd_str(&r, NULL);
	s->run_len = s->run ? strlen(s->run) : 0;
	r.bad |= s->n_cands > s->live || (s->run && !s->n_cands);
	s->sources_upto = dtk_rd_u32(&r);
	s->sources_hash = (uint64_t)dtk_rd_i64(&r);
	s->n_sources = (size_t)dtk_rd_count(&r, 4);
	s->sources = r.p;
	if (!r.bad)
		r.p += s->n_sources * sizeof(uint32_t);
	for (i = 0; i < s->n_sources && !r.bad; i++) /* increasing, within upto */
		r.bad |= dtk_nodesum_source(s, i) >= s->sources_upto ||
		         (i && dtk_nodesum_source(s, i) <= dtk_nodesum_source(s, i - 1));
	S_read_opens(&r, arena, s);
	S_read_refs(&r, arena, s);
	S_read_ids(&r, blob, s);
	return r.bad || r.p != r.end || s->n_ids > s->n_entries ? NULL : s;
}

/* ---- look-ups ---- */

uint32_t dtk_nodesum_source(const struct dtk_node_sum *s, size_t i)
{
	uint32_t v;
	memcpy(&v, s->sources + i * sizeof(v), sizeof(v));
	return v;
}

int dtk_nodesum_sources_hold(const struct dtk_node_sum *s, const struct dtk_kb *kb)
{
	return kb->sources_ok && kb->source_prefix && s->sources_upto <= kb->n_sources &&
	       kb->source_prefix[s->sources_upto] == s->sources_hash;
}

int dtk_nodesum_find(const struct dtk_node_sum *s, const char *suffix, struct dtk_sum_entry *e)
{
	size_t lo = 0, hi = s->n_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t off;
		int cmp;
		memcpy(&off, s->ids + mid * sizeof(off), sizeof(off));
		cmp = strcmp(suffix, s->blob + off);
		if (!cmp) {
			struct dtk_rd r = {s->blob + off, s->blob + s->len, 0};
			return S_entry(&r, e) != NULL;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

const struct dtk_sum_open *dtk_nodesum_open(const struct dtk_node_sum *s, const char *id,
                                            const char *other)
{
	size_t i;

	for (i = 0; i < s->n_opens; i++)
		if (!strcmp(s->opens[i].id, id) && !strcmp(s->opens[i].other, other))
			return &s->opens[i];
	return NULL;
}

const struct dtk_node *dtk_kb_sum_entry(const struct dtk_kb *kb, const char *id,
                                        struct dtk_sum_entry *e)
{
	const char *suffix;
	const struct dtk_node *node = dtk_kb_id_node(kb, id, &suffix);

	return node && node->sum && dtk_nodesum_find(node->sum, suffix, e) ? node : NULL;
}
