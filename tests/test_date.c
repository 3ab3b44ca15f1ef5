/* test_date.c: calendar dates. */
#include "support.h"

#include "dtk/model.h"

static void test_parse(void **state)
{
	dtk_date d = 0;
	(void)state;
	assert_int_equal(dtk_date_parse(&d, "2026-03-17"), 0);
	assert_int_equal(d, 20260317);
	assert_int_equal(dtk_date_parse(&d, "2024-02-29"), 0);
	assert_int_equal(dtk_date_parse(&d, "2026-02-29"), -1);
	assert_int_equal(dtk_date_parse(&d, "1900-02-29"), -1);
	assert_int_equal(dtk_date_parse(&d, "2000-02-29"), 0);
	assert_int_equal(dtk_date_parse(&d, "2026-13-01"), -1);
	assert_int_equal(dtk_date_parse(&d, "2026-04-31"), -1);
	assert_int_equal(dtk_date_parse(&d, "2026-4-1"), -1);
	assert_int_equal(dtk_date_parse(&d, "2026-04-01x"), -1);
	assert_int_equal(dtk_date_parse(&d, "0000-01-01"), -1);
}

static void test_format(void **state)
{
	char buf[11];
	(void)state;
	assert_string_equal(dtk_date_format(buf, 20260905), "2026-09-05");
	assert_string_equal(dtk_date_format(buf, 99991231), "9999-12-31");
	/* never a year cut to four digits (10001-01-01 is not 0001-01-01) */
	assert_string_equal(dtk_date_format(buf, 100010101), "9999-12-31");
}

static void test_add_months(void **state)
{
	(void)state;
	assert_int_equal(dtk_date_add_months(20260317, 6), 20260917);
	assert_int_equal(dtk_date_add_months(20260815, 6), 20270215);
	assert_int_equal(dtk_date_add_months(20260831, 6), 20270228);
	assert_int_equal(dtk_date_add_months(20270831, 6), 20280229);
	assert_int_equal(dtk_date_add_months(20261231, 1), 20270131);
	assert_int_equal(dtk_date_add_months(20260101, 24), 20280101);
	/* past year 9999: the last date, not year 10000 printed as 0000 */
	assert_int_equal(dtk_date_add_months(99991001, 6), DTK_DATE_MAX);
	assert_int_equal(dtk_date_add_months(99990601, 6), 99991201);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse),
	        cmocka_unit_test(test_format),
	        cmocka_unit_test(test_add_months),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
