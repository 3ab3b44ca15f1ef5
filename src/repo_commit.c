/* repo_commit.c: the crystallization's commit as one transaction: git's
 * index lock held from the first write to the last, the journal that lets
 * dtk crystallize --continue finish it (or --abort drop it) after a crash. */
#include "repo_int.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "gitcommit.h"
#include "gitenv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORDS "insights/_crystallizations.yaml"

static char *S_index_lock(const struct dtk_repo *r);
static int S_locked_error(const char *path);
static int S_stale_mark(const struct dtk_repo *r, const char *path);

int dtk_repo_check_ready(struct dtk_repo *r)
{
	char *lock = S_index_lock(r);
	int rc = dtk_repo_ready(r);

	if (rc == 0 && access(lock, F_OK) == 0 && !S_stale_mark(r, lock))
		rc = S_locked_error(lock);
	free(lock);
	return rc;
}

/* ---- committing ---- */

/* Returns 1 when path is a file a crystallization writes beside INDEX.md:
 * a file of the base, a record of uses or a fold of them, a page. */
static int S_run_file(const struct dtk_repo *r, const char *path)
{
	return dtk_repo_base_file(r, path) || dtk_repo_uses_file(r, path) ||
	       dtk_repo_page_file(r, path);
}

/* Removes the files of a run (S_run_file) from idx, but the folds of
 * records when keep_folds is set. */
static int S_remove_base(const struct dtk_repo *r, git_index *idx, int keep_folds)
{
	size_t i = git_index_entrycount(idx), n = strlen(r->prefix);
	while (i-- > 0) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		if (e && S_run_file(r, e->path) &&
		    !(keep_folds && dtk_repo_uses_file(r, e->path) &&
		      !strncmp(e->path + n, "insights/_uses/fold-", 20)) &&
		    git_index_remove(idx, e->path, 0) < 0)
			return dtk_gitlib_error("cannot update the index");
	}
	return 0;
}

/* Returns the mode 'git add' gives the regular file path (relative to the
 * work tree; st its lstat, NULL when it is missing), as git's
 * ce_mode_from_stat: with core.fileMode on (the default) its executable
 * bit; off, the mode the index idx has for it (100644 when none). */
static unsigned S_file_mode(const struct dtk_repo *r, git_index *idx, const char *path,
                            const struct stat *st)
{
	const git_index_entry *e = idx ? git_index_get_bypath(idx, path, 0) : NULL;
	char *v = dtk_gitenv_get(r->git, "core.filemode");
	int trust = 1;

	if (v && git_config_parse_bool(&trust, v) < 0)
		trust = 1;
	free(v);
	if (st && trust)
		return (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	if (e && (e->mode == GIT_FILEMODE_BLOB || e->mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return e->mode;
	return GIT_FILEMODE_BLOB;
}

/* Returns the mode 'git add' gives path (relative to the work tree) once
 * dtk has written it: see S_file_mode (dtk keeps a replaced file's mode). */
static unsigned S_written_mode(const struct dtk_repo *r, git_index *idx, const char *path)
{
	char *full = dtk_path_join(r->workdir, path);
	struct stat st;
	int has = lstat(full, &st) == 0 && S_ISREG(st.st_mode);

	free(full);
	return S_file_mode(r, idx, path, has ? &st : NULL);
}

/* Stores the work tree's file path (relative to the work tree) as a blob, as
 * git add does (libgit2 stores a symbolic link as its target's path): sets
 * *oid and *mode, the link's or the one S_file_mode gives a file (idx: the
 * repository's index). */
static int S_blob_from_workdir(const struct dtk_repo *r, git_index *idx, const char *path,
                               git_oid *oid, unsigned *mode)
{
	char *full = dtk_path_join(r->workdir, path);
	struct stat st;
	int rc = -1;

	if (lstat(full, &st) < 0) {
		dtk_error("cannot read %s: %s", path, strerror(errno));
	} else if (git_blob_create_from_workdir(oid, r->git, path) < 0) {
		dtk_gitlib_error("cannot store a file of insights/");
	} else {
		*mode = S_ISLNK(st.st_mode) ? GIT_FILEMODE_LINK : S_file_mode(r, idx, path, &st);
		rc = 0;
	}
	free(full);
	return rc;
}

/* Builds the tree of the commit: base (may be NULL) with the base's files
 * replaced by the request's. */
static int S_build_tree(const struct dtk_repo *r, git_tree *base, const struct dtk_commit_req *req,
                        git_oid *tree_oid)
{
	git_index *idx = NULL, *repo_idx = NULL;
	git_oid oid;
	char *path = NULL;
	size_t i;
	int rc = -1;

	if (git_index_new(&idx) < 0 || (base && git_index_read_tree(idx, base) < 0)) {
		dtk_gitlib_error("cannot build the commit's tree");
		goto done;
	}
	/* the modes the index has (with core.fileMode off, git keeps them) */
	if (git_repository_index(&repo_idx, r->git) < 0 || git_index_read(repo_idx, 0) < 0) {
		dtk_repo_index_error();
		goto done;
	}
	if (S_remove_base(r, idx, 1) < 0)
		goto done;
	for (i = 0; i < req->n_files; i++) {
		struct dtk_buf rel = DTK_BUF_INIT;
		unsigned mode = GIT_FILEMODE_BLOB;
		dtk_buf_printf(&rel, "%sinsights/%s", r->prefix, req->files[i]);
		rc = S_blob_from_workdir(r, repo_idx, rel.ptr, &oid, &mode);
		if (rc == 0)
			rc = dtk_repo_index_add(idx, rel.ptr, &oid, mode);
		dtk_buf_release(&rel);
		if (rc < 0)
			goto done;
	}
	rc = -1;
	/* the records, the other new files, INDEX.md */
	for (i = 0; i < req->n_more + 2; i++) {
		const struct dtk_memfile *f =
		        i == 0 ? &(struct dtk_memfile){RECORDS, req->records, req->records_len}
		        : i <= req->n_more
		                ? &req->more[i - 1]
		                : &(struct dtk_memfile){"INDEX.md", req->index, req->index_len};
		free(path);
		path = dtk_repo_path(r, f->name);
		if (dtk_repo_blob(r, path, f->data, f->len, &oid) < 0 ||
		    dtk_repo_index_add(idx, path, &oid, S_written_mode(r, repo_idx, path)) < 0)
			goto done;
	}
	if (git_index_write_tree_to(tree_oid, idx, r->git) < 0) {
		dtk_gitlib_error("cannot write the commit's tree");
		goto done;
	}
	rc = 0;
done:
	free(path);
	git_index_free(repo_idx);
	git_index_free(idx);
	return rc;
}

/* ---- git's index lock, held from before the first write to the last ---- */

/* The index lock as git takes it: <git dir>/index.lock created exclusively
 * (in a linked worktree the git dir is .git/worktrees/<name>). While dtk
 * holds it no git command writes the index; the new index is written into
 * it and renamed over the index at the end, as git does. */
struct ilock {
	int fd; /* -1: not held */
	char *path;
	unsigned long long dev, ino;
};

/* What an index lock taken by dtk holds until the new index is written into
 * it: tells a lock left by a killed dtk run from another process's. */
#define LOCK_MARK "dtk crystallize "

static char *S_index_lock(const struct dtk_repo *r)
{
	return dtk_path_join(git_repository_path(r->git), "index.lock");
}

static char *S_journal_path(const struct dtk_repo *r)
{
	return dtk_path_join(git_repository_path(r->git), "dtk-crystallize");
}

static int S_locked_error(const char *path)
{
	return dtk_error("the index is locked (%s exists): another git process is running, or "
	                 "one crashed; remove the file if none runs",
	                 path);
}

/* Returns 1 when path holds the mark of a dtk run whose process is gone and
 * no journal says a run was decided: a lock that nothing will ever use. */
static int S_stale_mark(const struct dtk_repo *r, const char *path)
{
	char buf[64] = "", *journal = S_journal_path(r);
	int fd = open(path, O_RDONLY | O_NOFOLLOW), stale = 0;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	long pid;

	if (fd >= 0)
		close(fd);
	if (n > (ssize_t)strlen(LOCK_MARK) && !strncmp(buf, LOCK_MARK, strlen(LOCK_MARK)) &&
	    access(journal, F_OK) < 0 && errno == ENOENT) {
		buf[n] = '\0';
		pid = strtol(buf + strlen(LOCK_MARK), NULL, 10);
		stale = pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
	}
	free(journal);
	return stale;
}

/* Removes from the git directory what a dtk run killed there left: the
 * files named with the pid of a process that no longer exists, which no
 * live process can hold: <lock>.dtk-<pid> (a lock's content before it is
 * linked in place), the pre-commit hooks' next-index-<pid>.lock and the
 * next-index-<pid>.lock.lock libgit2 writes it through, and the temporary
 * files of dtk_file_write_atomic (the journal's, the message's). */
static void S_sweep_gitdir(const struct dtk_repo *r)
{
	DIR *d = opendir(git_repository_path(r->git));
	struct dirent *de;
	size_t n;

	dtk_file_sweep(git_repository_path(r->git));
	while (d && (de = readdir(d))) {
		const char *s = de->d_name, *t = strstr(s, ".dtk-");
		if ((t && dtk_file_dead_pid(t + 5, &n) && !t[5 + n]) ||
		    (!strncmp(s, "next-index-", 11) && dtk_file_dead_pid(s + 11, &n) &&
		     (!strcmp(s + 11 + n, ".lock") || !strcmp(s + 11 + n, ".lock.lock"))))
			unlinkat(dirfd(d), s, 0);
	}
	if (d)
		closedir(d);
}

/* Creates path exclusively, already holding mark: written to
 * <path>.dtk-<pid> first, then linked in place (link fails when path
 * exists), so that a kill never leaves path empty. Returns a descriptor
 * open for writing on it, or -1 with errno set (EEXIST: it exists). */
static int S_create_marked(const char *path, const char *mark)
{
	struct dtk_buf tmp = DTK_BUF_INIT;
	struct stat a, b;
	int fd, e;

	dtk_buf_printf(&tmp, "%s.dtk-%ld", path, (long)getpid());
	unlink(tmp.ptr); /* this process's own */
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0 && (write(fd, mark, strlen(mark)) != (ssize_t)strlen(mark) ||
	                fstat(fd, &a) < 0 || link(tmp.ptr, path) < 0)) {
		e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	e = errno;
	unlink(tmp.ptr);
	dtk_buf_release(&tmp);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, &b) < 0 || a.st_ino != b.st_ino) {
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}

/* Takes the index lock; reuses it when it is the one of the journal j (the
 * same file, left by the interrupted run). Returns 0, or -1 with the error
 * set (naming the lock's real path). */
static int S_lock_take(const struct dtk_repo *r, struct ilock *l, const struct journal *j)
{
	struct stat st;
	char mark[64];
	int tries;

	l->path = S_index_lock(r);
	l->fd = -1;
	S_sweep_gitdir(r);
	snprintf(mark, sizeof(mark), "%s%ld\n", LOCK_MARK, (long)getpid());
	if (j && j->lock_ino && lstat(l->path, &st) == 0 &&
	    (unsigned long long)st.st_dev == j->lock_dev &&
	    (unsigned long long)st.st_ino == j->lock_ino)
		l->fd = open(l->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	for (tries = 0; l->fd < 0 && tries < 2; tries++) {
		l->fd = S_create_marked(l->path, mark);
		if (l->fd >= 0 || errno != EEXIST || tries || !S_stale_mark(r, l->path))
			break;
		unlink(l->path); /* a killed dtk run's, which decided nothing */
	}
	if (l->fd < 0)
		return errno == EEXIST
		               ? S_locked_error(l->path)
		               : dtk_error("cannot create %s: %s", l->path, strerror(errno));
	/* the mark (a lock reused from a journal gets this run's) */
	if (ftruncate(l->fd, 0) < 0 || pwrite(l->fd, mark, strlen(mark), 0) < 0 ||
	    lseek(l->fd, 0, SEEK_END) < 0 || fstat(l->fd, &st) < 0)
		return dtk_error("cannot write %s: %s", l->path, strerror(errno));
	l->dev = (unsigned long long)st.st_dev;
	l->ino = (unsigned long long)st.st_ino;
	return 0;
}

/* Gives the lock up without changing the index (removes it). */
static void S_lock_rollback(struct ilock *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		unlink(l->path);
	}
	l->fd = -1;
	free(l->path);
	l->path = NULL;
}

/* Writes data (a whole index file) into the lock, makes it durable and
 * renames it over the index: the lock is given up. Returns 0 or -1. */
static int S_lock_commit(const struct dtk_repo *r, struct ilock *l, const char *data, size_t len)
{
	char *index = dtk_path_join(git_repository_path(r->git), "index");
	size_t off = 0;
	int rc = -1;

	if (ftruncate(l->fd, 0) < 0 || lseek(l->fd, 0, SEEK_SET) < 0)
		goto fail;
	while (off < len) {
		ssize_t n = write(l->fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	if (fsync(l->fd) < 0)
		goto fail;
	dtk_crash_point("before-index-rename");
	if (rename(l->path, index) < 0)
		goto fail;
	close(l->fd);
	l->fd = -1;
	rc = 0;
	goto done;
fail:
	dtk_error("cannot write the index (%s): %s", l->path, strerror(errno));
done:
	free(index);
	return rc;
}

/* ---- the journal: a decided commit, finished even after a crash ---- */

static int S_journal_write(const struct dtk_repo *r, const struct journal *j)
{
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	struct dtk_buf text = DTK_BUF_INIT;
	char *path = S_journal_path(r);
	int rc;

	git_oid_tostr(a, sizeof(a), &j->new_id);
	git_oid_tostr(b, sizeof(b), &j->old_id);
	dtk_buf_printf(&text, "new %s\nold %s\nref %s\nlock %llu %llu\n", a, j->has_old ? b : "-",
	               j->ref, j->lock_dev, j->lock_ino);
	rc = dtk_file_write_atomic(path, text.ptr, text.len);
	dtk_buf_release(&text);
	free(path);
	return rc;
}

/* Reads the journal; returns 1 when there is one, 0 when not, -1 on error. */
static int S_journal_read(const struct dtk_repo *r, struct journal *j)
{
	char *path = S_journal_path(r), *text = NULL, a[64] = "", b[64] = "";
	size_t len;
	int rc = dtk_file_read_regular(&text, &len, path, 4096), n;

	memset(j, 0, sizeof(*j));
	if (rc != 0) {
		rc = rc == 1 ? 0 : -1;
		goto done;
	}
	n = sscanf(text, "new %63s\nold %63s\nref %255s\nlock %llu %llu", a, b, j->ref,
	           &j->lock_dev, &j->lock_ino);
	if (n >= 3 && git_oid_fromstr(&j->new_id, a) == 0 &&
	    (!strcmp(b, "-") || git_oid_fromstr(&j->old_id, b) == 0) &&
	    !strncmp(j->ref, "refs/heads/", 11)) {
		j->has_old = strcmp(b, "-") != 0;
		rc = 1;
	} else {
		rc = dtk_error("%s is damaged; remove it and check HEAD", path);
	}
done:
	free(text);
	free(path);
	return rc;
}

/* Writes path (relative to the work tree) from the blob of tree, when the
 * file differs. */
static int S_write_from_tree(const struct dtk_repo *r, git_tree *tree, const char *path)
{
	git_blob *blob = NULL;
	git_blob_filter_options fo;
	git_oid id;
	git_buf out = GIT_BUF_INIT;
	char *full = dtk_path_join(r->workdir, path), *cur = NULL;
	size_t len = 0;
	int rc = -1;

	/* the file as git checks it out: through its filters (core.autocrlf,
	 * core.eol, .gitattributes text and eol) */
	memset(&fo, 0, sizeof(fo));
	fo.version = GIT_BLOB_FILTER_OPTIONS_VERSION;
	fo.flags = GIT_BLOB_FILTER_CHECK_FOR_BINARY;
	if (!dtk_repo_entry(tree, path, &id, NULL) || git_blob_lookup(&blob, r->git, &id) < 0 ||
	    git_blob_filter(&out, blob, path, &fo) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	/* a regular file or absent: a link is neither followed nor replaced, a
	 * FIFO not waited on */
	rc = dtk_file_read_regular(&cur, &len, full, DTK_MAX_INDEX_BYTES);
	if (rc == 0 && len == out.size && !memcmp(cur, out.ptr, out.size))
		rc = 0;
	else if (rc >= 0)
		rc = dtk_file_write_atomic(full, out.ptr ? out.ptr : "", out.size);
done:
	git_buf_dispose(&out);
	free(cur);
	free(full);
	git_blob_free(blob);
	return rc;
}

/* Puts path (blob want, of mode) in idx: as git add has it when the work
 * tree's file is that blob (its stat data kept), else the blob. */
static int S_index_put(git_index *idx, const char *path, const git_oid *want, unsigned mode)
{
	const git_index_entry *ie;
	if (git_index_add_bypath(idx, path) < 0 || !(ie = git_index_get_bypath(idx, path, 0)) ||
	    !git_oid_equal(&ie->id, want))
		return dtk_repo_index_add(idx, path, want, mode);
	return 0;
}

/* Brings the work tree's files of insights/_uses/ and index/ in line with
 * the commit of j (tree): each that differs from its parent's written as
 * git checks it out, or removed (and index/ when that leaves it empty). */
static int S_write_more(const struct dtk_repo *r, const struct journal *j, git_tree *tree)
{
	char *uses = dtk_repo_path(r, "insights/_uses"), *pages = dtk_repo_path(r, "index");
	char *paths[] = {uses, pages};
	git_tree *base = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	size_t i;
	int rc = -1;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths;
	opts.pathspec.count = 2;
	if ((j->has_old && dtk_repo_tree(r, &j->old_id, &base) < 0) ||
	    git_diff_tree_to_tree(&diff, r->git, base, tree, &opts) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		int gone = d->status == GIT_DELTA_DELETED, w;
		char *full = dtk_path_join(r->workdir, gone ? d->old_file.path : d->new_file.path);
		if (gone) {
			w = unlink(full) < 0 && errno != ENOENT
			            ? dtk_error("cannot remove %s: %s", full, strerror(errno))
			            : 0;
		} else {
			*strrchr(full, '/') = '\0'; /* its folder, made when missing */
			w = dtk_file_mkdirs(full, 0777) < 0 ? -1
			                                    : S_write_from_tree(r, tree, d->new_file.path);
		}
		free(full);
		if (w < 0)
			goto done;
	}
	free(paths[0]);
	paths[0] = dtk_path_join(r->workdir, pages);
	(void)rmdir(paths[0]); /* left empty: it goes (not when it holds other files) */
	rc = 0;
done:
	git_diff_free(diff);
	git_tree_free(base);
	free(paths[0]);
	free(pages);
	return rc;
}

/* Makes the index hold the base's files as in tree (the work tree's stat
 * data where the file matches, else the committed blob) and writes it into
 * the held lock l, not yet renamed: returns the new index file's bytes in
 * *out (malloc'd) and *len. */
static int S_new_index(const struct dtk_repo *r, git_tree *tree, char **out, size_t *len)
{
	git_index *idx = NULL, *run = NULL, *copy = NULL;
	char *tmp = dtk_path_join(git_repository_path(r->git), "dtk-index.new");
	char *tmp_lock = dtk_path_join(git_repository_path(r->git), "dtk-index.new.lock");
	char *index_md = dtk_repo_path(r, "INDEX.md");
	size_t i;
	int rc = -1;

	*out = NULL;
	unlink(tmp);
	unlink(tmp_lock);
	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0 ||
	    git_index_new(&run) < 0 || git_index_read_tree(run, tree) < 0) {
		dtk_gitlib_error("cannot update the index");
		goto done;
	}
	if (S_remove_base(r, idx, 0) < 0)
		goto done;
	/* the run's files and INDEX.md, as the commit has them */
	for (i = 0; i < git_index_entrycount(run); i++) {
		const git_index_entry *e = git_index_get_byindex(run, i);
		if ((S_run_file(r, e->path) || !strcmp(e->path, index_md)) &&
		    S_index_put(idx, e->path, &e->id, e->mode) < 0)
			goto done;
	}
	/* libgit2 writes an index only through its own lock of the same file;
	 * dtk holds that one, so the index is written to a scratch file of the
	 * git dir and its bytes go into the held lock */
	rc = git_index_open(&copy, tmp) < 0 ||
	                     git_index_set_version(copy, git_index_version(idx)) < 0
	             ? -1
	             : 0;
	for (i = 0; rc == 0 && i < git_index_entrycount(idx); i++)
		rc = git_index_add(copy, git_index_get_byindex(idx, i));
	if (rc < 0 || git_index_write(copy) < 0) {
		rc = dtk_gitlib_error("cannot write the index");
		goto done;
	}
	rc = dtk_file_read(out, len, tmp, (size_t)1 << 31);
done:
	unlink(tmp);
	git_index_free(copy);
	git_index_free(run);
	git_index_free(idx);
	free(tmp);
	free(tmp_lock);
	free(index_md);
	return rc;
}

/* Removes the branch's lock (refs/heads/<b>.lock) that the run of the
 * journal j left when it was killed moving the branch: with the base's lock
 * and the journal's index lock held, a lock made since the journal
 * (libgit2's, empty until it is renamed, or holding the journal's commit).
 * Any other is left, for git to report. */
static void S_ref_lock_stale(const struct dtk_repo *r, const struct journal *j)
{
	char *lock = dtk_path_join(git_repository_path(r->git), j->ref),
	     *journal = S_journal_path(r);
	char *text = NULL, hex[GIT_OID_HEXSZ + 2];
	struct stat ls, js;
	size_t len = 0;

	lock = dtk_xrealloc(lock, strlen(lock) + 6);
	strcat(lock, ".lock");
	git_oid_tostr(hex, sizeof(hex), &j->new_id);
	strcat(hex, "\n");
	if (lstat(lock, &ls) == 0 && S_ISREG(ls.st_mode) && stat(journal, &js) == 0 &&
	    ls.st_mtime >= js.st_mtime && dtk_file_read_regular(&text, &len, lock, 64) == 0 &&
	    (!len || (len == strlen(hex) && !memcmp(text, hex, len))))
		unlink(lock);
	dtk_error_clear();
	free(text);
	free(lock);
	free(journal);
}

/* Carries out a decided commit with the index lock l held: work-tree
 * files, the new index into the lock, the branch, the index, the journal.
 * Every step can be done again, so a run cut short is finished by
 * dtk crystallize --continue (resumed: the branch's lock a killed run left
 * is removed, S_ref_lock_stale). */
static int S_finish(const struct dtk_repo *r, const struct journal *j, struct ilock *l, int resumed)
{
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	char *records = dtk_repo_path(r, RECORDS), *index_md = dtk_repo_path(r, "INDEX.md");
	char *journal = S_journal_path(r), *index = NULL;
	size_t index_len = 0;
	git_oid cur;
	int rc = -1;

	if (dtk_repo_tree(r, &j->new_id, &tree) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	if (S_write_from_tree(r, tree, records) < 0)
		goto done;
	dtk_crash_point("after-records");
	if (S_write_from_tree(r, tree, index_md) < 0 || S_write_more(r, j, tree) < 0)
		goto done;
	dtk_crash_point("after-index-md");
	if (S_new_index(r, tree, &index, &index_len) < 0)
		goto done;
	if (git_reference_name_to_id(&cur, r->git, j->ref) < 0 ||
	    !git_oid_equal(&cur, &j->new_id)) {
		if (resumed)
			S_ref_lock_stale(r, j);
		if (git_reference_create_matching(&ref, r->git, j->ref, &j->new_id, 1,
		                                  j->has_old ? &j->old_id : NULL,
		                                  "commit: dtk crystallize") < 0) {
			dtk_gitlib_error("cannot move the branch");
			if (strstr(dtk_error_last(), ".lock'")) {
				char *why = dtk_xstrdup(dtk_error_last());
				dtk_error("%s (a git command holds the lock; if none is running, "
				          "one that stopped left it: remove that file)",
				          why);
				free(why);
			}
			goto done;
		}
	}
	dtk_crash_point("after-branch");
	/* the branch first, then the index, as git commit does: no other git
	 * command sees the new index beside the old commit */
	if (S_lock_commit(r, l, index, index_len) < 0)
		goto done;
	dtk_crash_point("after-index");
	if (unlink(journal) < 0 && errno != ENOENT) {
		dtk_error("cannot remove %s: %s", journal, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	git_reference_free(ref);
	git_tree_free(tree);
	free(records);
	free(index_md);
	free(journal);
	free(index);
	return rc;
}

/* Returns the branch HEAD names ("refs/heads/..."), or "" when detached;
 * into buf. */
static const char *S_head_branch(const struct dtk_repo *r, char *buf, size_t size)
{
	git_reference *head = NULL;
	buf[0] = '\0';
	if (git_reference_lookup(&head, r->git, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		snprintf(buf, size, "%s", git_reference_symbolic_target(head));
	git_reference_free(head);
	return buf;
}

int dtk_repo_interrupted(struct dtk_repo *r, char *branch, size_t size)
{
	struct journal j;
	int rc = S_journal_read(r, &j);
	if (rc == 1)
		snprintf(branch, size, "%s", j.ref + 11);
	return rc;
}

int dtk_repo_continue(struct dtk_repo *r, char commit_hex[41])
{
	struct ilock l = {-1, NULL, 0, 0};
	struct journal j;
	char head[256];
	git_oid cur;
	int rc = S_journal_read(r, &j), has;

	commit_hex[0] = '\0';
	if (rc <= 0)
		return rc;
	rc = -1;
	if (strcmp(S_head_branch(r, head, sizeof(head)), j.ref)) {
		dtk_error(
		        "the interrupted crystallization is on branch %s, and HEAD is %s%s: check "
		        "out %s and run dtk crystallize --continue again, or drop the run with "
		        "dtk crystallize --abort",
		        j.ref + 11, head[0] ? "on " : "detached", head[0] ? head + 11 : "",
		        j.ref + 11);
		goto done;
	}
	has = git_reference_name_to_id(&cur, r->git, j.ref) == 0;
	if (!(has && git_oid_equal(&cur, &j.new_id)) &&
	    !(j.has_old ? has && git_oid_equal(&cur, &j.old_id) : !has)) {
		dtk_error("branch %s has moved since the crystallization was interrupted; it "
		          "cannot be finished: drop it with dtk crystallize --abort",
		          j.ref + 11);
		goto done;
	}
	if (S_lock_take(r, &l, &j) < 0 || S_finish(r, &j, &l, 1) < 0)
		goto done;
	git_oid_tostr(commit_hex, 41, &j.new_id);
	rc = 1;
done:
	S_lock_rollback(&l);
	return rc;
}

/* Puts path (relative to the work tree) back as it is in the commit old
 * (removes it when old lacks it), if the work tree holds new_tree's
 * version: the file the interrupted run wrote. */
static int S_restore(const struct dtk_repo *r, git_tree *new_tree, git_tree *old_tree,
                     const char *path)
{
	char *full = dtk_path_join(r->workdir, path), *cur = NULL, *run = NULL, *old = NULL;
	size_t len = 0, run_len = 0, old_len = 0;
	git_oid id;
	int rc = 0;

	if (!dtk_repo_entry(new_tree, path, &id, NULL) ||
	    dtk_repo_read_blob(r, &id, "cannot read the run's file", &run, &run_len) < 0 ||
	    dtk_file_read_regular(&cur, &len, full, DTK_MAX_INDEX_BYTES) != 0 || len != run_len ||
	    memcmp(cur, run, len))
		goto done; /* not the run's: leave it */
	if (old_tree && dtk_repo_entry(old_tree, path, &id, NULL) &&
	    dtk_repo_read_blob(r, &id, "cannot read the branch's file", &old, &old_len) == 0)
		rc = dtk_file_write_atomic(full, old, old_len);
	else if (unlink(full) < 0)
		rc = dtk_error("cannot remove %s: %s", path, strerror(errno));
done:
	free(run);
	free(old);
	free(cur);
	free(full);
	return rc;
}

int dtk_repo_abort(struct dtk_repo *r)
{
	struct journal j;
	struct stat st;
	git_tree *nt = NULL, *ot = NULL;
	char head[256], *lock = S_index_lock(r), *journal = S_journal_path(r);
	char *records = dtk_repo_path(r, RECORDS), *index_md = dtk_repo_path(r, "INDEX.md");
	git_oid cur;
	int rc = S_journal_read(r, &j), has;

	if (rc <= 0)
		goto done;
	rc = -1;
	has = git_reference_name_to_id(&cur, r->git, j.ref) == 0;
	if (has && git_oid_equal(&cur, &j.new_id)) {
		dtk_error("the crystallization was committed already (branch %s is at it); finish "
		          "it with dtk crystallize --continue",
		          j.ref + 11);
		goto done;
	}
	/* the files it wrote go back, when this work tree is its branch's and
	 * the branch did not move */
	if (!strcmp(S_head_branch(r, head, sizeof(head)), j.ref) &&
	    (j.has_old ? has && git_oid_equal(&cur, &j.old_id) : !has)) {
		if (dtk_repo_tree(r, &j.new_id, &nt) < 0 ||
		    (j.has_old && dtk_repo_tree(r, &j.old_id, &ot) < 0)) {
			dtk_gitlib_error("cannot read the interrupted crystallization");
			goto done;
		}
		if (S_restore(r, nt, ot, records) < 0 || S_restore(r, nt, ot, index_md) < 0)
			goto done;
	}
	S_ref_lock_stale(r, &j); /* the branch's lock the run left, if any */
	if (j.lock_ino && lstat(lock, &st) == 0 && (unsigned long long)st.st_dev == j.lock_dev &&
	    (unsigned long long)st.st_ino == j.lock_ino && unlink(lock) < 0) {
		dtk_error("cannot remove %s: %s", lock, strerror(errno));
		goto done;
	}
	if (unlink(journal) < 0 && errno != ENOENT) {
		dtk_error("cannot remove %s: %s", journal, strerror(errno));
		goto done;
	}
	rc = 1;
done:
	git_tree_free(nt);
	git_tree_free(ot);
	free(lock);
	free(journal);
	free(records);
	free(index_md);
	return rc;
}

/* Appends to out a line per path of the base (and INDEX.md) that differs
 * between the trees base (NULL: none) and tree, in git's order of paths:
 * "A  path", "M  path", "T  path" (its mode changed), "D  path". libgit2's
 * diff of the two trees, limited to insights/ and INDEX.md; a failure
 * leaves out as it was (the list only informs). */
static void S_taken(const struct dtk_repo *r, git_tree *base, git_tree *tree, struct dtk_buf *out)
{
	char *dir = dtk_repo_path(r, "insights"), *index_md = dtk_repo_path(r, "INDEX.md");
	char *pages = dtk_repo_path(r, "index"), *paths[] = {dir, index_md, pages};
	git_diff_options opts;
	git_diff *diff = NULL;
	size_t i, n;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths;
	opts.pathspec.count = 3;
	if (git_diff_tree_to_tree(&diff, r->git, base, tree, &opts) < 0)
		goto done;
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path =
		        d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
		int is_index = !strcmp(path, index_md);
		char c = d->status == GIT_DELTA_ADDED     ? 'A'
		         : d->status == GIT_DELTA_DELETED ? 'D'
		         : d->old_file.mode != d->new_file.mode || d->status == GIT_DELTA_TYPECHANGE
		                 ? 'T'
		                 : 'M';
		if (is_index ? c != 'D' : S_run_file(r, path))
			dtk_buf_printf(out, "%c  %s\n", c, path);
	}
done:
	git_diff_free(diff);
	free(dir);
	free(pages);
	free(index_md);
}

int dtk_repo_commit(struct dtk_repo *r, const struct dtk_commit_req *req, char commit_hex[41])
{
	struct ilock l = {-1, NULL, 0, 0};
	struct journal j;
	git_commit *parent = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid tree_oid;
	char *message = NULL;
	int rc = -1, decided = 0;

	memset(&j, 0, sizeof(j));
	commit_hex[0] = '\0';
	if (S_journal_read(r, &j) != 0) {
		if (j.ref[0])
			dtk_error("a crystallization on branch %s was interrupted: finish it with "
			          "dtk crystallize --continue, or drop it with dtk crystallize "
			          "--abort",
			          j.ref + 11);
		goto done;
	}
	/* git's index lock first: from here to the new index no git command
	 * can write the index (nor commit), and no check goes stale */
	if (S_lock_take(r, &l, NULL) < 0)
		goto done;
	dtk_crash_point("after-lock");
	if (dtk_repo_ready(r) < 0 || dtk_repo_branch(r, &j, &parent) < 0)
		goto done;
	if (parent && git_commit_tree(&base, parent) < 0) {
		dtk_gitlib_error("cannot read HEAD's tree");
		goto done;
	}
	if (S_build_tree(r, base, req, &tree_oid) < 0 ||
	    dtk_gitenv_idents(&author, &committer, r->git, req->author) < 0 ||
	    dtk_repo_pre_hooks(r, req, &(struct hooks){"pre-commit", "COMMIT_EDITMSG", "message"},
	                       author, &tree_oid, &tree, &message) < 0)
		goto done;
	if (dtk_repo_create_commit(r, req, &j.new_id, author, committer, message, tree,
	                           (const git_commit *[1]){parent}, parent ? 1 : 0) < 0)
		goto done;
	dtk_crash_point("before-journal");
	/* from here on the commit is decided: a run cut short is finished by
	 * dtk crystallize --continue (or dropped by --abort) */
	j.lock_dev = l.dev;
	j.lock_ino = l.ino;
	rc = S_journal_write(r, &j);
	/* written but not synced: there, so decided, and stopped short */
	decided = rc == 0 || rc == DTK_ENOSYNC;
	if (rc < 0)
		goto done;
	rc = -1;
	dtk_crash_point("after-journal");
	if (S_finish(r, &j, &l, 0) < 0)
		goto done;
	git_oid_tostr(commit_hex, 41, &j.new_id);
	/* the tree committed (a pre-commit hook may have changed it) */
	if (req->taken)
		S_taken(r, base, tree, req->taken);
	/* as git: post-commit's failure changes nothing */
	dtk_gitcommit_hook(r->git, "post-commit", NULL, author, NULL, NULL);
	rc = 0;
done:
	if (decided && rc < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; the crystallization was interrupted: finish it with dtk crystallize "
		          "--continue, or drop it with dtk crystallize --abort",
		          why);
		free(why);
		rc = DTK_REPO_INTERRUPTED;
	}
	if (!decided)
		S_lock_rollback(&l);
	else if (l.fd >= 0) /* the journal names it: --continue reuses it */
		close(l.fd);
	free(l.path); /* NULL once rolled back */
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	free(message);
	return rc;
}
