/* test_write_edge.c: the write commands through the binary on the edges of
 * their output: the diff of a dry run, applied by git; the style of the text
 * an edit adds to files written in unusual ways. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

static char *S_base(void)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base");
	t_copytree(base, dir);
	free(base);
	return dir;
}

static void S_done(char *dir)
{
	t_rmtree(dir);
	free(dir);
}

/* Runs dtk in dir and checks its exit status; returns the run (free it). */
#define RUN(r, dir, want, ...)                                                                     \
	do {                                                                                       \
		t_dtk(&(r), dir, NULL, __VA_ARGS__, NULL);                                         \
		if ((r).status != (want))                                                          \
			print_error("exit %d: %s%s\n", (r).status, (r).out, (r).err);              \
		assert_int_equal((r).status, want);                                                \
	} while (0)

/* The dry run of a command that creates a file shows it as git shows a new
 * file, so that 'git apply' takes the diff and makes the same files. */
static void test_dry_run_new_file_applies(void **state)
{
	char *dir = S_base(), *other = S_base(), *a, *b;
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "add-node", "delta", "--category", "策略", "--dry-run");
	assert_non_null(strstr(r.out, "diff --git a/insights/delta.yaml b/insights/delta.yaml\n"
	                              "new file mode 100644\n"));
	assert_non_null(strstr(r.out, "--- /dev/null\n+++ b/insights/delta.yaml\n"));
	t_write_str(dir, "dry.diff", r.out);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "git apply dry.diff"), 0);
	RUN(r, other, 0, "add-node", "delta", "--category", "策略");
	t_run_free(&r);
	a = t_read(dir, "insights/delta.yaml", NULL);
	b = t_read(other, "insights/delta.yaml", NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = t_read(dir, "insights/_domain.yaml", NULL);
	b = t_read(other, "insights/_domain.yaml", NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	S_done(dir);
	S_done(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_dry_run_new_file_applies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
