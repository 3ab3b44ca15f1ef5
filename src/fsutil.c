/* fsutil.c: whole-file reads, streamed comparison, atomic replacement, paths. */
#include "dtk/fs.h"

#include "dtk/dtk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int dtk_file_read(char **out, size_t *len, const char *path, size_t max)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	ssize_t n;

	*out = NULL;
	*len = 0;
	if (fd < 0) {
		int e = errno;
		dtk_error("cannot open %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
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
			dtk_error("cannot read %s: %s", path, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
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
	close(fd);
	return rc;
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
 * lasts). Returns 0 (also where the file system cannot sync a directory:
 * EINVAL, as POSIX allows), or -1 with the error set. */
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
	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL))
		rc = dtk_error("cannot sync the directory %s: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* Creates a new temporary file beside path with the mode a new file gets
 * (0666 less the umask, as any tool creates files). Returns its descriptor
 * and its name in tmp, or -1 with errno set. */
static int S_create_temp(struct dtk_buf *tmp, const char *path)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	unsigned long seed = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL);
	int attempt, fd = -1, i;

	for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
		tmp->len = 0;
		dtk_buf_printf(tmp, "%s.tmp-", path);
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

int dtk_file_write_atomic(const char *path, const char *data, size_t len)
{
	struct dtk_buf tmp = DTK_BUF_INIT;
	struct stat st;
	int fd, rc = -1, keep_mode;

	keep_mode = stat(path, &st) == 0;
	fd = S_create_temp(&tmp, path);
	if (fd < 0) {
		dtk_error("cannot create a temporary file beside %s: %s", path, strerror(errno));
		goto done;
	}
	/* a file replaced keeps its mode; a new one has the umask's */
	if (S_write_all(fd, data, len) < 0 || (keep_mode && fchmod(fd, st.st_mode & 07777) < 0) ||
	    fsync(fd) < 0) {
		dtk_error("cannot write %s: %s", tmp.ptr, strerror(errno));
		close(fd);
		unlink(tmp.ptr);
		goto done;
	}
	dtk_crash_point("before-rename");
	if (close(fd) < 0 || rename(tmp.ptr, path) < 0) {
		dtk_error("cannot replace %s: %s", path, strerror(errno));
		unlink(tmp.ptr);
		goto done;
	}
	if (S_fsync_dir(path) < 0)
		goto done;
	rc = 0;
done:
	dtk_buf_release(&tmp);
	return rc;
}

#define CMP_CHUNK 65536

int dtk_file_cmp_open(struct dtk_file_cmp *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->path = dtk_xstrdup(path);
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0 && errno != ENOENT) {
		dtk_error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (c->fd < 0)
		c->differs = 1;
	else
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
		dtk_error("cannot read %s: %s", c->path, strerror(errno));
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
			dtk_error("cannot read %s: %s", c->path,
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
