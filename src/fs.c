/* fs.c: whole-file reads, streamed comparison, atomic replacement, paths. */
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

/* The common case, cheaply: path is root/<components> with no symbolic link
 * on the way and a regular file at the end, opened from root down with
 * O_NOFOLLOW. Returns 0 and sets *fd; 1 when path does not exist; 2 when the
 * careful way must decide (a link, not a regular file, a path not under
 * root as given). */
static int S_open_plain(int *fd, const char *root, const char *path)
{
	size_t n = strlen(root);
	char *rel, *comp, *slash;
	int dfd, nfd, rc = 2;

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || path[n] != '/')
		return 2;
	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 2;
	rel = dtk_xstrdup(path + n + 1);
	for (comp = rel; comp; comp = slash) {
		slash = strchr(comp, '/');
		if (slash)
			*slash++ = '\0';
		if (!*comp || !strcmp(comp, ".") || !strcmp(comp, ".."))
			break; /* not a plain path: the careful way */
		if (!slash) {
			rc = dtk_file_open_at(fd, dfd, comp);
			break;
		}
		nfd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = errno == ENOENT ? 1 : 2;
			break;
		}
		close(dfd);
		dfd = nfd;
	}
	close(dfd);
	free(rel);
	return rc;
}

/* The careful way of dtk_file_open_within: every link resolved (realpath),
 * the real path checked to be inside root, then opened from root down with
 * O_NOFOLLOW and compared with what was checked. Returns as it does. */
static int S_open_resolved(int *fd, const char *root, const char *path)
{
	struct stat lst, st, fst;
	char *real = NULL, *rel, *comp, *slash;
	int dfd = -1, nfd, rc = -1;

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
	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rel = real + strlen(root);
	while (*rel == '/')
		rel++;
	for (comp = rel; dfd >= 0 && comp; comp = slash) {
		slash = strchr(comp, '/');
		if (slash)
			*slash++ = '\0';
		nfd = openat(dfd, comp,
		             O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		                     (slash ? O_DIRECTORY : O_NONBLOCK));
		close(dfd);
		dfd = nfd;
	}
	if (dfd < 0) {
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

/* Flushes the directory holding path to disk (so that a rename in it
 * lasts); a failure is reported, not ignored. Returns 0 (also where the
 * file system cannot sync a directory: EINVAL, as POSIX allows), or -1
 * with the error set. */
static int S_fsync_dir(const char *path)
{
	char *dir = dtk_xstrdup(path), *slash = strrchr(dir, '/');
	int fd, rc = 0;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 ||
	    ((dtk_fault_point("fsync-dir", path) < 0 || fsync(fd) < 0) && errno != EINVAL))
		rc = dtk_error("wrote %s, but cannot sync its directory %s: %s (the change may "
		               "not last a crash)",
		               S_shown(path), S_shown(dir), strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* Creates a new temporary file beside path with the mode a new file gets
 * (0666 less the umask, as any tool creates files), named
 * <path>.tmp-<pid>-XXXXXX (a long name cut to fit): the pid tells one a
 * killed run left
 * (dtk_file_sweep). Returns its descriptor and its name in tmp, or -1 with
 * errno set. */
static int S_create_temp(struct dtk_buf *tmp, const char *path)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	unsigned long seed = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL);
	int attempt, fd = -1, i;

	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	/* the name cut so that its suffix fits in a file name (NAME_MAX):
	 * ".tmp-", a pid of up to 10 digits, '-' and 6 */
	size_t blen = strlen(base) < NAME_MAX - 22 ? strlen(base) : NAME_MAX - 22;

	for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
		tmp->len = 0;
		dtk_buf_printf(tmp, "%.*s%.*s.tmp-%ld-", (int)(base - path), path, (int)blen, base,
		               (long)getpid());
		for (i = 0; i < 6; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			dtk_buf_putc(tmp, digits[(seed >> 33) % 36]);
		}
		fd = open(tmp->ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
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

void dtk_file_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;

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

int dtk_file_stage(struct dtk_file_staged *s, const char *path, const char *data, size_t len,
                   int mode)
{
	struct dtk_buf tmp = DTK_BUF_INIT;
	struct stat st;
	int fd, keep_mode;

	s->path = dtk_xstrdup(path);
	s->tmp = NULL;
	keep_mode = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
	if (mode >= 0) {
		keep_mode = 1;
		st.st_mode = (mode_t)mode;
	}
	fd = S_create_temp(&tmp, path);
	if (fd < 0) {
		dtk_error("cannot create a temporary file beside %s: %s", S_shown(path),
		          strerror(errno));
		dtk_buf_release(&tmp);
		return -1;
	}
	/* a file replaced keeps its mode; a new one has the umask's (unless
	 * the caller gives one) */
	if (dtk_fault_point("write", path) < 0 || S_write_all(fd, data, len) < 0 ||
	    (keep_mode && fchmod(fd, st.st_mode & 07777) < 0) || fsync(fd) < 0) {
		dtk_error("cannot write %s: %s", S_shown(tmp.ptr), strerror(errno));
		close(fd);
		unlink(tmp.ptr);
		dtk_buf_release(&tmp);
		return -1;
	}
	if (close(fd) < 0) {
		dtk_error("cannot write %s: %s", S_shown(tmp.ptr), strerror(errno));
		unlink(tmp.ptr);
		dtk_buf_release(&tmp);
		return -1;
	}
	s->tmp = dtk_buf_detach(&tmp);
	return 0;
}

int dtk_file_stage_commit(struct dtk_file_staged *s)
{
	dtk_crash_point("before-rename");
	if (dtk_fault_point("rename", s->path) < 0 || rename(s->tmp, s->path) < 0) {
		dtk_error("cannot replace %s: %s", S_shown(s->path), strerror(errno));
		return -1;
	}
	if (!S_count_root || !strncmp(s->path, S_count_root, strlen(S_count_root)))
		S_replaced++;
	free(s->tmp);
	s->tmp = NULL;
	return S_fsync_dir(s->path) < 0 ? DTK_ENOSYNC : 0;
}

void dtk_file_stage_release(struct dtk_file_staged *s)
{
	if (s->tmp)
		unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	s->tmp = s->path = NULL;
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

#define CMP_CHUNK 65536

int dtk_file_cmp_open(struct dtk_file_cmp *c, const char *path, size_t max)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->path = dtk_xstrdup(path);
	rc = dtk_file_open_regular(&c->fd, path, max);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		c->differs = 1; /* missing: any text differs */
		return 0;
	}
	c->chunk = dtk_xmalloc(CMP_CHUNK);
	return 0;
}

/* Reads the file's next piece into c->chunk. Returns its length (0 at the
 * end of the file), or -1 with the error set. */
static ssize_t S_cmp_fill(struct dtk_file_cmp *c)
{
	ssize_t n;
	do
		n = read(c->fd, c->chunk, CMP_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		dtk_error("cannot read %s: %s", S_shown(c->path), strerror(errno));
		return -1;
	}
	c->chunk_len = (size_t)n;
	c->chunk_at = 0;
	return n;
}

/* The text and the file differ from here on: starts c->text with the text
 * so far, which is the file's first c->same bytes. Returns 0, or -1 with the
 * error set. */
static int S_cmp_diverge(struct dtk_file_cmp *c)
{
	size_t got = 0;

	c->differs = 1;
	while (got < c->same) {
		size_t want = c->same - got < CMP_CHUNK ? c->same - got : CMP_CHUNK;
		ssize_t n = pread(c->fd, c->chunk, want, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dtk_error("cannot read %s: %s", S_shown(c->path),
			          n < 0 ? strerror(errno) : "it shrank while being read");
			return -1;
		}
		dtk_buf_put(&c->text, c->chunk, (size_t)n);
		got += (size_t)n;
	}
	return 0;
}

int dtk_file_cmp_write(void *arg, const char *s, size_t len)
{
	struct dtk_file_cmp *c = arg;
	size_t i = 0;

	while (!c->differs && i < len) {
		size_t k;
		if (c->chunk_at == c->chunk_len) {
			ssize_t n = S_cmp_fill(c);
			if (n < 0)
				return -1;
			if (n == 0)
				break; /* the file is shorter */
		}
		k = len - i < c->chunk_len - c->chunk_at ? len - i : c->chunk_len - c->chunk_at;
		if (memcmp(s + i, c->chunk + c->chunk_at, k))
			break;
		i += k;
		c->chunk_at += k;
		c->same += k;
	}
	if (i == len)
		return 0;
	if (!c->differs && S_cmp_diverge(c) < 0)
		return -1;
	dtk_buf_put(&c->text, s + i, len - i);
	return 0;
}

int dtk_file_cmp_finish(struct dtk_file_cmp *c)
{
	if (!c->differs && c->chunk_at == c->chunk_len) {
		ssize_t n = S_cmp_fill(c);
		if (n <= 0)
			return (int)n; /* 0: the file ends where the text does */
	}
	if (!c->differs && S_cmp_diverge(c) < 0) /* the file is longer */
		return -1;
	return 1;
}

void dtk_file_cmp_release(struct dtk_file_cmp *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->path);
	free(c->chunk);
	c->path = c->chunk = NULL;
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
