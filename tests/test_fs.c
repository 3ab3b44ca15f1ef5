/* test_fs.c: whole-file reads, the streamed comparison, atomic replacement. */
#include "support.h"

#include "dtk/fs.h"

#include <stdlib.h>
#include <string.h>

/* Returns n bytes of a text with no period shorter than 64 KiB; malloc'd. */
static char *S_text(size_t n)
{
	char *s = malloc(n + 1);
	size_t i;
	for (i = 0; i < n; i++)
		s[i] = (char)('a' + (i * 7 + i / 26) % 26);
	s[n] = '\0';
	return s;
}

/* Compares text, written in pieces of step bytes, with the file dir/name.
 * Returns dtk_file_cmp_finish's answer; *kept gets the text kept (or NULL). */
static int S_cmp(const char *dir, const char *name, const char *text, size_t len, size_t step,
                 char **kept)
{
	struct dtk_file_cmp c = {.fd = -1};
	char *path = dtk_path_join(dir, name);
	size_t at;
	int rc;

	assert_int_equal(dtk_file_cmp_open(&c, path), 0);
	for (at = 0; at < len; at += step)
		assert_int_equal(
		        dtk_file_cmp_write(&c, text + at, len - at < step ? len - at : step), 0);
	rc = dtk_file_cmp_finish(&c);
	*kept = rc == 1 ? dtk_xstrdup(dtk_buf_cstr(&c.text)) : NULL;
	if (rc == 1)
		assert_int_equal(c.text.len, len);
	dtk_file_cmp_release(&c);
	dtk_file_cmp_release(&c); /* twice is harmless */
	free(path);
	return rc;
}

static void test_cmp(void **state)
{
	const size_t n = 200000, steps[] = {1, 7, 4096, 65536, 70000, 200000};
	char *dir = t_mkdtemp(), *text = S_text(n), *other = S_text(n), *kept;
	size_t i;
	(void)state;

	t_write(dir, "same", text, n);
	t_write(dir, "short", text, n - 1);
	other[131073] = 'Z'; /* differs past the first two pieces of the file */
	t_write(dir, "other", other, n);
	t_write(dir, "empty", "", 0);
	{
		char *longer = malloc(n + 1);
		memcpy(longer, text, n);
		longer[n] = '\n';
		t_write(dir, "long", longer, n + 1);
		free(longer);
	}
	for (i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
		assert_int_equal(S_cmp(dir, "same", text, n, steps[i], &kept), 0);
		assert_null(kept);
		const char *names[] = {"short", "long", "other", "empty", "missing"};
		size_t k;
		for (k = 0; k < 5; k++) {
			assert_int_equal(S_cmp(dir, names[k], text, n, steps[i], &kept), 1);
			assert_string_equal(kept, text); /* the new text, whole */
			free(kept);
		}
	}
	/* no text and an empty file agree */
	assert_int_equal(S_cmp(dir, "empty", "", 0, 1, &kept), 0);
	assert_int_equal(S_cmp(dir, "missing", "", 0, 1, &kept), 1);
	free(kept);
	t_rmtree(dir);
	free(dir);
	free(text);
	free(other);
}

static void test_cmp_unreadable(void **state)
{
	struct dtk_file_cmp c = {.fd = -1};
	char *dir = t_mkdtemp(), *sub = dtk_path_join(dir, "d"), *path;
	(void)state;
	/* a directory opens but cannot be read: an error, not a difference */
	t_write(dir, "d/x", "x", 1);
	assert_int_equal(dtk_file_cmp_open(&c, sub), 0);
	assert_int_equal(dtk_file_cmp_write(&c, "abc", 3), -1);
	assert_non_null(strstr(dtk_error_last(), "cannot read"));
	dtk_file_cmp_release(&c);
	/* a path through a file cannot be opened */
	path = dtk_path_join(dir, "d/x/y");
	assert_int_equal(dtk_file_cmp_open(&c, path), -1);
	dtk_file_cmp_release(&c);
	t_rmtree(dir);
	free(dir);
	free(sub);
	free(path);
}

static void test_read_and_write_atomic(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "f"), *out;
	size_t len;
	(void)state;
	assert_int_equal(dtk_file_write_atomic(path, "hello", 5), 0);
	assert_int_equal(dtk_file_read(&out, &len, path, 100), 0);
	assert_int_equal(len, 5);
	assert_string_equal(out, "hello");
	free(out);
	assert_int_equal(dtk_file_read(&out, &len, path, 4), DTK_ETOOBIG);
	assert_null(out);
	t_rmtree(dir);
	free(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cmp),
	        cmocka_unit_test(test_cmp_unreadable),
	        cmocka_unit_test(test_read_and_write_atomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
