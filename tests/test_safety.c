/* test_safety.c: the dtk binary at the edges: output that cannot be written,
 * special and linked files, modes, limits, control characters. */
#include "support.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Returns a scratch copy of tests/fixtures/base (free and remove it after). */
static char *S_base(void)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base");
	t_copytree(base, dir);
	free(base);
	return dir;
}

/* Makes dir a git repository with its files committed. */
static void S_commit(const char *dir)
{
	assert_int_equal(t_sh(dir, "export GIT_CONFIG_NOSYSTEM=1 HOME=\"$PWD\" GIT_AUTHOR_NAME=t "
	                           "GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t "
	                           "GIT_COMMITTER_EMAIL=t@example.org && "
	                           "{ [ -d .git ] || git init -q; } && git add -A && "
	                           "git commit -q -m base"),
	                 0);
}

static void S_done(char *dir)
{
	t_rmtree(dir);
	free(dir);
}

/* Returns a file's bytes (malloc'd) and fails the test when it is absent. */
static char *S_read(const char *dir, const char *rel, size_t *len)
{
	char *s = t_read(dir, rel, len);
	assert_non_null(s);
	return s;
}

/* A failed write or flush of standard output is exit 2 with a message, for
 * every command (the dispatcher checks it once). */
static void test_stdout_write_error(void **state)
{
	static const char *const cmds[] = {
	        "list --format json", "list",
	        "show alpha",         "show alpha-001 --format json",
	        "next-id alpha",      "log",
	        "log --format json",  "crystallize --plan",
	        "reindex --stdout",   "--version",
	        "help list",          "--help",
	};
	char *dir = S_base();
	size_t i;
	(void)state;
	S_commit(dir);
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		int rc = t_sh(dir, "'%s' %s >/dev/full 2>err", DTK_BIN, cmds[i]);
		char *err = S_read(dir, "err", NULL);
		if (rc != 2 || !strstr(err, "dtk: error: cannot write to standard output"))
			fail_msg("dtk %s >/dev/full: exit %d, %s", cmds[i], rc, err);
		free(err);
		/* and it is the output that failed: to /dev/null all is well */
		assert_int_equal(t_sh(dir, "'%s' %s >/dev/null 2>&1", DTK_BIN, cmds[i]), 0);
	}
	S_done(dir);
}

static void test_check_unknown_format(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "check", "--format", "xml", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk check: error: --format must be text or github, not 'xml'\n"
	                           "see 'dtk check --help'\n");
	t_run_free(&r);
	S_done(dir);
}

/* After an entry numbered 999999999 there is no next id the schema takes. */
static void test_next_id_after_the_last_number(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "sed -i 's/id: alpha-003/id: alpha-999999999/' "
	                           "insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "next-id", "alpha", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "dtk next-id: error: node 'alpha' has used the last entry "
	                           "number (alpha-999999999); ids have at most 9 digits\n");
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "sed -i 's/id: alpha-999999999/id: alpha-999999998/' "
	                           "insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "next-id", "alpha", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "alpha-999999999\n");
	t_run_free(&r);
	S_done(dir);
}

/* A new file gets 0666 less the umask; a replaced one keeps its mode. */
static void test_new_files_follow_the_umask(void **state)
{
	char *dir = S_base(), path[4096];
	struct stat st;
	(void)state;
	snprintf(path, sizeof(path), "%s/INDEX.md", dir);
	assert_int_equal(t_sh(dir, "rm INDEX.md && umask 027 && '%s' reindex -q", DTK_BIN), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(t_sh(dir,
	                      "chmod 604 INDEX.md && echo stale >>INDEX.md && umask 077 && "
	                      "'%s' reindex -q",
	                      DTK_BIN),
	                 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	S_done(dir);
}

/* Invalid records at HEAD are errors for dtk log, not an empty history. */
static void test_log_reports_invalid_records(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "sed -i 's/new_entries: 4/new_entries: four/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	S_commit(dir);
	t_dtk(&r, dir, NULL, "log", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "insights/_crystallizations.yaml:2:16: error: "));
	assert_non_null(
	        strstr(r.err, "dtk log: error: the records at HEAD are invalid (1 error)\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "log", "--format", "json", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	t_run_free(&r);
	S_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_stdout_write_error),
	        cmocka_unit_test(test_check_unknown_format),
	        cmocka_unit_test(test_next_id_after_the_last_number),
	        cmocka_unit_test(test_new_files_follow_the_umask),
	        cmocka_unit_test(test_log_reports_invalid_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
