/*
 * fs.h: files: reading whole files with a size limit, replacing a file
 * atomically, joining paths, and the lock that serializes dtk runs.
 */
#ifndef DTK_FS_H
#define DTK_FS_H

#include "dtk/dtk.h"

#include <stddef.h>

/*
 * Reads the whole file at path, refusing files over max bytes. Returns 0 and
 * sets *out (malloc'd, NUL-terminated; the caller frees) and *len; -1 with the
 * error set (errno kept); DTK_ETOOBIG, the error set too, when the file is
 * too large.
 */
int dtk_file_read(char **out, size_t *len, const char *path, size_t max);
/* The same from an open descriptor (read from where it is; not closed). */
int dtk_file_read_fd(char **out, size_t *len, int fd, const char *path, size_t max);

/*
 * Opens path for reading when it is a regular file whose real location, with
 * every symbolic link on the way resolved, is inside root (a real path, as
 * realpath gives). The file is opened from root down one component at a time
 * with O_NOFOLLOW and its identity compared with what was checked, so a link
 * swapped in meanwhile is refused, never followed. Returns 0 and sets *fd (the
 * caller closes it); 1 when path does not exist; -1 with the error set (a
 * message about the file, without its path).
 */
int dtk_file_open_within(int *fd, const char *root, const char *path);

/*
 * The cheap case of dtk_file_open_within, in one directory: opens name (one
 * component) of the directory open as dfd when it is a regular file, not a
 * symbolic link (checked before it is opened: opening a device can do
 * things). Returns 0 and sets *fd (the caller closes it); 1 when name does
 * not exist; 2 when dtk_file_open_within must decide (and say why).
 */
int dtk_file_open_at(int *fd, int dfd, const char *name);

/*
 * Opens path for reading when it is a regular file of at most max bytes: a
 * symbolic link is not followed, a FIFO not waited on (nor a device read);
 * each is an error saying what path is ("it is a symbolic link (it must be a
 * regular file)"). For the files dtk itself writes (INDEX.md, the records),
 * which must be regular files or absent. Returns 0 and sets *fd (the caller
 * closes it); 1 when path does not exist (*fd is -1); -1 with the error set.
 */
int dtk_file_open_regular(int *fd, const char *path, size_t max);
/* Reads path whole the same way: returns 0 and sets *out (malloc'd; the
 * caller frees) and *len; 1 when it does not exist (*out NULL); -1 with the
 * error set (also when it is larger than max). */
int dtk_file_read_regular(char **out, size_t *len, const char *path, size_t max);
/* Returns 0 when path is a regular file or does not exist (so that
 * dtk_file_write_atomic may replace or create it), -1 with the error set. */
int dtk_file_check_regular(const char *path);

/* Makes directory dir and those above it that are missing, each with mode
 * (less the umask). Returns 0, or -1 with the error set. */
int dtk_file_mkdirs(const char *dir, unsigned mode);

/* The largest INDEX.md dtk reads (check, reindex). */
#define DTK_MAX_INDEX_BYTES (1u << 30)

/*
 * Replaces path with data as one step: writes a temporary file beside it,
 * fsyncs it, renames it over path and fsyncs the directory. A reader sees
 * the old file or the new one, whole, never a mix. Returns 0; -1 with the
 * error set when path was not replaced (the temporary file removed);
 * DTK_ENOSYNC with the error set when path was replaced but its directory
 * could not be synced (the change may not last a crash).
 */
int dtk_file_write_atomic(const char *path, const char *data, size_t len);
/* The same, the file given mode (permission bits) before it replaces path;
 * mode -1: as dtk_file_write_atomic. */
int dtk_file_write_atomic_mode(const char *path, const char *data, size_t len, int mode);
/* Returns how many files the two have replaced (or created) in this
 * process below the directory set by dtk_file_count_below (any, when none
 * is set: the base's root, not a scratch copy): none means nothing was
 * written. */
unsigned long dtk_file_replaced(void);
void dtk_file_count_below(const char *root);

/* Returns 1 when s starts with the decimal pid of a process that no longer
 * exists (not this one), and sets *len to its digits' length; else 0. */
int dtk_file_dead_pid(const char *s, size_t *len);
/* Removes from dir the temporary files of dtk_file_write_atomic that a run
 * killed before its rename left: <name>.tmp-<pid>-XXXXXX of a pid that no
 * longer exists. For a directory whose writers hold a lock taken now. */
void dtk_file_sweep(const char *dir);
/* The same in directory rel below the directory open as rootfd (NULL:
 * that one), opened from it with no symbolic link followed. */
void dtk_file_sweep_at(int rootfd, const char *rel);
/* Returns the real path (every link resolved) of path relative to root's,
 * malloc'd, or NULL when it is not below root or cannot be resolved. */
char *dtk_path_within(const char *root, const char *path);

/*
 * The same in two steps, so that several files are replaced together or not
 * at all: dtk_file_stage writes data (mode as above) to a temporary file
 * beside path and syncs it, changing nothing that exists (returns 0, or -1
 * with the error set and nothing left); dtk_file_stage_commit renames it over
 * path (returns as dtk_file_write_atomic); dtk_file_stage_release removes a
 * temporary file not renamed, in any case. Every step after the first goes
 * through the directory opened then (openat, renameat, its fsync), never
 * through its path again.
 */
struct dtk_file_staged {
	char *path;       /* as messages show it */
	char *rel;        /* dtk_file_stage_within's rel; NULL */
	char *name, *tmp; /* in the directory; tmp NULL once renamed */
	char *keep;       /* the previous file kept under a temporary name
	                   * while a journal names it (dtk_file_commit_all) */
	int dfd;          /* the directory */
};
int dtk_file_stage(struct dtk_file_staged *s, const char *path, const char *data, size_t len,
                   int mode);
/* dtk_file_stage of rel, a relative path below the directory open as
 * rootfd (whose path is root), its directory opened from rootfd down with
 * no symbolic link followed: a link swapped in on the way is an error,
 * never followed, and nothing is written out of rootfd's tree. */
int dtk_file_stage_within(struct dtk_file_staged *s, int rootfd, const char *root, const char *rel,
                          const char *data, size_t len, int mode);
/* Makes the folder rel below the directory open as rootfd, its parent
 * opened from rootfd down with no link followed. Returns 0 (made, or there
 * already), or -1 with errno set. */
int dtk_file_mkdir_within(int rootfd, const char *rel);
int dtk_file_stage_commit(struct dtk_file_staged *s);
void dtk_file_stage_release(struct dtk_file_staged *s);

/*
 * Renames the files of v[0..n) staged by dtk_file_stage_within (those with
 * a tmp) into place, all or nothing, across a kill too: with two or more,
 * each one's previous file is first kept (a hard link beside it) and the
 * journal DTK_FILE_JOURNAL written in rootfd naming them, then each is
 * renamed, then the journal removed. A failed rename puts every file back;
 * a run killed meanwhile leaves the journal, and the next one to take the
 * base's lock puts the files back (dtk_file_rollback). Returns 0; -1 with
 * the error set ("...: nothing was written"); DTK_ENOSYNC with the error
 * saying what was written (a directory not synced, a file not put back).
 */
#define DTK_FILE_JOURNAL ".dtk-journal"
int dtk_file_commit_all(int rootfd, const char *root, struct dtk_file_staged *v, size_t n);
/* Puts back every file the journal of an interrupted dtk_file_commit_all
 * in rootfd names, and removes it. Returns 0 when there is none, 1 when
 * it rolled one back (*what: its files, ", "-separated, malloc'd), -1 with
 * the error set (the journal kept). */
int dtk_file_rollback(int rootfd, const char *root, char **what);
/* Returns the files a journal pending in root names (", "-separated,
 * malloc'd; the caller frees), or NULL when there is none. */
char *dtk_file_journal(const char *root);

/*
 * Compares text, as it is produced, with the file at path: the text is
 * kept whole, in text, and the file read once it is all there. Use:
 * dtk_file_cmp_open, then dtk_file_cmp_write (a dtk_write_fn) for each
 * piece, then dtk_file_cmp_finish; dtk_file_cmp_release in any case.
 */
struct dtk_file_cmp {
	int fd;              /* -1 when the file is missing */
	size_t max;          /* the largest file read */
	char *path;          /* malloc'd */
	struct dtk_buf text; /* the text so far */
};

/* Opens path for comparing: it must be a regular file (not a symbolic link,
 * a FIFO or a device) of at most max bytes. Returns 0 (also when the file is
 * missing: then any text differs), or -1 with the error set. */
int dtk_file_cmp_open(struct dtk_file_cmp *c, const char *path, size_t max);
/* A dtk_write_fn taking a struct dtk_file_cmp: appends to c->text. Returns 0. */
int dtk_file_cmp_write(void *c, const char *s, size_t len);
/* Returns 0 when the text is the whole file, 1 when it differs, or -1 with
 * the error set (the file cannot be read). */
int dtk_file_cmp_finish(struct dtk_file_cmp *c);
void dtk_file_cmp_release(struct dtk_file_cmp *c);

/* Returns a malloc'd "a/b" (the caller frees). */
char *dtk_path_join(const char *a, const char *b);
/* Returns the path (malloc'd, the caller frees) of the first executable
 * regular file name in the directories of the colon-separated list dirs (an
 * empty entry is the current directory), as a shell searches PATH; NULL
 * when there is none or dirs is NULL. */
char *dtk_path_search(const char *dirs, const char *name);

/* A file held in memory (a file of insights/: name "alpha.yaml"). */
struct dtk_memfile {
	const char *name;
	const char *data;
	size_t len;
};

/* Frees files[0..n) whose names and data are malloc'd, and the array. */
void dtk_memfiles_free(struct dtk_memfile *files, size_t n);

#endif
