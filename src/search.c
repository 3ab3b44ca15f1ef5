/* search.c: full-text search over entries, with utf8proc's normalization. */
#define _GNU_SOURCE /* memmem */
#include "dtk/search.h"

#include "dtk/fold.h"
#include "dtk/kb.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the search ---- */

struct dtk_search {
	char **words;
	size_t *lens, n;
	/* the other words each word also takes (dtk_search_set_alts): alts[j]
	 * of length alt_lens[j] stands for word alt_of[j] */
	char **alts;
	size_t *alt_lens, *alt_of, n_alts;
	int careful;                /* a word a file's bytes may not show as they are */
	int alnum;                /* every word is ASCII letters and digits only */
	unsigned char *in_source; /* words found in some source title */
	unsigned char *src_has;   /* [k * n_sources + i]: source i's folded title holds word k */
	size_t n_sources;
	dtk_search_show_fn show; /* the show hook, NULL when none */
	void *show_arg;
	pthread_mutex_t lock; /* over the hits, noted from several threads */
	struct dtk_search_hit *hits;
	size_t n_hits, cap;
};

struct dtk_search *dtk_search_new(const char *const *words, size_t n)
{
	struct dtk_search *s;
	size_t i, bytes = 0;

	for (i = 0; i < n; i++)
		bytes += strlen(words[i]);
	if (n > DTK_SEARCH_MAX_WORDS || bytes > DTK_SEARCH_MAX_BYTES) {
		dtk_error("a search takes at most %d words of %d bytes in all, not %zu of %zu",
		          DTK_SEARCH_MAX_WORDS, DTK_SEARCH_MAX_BYTES, n, bytes);
		return NULL;
	}
	s = dtk_xcalloc(1, sizeof(*s));
	s->words = dtk_xcalloc(n + 1, sizeof(*s->words));
	s->lens = dtk_xcalloc(n + 1, sizeof(*s->lens));
	s->in_source = dtk_xcalloc(n + 1, 1);
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < n; i++) {
		s->words[i] = dtk_fold(words[i], strlen(words[i]), &s->lens[i], NULL);
		s->n = i + 1;
		if (!s->words[i]) {
			dtk_error("'%s' is not valid UTF-8", words[i]);
			goto fail;
		}
		if (!s->lens[i]) {
			dtk_error("'%s' has nothing to search for", words[i]);
			goto fail;
		}
		/* quotes, escapes and spaces may be written otherwise in YAML */
		if (strpbrk(s->words[i], "'\"\\ \t\n\r#"))
			s->careful = 1;
	}
	for (i = 0, s->alnum = 1; i < n; i++)
		if (strspn(s->words[i], "abcdefghijklmnopqrstuvwxyz0123456789") != s->lens[i])
			s->alnum = 0;
	return s;
fail:
	dtk_search_free(s);
	return NULL;
}

void dtk_search_free(struct dtk_search *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->words[i]);
	for (i = 0; i < s->n_alts; i++)
		free(s->alts[i]);
	free(s->alts);
	free(s->alt_lens);
	free(s->alt_of);
	free(s->words);
	free(s->lens);
	free(s->in_source);
	free(s->src_has);
	free(s->hits);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void dtk_search_set_alts(struct dtk_search *s, size_t k, const char *const *alts, size_t n)
{
	size_t i, len;
	char *f;

	for (i = 0; i < n; i++) {
		f = dtk_fold(alts[i], strlen(alts[i]), &len, NULL);
		if (!f || !len || strpbrk(f, "'\"\\ \t\n\r#")) { /* none such: words */
			free(f);
			continue;
		}
		s->alts = dtk_xrealloc(s->alts, (s->n_alts + 1) * sizeof(*s->alts));
		s->alt_lens = dtk_xrealloc(s->alt_lens, (s->n_alts + 1) * sizeof(*s->alt_lens));
		s->alt_of = dtk_xrealloc(s->alt_of, (s->n_alts + 1) * sizeof(*s->alt_of));
		s->alts[s->n_alts] = f;
		s->alt_lens[s->n_alts] = len;
		s->alt_of[s->n_alts++] = k;
		s->alnum = 0; /* an alternative may need the text folded */
	}
}

/* Returns 2 when text holds word k of s, 1 when it holds another word k
 * takes (an alternative), else 0. */
static int S_has(const struct dtk_search *s, size_t k, const char *text)
{
	size_t j;
	if (strstr(text, s->words[k]))
		return 2;
	for (j = 0; j < s->n_alts; j++)
		if (s->alt_of[j] == k && strstr(text, s->alts[j]))
			return 1;
	return 0;
}

/* As S_has, on text[0..len) with no NUL. */
static int S_has_mem(const struct dtk_search *s, size_t k, const char *text, size_t len)
{
	size_t j;
	if (memmem(text, len, s->words[k], s->lens[k]))
		return 2;
	for (j = 0; j < s->n_alts; j++)
		if (s->alt_of[j] == k && memmem(text, len, s->alts[j], s->alt_lens[j]))
			return 1;
	return 0;
}

void dtk_search_set_show(struct dtk_search *s, dtk_search_show_fn fn, void *arg)
{
	s->show = fn;
	s->show_arg = arg;
}

const char *const *dtk_search_words(const struct dtk_search *s, size_t *n)
{
	*n = s->n;
	return (const char *const *)s->words;
}

int dtk_search_source(const struct dtk_search *s, const struct dtk_source *src)
{
	const char *text[3] = {src->id, src->title, src->url ? src->url : ""};
	unsigned char found[DTK_SEARCH_MAX_WORDS] = {0};
	size_t i, k, len, left = s->n;
	char *t;

	for (i = 0; i < 3 && left; i++) {
		t = dtk_fold(text[i], strlen(text[i]), &len, NULL);
		for (k = 0; t && k < s->n; k++)
			if (!found[k] && memmem(t, len, s->words[k], s->lens[k])) {
				found[k] = 1;
				left--;
			}
		free(t);
	}
	return left == 0;
}

void dtk_search_prepare(struct dtk_search *s, const struct dtk_kb *kb)
{
	size_t i, k, len;
	char *t;

	free(s->src_has); /* prepared again */
	s->src_has = dtk_xcalloc(s->n * kb->n_sources + 1, 1);
	s->n_sources = kb->n_sources;
	for (i = 0; i < kb->n_sources; i++) {
		t = dtk_fold(kb->sources[i].title, strlen(kb->sources[i].title), &len, NULL);
		for (k = 0; t && k < s->n; k++) /* the loader refuses bad UTF-8 */
			if (S_has(s, k, t))
				s->in_source[k] = s->src_has[k * kb->n_sources + i] = 1;
		free(t);
	}
	/* a word in a category's name may match an entry of any file */
	for (i = 0; i < kb->n_categories; i++) {
		t = dtk_fold(kb->categories[i].name, strlen(kb->categories[i].name), &len, NULL);
		for (k = 0; t && k < s->n; k++)
			if (S_has(s, k, t))
				s->in_source[k] = 1;
		free(t);
	}
}

static int S_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Drops from p[st..len) each run of blanks that holds a line break (st is
 * not inside a run: the caller backs it up to the run's start), where YAML's
 * folding of lines may join two characters (a break between two East Asian
 * wide characters is no space, docs/schema.md): a word, which holds no
 * blank, is still found wherever the parsed text holds it. Unless last, a
 * run at the end is kept whole for the text that comes next. Returns the new
 * length. */
static size_t S_drop_breaks(char *p, size_t len, size_t st, int last)
{
	size_t r, w, a;
	int nl;

	for (r = w = st; r < len;) {
		if (!S_blank(p[r])) {
			p[w++] = p[r++];
			continue;
		}
		for (a = r, nl = 0; r < len && S_blank(p[r]); r++)
			nl |= p[r] == '\n';
		if (!nl || (r == len && !last)) {
			memmove(p + w, p + a, r - a);
			w += r - a;
		}
	}
	return w;
}

int dtk_search_file_may_match(const struct dtk_search *s, const char *buf, size_t len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	unsigned char *found;
	size_t i, at = 0, next, left = 0, longest = 0, from, flen, st;
	char *f;
	int ok = 1;

	for (i = 0; i < s->n && s->in_source[i]; i++)
		;
	if (i == s->n || s->careful || memchr(buf, '\\', len))
		return 1; /* every word in a source title: any entry may hold them */
	found = dtk_xcalloc(s->n + 1, 1);
	for (i = 0; i < s->n; i++) {
		found[i] = s->in_source[i];
		left += !found[i];
		if (s->lens[i] > longest)
			longest = s->lens[i];
	}
	for (i = 0; i < s->n_alts; i++)
		if (s->alt_lens[i] > longest)
			longest = s->alt_lens[i];
	/* fold a part at a time, and stop as soon as every word is seen */
	while (left && at < len) {
		st = b.len;
		next = dtk_fold_fast(&b, buf, len, at, at + 16384 < len ? at + 16384 : len);
		if (next < len && next < at + 16384) { /* the slow way, all of it */
			f = dtk_fold(buf, len, &flen, NULL);
			if (f)
				flen = S_drop_breaks(f, flen, 0, 1);
			for (i = 0; f && i < s->n && ok; i++)
				ok = found[i] || S_has_mem(s, i, f, flen);
			free(f);
			goto done;
		}
		while (st > 0 && S_blank(b.ptr[st - 1])) /* the run that crosses st */
			st--;
		b.len = S_drop_breaks(b.ptr, b.len, st, next >= len);
		from = st >= longest ? st - longest + 1 : 0;
		for (i = 0; i < s->n; i++)
			if (!found[i] && S_has_mem(s, i, b.ptr + from, b.len - from)) {
				found[i] = 1;
				left--;
			}
		at = next;
	}
	ok = left == 0;
done:
	free(found);
	dtk_buf_release(&b);
	return ok;
}

/* Returns 1 when the folded title of one of e's sources holds word k. */
static int S_in_sources(const struct dtk_search *s, const struct dtk_kb *kb,
                        const struct dtk_entry *e, size_t k)
{
	const struct dtk_source *src;
	size_t i;

	if (!s->in_source[k])
		return 0;
	for (i = 0; i <= e->n_verified_by; i++) {
		src = dtk_kb_source(kb, i ? e->verified_by[i - 1].id : e->source.id);
		if (src && s->src_has[k * s->n_sources + (size_t)(src - kb->sources)])
			return 1;
	}
	return 0;
}

static int S_hit_cmp(const void *pa, const void *pb)
{
	const struct dtk_search_hit *a = pa, *b = pb;
	dtk_date fa = a->fresh, fb = b->fresh;

	if (a->exact != b->exact) /* the words as given first */
		return a->exact > b->exact ? -1 : 1;
	if (a->title != b->title)
		return a->title > b->title ? -1 : 1;
	if (a->claim != b->claim)
		return a->claim > b->claim ? -1 : 1;
	if (a->e->confidence != b->e->confidence)
		return a->e->confidence < b->e->confidence ? -1 : 1;
	if (fa != fb)
		return fa > fb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Returns node's place in listing order: category by category as
 * _domain.yaml lists them, then the nodes in no category by name. */
static size_t S_node_rank(const struct dtk_kb *kb, const struct dtk_node *node)
{
	size_t c, j, before = 0;

	for (c = 0; c < kb->n_categories; c++) {
		const struct dtk_category *cat = &kb->categories[c];
		for (j = 0; j < cat->n_nodes; j++)
			if ((int)c == node->category && !strcmp(cat->nodes[j].id, node->name))
				return before + j;
		before += cat->n_nodes;
	}
	for (j = 0; j < kb->n_nodes && kb->nodes[j] != node; j++)
		;
	return before + j; /* kb->nodes are in name order */
}

/* Copies what e borrows from its file's parse into keep when hit, else
 * drops it. */
static void S_keep(struct dtk_entry *e, int hit, struct dtk_arena *keep)
{
	struct dtk_ref *v;
	unsigned k;

	if (!hit) {
		e->title = e->title ? "" : NULL;
		e->claim = e->claim ? "" : NULL;
		e->verified_by = e->relates = NULL;
		e->n_verified_by = e->n_relates = 0;
		return;
	}
	e->title = dtk_arena_strdup(keep, e->title);
	e->claim = dtk_arena_strdup(keep, e->claim);
	if (e->n_verified_by) { /* ids: the sources' own */
		v = dtk_arena_alloc(keep, e->n_verified_by * sizeof(*v));
		memcpy(v, e->verified_by, e->n_verified_by * sizeof(*v));
		e->verified_by = v;
	}
	if (e->n_relates) {
		v = dtk_arena_alloc(keep, e->n_relates * sizeof(*v));
		for (k = 0; k < e->n_relates; k++) {
			v[k].id = dtk_arena_strdup(keep, e->relates[k].id);
			v[k].pos = e->relates[k].pos;
		}
		e->relates = v;
	}
}

void dtk_search_node(struct dtk_search *s, const struct dtk_kb *kb, struct dtk_node *node,
                     struct dtk_arena *keep)
{
	struct dtk_search_hit *v = NULL, h;
	struct dtk_buf tb = DTK_BUF_INIT, cb = DTK_BUF_INIT;
	size_t n = 0, cap = 0, k, w, len;
	const char *title, *claim;
	/* the node's category, folded: a word may name it */
	char *cat = node->category >= 0 && (size_t)node->category < kb->n_categories
	                    ? dtk_fold(kb->categories[node->category].name,
	                               strlen(kb->categories[node->category].name), &len, NULL)
	                    : NULL;

	for (k = 0; k < node->n_entries; k++) {
		struct dtk_entry *e = &node->entries[k];
		/* an entry without a title or claim is an error the load reports */
		int all = e->title && e->claim;
		/* words of ASCII letters and digits: the text folded only where
		 * it must be */
		title = all && s->alnum ? dtk_fold_lower_apart(&tb, e->title) : NULL;
		title = all && !title ? dtk_fold_into(&tb, e->title) : title;
		claim = all && s->alnum ? dtk_fold_lower_apart(&cb, e->claim) : NULL;
		claim = all && !claim ? dtk_fold_into(&cb, e->claim) : claim;
		all = title && claim;
		memset(&h, 0, sizeof(h));
		h.e = e;
		h.order = k;
		for (w = 0; w < s->n && all; w++) {
			/* 2: the word itself, 1: a word it takes (S_has) */
			int t = S_has(s, w, e->id), c = S_has(s, w, claim);
			t = t == 2 ? 2 : S_has(s, w, title) > t ? S_has(s, w, title) : t;
			h.title += t != 0;
			h.claim += c != 0;
			h.exact += t == 2 || c == 2;
			all = t || c || S_in_sources(s, kb, e, w) || (cat && S_has(s, w, cat));
		}
		if (all) {
			h.fresh = dtk_entry_fresh(e);
			dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
			v[n++] = h;
		}
		if (all && keep && s->show) /* shown here, on a loading thread */
			s->show(s->show_arg, kb, &v[n - 1], keep);
		if (keep) /* borrowed: what is to be shown is kept */
			S_keep(e, all && !v[n - 1].shown, keep);
	}
	dtk_buf_release(&tb);
	dtk_buf_release(&cb);
	free(cat);
	if (!n)
		return;
	pthread_mutex_lock(&s->lock);
	dtk_grow((void **)&s->hits, &s->cap, s->n_hits + n, sizeof(*s->hits));
	memcpy(s->hits + s->n_hits, v, n * sizeof(*v));
	s->n_hits += n;
	pthread_mutex_unlock(&s->lock);
	free(v);
}

/* The work of dtk_search_base: the nodes taken one at a time. */
struct base_run {
	struct dtk_search *s;
	const struct dtk_kb *kb;
	const char *node;
	atomic_size_t next;
};

static void S_base_work(void *arg, int k)
{
	struct base_run *r = arg;
	size_t i;

	(void)k;
	while ((i = atomic_fetch_add(&r->next, 1)) < r->kb->n_nodes) {
		struct dtk_node *nd = r->kb->nodes[i];
		if (!r->node || !strcmp(nd->name, r->node))
			dtk_search_node(r->s, r->kb, nd, NULL); /* no keep: nd is not changed */
	}
}

void dtk_search_base(struct dtk_search *s, const struct dtk_kb *kb, const char *node)
{
	struct base_run r = {s, kb, node, 0};

	dtk_search_prepare(s, kb);
	atomic_init(&r.next, 0);
	dtk_threads_run(node ? 1 : dtk_threads(kb->n_nodes / 4 + 1), S_base_work, &r);
}

size_t dtk_search_hits(struct dtk_search_hit **out, struct dtk_search *s, const struct dtk_kb *kb)
{
	size_t i, n = s->n_hits;
	const struct dtk_node *last = NULL;
	size_t rank = 0;

	for (i = 0; i < n; i++) { /* a node's hits are together */
		struct dtk_search_hit *h = &s->hits[i];
		if (h->e->node != last) {
			last = h->e->node;
			rank = S_node_rank(kb, last);
		}
		h->order += rank << 24;
	}
	if (n > 1)
		qsort(s->hits, n, sizeof(*s->hits), S_hit_cmp);
	*out = s->hits;
	s->hits = NULL;
	s->n_hits = s->cap = 0;
	return n;
}
