/* kb.c: finding the base, loading it (kb_read.c reads its files, kb_check.c
 * checks across them), the look-ups of records. */
#include "kb_int.h"

#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/similar.h"
#include "dtk/ytree.h"
#include "schema.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

char *dtk_kb_find_root(const char *start_dir)
{
	char *dir = realpath(start_dir, NULL), *probe, *slash;
	struct stat st;
	int found;

	if (!dir) {
		dtk_error("cannot use directory %s: %s", start_dir, strerror(errno));
		return NULL;
	}
	for (;;) {
		probe = dtk_path_join(dir, "insights/_domain.yaml");
		found = stat(probe, &st) == 0;
		free(probe);
		if (found)
			return dir;
		if (!dir[1]) /* "/" */
			break;
		slash = strrchr(dir, '/'); /* dir is absolute */
		slash[slash == dir] = '\0'; /* "/a" goes up to "/" */
	}
	free(dir);
	dtk_error("not in a knowledge base: no insights/_domain.yaml in %s or any parent",
	          start_dir);
	return NULL;
}

void dtk_strv_free(char **v, size_t n)
{
	size_t i;
	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int dtk_kb_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the file names in dir (not "." nor ".."), sorted unless unsorted. */
int dtk_kb_list_dir(char ***out, const char *dir, int unsorted)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return dtk_error("cannot read %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n >= DTK_MAX_FILES) {
			closedir(d);
			dtk_strv_free(v, n);
			dtk_error("%s holds more than %d files", dir, DTK_MAX_FILES);
			return DTK_ETOOBIG;
		}
		dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
		v[n++] = dtk_xstrdup(de->d_name);
	}
	closedir(d);
	if (n && !unsorted)
		qsort(v, n, sizeof(*v), dtk_kb_name_cmp);
	*out = v;
	return (int)n;
}

/* Returns 1 when name is "<node>.yaml" for a valid node name. */
int dtk_kb_node_file(const char *name, char *node, size_t size)
{
	size_t n = strlen(name);
	if (n <= 5 || strcmp(name + n - 5, ".yaml") || n - 5 >= size)
		return 0;
	memcpy(node, name, n - 5);
	node[n - 5] = '\0';
	return dtk_is_name(node);
}

int dtk_kb_list_nodes(char ***out, const char *root)
{
	char *dir = dtk_path_join(root, "insights"), **names, node[256];
	int n = dtk_kb_list_dir(&names, dir, 0), i, k = 0;

	free(dir);
	*out = NULL;
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int ok = dtk_kb_node_file(names[i], node, sizeof(node));
		free(names[i]);
		if (ok)
			names[k++] = dtk_xstrdup(node);
	}
	*out = names;
	return k;
}

int dtk_kb_has_node(const char *root, const char *name)
{
	struct dtk_buf p = DTK_BUF_INIT;
	struct stat st;
	int rc;

	dtk_buf_printf(&p, "%s/insights/%s.yaml", root, name);
	rc = dtk_is_name(name) && stat(p.ptr, &st) == 0;
	dtk_buf_release(&p);
	return rc;
}

void dtk_kb_suggest_node(FILE *f, const char *root, const char *what, const char *name)
{
	char **nodes = NULL;
	int n = dtk_kb_list_nodes(&nodes, root);
	const char *hint = n > 0 ? dtk_suggest(name, (const char *const *)nodes, (size_t)n) : NULL;

	fputs(what, f);
	if (hint)
		fprintf(f, "; did you mean '%s'?", hint);
	fputc('\n', f);
	dtk_strv_free(nodes, n > 0 ? (size_t)n : 0);
}

void dtk_kb_free(struct dtk_kb *kb)
{
	if (!kb)
		return;
	free(kb->nodes);
	free(kb->use_counts);
	free(kb->source_slots);
	free(kb->node_slots);
	dtk_nodecache_free(kb->nodecache);
	dtk_similar_index_free(kb->terms_index);
	dtk_arena_free(kb->arena);
	free(kb);
}

/* Unpacks node's packed form as t says the node cache has it (read as it
 * was when the base was loaded: its checksum says so) into *out, its
 * strings in arena. Returns 0, or -1 with the error set. */
static int S_unpack_again(const struct dtk_kb *kb, const struct dtk_node *node,
                          const struct dtk_node_terms *t, struct dtk_arena *arena,
                          struct dtk_node **out)
{
	struct dtk_buf blob = DTK_BUF_INIT;
	char *copy;
	int rc = -1;

	*out = NULL;
	if (kb->nodecache && dtk_nodecache_read(kb->nodecache, &t->node, &blob) == 0) {
		copy = dtk_arena_alloc_raw(arena, blob.len + 1);
		memcpy(copy, blob.ptr ? blob.ptr : "", blob.len + 1);
		rc = dtk_nodecache_unpack(out, kb, arena, arena, copy, blob.len, node->name,
		                          node->path, DTK_NODECACHE_BORROW, NULL);
	}
	dtk_buf_release(&blob);
	if (rc < 0)
		dtk_error("the node cache changed while node '%s' was read: run the command again",
		          node->name);
	return rc;
}

/* Cuts the terms of node again, into b, from the packed node t says the
 * node cache has. Returns 0, or -1 with the error set. */
static int S_terms_again(const struct dtk_kb *kb, const struct dtk_node *node,
                         const struct dtk_node_terms *t, struct dtk_buf *b)
{
	struct dtk_arena *arena = dtk_arena_new();
	struct dtk_node *again;
	int rc = S_unpack_again(kb, node, t, arena, &again);

	b->len = 0;
	if (rc == 0)
		rc = dtk_similar_pack(b, again);
	dtk_arena_free(arena);
	return rc;
}

uint64_t dtk_kb_node_key(const struct dtk_node *node)
{
	return node->terms ? node->terms->node.sum : 0;
}

int dtk_kb_node_held(const struct dtk_node *node)
{
	return node->terms && node->terms->held;
}

int dtk_kb_node_whole(const struct dtk_kb *kb, const struct dtk_node *node,
                      const struct dtk_node **out)
{
	struct dtk_node *whole;

	if (!dtk_kb_node_held(node))
		return dtk_error("node '%s' is not held by the index of terms", node->name);
	if (S_unpack_again(kb, node, node->terms, kb->arena, &whole) < 0)
		return -1;
	*out = whole;
	return 0;
}

int dtk_kb_node_terms(const struct dtk_kb *kb, const struct dtk_node *node, struct dtk_buf *b,
                      const char **p, size_t *len)
{
	const struct dtk_node_terms *t = node->terms;

	if (!t || t->held)
		return dtk_error("the base was loaded without the terms of node '%s'", node->name);
	if (t->mem) {
		*p = t->mem;
		*len = t->len;
		return 0;
	}
	if ((!kb->nodecache || dtk_nodecache_read(kb->nodecache, &t->at, b) < 0) &&
	    S_terms_again(kb, node, t, b) < 0)
		return -1;
	*p = b->ptr ? b->ptr : "";
	*len = b->len;
	return 0;
}

/* ---- loading ---- */

/* Loads the base described by l (root or memory files set) into l->kb. */
static int S_load(struct loader *l, int what, const char *node, struct dtk_kb **out,
                  struct dtk_diags *diags)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = l->kb;
	/* one node, or the files a filter kept: no checks across files */
	int one = (what & DTK_KB_ONE_NODE) != 0 || l->filter, rc = -1;
	size_t i;

	*out = NULL;
	l->d = &d;
	l->schema_flags = (what & DTK_KB_LEAN) ? DTK_SCHEMA_LEAN : 0;
	l->terms = (what & DTK_KB_TERMS) && !l->filter;
	l->sums = !one;
	l->index = (what & DTK_KB_INDEX) && !one && !l->terms;
	l->today = dtk_date_today();
	if (l->filter && l->filter->borrow && l->filter->loaded)
		l->schema_flags |= DTK_SCHEMA_BORROW;
	if (dtk_kb_read_files(
	            l, what & (DTK_KB_ONE_NODE | DTK_KB_LINKED | DTK_KB_NO_CACHE | DTK_KB_INDEX),
	            node) < 0) {
		if (d.n) /* the base is at fault, not the system: told as its errors */
			rc = DTK_EINVALID;
		goto done;
	}
	if (kb->n_nodes > 1)
		qsort(kb->nodes, kb->n_nodes, sizeof(*kb->nodes), dtk_kb_node_cmp);
	dtk_model_index_nodes(kb);
	dtk_kb_fold_uses(l);
	if (!one) {
		dtk_kb_check_across(l);
	} else {
		for (i = 0; i < kb->n_categories; i++)
			for (size_t j = 0; j < kb->categories[i].n_nodes; j++) {
				struct dtk_node *n = dtk_kb_node(kb, kb->categories[i].nodes[j].id);
				if (n)
					n->category = (int)i;
			}
	}
	if (d.n) {
		dtk_diags_sort(&d);
		rc = DTK_EINVALID;
		goto done;
	}
	if (l->terms) { /* the terms it holds are read from it */
		kb->nodecache = l->nc;
		l->nc = NULL;
	}
	*out = kb;
	l->kb = NULL;
	rc = 0;
done:
	dtk_diags_move(diags, &d);
	dtk_strv_free(l->broken, l->n_broken);
	free(l->named);
	free(l->needle);
	dtk_nodecache_free(l->nc);
	for (i = 0; i < l->n_files; i++) {
		free(l->files[i].name);
		free(l->files[i].rel);
	}
	free(l->files);
	free(l->root_real);
	dtk_kb_free(l->kb);
	return rc;
}

static struct dtk_kb *S_new_kb(const char *root)
{
	struct dtk_kb *kb = dtk_xcalloc(1, sizeof(*kb));
	kb->arena = dtk_arena_new();
	kb->root = dtk_arena_strdup(kb->arena, root);
	kb->stale_after_months = 6;
	kb->high_min_verified = 2;
	kb->index_max_bytes = DTK_INDEX_MAX_BYTES;
	kb->index_max_lines = DTK_INDEX_MAX_LINES;
	return kb;
}

int dtk_kb_load(struct dtk_kb **out, const struct dtk_kb_load_opts *o, struct dtk_diags *diags)
{
	struct loader l;

	memset(&l, 0, sizeof(l));
	l.dir_fd = -1;
	l.filter = o->filter;
	l.mem = o->files;
	l.n_mem = o->n_files;
	l.over = o->root && o->files;
	*out = NULL;
	if (o->root && !(l.root_real = realpath(o->root, NULL)))
		return dtk_error("cannot use %s: %s", o->root, strerror(errno));
	l.kb = S_new_kb(o->root ? o->root : "");
	return S_load(&l, o->files || o->filter ? o->what & ~DTK_KB_ONE_NODE : o->what,
	              o->files || o->filter ? NULL : o->node, out, diags);
}

/* ---- look-ups ---- */

int dtk_kb_high_min(const struct dtk_yval *domain)
{
	struct dtk_kb *kb = S_new_kb("");
	struct dtk_diags d = DTK_DIAGS_INIT;
	int min;

	dtk_schema_domain(kb, domain, "insights/_domain.yaml", &d);
	min = kb->high_min_verified;
	dtk_diags_release(&d);
	dtk_kb_free(kb);
	return min;
}

int dtk_kb_parse_records(struct dtk_kb **out, const char *buf, size_t len, const char *path,
                         struct dtk_diags *diags)
{
	struct dtk_kb *kb = S_new_kb(""); /* the records alone */
	struct dtk_arena *tmp = dtk_arena_new();
	struct dtk_yval *root = NULL;
	size_t before = diags->n;

	if (dtk_yaml_parse(&root, tmp, path, buf, len, diags) == 0 && root)
		dtk_schema_records(kb, kb->arena, root, path, diags);
	dtk_arena_free(tmp);
	*out = NULL;
	if (diags->n > before) {
		dtk_kb_free(kb);
		return DTK_EINVALID;
	}
	*out = kb;
	return 0;
}

int dtk_kb_read_review(struct dtk_kb *kb, const char *path, struct dtk_record *r,
                       struct dtk_diags *diags)
{
	struct dtk_arena *tmp = dtk_arena_new();
	struct dtk_yval *root = NULL;
	size_t before = diags->n, len;
	char *buf = NULL;
	int rc = dtk_file_read(&buf, &len, path, DTK_MAX_FILE_BYTES);

	if (rc == DTK_ETOOBIG)
		dtk_diags_add(diags, path, 1, 1, "file is larger than the limit of %u bytes",
		              DTK_MAX_FILE_BYTES);
	else if (rc < 0)
		goto done;
	else if (dtk_yaml_parse(&root, tmp, path, buf, len, diags) == 0 && !root)
		dtk_diags_add(diags, path, 1, 1, "file is empty");
	else if (root)
		dtk_schema_review_file(kb, root, path, r, diags);
	rc = diags->n > before ? DTK_EINVALID : 0;
done:
	free(buf);
	dtk_arena_free(tmp);
	return rc;
}

int dtk_kb_uses_name(char *buf, size_t size, const char *prefix, dtk_date date)
{
	unsigned char r[10];
	char d[11];
	size_t i, n;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return dtk_error("cannot name a file of uses: %s", strerror(errno));
	n = (size_t)snprintf(buf, size, DTK_USES_DIR "/%s%s-", prefix, dtk_date_format(d, date));
	for (i = 0; i < sizeof(r) && n + 1 < size; i++)
		buf[n++] = DTK_ID_ALPHABET[r[i] % 32];
	snprintf(buf + n, size - n, ".yaml");
	return 0;
}
