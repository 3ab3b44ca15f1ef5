/* kb_hold.c: a base held between requests, loaded again when a file changed. */
#include "kb_int.h"

#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/links.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a base held between requests ---- */

struct dtk_kb_hold {
	char *root;
	int what;
	struct dtk_kb *kb;         /* NULL: none held */
	struct dtk_cache_stat *st; /* the stat data of insights/ and its files, at the load */
	char **names;              /* those files */
	size_t n;
	int64_t stamp;  /* when they were taken */
	unsigned loads; /* how many loads it made */
};

/* Takes the stat data of insights/ (first) and of its files into the
 * malloc'd *st and *names. Returns the count, or -1. */
static int S_snapshot(const char *root, char ***names, struct dtk_cache_stat **st)
{
	char *dir = dtk_path_join(root, "insights");
	int n = dtk_kb_list_dir(names, dir, 0), i,
	    fd = n < 0 ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat s;

	free(dir);
	*st = NULL;
	if (fd < 0 || fstat(fd, &s) < 0) {
		if (fd >= 0)
			close(fd);
		dtk_strv_free(*names, n > 0 ? (size_t)n : 0);
		*names = NULL;
		return -1;
	}
	*st = dtk_xcalloc((size_t)n + 1, sizeof(**st));
	dtk_cache_stat_of(&(*st)[0], &s);
	for (i = 0; i < n; i++)
		if (fstatat(fd, (*names)[i], &s, AT_SYMLINK_NOFOLLOW) == 0)
			dtk_cache_stat_of(&(*st)[i + 1], &s);
	close(fd);
	return n;
}

struct dtk_kb_hold *dtk_kb_hold_new(const char *root, int what)
{
	struct dtk_kb_hold *h = dtk_xcalloc(1, sizeof(*h));
	h->root = dtk_xstrdup(root);
	h->what = what & ~(DTK_KB_ONE_NODE | DTK_KB_LINKED);
	return h;
}

/* Returns 1 when insights/ and its files are as h's snapshot says, each
 * older than it by more than the grain (a file changed within it is never
 * trusted: a load follows). */
static int S_hold_same(const struct dtk_kb_hold *h)
{
	struct dtk_cache_stat *st = NULL;
	char **names = NULL;
	int n = S_snapshot(h->root, &names, &st), same = n >= 0 && (size_t)n == h->n, i;
	struct stat s;

	for (i = 0; same && i <= n; i++) {
		memset(&s, 0, sizeof(s)); /* the stat data back, for dtk_cache_trusted */
		s.st_dev = (dev_t)st[i].dev;
		s.st_ino = (ino_t)st[i].ino;
		s.st_size = (off_t)st[i].size;
		s.st_mtim.tv_sec = (time_t)(st[i].mtime_ns / DTK_CACHE_NS);
		s.st_mtim.tv_nsec = (long)(st[i].mtime_ns % DTK_CACHE_NS);
		s.st_ctim.tv_sec = (time_t)(st[i].ctime_ns / DTK_CACHE_NS);
		s.st_ctim.tv_nsec = (long)(st[i].ctime_ns % DTK_CACHE_NS);
		same = (i == 0 || !strcmp(names[i - 1], h->names[i - 1])) &&
		       dtk_cache_trusted(&h->st[i], &s, h->stamp);
	}
	dtk_strv_free(names, n > 0 ? (size_t)n : 0);
	free(st);
	return same;
}

int dtk_kb_hold_get(struct dtk_kb_hold *h, const struct dtk_kb **kb, struct dtk_diags *diags)
{
	int n, rc;

	*kb = NULL;
	if (h->kb && S_hold_same(h)) {
		*kb = h->kb;
		return 0;
	}
	dtk_kb_free(h->kb);
	h->kb = NULL;
	dtk_strv_free(h->names, h->n);
	free(h->st);
	h->names = NULL;
	h->st = NULL;
	h->n = 0;
	h->stamp = dtk_cache_now(); /* before the files are looked at */
	n = S_snapshot(h->root, &h->names, &h->st);
	h->n = n > 0 ? (size_t)n : 0;
	h->loads++;
	rc = dtk_kb_load(&h->kb, &(struct dtk_kb_load_opts){.root = h->root, .what = h->what},
	                 diags);
	if (rc == 0)
		dtk_links_index(h->kb); /* every show served from it takes its links so */
	if (rc == 0 && n < 0) {         /* loaded, but its files not looked at: not held */
		*kb = h->kb;
		return 0;
	}
	*kb = h->kb;
	return rc;
}

void dtk_kb_hold_free(struct dtk_kb_hold *h)
{
	if (!h)
		return;
	dtk_kb_free(h->kb);
	dtk_strv_free(h->names, h->n);
	free(h->st);
	free(h->root);
	free(h);
}

unsigned dtk_kb_hold_peek(const struct dtk_kb_hold *h, const struct dtk_kb **kb)
{
	*kb = h->kb;
	return h->loads;
}
