/* test_json.c: the JSON writer. */
#include "support.h"

#include "dtk/json.h"

#include <stdlib.h>

static void test_shape(void **state)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	(void)state;
	dtk_json_init(&j, &b);
	dtk_json_object(&j);
	dtk_json_key(&j, "s");
	dtk_json_string(&j, "a\"b\\c\n\x01 中");
	dtk_json_key(&j, "n");
	dtk_json_int(&j, -3);
	dtk_json_key(&j, "list");
	dtk_json_array(&j);
	dtk_json_bool(&j, 1);
	dtk_json_null(&j);
	dtk_json_string(&j, NULL);
	dtk_json_end(&j, ']');
	dtk_json_key(&j, "empty");
	dtk_json_array(&j);
	dtk_json_end(&j, ']');
	dtk_json_end(&j, '}');
	assert_string_equal(b.ptr, "{\n"
	                           "  \"s\": \"a\\\"b\\\\c\\n\\u0001 中\",\n"
	                           "  \"n\": -3,\n"
	                           "  \"list\": [\n"
	                           "    true,\n"
	                           "    null,\n"
	                           "    null\n"
	                           "  ],\n"
	                           "  \"empty\": []\n"
	                           "}\n");
	dtk_buf_release(&b);
}

/* U+2028 and U+2029 are escaped, by the writer and in JSON from another
 * writer; the text around them, other characters of E2 80 xx, kept. */
static void test_line_separators(void **state)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char *t;
	(void)state;
	dtk_json_init(&j, &b);
	j.compact = 1;
	dtk_json_array(&j);
	dtk_json_string(&j, "a\xE2\x80\xA8"
	                    "b\xE2\x80\xA9"
	                    "c\xE2\x80\xA6\xE2\x80\xAE");
	dtk_json_end(&j, ']');
	assert_string_equal(b.ptr, "[\"a\\u2028b\\u2029c\xE2\x80\xA6\xE2\x80\xAE\"]\n");
	dtk_buf_release(&b);
	t = dtk_json_escape_separators(
	        dtk_xstrdup("{\"k\xE2\x80\xA8\": \"\xE2\x80\xA9\xE2\x80\"}"));
	assert_string_equal(t, "{\"k\\u2028\": \"\\u2029\xE2\x80\"}");
	free(t);
	t = dtk_json_escape_separators(dtk_xstrdup("[\"plain\"]"));
	assert_string_equal(t, "[\"plain\"]");
	free(t);
	assert_null(dtk_json_escape_separators(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_shape),
	        cmocka_unit_test(test_line_separators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
