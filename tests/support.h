/* support.h: helpers shared by the tests: scratch directories, files, and
 * running the dtk binary. Every helper fails the test on error. */
#ifndef DTK_TEST_SUPPORT_H
#define DTK_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* Returns a new empty directory under $TMPDIR (malloc'd; remove with t_rmtree). */
char *t_mkdtemp(void);
/* Removes path and everything below it. */
void t_rmtree(const char *path);
/* Copies the tree src into dst (created). */
void t_copytree(const char *src, const char *dst);
/* Writes len bytes to dir/rel, creating parent directories. */
void t_write(const char *dir, const char *rel, const char *data, size_t len);
void t_write_str(const char *dir, const char *rel, const char *text);
/* Returns dir/rel's contents (malloc'd, NUL-terminated) or NULL when absent. */
char *t_read(const char *dir, const char *rel, size_t *len);
/* Returns a path of the source tree, e.g. "tests/fixtures/base" (malloc'd). */
char *t_src(const char *rel);

/* The outcome of running a command. */
struct t_run {
	int status; /* exit status, or -1 when killed */
	char *out, *err;
};
/* Runs the dtk binary in dir with the arguments given in a NULL-terminated
 * list; env is "NAME=value" or NULL. DTK_TEST_WRAPPER, when set, is put in
 * front of the binary (scripts/test runs the end-to-end tests under valgrind). */
void t_dtk(struct t_run *r, const char *dir, const char *env, ...);
/* The binary t_dtk runs: DTK_BIN, or DTK_CRASH_BIN (crash points live). */
extern const char *t_dtk_bin;
void t_run_free(struct t_run *r);
/* Runs a shell command in dir; returns its exit status. */
int t_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Returns a scratch copy of tests/fixtures/base (malloc'd; t_done removes
 * and frees it). */
char *t_base(void);
/* Removes directory dir and frees the string. */
void t_done(char *dir);
/* The files of the fixture base (t_base), each as read; see t_snap_same. */
#define T_SNAP_FILES 7
struct t_snap {
	char *data[T_SNAP_FILES];
	size_t len[T_SNAP_FILES];
};
/* Reads the files of the fixture base in dir into s (t_snap_free frees). */
void t_snap(struct t_snap *s, const char *dir);
void t_snap_free(struct t_snap *s);
/* Fails unless every file of the fixture base in dir is byte for byte as in
 * s and no temporary file is left in insights/ (what: for the message). */
void t_snap_same(const struct t_snap *s, const char *dir, const char *what);

/* Runs dtk in dir and checks its exit status; the run is left in r (free
 * it with t_run_free). */
#define RUN(r, dir, want, ...)                                                                     \
	do {                                                                                       \
		t_dtk(&(r), dir, NULL, __VA_ARGS__, NULL);                                         \
		if ((r).status != (want))                                                          \
			print_error("exit %d: %s%s\n", (r).status, (r).out, (r).err);              \
		assert_int_equal((r).status, want);                                                \
	} while (0)

#endif
