/* test_util.c: buffers, the arena, diagnostics, suggestions, names. */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/invisible.h"

#include <stdlib.h>
#include <string.h>

static void test_buf(void **state)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *s;
	(void)state;
	assert_string_equal(dtk_buf_cstr(&b), "");
	dtk_buf_puts(&b, "ab");
	dtk_buf_printf(&b, "%d-%s", 42, "x");
	dtk_buf_putc(&b, '!');
	assert_string_equal(dtk_buf_cstr(&b), "ab42-x!");
	assert_int_equal(b.len, 7);
	s = dtk_buf_detach(&b);
	assert_string_equal(s, "ab42-x!");
	assert_null(b.ptr);
	free(s);
	dtk_buf_release(&b);
}

/* A reset arena keeps one ordinary chunk and fills it again from its start;
 * large blocks and further chunks go (the sanitizers see them freed). */
static void test_arena_reset(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	char *first, *again;
	int i;
	(void)state;
	dtk_arena_reset(NULL);
	dtk_arena_reset(a); /* empty */
	first = dtk_arena_strdup(a, "x");
	for (i = 0; i < 5000; i++) /* more than one chunk, and a large block */
		dtk_arena_alloc(a, 64);
	dtk_arena_alloc(a, 100000);
	dtk_arena_reset(a);
	again = dtk_arena_strdup(a, "y");
	assert_string_equal(again, "y");
	for (i = 0; i < 3; i++) {
		char *p = dtk_arena_alloc(a, 16);
		assert_true(p[0] == 0 && p[15] == 0);
	}
	(void)first;
	dtk_arena_free(a);
}

/* SipHash-2-4: the reference vectors (key 00..0f, messages 00, 00 01, ...)
 * and another key giving another hash. */
static void test_siphash(void **state)
{
	static const uint64_t want[] = {0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL,
	                                0x0d6c8009d9a94f5aULL, 0x85676696d7fb7e2dULL};
	uint64_t key[2] = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}, other[2] = {1, 0};
	unsigned char msg[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	for (i = 0; i < 4; i++)
		assert_true(dtk_siphash(key, msg, i) == want[i]);
	assert_true(dtk_siphash(key, msg, 15) == 0xa129ca6149be45e5ULL);
	assert_true(dtk_siphash(other, msg, 15) != dtk_siphash(key, msg, 15));
}

static void test_arena(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	char *big;
	int i;
	(void)state;
	for (i = 0; i < 10000; i++) {
		char *s = dtk_arena_strdup(a, "hello");
		long *n = dtk_arena_alloc(a, sizeof(*n) * 3);
		assert_string_equal(s, "hello");
		assert_int_equal((size_t)n % 8, 0);
		assert_true(n[0] == 0 && n[2] == 0);
		/* strings are packed: the next one starts right after this one */
		if (i == 0) {
			char *t = dtk_arena_strdup(a, "ab"), *u = dtk_arena_strdup(a, "c");
			assert_ptr_equal(u, t + 3);
		}
	}
	{
		/* a large block gets a chunk of its own: the current one goes on */
		struct dtk_arena *b = dtk_arena_new();
		char *t = dtk_arena_strdup(b, "ab");
		char *b1 = dtk_arena_alloc(b, 20000); /* fits the chunk of t */
		char *b2 = dtk_arena_alloc(b, 20000); /* does not */
		char *u = dtk_arena_strdup(b, "c");
		assert_ptr_equal(b1, t + 8);
		assert_ptr_equal(u, b1 + 20000);
		assert_true(b2 + 20000 <= b1 || b2 >= u + 2);
		dtk_arena_free(b);
	}
	big = dtk_arena_alloc(a, 1 << 20);
	assert_int_equal(big[(1 << 20) - 1], 0);
	dtk_arena_free(a);
	dtk_arena_free(NULL);
}

static void test_diags_sorted_and_deduplicated(void **state)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	char buf[1024] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	(void)state;
	dtk_diags_add(&d, "b.yaml", 1, 1, "second file");
	dtk_diags_add(&d, "a.yaml", 10, 2, "later");
	dtk_diags_add(&d, "a.yaml", 2, 5, "earlier");
	dtk_diags_add(&d, "a.yaml", 2, 5, "earlier");
	dtk_diags_add(&d, "a.yaml", 0, 0, "whole file");
	dtk_diags_sort(&d);
	assert_int_equal(d.n, 4);
	dtk_diags_print(&d, f);
	fclose(f);
	assert_string_equal(buf, "a.yaml:1:1: error: whole file\n"
	                         "a.yaml:2:5: error: earlier\n"
	                         "a.yaml:10:2: error: later\n"
	                         "b.yaml:1:1: error: second file\n");
	dtk_diags_release(&d);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(dtk_edit_distance("kitten", "sitting", 10), 3);
	assert_int_equal(dtk_edit_distance("", "abc", 10), 3);
	assert_int_equal(dtk_edit_distance("same", "same", 10), 0);
	assert_int_equal(dtk_edit_distance("abcdefgh", "z", 2), 3);
}

static void test_suggest(void **state)
{
	static const char *const keys[] = {"title", "claim", "confidence", "created"};
	(void)state;
	assert_string_equal(dtk_suggest("titel", keys, 4), "title");
	assert_string_equal(dtk_suggest("confidance", keys, 4), "confidence");
	assert_null(dtk_suggest("zzzzzz", keys, 4));
	assert_null(dtk_suggest("x", keys, 0));
	/* the same word in other case; the one name a word begins */
	{
		static const char *const confs[] = {"high", "medium", "low"};
		static const char *const nodes[] = {"async-distributed", "async-io", "collective"};
		assert_string_equal(dtk_suggest("HIGH", confs, 3), "high");
		assert_string_equal(dtk_suggest("async-distrib", nodes, 3), "async-distributed");
		assert_null(dtk_suggest("async", nodes, 3)); /* two begin with it */
		assert_null(dtk_suggest("as", nodes, 3));    /* too short to tell */
	}
}

static void test_is_name(void **state)
{
	(void)state;
	assert_true(dtk_is_name("collective-communication"));
	assert_true(dtk_is_name("a1"));
	assert_false(dtk_is_name("-a"));
	assert_false(dtk_is_name("A"));
	assert_false(dtk_is_name(""));
	assert_false(dtk_is_name("../etc"));
	assert_false(dtk_is_name("a b"));
}

/* Control characters escaped for a terminal; other text, UTF-8 included,
 * returned as it is (the same pointer when there is nothing to escape). */
static void test_esc(void **state)
{
	const char *plain = "通信图 a\\b é";
	const char *a, *b;
	(void)state;
	assert_ptr_equal(dtk_esc(plain), plain);
	assert_null(dtk_esc(NULL));
	assert_string_equal(dtk_esc("a\nb\rc\td"), "a\\nb\\rc\\td");
	assert_string_equal(dtk_esc("\033[2J\a\x7f"), "\\x1b[2J\\x07\\x7f");
	assert_string_equal(dtk_esc("x\xc2\x9by \xc2\xa0"),
	                    "x\\u009by \xc2\xa0"); /* CSI; NBSP kept */
	assert_string_equal(dtk_esc_text("line 1\nline\t2\033"), "line 1\nline\\t2\\x1b");
	assert_string_equal(dtk_esc("\xc2"), "\xc2");           /* a lone lead byte at the end */
	assert_string_equal(dtk_esc("a\xe4\xb8"), "a\xe4\xb8"); /* a character cut at the end */
	/* bytes of no character: stray, overlong, a surrogate, past U+10FFFF */
	assert_string_equal(dtk_esc("a\xff\x80"
	                            "b"),
	                    "a\\xff\\x80b");
	assert_string_equal(dtk_esc("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80."),
	                    "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80.");
	assert_string_equal(dtk_esc("\xe4\xb8x\xe4\xb8\xad"), "\\xe4\\xb8x\xe4\xb8\xad");
	/* invisible format characters (invisible.h); the joiners and CJK kept */
	assert_string_equal(dtk_esc("a\xe2\x80\xae"
	                            "b\xe2\x81\xa6"
	                            "c\xd8\x9c"),
	                    "a\\u202eb\\u2066c\\u061c");
	assert_string_equal(dtk_esc_text("x\xe2\x80\x8b\n\xef\xbb\xbf\xc2\xad"),
	                    "x\\u200b\n\\ufeff\\u00ad");
	assert_string_equal(dtk_esc("\xf3\xa0\x80\x81"
	                            "t"),
	                    "\\U000e0001t");
	plain = "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9 \xd9\x85\xe2\x80\x8c\xd9\x86 中文";
	assert_ptr_equal(dtk_esc(plain), plain);
	/* several in one call, each its own buffer */
	a = dtk_esc("1\n");
	b = dtk_esc("2\n");
	assert_string_equal(a, "1\\n");
	assert_string_equal(b, "2\\n");
}

/* dtk_buf_put_esc, which takes eight bytes at a step: a control character
 * at each place of a text of 30 bytes, its escape where it was; a span that
 * stops short of the text. */
static void test_buf_put_esc(void **state)
{
	static const char *const ctl[][2] = {{"\n", "\\n"},
	                                     {"\x01", "\\x01"},
	                                     {"\x7f", "\\x7f"},
	                                     {"\xc2\x85", "\\u0085"},
	                                     {"\xc2\xa0", "\xc2\xa0"},
	                                     {"\t", "\\t"},
	                                     {"\xe2\x80\xae", "\\u202e"},
	                                     {"\xe4\xb8\xad", "\xe4\xb8\xad"}};
	struct dtk_buf b = DTK_BUF_INIT, want = DTK_BUF_INIT;
	char text[64];
	size_t k, at;
	(void)state;
	for (k = 0; k < sizeof(ctl) / sizeof(*ctl); k++)
		for (at = 0; at < 29; at++) {
			snprintf(text, sizeof(text), "%.*s%s%.*s", (int)at,
			         "abcdefghijklmnopqrstuvwxyzABCD", ctl[k][0], (int)(29 - at),
			         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcd");
			b.len = want.len = 0;
			dtk_buf_put_esc(&b, text, strlen(text), 0);
			dtk_buf_printf(&want, "%.*s%s%.*s", (int)at,
			               "abcdefghijklmnopqrstuvwxyzABCD", ctl[k][1], (int)(29 - at),
			               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcd");
			assert_int_equal(b.len, want.len);
			assert_memory_equal(b.ptr, want.ptr, b.len);
			assert_string_equal(dtk_esc(text), want.ptr);
			b.len = 0; /* a newline kept */
			dtk_buf_put_esc(&b, text, strlen(text), 1);
			assert_int_equal(b.len, k ? want.len : strlen(text));
		}
	b.len = 0;
	dtk_buf_put_esc(&b,
	                "0123456789\x01"
	                "bc",
	                10, 0);
	dtk_buf_putc(&b, '\0');
	assert_string_equal(b.ptr, "0123456789");
	dtk_buf_release(&b);
	dtk_buf_release(&want);
}

static void test_error(void **state)
{
	(void)state;
	dtk_error_clear();
	assert_string_equal(dtk_error_last(), "unknown error");
	assert_int_equal(dtk_error("bad %d", 7), -1);
	assert_string_equal(dtk_error_last(), "bad 7");
}

/* Lines and columns as libyaml counts them: LF, CRLF and CR end a line, a
 * byte order mark is not counted, a column is a character. */
static void test_text_linecol(void **state)
{
	static const char t[] = "\xEF\xBB\xBF"
	                        "ab\r\n\xe4\xb8\x80"
	                        "x\ry\n";
	size_t len = sizeof(t) - 1, off;
	int line, col;
	(void)state;
	assert_int_equal(dtk_text_offset(t, len, 1, 1), 3);
	assert_int_equal(dtk_text_offset(t, len, 2, 2), 10); /* x, after a 3-byte character */
	assert_int_equal(dtk_text_offset(t, len, 3, 1), 12);
	assert_int_equal(dtk_text_offset(t, len, 9, 9), len); /* clamped */
	for (off = 3; off <= len; off++) {
		dtk_text_linecol(t, len, off, &line, &col);
		if (off == 6 || off == 8 || off == 9)
			continue; /* inside CRLF or the wide character */
		assert_int_equal(dtk_text_offset(t, len, line, col), off);
	}
	dtk_text_linecol(t, len, 9, &line, &col);
	assert_int_equal(line, 2), assert_int_equal(col, 1);
}

/* Offsets after edits map back: before an edit unchanged, inside the text it
 * adds to its start, after it shifted. */
static void test_splice_map_back(void **state)
{
	const struct dtk_edit e[] = {{2, 4, "XYZ", 3}, {6, 6, "++", 2}}; /* ab|cd|ef|gh */
	int in;
	(void)state;
	/* "abXYZef++gh" from "abcdefgh" */
	assert_int_equal(dtk_splice_map_back(e, 2, 1, &in), 1), assert_int_equal(in, 0);
	assert_int_equal(dtk_splice_map_back(e, 2, 3, &in), 2), assert_int_equal(in, 1);
	assert_int_equal(dtk_splice_map_back(e, 2, 5, &in), 4), assert_int_equal(in, 0);
	assert_int_equal(dtk_splice_map_back(e, 2, 8, &in), 6), assert_int_equal(in, 1);
	assert_int_equal(dtk_splice_map_back(e, 2, 9, &in), 6), assert_int_equal(in, 0);
	assert_int_equal(dtk_splice_map_back(e, 2, 11, &in), 8), assert_int_equal(in, 0);
}

/* dtk_invisible_find gives the first invisible character at each place of
 * texts of each length (before, in and past a block of 8 bytes), after
 * characters of the same lead bytes that are seen (U+2014, U+FF0C), and
 * none in a character cut at the end. */
static void test_invisible_find(void **state)
{
	char text[64];
	size_t n, p, len, i;
	int32_t cp;
	int seen;
	(void)state;
	for (seen = 0; seen < 3; seen++)
		for (n = 3; n < 40; n++)
			for (p = 0; p + 3 <= n; p++) {
				for (i = 0; i < n; i++)
					text[i] = (char)('a' + i % 26);
				if (seen > 0 && p >= 3)
					memcpy(text + p - 3, "\xe2\x80\x94", 3); /* U+2014 */
				if (seen > 1 && p >= 6)
					memcpy(text + p - 6, "\xef\xbc\x8c", 3); /* U+FF0C */
				memcpy(text + p, "\xe2\x80\x8b", 3);             /* U+200B */
				len = 0;
				assert_int_equal(dtk_invisible_find(text, n, &len, &cp), p);
				assert_int_equal(len, 3);
				assert_int_equal(cp, 0x200B);
				assert_int_equal(dtk_invisible_find(text, p + 2, &len, &cp), p + 2);
			}
	assert_int_equal(dtk_invisible_find("", 0, &len, &cp), 0);
	assert_int_equal(dtk_invisible_find("\xe4\xb8\xad\xe6\x96\x87\xc2\xad", 8, &len, &cp), 6);
	assert_int_equal(cp, 0xAD);
}

/* dtk_threads: DTK_THREADS, at most 8 and the parts, at least 1;
 * dtk_threads_run calls each part once, part 0 on the calling thread. */
static void S_count_part(void *arg, int i)
{
	__atomic_add_fetch(&((int *)arg)[i], 1, __ATOMIC_SEQ_CST);
}

static void test_threads(void **state)
{
	int calls[8] = {0}, i;
	(void)state;
	setenv("DTK_THREADS", "3", 1);
	assert_int_equal(dtk_threads(100), 3);
	assert_int_equal(dtk_threads(2), 2);
	assert_int_equal(dtk_threads(0), 1);
	setenv("DTK_THREADS", "0", 1);
	assert_int_equal(dtk_threads(100), 1);
	setenv("DTK_THREADS", "64", 1);
	assert_int_equal(dtk_threads(100), 8);
	unsetenv("DTK_THREADS");
	assert_true(dtk_threads(100) >= 1 && dtk_threads(100) <= 8);
	dtk_threads_run(8, S_count_part, calls);
	for (i = 0; i < 8; i++)
		assert_int_equal(calls[i], 1);
	dtk_threads_run(1, S_count_part, calls);
	assert_int_equal(calls[0], 2);
	assert_int_equal(calls[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_buf),
	        cmocka_unit_test(test_threads),
	        cmocka_unit_test(test_arena),
	        cmocka_unit_test(test_invisible_find),
	        cmocka_unit_test(test_siphash),
	        cmocka_unit_test(test_arena_reset),
	        cmocka_unit_test(test_diags_sorted_and_deduplicated),
	        cmocka_unit_test(test_edit_distance),
	        cmocka_unit_test(test_suggest),
	        cmocka_unit_test(test_is_name),
	        cmocka_unit_test(test_error),
	        cmocka_unit_test(test_esc),
	        cmocka_unit_test(test_buf_put_esc),
	        cmocka_unit_test(test_text_linecol),
	        cmocka_unit_test(test_splice_map_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
