/*
 * fs.h: files: reading whole files with a size limit, replacing a file
 * atomically, joining paths, and the lock that serializes dtk runs.
 */
#ifndef DTK_FS_H
#define DTK_FS_H

#include <stddef.h>

/* Returned by dtk_file_read when the file is larger than the limit. */
#define DTK_ETOOBIG (-3)

/*
 * Reads the whole file at path, refusing files over max bytes. Returns 0 and
 * sets *out (malloc'd, NUL-terminated; the caller frees) and *len; -1 with the
 * error set (errno kept); DTK_ETOOBIG when the file is too large.
 */
int dtk_file_read(char **out, size_t *len, const char *path, size_t max);

/*
 * Replaces path with data as one step: writes a temporary file beside it,
 * fsyncs it, renames it over path and fsyncs the directory. A reader sees
 * the old file or the new one, whole, never a mix. Returns 0, or -1 with the
 * error set (and the temporary file removed).
 */
int dtk_file_write_atomic(const char *path, const char *data, size_t len);

/* Returns a malloc'd "a/b" (the caller frees). */
char *dtk_path_join(const char *a, const char *b);

#endif
