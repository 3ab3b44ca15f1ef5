/* nodecache.c: the node cache's file (each node file's packed node, by its stat
 * data; the packing is nodecache_codec.c's). */
#define _GNU_SOURCE /* copy_file_range */
#include "dtk/nodecache.h"

#include "dtk/cache.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#define S_MAGIC "dtk node cache 6\n"
/* the build the packed nodes are of: the schema may change between them
 * (S_build adds the program's own identity: builds of one version differ) */
#define S_BUILD "build " DTK_VERSION " 8"
#define S_HEAD 64 /* the head: the magic and where the index is, padded */
#define S_MAX_INDEX (16u << 20)

/* ---- the cache file ---- */

/* dl_iterate_phdr's callback: appends the GNU build id of the first object
 * (the program) to the buffer arg, when it has one; stops there. */
static int S_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dtk_buf *b = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end;
		if (ph->p_type != PT_NOTE)
			continue;
		for (end = p + ph->p_memsz; p + sizeof(ElfW(Nhdr)) <= end;) {
			const ElfW(Nhdr) *n = (const void *)p;
			const unsigned char *desc =
			        (const unsigned char *)p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > (const unsigned char *)end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4)) {
				for (uint32_t k = 0; k < n->n_descsz; k++)
					dtk_buf_printf(b, "%02x", desc[k]);
				return 1;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

/* Returns the build line of the index (malloc'd): S_BUILD and the
 * program's GNU build id, or, without one, the stat data of its file. */
static char *S_build(void)
{
	struct dtk_buf buf = DTK_BUF_INIT, *b = &buf;
	size_t at;
	struct stat st;

	dtk_buf_puts(b, S_BUILD " ");
	at = b->len;
	dl_iterate_phdr(S_build_id, b);
	if (b->len == at && stat("/proc/self/exe", &st) == 0)
		dtk_buf_printf(b, "exe-%ju-%ju-%jd-%jd", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
		               (intmax_t)st.st_size,
		               (intmax_t)st.st_mtim.tv_sec * DTK_CACHE_NS + st.st_mtim.tv_nsec);
	dtk_buf_putc(b, '\n');
	return dtk_buf_detach(b);
}

struct rec {
	char *name;
	struct dtk_cache_stat st;
	uint64_t off, len, sum; /* where its packed node is, in the file read or written */
	uint64_t hlen, hsum;    /* its head (dtk_nodecache_head_len): length, checksum */
	struct dtk_nodecache_ref summary; /* where its node's summary is (nodesum.h) */
	/* where the terms of its entries are (len 0: none), likewise */
	struct dtk_nodecache_ref terms;
	/* the nodes its entries name (dtk_nodecache_links_of): in the index
	 * read, or malloc'd for one added */
	char *links;
	uint64_t clean;  /* its file's bytes are clean (struct dtk_node's) */
	int terms_new;   /* the terms are in the file written already */
	atomic_int kept; /* looked up and trusted: written again */
	int added;       /* added now (dtk_nodecache_put) */
};

struct dtk_nodecache {
	char *path, *root;
	char *build; /* the index's build line (S_build) */
	int64_t now, stamp;
	uint64_t key[2]; /* what summaries hash their sources under (nodesum.h) */
	int fd;          /* the cache read, open for its packed nodes; -1: none */
	char *index;     /* its index, the names of v cut into it */
	struct rec *v;   /* the records read, sorted by name */
	size_t n;
	pthread_mutex_t lock; /* the fields below */
	int out;              /* the cache being written, -1: not yet */
	char *tmp;            /* its temporary name; NULL: out is the cache read, appended to */
	int rewrite;          /* write a new file, not appended to the cache read */
	uint64_t end;         /* its length so far */
	int failed;           /* a write to it failed: it is not used */
	struct rec *add;      /* the records added, their nodes in out */
	size_t n_add, cap_add;
	atomic_int changed; /* a record was dropped or added */
};

/* Reads "off len sum" at *q into ref, within [S_HEAD, data) (or all 0
 * when allow_none). Returns 0 or -1. */
static int S_parse_ref(const char **q, struct dtk_nodecache_ref *ref, uint64_t data, int allow_none)
{
	if (dtk_cache_num(q, &ref->off) < 0 || *(*q)++ != ' ' || dtk_cache_num(q, &ref->len) < 0 ||
	    *(*q)++ != ' ' || dtk_cache_num(q, &ref->sum) < 0)
		return -1;
	if (allow_none && !ref->off && !ref->len && !ref->sum)
		return 0;
	return ref->off < S_HEAD || ref->off > data || ref->len > data - ref->off ? -1 : 0;
}

/* Returns 1 when s is a list of links as dtk_nodecache_links_of makes it:
 * node names joined by ',', or "-" for none (cut to "" then). */
static int S_links_ok(char *s)
{
	if (!strcmp(s, "-")) {
		*s = '\0';
		return 1;
	}
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-,") == strlen(s) &&
	       s[0] != ',' && s[strlen(s) - 1] != ',' && !strstr(s, ",,");
}

/* Parses the records of the index at p (NUL-terminated, the end line cut
 * off): n lines "name dev ino size mtime ctime off len sum hlen hsum soff
 * slen ssum toff tlen tsum clean links" (the packed node, its head's length
 * and checksum, its summary, then the terms or 0 0 0, then 1 when the file's bytes are clean, then
 * the nodes its entries name), sorted by name, each within [S_HEAD, data). Returns 0 or -1. */
static int S_parse_recs(struct dtk_nodecache *c, char *p, size_t n, uint64_t data)
{
	size_t i;

	c->v = dtk_xcalloc(n + 1, sizeof(*c->v));
	for (i = 0; i < n; i++) {
		struct rec *r = &c->v[i];
		struct dtk_nodecache_ref node;
		char *eol = strchr(p, '\n'), *sp = eol ? memchr(p, ' ', (size_t)(eol - p)) : NULL;
		const char *q;
		if (!sp || sp == p)
			return -1;
		*eol = *sp = '\0';
		r->name = p;
		q = sp + 1;
		if (dtk_cache_stat_read(&q, &r->st) < 0 || S_parse_ref(&q, &node, data, 0) < 0 ||
		    *q++ != ' ' || dtk_cache_num(&q, &r->hlen) < 0 || *q++ != ' ' ||
		    dtk_cache_num(&q, &r->hsum) < 0 || r->hlen < 4 || r->hlen > node.len ||
		    *q++ != ' ' || S_parse_ref(&q, &r->summary, data, 0) < 0 || *q++ != ' ' ||
		    S_parse_ref(&q, &r->terms, data, 1) < 0 || *q++ != ' ' ||
		    dtk_cache_num(&q, &r->clean) < 0 || r->clean > 1 || *q++ != ' ')
			return -1;
		r->links = (char *)q;
		if (!S_links_ok(r->links))
			return -1;
		r->off = node.off;
		r->len = node.len;
		r->sum = node.sum;
		if (i && strcmp(c->v[i - 1].name, r->name) >= 0)
			return -1;
		p = eol + 1;
	}
	return *p ? -1 : 0;
}

/* Reads the line "key <hex> <hex>" at *p into c->key (*p past it). Returns 0
 * or -1. */
static int S_parse_key(struct dtk_nodecache *c, char **p)
{
	unsigned long long k0, k1;
	int n = 0;

	if (sscanf(*p, "key %16llx %16llx\n%n", &k0, &k1, &n) != 2 || !n)
		return -1;
	c->key[0] = k0;
	c->key[1] = k1;
	*p += n;
	return 0;
}

/* Sets c->key to a new random key (a cache of its own). */
static void S_new_key(struct dtk_nodecache *c)
{
	if (getrandom(c->key, sizeof(c->key), GRND_NONBLOCK) != (ssize_t)sizeof(c->key)) {
		c->key[0] = (uint64_t)dtk_cache_now() ^ ((uint64_t)getpid() << 32);
		c->key[1] = (uint64_t)(uintptr_t)c ^ 0x9e3779b97f4a7c15ULL;
	}
}

void dtk_nodecache_key(const struct dtk_nodecache *c, uint64_t key[2])
{
	key[0] = c->key[0];
	key[1] = c->key[1];
}

/* Reads the cache file's index into c when it is whole and of this base
 * and build. */
static void S_load(struct dtk_nodecache *c)
{
	struct dtk_buf want = DTK_BUF_INIT;
	struct stat st;
	char head[S_HEAD + 1], *p;
	uint64_t ioff, ilen, n;

	/* O_NONBLOCK: a FIFO in its place does not wait for a writer */
	c->fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (c->fd < 0 || fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread(c->fd, head, S_HEAD, 0) != S_HEAD)
		goto fail;
	head[S_HEAD] = '\0';
	if (strncmp(head, S_MAGIC, strlen(S_MAGIC)) ||
	    sscanf(head + strlen(S_MAGIC), "index %" SCNu64 " %" SCNu64, &ioff, &ilen) != 2 ||
	    ioff < S_HEAD || ilen < 2 || ilen > S_MAX_INDEX)
		goto fail;
	/* no check of the size read before the head: another process may
	 * have appended an index and pointed the head at it since; a short
	 * read says the file is shorter than the head says */
	c->index = dtk_xmalloc((size_t)ilen + 1);
	if (pread(c->fd, c->index, (size_t)ilen, (off_t)ioff) != (ssize_t)ilen)
		goto fail;
	c->index[ilen] = '\0';
	if (!dtk_cache_end_check(c->index, (size_t)ilen, &n) || n > ilen / 16)
		goto fail;
	dtk_buf_printf(&want, "root %s\n%s", c->root, c->build);
	if (strncmp(c->index, want.ptr, want.len))
		goto fail;
	p = dtk_cache_time_read(c->index + want.len, &st, &c->stamp);
	if (!p || S_parse_key(c, &p) < 0 || S_parse_recs(c, p, (size_t)n, ioff) < 0)
		goto fail;
	c->n = (size_t)n;
	dtk_buf_release(&want);
	return;
fail:
	dtk_buf_release(&want);
	free(c->v);
	c->v = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	S_new_key(c);
	atomic_store(&c->changed, 1);
}

struct dtk_nodecache *dtk_nodecache_open(const char *path, const char *root)
{
	struct dtk_nodecache *c = dtk_xcalloc(1, sizeof(*c));

	c->now = dtk_cache_now();
	c->path = dtk_xstrdup(path);
	c->root = dtk_xstrdup(root);
	c->build = S_build();
	c->fd = c->out = -1;
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->changed, 0);
	S_load(c);
	return c;
}

void dtk_nodecache_free(struct dtk_nodecache *c)
{
	size_t i;

	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	if (c->out >= 0 && c->tmp) /* not saved */
		dtk_cache_commit(c->out, c->tmp, c->path, 0);
	else if (c->out >= 0) /* appended to: the bytes no index names are garbage */
		close(c->out);
	for (i = 0; i < c->n_add; i++) {
		free(c->add[i].name);
		free(c->add[i].links);
	}
	free(c->add);
	free(c->v);
	free(c->index);
	free(c->path);
	free(c->root);
	free(c->build);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct rec *S_find(struct dtk_nodecache *c, const char *name)
{
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		int cmp;
		mid = lo + (hi - lo) / 2;
		cmp = strcmp(name, c->v[mid].name);
		if (!cmp)
			return &c->v[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* dtk_nodecache_get, reading the packed node's head only when head. */
static int S_lookup(struct dtk_nodecache *c, const char *name, const struct stat *st, char **blob,
                    size_t *len, int head)
{
	struct rec *r = S_find(c, name);
	uint64_t n = r && head ? r->hlen
	             : r       ? r->len
	                       : 0,
	         sum = r && head ? r->hsum
	               : r       ? r->sum
	                         : 0;
	char *b = NULL;

	if (blob)
		*blob = NULL;
	if (!r || !dtk_cache_trusted(&r->st, st, c->stamp))
		goto miss;
	if (blob) {
		b = dtk_xmalloc((size_t)n + 1);
		if (pread(c->fd, b, (size_t)n, (off_t)r->off) != (ssize_t)n ||
		    dtk_cache_sum(b, (size_t)n) != sum || dtk_nodecache_head_len(b, n) != r->hlen) {
			free(b);
			goto miss;
		}
		b[n] = '\0';
		*blob = b;
		*len = (size_t)n;
	}
	atomic_store(&r->kept, 1);
	return 0;
miss:
	if (r)
		atomic_store(&c->changed, 1);
	return -1;
}

int dtk_nodecache_get(struct dtk_nodecache *c, const char *name, const struct stat *st, char **blob,
                      size_t *len)
{
	return S_lookup(c, name, st, blob, len, 0);
}

int dtk_nodecache_get_head(struct dtk_nodecache *c, const char *name, const struct stat *st,
                           char **blob, size_t *len)
{
	return S_lookup(c, name, st, blob, len, 1);
}

int dtk_nodecache_get_summary(struct dtk_nodecache *c, const char *name, const struct stat *st,
                              struct dtk_arena *arena, const char **blob, size_t *len)
{
	struct rec *r = S_find(c, name);
	char *b = NULL;

	*blob = NULL;
	if (r && dtk_cache_trusted(&r->st, st, c->stamp) && c->fd >= 0)
		b = dtk_arena_alloc_raw(arena, (size_t)r->summary.len + 1);
	if (!b ||
	    pread(c->fd, b, (size_t)r->summary.len, (off_t)r->summary.off) !=
	            (ssize_t)r->summary.len ||
	    dtk_cache_sum(b, (size_t)r->summary.len) != r->summary.sum) {
		if (r)
			atomic_store(&c->changed, 1);
		return -1;
	}
	b[r->summary.len] = '\0';
	atomic_store(&r->kept, 1);
	*len = (size_t)r->summary.len;
	*blob = b;
	return 0;
}

const char *dtk_nodecache_links(struct dtk_nodecache *c, const char *name)
{
	struct rec *r = S_find(c, name);

	return r && atomic_load(&r->kept) ? r->links : NULL;
}

int dtk_nodecache_clean(struct dtk_nodecache *c, const char *name)
{
	struct rec *r = S_find(c, name);

	return r && atomic_load(&r->kept) && r->clean;
}

/* qsort's comparison of two strings (const char *). */
static int S_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void dtk_nodecache_links_of(struct dtk_buf *b, const struct dtk_node *node)
{
	char **v = NULL;
	size_t i, k, n = 0, cap = 0, plen, at = b->len;

	for (i = 0; i < node->n_linking; i++) {
		const struct dtk_entry *e = node->linking[i];
		size_t m = e->n_relates + e->n_contradicts;
		for (k = 0; k < m + (e->superseded_by.id != NULL); k++) {
			const char *id = k < e->n_relates ? e->relates[k].id
			                 : k < m          ? e->contradicts[k - e->n_relates].ref.id
			                                  : e->superseded_by.id;
			if (!id || !dtk_entry_id_split(id, &plen) ||
			    (plen == strlen(node->name) && !strncmp(id, node->name, plen)))
				continue;
			dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
			v[n++] = dtk_xstrndup(id, plen);
		}
	}
	if (n) /* v is NULL without any */
		qsort(v, n, sizeof(*v), S_str_cmp);
	for (i = 0; i < n; i++) {
		if (!i || strcmp(v[i - 1], v[i]))
			dtk_buf_printf(b, "%s%s", b->len > at ? "," : "", v[i]);
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int dtk_nodecache_links_has(const char *links, const char *node)
{
	size_t len = strlen(node);
	const char *p = links;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && !strncmp(p, node, len))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int dtk_nodecache_refs(struct dtk_nodecache *c, const char *name, struct dtk_nodecache_ref *node,
                       struct dtk_nodecache_ref *terms)
{
	struct rec *r = S_find(c, name);

	if (!r || !atomic_load(&r->kept))
		return -1;
	*node = (struct dtk_nodecache_ref){r->off, r->len, r->sum};
	*terms = r->terms;
	return 0;
}

int dtk_nodecache_read(struct dtk_nodecache *c, const struct dtk_nodecache_ref *ref,
                       struct dtk_buf *b)
{
	b->len = 0;
	if (c->fd < 0 || !ref->len)
		return -1;
	dtk_grow((void **)&b->ptr, &b->cap, (size_t)ref->len + 1, 1);
	if (pread(c->fd, b->ptr, (size_t)ref->len, (off_t)ref->off) != (ssize_t)ref->len ||
	    dtk_cache_sum(b->ptr, (size_t)ref->len) != ref->sum)
		return -1;
	b->len = (size_t)ref->len;
	b->ptr[b->len] = '\0';
	return 0;
}

/* Opens the cache being written, as c->out: the cache file read, to
 * append to, when there is one, it is still the file at c->path and no
 * rewrite is asked; else a new temporary file, with room for its head.
 * Returns 0 or -1. c->lock is held, or the load is over. */
static int S_open_out(struct dtk_nodecache *c)
{
	static const char room[S_HEAD];
	struct stat a, b;

	if (c->fd >= 0 && !c->rewrite) {
		c->out = open(c->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (c->out >= 0 && fstat(c->out, &a) == 0 && fstat(c->fd, &b) == 0 &&
		    S_ISREG(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 0;
		if (c->out >= 0)
			close(c->out);
	}
	c->out = dtk_cache_create(c->path, &c->tmp);
	c->end = S_HEAD;
	return c->out < 0 || dtk_cache_write(c->out, room, S_HEAD) < 0 ? -1 : 0;
}

/* Takes the exclusive lock of the cache file fd, waiting at most about two
 * seconds (a writer stopped with the lock held must not stop every other
 * command: the cache is only an aid). Returns 0 or -1. */
static int S_lock(int fd)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		usleep(10000);
	}
	return -1;
}

/* Returns 1 when the file at c's path is no longer the one c->out has open
 * (another command wrote the cache anew and renamed it there). */
static int S_replaced(const struct dtk_nodecache *c)
{
	struct stat a, b;
	return lstat(c->path, &a) < 0 || fstat(c->out, &b) < 0 || a.st_dev != b.st_dev ||
	       a.st_ino != b.st_ino;
}

/* Appends buf[0..len) to the cache file read (c->out, its tmp NULL), at
 * its end, under an exclusive lock: other processes append to it too.
 * Returns the offset, or 0. */
static uint64_t S_append_live(struct dtk_nodecache *c, const char *buf, size_t len)
{
	off_t at;

	if (S_lock(c->out) < 0)
		return 0;
	at = lseek(c->out, 0, SEEK_END);
	if (at < S_HEAD || dtk_cache_write(c->out, buf, len) < 0)
		at = 0;
	flock(c->out, LOCK_UN);
	return (uint64_t)at;
}

/* Writes buf[0..len) at the end of the cache being written (S_open_out
 * opens it first). Returns its offset, or 0 when it cannot be written.
 * c->lock is held, or the load is over. */
static uint64_t S_append(struct dtk_nodecache *c, const char *buf, size_t len)
{
	uint64_t at;

	if (c->failed)
		return 0;
	if (c->out < 0 && S_open_out(c) < 0)
		c->failed = 1;
	if (!c->failed && !c->tmp) {
		at = S_append_live(c, buf, len);
		c->failed = !at;
		return at;
	}
	at = c->end;
	c->failed = c->failed || dtk_cache_write(c->out, buf, len) < 0;
	c->end += len;
	return c->failed ? 0 : at;
}

/* Sets r's terms to terms[0..len), written to the cache being written.
 * c->lock is held. Returns 0, or -1 when it cannot be written. */
static int S_put_terms(struct dtk_nodecache *c, struct rec *r, const char *terms, size_t len)
{
	r->terms = (struct dtk_nodecache_ref){0, 0, 0};
	if (!terms || !len)
		return 0;
	r->terms.off = S_append(c, terms, len);
	if (!r->terms.off)
		return -1;
	r->terms.len = len;
	r->terms.sum = dtk_cache_sum(terms, len);
	r->terms_new = 1;
	return 0;
}

void dtk_nodecache_put(struct dtk_nodecache *c, const char *name, const struct stat *st,
                       const char *blob, size_t len, const struct dtk_buf *summary,
                       const char *terms, size_t terms_len, const char *links, int clean)
{
	struct rec *r;

	pthread_mutex_lock(&c->lock);
	dtk_grow((void **)&c->add, &c->cap_add, c->n_add + 1, sizeof(*c->add));
	r = &c->add[c->n_add];
	memset(r, 0, sizeof(*r));
	r->off = dtk_nodecache_head_len(blob, len) ? S_append(c, blob, len) : 0;
	r->summary.off = r->off && summary->len ? S_append(c, summary->ptr, summary->len) : 0;
	r->summary.len = summary->len;
	r->summary.sum = dtk_cache_sum(summary->ptr, summary->len);
	if (r->off && r->summary.off && S_put_terms(c, r, terms, terms_len) == 0) {
		r->name = dtk_xstrdup(name);
		r->links = dtk_xstrdup(links);
		r->clean = clean != 0;
		dtk_cache_stat_of(&r->st, st);
		r->len = len;
		r->sum = dtk_cache_sum(blob, len);
		r->hlen = dtk_nodecache_head_len(blob, len);
		r->hsum = dtk_cache_sum(blob, (size_t)r->hlen);
		r->added = 1;
		c->n_add++;
	}
	pthread_mutex_unlock(&c->lock);
	atomic_store(&c->changed, 1);
}

void dtk_nodecache_put_terms(struct dtk_nodecache *c, const char *name, const char *terms,
                             size_t len)
{
	struct rec *r = S_find(c, name);

	if (!r || !atomic_load(&r->kept))
		return;
	pthread_mutex_lock(&c->lock);
	if (S_put_terms(c, r, terms, len) < 0)
		atomic_store(&r->kept, 0); /* written again without: dropped */
	pthread_mutex_unlock(&c->lock);
	atomic_store(&c->changed, 1);
}

static int S_rec_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct rec *const *)a)->name, (*(const struct rec *const *)b)->name);
}

/* Copies the bytes at *off, len of them, of the cache read to the end of
 * the cache being written (in the kernel when it can: the bytes are checked
 * when a look-up reads them) and sets *off to their place there. Returns 0
 * or -1. c->lock is not needed: the load is over. */
static int S_copy_range(struct dtk_nodecache *c, uint64_t *off, uint64_t len)
{
	loff_t from = (loff_t)*off;
	size_t left = (size_t)len;
	uint64_t at;
	char *b;

	if (!c->failed && c->out >= 0 && len) {
		at = c->end;
		while (left) {
			ssize_t k = copy_file_range(c->fd, &from, c->out, NULL, left, 0);
			if (k <= 0)
				break;
			left -= (size_t)k;
		}
		if (!left) {
			c->end += len;
			*off = at;
			return 0;
		}
		if (left != (size_t)len) /* part copied: the file is off */
			c->failed = 1;
	}
	b = dtk_xmalloc((size_t)len + 1);
	*off = pread(c->fd, b, (size_t)len, (off_t)*off) == (ssize_t)len
	               ? S_append(c, b, (size_t)len)
	               : 0;
	free(b);
	return *off ? 0 : -1;
}

/* Copies the packed node of r, a record kept from the cache read, and its
 * terms when they are there only, to the cache being written. Returns 0 or
 * -1. */
static int S_copy_old(struct dtk_nodecache *c, struct rec *r)
{
	if (S_copy_range(c, &r->off, r->len) < 0 ||
	    S_copy_range(c, &r->summary.off, r->summary.len) < 0)
		return -1;
	if (r->terms.len && !r->terms_new)
		return S_copy_range(c, &r->terms.off, r->terms.len);
	return 0;
}

/* Drops from v (n records sorted by name) a record read whose file also
 * has a record added now (its node was unpacked but failed a check, then
 * parsed): the added one is what the file holds. Returns the count left. */
static size_t S_unique(struct rec **v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1]->name, v[i]->name)) {
			if (v[i]->added)
				v[k - 1] = v[i];
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

/* Sets head to the cache file's head: the magic and where the index is
 * (ioff, len), padded with spaces to S_HEAD bytes, the last a newline. */
static void S_head(char head[S_HEAD], uint64_t ioff, size_t len)
{
	int n;

	memset(head, ' ', S_HEAD);
	head[S_HEAD - 1] = '\n';
	n = snprintf(head, S_HEAD, S_MAGIC "index %" PRIu64 " %zu", ioff, len);
	head[n] = '\n';
}

/* Appends to b the index of the n records v (sorted by name, each once). */
static void S_index(const struct dtk_nodecache *c, struct dtk_buf *b, struct rec **v, size_t n)
{
	size_t i;

	dtk_buf_printf(b, "root %s\n%s", c->root, c->build);
	dtk_cache_time_put(b, c->now);
	dtk_buf_printf(b, "key %016" PRIx64 " %016" PRIx64 "\n", c->key[0], c->key[1]);
	for (i = 0; i < n; i++) {
		dtk_buf_printf(b, "%s ", v[i]->name);
		dtk_cache_stat_put(b, &v[i]->st);
		dtk_buf_printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
		               v[i]->off, v[i]->len, v[i]->sum, v[i]->hlen, v[i]->hsum);
		dtk_buf_printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64, v[i]->summary.off,
		               v[i]->summary.len, v[i]->summary.sum);
		dtk_buf_printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
		               v[i]->terms.off, v[i]->terms.len, v[i]->terms.sum, v[i]->clean,
		               *v[i]->links ? v[i]->links : "-");
	}
	dtk_cache_end_put(b, n);
}

/* Returns 1 when the cache read, appended to, would hold more than twice
 * the bytes the n records v (and an index of idx bytes) name, and 1 MiB
 * more: time to write it anew. */
static int S_sparse(struct dtk_nodecache *c, struct rec **v, size_t n, size_t idx)
{
	uint64_t live = S_HEAD + idx;
	struct stat st;
	size_t i;

	for (i = 0; i < n; i++)
		live += v[i]->len + v[i]->summary.len + v[i]->terms.len;
	return fstat(c->out, &st) == 0 && (uint64_t)st.st_size > 2 * live + (1u << 20);
}

/* Writes the cache anew, from the cache read appended to (c->out, closed
 * here): the n records v, each copied to a new temporary file (S_open_out
 * with c->rewrite). Returns 0 or -1. */
static int S_compact(struct dtk_nodecache *c, struct rec **v, size_t n)
{
	size_t i;

	close(c->out);
	c->out = -1;
	c->rewrite = 1;
	if (S_open_out(c) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		v[i]->terms_new = 0; /* every range is in the file read */
		if (S_copy_old(c, v[i]) < 0)
			return -1;
	}
	return 0;
}

/* Appends the index idx to the cache read (c->out) and points its head at
 * it, under one exclusive lock; closes c->out. Returns 0 or -1. */
static int S_save_live(struct dtk_nodecache *c, const struct dtk_buf *idx)
{
	char head[S_HEAD];
	off_t at = -1;
	int ok = 0;

	if (!c->failed && S_lock(c->out) == 0) {
		at = lseek(c->out, 0, SEEK_END);
		ok = at >= S_HEAD && dtk_cache_write(c->out, idx->ptr, idx->len) == 0;
		S_head(head, (uint64_t)at, idx->len);
		/* the head last: a reader finds the old index or the new one */
		ok = ok && pwrite(c->out, head, S_HEAD, 0) == S_HEAD;
		flock(c->out, LOCK_UN);
	}
	close(c->out);
	c->out = -1;
	return ok ? 0 : -1;
}

int dtk_nodecache_save(struct dtk_nodecache *c)
{
	struct dtk_buf idx = DTK_BUF_INIT;
	char head[S_HEAD];
	struct rec **v = NULL;
	size_t i, n = 0;
	uint64_t ioff;
	int ok = 1;

	for (i = 0; i < c->n; i++) /* one not looked up is gone, or was not trusted */
		if (!atomic_load(&c->v[i].kept))
			atomic_store(&c->changed, 1);
	if (!atomic_load(&c->changed))
		return 0;
	if (c->out < 0 && !c->failed && S_open_out(c) < 0)
		c->failed = 1;
	v = dtk_xmalloc((c->n + c->n_add + 1) * sizeof(*v));
	for (i = 0; i < c->n; i++)
		if (atomic_load(&c->v[i].kept)) {
			if (c->tmp && ok) /* a new file: the records kept are copied */
				ok = S_copy_old(c, &c->v[i]) == 0;
			v[n++] = &c->v[i];
		}
	for (i = 0; i < c->n_add; i++)
		v[n++] = &c->add[i];
	qsort(v, n, sizeof(*v), S_rec_cmp);
	n = S_unique(v, n);
	S_index(c, &idx, v, n);
	if (!c->failed && !c->tmp && (S_replaced(c) || S_sparse(c, v, n, idx.len))) {
		ok = S_compact(c, v, n) == 0;
		c->failed |= !ok;
		idx.len = 0;
		S_index(c, &idx, v, n);
	}
	if (!c->tmp) { /* appended to the file read, or nothing could be opened */
		free(v);
		ok = c->out >= 0 ? S_save_live(c, &idx) : -1;
		dtk_buf_release(&idx);
		return ok;
	}
	ioff = S_append(c, idx.ptr, idx.len);
	S_head(head, ioff, idx.len);
	ok = ok && ioff && !c->failed && pwrite(c->out, head, S_HEAD, 0) == S_HEAD;
	free(v);
	dtk_buf_release(&idx);
	if (c->out < 0)
		return -1;
	ok = dtk_cache_commit(c->out, c->tmp, c->path, ok);
	c->out = -1;
	c->tmp = NULL;
	return ok;
}
