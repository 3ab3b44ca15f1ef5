/* dtk_diag.c: diagnostics about input files, collected and printed sorted. */
#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

void dtk_diags_vadd(struct dtk_diags *d, const char *path, int line, int col, const char *fmt,
                    va_list ap)
{
	struct dtk_buf msg = DTK_BUF_INIT;
	struct dtk_diag *g;

	dtk_buf_vprintf(&msg, fmt, ap);
	dtk_grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v));
	g = &d->v[d->n++];
	g->path = dtk_xstrdup(path ? path : "");
	g->line = line;
	g->col = col;
	g->msg = dtk_buf_detach(&msg);
}

void dtk_diags_add(struct dtk_diags *d, const char *path, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dtk_diags_vadd(d, path, line, col, fmt, ap);
	va_end(ap);
}

void dtk_diags_move(struct dtk_diags *dst, struct dtk_diags *src)
{
	if (!src->n) { /* src may still hold room (its diagnostics dropped) */
		free(src->v);
		src->v = NULL;
		src->cap = 0;
		return;
	}
	dtk_grow((void **)&dst->v, &dst->cap, dst->n + src->n, sizeof(*dst->v));
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n += src->n;
	free(src->v);
	src->v = NULL;
	src->n = src->cap = 0;
}

static int S_cmp(const void *pa, const void *pb)
{
	const struct dtk_diag *a = pa, *b = pb;
	int c = strcmp(a->path, b->path);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return strcmp(a->msg, b->msg);
}

void dtk_diags_sort(struct dtk_diags *d)
{
	size_t i, k = 0;

	if (d->n < 2)
		return;
	qsort(d->v, d->n, sizeof(*d->v), S_cmp);
	for (i = 0; i < d->n; i++) {
		if (k && S_cmp(&d->v[k - 1], &d->v[i]) == 0) {
			free(d->v[i].path);
			free(d->v[i].msg);
			continue;
		}
		d->v[k++] = d->v[i];
	}
	d->n = k;
}

static char *S_from; /* dtk_path_show_from: NULL for the root */
static char *S_root; /* dtk_path_show_root: NULL when not set */

void dtk_path_show_root(const char *root)
{
	free(S_root);
	S_root = root ? dtk_xstrdup(root) : NULL;
}

/* Returns the part of absolute path p below S_root ("" for the root
 * itself), or NULL when p is not under it. */
static const char *S_below_root(const char *p)
{
	size_t n = S_root ? strlen(S_root) : 0;
	while (n > 0 && S_root[n - 1] == '/')
		n--;
	if (!S_root || p[0] != '/' || strncmp(p, S_root, n) || (p[n] != '/' && p[n]))
		return NULL;
	return p[n] ? p + n + 1 : "";
}

void dtk_path_show_from(const char *dir)
{
	free(S_from);
	S_from = dir && *dir ? dtk_xstrdup(dir) : NULL;
}

char *dtk_path_shown(const char *path)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const char *f = S_from, *p = S_below_root(path), *slash;
	size_t n;

	if (p && !*p)
		p = "."; /* the root itself */
	if (!p && (strncmp(path, "insights/", 9) && strcmp(path, "INDEX.md")))
		return dtk_xstrdup(path);
	if (!p)
		p = path;
	if (!S_from)
		return dtk_xstrdup(p);
	/* drop the directories both start with */
	while (*f && (slash = strchr(p, '/'))) {
		n = strcspn(f, "/");
		if (n != (size_t)(slash - p) || memcmp(f, p, n))
			break;
		p = slash + 1;
		f += n + (f[n] == '/');
	}
	/* then up from each directory left of the working directory */
	while (*f) {
		dtk_buf_puts(&b, "../");
		f += strcspn(f, "/");
		f += *f == '/';
	}
	dtk_buf_puts(&b, p);
	return dtk_buf_detach(&b);
}

void dtk_diags_print(const struct dtk_diags *d, FILE *out)
{
	dtk_diags_print_as(d, out, "error");
}

void dtk_diags_print_as(const struct dtk_diags *d, FILE *out, const char *kind)
{
	size_t i;
	for (i = 0; i < d->n; i++) {
		const struct dtk_diag *g = &d->v[i];
		char *path = dtk_path_shown(g->path);
		/* control characters escaped: a key holding a newline or an
		 * escape sequence cannot forge a line or drive the terminal */
		fprintf(out, "%s:%d:%d: %s: %s\n", dtk_esc(path), g->line > 0 ? g->line : 1,
		        g->col > 0 ? g->col : 1, kind, dtk_esc(g->msg));
		free(path);
	}
}

void dtk_diags_release(struct dtk_diags *d)
{
	size_t i;
	for (i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}
