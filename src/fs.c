/* fs.c: whole-file reads, comparison, atomic replacement, paths. */
#include "dtk/fs.h"

#include "dtk/dtk.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Returns path as messages show it (dtk_path_shown), in one of a few
 * buffers of the calling thread, so that a message can name two paths;
 * errno is kept. */
static const char *S_shown(const char *path)
{
	static _Thread_local char bufs[4][PATH_MAX];
	static _Thread_local unsigned k;
	int e = errno;
	char *s = dtk_path_shown(path), *b = bufs[k++ % 4];

	snprintf(b, PATH_MAX, "%s", s);
	free(s);
	errno = e;
	return b;
}

int dtk_file_read_fd(char **out, size_t *len, int fd, const char *path, size_t max)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct stat st;
	ssize_t n;
	int rc = -1;

	*out = NULL;
	*len = 0;
	/* read in place: a file of known size in one read, then the empty one
	 * that says it ended (hence the byte beyond the NUL) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max)
		dtk_grow((void **)&b.ptr, &b.cap, (size_t)st.st_size + 2, 1);
	for (;;) {
		if (b.cap - b.len < 2)
			dtk_grow((void **)&b.ptr, &b.cap, b.len + 65536, 1);
		n = read(fd, b.ptr + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dtk_error("cannot read %s: %s", S_shown(path), strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			dtk_error("cannot read %s: it is larger than the limit of %zu bytes",
			          S_shown(path), max);
			rc = DTK_ETOOBIG;
			goto done;
		}
		b.len += (size_t)n;
	}
	b.ptr[b.len] = '\0';
	*len = b.len;
	*out = dtk_buf_detach(&b);
	rc = 0;
done:
	dtk_buf_release(&b);
	return rc;
}

int dtk_file_read(char **out, size_t *len, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*out = NULL;
	*len = 0;
	if (fd < 0) {
		int e = errno;
		dtk_error("cannot open %s: %s", S_shown(path), strerror(e));
		errno = e;
		return -1;
	}
	rc = dtk_file_read_fd(out, len, fd, path, max);
	close(fd);
	return rc;
}

/* Returns 1 when path (a real path) is root (a real path) or below it. */
static int S_within(const char *root, const char *path)
{
	size_t n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--; /* "/" */
	return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

int dtk_file_open_at(int *fd, int dfd, const char *name)
{
	struct stat st;
	int nfd;

	/* a regular file, not a link, checked before it is opened (opening a
	 * device can do things) */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : 2;
	if (!S_ISREG(st.st_mode))
		return 2;
	nfd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (nfd >= 0 && fstat(nfd, &st) == 0 && S_ISREG(st.st_mode)) {
		*fd = nfd;
		return 0;
	}
	if (nfd >= 0)
		close(nfd);
	return 2;
}

/* Opens the directory of rel, a relative path below the directory open as
 * rootfd, from rootfd down one component at a time, following no symbolic
 * link: a link swapped in on the way is refused, never followed. Returns
 * its descriptor and sets *name to rel's last component, or -1 with errno
 * set (EINVAL: rel is not a plain relative path). */
static int S_open_dir_at(int rootfd, const char *rel, const char **name)
{
	const char *p = rel, *slash;
	int dfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0), nfd, e = 0;

	for (; dfd >= 0; p = slash + 1) {
		size_t n = (slash = strchr(p, '/')) ? (size_t)(slash - p) : strlen(p);
		char *comp = dtk_xstrndup(p, n);
		if (!n || !strcmp(comp, ".") || !strcmp(comp, "..")) {
			nfd = -1;
			e = EINVAL;
		} else if (!slash) {
			free(comp);
			*name = p;
			return dfd;
		} else {
			nfd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			e = errno;
		}
		free(comp);
		close(dfd);
		dfd = nfd;
	}
	if (e)
		errno = e;
	return -1;
}

/* The common case, cheaply: path is root/<components> with no symbolic link
 * on the way and a regular file at the end, opened from root down with
 * O_NOFOLLOW. Returns 0 and sets *fd; 1 when path does not exist; 2 when the
 * careful way must decide (a link, not a regular file, a path not under
 * root as given). */
static int S_open_plain(int *fd, const char *root, const char *path)
{
	size_t n = strlen(root);
	const char *name;
	int rootfd, dfd, rc;

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || path[n] != '/')
		return 2;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return 2;
	/* not a plain path (EINVAL), a link on the way: the careful way */
	dfd = S_open_dir_at(rootfd, path + n + 1, &name);
	rc = dfd < 0 ? (errno == ENOENT ? 1 : 2) : dtk_file_open_at(fd, dfd, name);
	if (dfd >= 0)
		close(dfd);
	close(rootfd);
	return rc;
}

/* The careful way of dtk_file_open_within: every link resolved (realpath),
 * the real path checked to be inside root, then opened from root down with
 * O_NOFOLLOW and compared with what was checked. Returns as it does. */
static int S_open_resolved(int *fd, const char *root, const char *path)
{
	struct stat lst, st, fst;
	char *real = NULL;
	const char *rel, *name;
	int rootfd, dfd = -1, nfd, rc = -1, e;

	if (lstat(path, &lst) < 0) {
		if (errno == ENOENT)
			return 1;
		return dtk_error("cannot read: %s", strerror(errno));
	}
	/* every link on the way resolved, the whole path must stay inside */
	real = realpath(path, NULL);
	if (!real) {
		if (S_ISLNK(lst.st_mode) && (errno == ENOENT || errno == ELOOP))
			return dtk_error("symbolic link is broken or leads outside the repository");
		return dtk_error("cannot read: %s", strerror(errno));
	}
	if (!S_within(root, real)) {
		if (S_ISLNK(lst.st_mode))
			dtk_error("symbolic link leads outside the repository");
		else
			dtk_error("is outside the repository (a directory on its path is a "
			          "symbolic link leading out)");
		goto done;
	}
	if (stat(real, &st) < 0) {
		dtk_error("cannot read: %s", strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		dtk_error("is %s, not a file",
		          S_ISDIR(st.st_mode) ? "a directory" : "a special file");
		goto done;
	}
	/* opened from root down, no link followed: a link swapped in since
	 * realpath is refused, not followed; O_NONBLOCK: a FIFO swapped in does
	 * not block (it is refused below) */
	rel = real + strlen(root);
	while (*rel == '/')
		rel++;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	nfd = rootfd >= 0 ? S_open_dir_at(rootfd, rel, &name) : -1;
	dfd = nfd >= 0 ? openat(nfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	e = errno;
	if (nfd >= 0)
		close(nfd);
	if (rootfd >= 0)
		close(rootfd);
	if (dfd < 0) {
		errno = e;
		dtk_error(
		        errno == ELOOP || errno == ENOTDIR || errno == EMLINK
		                ? "changed while being read (a symbolic link appeared on its path)"
		                : "cannot read: %s",
		        strerror(errno));
		goto done;
	}
	if (fstat(dfd, &fst) < 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino ||
	    !S_ISREG(fst.st_mode)) {
		dtk_error("changed while being read");
		goto done;
	}
	*fd = dfd;
	dfd = -1;
	rc = 0;
done:
	if (dfd >= 0)
		close(dfd);
	free(real);
	return rc;
}

int dtk_file_open_within(int *fd, const char *root, const char *path)
{
	int rc;

	*fd = -1;
	rc = S_open_plain(fd, root, path);
	return rc != 2 ? rc : S_open_resolved(fd, root, path);
}

static int S_write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Returns the directory holding path ("." for a bare name), malloc'd. */
static char *S_dir_of(const char *path)
{
	char *dir = dtk_xstrdup(path), *slash = strrchr(dir, '/');

	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	return dir;
}

/* Flushes the directory open as dfd, which holds path, to disk (so that a
 * rename in it lasts); a failure is reported, not ignored. Returns 0 (also
 * where the file system cannot sync a directory: EINVAL, as POSIX allows),
 * or -1 with the error set. */
static int S_sync_dir(int dfd, const char *path)
{
	char *dir;

	if ((dtk_fault_point("fsync-dir", path) == 0 && fsync(dfd) == 0) || errno == EINVAL)
		return 0;
	dir = S_dir_of(path);
	dtk_error("wrote %s, but cannot sync its directory %s: %s (the change may not last a "
	          "crash)",
	          S_shown(path), S_shown(dir), strerror(errno));
	free(dir);
	return -1;
}

/* Makes a new name beside name in the directory open as dfd,
 * <name>.tmp-<pid>-XXXXXX (a long name cut to fit): the pid tells one a
 * killed run left (dtk_file_sweep). With keep, a hard link to name; else a
 * new file with the mode a new file gets (0666 less the umask, as any tool
 * creates files). Returns the file's descriptor (0 for a link) and its name
 * in tmp, or -1 with errno set. */
static int S_create_temp(struct dtk_buf *tmp, int dfd, const char *name, int keep)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	static unsigned long seed;
	int attempt, fd = -1, i;
	/* the name cut so that its suffix fits in a file name (NAME_MAX):
	 * ".tmp-", a pid of up to 10 digits, '-' and 6 */
	size_t blen = strlen(name) < NAME_MAX - 22 ? strlen(name) : NAME_MAX - 22;

	if (!seed)
		seed = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL);
	for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
		tmp->len = 0;
		dtk_buf_printf(tmp, "%.*s.tmp-%ld-", (int)blen, name, (long)getpid());
		for (i = 0; i < 6; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			dtk_buf_putc(tmp, digits[(seed >> 33) % 36]);
		}
		fd = keep ? linkat(dfd, name, dfd, tmp->ptr, 0)
		          : openat(dfd, tmp->ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	return fd;
}

/* How many files below S_count_root dtk_file_stage_commit replaced
 * (dtk_file_replaced). */
static unsigned long S_replaced;
static char *S_count_root;

void dtk_file_count_below(const char *root)
{
	free(S_count_root);
	S_count_root = root ? dtk_xstrdup(root) : NULL;
}

unsigned long dtk_file_replaced(void)
{
	return S_replaced;
}

int dtk_file_dead_pid(const char *s, size_t *len)
{
	char *end;
	long pid;

	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || pid <= 0 || (pid_t)pid != pid)
		return 0;
	*len = (size_t)(end - s);
	return pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

void dtk_file_sweep_at(int rootfd, const char *rel)
{
	char *x = rel ? dtk_path_join(rel, "x") : NULL;
	const char *name;
	int fd = x ? S_open_dir_at(rootfd, x, &name) : fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	struct stat st;

	free(x);
	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d))) {
		const char *t = strstr(de->d_name, ".tmp-");
		size_t n;
		if (!t || t == de->d_name || !dtk_file_dead_pid(t + 5, &n) || t[5 + n] != '-' ||
		    strlen(t + 6 + n) != 6 || strchr(t + 6 + n, '.') ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

void dtk_file_sweep(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		dtk_file_sweep_at(fd, NULL);
		close(fd);
	}
}

char *dtk_path_within(const char *root, const char *path)
{
	char *r = realpath(root, NULL), *p = r ? realpath(path, NULL) : NULL, *rel = NULL;
	size_t n = r ? strlen(r) : 0;

	n -= n && r[n - 1] == '/'; /* "/" */
	if (p && !strncmp(p, r, n) && p[n] == '/')
		rel = dtk_xstrdup(p + n + 1);
	free(r);
	free(p);
	return rel;
}

int dtk_file_write_atomic(const char *path, const char *data, size_t len)
{
	return dtk_file_write_atomic_mode(path, data, len, -1);
}

int dtk_file_write_atomic_mode(const char *path, const char *data, size_t len, int mode)
{
	struct dtk_file_staged s;
	int rc = dtk_file_stage(&s, path, data, len, mode);

	if (rc == 0)
		rc = dtk_file_stage_commit(&s);
	dtk_file_stage_release(&s);
	return rc;
}

/* dtk_file_stage in the directory s->dfd (adopted; -1: it could not be
 * opened, errno set) as s->name, every step relative to it. */
static int S_stage(struct dtk_file_staged *s, const char *data, size_t len, int mode)
{
	struct dtk_buf tmp = DTK_BUF_INIT;
	struct stat st;
	int fd = -1, keep_mode;

	if (s->dfd < 0) {
		dtk_error("cannot write %s: %s", S_shown(s->path),
		          errno == ELOOP || errno == ENOTDIR
		                  ? "a directory on its path is a symbolic link (it changed while "
		                    "being written)"
		                  : strerror(errno));
		return -1;
	}
	keep_mode = fstatat(s->dfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (mode >= 0) {
		keep_mode = 1;
		st.st_mode = (mode_t)mode;
	}
	fd = S_create_temp(&tmp, s->dfd, s->name, 0);
	if (fd < 0) {
		dtk_error("cannot create a temporary file beside %s: %s", S_shown(s->path),
		          strerror(errno));
		dtk_buf_release(&tmp);
		return -1;
	}
	/* a file replaced keeps its mode; a new one has the umask's (unless
	 * the caller gives one) */
	if (dtk_fault_point("write", s->path) < 0 || S_write_all(fd, data, len) < 0 ||
	    (keep_mode && fchmod(fd, st.st_mode & 07777) < 0) || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		fd = -1;
	} else if (close(fd) < 0)
		fd = -1;
	if (fd < 0) {
		dtk_error("cannot write a temporary file beside %s: %s", S_shown(s->path),
		          strerror(errno));
		unlinkat(s->dfd, tmp.ptr, 0);
		dtk_buf_release(&tmp);
		return -1;
	}
	s->tmp = dtk_buf_detach(&tmp);
	return 0;
}

int dtk_file_stage(struct dtk_file_staged *s, const char *path, const char *data, size_t len,
                   int mode)
{
	char *dir = S_dir_of(path);
	const char *slash = strrchr(path, '/');

	memset(s, 0, sizeof(*s));
	s->path = dtk_xstrdup(path);
	s->name = dtk_xstrdup(slash ? slash + 1 : path);
	s->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return S_stage(s, data, len, mode);
}

int dtk_file_mkdir_within(int rootfd, const char *rel)
{
	const char *name = rel;
	int dfd = S_open_dir_at(rootfd, rel, &name), rc;

	if (dfd < 0)
		return -1;
	rc = mkdirat(dfd, name, 0777) < 0 && errno != EEXIST ? -1 : 0;
	close(dfd);
	return rc;
}

int dtk_file_stage_within(struct dtk_file_staged *s, int rootfd, const char *root, const char *rel,
                          const char *data, size_t len, int mode)
{
	const char *name = rel;

	memset(s, 0, sizeof(*s));
	s->path = dtk_path_join(root, rel);
	s->rel = dtk_xstrdup(rel);
	s->dfd = S_open_dir_at(rootfd, rel, &name);
	s->name = dtk_xstrdup(name);
	return S_stage(s, data, len, mode);
}

int dtk_file_stage_commit(struct dtk_file_staged *s)
{
	dtk_crash_point("before-rename");
	if (dtk_fault_point("rename", s->path) < 0 ||
	    renameat(s->dfd, s->tmp, s->dfd, s->name) < 0) {
		dtk_error("cannot replace %s: %s", S_shown(s->path), strerror(errno));
		return -1;
	}
	if (!S_count_root || !strncmp(s->path, S_count_root, strlen(S_count_root)))
		S_replaced++;
	free(s->tmp);
	s->tmp = NULL;
	return S_sync_dir(s->dfd, s->path) < 0 ? DTK_ENOSYNC : 0;
}

void dtk_file_stage_release(struct dtk_file_staged *s)
{
	if (!s->path)
		return; /* never staged */
	if (s->tmp && s->dfd >= 0)
		unlinkat(s->dfd, s->tmp, 0);
	if (s->keep && s->dfd >= 0)
		unlinkat(s->dfd, s->keep, 0);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->tmp);
	free(s->keep);
	free(s->name);
	free(s->rel);
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->dfd = -1;
}

/* ---- several files together: the journal ---- */

/* The journal: this line, then for each file four strings, each ending in
 * a NUL: its path below the root, the name its previous file is kept under
 * ("" when the write creates it), the name of its new text before the
 * rename, and the device and inode of the previous file ("<dev>:<ino>"). */
static const char S_journal_magic[] = "dtk journal 1\n";

/* Keeps s's previous file under a temporary name beside it (s->keep): a
 * hard link, or a copy where there can be none (a file system without
 * them, an immutable file); none when there is no file. Appends s's entry
 * to the journal j. Returns 0, or -1 with the error set. */
static int S_keep(struct dtk_file_staged *s, struct dtk_buf *j)
{
	struct dtk_file_staged c = *s;
	struct dtk_buf k = DTK_BUF_INIT;
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int fd = -1, rc = 0, exists = fstatat(s->dfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (!exists && errno != ENOENT)
		rc = -1;
	else if (exists && S_create_temp(&k, s->dfd, s->name, 1) == 0)
		s->keep = dtk_buf_detach(&k);
	else if (exists) {
		c.tmp = NULL;
		rc = dtk_file_open_at(&fd, s->dfd, s->name) ? -1 : 0;
		if (rc == 0 && (rc = dtk_file_read_fd(&data, &len, fd, s->path, SIZE_MAX)) == 0 &&
		    (rc = S_stage(&c, data, len, (int)(st.st_mode & 07777))) == 0)
			s->keep = c.tmp;
		if (fd >= 0)
			close(fd);
		free(data);
	}
	dtk_buf_release(&k);
	if (rc < 0)
		return dtk_error("cannot keep %s as it is: %s", S_shown(s->path), strerror(errno));
	dtk_buf_put(j, s->rel, strlen(s->rel) + 1);
	dtk_buf_put(j, s->keep ? s->keep : "", s->keep ? strlen(s->keep) + 1 : 1);
	dtk_buf_put(j, s->tmp, strlen(s->tmp) + 1);
	if (s->keep)
		dtk_buf_printf(j, "%llu:%llu", (unsigned long long)st.st_dev,
		               (unsigned long long)st.st_ino);
	dtk_buf_put(j, "", 1);
	return 0;
}

/* Puts name of the directory dfd back as a journal's entry says (keep, tmp,
 * id: its strings): the new text not renamed yet removed; the previous file
 * (keep) renamed over name unless name is that file still (id), or, keep
 * empty (the write created it), name removed. Each step may have been done
 * already. Returns 0, or -1 with errno set. */
static int S_undo(int dfd, const char *name, const char *keep, const char *tmp, const char *id)
{
	struct stat st;
	char cur[48] = "";

	if (strchr(keep, '/') || strchr(tmp, '/')) {
		errno = EINVAL;
		return -1;
	}
	if (*tmp && unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
		return -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		snprintf(cur, sizeof(cur), "%llu:%llu", (unsigned long long)st.st_dev,
		         (unsigned long long)st.st_ino);
	else if (errno != ENOENT)
		return -1;
	if (!*keep ? *cur && unlinkat(dfd, name, 0) < 0
	           : strcmp(cur, id) && renameat(dfd, keep, dfd, name) < 0 && errno != ENOENT)
		return -1;
	if (*keep && unlinkat(dfd, keep, 0) < 0 && errno != ENOENT)
		return -1;
	return fsync(dfd) < 0 && errno != EINVAL ? -1 : 0;
}

/* Puts back every file the journal text j (len bytes) names (rootfd -1:
 * none). Appends their paths to what (", "-separated) when not NULL.
 * Returns 0, or -1 with the error set. */
static int S_undo_all(int rootfd, const char *j, size_t len, struct dtk_buf *what)
{
	const char *p = j + sizeof(S_journal_magic) - 1, *end = j + len, *f[4], *name;
	int dfd, k, rc = 0;

	if (len < sizeof(S_journal_magic) - 1 ||
	    memcmp(j, S_journal_magic, sizeof(S_journal_magic) - 1))
		return dtk_error("%s is not a journal of dtk", DTK_FILE_JOURNAL);
	while (p < end) {
		for (k = 0; k < 4; k++) {
			f[k] = p;
			if (!(p = memchr(p, '\0', (size_t)(end - p))))
				return dtk_error("%s is cut short", DTK_FILE_JOURNAL);
			p++;
		}
		if (what)
			dtk_buf_printf(what, "%s%s", what->len ? ", " : "", f[0]);
		if (rc < 0 || rootfd < 0)
			continue;
		dfd = S_open_dir_at(rootfd, f[0], &name);
		if (dfd < 0 || S_undo(dfd, name, f[1], f[2], f[3]) < 0)
			rc = dtk_error("cannot put back %s: %s", f[0], strerror(errno));
		if (dfd >= 0)
			close(dfd);
	}
	return rc;
}

/* Removes the journal: the write it recorded stands. Returns 0, or -1 with
 * the error set. */
static int S_journal_drop(int rootfd)
{
	if ((unlinkat(rootfd, DTK_FILE_JOURNAL, 0) < 0 && errno != ENOENT) ||
	    (fsync(rootfd) < 0 && errno != EINVAL))
		return dtk_error("cannot remove %s: %s", DTK_FILE_JOURNAL, strerror(errno));
	return 0;
}

/* Writes the journal j into rootfd (root: its path) and syncs it, after
 * syncing the directories of the kept files. Returns 0, or -1 with the
 * error set. */
static int S_journal_write(int rootfd, const char *root, struct dtk_file_staged *v, size_t n,
                           const struct dtk_buf *j)
{
	struct dtk_file_staged js = {.dfd = -1};
	size_t i;
	int rc = 0;

	/* each directory of a kept file once (most often all are insights/) */
	for (i = 0; i < n && rc == 0; i++) {
		struct stat a, b;
		size_t k = 0;
		while (v[i].keep && k < i &&
		       !(v[k].keep && fstat(v[k].dfd, &a) == 0 && fstat(v[i].dfd, &b) == 0 &&
		         a.st_ino == b.st_ino && a.st_dev == b.st_dev))
			k++;
		if (v[i].keep && k == i && fsync(v[i].dfd) < 0 && errno != EINVAL)
			rc = dtk_error("cannot sync the directory of %s: %s", S_shown(v[i].path),
			               strerror(errno));
	}
	if (rc == 0 && (rc = dtk_file_stage_within(&js, rootfd, root, DTK_FILE_JOURNAL, j->ptr,
	                                           j->len, -1)) == 0) {
		if (renameat(rootfd, js.tmp, rootfd, DTK_FILE_JOURNAL) == 0) {
			free(js.tmp);
			js.tmp = NULL;
			if (fsync(rootfd) < 0 && errno != EINVAL) {
				rc = dtk_error("cannot write %s: %s", S_shown(js.path),
				               strerror(errno));
				unlinkat(rootfd, DTK_FILE_JOURNAL, 0);
			}
		} else
			rc = dtk_error("cannot write %s: %s", S_shown(js.path), strerror(errno));
	}
	dtk_file_stage_release(&js);
	return rc;
}

int dtk_file_commit_all(int rootfd, const char *root, struct dtk_file_staged *v, size_t n)
{
	struct dtk_buf j = DTK_BUF_INIT, unsynced = DTK_BUF_INIT;
	size_t i, staged = 0, renamed = 0;
	int rc = 0, r, journal = 0;
	char *why = NULL;

	for (i = 0; i < n; i++)
		staged += v[i].tmp != NULL;
	/* two or more: each previous file kept and the journal naming them
	 * written before the first rename */
	if (staged > 1) {
		dtk_buf_puts(&j, S_journal_magic);
		for (i = 0; i < n && rc == 0; i++)
			if (v[i].tmp)
				rc = S_keep(&v[i], &j);
		if (rc == 0)
			rc = S_journal_write(rootfd, root, v, n, &j);
		journal = rc == 0;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (!v[i].tmp)
			continue;
		r = dtk_file_stage_commit(&v[i]);
		if (r == DTK_ENOSYNC)
			dtk_buf_printf(&unsynced, "%s%s", unsynced.len ? "; " : "",
			               dtk_error_last());
		rc = r == DTK_ENOSYNC ? 0 : r;
		renamed += r != -1;
		dtk_crash_point("after-file");
	}
	why = rc < 0 ? dtk_xstrdup(dtk_error_last()) : NULL;
	if (rc < 0 && journal) {
		/* a rename failed: every file put back as the journal says */
		if (S_undo_all(rootfd, j.ptr, j.len, NULL) == 0 && S_journal_drop(rootfd) == 0)
			journal = 0;
		else {
			dtk_error("%s; %s: the next dtk write command puts back every file of "
			          "this one (dtk reindex)",
			          why, dtk_error_last());
			rc = DTK_ENOSYNC;
		}
	} else if (journal && S_journal_drop(rootfd) == 0)
		journal = 0;
	else if (journal)
		dtk_buf_printf(&unsynced,
		               "%s%s (the next dtk write command puts back every file of this one)",
		               unsynced.len ? "; " : "", dtk_error_last());
	if (rc == -1)
		dtk_error("%s: nothing was written%s", why,
		          renamed ? " (the files already replaced were put back)" : "");
	else if (rc == 0 && unsynced.len) {
		dtk_error("%s", unsynced.ptr);
		rc = DTK_ENOSYNC;
	}
	/* the kept files stay with a journal that names them */
	for (i = 0; i < n && journal; i++) {
		free(v[i].keep);
		v[i].keep = NULL;
	}
	free(why);
	dtk_buf_release(&j);
	dtk_buf_release(&unsynced);
	return rc;
}

int dtk_file_rollback(int rootfd, const char *root, char **what)
{
	struct dtk_buf w = DTK_BUF_INIT;
	char *j = NULL;
	size_t len = 0;
	int fd = openat(rootfd, DTK_FILE_JOURNAL, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
	    rc;

	*what = NULL;
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return dtk_error("cannot read %s/%s: %s", root, DTK_FILE_JOURNAL, strerror(errno));
	rc = dtk_file_read_fd(&j, &len, fd, DTK_FILE_JOURNAL, 1u << 20);
	close(fd);
	if (rc == 0)
		rc = S_undo_all(rootfd, j, len, &w);
	if (rc == 0)
		rc = S_journal_drop(rootfd);
	if (rc < 0) {
		char *e = dtk_xstrdup(dtk_error_last());
		dtk_error("a write was interrupted; %s (%s/%s kept)", e, root, DTK_FILE_JOURNAL);
		free(e);
	}
	free(j);
	if (rc == 0)
		*what = dtk_buf_detach(&w);
	dtk_buf_release(&w);
	return rc < 0 ? -1 : 1;
}

char *dtk_file_journal(const char *root)
{
	struct dtk_buf w = DTK_BUF_INIT;
	char *path = dtk_path_join(root, DTK_FILE_JOURNAL), *j = NULL;
	size_t len = 0;

	if (dtk_file_read_regular(&j, &len, path, 1u << 20) == 1) {
		free(path);
		return NULL;
	}
	if (!j || S_undo_all(-1, j, len, &w) < 0 || !w.len)
		dtk_buf_puts(&w, DTK_FILE_JOURNAL);
	free(j);
	free(path);
	return dtk_buf_detach(&w);
}

int dtk_file_open_regular(int *fd, const char *path, size_t max)
{
	struct stat st;

	/* a regular file or nothing: not a link (whose target would be read
	 * and replaced), nor a FIFO (O_NONBLOCK: opening it does not wait) or a
	 * device */
	*fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT)
		return 1;
	if (*fd < 0 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return dtk_error(
		        "cannot read %s: it is a symbolic link (it must be a regular file)",
		        S_shown(path));
	if (*fd < 0)
		return dtk_error("cannot open %s: %s", S_shown(path), strerror(errno));
	if (fstat(*fd, &st) < 0)
		dtk_error("cannot read %s: %s", S_shown(path), strerror(errno));
	else if (S_ISDIR(st.st_mode))
		dtk_error("cannot read %s: %s", S_shown(path), strerror(EISDIR));
	else if (!S_ISREG(st.st_mode))
		dtk_error("cannot read %s: it is a special file (it must be a regular file)",
		          S_shown(path));
	else if ((uintmax_t)st.st_size > max)
		dtk_error("cannot read %s: it is larger than the limit of %zu bytes", S_shown(path),
		          max);
	else
		return 0;
	close(*fd);
	*fd = -1;
	return -1;
}

int dtk_file_read_regular(char **out, size_t *len, const char *path, size_t max)
{
	int fd, rc = dtk_file_open_regular(&fd, path, max);

	*out = NULL;
	*len = 0;
	if (rc != 0)
		return rc;
	rc = dtk_file_read_fd(out, len, fd, path, max);
	close(fd);
	return rc == DTK_ETOOBIG ? -1 : rc;
}

int dtk_file_check_regular(const char *path)
{
	int fd, rc = dtk_file_open_regular(&fd, path, SIZE_MAX);

	if (fd >= 0)
		close(fd);
	return rc < 0 ? -1 : 0;
}

int dtk_file_mkdirs(const char *dir, unsigned mode)
{
	char *p = dtk_xstrdup(dir), *s;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
			rc = dtk_error("cannot make %s: %s", p, strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

int dtk_file_cmp_open(struct dtk_file_cmp *c, const char *path, size_t max)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->path = dtk_xstrdup(path);
	c->max = max;
	rc = dtk_file_open_regular(&c->fd, path, max);
	return rc < 0 ? -1 : 0; /* missing (fd -1): any text differs */
}

int dtk_file_cmp_write(void *arg, const char *s, size_t len)
{
	dtk_buf_put(&((struct dtk_file_cmp *)arg)->text, s, len);
	return 0;
}

int dtk_file_cmp_finish(struct dtk_file_cmp *c)
{
	char *old;
	size_t len;
	int rc;

	if (c->fd < 0)
		return 1;
	if (dtk_file_read_fd(&old, &len, c->fd, c->path, c->max) < 0)
		return -1;
	rc = len != c->text.len || memcmp(old, dtk_buf_cstr(&c->text), len);
	free(old);
	return rc;
}

void dtk_file_cmp_release(struct dtk_file_cmp *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->path);
	c->path = NULL;
	dtk_buf_release(&c->text);
}

char *dtk_path_join(const char *a, const char *b)
{
	struct dtk_buf p = DTK_BUF_INIT;
	size_t la = strlen(a);
	dtk_buf_puts(&p, a);
	if (la && a[la - 1] != '/')
		dtk_buf_putc(&p, '/');
	dtk_buf_puts(&p, b);
	return dtk_buf_detach(&p);
}

char *dtk_path_search(const char *dirs, const char *name)
{
	const char *p, *end;
	char *found = NULL;

	for (p = dirs; p && !found; p = *end ? end + 1 : NULL) {
		struct stat st;
		char *dir, *full;
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dir = end > p ? dtk_xstrndup(p, (size_t)(end - p)) : dtk_xstrdup(".");
		full = dtk_path_join(dir, name);
		free(dir);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			found = full;
		else
			free(full);
	}
	return found;
}

void dtk_memfiles_free(struct dtk_memfile *files, size_t n)
{
	size_t i;
	for (i = 0; files && i < n; i++) {
		free((char *)files[i].name);
		free((char *)files[i].data);
	}
	free(files);
}
