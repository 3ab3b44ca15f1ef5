/* similar.c: BM25 over folded words and character bigrams (similar.h); the
 * terms of entries cut and packed for the node cache; the ranking, which
 * reads the index of terms (similar_index.c) for the nodes it holds. */
#include "dtk/similar.h"

#include "dtk/kb.h"
#include "dtk/linebreak.h"
#include "dtk/fold.h"
#include "similar_int.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>

/* BM25's constants, as Lucene and most engines take them. */
#define S_K1 1.2
#define S_B 0.75
/* Entries a thread takes at the least: fewer are compared on one. */
#define S_PER_THREAD 4096

int dtk_similar_live(const struct dtk_entry *e)
{
	return !dtk_entry_retired(e); /* superseded and retracted entries are not */
}

/* ---- terms ---- */

enum { C_SEP = 1, C_WORD, C_MARK, C_WIDE };

static int S_compute_class(int32_t cp)
{
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC:
	case UTF8PROC_CATEGORY_ME: return C_MARK;
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_NO: return dtk_linebreak_is_wide(cp) ? C_WIDE : C_WORD;
	default: return C_SEP;
	}
}

static int S_class(int32_t cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') ||
		                       (cp >= 'A' && cp <= 'Z')
		               ? C_WORD
		               : C_SEP;
	if (cp >= 0x4E00 && cp <= 0x9FFF)
		return C_WIDE;
	return S_compute_class(cp);
}

/* A step of FNV-1a over code points, and the final mix (splitmix64). */
static uint64_t S_mix(uint64_t h, uint32_t cp)
{
	return (h ^ cp) * 0x100000001b3ull;
}

static uint64_t S_final(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h ? h : 1; /* 0 marks an empty slot */
}

#define S_SEED 0xcbf29ce484222325ull

/* Terms are compared by 32 bits of their hash (the node cache keeps them so):
 * never 0, which marks an empty slot. */
struct terms {
	uint32_t *v;
	size_t n, cap;
};

/* ---- the glossary: terms that stand for another (similar_terms.c) ---- */

#define S_GLOSS_SLOTS 1024 /* a power of two, over twice the glossary's terms */
static uint64_t S_gloss_key[S_GLOSS_SLOTS], S_gloss_val[S_GLOSS_SLOTS];
static pthread_once_t S_gloss_once = PTHREAD_ONCE_INIT;

static uint64_t S_word_hash(const uint32_t *w, size_t n);
static size_t S_stem(const uint32_t *w, size_t n);

static void S_gloss_add(uint64_t key, uint64_t val)
{
	size_t i = (size_t)key & (S_GLOSS_SLOTS - 1);
	while (S_gloss_key[i] && S_gloss_key[i] != key)
		i = (i + 1) & (S_GLOSS_SLOTS - 1);
	if (!S_gloss_key[i]) { /* the first row naming a word decides */
		S_gloss_key[i] = key;
		S_gloss_val[i] = val;
	}
}

static void S_gloss_build(void)
{
	size_t r, k, n;
	for (r = 0; dtk_similar_glossary[r][0]; r++) {
		const char *zh = dtk_similar_glossary[r][0];
		utf8proc_int32_t a = 0, b = 0;
		utf8proc_ssize_t la = utf8proc_iterate((const utf8proc_uint8_t *)zh, -1, &a);
		uint64_t val = S_final(S_mix(S_SEED, (uint32_t)r) ^ 'g');
		uint32_t w[64];
		if (la > 0)
			utf8proc_iterate((const utf8proc_uint8_t *)zh + la, -1, &b);
		S_gloss_add(S_final(S_mix(S_mix(S_SEED, (uint32_t)a), (uint32_t)b) ^ 'b'), val);
		for (k = 1; k < 4 && dtk_similar_glossary[r][k]; k++) {
			const char *en = dtk_similar_glossary[r][k];
			for (n = 0; en[n] && n < 64; n++)
				w[n] = (unsigned char)en[n];
			S_gloss_add(S_final(S_word_hash(w, S_stem(w, n)) ^ 'w'), val);
		}
	}
}

/* Returns what term h (mixed) stands for: h, or its glossary row's term. */
static uint64_t S_gloss(uint64_t h)
{
	size_t i = (size_t)h & (S_GLOSS_SLOTS - 1);
	while (S_gloss_key[i]) {
		if (S_gloss_key[i] == h)
			return S_gloss_val[i];
		i = (i + 1) & (S_GLOSS_SLOTS - 1);
	}
	return h;
}

static void S_put(struct terms *t, uint64_t h)
{
	if (t->n == t->cap)
		dtk_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	h = S_gloss(S_final(h));
	t->v[t->n++] = (uint32_t)h ? (uint32_t)h : 1;
}

/* ---- words ---- */

#define S_WORD_MAX 64 /* longer words are not stemmed */

static uint64_t S_word_hash(const uint32_t *w, size_t n)
{
	uint64_t h = S_SEED;
	size_t i;
	for (i = 0; i < n; i++)
		h = S_mix(h, w[i]);
	return h;
}

static int S_ends(const uint32_t *w, size_t n, const char *suf)
{
	size_t k = strlen(suf), i;
	if (n < k)
		return 0;
	for (i = 0; i < k; i++)
		if (w[n - k + i] != (unsigned char)suf[i])
			return 0;
	return 1;
}

/* Returns the length of the stem of the word w[0..n) of lowercase ASCII
 * letters (n itself for other words): a few English endings cut (plurals,
 * -ing, -ed, -ly, -ation, -ism), then at most 7 letters, so that "trains",
 * "training" and "trained" are one term. */
static size_t S_stem(const uint32_t *w, size_t n)
{
	size_t i;
	static const char *const ends[] = {"ations", "ation", "ings", "ing", "isms", "ism", "ies",
	                                   "ers",    "er",    "ed",   "ly",  "es",   "s"};
	if (n < 4 || n > S_WORD_MAX)
		return n;
	for (i = 0; i < n; i++)
		if (w[i] < 'a' || w[i] > 'z')
			return n;
	if (n <= 7 && !strchr("sgmdyr", (int)w[n - 1]))
		return n; /* no ending to cut, nothing to shorten */
	for (i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t k = strlen(ends[i]);
		if (n >= k + 3 && S_ends(w, n, ends[i]) && !(k == 1 && S_ends(w, n, "ss"))) {
			n -= k;
			break;
		}
	}
	return n > 7 ? 7 : n;
}

/* Appends the terms of word w[0..n) (hash h when it is longer than
 * S_WORD_MAX): the word, and its stem when that is shorter. */
static void S_put_word(struct terms *t, const uint32_t *w, size_t n, uint64_t h)
{
	size_t k;
	if (n > S_WORD_MAX) {
		S_put(t, h ^ 'w');
		return;
	}
	S_put(t, S_word_hash(w, n) ^ 'w');
	if ((k = S_stem(w, n)) < n)
		S_put(t, S_word_hash(w, k) ^ 'w');
}

/*
 * Appends the terms of s[0..len) to t: its words, and the bigrams of its
 * runs of wide characters (a run of one: the character). Sets *same (when
 * not NULL) to a hash of its folded letters, digits and marks in order.
 * Returns 0, or -1 with the error set when s is not UTF-8.
 */
static int S_terms(struct terms *t, const char *s, uint64_t *same)
{
	size_t len, i = 0, run = 0;
	char *f = dtk_fold(s, strlen(s), &len, NULL);
	uint64_t word = S_SEED, ex = S_SEED;
	uint32_t prev = 0, w[S_WORD_MAX];
	size_t wn = 0;
	int in_word = 0;

	if (!f)
		return -1;
	pthread_once(&S_gloss_once, S_gloss_build);
	while (i <= len) {
		utf8proc_int32_t cp = 0;
		int c = C_SEP;
		if (i < len && (unsigned char)f[i] < 0x80) {
			cp = (unsigned char)f[i++];
			c = S_class(cp);
		} else if (i < len) {
			utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)f + i,
			                                      (utf8proc_ssize_t)(len - i), &cp);
			i += k > 0 ? (size_t)k : 1;
			c = k > 0 ? S_class(cp) : C_SEP;
		} else {
			i++; /* the end: closes what is open */
		}
		if (c == C_MARK && !in_word && !run)
			c = C_SEP; /* a mark on nothing */
		if (c != C_SEP)
			ex = S_mix(ex, (uint32_t)cp);
		if (c == C_MARK) {
			if (in_word) {
				word = S_mix(word, (uint32_t)cp);
				if (wn++ < S_WORD_MAX)
					w[wn - 1] = (uint32_t)cp;
			} else
				prev = (uint32_t)S_mix(prev, (uint32_t)cp);
			continue;
		}
		if (in_word && c != C_WORD) {
			S_put_word(t, w, wn, word);
			in_word = 0;
			word = S_SEED;
			wn = 0;
		}
		if (run && c != C_WIDE) {
			if (run == 1)
				S_put(t, S_mix(S_SEED, prev) ^ 'u');
			run = 0;
		}
		if (c == C_WORD) {
			in_word = 1;
			word = S_mix(word, (uint32_t)cp);
			if (wn++ < S_WORD_MAX)
				w[wn - 1] = (uint32_t)cp;
		} else if (c == C_WIDE) {
			if (run)
				S_put(t, S_mix(S_mix(S_SEED, prev), (uint32_t)cp) ^ 'b');
			prev = (uint32_t)cp;
			run++;
		}
	}
	if (same)
		*same = ex;
	free(f);
	return 0;
}

/* ---- the terms of a node's entries, as the node cache keeps them ---- */

/* Appends an entry's terms t and claim hash same to b: the count of terms
 * (32 bits), same (64 bits), then each term (32 bits). */
static void S_pack_entry(struct dtk_buf *b, const struct terms *t, uint64_t same)
{
	uint32_t n = (uint32_t)t->n;
	dtk_buf_put(b, (const char *)&n, sizeof(n));
	dtk_buf_put(b, (const char *)&same, sizeof(same));
	dtk_buf_put(b, (const char *)t->v, t->n * sizeof(*t->v));
}

/* Cuts entry e's title and claim into t (emptied first), its claim's hash
 * into *same. Returns 0, or -1 with the error set when a text is not UTF-8. */
static int S_entry_terms(struct terms *t, const struct dtk_entry *e, uint64_t *same)
{
	t->n = 0;
	if (e->title && S_terms(t, e->title, NULL) < 0)
		return -1;
	return S_terms(t, e->claim ? e->claim : "", same);
}

int dtk_similar_pack(struct dtk_buf *b, const struct dtk_node *node)
{
	struct terms t = {NULL, 0, 0};
	uint64_t same = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < node->n_entries && rc == 0; i++) {
		rc = S_entry_terms(&t, &node->entries[i], &same);
		if (rc == 0)
			S_pack_entry(b, &t, same);
	}
	free(t.v);
	return rc;
}

int dtk_similar_unpack_entry(const char *s, size_t len, size_t *at, const char **v, size_t *n,
                             uint64_t *same)
{
	if (len - *at < 12)
		return -1;
	*n = S_u32_at(s + *at);
	memcpy(same, s + *at + 4, sizeof(*same));
	*at += 12;
	if ((len - *at) / 4 < *n)
		return -1;
	*v = s + *at;
	*at += *n * 4;
	return 0;
}

/* ---- the query ---- */

/* The base's own glossary (_glossary.yaml) as a map of terms: each term of
 * an item's words to one term of the item (open addressing, 0 empty). */
struct gmap {
	uint32_t *keys, *vals;
	size_t mask;
};

struct query {
	struct gmap *gm; /* NULL: the base has no glossary */
	uint32_t *keys;  /* open addressing: mask + 1 slots, 0 empty */
	uint32_t *slot_term;
	size_t mask;
	uint32_t *qtf; /* per distinct term */
	size_t n;      /* distinct terms */
	size_t len;    /* terms in all */
	uint64_t same;
};

/* Returns the index of term h in q, or -1. */
static long S_find(const struct query *q, uint32_t h)
{
	size_t i = (size_t)h & q->mask;
	while (q->keys[i]) {
		if (q->keys[i] == h)
			return q->slot_term[i];
		i = (i + 1) & q->mask;
	}
	return -1;
}

/* Returns the term h stands for in gm: h, or its item's. */
static uint32_t S_gmap(const struct gmap *gm, uint32_t h)
{
	size_t i;
	if (!gm)
		return h;
	for (i = h & gm->mask; gm->keys[i]; i = (i + 1) & gm->mask)
		if (gm->keys[i] == h)
			return gm->vals[i];
	return h;
}

/* Returns the map of kb's glossary (S_gmap_free), or NULL when it has none
 * (or kb is NULL). Each word of an item is cut into terms as entries are;
 * every term stands for the item's (a hash of its id); the first item
 * naming a term decides. */
static struct gmap *S_gmap_new(const struct dtk_kb *kb)
{
	struct gmap *gm;
	struct terms t = {NULL, 0, 0};
	size_t i, k, j, n = 0;

	if (!kb || !kb->n_glossary)
		return NULL;
	for (i = 0; i < kb->n_glossary; i++)
		n += kb->glossary[i].n_terms;
	gm = dtk_xcalloc(1, sizeof(*gm));
	for (gm->mask = 15; gm->mask + 1 < 8 * n; gm->mask = gm->mask * 2 + 1)
		;
	gm->keys = dtk_xcalloc(gm->mask + 1, sizeof(*gm->keys));
	gm->vals = dtk_xcalloc(gm->mask + 1, sizeof(*gm->vals));
	for (i = 0; i < kb->n_glossary; i++) {
		const char *id = kb->glossary[i].id;
		uint64_t h = S_SEED;
		uint32_t val;
		for (k = 0; id[k]; k++)
			h = S_mix(h, (unsigned char)id[k]);
		val = (uint32_t)S_final(h ^ 'G');
		val = val ? val : 1;
		for (k = 0; k < kb->glossary[i].n_terms; k++) {
			t.n = 0;
			if (S_terms(&t, kb->glossary[i].terms[k], NULL) < 0)
				continue; /* the schema took UTF-8 only */
			for (j = 0; j < t.n; j++) {
				size_t s = t.v[j] & gm->mask;
				while (gm->keys[s] && gm->keys[s] != t.v[j])
					s = (s + 1) & gm->mask;
				if (!gm->keys[s]) {
					gm->keys[s] = t.v[j];
					gm->vals[s] = val;
				}
			}
		}
	}
	free(t.v);
	return gm;
}

static void S_gmap_free(struct gmap *gm)
{
	if (!gm)
		return;
	free(gm->keys);
	free(gm->vals);
	free(gm);
}

/* Sets q to the terms t (mapped by kb's glossary: kb may be NULL) and the
 * hash same of its claim. */
static void S_query_init(struct query *q, struct terms *t, uint64_t same, const struct dtk_kb *kb)
{
	size_t i, k;

	memset(q, 0, sizeof(*q));
	q->gm = S_gmap_new(kb);
	for (i = 0; q->gm && i < t->n; i++)
		t->v[i] = S_gmap(q->gm, t->v[i]);
	for (q->mask = 15; q->mask + 1 < 2 * t->n; q->mask = q->mask * 2 + 1)
		;
	q->keys = dtk_xcalloc(q->mask + 1, sizeof(*q->keys));
	q->slot_term = dtk_xcalloc(q->mask + 1, sizeof(*q->slot_term));
	q->qtf = dtk_xcalloc(t->n + 1, sizeof(*q->qtf));
	q->len = t->n;
	q->same = same;
	for (i = 0; i < t->n; i++) {
		long at = S_find(q, t->v[i]);
		if (at >= 0) {
			q->qtf[at]++;
			continue;
		}
		for (k = (size_t)t->v[i] & q->mask; q->keys[k]; k = (k + 1) & q->mask)
			;
		q->keys[k] = t->v[i];
		q->slot_term[k] = (uint32_t)q->n;
		q->qtf[q->n++] = 1;
	}
}

static void S_query_release(struct query *q)
{
	S_gmap_free(q->gm);
	free(q->keys);
	free(q->slot_term);
	free(q->qtf);
}

/* ---- the pass over the entries ---- */

/* An entry sharing a term with the query: where its counts are. */
struct rec {
	uint32_t doc, len, off, cnt;
	int same;
};

/* What one thread gathers over the entries of kb's nodes [from, to) that
 * first (by node) numbers in docs. */
struct part {
	const struct query *q;
	const struct dtk_entry *const *docs;
	size_t n_docs;
	const struct dtk_kb *kb;
	const size_t *first; /* the number of a node's first doc; SIZE_MAX: none */
	/* a node the index of terms holds: NULL, its postings read; else the
	 * node unpacked whole (dtk_kb_node_whole), its entries' terms cut */
	const struct dtk_node *const *wholes;
	size_t from, to;
	uint32_t *tf, *touched; /* per distinct term of q */
	struct rec *recs;
	size_t n_recs, cap_recs;
	uint32_t *pairs; /* (term, tf) */
	size_t n_pairs, cap_pairs;
	uint32_t *df;
	uint64_t total_len;
	int rc;
};

/* Counts doc d into p: its terms v[0..n) (32 bits each) and its claim's
 * hash same. */
static void S_count(struct part *p, size_t d, const char *v, size_t n, uint64_t same)
{
	const struct query *q = p->q;
	size_t i, nt = 0;

	p->total_len += n;
	for (i = 0; i < n; i++) {
		long at = S_find(q, S_gmap(q->gm, S_u32_at(v + 4 * i)));
		if (at >= 0 && !p->tf[at]++)
			p->touched[nt++] = (uint32_t)at;
	}
	if (!nt && same != q->same)
		return;
	for (i = 1; i < nt; i++) { /* in the query's order, as the index gives them */
		uint32_t t = p->touched[i];
		size_t k = i;
		for (; k > 0 && p->touched[k - 1] > t; k--)
			p->touched[k] = p->touched[k - 1];
		p->touched[k] = t;
	}
	if (p->n_recs == p->cap_recs)
		dtk_grow((void **)&p->recs, &p->cap_recs, p->n_recs + 1, sizeof(*p->recs));
	if (p->n_pairs + 2 * nt > p->cap_pairs)
		dtk_grow((void **)&p->pairs, &p->cap_pairs, p->n_pairs + 2 * nt, sizeof(*p->pairs));
	p->recs[p->n_recs++] = (struct rec){(uint32_t)d, (uint32_t)n, (uint32_t)p->n_pairs,
	                                    (uint32_t)nt, same == q->same};
	for (i = 0; i < nt; i++) {
		p->pairs[p->n_pairs++] = p->touched[i];
		p->pairs[p->n_pairs++] = p->tf[p->touched[i]];
		p->df[p->touched[i]]++;
		p->tf[p->touched[i]] = 0;
	}
}

/* Counts the entries of node (packed terms s[0..len)) that p compares. Returns 0,
 * or -1 with the error set when s does not hold node's entries. */
static int S_scan_node(struct part *p, const struct dtk_node *node, size_t d, const char *s,
                       size_t len)
{
	size_t i, at = 0, n;
	const char *v;
	uint64_t same;

	for (i = 0; i < node->n_entries; i++) {
		if (dtk_similar_unpack_entry(s, len, &at, &v, &n, &same) < 0)
			break;
		if (d < p->n_docs && p->docs[d] == &node->entries[i])
			S_count(p, d++, v, n, same);
	}
	if (i < node->n_entries || at != len)
		return dtk_error("the terms of node '%s' do not match its entries", node->name);
	return 0;
}

/* Counts the entries of p's nodes, their terms as the base holds them, or
 * cut now (a base loaded without them; a node the index of terms holds,
 * unpacked whole, or else read from the index: left). */
static void S_scan(void *arg, int k)
{
	struct part *p = (struct part *)arg + k;
	struct dtk_buf b = DTK_BUF_INIT;
	const char *s;
	size_t i, len;

	p->tf = dtk_xcalloc(p->q->n + 1, sizeof(*p->tf));
	p->touched = dtk_xcalloc(p->q->n + 1, sizeof(*p->touched));
	p->df = dtk_xcalloc(p->q->n + 1, sizeof(*p->df));
	for (i = p->from; i < p->to && p->rc == 0; i++) {
		const struct dtk_node *node = p->kb->nodes[i];
		if (dtk_kb_node_held(node))
			node = p->wholes ? p->wholes[i] : NULL;
		if (p->first[i] == SIZE_MAX || !node)
			continue;
		if (!node->terms) {
			b.len = 0;
			p->rc = dtk_similar_pack(&b, node);
			s = b.ptr ? b.ptr : "";
			len = b.len;
		} else {
			p->rc = dtk_kb_node_terms(p->kb, node, &b, &s, &len);
		}
		if (p->rc == 0)
			p->rc = S_scan_node(p, node, p->first[i], s, len);
	}
	dtk_buf_release(&b);
	free(p->tf);
	free(p->touched);
}

/* Returns BM25's weight of a term met tf times in a text of len terms. */
static double S_tfw(double tf, double len, double avg)
{
	return tf * (S_K1 + 1) / (tf + S_K1 * (1 - S_B + S_B * len / avg));
}

/* Orders hits best first: same claims, then by score, then listing order. */
static int S_hit_cmp(const void *pa, const void *pb)
{
	const struct dtk_similar_hit *a = pa, *b = pb;
	if (a->same != b->same)
		return b->same - a->same;
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Collects the live entries q compares (every node, or q->node). Returns the
 * malloc'd array, *n its length; sets first[i], when first is not NULL, to
 * the index in it of node i's first entry (SIZE_MAX: none). A node kb's
 * index of terms holds as it is gives the live entries of wholes[i] when
 * wholes has it; else, with dn, unless q->skip is in it, its docs are read
 * from the index: its live entries (first SIZE_MAX: not scanned), or, for a
 * node held as its summary, places for them, NULL; each doc set in dn (by
 * the index's entry, UINT32_MAX where unset). */
static const struct dtk_entry **S_docs(const struct dtk_kb *kb, const struct dtk_similar_query *q,
                                       size_t *n, size_t *first,
                                       const struct dtk_node *const *wholes, uint32_t *dn)
{
	const struct dtk_entry **v = NULL;
	const char *suffix;
	size_t i, j, k, cap = 0;

	*n = 0;
	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = kb->nodes[i];
		const struct ix_node *x;
		size_t had = *n;
		if (first)
			first[i] = SIZE_MAX;
		if (q->node && strcmp(node->name, q->node))
			continue;
		if (wholes && wholes[i]) {
			node = wholes[i];
		} else if (dn && (x = dtk_similar_index_held(kb, node)) != NULL &&
		           !(q->skip && dtk_kb_id_node(kb, q->skip, &suffix) == node)) {
			/* read from the index: a held node's places (NULL), a
			 * whole node's live entries */
			int held = dtk_kb_node_held(node);
			dtk_grow((void **)&v, &cap, *n + x->n + 1, sizeof(*v));
			for (j = 0, k = 0; !held && j < node->n_entries; j++)
				if (dtk_similar_live(&node->entries[j]) && k < x->n)
					v[*n + k++] = &node->entries[j];
			for (; k < x->n; k++)
				v[*n + k] = NULL;
			for (j = 0; j < x->n; j++)
				dn[x->first + j] = (uint32_t)(*n + j);
			*n += x->n;
			if (first && held && x->n)
				first[i] = had; /* (a whole node's: none, not scanned) */
			continue;
		}
		for (j = 0; j < node->n_entries; j++) {
			const struct dtk_entry *e = &node->entries[j];
			if (!dtk_similar_live(e) || (q->skip && !strcmp(e->id, q->skip)))
				continue;
			if (*n == cap)
				dtk_grow((void **)&v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = e;
		}
		if (first && *n > had)
			first[i] = had;
	}
	return v;
}

/* BM25's figures of a query over the docs compared. */
struct weights {
	double *idf; /* per distinct term of the query */
	double avg, self;
};

/* Sets w for query qq over n_docs docs, the counts of parts (df, total_len). */
static void S_weights(struct weights *w, const struct query *qq, const struct part *parts,
                      int n_parts, size_t n_docs)
{
	uint64_t total = 0;
	size_t i;
	int p;

	for (p = 0; p < n_parts; p++)
		total += parts[p].total_len;
	w->idf = dtk_xcalloc(qq->n + 1, sizeof(*w->idf));
	w->avg = n_docs && total ? (double)total / (double)n_docs : (double)(qq->len ? qq->len : 1);
	w->self = 0;
	for (i = 0; i < qq->n; i++) {
		double df = 0;
		for (p = 0; p < n_parts; p++)
			df += parts[p].df[i];
		w->idf[i] = log(1 + ((double)n_docs - df + 0.5) / (df + 0.5));
		w->self += w->idf[i] * S_tfw(qq->qtf[i], (double)qq->len, w->avg) *
		           S_tfw(qq->qtf[i], (double)qq->len, w->avg);
	}
}

/* Returns what term i of qq met tf times in a doc of len terms adds to its
 * sum (summed over its terms in the query's order). */
static double S_term_score(const struct weights *w, const struct query *qq, size_t i, uint32_t tf,
                           uint32_t len)
{
	return w->idf[i] * S_tfw(tf, len, w->avg) * S_tfw(qq->qtf[i], (double)qq->len, w->avg);
}

/* Appends the hit of doc d (entry e, may be NULL until S_fill), whose sum
 * is s over len terms, to *out (*n, *cap) when q wants it. */
static void S_keep(struct dtk_similar_hit **out, size_t *n, size_t *cap, const struct weights *w,
                   const struct query *qq, const struct dtk_similar_query *q,
                   const struct dtk_entry *e, double s, uint32_t len, int same, size_t d)
{
	s = w->self > 0 ? s / w->self : 0;
	/* a longer entry says more than the query: by the square root of the
	 * ratio of their lengths, less alike */
	if (len > qq->len)
		s *= sqrt((double)qq->len / len);
	if (s > 1)
		s = 1;
	if (!same && (s <= 0 || s < q->min_score))
		return;
	if (*n == *cap)
		dtk_grow((void **)out, cap, *n + 1, sizeof(**out));
	(*out)[(*n)++] = (struct dtk_similar_hit){e, s, same, d};
}

/* Scores the records of parts into hits (of docs), keeping those q wants. */
static void S_score(struct dtk_similar_hit **out, size_t *n, size_t *cap, const struct weights *w,
                    const struct query *qq, const struct dtk_similar_query *q, struct part *parts,
                    int n_parts, const struct dtk_entry *const *docs)
{
	size_t i, k;
	int p;

	for (p = 0; p < n_parts; p++) {
		for (k = 0; k < parts[p].n_recs; k++) {
			const struct rec *r = &parts[p].recs[k];
			const uint32_t *pr = parts[p].pairs + r->off;
			double s = 0;
			for (i = 0; i < r->cnt; i++)
				s += S_term_score(w, qq, pr[2 * i], pr[2 * i + 1], r->len);
			S_keep(out, n, cap, w, qq, q, docs[r->doc], s, r->len, r->same, r->doc);
		}
	}
}

/* Moves h[at] down the heap h[0..k) (the worst hit at its root). */
static void S_sift(struct dtk_similar_hit *h, size_t k, size_t at)
{
	struct dtk_similar_hit t;
	size_t c;

	for (; (c = 2 * at + 1) < k; at = c) {
		if (c + 1 < k && S_hit_cmp(&h[c + 1], &h[c]) > 0)
			c++;
		if (S_hit_cmp(&h[c], &h[at]) <= 0)
			break;
		t = h[at];
		h[at] = h[c];
		h[c] = t;
	}
}

/* Sorts hits h[0..*n) best first, keeping the best limit (0: all): a heap
 * of them first when there are more. */
static void S_best(struct dtk_similar_hit *h, size_t *n, size_t limit)
{
	size_t i;

	if (limit && *n > limit) {
		for (i = limit / 2; i-- > 0;)
			S_sift(h, limit, i);
		for (i = limit; i < *n; i++)
			if (S_hit_cmp(&h[i], &h[0]) < 0) {
				h[0] = h[i];
				S_sift(h, limit, 0);
			}
		*n = limit;
	}
	if (*n > 1)
		qsort(h, *n, sizeof(*h), S_hit_cmp);
}

/* Gathers into g (x: df and total_len, as S_count counts them) the postings
 * of x's query in ix, of the docs dn numbers (n_docs in all). Returns 0,
 * or -1 when they do not read as written. */
static int S_ix_gather(struct ix_gather *g, struct part *x, const struct dtk_similar_index *ix,
                       const uint32_t *dn, size_t n_docs)
{
	const struct query *q = x->q;
	uint32_t *key = dtk_xcalloc(q->n + 1, sizeof(*key));
	size_t i, k;
	int rc = 0;

	g->tf = dtk_xcalloc(n_docs + 1, sizeof(*g->tf));
	g->from = dtk_xcalloc(q->n + 1, sizeof(*g->from));
	x->df = dtk_xcalloc(q->n + 1, sizeof(*x->df));
	for (i = 0; i < ix->h.n_nodes; i++)
		if (ix->nodes[i].n && dn[ix->nodes[i].first] != UINT32_MAX)
			x->total_len += ix->nodes[i].live_len;
	for (i = 0; i <= q->mask; i++)
		if (q->keys[i])
			key[q->slot_term[i]] = q->keys[i];
	for (i = 0; i < q->n && rc == 0; i++) { /* by term, in the query's order */
		g->from[i] = g->n_post;
		/* the raw terms the base's glossary makes key[i], and key[i] */
		for (k = 0; q->gm && k <= q->gm->mask && rc == 0; k++)
			if (q->gm->keys[k] && q->gm->vals[k] == key[i] && q->gm->keys[k] != key[i])
				rc = dtk_similar_index_term(g, ix, dn, q->gm->keys[k]);
		if (rc == 0 && S_gmap(q->gm, key[i]) == key[i])
			rc = dtk_similar_index_term(g, ix, dn, key[i]);
		for (k = g->from[i]; k < g->n_post; k++) {
			g->post[k].tf = g->tf[g->post[k].doc];
			g->tf[g->post[k].doc] = 0;
		}
		x->df[i] = (uint32_t)(g->n_post - g->from[i]);
	}
	g->from[q->n] = g->n_post;
	free(key);
	return rc;
}

/* Scores the docs g gathered from ix (of docs[0..n_docs), those dn
 * numbers), and those of the same claim as the query that share no term,
 * into hits as S_score does: each doc's sum over its terms in the query's
 * order. */
static void S_ix_score(struct dtk_similar_hit **out, size_t *n, size_t *cap,
                       const struct weights *w, const struct query *qq,
                       const struct dtk_similar_query *q, const struct dtk_similar_index *ix,
                       const struct ix_gather *g, const struct dtk_entry *const *docs,
                       const uint32_t *dn, size_t n_docs)
{
	double *acc = dtk_xcalloc(n_docs + 1, sizeof(*acc));
	uint32_t *met = dtk_xcalloc(n_docs + 1, sizeof(*met)); /* its first posting + 1 */
	size_t i, k, nt = 0;
	size_t *touched = dtk_xmalloc((g->n_post + 1) * sizeof(*touched));

	for (i = 0; i < qq->n; i++)
		for (k = g->from[i]; k < g->from[i + 1]; k++) {
			const struct ix_post *p = &g->post[k];
			if (!met[p->doc]) {
				met[p->doc] = (uint32_t)k + 1;
				touched[nt++] = k;
			}
			acc[p->doc] += S_term_score(w, qq, i, p->tf, ix->ents[p->ent].len);
		}
	for (k = 0; k < nt; k++) {
		const struct ix_post *p = &g->post[touched[k]];
		const struct ix_ent *e = &ix->ents[p->ent];
		S_keep(out, n, cap, w, qq, q, docs[p->doc], acc[p->doc], e->len,
		       e->same == qq->same, p->doc);
	}
	for (k = 0; k < ix->h.n_ents; k++)
		if (ix->ents[k].same == qq->same && dn[k] != UINT32_MAX && !met[dn[k]])
			S_keep(out, n, cap, w, qq, q, docs[dn[k]], 0, ix->ents[k].len, 1, dn[k]);
	free(acc);
	free(met);
	free(touched);
}

/* The pass of query qq over docs[0..n_docs), those of kb's nodes (first
 * and wholes as S_docs takes them), on parts of them in parallel, and, with ix, the postings of the docs dn numbers (n_ix of
 * them); then the scores. Returns 0, -1 with the error set, or -2 when ix
 * does not read as written. */
static int S_pass(struct dtk_similar_hit **out, size_t *n, const struct query *qq,
                  const struct dtk_similar_query *q, const struct dtk_entry *const *docs,
                  size_t n_docs, const struct dtk_kb *kb, const size_t *first,
                  const struct dtk_node *const *wholes, const struct dtk_similar_index *ix,
                  const uint32_t *dn, size_t n_ix)
{
	size_t cap = 0;
	int n_parts = dtk_threads((n_docs - n_ix) / S_PER_THREAD), rc = 0, p;
	struct part *parts = dtk_xcalloc((size_t)n_parts + 1, sizeof(*parts));
	struct ix_gather g = {NULL, NULL, 0, 0, NULL};
	struct weights w;

	*out = NULL;
	*n = 0;
	for (p = 0; p <= n_parts; p++) {
		parts[p] = (struct part){.q = qq,
		                         .docs = docs,
		                         .n_docs = n_docs,
		                         .kb = kb,
		                         .first = first,
		                         .wholes = wholes};
		parts[p].from = kb->n_nodes * (size_t)p / (size_t)n_parts;
		parts[p].to = kb->n_nodes * (size_t)(p + 1) / (size_t)n_parts;
	}
	dtk_threads_run(n_parts, S_scan, parts);
	for (p = 0; p < n_parts; p++)
		if (parts[p].rc < 0)
			rc = -1;
	if (rc == 0 && ix) /* the docs ix holds */
		rc = S_ix_gather(&g, &parts[n_parts], ix, dn, n_docs) < 0 ? -2 : 0;
	if (rc == 0) {
		S_weights(&w, qq, parts, n_parts + (ix != NULL), n_docs);
		S_score(out, n, &cap, &w, qq, q, parts, n_parts, docs);
		if (ix)
			S_ix_score(out, n, &cap, &w, qq, q, ix, &g, docs, dn, n_docs);
		S_best(*out, n, q->limit);
		free(w.idf);
	}
	for (p = 0; p <= n_parts; p++) {
		free(parts[p].recs);
		free(parts[p].pairs);
		free(parts[p].df);
	}
	free(parts);
	free(g.tf);
	free(g.post);
	free(g.from);
	return rc;
}

/* Sets qq to the terms of q's title and claim. Returns 0, or -1 with the
 * error set when they are not UTF-8. */
static int S_query_text(struct query *qq, const struct dtk_similar_query *q,
                        const struct dtk_kb *kb)
{
	struct terms t = {NULL, 0, 0};
	uint64_t same = 0;

	if ((q->title && S_terms(&t, q->title, NULL) < 0) ||
	    S_terms(&t, q->claim ? q->claim : "", &same) < 0) {
		free(t.v);
		return -1;
	}
	S_query_init(qq, &t, same, kb);
	free(t.v);
	return 0;
}

/* Returns 1 when kb holds the terms of its nodes' entries (DTK_KB_TERMS). */
static int S_has_terms(const struct dtk_kb *kb)
{
	return kb->n_nodes && kb->nodes[0]->terms;
}

/* Sets the entries of hits[0..n) that docs leaves NULL (of nodes the
 * index holds, first as S_docs sets it): their nodes unpacked whole into
 * wholes. Returns 0, -1 with the error set, or -2 when the index does not
 * match a node. */
static int S_fill(struct dtk_similar_hit *hits, size_t n, const struct dtk_kb *kb,
                  const size_t *first, const struct dtk_node **wholes)
{
	size_t k, i, j, at;

	for (k = 0; k < n; k++) {
		if (hits[k].entry)
			continue;
		for (i = kb->n_nodes; i-- > 0;) /* the node of the hit's doc */
			if (first[i] != SIZE_MAX && first[i] <= hits[k].order)
				break;
		if (i == SIZE_MAX || !dtk_kb_node_held(kb->nodes[i]) ||
		    (!wholes[i] && dtk_kb_node_whole(kb, kb->nodes[i], &wholes[i]) < 0))
			return -1;
		for (j = 0, at = first[i]; j < wholes[i]->n_entries; j++) {
			if (!dtk_similar_live(&wholes[i]->entries[j]))
				continue;
			if (at++ == hits[k].order)
				break;
		}
		if (j == wholes[i]->n_entries)
			return -2; /* the index does not match the node */
		hits[k].entry = &wholes[i]->entries[j];
	}
	return 0;
}

/* Ranks as dtk_similar_rank does, the query qq: the nodes kb's index of
 * terms holds by their postings, or, when it does not read as written (it
 * is then removed: the next check writes it again) or q->skip is in one of
 * them, by their entries unpacked whole from the node cache. */
static int S_rank(struct dtk_similar_hit **out, size_t *n, const struct dtk_kb *kb,
                  const struct query *qq, const struct dtk_similar_query *q)
{
	const struct dtk_similar_index *ix = kb->terms_index;
	size_t n_docs, n_ix = 0, i;
	size_t *first = dtk_xmalloc((kb->n_nodes + 1) * sizeof(*first));
	const struct dtk_node **wholes = dtk_xcalloc(kb->n_nodes + 1, sizeof(*wholes));
	uint32_t *dn = ix ? dtk_xmalloc(((size_t)ix->h.n_ents + 1) * sizeof(*dn)) : NULL;
	const struct dtk_entry **docs = NULL;
	const char *suffix;
	int rc = 0, full = !dn;

	for (i = 0; i < kb->n_nodes; i++) /* (q->skip's node: whole, to leave it out) */
		if (dtk_kb_node_held(kb->nodes[i]) &&
		    (!dtk_similar_index_held(kb, kb->nodes[i]) ||
		     (q->skip && dtk_kb_id_node(kb, q->skip, &suffix) == kb->nodes[i])))
			full = 1;
	if (!full) {
		memset(dn, 0xff, ((size_t)ix->h.n_ents + 1) * sizeof(*dn));
		docs = S_docs(kb, q, &n_docs, first, NULL, dn);
		for (i = 0; i < ix->h.n_ents; i++)
			n_ix += dn[i] != UINT32_MAX;
		rc = S_pass(out, n, qq, q, docs, n_docs, kb, first, NULL, n_ix ? ix : NULL, dn,
		            n_ix);
		if (rc == 0 && (rc = S_fill(*out, *n, kb, first, wholes)) < 0) {
			free(*out);
			*out = NULL;
			*n = 0;
		}
		if ((full = rc == -2) != 0)
			dtk_similar_index_drop(ix);
	}
	if (full) { /* every node it holds unpacked */
		free(docs);
		for (i = 0, rc = 0; i < kb->n_nodes && rc == 0; i++)
			if (dtk_kb_node_held(kb->nodes[i]) && !wholes[i])
				rc = dtk_kb_node_whole(kb, kb->nodes[i], &wholes[i]);
		docs = S_docs(kb, q, &n_docs, first, wholes, NULL);
		if (rc == 0)
			rc = S_pass(out, n, qq, q, docs, n_docs, kb, first, wholes, NULL, NULL, 0);
	}
	free(docs);
	free(first);
	free(wholes);
	free(dn);
	return rc;
}

int dtk_similar_rank(struct dtk_similar_hit **out, size_t *n, const struct dtk_kb *kb,
                     const struct dtk_similar_query *q)
{
	struct query qq;
	int rc;

	*out = NULL;
	*n = 0;
	if (S_query_text(&qq, q, kb) < 0)
		return -1;
	rc = S_rank(out, n, kb, &qq, q);
	S_query_release(&qq);
	return rc;
}

/* Sets qq to the terms of entry e of kb, as kb holds them. Returns 0 or -1
 * with the error set. */
static int S_query_entry(struct query *qq, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct terms t = {NULL, 0, 0};
	const char *s, *v = NULL;
	size_t len, at = 0, i, k = 0;
	uint64_t same = 0;
	int rc = -1;

	if (!S_has_terms(kb)) {
		rc = S_entry_terms(&t, e, &same);
		goto done;
	}
	if (dtk_kb_node_terms(kb, e->node, &b, &s, &len) < 0)
		goto done;
	for (i = 0; i <= (size_t)(e - e->node->entries); i++)
		if (dtk_similar_unpack_entry(s, len, &at, &v, &k, &same) < 0) {
			dtk_error("the terms of node '%s' do not match its entries", e->node->name);
			goto done;
		}
	dtk_grow((void **)&t.v, &t.cap, k + 1, sizeof(*t.v));
	memcpy(t.v, v, k * sizeof(*t.v));
	t.n = k;
	rc = 0;
done:
	if (rc == 0)
		S_query_init(qq, &t, same, kb);
	free(t.v);
	dtk_buf_release(&b);
	return rc;
}

/* ---- equivalent words, for search ---- */

/* A list of words, each once. */
struct words {
	char **v;
	size_t n, cap;
};

/* Adds s[0..len) folded to l unless it is there or is w. */
static void S_words_add(struct words *l, const char *w, const char *s, size_t len)
{
	size_t flen, i;
	char *f = dtk_fold(s, len, &flen, NULL);

	if (!f || !flen || !strcmp(f, w)) {
		free(f);
		return;
	}
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], f)) {
			free(f);
			return;
		}
	dtk_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = f;
}

/* Returns 1 when s is ASCII letters and digits only. */
static int S_ascii_word(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
	                     strlen(s);
}

/* Sets stem (room for S_WORD_MAX + 1) to the stem of ASCII word s, lowercase. */
static void S_stem_of(char *stem, const char *s)
{
	uint32_t w[S_WORD_MAX];
	size_t n, k;

	for (n = 0; s[n] && n < S_WORD_MAX; n++)
		w[n] = (uint32_t)(unsigned char)(s[n] | (s[n] >= 'A' && s[n] <= 'Z' ? 0x20 : 0));
	k = S_stem(w, n);
	for (n = 0; n < k; n++)
		stem[n] = (char)w[n];
	stem[k] = '\0';
}

/* Returns 1 when word t of a glossary row names folded word w: the same
 * word or stem (ASCII), or a Chinese word that w holds. */
static int S_names_word(const char *t, const char *w, const char *wstem)
{
	char ts[S_WORD_MAX + 1];
	size_t len;
	char *f;
	int hit;

	if (S_ascii_word(t)) {
		if (!*wstem || strlen(t) > S_WORD_MAX)
			return 0;
		S_stem_of(ts, t);
		return !strcmp(ts, wstem);
	}
	f = dtk_fold(t, strlen(t), &len, NULL);
	hit = f && len && strstr(w, f) != NULL;
	free(f);
	return hit;
}

size_t dtk_similar_equivalents(char ***out, const struct dtk_kb *kb, const char *w)
{
	struct words l = {NULL, 0, 0};
	char wstem[S_WORD_MAX + 1] = "";
	size_t r, k, j;

	if (S_ascii_word(w) && strlen(w) <= S_WORD_MAX) {
		S_stem_of(wstem, w);
		if (strlen(wstem) < strlen(w))
			S_words_add(&l, w, wstem, strlen(wstem));
	}
	for (r = 0; dtk_similar_glossary[r][0]; r++) {
		for (k = 0; k < 4 && dtk_similar_glossary[r][k] &&
		            !S_names_word(dtk_similar_glossary[r][k], w, wstem);
		     k++)
			;
		if (k == 4 || !dtk_similar_glossary[r][k])
			continue;
		for (j = 0; j < 4 && dtk_similar_glossary[r][j]; j++)
			if (j != k)
				S_words_add(&l, w, dtk_similar_glossary[r][j],
				            strlen(dtk_similar_glossary[r][j]));
	}
	for (r = 0; kb && r < kb->n_glossary; r++) {
		const struct dtk_gloss *g = &kb->glossary[r];
		for (k = 0; k < g->n_terms && !S_names_word(g->terms[k], w, wstem); k++)
			;
		for (j = 0; k < g->n_terms && j < g->n_terms; j++)
			if (j != k)
				S_words_add(&l, w, g->terms[j], strlen(g->terms[j]));
	}
	*out = l.v;
	return l.n;
}

/* ---- the check of dtk add ---- */

/* Returns 1 when id is one of named[0..n). */
static int S_named(const char *id, const char *const *named, size_t n)
{
	while (n--)
		if (!strcmp(named[n], id))
			return 1;
	return 0;
}

enum dtk_similar_verdict dtk_similar_verdict(const struct dtk_similar_hit *hits, size_t n,
                                             const char *const *named, size_t n_named)
{
	size_t i;

	if (n && hits[0].same) /* same claims come first */
		return DTK_SIMILAR_REFUSE;
	for (i = 0; i < n && hits[i].score >= DTK_SIMILAR_SURE; i++)
		if (!S_named(hits[i].entry->id, named, n_named))
			return DTK_SIMILAR_REFUSE;
	return n && hits[0].score >= DTK_SIMILAR_LIKELY ? DTK_SIMILAR_LIKELY_ONE : DTK_SIMILAR_NONE;
}

int dtk_similar_check(struct dtk_similar_hit **out, size_t *n, const struct dtk_kb *kb,
                      const char *id, const char *const *named, size_t n_named)
{
	const struct dtk_entry *e = dtk_kb_entry(kb, id);
	struct dtk_similar_query q = {0};
	struct query qq;
	int rc;

	*out = NULL;
	*n = 0;
	if (!e)
		return DTK_SIMILAR_NONE;
	q.title = e->title;
	q.claim = e->claim;
	q.skip = id;
	q.limit = DTK_SIMILAR_SHOWN; /* all the verdict reads, unless the last is sure */
	if (S_query_entry(&qq, kb, e) < 0)
		return -1;
	rc = S_rank(out, n, kb, &qq, &q);
	if (rc == 0 && *n == q.limit &&
	    ((*out)[*n - 1].same || (*out)[*n - 1].score >= DTK_SIMILAR_SURE)) {
		free(*out);
		q.limit = 0;
		rc = S_rank(out, n, kb, &qq, &q);
	}
	S_query_release(&qq);
	if (rc < 0)
		return -1;
	dtk_similar_index_keep(kb);
	rc = dtk_similar_verdict(*out, *n, named, n_named);
	if (*n > DTK_SIMILAR_SHOWN)
		*n = DTK_SIMILAR_SHOWN;
	return rc;
}

const struct dtk_entry *dtk_similar_entry(const struct dtk_kb *kb, const char *id)
{
	const char *suffix;
	const struct dtk_node *node = dtk_kb_id_node(kb, id, &suffix), *whole;

	if (node && dtk_kb_node_held(node))
		return dtk_kb_node_whole(kb, node, &whole) == 0 ? dtk_node_entry(whole, id) : NULL;
	return node ? dtk_node_entry(node, id) : NULL;
}
