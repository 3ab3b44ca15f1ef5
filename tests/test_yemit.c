/* test_yemit.c: scalars written by libyaml's emitter read back as given;
 * splicing keeps every byte it is not told to change. */
#include "support.h"

#include "dtk/yemit.h"
#include "dtk/ytree.h"

#include <stdlib.h>
#include <string.h>

/* Strings that are not what they look like, or that YAML cannot hold plain. */
static const char *const S_tricky[] = {"plain text",
                                       "0x1f",
                                       "1e5",
                                       "0o17",
                                       "-12",
                                       "+1",
                                       ".5",
                                       "1_000",
                                       "12:30",
                                       "2026-10-15",
                                       "true",
                                       "False",
                                       "yes",
                                       "No",
                                       "on",
                                       "OFF",
                                       "y",
                                       "n",
                                       "~",
                                       "null",
                                       "NULL",
                                       "<<",
                                       "=",
                                       "",
                                       " leading",
                                       "trailing ",
                                       "a: b",
                                       "a #b",
                                       "#c",
                                       "- x",
                                       "? x",
                                       "[x",
                                       "{x",
                                       "x, y",
                                       "x]",
                                       "'q'",
                                       "\"dq\"",
                                       "back\\slash",
                                       "tab\there",
                                       "bell\x07",
                                       "esc\x1b[2J",
                                       "中文的单层耗时，均分层数 另一个线程",
                                       "ＮＣＣＬ",
                                       "ncclCommSplit（2.18 起）",
                                       "line one\nline two",
                                       "two\n\nbreaks",
                                       "ends with break\n",
                                       "kept\n\n\n",
                                       "\nstarts with break",
                                       " spaced\nlines ",
                                       "%percent",
                                       "@at",
                                       "`tick",
                                       "!bang",
                                       "&amp",
                                       "*star",
                                       "|pipe",
                                       ">gt",
                                       "ok: then\n- list",
                                       "x" /* placeholder for the long line */,
                                       NULL};

/* Emits s as the value of key "k" (block) or as a flow item at indent,
 * parses the document and checks that it reads back as s. */
static void S_roundtrip(const char *s, int where, int indent, const char *eol)
{
	struct dtk_buf doc = DTK_BUF_INIT;
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_yval *root = NULL;
	const struct dtk_yval *v;

	dtk_buf_printf(&doc, "top:%s%*s", eol, indent, "");
	dtk_buf_puts(&doc, where == DTK_YEMIT_BLOCK ? "k: " : "k: [a, ");
	assert_int_equal(dtk_yemit_scalar(&doc, s, strlen(s), where, indent, eol), 0);
	dtk_buf_puts(&doc, where == DTK_YEMIT_BLOCK ? "" : ", z]");
	dtk_buf_printf(&doc, "%s%*safter: 1%s", eol, indent, "", eol);
	if (dtk_yaml_parse(&root, a, "t.yaml", doc.ptr, doc.len, &d) < 0) {
		dtk_diags_print(&d, stderr);
		fail_msg("does not parse: [%s]", doc.ptr);
	}
	v = dtk_yval_get(dtk_yval_get(root, "top"), "k");
	assert_non_null(v);
	if (where == DTK_YEMIT_FLOW) {
		assert_int_equal(v->n, 3);
		v = v->items[1];
	}
	assert_int_equal(v->kind, DTK_Y_SCALAR);
	assert_int_equal(v->type, DTK_YT_STR);
	if (v->len != strlen(s) || memcmp(v->str, s, v->len))
		fail_msg("[%s] reads back as [%s] from [%s]", s, v->str, doc.ptr);
	assert_int_equal(dtk_yval_get(dtk_yval_get(root, "top"), "after")->type, DTK_YT_INT);
	if (!strcmp(eol, "\r\n"))
		for (size_t i = 0; i < doc.len; i++)
			if (doc.ptr[i] == '\n')
				assert_true(i > 0 && doc.ptr[i - 1] == '\r');
	dtk_diags_release(&d);
	dtk_arena_free(a);
	dtk_buf_release(&doc);
}

static void test_roundtrip(void **state)
{
	char long_line[3001];
	size_t i;
	(void)state;
	for (i = 0; S_tricky[i]; i++) {
		S_roundtrip(S_tricky[i], DTK_YEMIT_BLOCK, 2, "\n");
		S_roundtrip(S_tricky[i], DTK_YEMIT_BLOCK, 4, "\r\n");
		S_roundtrip(S_tricky[i], DTK_YEMIT_FLOW, 2, "\n");
	}
	for (i = 0; i + 3 < sizeof(long_line); i += 3)
		memcpy(long_line + i, "长", 3);
	long_line[i] = '\0';
	S_roundtrip(long_line, DTK_YEMIT_BLOCK, 2, "\n");
}

/* Returns what dtk_yemit_scalar writes (a static buffer). */
static const char *S_emit(const char *s, int where, int indent)
{
	static char out[512];
	struct dtk_buf b = DTK_BUF_INIT;
	assert_int_equal(dtk_yemit_scalar(&b, s, strlen(s), where, indent, "\n"), 0);
	assert_true(b.len < sizeof(out));
	memcpy(out, b.ptr, b.len + 1);
	dtk_buf_release(&b);
	return out;
}

static void test_styles(void **state)
{
	(void)state;
	assert_string_equal(S_emit("plain text", DTK_YEMIT_BLOCK, 0), "plain text");
	assert_string_equal(S_emit("中文，不折行", DTK_YEMIT_BLOCK, 0), "中文，不折行");
	assert_string_equal(S_emit("0x1f", DTK_YEMIT_BLOCK, 0), "'0x1f'");
	assert_string_equal(S_emit("2026-10-15", DTK_YEMIT_FLOW, 0), "'2026-10-15'");
	assert_string_equal(S_emit("x, y", DTK_YEMIT_BLOCK, 0), "x, y");
	assert_string_equal(S_emit("x, y", DTK_YEMIT_FLOW, 0), "'x, y'");
	assert_string_equal(S_emit("a\nb", DTK_YEMIT_BLOCK, 4), "|-\n      a\n      b");
	assert_string_equal(S_emit("a\nb", DTK_YEMIT_FLOW, 4), "\"a\\nb\"");
	/* NEL, LS or PS beside a line break: a literal block would make each a
	 * break of its own, so the value is double-quoted, each escaped */
	assert_string_equal(S_emit("a\xe2\x80\xa8"
	                           "b\nc",
	                           DTK_YEMIT_BLOCK, 4),
	                    "\"a\\Lb\\nc\"");
	assert_string_equal(S_emit("a\xe2\x80\xa9"
	                           "b\nc",
	                           DTK_YEMIT_BLOCK, 4),
	                    "\"a\\Pb\\nc\"");
	assert_string_equal(S_emit("a\xc2\x85"
	                           "b\nc",
	                           DTK_YEMIT_BLOCK, 4),
	                    "\"a\\Nb\\nc\"");
	assert_true(dtk_yemit_plain_safe("collective-communication-001", 28));
	assert_false(dtk_yemit_plain_safe("yes", 3));
	assert_false(dtk_yemit_plain_safe("", 0));
}

static void test_invalid_utf8(void **state)
{
	struct dtk_buf b = DTK_BUF_INIT;
	(void)state;
	assert_int_equal(dtk_yemit_scalar(&b, "a\xff", 2, DTK_YEMIT_BLOCK, 0, "\n"), -1);
	assert_int_equal(b.len, 0);
	dtk_buf_release(&b);
}

static void test_splice(void **state)
{
	const char *text = "a: 1\r\nb: 2\r\n";
	struct dtk_edit e[3] = {{3, 4, "10", 2}, {6, 6, "# c\r\n", 5}, {12, 12, "z: 3\r\n", 6}};
	size_t n;
	char *out;
	(void)state;
	out = dtk_splice(text, strlen(text), e, 3, &n);
	assert_string_equal(out, "a: 10\r\n# c\r\nb: 2\r\nz: 3\r\n");
	assert_int_equal(n, strlen(out));
	free(out);
	out = dtk_splice(text, strlen(text), NULL, 0, &n);
	assert_memory_equal(out, text, strlen(text) + 1);
	free(out);
	e[1].start = 2; /* before the end of the edit ahead of it */
	assert_null(dtk_splice(text, strlen(text), e, 3, &n));
	assert_string_equal(dtk_text_eol(text, strlen(text)), "\r\n");
	assert_string_equal(dtk_text_eol("a\nb\r\n", 5), "\n");
	assert_string_equal(dtk_text_eol("a", 1), "\n");
	assert_string_equal(dtk_text_eol("a\rb\rc\r", 6), "\r");       /* old Mac OS */
	assert_string_equal(dtk_text_eol("a\nb\r\nc\r\n", 9), "\r\n"); /* most lines */
	assert_string_equal(dtk_text_eol("a\r", 2), "\r");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_roundtrip),
	        cmocka_unit_test(test_styles),
	        cmocka_unit_test(test_invalid_utf8),
	        cmocka_unit_test(test_splice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
