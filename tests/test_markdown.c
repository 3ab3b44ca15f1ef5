/* test_markdown.c: the document builder and its CommonMark rendering. */
#include "support.h"

#include "dtk/markdown.h"

#include <stdlib.h>

static void test_blocks(void **state)
{
	struct dtk_md *md = dtk_md_new();
	char *s;
	(void)state;
	dtk_md_heading(md, 2);
	dtk_md_text(md, "Title #1");
	dtk_md_close(md);
	dtk_md_list(md);
	dtk_md_item(md);
	dtk_md_text(md, "a_b *c*");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_table(md, 2);
	dtk_md_row(md, 1);
	dtk_md_cell(md);
	dtk_md_text(md, "k");
	dtk_md_close(md);
	dtk_md_cell(md);
	dtk_md_text(md, "v");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_row(md, 0);
	dtk_md_cell(md);
	dtk_md_text(md, "a|b");
	dtk_md_close(md);
	dtk_md_cell(md);
	dtk_md_inline(md, "x\ny `c|d`");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_close(md);
	s = dtk_md_render(md);
	assert_string_equal(s, "## Title \\#1\n"
	                       "\n"
	                       "  - a\\_b \\*c\\*\n"
	                       "\n"
	                       "| k | v |\n"
	                       "| --- | --- |\n"
	                       "| a\\|b | x y `c\\|d` |\n");
	free(s);
	dtk_md_free(md);
}

static void test_inline_falls_back_to_text(void **state)
{
	struct dtk_md *md = dtk_md_new();
	char *s;
	(void)state;
	dtk_md_paragraph(md);
	dtk_md_inline(md, "# not a heading");
	dtk_md_close(md);
	s = dtk_md_render(md);
	assert_string_equal(s, "\\# not a heading\n");
	free(s);
	dtk_md_free(md);
}

static void test_html(void **state)
{
	struct dtk_md *md = dtk_md_new();
	char *s;
	(void)state;
	dtk_md_paragraph(md);
	dtk_md_inline(md, "*a* <b>");
	dtk_md_close(md);
	s = dtk_md_render_html(md);
	assert_string_equal(s, "<p><em>a</em> <!-- raw HTML omitted --></p>\n");
	free(s);
	dtk_md_free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_blocks),
	        cmocka_unit_test(test_inline_falls_back_to_text),
	        cmocka_unit_test(test_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
