/* kb_hold.c: a base held between requests, loaded again when a file changed. */
#include "kb_int.h"

#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/links.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* ---- a base held between requests ---- */

struct dtk_kb_hold {
	char *root;
	int what;
	struct dtk_kb *kb; /* NULL: none held */
	struct stat *st;   /* the stat data of insights/ and its files, at the load */
	char **names;      /* those files */
	size_t n;
	size_t n_links; /* of those, symbolic links: the watch sees no change of their targets */
	int64_t stamp;  /* when they were taken */
	unsigned loads; /* how many loads it made */
	/* an inotify descriptor watching insights/ since before the load, or
	 * -1: none (not made yet, or not to be had: the stat pass then) */
	int watch;
	int no_watch; /* 1: inotify is not to be had here */
};

/* Takes the stat data of insights/ (first) and of its files into the
 * malloc'd *st and *names (zeros for a file that cannot be looked at); a
 * file that is a symbolic link gives its target's, and counts in *links.
 * Returns the count, or -1. */
static int S_snapshot(const char *root, char ***names, struct stat **st, size_t *links)
{
	char *dir = dtk_path_join(root, "insights");
	int n = dtk_kb_list_dir(names, dir, 0), i,
	    fd = n < 0 ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat s;

	free(dir);
	*st = NULL;
	*links = 0;
	if (fd < 0 || fstat(fd, &s) < 0) {
		if (fd >= 0)
			close(fd);
		dtk_strv_free(*names, n > 0 ? (size_t)n : 0);
		*names = NULL;
		return -1;
	}
	*st = dtk_xcalloc((size_t)n + 1, sizeof(**st));
	(*st)[0] = s;
	for (i = 0; i < n; i++) {
		if (fstatat(fd, (*names)[i], &s, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(s.st_mode)) {
			++*links;
			if (fstatat(fd, (*names)[i], &s, 0) < 0)
				continue;
		}
		(*st)[i + 1] = s;
	}
	close(fd);
	return n;
}

struct dtk_kb_hold *dtk_kb_hold_new(const char *root, int what)
{
	struct dtk_kb_hold *h = dtk_xcalloc(1, sizeof(*h));
	h->root = dtk_xstrdup(root);
	h->what = what & ~(DTK_KB_ONE_NODE | DTK_KB_LINKED);
	h->watch = -1;
	return h;
}

/* Returns 1 when the file system of dir tells a process of changes made by
 * this machine only (inotify sees no change another host makes on a
 * network file system, nor all of a FUSE one's). */
static int S_local(const char *dir)
{
	struct statfs fs;

	if (statfs(dir, &fs) < 0)
		return 0;
	switch ((unsigned long)fs.f_type) {
	case 0x6969:     /* NFS */
	case 0xff534d42: /* CIFS */
	case 0xfe534d42: /* SMB2 */
	case 0x517b:     /* SMB */
	case 0x65735546: /* FUSE */
	case 0x564c:     /* NCP */
	case 0x7461636f: /* OCFS2 */
	case 0x47504653: /* GPFS */
	case 0x0bd00bd0: /* Lustre */
	case 0x6b414653: /* AFS */
	case 0x73757245: /* Coda */
	case 0x6e667364: /* NFSD */ return 0;
	default: return 1;
	}
}

/* Starts watching insights/ of h (before a load), unless it is not to be
 * had (then h->no_watch). DTK_TEST_NO_WATCH (test builds) makes the stat
 * pass the rule, for its tests. */
static void S_watch(struct dtk_kb_hold *h)
{
	char *dir = dtk_path_join(h->root, "insights");
	int fd;

#ifdef DTK_TEST_HOOKS
	if (getenv("DTK_TEST_NO_WATCH"))
		h->no_watch = 1;
#endif
	fd = h->no_watch || !S_local(dir) ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd >= 0 && inotify_add_watch(fd, dir,
	                                 IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE |
	                                         IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
	                                         IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) { /* and its records of uses, once there (made: a change of insights/) */
		char *uses = dtk_path_join(dir, DTK_USES_DIR);
		(void)inotify_add_watch(fd, uses,
		                        IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
		                                IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
		                                IN_ONLYDIR | IN_DONT_FOLLOW);
		free(uses);
	}
	h->watch = fd;
	h->no_watch = fd < 0;
	free(dir);
}

/* Reads every event waiting on h's watch; returns how many bytes of them
 * there were (0: none), or -1 when the watch failed (it is closed: the
 * stat pass from then on). */
static long S_drain(struct dtk_kb_hold *h)
{
	char buf[4096] __attribute__((aligned(8)));
	long total = 0;
	ssize_t n;

	while ((n = read(h->watch, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		close(h->watch);
		h->watch = -1;
		h->no_watch = 1;
		return -1;
	}
	return total;
}

/* Returns 1 when insights/ and its files are as h's snapshot says, each
 * older than it by more than the grain (a file changed within it is never
 * trusted: a load follows). With the watch: when no event came since the
 * load and insights/ is the directory watched (not one put in its place),
 * and, when some files are links, their targets pass the stat pass. */
static int S_hold_same(struct dtk_kb_hold *h)
{
	struct dtk_cache_stat r;
	struct stat *st = NULL;
	char **names = NULL;
	size_t links = 0;
	int n, same, i;
	struct stat s;

	if (!h->st)
		return 0;
	if (h->watch >= 0) {
		char *dir = dtk_path_join(h->root, "insights");
		same = stat(dir, &s) == 0 && s.st_dev == h->st[0].st_dev &&
		       s.st_ino == h->st[0].st_ino && S_drain(h) == 0;
		free(dir);
		if (h->watch >= 0 && (!same || !h->n_links))
			return same;
	}
	n = S_snapshot(h->root, &names, &st, &links);
	same = n >= 0 && (size_t)n == h->n;

	for (i = 0; same && i <= n; i++) {
		dtk_cache_stat_of(&r, &h->st[i]);
		same = (i == 0 || !strcmp(names[i - 1], h->names[i - 1])) &&
		       dtk_cache_trusted(&r, &st[i], h->stamp);
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
	if (h->watch >= 0) { /* anew: insights/ may be another directory now */
		close(h->watch);
		h->watch = -1;
	}
	if (!h->no_watch)
		S_watch(h);         /* before the files are looked at: a change shows */
	h->stamp = dtk_cache_now(); /* before the files are looked at */
	n = S_snapshot(h->root, &h->names, &h->st, &h->n_links);
	h->n = n > 0 ? (size_t)n : 0;
	h->loads++;
	rc = dtk_kb_load(&h->kb, &(struct dtk_kb_load_opts){.root = h->root, .what = h->what},
	                 diags);
	if (rc == 0)
		dtk_links_index(h->kb); /* every show served from it takes its links so */
	*kb = h->kb; /* its files not looked at (n < 0): not held, loaded again next time */
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
	if (h->watch >= 0)
		close(h->watch);
	free(h);
}

unsigned dtk_kb_hold_peek(const struct dtk_kb_hold *h, const struct dtk_kb **kb)
{
	*kb = h->kb;
	return h->loads;
}
