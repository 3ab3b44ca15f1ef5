/* model.c: look-ups in the model: the hash tables of sources and nodes, and
 * the derived notions the schema needs (see model.h). Below kb.c and
 * schema.c, which both use it. */
#include "dtk/model.h"

#include "dtk/dtk.h"
#include "dtk/nodesum.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const dtk_bloom_names[DTK_BLOOM_COUNT + 1] = {
        "remember", "understand", "apply", "analyze", "evaluate", "create", NULL};
const char *const dtk_confidence_names[DTK_CONF_COUNT + 1] = {"high", "medium", "low", NULL};
#define S_KEY(name, key) key,
const char *const dtk_entry_keys[DTK_ENTRY_KEYS + 1] = {DTK_ENTRY_KEY_TABLE(S_KEY) NULL};
const char *const dtk_node_keys[] = {"*node", "*bloom", "stance", "*insights", NULL};
const char *const dtk_source_keys[] = {"*id", "*title", "url", "read", "revised", NULL};

/* FNV-1a over s and its NUL, from h. */
static uint64_t S_fnv(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	} while (*s++);
	return h;
}

/* Returns h with every bit depending on every bit of it (splitmix64's finish). */
static uint64_t S_mix(uint64_t h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Returns the hash of the string s the tables below are kept by. */
static uint64_t S_hash(const char *s)
{
	return S_mix(S_fnv(0xcbf29ce484222325ULL, s));
}

/* Returns the slot of table t (mask + 1 slots) that holds the struct named
 * name (hashed to h), or the empty slot where it would go. A slot keeps the
 * whole hash, so only a match reads the name. */
static struct dtk_slot *S_slot(struct dtk_slot *t, size_t mask, const char *name, uint64_t h)
{
	size_t i = (size_t)h & mask;

	while (t[i].item && (t[i].hash != h || strcmp(*(const char *const *)t[i].item, name)))
		i = (i + 1) & mask;
	return &t[i];
}

/* Returns a new empty table for n structs, at most 70% full (a probe
 * compares whole hashes, so that a full table costs few string compares; at
 * most half full, 33,000 sources took 2 MB); sets *mask. */
static struct dtk_slot *S_table_new(size_t n, size_t *mask)
{
	size_t size = 16;

	while (size / 10 * 7 < n)
		size *= 2;
	*mask = size - 1;
	return dtk_xcalloc(size, sizeof(struct dtk_slot));
}

/* Builds the table of sources by id (before the node files are read: their
 * source ids point to the sources' own strings, found there millions of
 * times on a large base) and reports repeated ids. */
void dtk_model_index_sources(struct dtk_kb *kb, int hash, struct dtk_diags *d)
{
	size_t i;
	uint64_t *prefix =
	        hash ? dtk_arena_alloc(kb->arena, (kb->n_sources + 1) * sizeof(*prefix)) : NULL;

	kb->source_slots = S_table_new(kb->n_sources, &kb->source_mask);
	if (prefix)
		prefix[0] = 0x9e3779b97f4a7c15ULL;
	kb->source_prefix = prefix;
	for (i = 0; i < kb->n_sources; i++) {
		struct dtk_source *s = &kb->sources[i];
		size_t n = strlen(s->id) + 1;
		uint64_t h = S_hash(s->id);
		struct dtk_slot *slot = S_slot(kb->source_slots, kb->source_mask, s->id, h);
		const struct dtk_source *first = slot->item;

		if (prefix) { /* its NUL too: ids apart */
			uint64_t key[2] = {kb->source_key[0] ^ prefix[i], kb->source_key[1]};
			prefix[i + 1] = dtk_siphash(key, s->id, n);
		}
		if (first) {
			dtk_diags_add(d, "insights/_sources.yaml", s->pos.line, s->pos.col,
			              "duplicate source id '%s' (first at line %d)", s->id,
			              first->pos.line);
		} else {
			slot->hash = h;
			slot->item = s;
		}
	}
}

/* Builds the table of nodes by name (file names: each is there once). */
void dtk_model_index_nodes(struct dtk_kb *kb)
{
	size_t i;

	kb->node_slots = S_table_new(kb->n_nodes, &kb->node_mask);
	for (i = 0; i < kb->n_nodes; i++) {
		uint64_t h = S_hash(kb->nodes[i]->name);
		struct dtk_slot *slot =
		        S_slot(kb->node_slots, kb->node_mask, kb->nodes[i]->name, h);
		slot->hash = h;
		slot->item = kb->nodes[i];
	}
}

const struct dtk_source *dtk_kb_source(const struct dtk_kb *kb, const char *id)
{
	return kb->source_slots && id
	               ? S_slot(kb->source_slots, kb->source_mask, id, S_hash(id))->item
	               : NULL;
}

struct dtk_node *dtk_kb_node(const struct dtk_kb *kb, const char *name)
{
	const struct dtk_slot *slot;

	if (!kb->node_slots)
		return NULL;
	slot = S_slot(kb->node_slots, kb->node_mask, name, S_hash(name));
	return (struct dtk_node *)slot->item; /* the kb's own, as kb->nodes */
}

dtk_date dtk_entry_fresh(const struct dtk_entry *e)
{
	dtk_date f = e->reviewed ? e->reviewed : e->created;
	return e->revised > f ? e->revised : f; /* a revision is a review */
}

int dtk_entry_is_stale(const struct dtk_kb *kb, const struct dtk_entry *e, dtk_date d)
{
	return dtk_date_add_months(dtk_entry_fresh(e), kb->stale_after_months) < d;
}

int dtk_entry_retired(const struct dtk_entry *e)
{
	return e->superseded_by.id || e->retracted;
}

int dtk_entry_high(const struct dtk_entry *e)
{
	return e->confidence == DTK_CONF_HIGH && !dtk_entry_retired(e);
}

size_t dtk_node_live(const struct dtk_node *node)
{
	size_t i, n = 0;

	if (node->sum)
		return node->sum->live;
	for (i = 0; i < node->n_entries; i++)
		n += !dtk_entry_retired(&node->entries[i]);
	return n;
}

int dtk_node_has_high(const struct dtk_node *node)
{
	size_t i;

	if (node->sum)
		return node->sum->high > 0;
	for (i = 0; i < node->n_entries; i++)
		if (dtk_entry_high(&node->entries[i]))
			return 1;
	return 0;
}

int dtk_entry_verified_for_high(const struct dtk_kb *kb, const struct dtk_entry *e)
{
	return e->n_verified_by >= (size_t)kb->high_min_verified;
}

int dtk_entry_is_candidate(const struct dtk_kb *kb, const struct dtk_entry *e)
{
	return !dtk_entry_retired(e) && e->confidence != DTK_CONF_HIGH &&
	       e->n_verified_by == (size_t)(kb->high_min_verified - 1) && kb->high_min_verified > 1;
}

/* Returns 1 when s[0..n) is a fresh id's suffix (dtk_entry_id_birth). */
static int S_fresh_suffix(const char *s, size_t n)
{
	size_t i, digits = 0;

	if (n != DTK_ID_SUFFIX_LEN)
		return 0;
	for (i = 0; i < n; i++) {
		if (!s[i] || !strchr(DTK_ID_ALPHABET, s[i]))
			return 0;
		digits += s[i] >= '0' && s[i] <= '9';
	}
	return digits > 0 && digits < n;
}

int dtk_entry_id_split(const char *id, size_t *node_len)
{
	const char *dash = strrchr(id, '-');
	size_t n, plen;
	char node[256];

	if (!dash || dash == id)
		return 0;
	n = strlen(dash + 1);
	plen = (size_t)(dash - id);
	if (plen >= sizeof(node) || !((n >= 3 && n <= 9 && strspn(dash + 1, "0123456789") == n) ||
	                              S_fresh_suffix(dash + 1, n)))
		return 0;
	memcpy(node, id, plen);
	node[plen] = '\0';
	if (!dtk_is_name(node))
		return 0;
	if (node_len)
		*node_len = plen;
	return 1;
}

char *dtk_entry_id_birth(char *buf, size_t size, const char *node, const char *title,
                         const char *claim, const char *source, unsigned nonce)
{
	char suffix[DTK_ID_SUFFIX_LEN + 1];
	uint64_t h;
	int i;

	do {
		char n[16];
		snprintf(n, sizeof(n), "%u", nonce++);
		h = S_mix(
		        S_fnv(S_fnv(S_fnv(S_fnv(S_fnv(0xcbf29ce484222325ULL, node), title), claim),
		                    source),
		              n));
		for (i = 0; i < DTK_ID_SUFFIX_LEN; i++, h >>= 5)
			suffix[i] = DTK_ID_ALPHABET[h & 31];
		suffix[i] = '\0';
	} while (!S_fresh_suffix(suffix, DTK_ID_SUFFIX_LEN));
	snprintf(buf, size, "%s-%s", node, suffix);
	return buf;
}

/* Binary search of v (n pointers to structs whose first member is their id,
 * sorted by it) for key; returns the struct or NULL. */
static int S_id_cmp(const void *id, const void *e)
{
	return strcmp(id, (*(struct dtk_entry *const *)e)->id);
}

struct dtk_entry *dtk_node_entry(const struct dtk_node *node, const char *id)
{
	struct dtk_entry **found =
	        node->n_by_id ? bsearch(id, node->by_id, node->n_by_id, sizeof(*found), S_id_cmp)
	                      : NULL;
	return found ? *found : NULL;
}

struct dtk_node *dtk_kb_id_node(const struct dtk_kb *kb, const char *id, const char **suffix)
{
	char name[256];
	size_t plen;

	if (!dtk_entry_id_split(id, &plen) || plen >= sizeof(name))
		return NULL;
	memcpy(name, id, plen);
	name[plen] = '\0';
	*suffix = id + plen + 1;
	return dtk_kb_node(kb, name);
}

long dtk_kb_uses(const struct dtk_kb *kb, const char *id, int cited)
{
	size_t lo = 0, hi = kb->n_use_counts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dtk_use_count *u = &kb->use_counts[mid];
		int cmp = cited != u->cited ? cited - u->cited : strcmp(id, u->id);
		if (!cmp)
			return u->n;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

struct dtk_entry *dtk_kb_entry(const struct dtk_kb *kb, const char *id)
{
	const char *suffix;
	const struct dtk_node *node = dtk_kb_id_node(kb, id, &suffix);

	return node ? dtk_node_entry(node, id) : NULL;
}

size_t dtk_text_limit(const char *key)
{
	if (!strcmp(key, "title"))
		return DTK_MAX_TITLE_CHARS;
	if (!strcmp(key, "claim") || !strcmp(key, "stance") || !strcmp(key, "note") ||
	    !strcmp(key, "retracted_reason"))
		return DTK_MAX_PROSE_CHARS;
	return 0;
}

size_t dtk_utf8_chars(const char *s, size_t len)
{
	size_t i, n = 0;
	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}
