/* similar_index.c: the index of terms, beside the node cache (similar.h;
 * its file as similar_int.h maps it): opened, a node and a term's postings
 * looked up in it, and, after dtk add's check, written or removed.
 * similar.c's ranking reads it. An open index is the base's
 * (kb->terms_index, freed with it by dtk_similar_index_free). */
#include "dtk/similar.h"

#include "dtk/cache.h"
#include "dtk/kb.h"
#include "similar_int.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the index of terms, beside the node cache ---- */

#define S_IX_MAGIC "dtkterm2"

struct dtk_similar_index *dtk_similar_index_open(const char *root, const uint64_t key[2])
{
	struct dtk_similar_index *ix = dtk_xcalloc(1, sizeof(*ix));
	const struct ix_head *h = &ix->h;
	struct stat st;
	size_t i, meta, at;
	const char *p;
	int fd;

	ix->path = dtk_cache_path(root, "terms");
	/* not blocked by a FIFO, nor mapping what is not a file */
	fd = ix->path ? open(ix->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size >= sizeof(*h)) {
		ix->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		ix->size = (size_t)st.st_size;
		ix->dev = st.st_dev;
		ix->ino = st.st_ino;
	}
	if (fd >= 0)
		close(fd);
	if (!ix->map || ix->map == MAP_FAILED) {
		ix->map = NULL;
		goto bad;
	}
	memcpy(&ix->h, ix->map, sizeof(ix->h));
	meta = (size_t)h->n_nodes * sizeof(struct ix_node) +
	       (size_t)h->n_ents * sizeof(struct ix_ent) +
	       (size_t)h->n_terms * sizeof(struct ix_term) + h->names_len;
	/* (each part's size bounded by a uint32_t count: no sum wraps but posts_len) */
	if (memcmp(h->magic, S_IX_MAGIC, 8) || h->key[0] != key[0] || h->key[1] != key[1] ||
	    h->posts_len > ix->size - sizeof(*h) || meta != ix->size - sizeof(*h) - h->posts_len)
		goto bad;
	p = (const char *)ix->map + sizeof(*h);
	if (dtk_cache_sum(p, meta) != h->sum)
		goto bad;
	ix->nodes = (const void *)p;
	ix->ents = (const void *)(p += (size_t)h->n_nodes * sizeof(struct ix_node));
	ix->terms = (const void *)(p += (size_t)h->n_ents * sizeof(struct ix_ent));
	ix->names = p += (size_t)h->n_terms * sizeof(struct ix_term);
	ix->posts = (const unsigned char *)(p + h->names_len);
	if (h->names_len && ix->names[h->names_len - 1])
		goto bad;
	for (i = 0, at = 0; i < h->n_nodes; at += ix->nodes[i++].n) /* entries node after node */
		if (ix->nodes[i].name >= h->names_len || ix->nodes[i].first != at ||
		    ix->nodes[i].n > h->n_ents - at)
			goto bad;
	if (at != h->n_ents)
		goto bad;
	for (i = 0; i < h->n_terms; i++) { /* a posting takes a byte at the least */
		uint64_t end = i + 1 < h->n_terms ? ix->terms[i + 1].off : h->posts_len;
		if (ix->terms[i].off > end || end > h->posts_len || ix->terms[i].n > h->n_ents ||
		    ix->terms[i].n > end - ix->terms[i].off)
			goto bad;
	}
	return ix;
bad:
	dtk_similar_index_free(ix);
	return NULL;
}

void dtk_similar_index_drop(const struct dtk_similar_index *ix)
{
	struct stat st;
	if (lstat(ix->path, &st) == 0 && st.st_dev == ix->dev && st.st_ino == ix->ino)
		unlink(ix->path);
}

void dtk_similar_index_free(struct dtk_similar_index *ix)
{
	if (!ix)
		return;
	if (ix->map)
		munmap(ix->map, ix->size);
	free(ix->path);
	free(ix);
}

/* Returns ix's node name, or NULL. */
static const struct ix_node *S_ix_node(const struct dtk_similar_index *ix, const char *name)
{
	size_t lo = 0, hi = ix->h.n_nodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->names + ix->nodes[mid].name, name);
		if (!c)
			return &ix->nodes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int dtk_similar_index_holds(const struct dtk_similar_index *ix, const char *name, uint64_t sum)
{
	const struct ix_node *x = ix ? S_ix_node(ix, name) : NULL;
	return x && x->key == sum;
}

const struct ix_node *dtk_similar_index_held(const struct dtk_kb *kb, const struct dtk_node *node)
{
	const struct ix_node *x = kb->terms_index ? S_ix_node(kb->terms_index, node->name) : NULL;
	size_t j, live = 0;

	if (!x || x->key != dtk_kb_node_key(node))
		return NULL;
	/* a whole node's live entries, as many as it says (a summary's are
	 * checked when a hit unpacks it) */
	for (j = 0; !dtk_kb_node_held(node) && j < node->n_entries; j++)
		live += dtk_similar_live(&node->entries[j]);
	return dtk_kb_node_held(node) || live == x->n ? x : NULL;
}

/* Returns the varint at *p (before end), moving *p past it; sets *p to
 * NULL when it does not end before end. */
static uint32_t S_varint(const unsigned char **p, const unsigned char *end)
{
	uint32_t v = 0;
	int shift;

	for (shift = 0; *p < end && shift < 32; shift += 7) {
		unsigned char c = *(*p)++;
		v |= (uint32_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	*p = NULL;
	return 0;
}

int dtk_similar_index_term(struct ix_gather *g, const struct dtk_similar_index *ix,
                           const uint32_t *dn, uint32_t r)
{
	size_t lo = 0, hi = ix->h.n_terms, k, end;
	const struct ix_term *x;
	const unsigned char *p, *stop;
	uint32_t ent = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->terms[mid].term < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->h.n_terms || ix->terms[lo].term != r)
		return 0;
	x = &ix->terms[lo];
	end = lo + 1 < ix->h.n_terms ? ix->terms[lo + 1].off : ix->h.posts_len;
	p = ix->posts + x->off;
	stop = ix->posts + end;
	if ((uint32_t)dtk_cache_sum((const char *)p, end - x->off) != x->sum)
		return -1;
	if (g->n_post + x->n > g->cap_post)
		dtk_grow((void **)&g->post, &g->cap_post, g->n_post + x->n, sizeof(*g->post));
	for (k = 0; k < x->n; k++) {
		uint32_t v = S_varint(&p, stop), tf = 1, d;
		if (p && (v & 1))
			tf = S_varint(&p, stop);
		ent += v >> 1;
		if (!p || ent >= ix->h.n_ents)
			return -1;
		if ((d = dn[ent]) == UINT32_MAX)
			continue;
		if (!g->tf[d])
			g->post[g->n_post++] = (struct ix_post){d, 0, ent};
		g->tf[d] += tf;
	}
	return p == stop ? 0 : -1;
}

/* ---- writing the index of terms ---- */

static int S_u64_cmp(const void *pa, const void *pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
	return x < y ? -1 : x > y;
}

static int S_name_cmp(const void *pa, const void *pb)
{
	return strcmp((*(const struct dtk_node *const *)pa)->name,
	              (*(const struct dtk_node *const *)pb)->name);
}

/* The distinct terms met while an index is made, numbered as met. */
struct dict {
	uint64_t *slots; /* the term, then its number + 1 (0: empty) */
	size_t mask;
	uint32_t *key, *n, *last; /* per number: the term, its postings, its last entry + 1 */
	size_t len, cap;
};

/* Returns the number of term h in d, added when new. */
static uint32_t S_dict_id(struct dict *d, uint32_t h)
{
	size_t i, k;

	if (2 * (d->len + 1) > d->mask + 1) { /* grown: every term placed again */
		d->mask = d->mask ? d->mask * 2 + 1 : 4095;
		free(d->slots);
		d->slots = dtk_xcalloc(d->mask + 1, sizeof(*d->slots));
		for (k = 0; k < d->len; k++) {
			for (i = d->key[k] & d->mask; d->slots[i]; i = (i + 1) & d->mask)
				;
			d->slots[i] = (uint64_t)d->key[k] << 32 | (k + 1);
		}
	}
	for (i = h & d->mask; d->slots[i]; i = (i + 1) & d->mask)
		if (d->slots[i] >> 32 == h)
			return (uint32_t)d->slots[i] - 1;
	if (d->len == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 4096;
		d->key = dtk_xrealloc(d->key, d->cap * sizeof(*d->key));
		d->n = dtk_xrealloc(d->n, d->cap * sizeof(*d->n));
		d->last = dtk_xrealloc(d->last, d->cap * sizeof(*d->last));
	}
	d->key[d->len] = h;
	d->n[d->len] = d->last[d->len] = 0;
	d->slots[i] = (uint64_t)h << 32 | ++d->len;
	return (uint32_t)d->len - 1;
}

/* Appends v to b as a varint. */
static void S_put_varint(struct dtk_buf *b, uint32_t v)
{
	for (; v >= 0x80; v >>= 7)
		dtk_buf_putc(b, (char)(v | 0x80));
	dtk_buf_putc(b, (char)v);
}

/* Writes kb's index (every node with its terms) to path as the caches are
 * written (cache.h), under key: the live entries' terms numbered and
 * counted, each posting put in its term's place, entry after entry, then
 * each term's postings encoded. Returns 0, or -1 when it is not written. */
static int S_ix_write(const struct dtk_kb *kb, const char *path, const uint64_t key[2])
{
	const struct dtk_node **by_name = dtk_xmalloc((kb->n_nodes + 1) * sizeof(*by_name));
	struct dtk_buf b = DTK_BUF_INIT, names = DTK_BUF_INIT, out = DTK_BUF_INIT,
	               posts = DTK_BUF_INIT;
	struct ix_node *nodes = dtk_xcalloc(kb->n_nodes + 1, sizeof(*nodes));
	struct ix_ent *ents = NULL;
	struct ix_term *terms = NULL;
	struct dict d = {0};
	uint32_t *seq = NULL, *at = NULL, (*pl)[2] = NULL;
	uint64_t *order = NULL;
	size_t i, j, k, n_ents = 0, n_seq = 0, n_posts = 0, cap_e = 0, cap_q = 0;
	struct ix_head h;
	char *tmp;
	int rc = -1, fd;

	memcpy(by_name, kb->nodes, kb->n_nodes * sizeof(*by_name));
	qsort(by_name, kb->n_nodes, sizeof(*by_name), S_name_cmp);
	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = by_name[i];
		const char *s, *tv;
		size_t len, pos = 0, n;
		uint64_t same;

		if (!dtk_kb_node_key(node) || dtk_kb_node_terms(kb, node, &b, &s, &len) < 0)
			goto done;
		nodes[i] = (struct ix_node){dtk_kb_node_key(node), 0, (uint32_t)n_ents, 0,
		                            (uint32_t)names.len,   0};
		dtk_buf_put(&names, node->name, strlen(node->name) + 1);
		for (j = 0; j < node->n_entries; j++) {
			if (dtk_similar_unpack_entry(s, len, &pos, &tv, &n, &same) < 0)
				break;
			if (!dtk_similar_live(&node->entries[j]))
				continue;
			if (n_ents == cap_e)
				dtk_grow((void **)&ents, &cap_e, n_ents + 1, sizeof(*ents));
			ents[n_ents] = (struct ix_ent){same, (uint32_t)n, 0};
			nodes[i].n++;
			nodes[i].live_len += n;
			if (n_seq + n > cap_q)
				dtk_grow((void **)&seq, &cap_q, n_seq + n, sizeof(*seq));
			for (k = 0; k < n; k++) { /* numbered; each entry counted once a term */
				uint32_t id = S_dict_id(&d, S_u32_at(tv + 4 * k));
				seq[n_seq++] = id;
				if (d.last[id] != n_ents + 1) {
					d.last[id] = (uint32_t)n_ents + 1;
					d.n[id]++;
				}
			}
			n_ents++;
		}
		if (j < node->n_entries || pos != len) {
			dtk_error("the terms of node '%s' do not match its entries", node->name);
			goto done;
		}
	}
	/* each term's postings in its place: (entry, count), by entry */
	at = dtk_xmalloc((d.len + 1) * sizeof(*at));
	for (k = 0; k < d.len; k++) {
		at[k] = (uint32_t)n_posts;
		n_posts += d.n[k];
		d.last[k] = 0;
	}
	pl = dtk_xmalloc((n_posts + 1) * sizeof(*pl));
	for (i = 0, k = 0; i < n_ents; i++)
		for (j = 0; j < ents[i].len; j++) {
			uint32_t id = seq[k++];
			if (d.last[id] != i + 1) {
				d.last[id] = (uint32_t)i + 1;
				pl[at[id]][0] = (uint32_t)i;
				pl[at[id]++][1] = 1;
			} else {
				pl[at[id] - 1][1]++;
			}
		}
	/* the terms in order, each one's postings encoded */
	order = dtk_xmalloc((d.len + 1) * sizeof(*order));
	for (k = 0; k < d.len; k++)
		order[k] = (uint64_t)d.key[k] << 32 | k;
	qsort(order, d.len, sizeof(*order), S_u64_cmp);
	terms = dtk_xmalloc((d.len + 1) * sizeof(*terms));
	for (k = 0; k < d.len; k++) {
		uint32_t id = (uint32_t)order[k], last = 0;
		size_t from = posts.len;
		for (j = at[id] - d.n[id]; j < at[id]; j++) {
			S_put_varint(&posts, (pl[j][0] - last) << 1 | (pl[j][1] > 1));
			if (pl[j][1] > 1)
				S_put_varint(&posts, pl[j][1]);
			last = pl[j][0];
		}
		terms[k] = (struct ix_term){
		        d.key[id], d.n[id], (uint32_t)from,
		        (uint32_t)dtk_cache_sum(posts.ptr + from, posts.len - from)};
	}
	if (posts.len > UINT32_MAX)
		goto done;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, S_IX_MAGIC, 8);
	h.key[0] = key[0];
	h.key[1] = key[1];
	h.n_nodes = (uint32_t)kb->n_nodes;
	h.n_ents = (uint32_t)n_ents;
	h.n_terms = (uint32_t)d.len;
	h.names_len = (uint32_t)names.len;
	h.posts_len = posts.len;
	dtk_buf_put(&out, (const char *)&h, sizeof(h));
	dtk_buf_put(&out, (const char *)nodes, kb->n_nodes * sizeof(*nodes));
	dtk_buf_put(&out, (const char *)ents, n_ents * sizeof(*ents));
	dtk_buf_put(&out, (const char *)terms, d.len * sizeof(*terms));
	dtk_buf_put(&out, names.ptr ? names.ptr : "", names.len);
	h.sum = dtk_cache_sum(out.ptr + sizeof(h), out.len - sizeof(h));
	memcpy(out.ptr, &h, sizeof(h));
	dtk_buf_put(&out, posts.ptr ? posts.ptr : "", posts.len);
	if ((fd = dtk_cache_create(path, &tmp)) >= 0)
		rc = dtk_cache_commit(fd, tmp, path, dtk_cache_write(fd, out.ptr, out.len) == 0);
done:
	dtk_buf_release(&b);
	dtk_buf_release(&names);
	dtk_buf_release(&out);
	dtk_buf_release(&posts);
	free(by_name);
	free(nodes);
	free(ents);
	free(terms);
	free(seq);
	free(at);
	free(pl);
	free(order);
	free(d.slots);
	free(d.key);
	free(d.n);
	free(d.last);
	return rc;
}

void dtk_similar_index_keep(const struct dtk_kb *kb)
{
	struct dtk_similar_index *ix;
	size_t i, stale = 0;
	char *real, *path;

	if (kb->terms_index) {
		for (i = 0; i < kb->n_nodes; i++)
			stale += !dtk_similar_index_held(kb, kb->nodes[i]);
		if (stale > kb->n_nodes / 8)
			dtk_similar_index_drop(kb->terms_index);
		return;
	}
	for (i = 0; i < kb->n_nodes; i++)
		if (dtk_kb_node_held(kb->nodes[i]) || !dtk_kb_node_key(kb->nodes[i]))
			return;
	if (!kb->nodecache || !(real = realpath(kb->root, NULL)))
		return;
	ix = dtk_similar_index_open(real, kb->source_key); /* the node cache's key */
	path = ix ? NULL : dtk_cache_path(real, "terms");
	if (path)
		S_ix_write(kb, path, kb->source_key);
	dtk_similar_index_free(ix);
	free(path);
	free(real);
}
