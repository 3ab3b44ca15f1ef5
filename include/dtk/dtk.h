/*
 * dtk.h: the basics every module shares: memory, growable buffers, an arena,
 * diagnostics (errors about input, with path, line and column) and the last
 * error of an operation (everything else: I/O, git, usage).
 *
 * Conventions: functions returning int return 0 (or a count) on success and a
 * negative value on failure, after setting the error once where it was found.
 * Every *_free accepts NULL. Out of memory aborts with a message.
 */
#ifndef DTK_DTK_H
#define DTK_DTK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DTK_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Exit statuses of the dtk program. */
/* DTK_EXIT_WRITTEN: the files were written, but standard output (the
 * report of what was written) could not be: never 2, which says that
 * nothing was written. */
enum { DTK_EXIT_OK = 0, DTK_EXIT_DRIFT = 1, DTK_EXIT_INVALID = 2, DTK_EXIT_WRITTEN = 3 };

/*
 * What functions return on failure, the one list of dtk's error codes (no
 * two alike). Every code but DTK_OK comes with the error set (dtk_error_last)
 * or, for DTK_EINVALID, diagnostics that say why.
 */
enum dtk_error_code {
	DTK_OK = 0,
	DTK_EFAIL = -1,    /* any other failure */
	DTK_EINVALID = -2, /* the input is invalid (dtk_kb_load) */
	DTK_ENOGIT = -3,   /* libgit2 cannot be initialized (dtk_repo_open): unlike
	                    * there being no repository, a caller cannot go on */
	DTK_ETOOBIG = -4,  /* a file or message over its limit (dtk_file_read,
	                    * a line of dtk mcp) */
	DTK_ENOSYNC = -5   /* replaced, but its directory not synced
	                    * (dtk_file_write_atomic) */
};

/* ---- memory: these never return NULL; they abort when memory runs out ---- */
void *dtk_xmalloc(size_t n);
void *dtk_xcalloc(size_t n, size_t size);
void *dtk_xrealloc(void *p, size_t n);
char *dtk_xstrdup(const char *s);
char *dtk_xstrndup(const char *s, size_t n);
/* Grows *v (of *cap elements of size) so that it holds at least need. */
void dtk_grow(void **v, size_t *cap, size_t need, size_t size);

/* ---- growable buffer, always NUL-terminated once anything was put ---- */
struct dtk_buf {
	char *ptr;
	size_t len, cap;
};
#define DTK_BUF_INIT                                                                               \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}
void dtk_buf_put(struct dtk_buf *b, const char *s, size_t n);
void dtk_buf_puts(struct dtk_buf *b, const char *s);
void dtk_buf_putc(struct dtk_buf *b, char c);
void dtk_buf_printf(struct dtk_buf *b, const char *fmt, ...) DTK_PRINTF(2, 3);
void dtk_buf_vprintf(struct dtk_buf *b, const char *fmt, va_list ap) DTK_PRINTF(2, 0);
/* Returns the contents ("" when empty); the buffer keeps ownership. */
const char *dtk_buf_cstr(struct dtk_buf *b);
/* Returns the contents, owned by the caller (free()); the buffer is reset. */
char *dtk_buf_detach(struct dtk_buf *b);
void dtk_buf_release(struct dtk_buf *b);

/* Where text goes as it is produced: writes len bytes of s; returns 0, or -1
 * with the error set (the producer then stops and returns -1). */
typedef int (*dtk_write_fn)(void *arg, const char *s, size_t len);
/* A dtk_write_fn appending to the struct dtk_buf arg; never fails. */
int dtk_buf_write(void *arg, const char *s, size_t len);

/* ---- splicing: edits of a text that keep every other byte ---- */
/* Replace buf[start, end) with text[0..len); start == end inserts. */
struct dtk_edit {
	size_t start, end;
	const char *text;
	size_t len;
};
/*
 * Returns a malloc'd copy of buf[0..len) with each edit applied (the caller
 * frees; NUL-terminated; its length in *out_len). The edits are sorted by
 * start and do not overlap; two insertions at one place go in their order.
 * Returns NULL with the error set when they are not so.
 */
char *dtk_splice(const char *buf, size_t len, const struct dtk_edit *edits, size_t n,
                 size_t *out_len);
/* Maps offset off of the text after edits[0..n) (sorted by start, as
 * dtk_splice takes them) back to the text before them. Returns that offset;
 * when off falls in the text an edit put in, *inside is 1 and the result is
 * that edit's start. */
size_t dtk_splice_map_back(const struct dtk_edit *edits, size_t n, size_t off, int *inside);
/* Returns the byte offset in buf[0..len) of a 1-based line and character
 * column, counted as libyaml counts its marks ("\n", "\r\n" and "\r" end a
 * line; a leading byte order mark is not counted); clamped to the text. */
size_t dtk_text_offset(const char *buf, size_t len, int line, int col);
/* Sets *line and *col (1-based, counted as dtk_text_offset counts them) of
 * byte offset off of buf[0..len). */
void dtk_text_linecol(const char *buf, size_t len, size_t off, int *line, int *col);
/* Returns the line break a text uses: "\n", "\r\n" or "\r", the one
 * most of its lines end with (a tie: its first line's); "\n" for a text of
 * one line. */
const char *dtk_text_eol(const char *buf, size_t len);

/* Returns SipHash-2-4 of data[0..len) under key: a hash no one who does not
 * know the key can make collide. */
uint64_t dtk_siphash(const uint64_t key[2], const void *data, size_t len);

/* ---- arena: many small allocations freed at once ---- */
struct dtk_arena;
struct dtk_arena *dtk_arena_new(void);
/* Returns zeroed memory owned by the arena, aligned to 8 bytes: enough for
 * pointers, integers and doubles (nothing dtk keeps needs more). */
void *dtk_arena_alloc(struct dtk_arena *a, size_t n);
/* Returns memory owned by the arena, aligned to 8 bytes, not zeroed. */
void *dtk_arena_alloc_raw(struct dtk_arena *a, size_t n);
/* Returns a NUL-terminated copy of s[0..n) owned by the arena. */
char *dtk_arena_strndup(struct dtk_arena *a, const char *s, size_t n);
char *dtk_arena_strdup(struct dtk_arena *a, const char *s);
/* Moves everything src holds into dst (then frees src): pointers into src
 * stay valid and are freed with dst. */
void dtk_arena_adopt(struct dtk_arena *dst, struct dtk_arena *src);
/* Frees everything a holds but keeps one ordinary chunk for what comes
 * next: what a loop that fills and empties an arena per step calls. */
void dtk_arena_reset(struct dtk_arena *a);
void dtk_arena_free(struct dtk_arena *a);

/* ---- diagnostics: errors about the input, reported all at once ---- */
struct dtk_diag {
	char *path;    /* as shown to the user, e.g. "insights/foo.yaml" */
	int line, col; /* 1-based; a whole file is meant at 1:1 */
	char *msg;
};
struct dtk_diags {
	struct dtk_diag *v;
	size_t n, cap;
};
#define DTK_DIAGS_INIT                                                                             \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}
void dtk_diags_add(struct dtk_diags *d, const char *path, int line, int col, const char *fmt, ...)
        DTK_PRINTF(5, 6);
void dtk_diags_vadd(struct dtk_diags *d, const char *path, int line, int col, const char *fmt,
                    va_list ap) DTK_PRINTF(5, 0);
/* Moves every diagnostic of src to the end of dst; src is left empty. */
void dtk_diags_move(struct dtk_diags *dst, struct dtk_diags *src);
/* Sorts by path, line, column and message, and drops exact repeats. */
void dtk_diags_sort(struct dtk_diags *d);
/* Prints one "path:line:col: error: msg" line per diagnostic, each path of
 * the base's files as dtk_path_shown gives it. */
void dtk_diags_print(const struct dtk_diags *d, FILE *out);
/* The same, "warning" or another kind in place of "error". */
void dtk_diags_print_as(const struct dtk_diags *d, FILE *out, const char *kind);
/* Sets the directory the user stands in, as a path inside the base root
 * ("insights", "a/b"; "" or NULL: the root), for dtk_path_shown. */
void dtk_path_show_from(const char *dir_in_root);
/* Sets the base root (absolute, real; NULL: none) whose absolute paths
 * dtk_path_shown shows as relative ones, as it shows the base's files. */
void dtk_path_show_root(const char *root);
/* Returns path as the user should see it: a path of the base's own files
 * ("insights/..." or "INDEX.md", relative to the root) relative to the
 * directory set by dtk_path_show_from, as git and compilers print them
 * ("x.yaml" from insights/, "../insights/x.yaml" from a sibling), and so
 * any absolute path below the root set by dtk_path_show_root; any other
 * path as it is. malloc'd. */
char *dtk_path_shown(const char *path);
void dtk_diags_release(struct dtk_diags *d);

/* ---- the last error of an operation that is not about input data ---- */
/* Sets the error message; returns -1 so that "return dtk_error(...)" reads well. */
int dtk_error(const char *fmt, ...) DTK_PRINTF(1, 2);
/* Returns the message set last, or "unknown error"; owned by dtk. */
const char *dtk_error_last(void);
void dtk_error_clear(void);
/* Sets the error as dtk_error does, about the data at path (as diagnostics
 * name it: "insights/x.yaml"), line and col: reported as a diagnostic. */
int dtk_error_at(const char *path, int line, int col, const char *fmt, ...) DTK_PRINTF(4, 5);
/* Returns 1 and sets *path (owned by dtk), *line and *col when the last
 * error was set by dtk_error_at; else 0. */
int dtk_error_pos(const char **path, int *line, int *col);

/* ---- threads: the one pool ---- */
/* Returns how many threads a work of n parts takes: DTK_THREADS when set
 * (the one place it is read), else the processors online; at most 8 and
 * n, at least 1. */
int dtk_threads(size_t n);
/* Calls fn(arg, i) for each i in [0, n) at once, i 0 on the calling thread
 * and the others on threads of their own (on the calling thread after it
 * when one cannot start); returns when every call has returned. */
void dtk_threads_run(int n, void (*fn)(void *arg, int i), void *arg);

/* ---- crash testing ---- */
/* In the test build of dtk (dtk-crash, src/dtk_crash.c compiled with
 * DTK_CRASH_POINTS): kills the process with SIGKILL when the environment
 * variable DTK_CRASH_AT names this point ("name", or "name:N" for its Nth
 * call), so that the crash-safety tests stop dtk at each step of a write.
 * In dtk itself it does nothing. */
void dtk_crash_point(const char *name);
/* The same for a failure: in dtk-crash, when DTK_FAULT_AT names this point
 * ("name": every call; "name=PATH": the calls about the file PATH, as dtk
 * names it), returns -1 with errno set to EIO (the caller takes it as the
 * failure of the system call it guards); otherwise, and always in dtk,
 * returns 0. */
int dtk_fault_point(const char *name, const char *path);

/* ---- small text helpers ---- */
/* Returns the Levenshtein distance of a and b, capped at limit + 1. */
size_t dtk_edit_distance(const char *a, const char *b, size_t limit);

/*
 * Text from the data shown on a terminal or in a diagnostic: returns s with
 * its control characters escaped (C0 as \n \r \t or \xNN, DEL as \x7f, C1
 * as \u0080..\u009f, an invisible format character of invisible.h, such as
 * a bidirectional control, as \u202e or \U000e0001), so that data cannot
 * move the cursor, clear the screen, set the window title, forge a line or
 * show text other than it holds; as git's quote_path and ripgrep do.
 * dtk_esc escapes newlines too (one line: a title, a diagnostic);
 * dtk_esc_text keeps them (multi-line text: a claim). Returns s itself when it
 * has none, else a buffer of this thread's valid until DTK_ESC_RING more
 * calls (so one printf can take several); s may be NULL.
 */
#define DTK_ESC_RING 16
const char *dtk_esc_mode(const char *s, int keep_newlines);
#define dtk_esc(s) dtk_esc_mode((s), 0)
#define dtk_esc_text(s) dtk_esc_mode((s), 1)
/* Appends s[0..n) to b escaped as dtk_esc_mode does (n may end s anywhere
 * but inside a UTF-8 character). Thread-safe: it keeps nothing. */
void dtk_buf_put_esc(struct dtk_buf *b, const char *s, size_t n, int keep_newlines);
/* Appends s[0..n) to b with each invisible character as the text
 * "<U+XXXX>" (INDEX.md, the site), so that it is seen. */
void dtk_buf_put_marked(struct dtk_buf *b, const char *s, size_t n);
/* Returns s, or when it holds an invisible character (invisible.h), s marked as
 * dtk_buf_put_marked marks it in a buffer of this thread's valid until the
 * next call. s may be NULL. */
const char *dtk_marked(const char *s);
/* Returns the candidate closest to word: the same word in other case, else
 * the closest within a distance that makes a typo likely, else the only one
 * that starts with word (of 3 bytes or more); or NULL. The returned pointer
 * is one of the candidates. */
const char *dtk_suggest(const char *word, const char *const *cands, size_t n);
/* Returns 1 when s matches [a-z0-9][a-z0-9-]* (a node or source name). */
int dtk_is_name(const char *s);
/* Returns 1 when s is an absolute URL (a scheme, ':', no white space): what
 * a source's url must be. */
int dtk_is_url(const char *s);

#endif
