/* kb_read.c: reading the base's files, on several threads, from the node
 * cache where it can. */
#define _GNU_SOURCE /* memmem */
#include "kb_int.h"

#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/invisible.h"
#include "dtk/nodesum.h"
#include "dtk/similar.h"
#include "dtk/ytree.h"
#include "schema.h"

#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading files ---- */

/* What one thread loads with: its own arena and diagnostics. */
struct worker {
	struct loader *l;
	struct dtk_arena *arena;
	/* DTK_KB_INDEX: where a node parsed goes while its summary is made
	 * (emptied after each; NULL until used) */
	struct dtk_arena *scratch;
	struct dtk_diags d;
	unsigned char *named; /* a bit per source the entries name (malloc'd) */
};

int dtk_kb_is_broken(const struct loader *l, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < l->n_broken; i++)
		if (strlen(l->broken[i]) == len && !strncmp(l->broken[i], name, len))
			return 1;
	return 0;
}

/* Reads file f's bytes into *buf (malloc'd, or pointing into memory files
 * when *owned is 0). Returns 0, 1 when absent, -1 after a diagnostic. */
static int S_read(const struct loader *l, struct dtk_diags *d, const struct kfile *f, char **buf,
                  size_t *len, int *owned, struct stat *st)
{
	char *full;
	size_t i;
	int rc, fd;

	*buf = NULL;
	*owned = 0;
	if (l->mem) {
		for (i = 0; i < l->n_mem; i++)
			if (!strcmp(l->mem[i].name, f->name)) {
				*buf = (char *)l->mem[i].data;
				*len = l->mem[i].len;
				rc = *len > DTK_MAX_FILE_BYTES ? DTK_ETOOBIG : 0;
				goto check;
			}
		if (!l->over)
			return 1;
	}
	full = dtk_path_join(l->kb->root, f->rel);
	/* a regular file, the whole path inside the base, opened once: from
	 * insights/ as it was opened when it can be (no link, no special file
	 * in the way), else the careful way, which says what is wrong */
	rc = l->dir_fd >= 0 && !strchr(f->name, '/') ? dtk_file_open_at(&fd, l->dir_fd, f->name)
	                                             : 2;
	if (rc == 2)
		rc = dtk_file_open_within(&fd, l->root_real, full);
	if (rc == 0) {
		if (st && fstat(fd, st) < 0) /* before the read: a later change shows */
			st->st_nlink = 0;
		rc = dtk_file_read_fd(buf, len, fd, full, DTK_MAX_FILE_BYTES);
		*owned = 1;
		close(fd);
	}
	if (rc < 0 && rc != DTK_ETOOBIG)
		dtk_diags_add(d, f->rel, 1, 1, "%s", dtk_error_last());
	free(full);
	if (rc == 1 || (rc < 0 && rc != DTK_ETOOBIG))
		return rc == 1 ? 1 : -1;
check:
	if (rc == DTK_ETOOBIG) {
		dtk_diags_add(d, f->rel, 1, 1, "file is larger than the limit of %u bytes",
		              DTK_MAX_FILE_BYTES);
		return -1;
	}
	return 0;
}

/* Reads node file name of insights/ (a link not followed) whole into *buf
 * (malloc'd, the caller frees) and its stat data into *st. Returns 0, or -1
 * when it cannot be read so (*buf NULL). */
static int S_read_at(const struct loader *l, const char *name, struct stat *st, char **buf)
{
	int fd = openat(l->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ok;

	*buf = NULL;
	if (fd < 0)
		return -1;
	ok = fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	     (size_t)st->st_size <= DTK_MAX_FILE_BYTES;
	*buf = ok ? dtk_xmalloc((size_t)st->st_size + 1) : NULL;
	ok = ok && pread(fd, *buf, (size_t)st->st_size, 0) == st->st_size;
	close(fd);
	if (!ok) {
		free(*buf);
		*buf = NULL;
	}
	return ok ? 0 : -1;
}

/* Returns 1 when the node shown by a DTK_KB_LINKED load names node file
 * f's node: its entries name an entry of it. */
static int S_named(const struct loader *l, const struct kfile *f)
{
	return dtk_nodecache_links_has(l->named, f->node);
}

/* Returns 1 when node file f is wanted by a DTK_KB_LINKED load: the node
 * shown names it, or links (the nodes f's entries name, as the node cache
 * keeps them) name the node shown. */
static int S_wanted(const struct loader *l, const struct kfile *f, const char *links)
{
	return S_named(l, f) || dtk_nodecache_links_has(links, l->shown);
}

/* Without the node cache: returns 1 when node file f may link to the node
 * of a DTK_KB_LINKED load: that node's entries name it, or its bytes hold
 * the needle (read whole and searched). A file that cannot be read so is
 * kept: loading it says why. */
static int S_links(const struct loader *l, struct kfile *f)
{
	struct stat st;
	char *buf;
	int hit = 1;

	if (l->mem || !l->needle || S_named(l, f))
		return 1;
	if (S_read_at(l, f->name, &st, &buf) == 0 && st.st_size > 0)
		hit = memmem(buf, (size_t)st.st_size, l->needle, strlen(l->needle)) != NULL;
	free(buf);
	return hit;
}

/* Orders places, pairs of ints (line, column). */
static int S_place_cmp(const void *pa, const void *pb)
{
	const int *a = pa, *b = pb;
	return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Drops the diagnostics d->v[mid..) at a place where one of d->v[from..mid)
 * (libyaml's and the tree's, of the same file) is: the schema's word on a
 * value the tree refused (a tag it does not match) says the same again. */
static void S_drop_echoes(struct dtk_diags *d, size_t from, size_t mid)
{
	size_t i, n = mid, k = mid - from;
	int *at = dtk_xmalloc((k ? k : 1) * 2 * sizeof(*at)), key[2];

	for (i = 0; i < k; i++) {
		at[2 * i] = d->v[from + i].line;
		at[2 * i + 1] = d->v[from + i].col;
	}
	qsort(at, k, 2 * sizeof(*at), S_place_cmp);
	for (i = mid; i < d->n; i++) {
		key[0] = d->v[i].line;
		key[1] = d->v[i].col;
		if (k && bsearch(key, at, k, 2 * sizeof(*at), S_place_cmp)) {
			free(d->v[i].path);
			free(d->v[i].msg);
		} else {
			d->v[n++] = d->v[i];
		}
	}
	d->n = n;
	free(at);
}

/* _sources.yaml read item by item: its tree (about 8 times the file) is
 * never whole. The sources grow in v (malloc'd), their strings in arena, and
 * the schema's diagnostics wait in d: all are dropped when the file turns
 * out not to parse, as they would not have been made from a whole tree
 * (after errors that left the tree whole, the diagnostics are told and the
 * sources dropped). */
struct source_stream {
	struct loader *l;
	const char *rel;
	struct dtk_arena *arena;
	struct dtk_source *v;
	size_t n, cap;
	struct dtk_diags d;
};

static void S_source_item(void *arg, const struct dtk_yval *item)
{
	struct source_stream *st = arg;

	dtk_grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v));
	st->n += (size_t)dtk_schema_source(st->l->kb, st->arena, item, st->rel, st->l->schema_flags,
	                                   &st->v[st->n], &st->d);
}

/* Parses _sources.yaml (f, bytes buf[0..len)) into l->kb->sources, its
 * errors into d. Returns the root (of tmp) as dtk_yaml_parse_items does. */
static int S_parse_sources(struct loader *l, const struct kfile *f, struct dtk_yval **root,
                           struct dtk_arena *tmp, const char *buf, size_t len, struct dtk_diags *d)
{
	struct dtk_kb *kb = l->kb;
	struct source_stream st = {l, f->rel, kb->arena, NULL, 0, 0, DTK_DIAGS_INIT};
	size_t had = d->n, mid;
	int rc;

	rc = dtk_yaml_parse_items(root, tmp, f->rel, buf, len, d, S_source_item, &st);
	if (*root && (*root)->kind == DTK_Y_SEQ) { /* read whole, errors or not */
		mid = d->n;
		dtk_diags_move(d, &st.d);
		if (rc < 0) { /* the items' errors are told; no sources are kept */
			S_drop_echoes(d, had, mid);
			goto done;
		}
		kb->sources = dtk_arena_alloc(kb->arena, (st.n ? st.n : 1) * sizeof(*kb->sources));
		if (st.n)
			memcpy(kb->sources, st.v, st.n * sizeof(*kb->sources));
		kb->n_sources = st.n;
	}
done:
	dtk_diags_release(&st.d);
	free(st.v);
	return rc;
}

/* Returns the flags the node cache unpacks a node of l's load with. */
static unsigned S_unpack_flags(const struct loader *l)
{
	return (l->schema_flags & DTK_SCHEMA_LEAN)
	               ? DTK_NODECACHE_LEAN | (l->terms ? DTK_NODECACHE_TITLES : 0)
	       : (l->schema_flags & DTK_SCHEMA_BORROW) ? DTK_NODECACHE_BORROW
	                                               : 0;
}

/* Gives node file f's node (unpacked, its texts still there) its terms:
 * cut, when not NULL (cut from the file just parsed), else at, where the
 * node cache has them (at->len 0: none), else cut from the node now and
 * added to its record (when cached). */
static void S_set_terms(struct worker *w, struct kfile *f, const struct dtk_buf *cut, int cached,
                        const struct dtk_nodecache_ref *node, const struct dtk_nodecache_ref *at)
{
	struct loader *l = w->l;
	struct dtk_node_terms *t = dtk_arena_alloc(w->arena, sizeof(*t));
	struct dtk_buf b = DTK_BUF_INIT;

	memset(t, 0, sizeof(*t));
	t->node = *node;
	if (!cut && at->len) {
		t->at = *at;
		f->out->terms = t;
		return;
	}
	if (!cut && dtk_similar_pack(&b, f->out) == 0 && cached)
		dtk_nodecache_put_terms(l->nc, f->name, b.ptr, b.len);
	if (!cut)
		cut = &b;
	t->len = cut->len;
	t->mem = dtk_arena_alloc(w->arena, t->len + 1);
	memcpy((char *)t->mem, cut->ptr ? cut->ptr : "", t->len);
	f->out->terms = t;
	dtk_buf_release(&b);
}

/* Unpacks blob[0..len) as node file f's node into f->out, handing it to the
 * filter; with DTK_KB_TERMS, gives it its terms (S_set_terms: cut, or
 * cached's record's). Returns 1, or 0 when it is not a packed node that
 * passes the checks of the base as it is now (f->out NULL). */
static int S_unpack(struct worker *w, struct kfile *f, const char *blob, size_t len, int cached,
                    const struct dtk_buf *cut)
{
	struct loader *l = w->l;
	struct dtk_arena *scratch = dtk_arena_new();
	struct dtk_nodecache_ref node = {0, 0, 0}, at = {0, 0, 0};
	unsigned flags = S_unpack_flags(l);
	int rc;

	if (l->terms && cached)
		dtk_nodecache_refs(l->nc, f->name, &node, &at);
	else if (l->terms) /* packed as the cache would keep it: its key */
		node.sum = dtk_cache_sum(blob, len);
	if (l->terms && !cut && !at.len && (flags & DTK_NODECACHE_LEAN))
		flags = DTK_NODECACHE_BORROW; /* lean once the terms are cut */
	rc = dtk_nodecache_unpack(&f->out, l->kb, w->arena, scratch, blob, len, f->node, f->rel,
	                          flags, w->named) == 0;
	if (rc && l->terms) {
		S_set_terms(w, f, cut, cached, &node, &at);
		if (flags != S_unpack_flags(l))
			dtk_nodecache_lean(l->kb, w->arena, f->out, S_unpack_flags(l));
	}
	f->ok = rc;
	if (rc && l->filter && l->filter->loaded)
		l->filter->loaded(l->filter->arg, l->kb, f->out, w->arena);
	dtk_arena_free(scratch);
	return rc;
}

/* Returns 1 when l's memory files hold node file f (it stands in for the
 * disk's: the cache does not know it). */
static int S_in_mem(const struct loader *l, const struct kfile *f)
{
	size_t i;
	for (i = 0; l->mem && i < l->n_mem; i++)
		if (!strcmp(l->mem[i].name, f->name))
			return 1;
	return 0;
}

/* A load of the whole base: gives node (may be NULL) its summary, from
 * packed (NULL: packed from node now), copied into w's arena. */
static void S_give_sum(struct worker *w, struct dtk_node *node, const struct dtk_buf *packed)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *blob;

	if (!w->l->sums || !node || node->sum)
		return;
	if (!packed) {
		dtk_nodesum_pack(&b, node, w->l->kb, 0);
		packed = &b;
	}
	blob = dtk_arena_alloc_raw(w->arena, packed->len + 1);
	memcpy(blob, packed->ptr, packed->len);
	blob[packed->len] = '\0';
	node->sum = dtk_nodesum_read(w->arena, blob, packed->len); /* as packed: it reads */
	dtk_buf_release(&b);
}

/* Returns 1 when the sources summary s names are the base's as they were
 * (dtk_nodesum_sources_hold), their bits then set in w's; else 0. */
static int S_sum_sources(struct worker *w, const struct dtk_node_sum *s)
{
	size_t i;

	if (!dtk_nodesum_sources_hold(s, w->l->kb))
		return 0;
	for (i = 0; w->named && i < s->n_sources; i++) {
		uint32_t k = dtk_nodesum_source(s, i);
		w->named[k / 8] |= (unsigned char)(1u << (k % 8));
	}
	return 1;
}

/* Sets f->out to a node of f that is its summary s alone (clean: its
 * bytes'), in w's arena. */
static void S_sum_node(struct worker *w, struct kfile *f, const struct dtk_node_sum *s, int clean)
{
	struct dtk_node *node = dtk_arena_alloc(w->arena, sizeof(*node));

	node->name = dtk_arena_strdup(w->arena, f->node);
	node->path = dtk_arena_strdup(w->arena, f->rel);
	node->category = -1;
	node->bloom = s->bloom;
	node->stance = s->stance;
	node->name_pos = s->name_pos;
	node->clean = clean;
	node->sum = s;
	f->out = node;
	f->ok = 1;
}

/* A load for INDEX.md (DTK_KB_INDEX): node file f (its stat data st) as
 * the summary the node cache keeps, none of its entries read. Returns 1
 * with f->out set when the record is trusted and its summary holds for the
 * base as it is now (the same policy and language, the same sources at its
 * places, no date after today); 0 when there is no such record, or a date
 * is after today (check warns of it entry by entry: the node is unpacked);
 * -1 when the summary does not hold (the file is parsed, and its record
 * made again, with a summary that does). */
static int S_from_summary(struct worker *w, struct kfile *f, const struct stat *st)
{
	struct loader *l = w->l;
	const struct dtk_node_sum *s;
	struct dtk_nodecache_ref node, at;
	struct dtk_node_terms *t = NULL;
	const char *blob;
	size_t len;

	if (dtk_nodecache_get_summary(l->nc, f->name, st, w->arena, &blob, &len) < 0)
		return 0;
	if (l->terms) { /* as its summary only when the index of terms holds it */
		if (dtk_nodecache_refs(l->nc, f->name, &node, &at) < 0 ||
		    !dtk_similar_index_holds(l->kb->terms_index, f->node, node.sum))
			return 0;
		t = dtk_arena_alloc(w->arena, sizeof(*t));
		memset(t, 0, sizeof(*t));
		t->node = node;
		t->held = 1;
	}
	s = dtk_nodesum_read(w->arena, blob, len);
	if (s && s->latest > l->today)
		return 0;
	if (!s || s->k != l->kb->high_min_verified || s->lang_en != l->kb->lang_en ||
	    (s->n_cands && !s->run) || s->min_high < (unsigned)l->kb->high_min_verified ||
	    !S_sum_sources(w, s))
		return -1;
	S_sum_node(w, f, s, dtk_nodecache_clean(l->nc, f->name));
	f->out->terms = t;
	return 1;
}

/* DTK_KB_INDEX, node file f just parsed: its node as its summary alone
 * (packed, with its run; clean: its bytes'), unless a date of it is after
 * today. With sources, the summary's sources' bits are set (the parse
 * did not). Returns 1 when f->out is set so, else 0. */
static int S_sum_only(struct worker *w, struct kfile *f, const struct dtk_buf *packed, int clean,
                      int sources)
{
	char *blob = dtk_arena_alloc_raw(w->arena, packed->len + 1);
	const struct dtk_node_sum *s;

	memcpy(blob, packed->ptr, packed->len);
	blob[packed->len] = '\0';
	s = dtk_nodesum_read(w->arena, blob, packed->len);
	if (!s || s->latest > w->l->today || (sources && !S_sum_sources(w, s)))
		return 0;
	S_sum_node(w, f, s, clean);
	return 1;
}

/* DTK_KB_INDEX: node file f, parsed into w's scratch arena, as its
 * summary alone (S_sum_only), or, when a date of it is after today, as it
 * was parsed, moved into w's arena. */
static void S_index_node(struct worker *w, struct kfile *f)
{
	struct dtk_buf b = DTK_BUF_INIT;

	if (f->out) {
		dtk_nodesum_pack(&b, f->out, w->l->kb, DTK_NODESUM_RUN);
		if (!S_sum_only(w, f, &b, 0, 0)) {
			dtk_arena_adopt(w->arena, w->scratch);
			w->scratch = NULL;
		}
	}
	dtk_arena_reset(w->scratch);
	dtk_buf_release(&b);
}

/* The node cache: sets *st to node file f's stat data, not following a
 * link (l's insights/ is open, not a link). When the
 * cache holds f's node as it is, the node is unpacked into f->out, or, when
 * the filter does not want f, nothing is done: returns 1 (f read as it is
 * would give no error). Else returns 0 (*st's st_nlink is 0 when f is not a
 * regular file). */
static int S_from_cache(struct worker *w, struct kfile *f, struct stat *st)
{
	struct loader *l = w->l;
	char *blob;
	size_t len;
	int rc;

	rc = fstatat(l->dir_fd, f->name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode);
	if (!rc) {
		st->st_nlink = 0;
		return 0;
	}
	if (l->filter && l->filter->keep && !l->filter->keep(l->filter->arg, f->node, NULL, 0))
		/* not wanted: its record stays when it can be trusted; else it
		 * is read, for the errors reading it may give */
		return dtk_nodecache_get(l->nc, f->name, st, NULL, NULL) == 0;
	if (f->linked) { /* another node than the one shown: wanted when linked */
		if (dtk_nodecache_get(l->nc, f->name, st, NULL, NULL) < 0)
			return 0;
		if (!S_wanted(l, f, dtk_nodecache_links(l->nc, f->name)))
			return 1;
	}
	if (l->index && (rc = S_from_summary(w, f, st)) != 0)
		return rc > 0;
	/* a lean load without terms needs no long text: the head alone */
	if (((S_unpack_flags(l) & DTK_NODECACHE_LEAN) && !l->terms
	             ? dtk_nodecache_get_head(l->nc, f->name, st, &blob, &len)
	             : dtk_nodecache_get(l->nc, f->name, st, &blob, &len)) < 0)
		return 0;
	rc = S_unpack(w, f, blob, len, 1, NULL);
	if (rc && f->out)
		f->out->clean = dtk_nodecache_clean(l->nc, f->name);
	free(blob);
	return rc;
}

/* The node of node file f (the tree root, of tmp) with the node cache, or
 * for its terms (DTK_KB_TERMS): the schema's node, with its strings in the
 * tree, packed (and its terms cut) and, when the file read was the regular
 * file looked at before (st, fst) and owned, added to the cache; then
 * unpacked as the load wants it, so that a node comes from its packed form,
 * cached or not. Returns 1 when f->out is set so; 0 when the file gives an
 * error (nothing kept: the caller parses it as without the cache, for the
 * same diagnostics). */
static int S_via_cache(struct worker *w, struct kfile *f, const struct dtk_yval *root,
                       struct dtk_arena *tmp, const struct stat *st, const struct stat *fst,
                       int owned, int clean)
{
	struct loader *l = w->l;
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_buf b = DTK_BUF_INIT, t = DTK_BUF_INIT, links = DTK_BUF_INIT, sum = DTK_BUF_INIT;
	struct dtk_node *node = dtk_schema_node(l->kb, tmp, tmp, root, f->rel, f->node,
	                                        DTK_SCHEMA_BORROW, NULL, &d);
	int rc = node && !d.n && (!l->terms || dtk_similar_pack(&t, node) == 0);

	dtk_diags_release(&d);
	if (!rc)
		goto done;
	dtk_nodecache_pack(&b, node);
	dtk_nodesum_pack(&sum, node, l->kb, DTK_NODESUM_RUN | DTK_NODESUM_SOURCES);
	dtk_nodecache_links_of(&links, node);
	dtk_buf_putc(&links, '\0');
	if (l->nc && owned && st->st_nlink && fst->st_nlink && st->st_dev == fst->st_dev &&
	    st->st_ino == fst->st_ino)
		dtk_nodecache_put(l->nc, f->name, fst, b.ptr, b.len, &sum, l->terms ? t.ptr : NULL,
		                  t.len, links.ptr, clean);
	if (f->linked && !S_wanted(l, f, links.ptr))
		goto done; /* read for its record only: rc 1, f->out NULL */
	if (l->index && !l->terms && S_sum_only(w, f, &sum, clean, 1))
		goto done;
	rc = S_unpack(w, f, b.ptr, b.len, 0, l->terms ? &t : NULL);
	if (rc && f->out)
		f->out->clean = clean;
	S_give_sum(w, rc ? f->out : NULL, &sum);
done:
	dtk_buf_release(&sum);
	dtk_buf_release(&b);
	dtk_buf_release(&t);
	dtk_buf_release(&links);
	return rc;
}

/* Returns 1 when buf[0..len) is clean (struct dtk_node's clean). */
static int S_clean(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t k;
	int32_t cp;

	/* a comment after text on its line may cut a value short */
	while ((p = memchr(p, '#', (size_t)(end - p)))) {
		for (s = p; s > buf && (s[-1] == ' ' || s[-1] == '\t'); s--)
			;
		if (s < p && s > buf && s[-1] != '\n' && s[-1] != '\r')
			return 0;
		p++;
	}
	return !memchr(buf, '\\', len) && dtk_invisible_find(buf, len, &k, &cp) == len;
}

/* Reads, parses and checks file f with w's arena and diagnostics. */
static void S_load_file(struct worker *w, struct kfile *f)
{
	struct loader *l = w->l;
	struct dtk_arena *tmp = NULL;
	struct dtk_yval *root = NULL;
	struct stat st, fst; /* the node cache's: before the look-up, the read */
	char *buf = NULL;
	size_t len = 0, had = w->d.n, mid = SIZE_MAX;
	int owned = 0, rc;

	st.st_nlink = fst.st_nlink = 0; /* none */

	if (f->linked && !l->nc && !S_links(l, f))
		return;
	if (f->t == F_NODE && l->nc && !S_in_mem(l, f) && S_from_cache(w, f, &st)) {
		S_give_sum(w, f->out, NULL);
		return;
	}
	rc = S_read(l, &w->d, f, &buf, &len, &owned, l->nc ? &fst : NULL);
	if (rc == 0 && f->t == F_NODE && l->filter &&
	    !l->filter->keep(l->filter->arg, f->node, buf, len))
		goto done;
	if (rc == 1 && f->t != F_RECORDS && f->t != F_GLOSSARY && f->t != F_USES)
		dtk_diags_add(&w->d, f->rel, 1, 1, "required file is missing");
	if (rc != 0)
		goto done;
	tmp = dtk_arena_new();
	/* a file with errors that libyaml still read to its end gives its tree
	 * whole (dtk_yaml_parse): checked too, so every error shows in one
	 * run, but nothing of it kept */
	rc = f->t == F_SOURCES ? S_parse_sources(l, f, &root, tmp, buf, len, &w->d)
	                       : dtk_yaml_parse(&root, tmp, f->rel, buf, len, &w->d);
	if (rc < 0 && (!root || f->t == F_SOURCES))
		goto done;
	if (rc < 0)
		mid = w->d.n; /* the schema's errors come after */
	if (rc < 0 && f->t == F_NODE) {
		dtk_schema_node(l->kb, tmp, tmp, root, f->rel, f->node, l->schema_flags, NULL,
		                &w->d);
		goto done;
	}
	if (!root) {
		if (f->t != F_RECORDS && f->t != F_GLOSSARY)
			dtk_diags_add(&w->d, f->rel, 1, 1, "file is empty");
		goto done;
	}
	switch (f->t) {
	case F_DOMAIN:
		f->ok = root->kind == DTK_Y_MAP;
		dtk_schema_domain(l->kb, root, f->rel, &w->d);
		break;
	case F_SOURCES: /* its items were checked as they were parsed */
		f->ok = dtk_schema_sources(l->kb, root, f->rel, &w->d);
		break;
	case F_RECORDS: dtk_schema_records(l->kb, w->arena, root, f->rel, &w->d); break;
	case F_GLOSSARY: dtk_schema_glossary(l->kb, w->arena, root, f->rel, &w->d); break;
	case F_USES: f->n_uses = dtk_schema_uses(w->arena, root, f->rel, &f->uses, &w->d); break;
	case F_NODE:
		if (((l->nc && owned) || l->terms) &&
		    S_via_cache(w, f, root, tmp, &st, &fst, owned, S_clean(buf, len)))
			break;
		if (l->index && !w->scratch)
			w->scratch = dtk_arena_new();
		f->out = dtk_schema_node(l->kb, l->index ? w->scratch : w->arena, tmp, root, f->rel,
		                         f->node, l->schema_flags, w->named, &w->d);
		f->ok = f->out != NULL;
		if (l->index)
			S_index_node(w, f);
		S_give_sum(w, f->out, NULL);
		if (f->out && l->filter && l->filter->loaded)
			l->filter->loaded(l->filter->arg, l->kb, f->out, w->arena);
		break;
	}
done:
	if (mid != SIZE_MAX)
		S_drop_echoes(&w->d, had, mid);
	if (f->linked && w->d.n > had) { /* not the node shown: left out */
		while (w->d.n > had) {
			w->d.n--;
			free(w->d.v[w->d.n].path);
			free(w->d.v[w->d.n].msg);
		}
		f->out = NULL;
	}
	dtk_arena_free(tmp);
	if (owned)
		free(buf);
}

static void S_work(void *arg, int k)
{
	struct worker *w = (struct worker *)arg + k;
	struct loader *l = w->l;
	size_t i;

	while ((i = atomic_fetch_add(&l->next, 1)) < l->n_files)
		S_load_file(w, &l->files[i]);
}

/* Loads files [from, n_files) on a pool of threads (one when one is set);
 * the model's memory and the diagnostics of each thread are merged into the
 * loader's. */
static void S_load_parallel(struct loader *l, size_t from, int one)
{
	int n = one ? 1 : dtk_threads((l->n_files - from) / 4 + 1), i;
	struct worker *w = dtk_xcalloc((size_t)n, sizeof(*w));
	size_t bytes = (l->kb->n_sources + 7) / 8, k;
	unsigned char *named = (unsigned char *)l->kb->sources_named;

	if (bytes && !named)
		l->kb->sources_named = named = dtk_arena_alloc(l->kb->arena, bytes);
	atomic_store(&l->next, from);
	for (i = 0; i < n; i++) {
		w[i].l = l;
		w[i].arena = dtk_arena_new();
		w[i].named = bytes ? dtk_xcalloc(bytes, 1) : NULL;
	}
	dtk_threads_run(n, S_work, w);
	for (i = 0; i < n; i++) {
		dtk_arena_adopt(l->kb->arena, w[i].arena);
		dtk_arena_free(w[i].scratch);
		dtk_diags_move(l->d, &w[i].d);
		for (k = 0; k < bytes; k++)
			named[k] |= w[i].named[k];
		free(w[i].named);
	}
	free(w);
}

static void S_add_file(struct loader *l, size_t *cap, const char *name, enum ftype t,
                       const char *node)
{
	struct kfile *f;
	dtk_grow((void **)&l->files, cap, l->n_files + 1, sizeof(*l->files));
	f = &l->files[l->n_files++];
	memset(f, 0, sizeof(*f));
	f->name = dtk_xstrdup(name);
	f->rel = dtk_path_join("insights", name);
	f->t = t;
	if (node)
		snprintf(f->node, sizeof(f->node), "%s", node);
}

/* Lists the names in insights/ (from disk or memory), sorted unless
 * unsorted (then only those on disk: the files' order is the directory's). */
static int S_names(const struct loader *l, char ***out, int unsorted)
{
	char *dir;
	size_t i;
	int n;

	if (l->mem && !l->over) {
		*out = dtk_xcalloc(l->n_mem + 1, sizeof(**out));
		size_t k = 0;
		for (i = 0; i < l->n_mem; i++) /* a folder's files are not its */
			if (!strchr(l->mem[i].name, '/'))
				(*out)[k++] = dtk_xstrdup(l->mem[i].name);
		qsort(*out, k, sizeof(**out), dtk_kb_name_cmp);
		return (int)k;
	}
	dir = dtk_path_join(l->kb->root, "insights");
	n = dtk_kb_list_dir(out, dir, unsorted && !l->over);
	free(dir);
	if (n >= 0 && l->over) { /* files that exist only in memory, as yet */
		size_t k = (size_t)n, cap = k;
		for (i = 0; i < l->n_mem; i++) {
			size_t j;
			for (j = 0; j < (size_t)n && strcmp((*out)[j], l->mem[i].name); j++)
				;
			if (j < (size_t)n || strchr(l->mem[i].name, '/'))
				continue;
			dtk_grow((void **)out, &cap, k + 2, sizeof(**out));
			(*out)[k++] = dtk_xstrdup(l->mem[i].name);
			(*out)[k] = NULL;
		}
		qsort(*out, k, sizeof(**out), dtk_kb_name_cmp);
		n = (int)k;
	}
	return n;
}

/* Classifies the files of insights/ and lists the node files wanted. */
static int S_list_nodes(struct loader *l, size_t *cap, int what, const char *only)
{
	static const char *const meta[] = {"_domain.yaml", "_sources.yaml",
	                                   "_crystallizations.yaml", "_glossary.yaml"};
	char **names = NULL, node[256];
	/* a show lists the other node files only to scan them: in any order */
	int n = S_names(l, &names, what == DTK_KB_LINKED), i;

	if (n == DTK_ETOOBIG) /* told as the base's other errors are */
		dtk_diags_add(l->d, "insights", 1, 1, "the folder holds more than %d files",
		              DTK_MAX_FILES);
	if (n < 0)
		return -1;
	/* room for them all at once: a kfile is large, and growing copies */
	dtk_grow((void **)&l->files, cap, l->n_files + (size_t)n, sizeof(*l->files));
	for (i = 0; i < n; i++) {
		const char *name = names[i];
		size_t len = strlen(name);
		char shown[300];
		int is_node; /* a node file: <name>.yaml, a valid node name */
		if (name[0] == '.')
			continue;
		/* the path shown is needed only by a diagnostic */
		is_node = name[0] != '_' && dtk_kb_node_file(name, node, sizeof(node));
		if (!is_node)
			snprintf(shown, sizeof(shown), "insights/%.255s", name);
		if (len > 4 && !strcmp(name + len - 4, ".yml")) {
			dtk_diags_add(l->d, shown, 1, 1,
			              "files of the base end in .yaml, not .yml");
			continue;
		}
		if (name[0] == '_') {
			size_t k;
			for (k = 0; k < 4 && strcmp(name, meta[k]); k++)
				;
			if (k == 4 && len > 5 && !strcmp(name + len - 5, ".yaml"))
				dtk_diags_add(l->d, shown, 1, 1,
				              "unknown file: only _domain.yaml, _sources.yaml, "
				              "_crystallizations.yaml and _glossary.yaml may start "
				              "with '_'");
			if (k == 3 && what == DTK_KB_ALL) /* optional: read when there */
				l->glossary = 1;
			continue;
		}
		if (len <= 5 || strcmp(name + len - 5, ".yaml"))
			continue;
		if (!is_node) {
			dtk_diags_add(l->d, shown, 1, 1,
			              "'%.*s' is not a valid node name (lowercase letters, digits "
			              "and '-', starting with a letter or digit)",
			              (int)(len - 5), name);
			continue;
		}
		if (what == DTK_KB_ALL) {
			S_add_file(l, cap, name, F_NODE, node);
		} else if (strcmp(node, only)) { /* DTK_KB_LINKED */
			S_add_file(l, cap, name, F_NODE, node);
			l->files[l->n_files - 1].linked = 1;
		}
	}
	dtk_strv_free(names, (size_t)n);
	return 0;
}

/* Returns 1 when name (in insights/_uses/) is one of a file of records of
 * uses: "<name>.yaml", not hidden, no folder below. */
static int S_record_name(const char *name)
{
	size_t len = strlen(name);
	return name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".yaml") && !strchr(name, '/');
}

/* Lists the record files of insights/_uses/ (on disk and in memory): each
 * "_uses/<name>.yaml" (docs/schema.md, "Counts"). */
static int S_list_uses(struct loader *l, size_t *cap)
{
	char **names = NULL, *dir = dtk_path_join(l->kb->root, "insights/" DTK_USES_DIR);
	struct stat st;
	size_t i, plen = strlen(DTK_USES_DIR "/");
	int n = 0, k;

	if ((!l->mem || l->over) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		n = dtk_kb_list_dir(&names, dir, 0);
	free(dir);
	if (n == DTK_ETOOBIG)
		dtk_diags_add(l->d, "insights/" DTK_USES_DIR, 1, 1,
		              "the folder holds more than %d files", DTK_MAX_FILES);
	if (n < 0)
		return -1;
	for (k = 0; k < n; k++) {
		char name[300];
		if (!S_record_name(names[k]))
			continue;
		snprintf(name, sizeof(name), DTK_USES_DIR "/%.250s", names[k]);
		S_add_file(l, cap, name, F_USES, NULL);
	}
	for (i = 0; i < l->n_mem; i++) { /* those only in memory, as yet */
		const char *m = l->mem[i].name;
		for (k = 0; k < n && strcmp(m + plen, names[k]); k++)
			;
		if (!strncmp(m, DTK_USES_DIR "/", plen) && k == n && S_record_name(m + plen))
			S_add_file(l, cap, m, F_USES, NULL);
	}
	dtk_strv_free(names, n > 0 ? (size_t)n : 0);
	return 0;
}

/* Sets what a DTK_KB_LINKED load looks for in the other node files: the
 * prefix of the shown node's entry ids, and the nodes its entries name. */
static void S_set_links(struct loader *l, const struct dtk_node *node)
{
	struct dtk_buf b = DTK_BUF_INIT;

	l->needle = dtk_xmalloc(strlen(node->name) + 2);
	sprintf(l->needle, "%s-", node->name);
	dtk_nodecache_links_of(&b, node);
	l->named = dtk_buf_detach(&b);
}

/* Returns a descriptor of l's insights/ when it is a directory, not a
 * link, in the real root (the caller closes it), else -1. */
static int S_open_insights(const struct loader *l)
{
	int rfd = l->root_real ? open(l->root_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, fd;

	if (rfd < 0)
		return -1;
	fd = openat(rfd, "insights", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(rfd);
	return fd;
}

/* Loads every file: _domain.yaml and _sources.yaml first (node files need
 * the policy), then the records and the nodes in parallel. what is
 * DTK_KB_ALL or DTK_KB_ONE_NODE, with DTK_KB_LINKED or not, and
 * DTK_KB_NO_CACHE or not. */
int dtk_kb_read_files(struct loader *l, int what, const char *only)
{
	struct worker w = {l, l->kb->arena, NULL, DTK_DIAGS_INIT, NULL}; /* no articles: one node */
	size_t cap = 0, i, ncap = 0, bcap = 0, first = 2;

	S_add_file(l, &cap, "_domain.yaml", F_DOMAIN, NULL);
	S_add_file(l, &cap, "_sources.yaml", F_SOURCES, NULL);
	if (!(what & DTK_KB_ONE_NODE)) {
		S_add_file(l, &cap, "_crystallizations.yaml", F_RECORDS, NULL);
		if (S_list_nodes(l, &cap, DTK_KB_ALL, NULL) < 0)
			return -1;
		if (l->glossary) { /* third: read before the nodes, as the first two */
			struct kfile t;
			S_add_file(l, &cap, "_glossary.yaml", F_GLOSSARY, NULL);
			t = l->files[l->n_files - 1];
			l->files[l->n_files - 1] = l->files[2];
			l->files[2] = t;
		}
	} else { /* the one file, and the others only to look for links */
		char name[300];
		snprintf(name, sizeof(name), "%.255s.yaml", only);
		S_add_file(l, &cap, name, F_NODE, only);
	}
	l->dir_fd = S_open_insights(l);
	if (what & DTK_KB_LINKED) {
		l->shown = only;
		if (S_list_nodes(l, &cap, DTK_KB_LINKED, only) < 0)
			return -1;
	}
	if (S_list_uses(l, &cap) < 0)
		return -1;
	/* the node cache: every node file of the base is looked up (insights/
	 * is not a link: a node file that is not one is inside the base) */
	if ((!(what & DTK_KB_ONE_NODE) || (what & DTK_KB_LINKED)) && l->dir_fd >= 0 &&
	    !(what & DTK_KB_NO_CACHE)) {
		char *path = dtk_cache_path(l->root_real, "nodes");
		l->nc = path ? dtk_nodecache_open(path, l->root_real) : NULL;
		free(path);
	}
	if (l->nc && l->terms && !(what & DTK_KB_ONE_NODE)) {
		uint64_t key[2];
		dtk_nodecache_key(l->nc, key);
		l->kb->terms_index = dtk_similar_index_open(l->root_real, key);
		l->index = (what & DTK_KB_INDEX) && l->kb->terms_index;
	}
	S_load_file(&w, &l->files[0]);
	S_load_file(&w, &l->files[1]);
#ifdef __GLIBC__
	/* _sources.yaml's items were built and freed one by one and its
	 * sources grown in a malloc'd array, but glibc keeps the pages freed
	 * for the main thread while the loading threads take pages of their
	 * own: give them back */
	malloc_trim(0);
#endif
	if (l->glossary) /* a filter's prepare may use it (dtk search) */
		S_load_file(&w, &l->files[first++]);
	l->domain_ok = l->files[0].ok;
	l->kb->sources_ok = l->files[1].ok; /* node files report unknown sources */
	if (l->nc)                          /* the summaries' sources hash under the cache's key */
		dtk_nodecache_key(l->nc, l->kb->source_key);
	dtk_model_index_sources(l->kb, l->nc != NULL, l->d);
	if (l->filter && l->filter->prepare)
		l->filter->prepare(l->filter->arg, l->kb);
	if (what & DTK_KB_LINKED) { /* the node first: what it names is wanted */
		S_load_file(&w, &l->files[2]);
		if (l->files[2].out)
			S_set_links(l, l->files[2].out);
		first = 3;
	}
	dtk_diags_move(l->d, &w.d);
	S_load_parallel(l, first, 0);
	if (l->nc)
		dtk_nodecache_save(l->nc);
	if (l->dir_fd >= 0)
		close(l->dir_fd);
	l->dir_fd = -1;
	for (i = 2; i < l->n_files; i++) {
		struct kfile *f = &l->files[i];
		if (f->t != F_NODE || ((f->linked || l->filter) && !f->out))
			continue;
		if (f->out) {
			dtk_grow((void **)&l->kb->nodes, &ncap, l->kb->n_nodes + 1,
			         sizeof(*l->kb->nodes));
			l->kb->nodes[l->kb->n_nodes++] = f->out;
		} else {
			dtk_grow((void **)&l->broken, &bcap, l->n_broken + 1, sizeof(*l->broken));
			l->broken[l->n_broken++] = dtk_xstrdup(f->node);
		}
	}
	return 0;
}

/* ---- the uses recorded beside the node files ---- */

/* A use and the file it is in (l->files[file]). */
struct use_at {
	const struct dtk_use *u;
	const char *rel;
	size_t file;
};

static int S_use_cmp(const void *pa, const void *pb)
{
	const struct dtk_use *a = ((const struct use_at *)pa)->u, *b = ((const struct use_at *)pb)->u;
	return a->cited != b->cited ? a->cited - b->cited : strcmp(a->id, b->id);
}

/* By record name, then file, then place in the file. */
static int S_rec_cmp(const void *pa, const void *pb)
{
	const struct use_at *a = pa, *b = pb;
	int c = strcmp(a->u->rec, b->u->rec);
	return c ? c : a->file != b->file ? (a->file < b->file ? -1 : 1) : (a->u > b->u) - (a->u < b->u);
}

/* Keeps in v (n of them, sorted by S_rec_cmp) the uses of each record from
 * the first file that holds it only: a record counts once, whether it is
 * live, in a fold, or in several (two branches folded it); copies those of
 * live records to l->kb->live_uses. Returns how many are kept. */
static size_t S_once(struct loader *l, struct use_at *v, size_t n)
{
	size_t i, k = 0, first = 0, live = 0;
	const size_t plen = strlen(DTK_USES_DIR "/" DTK_USES_FOLD);

	for (i = 0; i < n; i++) {
		if (i && strcmp(v[i].u->rec, v[first].u->rec))
			first = i;
		if (v[i].file == v[first].file)
			v[k++] = v[i];
	}
	for (i = 0; i < k; i++)
		live += strncmp(l->files[v[i].file].name, DTK_USES_DIR "/" DTK_USES_FOLD, plen) != 0;
	l->kb->live_uses = dtk_arena_alloc(l->kb->arena, (live ? live : 1) * sizeof(struct dtk_use_live));
	for (i = 0; i < k; i++)
		if (strncmp(l->files[v[i].file].name, DTK_USES_DIR "/" DTK_USES_FOLD, plen))
			l->kb->live_uses[l->kb->n_live_uses++] =
			        (struct dtk_use_live){v[i].u->rec, v[i].u->id, v[i].u->cited};
	return k;
}

void dtk_kb_fold_uses(struct loader *l)
{
	struct use_at *v = NULL;
	size_t n = 0, cap = 0, ucap = 0, i, j, k;

	for (i = 0; i < l->n_files; i++)
		for (k = 0; k < l->files[i].n_uses; k++) {
			dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
			v[n++] = (struct use_at){&l->files[i].uses[k], l->files[i].rel, i};
		}
	if (n > 1)
		qsort(v, n, sizeof(*v), S_rec_cmp);
	n = S_once(l, v, n);
	if (n > 1)
		qsort(v, n, sizeof(*v), S_use_cmp);
	for (i = 0; i < n; i = j) {
		const struct dtk_use *u = v[i].u;
		struct dtk_entry *e = dtk_kb_entry(l->kb, u->id);
		struct dtk_sum_entry se = {0};
		const struct dtk_node *node = e ? e->node : dtk_kb_sum_entry(l->kb, u->id, &se);
		long *count = e ? (u->cited ? &e->cited : &e->used) : NULL;
		size_t plen = 0;
		int had, live;

		for (j = i + 1; j < n && !S_use_cmp(&v[i], &v[j]); j++)
			;
		if (!node) { /* a load of one node, or a node file that cannot be read: not told */
			if (!l->sums ||
			    (dtk_entry_id_split(u->id, &plen) && dtk_kb_is_broken(l, u->id, plen)))
				continue;
			for (k = i; k < j; k++)
				dtk_diags_add(l->d, v[k].rel, v[k].u->pos.line, v[k].u->pos.col,
				              "'%s' names unknown entry '%s'",
				              u->cited ? "cited" : "used", u->id);
			continue;
		}
		dtk_grow((void **)&l->kb->use_counts, &ucap, l->kb->n_use_counts + 1,
		         sizeof(*l->kb->use_counts));
		l->kb->use_counts[l->kb->n_use_counts++] =
		        (struct dtk_use_count){u->id, u->cited, (long)(j - i)};
		had = count ? *count > 0 : u->cited ? se.cited : se.used;
		live = e ? !dtk_entry_retired(e) : !se.retracted && !se.superseded_by;
		if (count)
			*count += (long)(j - i);
		/* the summary was read into this load's arena: its own to change */
		if (node->sum && !had && live) {
			struct dtk_node_sum *s = (struct dtk_node_sum *)node->sum;
			if (u->cited)
				s->cited++;
			else
				s->used++;
		}
	}
	free(v);
}
