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
#define S_NS DTK_CACHE_NS

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

/* Reads a decimal number ending at a space from *p; returns 0 or -1. */
static int S_num(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s >= end || *s != ' ')
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

/* Parses the entries of c->buf[from..to): "name dev ino size mtime ctime
 * list\n" each, sorted by name. Returns 0, or -1 when they do not read so. */
static int S_parse(struct dtk_linkcache *c, char *from, char *to, size_t n)
{
	size_t i;
	char *p = from, *eol, *sp;
	uint64_t num[5];

	c->v = dtk_xcalloc(n + 1, sizeof(*c->v));
	for (i = 0; i < n; i++) {
		struct dtk_linkcache_rec *r = &c->v[i];
		const char *q;
		int k;
		eol = memchr(p, '\n', (size_t)(to - p));
		sp = eol ? memchr(p, ' ', (size_t)(eol - p)) : NULL;
		if (!sp || sp == p)
			return -1;
		*sp = '\0';
		r->name = p;
		q = sp + 1;
		for (k = 0; k < 5; k++)
			if (S_num(&q, eol + 1, &num[k]) < 0)
				return -1;
		if (num[3] > INT64_MAX || num[4] > INT64_MAX)
			return -1;
		r->dev = num[0];
		r->ino = num[1];
		r->size = num[2];
		r->mtime_ns = (int64_t)num[3];
		r->ctime_ns = (int64_t)num[4];
		*eol = '\0';
		r->list = q;
		r->list_len = (size_t)(eol - q);
		if (i && strcmp(c->v[i - 1].name, r->name) >= 0)
			return -1;
		p = eol + 1;
	}
	return p == to ? 0 : -1;
}

/* Reads the cache file into c when it is whole and of this base. */
static void S_load(struct dtk_linkcache *c)
{
	struct dtk_buf head = DTK_BUF_INIT;
	struct stat st;
	char *end, *tail;
	size_t len = 0, n = 0;
	int64_t sec, nsec, at;
	uint64_t hash;
	char line[64];
	/* O_NONBLOCK: a FIFO in its place does not wait for a writer */
	int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), used;

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
	/* the last line: "end <n> <hash of everything before it>" */
	if (len < 2 || c->buf[len - 1] != '\n')
		goto done;
	c->buf[len - 1] = '\0';
	tail = strrchr(c->buf, '\n');
	if (!tail || tail + 1 < c->buf + head.len ||
	    sscanf(tail + 1, "end %zu %" SCNx64, &n, &hash) != 2)
		goto done;
	hash = dtk_cache_sum(c->buf, (size_t)(tail + 1 - c->buf));
	snprintf(line, sizeof(line), "end %zu %016" PRIx64, n, hash);
	if (strcmp(tail + 1, line)) /* exactly as written */
		goto done;
	end = memchr(c->buf + head.len, '\n', (size_t)(tail + 1 - c->buf) - head.len);
	if (!end ||
	    sscanf(c->buf + head.len, "time %" SCNd64 " %" SCNd64 "%n", &sec, &nsec, &used) != 2 ||
	    c->buf + head.len + used != end || sec < 0 || nsec < 0 || nsec >= S_NS || n > len / 12)
		goto done;
	if (S_parse(c, end + 1, tail + 1, n) < 0) {
		free(c->v);
		c->v = NULL;
		goto done;
	}
	c->n = n;
	/* the earlier of the time it says it was made and its mtime */
	at = (int64_t)st.st_mtim.tv_sec * S_NS + st.st_mtim.tv_nsec;
	c->stamp = sec * S_NS + nsec < at ? sec * S_NS + nsec : at;
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

void dtk_linkcache_stat(struct dtk_linkcache_rec *r, const struct stat *st)
{
	struct dtk_cache_stat cs;

	dtk_cache_stat_of(&cs, st);
	r->dev = cs.dev;
	r->ino = cs.ino;
	r->size = cs.size;
	r->mtime_ns = cs.mtime_ns;
	r->ctime_ns = cs.ctime_ns;
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
			struct dtk_cache_stat rs = {r->dev, r->ino, r->size, r->mtime_ns,
			                            r->ctime_ns};
			if (dtk_cache_trusted(&rs, st, c->stamp)) {
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
		if (strcmp(a->name, b->name) || a->dev != b->dev || a->ino != b->ino ||
		    a->size != b->size || a->mtime_ns != b->mtime_ns ||
		    a->ctime_ns != b->ctime_ns || strcmp(a->list, b->list))
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
	dtk_buf_printf(&b, S_MAGIC "root %s\ntime %" PRId64 " %" PRId64 "\n", c->root,
	               c->now / S_NS, c->now % S_NS);
	for (i = 0; i < n; i++)
		dtk_buf_printf(
		        &b, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %s\n",
		        recs[i].name, recs[i].dev, recs[i].ino, recs[i].size, recs[i].mtime_ns,
		        recs[i].ctime_ns, recs[i].list);
	dtk_buf_printf(&b, "end %zu %016" PRIx64 "\n", n, dtk_cache_sum(b.ptr, b.len));
	fd = dtk_cache_create(c->path, &tmp);
	rc = fd < 0 ? -1
	            : dtk_cache_commit(fd, tmp, c->path, dtk_cache_write(fd, b.ptr, b.len) == 0);
	dtk_buf_release(&b);
	return rc;
}
