/* test_ytext.c: the lines of a YAML file's text: LF, CRLF and a lone CR
 * each end a line, as in YAML. */
#include "support.h"

#include "dtk/ytext.h"

#include <string.h>

static void test_line_start_and_end(void **state)
{
	static const char t[] = "a: 1\nb: 2\r\n  c: 3\rd: 4";
	size_t len = sizeof(t) - 1;

	(void)state;
	assert_int_equal(dtk_ytext_line_start(t, 0), 0);
	assert_int_equal(dtk_ytext_line_start(t, 3), 0);
	assert_int_equal(dtk_ytext_line_end(t, len, 0), 5);
	assert_int_equal(dtk_ytext_line_end(t, len, 4), 5);
	/* CRLF is one break */
	assert_int_equal(dtk_ytext_line_start(t, 8), 5);
	assert_int_equal(dtk_ytext_line_end(t, len, 5), 11);
	assert_int_equal(dtk_ytext_line_end(t, len, 9), 11);
	/* a lone CR ends a line */
	assert_int_equal(dtk_ytext_line_start(t, 14), 11);
	assert_int_equal(dtk_ytext_line_end(t, len, 11), 18);
	/* the last line without a break ends at the text's end */
	assert_int_equal(dtk_ytext_line_start(t, len), 18);
	assert_int_equal(dtk_ytext_line_end(t, len, 18), len);
	assert_int_equal(dtk_ytext_line_end(t, len, len), len);
}

static void test_indent_and_spaces(void **state)
{
	static const char t[] = "a:\n  - b\r\n    c: 1\r   d";
	struct dtk_buf b = DTK_BUF_INIT;

	(void)state;
	assert_int_equal(dtk_ytext_indent(t, 0), 0);
	assert_int_equal(dtk_ytext_indent(t, 6), 2);
	assert_int_equal(dtk_ytext_indent(t, 16), 4);
	assert_int_equal(dtk_ytext_indent(t, strlen(t)), 3);
	dtk_ytext_spaces(&b, 3);
	dtk_ytext_spaces(&b, 0);
	dtk_ytext_spaces(&b, -2);
	assert_string_equal(dtk_buf_cstr(&b), "   ");
	dtk_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_line_start_and_end),
	        cmocka_unit_test(test_indent_and_spaces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
