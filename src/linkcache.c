/* linkcache.c: the links cache of dtk show (what each node file may name). */
#include "dtk/linkcache.h"

#include "dtk/cache.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define S_MAGIC "dtk links cache 1\n"
#define S_MAX_BYTES (64u << 20)

struct dtk_linkcache {
	char *path;
	char *root;
	int64_t now;   /* when opened, ns since the epoch */
	int64_t stamp; /* the cache's write time: no entry is trusted at or after it less the grain
	                */
	char *buf;     /* the file read, its lines cut into the entries' strings */
	struct dtk_linkcache_rec *v;
	size_t n;
	atomic_int missed; /* a look-up found no trusted entry: the cache is rewritten */
};

/* Writes the 32-bit key of a node name as lists hold it: 8 hex digits and
 * a NUL. */
static void S_key(char out[9], const char *name, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t k = (uint32_t)(dtk_cache_hash(name, len) >> 16);
	int i;

	for (i = 7; i >= 0; i--, k >>= 4)
		out[i] = hex[k & 15];
	out[8] = '\0';
}

void dtk_linkcache_key(char key[9], const char *node)
{
	S_key(key, node, strlen(node));
}

char *dtk_linkcache_path(const char *root)
{
	return dtk_cache_path(root, "links");
}

/* Parses the entries of the text at p (c->buf, NUL-terminated at the end
 * line): "name dev ino size mtime ctime list\n" each, sorted by name.
 * Returns 0, or -1 when they do not read so. */
static int S_parse(struct dtk_linkcache *c, char *p, size_t n)
{
	size_t i;

	c->v = dtk_xcalloc(n + 1, sizeof(*c->v));
	for (i = 0; i < n; i++) {
		struct dtk_linkcache_rec *r = &c->v[i];
		char *eol = strchr(p, '\n'), *sp = eol ? memchr(p, ' ', (size_t)(eol - p)) : NULL;
		const char *q;
		if (!sp || sp == p)
			return -1;
		*sp = *eol = '\0';
		r->name = p;
		q = sp + 1;
		if (dtk_cache_stat_read(&q, &r->st) < 0)
			return -1;
		r->list = q;
		r->list_len = (size_t)(eol - q);
		if (i && strcmp(c->v[i - 1].name, r->name) >= 0)
			return -1;
		p = eol + 1;
	}
	return *p ? -1 : 0;
}

/* Reads the cache file into c when it is whole and of this base. */
static void S_load(struct dtk_linkcache *c)
{
	struct dtk_buf head = DTK_BUF_INIT;
	struct stat st;
	char *tail, *p;
	size_t len = 0;
	uint64_t n = 0;
	/* O_NONBLOCK: a FIFO in its place does not wait for a writer */
	int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > S_MAX_BYTES ||
	    dtk_file_read_fd(&c->buf, &len, fd, c->path, S_MAX_BYTES) != 0) {
		dtk_error_clear();
		goto done;
	}
	dtk_buf_printf(&head, S_MAGIC "root %s\n", c->root);
	if (len < head.len || memcmp(c->buf, head.ptr, head.len))
		goto done;
	tail = dtk_cache_end_check(c->buf, len, &n);
	if (!tail || tail < c->buf + head.len || n > len / 12)
		goto done;
	p = dtk_cache_time_read(c->buf + head.len, &st, &c->stamp);
	if (!p || S_parse(c, p, (size_t)n) < 0) {
		free(c->v);
		c->v = NULL;
		goto done;
	}
	c->n = (size_t)n;
done:
	if (!c->n) {
		free(c->buf);
		c->buf = NULL;
	}
	dtk_buf_release(&head);
	close(fd);
}

struct dtk_linkcache *dtk_linkcache_open(const char *path, const char *root)
{
	struct dtk_linkcache *c = dtk_xcalloc(1, sizeof(*c));

	c->now = dtk_cache_now();
	c->path = dtk_xstrdup(path);
	c->root = dtk_xstrdup(root);
	atomic_init(&c->missed, 0);
	S_load(c);
	return c;
}

void dtk_linkcache_free(struct dtk_linkcache *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->root);
	free(c->buf);
	free(c->v);
	free(c);
}

size_t dtk_linkcache_count(const struct dtk_linkcache *c)
{
	return c ? c->n : 0;
}

const char *dtk_linkcache_get(const struct dtk_linkcache *c, const char *name,
                              const struct stat *st, size_t *len)
{
	size_t lo = 0, hi = c->n, mid;
	int cmp;

	while (lo < hi) {
		const struct dtk_linkcache_rec *r;
		mid = lo + (hi - lo) / 2;
		r = &c->v[mid];
		cmp = strcmp(name, r->name);
		if (cmp < 0) {
			hi = mid;
		} else if (cmp > 0) {
			lo = mid + 1;
		} else {
			if (dtk_cache_trusted(&r->st, st, c->stamp)) {
				*len = r->list_len;
				return r->list;
			}
			break;
		}
	}
	atomic_store((atomic_int *)&c->missed, 1);
	return NULL;
}

/* Bit 1: a byte of a name (a-z, 0-9, '-'); bit 2: a digit; bit 4: a byte a
 * name may start with (a-z, 0-9). */
static const unsigned char S_class[256] = {
        ['-'] = 1, ['0'] = 7, ['1'] = 7, ['2'] = 7, ['3'] = 7, ['4'] = 7, ['5'] = 7, ['6'] = 7,
        ['7'] = 7, ['8'] = 7, ['9'] = 7, ['a'] = 5, ['b'] = 5, ['c'] = 5, ['d'] = 5, ['e'] = 5,
        ['f'] = 5, ['g'] = 5, ['h'] = 5, ['i'] = 5, ['j'] = 5, ['k'] = 5, ['l'] = 5, ['m'] = 5,
        ['n'] = 5, ['o'] = 5, ['p'] = 5, ['q'] = 5, ['r'] = 5, ['s'] = 5, ['t'] = 5, ['u'] = 5,
        ['v'] = 5, ['w'] = 5, ['x'] = 5, ['y'] = 5, ['z'] = 5,
};

struct span {
	const char *p;
	size_t len;
};

static int S_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 8);
}

char *dtk_linkcache_scan(const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	const char *at = buf, *end = buf + len, *dash, *s, *e, *q;
	struct span *set = NULL;
	char *keys, *out;
	size_t cap = 64, n = 0, i, vn = 0;

	/* bytes whose values YAML may spell otherwise than as they stand */
	if ((len >= 2 && ((u[0] == 0xfe && u[1] == 0xff) || (u[0] == 0xff && u[1] == 0xfe))) ||
	    memchr(buf, '\\', len) || memchr(buf, '\0', len))
		return dtk_xstrdup("*");
	set = dtk_xcalloc(cap, sizeof(*set));
	while ((dash = memchr(at, '-', (size_t)(end - at)))) {
		for (s = dash; s > at && (S_class[(unsigned char)s[-1]] & 1); s--)
			;
		for (e = dash + 1; e < end && (S_class[(unsigned char)*e] & 1); e++)
			;
		at = e;
		for (q = e - 1; *q != '-'; q--)
			;
		if (q == s || !(S_class[(unsigned char)*s] & 4) || q - s > 255)
			continue;
		for (i = 1; q + i < e && (S_class[(unsigned char)q[i]] & 2); i++)
			;
		if (q + i != e)
			continue;
		/* the prefix s..q, once: an open-addressed set of spans */
		uint64_t h = dtk_cache_hash(s, (size_t)(q - s));
		for (i = (size_t)h & (cap - 1); set[i].p; i = (i + 1) & (cap - 1))
			if (set[i].len == (size_t)(q - s) && !memcmp(set[i].p, s, set[i].len))
				break;
		if (set[i].p)
			continue;
		set[i] = (struct span){s, (size_t)(q - s)};
		if (++n * 2 > cap) { /* grow */
			struct span *old = set;
			size_t k, oc = cap;
			cap *= 2;
			set = dtk_xcalloc(cap, sizeof(*set));
			for (k = 0; k < oc; k++) {
				if (!old[k].p)
					continue;
				for (i = (size_t)dtk_cache_hash(old[k].p, old[k].len) & (cap - 1);
				     set[i].p; i = (i + 1) & (cap - 1))
					;
				set[i] = old[k];
			}
			free(old);
		}
	}
	/* the keys of the prefixes, sorted, each once, "k1 k2 ..." */
	keys = dtk_xmalloc(n * 9 + 1);
	for (i = 0; i < cap; i++)
		if (set[i].p)
			S_key(keys + 9 * vn++, set[i].p, set[i].len);
	if (vn > 1)
		qsort(keys, vn, 9, S_key_cmp);
	out = dtk_xmalloc(vn * 9 + 1);
	for (i = n = 0; i < vn; i++)
		if (!n || memcmp(out + 9 * (n - 1), keys + 9 * i, 8)) {
			memcpy(out + 9 * n, keys + 9 * i, 8);
			out[9 * n++ + 8] = ' ';
		}
	out[n ? 9 * n - 1 : 0] = '\0';
	free(set);
	free(keys);
	return out;
}

int dtk_linkcache_has(const char *list, size_t len, const char *key)
{
	size_t lo = 0, hi = (len + 1) / 9, mid;
	int cmp;

	if (!len)
		return 0;
	if ((len + 1) % 9) /* "*", or not a list of keys: may name any node */
		return 1;
	while (lo < hi) { /* the keys are sorted: a binary search */
		mid = lo + (hi - lo) / 2;
		cmp = memcmp(key, list + 9 * mid, 8);
		if (!cmp)
			return 1;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

int dtk_linkcache_names(const char *list, const char *node)
{
	char key[9];
	dtk_linkcache_key(key, node);
	return dtk_linkcache_has(list, strlen(list), key);
}

/* Returns 1 when recs are the entries read. */
static int S_same(const struct dtk_linkcache *c, const struct dtk_linkcache_rec *recs, size_t n)
{
	size_t i;
	if (!c->buf || n != c->n)
		return 0;
	for (i = 0; i < n; i++) {
		const struct dtk_linkcache_rec *a = &recs[i], *b = &c->v[i];
		if (strcmp(a->name, b->name) || !dtk_cache_stat_same(&a->st, &b->st) ||
		    strcmp(a->list, b->list))
			return 0;
	}
	return 1;
}

int dtk_linkcache_save(struct dtk_linkcache *c, const struct dtk_linkcache_rec *recs, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *tmp;
	size_t i;
	int fd, rc;

	if (!atomic_load(&c->missed) && S_same(c, recs, n))
		return 0;
	dtk_buf_printf(&b, S_MAGIC "root %s\n", c->root);
	dtk_cache_time_put(&b, c->now);
	for (i = 0; i < n; i++) {
		dtk_buf_printf(&b, "%s ", recs[i].name);
		dtk_cache_stat_put(&b, &recs[i].st);
		dtk_buf_printf(&b, " %s\n", recs[i].list);
	}
	dtk_cache_end_put(&b, n);
	fd = dtk_cache_create(c->path, &tmp);
	rc = fd < 0 ? -1
	            : dtk_cache_commit(fd, tmp, c->path, dtk_cache_write(fd, b.ptr, b.len) == 0);
	dtk_buf_release(&b);
	return rc;
}
