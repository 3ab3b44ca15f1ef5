/* lock.c: the base's lock, handed down to the programs a command runs (see
 * lock.h). */
#define _DEFAULT_SOURCE /* flock */
#include "dtk/lock.h"

#include "dtk/cache.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The lock held by this process (the last taken), -1 when none. */
static int S_held = -1;

/* Takes the lock through the descriptor a parent handed down, when DTK_LOCK
 * names root (st: its stat data). Returns the descriptor (a duplicate, so
 * that releasing it leaves the handed one open for the next command), -2
 * when DTK_LOCK does not name this base, or -1 with the error set. */
static int S_inherited(const char *root, const struct stat *st)
{
	const char *env = getenv("DTK_LOCK");
	unsigned long long dev, ino;
	struct stat fst;
	int fd, n = 0;

	if (!env || sscanf(env, "%d:%llu:%llu%n", &fd, &dev, &ino, &n) != 3 || env[n] ||
	    dev != (unsigned long long)st->st_dev || ino != (unsigned long long)st->st_ino)
		return -2;
	if (fd < 0 || fstat(fd, &fst) < 0 || fst.st_dev != st->st_dev || fst.st_ino != st->st_ino ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0 || (fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return dtk_error("this dtk runs under a dtk command that holds the lock on %s "
		                 "(DTK_LOCK is set: a hook of it), but does not have that lock "
		                 "(a program between closed it); it would wait on itself",
		                 root);
	return fd;
}

int dtk_lock_take(const char *root)
{
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), got;

	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	got = S_inherited(root, &st);
	if (got != -2) {
		close(fd);
		return got < 0 ? -1 : (S_held = got);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return S_held = fd;
	if (errno == EWOULDBLOCK) {
		fprintf(stderr, "dtk: another dtk run holds the lock on %s; waiting\n", root);
		if (flock(fd, LOCK_EX) == 0)
			return S_held = fd;
	}
fail:
	dtk_error("cannot lock %s: %s", root, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

void dtk_lock_release(int fd)
{
	if (fd < 0)
		return;
	if (fd == S_held)
		S_held = -1;
	close(fd);
}

void dtk_lock_handed(int *fd, char *env, size_t size)
{
	struct stat st;

	*fd = -1;
	if (S_held < 0 || fstat(S_held, &st) < 0)
		return;
	*fd = S_held;
	snprintf(env, size, "DTK_LOCK=%d:%llu:%llu", S_held, (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
}

char *dtk_lock_journal(const char *root)
{
	char *files = dtk_file_journal(root);
	int lock;

	if (files) { /* a live writer's goes when it is done: its lock awaited */
		lock = dtk_lock_take(root);
		free(files);
		files = dtk_file_journal(root);
		dtk_lock_release(lock);
	}
	return files;
}

int dtk_lock_pending(const char *root)
{
	char *git = dtk_cache_git_dir(root);
	char *journal = git ? dtk_path_join(git, "dtk-crystallize") : NULL;
	int rc = journal && access(journal, F_OK) == 0;

	if (rc)
		dtk_error("a crystallization was interrupted (%s exists): finish it with 'dtk "
		          "crystallize --continue', or drop it with 'dtk crystallize --abort'",
		          journal);
	free(journal);
	free(git);
	return rc;
}

/* Sweeps the directories inside the base (root, open as rootfd) that node
 * files of insights/ (insr: its real path below root) lead to as links,
 * each once: a write through one stages its temporary file there. */
static void S_sweep_linked(int rootfd, const char *root, const char *insr)
{
	char *ins = dtk_path_join(root, insr), *path, *rel, *slash, **seen = NULL;
	size_t n, n_seen = 0, cap = 0, i;
	DIR *d = opendir(ins);
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d))) {
		n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 5, ".yaml") ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode))
			continue;
		path = dtk_path_join(ins, de->d_name);
		rel = dtk_path_within(root, path);
		slash = rel ? strrchr(rel, '/') : NULL; /* none: the root, swept */
		if (slash)
			*slash = '\0';
		for (i = 0; slash && i < n_seen && strcmp(seen[i], rel); i++)
			;
		if (slash && i == n_seen && strcmp(rel, insr)) {
			dtk_file_sweep_at(rootfd, rel);
			dtk_grow((void **)&seen, &cap, n_seen + 1, sizeof(*seen));
			seen[n_seen++] = rel;
			rel = NULL;
		}
		free(rel);
		free(path);
	}
	if (d)
		closedir(d);
	for (i = 0; i < n_seen; i++)
		free(seen[i]);
	free(seen);
	free(ins);
}

int dtk_lock_take_base(const char *root, int resumes)
{
	int fd = dtk_lock_take(root), rolled;
	char *what = NULL, *ins, *insr;

	if (fd < 0)
		return -1;
	/* a write killed between its renames is undone first (its kept files
	 * are temporary files of a dead pid, which the sweeps remove) */
	rolled = dtk_file_rollback(fd, root, &what);
	if (rolled < 0) {
		dtk_lock_release(fd);
		return -1;
	}
	if (rolled)
		fprintf(stderr,
		        "dtk: a write was interrupted; put back as they were before it: %s\n",
		        what);
	free(what);
	ins = dtk_path_join(root, "insights");
	insr = dtk_path_within(root, ins);
	dtk_file_sweep_at(fd, NULL);
	if (insr) {
		char *uses = dtk_path_join(insr, "_uses"); /* kb.h's DTK_USES_DIR */
		dtk_file_sweep_at(fd, insr);
		dtk_file_sweep_at(fd, uses);
		S_sweep_linked(fd, root, insr);
		free(uses);
	}
	free(insr);
	free(ins);
	if (!resumes && dtk_lock_pending(root)) {
		dtk_lock_release(fd);
		fd = -1;
	}
	return fd;
}
