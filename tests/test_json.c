/* test_json.c: the JSON writer. */
#include "support.h"

#include "dtk/json.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
