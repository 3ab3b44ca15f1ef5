/* cache.c: the node cache's plumbing: place, checksums, trust, the rename. */
#include "dtk/cache.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* One step of a lane of dtk_cache_sum: w mixed into h. */
static inline uint64_t S_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

uint64_t dtk_cache_sum(const char *buf, size_t len)
{
	/* four lanes of eight bytes, independent of each other, so that the
	 * multiplications overlap: about four times the speed of one lane */
	uint64_t h[4] = {0x9e3779b97f4a7c15ULL ^ len, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
	                 0x27d4eb2f165667c5ULL},
	         w[4], r;
	size_t i, k;

	for (i = 0; i + 32 <= len; i += 32) {
		memcpy(w, buf + i, 32);
		for (k = 0; k < 4; k++)
			h[k] = S_mix(h[k], w[k]);
	}
	r = S_mix(S_mix(S_mix(h[0], h[1]), h[2]), h[3]);
	for (; i + 8 <= len; i += 8) {
		memcpy(w, buf + i, 8);
		r = S_mix(r, w[0]);
	}
	for (; i < len; i++) {
		r = (r ^ (unsigned char)buf[i]) * 0xc4ceb9fe1a85ec53ULL;
		r ^= r >> 29;
	}
	return r;
}

static const char *S_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int S_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Returns 1 when text names target: the path of its first line, relative
 * to base when not absolute, is target (a real path) once resolved. */
static int S_names(char *text, const char *base, const char *target)
{
	char *p, *real;
	int same;

	text[strcspn(text, "\r\n")] = '\0';
	if (!*text)
		return 0;
	p = text[0] == '/' ? dtk_xstrdup(text) : dtk_path_join(base, text);
	real = realpath(p, NULL);
	same = real && !strcmp(real, target);
	free(real);
	free(p);
	return same;
}

/* Returns core.worktree of the git config text (malloc'd), or NULL: the
 * plain form git writes ("[core]" then "\tworktree = PATH"). */
static char *S_core_worktree(const char *text)
{
	const char *line, *nl, *v;
	int core = 0;

	for (line = text; *line; line = *nl ? nl + 1 : nl) {
		nl = line + strcspn(line, "\n");
		line += strspn(line, " \t");
		if (*line == '[')
			core = !strncasecmp(line, "[core]", 6);
		else if (core && !strncasecmp(line, "worktree", 8)) {
			v = line + 8 + strspn(line + 8, " \t");
			if (*v++ != '=')
				continue;
			v += strspn(v, " \t");
			return dtk_xstrndup(v, strcspn(v, "\r\n"));
		}
	}
	return NULL;
}

/* Returns 1 when the git directory git (a real path) is one of the work
 * tree at dir whose ".git" file is dot: its own "gitdir" file names dot
 * (a linked worktree), or its core.worktree is dir (a submodule, a
 * separate git directory made so). A ".git" file naming any other
 * directory (an archive's "gitdir: ../../../../root") is not followed. */
static int S_gitdir_is_ours(const char *git, const char *dot, const char *dir)
{
	char *rdot = realpath(dot, NULL), *rdir = realpath(dir, NULL), *text = NULL, *wt = NULL;
	char *back = dtk_path_join(git, "gitdir"), *config = dtk_path_join(git, "config");
	size_t len;
	int ours = 0;

	if (!rdot || !rdir)
		goto done;
	if (dtk_file_read(&text, &len, back, 4096) == 0)
		ours = S_names(text, git, rdot);
	free(text);
	text = NULL;
	if (!ours && dtk_file_read(&text, &len, config, 1 << 20) == 0 &&
	    (wt = S_core_worktree(text)))
		ours = S_names(wt, git, rdir);
done:
	dtk_error_clear();
	free(text);
	free(wt);
	free(back);
	free(config);
	free(rdot);
	free(rdir);
	return ours;
}

/* Returns the git directory a ".git" file at dot names (malloc'd, a real
 * path), or NULL when it names none of this work tree's. */
static char *S_gitdir_file(const char *dot, const char *dir)
{
	char *text = NULL, *out = NULL, *p, *real = NULL;
	size_t len;

	if (dtk_file_read(&text, &len, dot, 4096) != 0 || strncmp(text, "gitdir: ", 8))
		goto done;
	p = text + 8;
	p[strcspn(p, "\r\n")] = '\0';
	out = p[0] == '/' ? dtk_xstrdup(p) : dtk_path_join(dir, p);
	real = S_is_dir(out) ? realpath(out, NULL) : NULL;
	if (real && !S_gitdir_is_ours(real, dot, dir)) {
		free(real);
		real = NULL;
	}
done:
	dtk_error_clear();
	free(out);
	free(text);
	return real;
}

/* Returns the git directory of the repository holding root (malloc'd), as
 * git finds it (GIT_DIR, else the nearest .git up from root), or NULL. */
char *dtk_cache_git_dir(const char *root)
{
	const char *env = S_env("GIT_DIR");
	char *dir, *dot, *out = NULL, *slash;
	struct stat st;
	int found;

	if (env)
		return S_is_dir(env) ? realpath(env, NULL) : NULL;
	dir = dtk_xstrdup(root);
	for (;;) {
		dot = dtk_path_join(dir, ".git");
		found = lstat(dot, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
		if (found && S_ISDIR(st.st_mode))
			out = dtk_xstrdup(dot);
		else if (found)
			out = S_gitdir_file(dot, dir);
		free(dot);
		slash = strrchr(dir, '/');
		/* the nearest .git decides, as for git: one that is not this
		 * work tree's sends the cache to the user's cache directory */
		if (found || !slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return out;
}

char *dtk_cache_path(const char *root, const char *kind)
{
	const char *off = S_env("DTK_NO_CACHE"), *xdg = S_env("XDG_CACHE_HOME");
	const char *home = S_env("HOME");
	char *git, *out = NULL;
	struct dtk_buf b = DTK_BUF_INIT;

	if (off && strcmp(off, "0"))
		return NULL;
	git = dtk_cache_git_dir(root);
	if (git)
		dtk_buf_printf(&b, "%s/dtk", git);
	else if (xdg && xdg[0] == '/')
		dtk_buf_printf(&b, "%s/dtk", xdg);
	else if (home && home[0] == '/')
		dtk_buf_printf(&b, "%s/.cache/dtk", home);
	if (b.len) {
		dtk_buf_printf(&b, "/%s-%016" PRIx64, kind, dtk_cache_sum(root, strlen(root)));
		out = dtk_xstrdup(b.ptr);
	}
	dtk_buf_release(&b);
	free(git);
	return out;
}

void dtk_cache_stat_of(struct dtk_cache_stat *out, const struct stat *st)
{
	out->dev = (uint64_t)st->st_dev;
	out->ino = (uint64_t)st->st_ino;
	out->size = (uint64_t)st->st_size;
	out->mtime_ns = (int64_t)st->st_mtim.tv_sec * DTK_CACHE_NS + st->st_mtim.tv_nsec;
	out->ctime_ns = (int64_t)st->st_ctim.tv_sec * DTK_CACHE_NS + st->st_ctim.tv_nsec;
}

/* Returns the grain in ns: DTK_CACHE_GRAIN_S, or in a build with
 * DTK_TEST_HOOKS (the test suite's) DTK_TEST_CACHE_GRAIN_NS when set, so
 * that the tests need not wait for the clock. */
static int64_t S_grain(void)
{
#ifdef DTK_TEST_HOOKS
	const char *env = S_env("DTK_TEST_CACHE_GRAIN_NS");
	if (env)
		return strtoll(env, NULL, 10);
#endif
	return DTK_CACHE_GRAIN_S * DTK_CACHE_NS;
}

int dtk_cache_trusted(const struct dtk_cache_stat *r, const struct stat *st, int64_t stamp)
{
	struct dtk_cache_stat now;
	int64_t limit = stamp - S_grain();

	dtk_cache_stat_of(&now, st);
	/* five 8-byte fields: no padding */
	return !memcmp(r, &now, sizeof(now)) && r->mtime_ns < limit && r->ctime_ns < limit;
}

/* ---- the text of a cache file ---- */

int dtk_cache_num(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

void dtk_cache_stat_put(struct dtk_buf *b, const struct dtk_cache_stat *s)
{
	dtk_buf_printf(b, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64, s->dev,
	               s->ino, s->size, s->mtime_ns, s->ctime_ns);
}

int dtk_cache_stat_read(const char **p, struct dtk_cache_stat *s)
{
	uint64_t v[5];
	int k;

	for (k = 0; k < 5; k++) {
		if (dtk_cache_num(p, &v[k]) < 0 || **p != ' ')
			return -1;
		++*p;
	}
	if (v[3] > INT64_MAX || v[4] > INT64_MAX)
		return -1;
	*s = (struct dtk_cache_stat){v[0], v[1], v[2], (int64_t)v[3], (int64_t)v[4]};
	return 0;
}

void dtk_cache_time_put(struct dtk_buf *b, int64_t now)
{
	dtk_buf_printf(b, "time %" PRId64 " %" PRId64 "\n", now / DTK_CACHE_NS, now % DTK_CACHE_NS);
}

char *dtk_cache_time_read(char *p, const struct stat *st, int64_t *stamp)
{
	char *end = strchr(p, '\n');
	int64_t sec, nsec, at;
	int used;

	if (!end || sscanf(p, "time %" SCNd64 " %" SCNd64 "%n", &sec, &nsec, &used) != 2 ||
	    p + used != end || sec < 0 || nsec < 0 || nsec >= DTK_CACHE_NS)
		return NULL;
	/* the earlier of the time it says it was made and its mtime */
	at = (int64_t)st->st_mtim.tv_sec * DTK_CACHE_NS + st->st_mtim.tv_nsec;
	*stamp = sec * DTK_CACHE_NS + nsec < at ? sec * DTK_CACHE_NS + nsec : at;
	return end + 1;
}

void dtk_cache_end_put(struct dtk_buf *b, uint64_t n)
{
	dtk_buf_printf(b, "end %" PRIu64 " %016" PRIx64 "\n", n, dtk_cache_sum(b->ptr, b->len));
}

char *dtk_cache_end_check(char *text, size_t len, uint64_t *n)
{
	char *tail, line[64];
	uint64_t sum;

	if (len < 2 || text[len - 1] != '\n' || memchr(text, '\0', len))
		return NULL;
	text[len - 1] = '\0';
	tail = strrchr(text, '\n');
	tail = tail ? tail + 1 : text;
	if (sscanf(tail, "end %" SCNu64 " %" SCNx64, n, &sum) != 2)
		return NULL;
	snprintf(line, sizeof(line), "end %" PRIu64 " %016" PRIx64, *n,
	         dtk_cache_sum(text, (size_t)(tail - text)));
	if (strcmp(tail, line)) /* exactly as written */
		return NULL;
	*tail = '\0';
	return tail;
}

int64_t dtk_cache_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * DTK_CACHE_NS + ts.tv_nsec;
}

/* Removes the temporary files of the cache base (its name) in dir that a
 * writer killed before its rename left (base.XXXXXX, unchanged for
 * DTK_CACHE_STALE_S): each may be as large as the cache. A live writer's
 * file, were it taken, only makes its rename fail. */
static void S_sweep(const char *dir, const char *base)
{
	static const char mkstemp_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                    "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(base);
	int64_t old = dtk_cache_now() - (int64_t)DTK_CACHE_STALE_S * DTK_CACHE_NS;
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d))) {
		const char *s = de->d_name;
		if (strlen(s) != n + 7 || strncmp(s, base, n) || s[n] != '.' ||
		    strspn(s + n + 1, mkstemp_chars) != 6 ||
		    fstatat(dirfd(d), s, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    (int64_t)st.st_mtim.tv_sec * DTK_CACHE_NS + st.st_mtim.tv_nsec >= old)
			continue;
		unlinkat(dirfd(d), s, 0);
	}
	if (d)
		closedir(d);
}

int dtk_cache_create(const char *path, char **tmp)
{
	char *t = dtk_xmalloc(strlen(path) + 16), *slash;
	int fd;

	strcpy(t, path);
	slash = strrchr(t, '/');
	if (slash && slash != t) {
		*slash = '\0';
		if (dtk_file_mkdirs(t, 0700) < 0) {
			dtk_error_clear();
			free(t);
			*tmp = NULL;
			return -1;
		}
		S_sweep(t, slash + 1);
		*slash = '/';
	}
	strcat(t, ".XXXXXX");
	fd = mkstemp(t);
	if (fd < 0) {
		free(t);
		t = NULL;
	}
	*tmp = t;
	return fd;
}

int dtk_cache_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int dtk_cache_commit(int fd, char *tmp, const char *path, int ok)
{
	int rc = -1;

	if (close(fd) < 0)
		ok = 0;
	if (ok)
		rc = rename(tmp, path);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc < 0 ? -1 : 0;
}
