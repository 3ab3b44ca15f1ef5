/* test_search.c: folding (NFKC + case folding), the file filter, and dtk
 * search through the binary: matching, ranking, formats, exit statuses. */
#include "dtk/kb.h"
#include "dtk/search.h"
#include "support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h> /* the reference the fast folding is checked against */

/* Returns s folded (malloc'd), failing the test on bad UTF-8. */
static char *S_fold(const char *s)
{
	size_t n;
	char *f = dtk_fold(s, strlen(s), &n, NULL);
	assert_non_null(f);
	assert_int_equal(strlen(f), n);
	return f;
}

static void S_folds_to(const char *s, const char *want)
{
	char *f = S_fold(s);
	assert_string_equal(f, want);
	free(f);
}

static void test_fold(void **state)
{
	(void)state;
	S_folds_to("ncclCommSplit", "ncclcommsplit");
	S_folds_to("ＮＣＣＬ", "nccl");            /* full-width: NFKC */
	S_folds_to("通信，图。", "通信,图。");     /* full-width comma too */
	S_folds_to("Straße", "strasse");           /* case folding, not lowering */
	S_folds_to("cafe\xcc\x81", "caf\xc3\xa9"); /* e + combining acute composes */
	S_folds_to("caf\xc3\xa9", "caf\xc3\xa9");
	S_folds_to("\xe3\x81\x8b\xe3\x82\x99", "\xe3\x81\x8c"); /* か + voiced mark = が */
	S_folds_to("soft\xc2\xadhyphen", "softhyphen");         /* ignorable dropped */
	S_folds_to("ﬁle", "file");                              /* ligature */
	S_folds_to("", "");
}

/* A search takes at most DTK_SEARCH_MAX_WORDS words of
 * DTK_SEARCH_MAX_BYTES in all: what it holds per source and does per
 * entry is bounded. */
static void test_search_bounded(void **state)
{
	const char *w[DTK_SEARCH_MAX_WORDS + 1];
	static char big[DTK_SEARCH_MAX_BYTES + 2];
	struct dtk_search *s;
	size_t i;
	(void)state;
	for (i = 0; i <= DTK_SEARCH_MAX_WORDS; i++)
		w[i] = "ab";
	s = dtk_search_new(w, DTK_SEARCH_MAX_WORDS);
	assert_non_null(s);
	dtk_search_free(s);
	assert_null(dtk_search_new(w, DTK_SEARCH_MAX_WORDS + 1));
	assert_non_null(strstr(dtk_error_last(), "at most 64 words"));
	memset(big, 'x', DTK_SEARCH_MAX_BYTES);
	w[0] = big;
	s = dtk_search_new(w, 1);
	assert_non_null(s);
	dtk_search_free(s);
	big[DTK_SEARCH_MAX_BYTES] = 'x';
	assert_null(dtk_search_new(w, 1));
}

static void test_fold_bad_utf8(void **state)
{
	size_t n;
	(void)state;
	assert_null(dtk_fold("a\xff", 2, &n, NULL));
	assert_null(dtk_fold("\xe4\xb8", 2, &n, NULL));
	assert_null(dtk_fold("\xed\xa0\x80", 3, &n, NULL)); /* a surrogate */
}

static void test_fold_map(void **state)
{
	size_t n, *map = NULL;
	char *f;
	(void)state;
	f = dtk_fold("ＡbＣ", strlen("ＡbＣ"), &n, &map);
	assert_string_equal(f, "abc");
	assert_int_equal(map[0], 0);
	assert_int_equal(map[1], 3);
	assert_int_equal(map[2], 4);
	assert_int_equal(map[3], 7);
	free(f);
	free(map);
	f = dtk_fold("Stra\xc3\x9f"
	             "e",
	             7, &n, &map); /* the slow way: ß gives two bytes */
	assert_string_equal(f, "strasse");
	assert_int_equal(map[4], 4);
	assert_int_equal(map[5], 4);
	assert_int_equal(map[6], 6);
	assert_int_equal(map[7], 7);
	free(f);
	free(map);
}

/* Checks that dtk_fold gives what utf8proc's own NFKC and case folding of
 * the whole text gives; with_map, dtk_fold with a map too (which composes
 * nothing: only for texts where nothing composes). */
static void S_fold_as_utf8proc(const char *s, int with_map)
{
	utf8proc_uint8_t *want = NULL;
	utf8proc_ssize_t n =
	        utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)strlen(s), &want,
	                     UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
	                             UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
	size_t len, *map = NULL;
	char *f;

	assert_true(n >= 0);
	f = dtk_fold(s, strlen(s), &len, NULL);
	assert_non_null(f);
	assert_string_equal(f, (const char *)want);
	free(f);
	if (!with_map)
		goto done;
	f = dtk_fold(s, strlen(s), &len, &map);
	assert_non_null(f);
	assert_string_equal(f, (const char *)want);
	assert_int_equal(map[len], strlen(s));
	free(f);
	free(map);
done:
	free(want);
}

/* The fast ways of folding (eight ASCII bytes at a step, CJK ideographs
 * copied without a look-up, characters folded one by one) against
 * utf8proc's folding of the whole text. */
static void test_fold_fast_paths(void **state)
{
	char all[160], buf[64];
	int i, cp;
	(void)state;
	for (i = 1; i < 128; i++) /* every ASCII byte, '@' '[' '`' '{' beside the letters */
		all[i - 1] = (char)i;
	all[127] = '\0';
	S_fold_as_utf8proc(all, 1);
	S_fold_as_utf8proc("NCCLCommSplit ALLREDUCE@[`{ AZaz 0123456789", 1);
	S_fold_as_utf8proc("ＮＣＣＬ ＡＬＬＲＥＤＵＣＥ ｐｉｐｅｌｉｎｅ", 1); /* full-width */
	S_fold_as_utf8proc("\xef\xac\x81le \xef\xac\x80 office", 1);           /* ligatures */
	S_fold_as_utf8proc("\xe2\x84\xaa"
	                   "ELVIN \xe2\x84\xa6 \xc5\xbf"
	                   "MALL STRASSE Stra\xc3\x9f"
	                   "e",
	                   1);
	S_fold_as_utf8proc("张量并行，通信；流水线。 Pipeline BUBBLE 的 ＲＡＮＫ 一丁丂七", 1);
	S_fold_as_utf8proc(
	        "\xe4\x80\x80\xe9\xbf\xbf\xe3\x90\x80\xea\xb0\x80 CAFE\xcc\x81 SOFT\xc2\xad"
	        "HYPHEN",
	        0);
	S_fold_as_utf8proc("ABCDEFG\xe4\xb8\x80HIJKLMNOPQRSTUVWXYZ\xe4\xb8\x80"
	                   "abcdefgh\xe3\x81\x8b\xe3\x82\x99",
	                   0);
	/* runs of CJK ideographs (taken two at a step) broken at each place
	 * by a character that is not one: ASCII, a full-width comma (folded
	 * to ','), kana (E3), Hangul (EA), é, a combining accent, the edges
	 * of the range (U+3FFF, U+A000) and beside it characters that fold to
	 * others (U+A640, U+3131) */
	{
		static const char *const other[] = {
		        "A",        "\xef\xbc\x8c", "\xe3\x81\x8b", "\xea\xb0\x80", "\xc3\x89",
		        "\xcc\x81", "\xe3\xbf\xbf", "\xea\x80\x80", "\xea\x99\x80", "\xe3\x84\xb1"};
		char run[128];
		size_t o, at, k;
		for (o = 0; o < sizeof(other) / sizeof(*other); o++)
			for (at = 0; at < 12; at++) {
				run[0] = '\0';
				for (k = 0; k < 12; k++)
					strcat(run, k == at ? other[o]
					            : k % 2 ? "\xe4\xb8\x80"
					                    : "\xe9\xbf\xbf");
				S_fold_as_utf8proc(run, 0);
			}
	}
	/* each of U+4000..U+9FFF folds to itself and composes with nothing:
	 * what lets the fast way copy them without a look-up */
	for (cp = 0x4000; cp <= 0x9fff; cp++) {
		const utf8proc_property_t *p = utf8proc_get_property(cp);
		utf8proc_uint8_t enc[4];
		utf8proc_ssize_t n = utf8proc_encode_char(cp, enc);
		assert_int_equal(n, 3);
		assert_int_equal(p->combining_class, 0);
		assert_int_equal(p->comb_index, UINT16_MAX);
		assert_int_equal(p->decomp_type, 0);
		assert_int_equal(p->casefold_seqindex, UINT16_MAX);
		snprintf(buf, sizeof(buf), "A%.3s\xcc\x81%.3sＫ", (const char *)enc,
		         (const char *)enc);
		S_fold_as_utf8proc(buf, 0); /* U+0301: the map composes nothing */
	}
}

static void test_words(void **state)
{
	const char *w[] = {"ＴＰ", "\xc2\xad", "ok\xff"};
	struct dtk_search *s;
	const char *const *words;
	size_t n;
	(void)state;
	s = dtk_search_new(w, 1);
	assert_non_null(s);
	words = dtk_search_words(s, &n);
	assert_int_equal(n, 1);
	assert_string_equal(words[0], "tp");
	dtk_search_free(s);
	assert_null(dtk_search_new(w, 2)); /* folds to nothing */
	assert_null(dtk_search_new(w + 2, 1));
}

static void test_file_filter(void **state)
{
	const char *w[] = {"rank", "通信"};
	const char *yes = "insights:\n  - title: ＲＡＮＫ and 通信\n", *no = "insights: [rank]\n";
	struct dtk_search *s = dtk_search_new(w, 2);
	(void)state;
	assert_int_equal(dtk_search_file_may_match(s, yes, strlen(yes)), 1);
	assert_int_equal(dtk_search_file_may_match(s, no, strlen(no)), 0);
	/* a word the bytes hold only once folded: the file is parsed */
	const char *w2[] = {"file", "kelvin"};
	struct dtk_search *s2 = dtk_search_new(w2, 2);
	const char *lig = "title: \xef\xac\x81le \xe2\x84\xaa"
	                  "ELVIN\n";
	assert_int_equal(dtk_search_file_may_match(s2, lig, strlen(lig)), 1);
	assert_int_equal(dtk_search_file_may_match(s2, "title: file\n", 12), 0);
	dtk_search_free(s2);
	/* a folded line break between two wide characters joins them */
	const char *w3[] = {"温度和"};
	const char *folded = "claim: >-\n  温度  \r\n   和\n";
	s2 = dtk_search_new(w3, 1);
	assert_int_equal(dtk_search_file_may_match(s2, folded, strlen(folded)), 1);
	assert_int_equal(dtk_search_file_may_match(s2, "claim: 温度 和\n", 18), 0);
	dtk_search_free(s2);
	/* an escape may hide a word: such a file is parsed */
	assert_int_equal(dtk_search_file_may_match(s, "\"\\u901a\"", 8), 1);
	dtk_search_free(s);
}

/* ---- the command ---- */

static const char S_gamma[] =
        "node: gamma\n"
        "bloom: remember\n"
        "insights:\n"
        "  - {id: gamma-001, title: Pipeline bubble, claim: x, confidence: low,\n"
        "     source: paper-a, created: 2026-01-01}\n"
        "  - {id: gamma-002, title: other, claim: pipeline bubble, confidence: high,\n"
        "     source: paper-a, verified_by: [paper-b, docs-d], created: 2026-01-01}\n"
        "  - {id: gamma-003, title: pipeline, claim: bubble, confidence: medium,\n"
        "     source: paper-a, created: 2026-03-01}\n"
        "  - {id: gamma-004, title: pipeline, claim: bubble, confidence: medium,\n"
        "     source: paper-a, created: 2026-04-01}\n"
        "  - {id: gamma-005, title: pipeline, claim: bubble, confidence: medium,\n"
        "     source: paper-a, created: 2026-04-01}\n"
        "  - {id: gamma-006, title: ncclCommSplit 省开销, claim: 按 color 划分 NCCL,\n"
        "     confidence: low, source: docs-d, created: 2026-01-01}\n"
        "  - id: gamma-007\n"
        "    title: \xe2\x84\xaa"
        "elvin \xef\xac\x81le\n" /* Kelvin sign, ligature */
        "    claim: >-\n"
        "      The SCALE of 温度\n"
        "      和 ｓｃａｌｅ\n"
        "    confidence: low\n"
        "    source: docs-d\n"
        "    verified_by: [paper-a]\n"
        "    created: 2026-01-01\n"
        "    relates: [gamma-001, alpha-001]\n";

static char *S_base(void)
{
	char *dir = t_base();
	t_write_str(dir, "insights/gamma.yaml", S_gamma);
	return dir;
}

static void S_ids(const char *dir, const char *want, ...)
{
	struct t_run r;
	va_list ap;
	const char *args[8];
	int n = 0;

	va_start(ap, want);
	while (n < 7 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	t_dtk(&r, dir, NULL, "search", "--format", "ids", n > 0 ? args[0] : NULL,
	      n > 1 ? args[1] : NULL, n > 2 ? args[2] : NULL, n > 3 ? args[3] : NULL,
	      n > 4 ? args[4] : NULL, NULL);
	assert_string_equal(r.out, want);
	assert_int_equal(r.status, *want ? 0 : 1);
	assert_string_equal(r.err, "");
	t_run_free(&r);
}

static void test_search_matches(void **state)
{
	char *dir = S_base();
	(void)state;
	S_ids(dir, "gamma-006\n", "ncclcommsplit", NULL);
	S_ids(dir, "gamma-006\n", "ＮＣＣＬ", NULL);         /* NFKC */
	S_ids(dir, "gamma-006\n", "开销", NULL);             /* CJK as a substring */
	S_ids(dir, "beta-001\n", "TENSOR", "延迟", NULL);    /* AND over title and claim */
	S_ids(dir, "", "tensor", "bubble", NULL);            /* no entry holds both */
	S_ids(dir, "gamma-006\n", "gamma-006", NULL);        /* the id */
	S_ids(dir, "alpha-001\nbeta-002\n", "SEQUEL", NULL); /* a source's title */
	S_ids(dir, "", "zzz", NULL);
	t_done(dir);
}

static void test_search_ranking(void **state)
{
	char *dir = S_base();
	(void)state;
	/* title hits, then claim hits, then confidence, then freshness, then
	 * listing order */
	S_ids(dir, "gamma-001\ngamma-004\ngamma-005\ngamma-003\ngamma-002\n", "pipeline", "bubble",
	      NULL);
	S_ids(dir, "gamma-001\ngamma-004\n", "pipeline", "bubble", "--limit", "2", NULL);
	S_ids(dir, "gamma-004\ngamma-005\ngamma-003\n", "pipeline", "bubble", "--confidence",
	      "medium", NULL);
	S_ids(dir, "", "pipeline", "--node", "beta", NULL);
	S_ids(dir, "beta-001\n", "tensor", "--node", "beta", NULL);
	t_done(dir);
}

/* An entry whose source is missing or no name: search of a word that a
 * source's title holds says what is wrong (exit 2), as check does, and
 * never looks the missing source up. */
static void test_search_source_missing(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "sed -i '11s/source: paper-a/source: x_y/' insights/alpha.yaml && "
	                      "sed -i '22d' insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "search", "sequel", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "insights/alpha.yaml:11:"));
	t_run_free(&r);
	t_done(dir);
}

static void test_search_formats(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "search", "ncclcommsplit", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gamma-006  low  2026-01-01  ncclCommSplit 省开销\n"
	                           "    按 color 划分 NCCL\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "--color", "always", "ＮＣＣＬ", "comm", NULL);
	assert_string_equal(r.out, "gamma-006  low  2026-01-01  \033[1;31mncclComm\033[0mSplit "
	                           "省开销\n    按 color 划分 \033[1;31mNCCL\033[0m\n");
	t_run_free(&r);
	t_dtk(&r, dir, "NO_COLOR=1", "search", "nccl", NULL);
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "-f", "json", "tensor", NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "[\n  {\n    \"id\": \"beta-001\",\n", 28);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "-f", "jsonl", "pipeline", "--limit", "1", NULL);
	assert_memory_equal(r.out, "{\"id\": \"gamma-004\",", 19);
	assert_int_equal(strchr(r.out, '\n') - r.out, strlen(r.out) - 1);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "-f", "json", "zzz", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "[]\n");
	t_run_free(&r);
	t_done(dir);
}

/* Titles and claims are borrowed from the parse and only the hits' kept:
 * what is shown is the hit's own text, found through its folded form. */
static void test_search_kept_text(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	S_ids(dir, "gamma-007\n", "KELVIN", "file", NULL);
	S_ids(dir, "gamma-007\n", "ＫＥＬＶＩＮ", "温度和", NULL); /* the fold joins 度 和 */
	t_dtk(&r, dir, NULL, "search", "kelvin", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gamma-007  low  2026-01-01  \xe2\x84\xaa"
	                           "elvin \xef\xac\x81le\n    The SCALE of 温度和 ｓｃａｌｅ\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "-f", "jsonl", "scale", "NCCL", NULL);
	assert_int_equal(r.status, 1);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "-f", "jsonl", "scale", NULL);
	assert_int_equal(r.status, 0);
	/* the lists borrowed from the parse, kept for the hit */
	assert_non_null(strstr(r.out, "\"verified_by\": [{\"id\": \"paper-a\", \"title\": "
	                              "\"Paper A\", \"url\": \"https://example.org/a\"}]"));
	assert_non_null(strstr(r.out, "\"relates\": [\"gamma-001\", \"alpha-001\"]"));
	assert_non_null(strstr(r.out, "\"title\": \"\xe2\x84\xaa"
	                              "elvin \xef\xac\x81le\", \"claim\": \"The SCALE of "
	                              "温度和 ｓｃａｌｅ\""));
	t_run_free(&r);
	t_done(dir);
}

static void test_search_bad_input(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "search", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk search: error: nothing to search for: give one or more "
	                           "words\nsee 'dtk search --help'\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "x", "--limit", "0", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--limit must be a positive number, not '0'"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "x", "--confidence", "HIGH", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "x", "--format", "yaml", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "x", "--bogus", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk search: error: unknown option '--bogus'\n"
	                           "see 'dtk search --help'\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "x", "--node", "alpah", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no node 'alpah'"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "\xc2\xad", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	/* an entry without a title: its error, exit 2 */
	t_write_str(dir, "insights/beta.yaml",
	            "node: beta\nbloom: apply\ninsights:\n  - id: beta-001\n    claim: words\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n");
	t_dtk(&r, dir, NULL, "search", "words", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "insights/beta.yaml:4:5: error: entry is missing required "
	                              "key 'title'"));
	t_run_free(&r);
	/* a node file that holds the words and is invalid: its errors, exit 2 */
	t_write_str(dir, "insights/beta.yaml", "node: beta\nbloom: nope\ninsights: []\n");
	t_dtk(&r, dir, NULL, "search", "beta", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "insights/beta.yaml:2:8: error:"));
	t_run_free(&r);
	t_done(dir);
}

/* Text output escapes the data's control characters, as show and list do:
 * an escape sequence, a carriage return or a C1 control in a title or a
 * claim cannot reach the terminal; a claim's further lines are indented. */
static void test_search_escapes_text(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\ninsights:\n  - id: gamma-001\n"
	            "    title: \"evil\\e[31mred\\rtitle\"\n"
	            "    claim: \"c\\e]0;pwned\\a x\\nline2 forged\\N\\ttab\"\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n");
	t_dtk(&r, dir, NULL, "search", "evil", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gamma-001  low  2026-01-01  evil\\x1b[31mred\\rtitle\n"
	                           "    c\\x1b]0;pwned\\x07 x\n    line2 forged\\u0085\\ttab\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "--color", "always", "forged", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gamma-001  low  2026-01-01  evil\\x1b[31mred\\rtitle\n"
	                           "    c\\x1b]0;pwned\\x07 x\n    line2 \033[1;31mforged\033[0m"
	                           "\\u0085\\ttab\n");
	t_run_free(&r);
	t_done(dir);
}

/* Highlighting finds the words wherever the search did: in a text that also
 * holds a character whose folding depends on its neighbours (İ), a
 * full-width word still shows; a decomposed é matches a composed one. */
static void test_search_highlights_folded_text(void **state)
{
	char *dir = S_base();
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\ninsights:\n  - id: gamma-001\n"
	            "    title: ＮＣＣＬ \xc4\xb0\n"
	            "    claim: e\xcc\x81"
	            "cole\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n");
	t_dtk(&r, dir, NULL, "search", "--color", "always", "nccl",
	      "\xc3\xa9"
	      "cole",
	      NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
	                    "gamma-001  low  2026-01-01  \033[1;31mＮＣＣＬ\033[0m \xc4\xb0\n"
	                    "    \033[1;31me\xcc\x81"
	                    "cole\033[0m\n");
	t_run_free(&r);
	/* but an e is not marked inside an é, which the search does not match */
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\ninsights:\n  - id: gamma-001\n"
	            "    title: caf\xc3\xa9 cafe\n    claim: x\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n");
	t_dtk(&r, dir, NULL, "search", "--color", "always", "e", "--node", "gamma", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gamma-001  low  2026-01-01  caf\xc3\xa9 caf\033[1;31me\033[0m\n"
	                           "    x\n");
	t_run_free(&r);
	t_done(dir);
}

/* The text of each hit is made while its node loads (on the loading
 * threads) unless --limit is given (then after the ranking): both ways show
 * the same bytes, marks, filters and ties in the same order. */
static void test_search_text_made_while_loading(void **state)
{
	static const char *const args[][3] = {{"pipeline", NULL, NULL},
	                                      {"pipeline", "--confidence", "medium"},
	                                      {"a", NULL, NULL},
	                                      {"ＮＣＣＬ", "comm", NULL}};
	char *dir = S_base();
	struct t_run r, lim;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(args) / sizeof(*args); i++) {
		t_dtk(&r, dir, NULL, "search", "--color", "always", args[i][0], args[i][1],
		      args[i][2], NULL);
		t_dtk(&lim, dir, NULL, "search", "--color", "always", "--limit", "1000", args[i][0],
		      args[i][1], args[i][2], NULL);
		assert_int_equal(r.status, 0);
		assert_true(strlen(r.out) > 0);
		assert_string_equal(r.out, lim.out);
		assert_int_equal(r.status, lim.status);
		t_run_free(&r);
		t_run_free(&lim);
	}
	t_done(dir);
}

/* Words of ASCII letters and digits are looked for in the text made small
 * where no character may fold into or out of them: each character here
 * folds to ASCII letters or digits, or joins or parts them, at each place of
 * 40 bytes of text (a run of 16 bytes at a step). */
static void test_search_alnum_words(void **state)
{
	/* a text, and the word it holds folded ("" none) and one it does not */
	static const char *const texts[][3] = {
	        {"\xef\xac\x81le", "file", "fle"}, /* ﬁ ligature */
	        {"fi\xef\xbc\x8cle", "", "file"},  /* full-width comma */
	        {"x\xef\xbd\x99z", "xyz", "xz"},   /* full-width y */
	        {"cafe\xcc\x81", "caf", "cafe"},   /* e and an accent: é */
	        {"x\xc2\xb2", "x2", "x3"},         /* superscript two */
	        {"a\xc2\xad"
	         "b",
	         "ab", "ba"},                  /* soft hyphen, ignored */
	        {"\xe2\x85\xab", "xii", "x1"}, /* Roman numeral twelve */
	        {"\xe2\x84\xaa"
	         "elvin",
	         "kelvin", "elvinx"},                       /* Kelvin sign */
	        {"\xc4\xb0stanbul", "stanbul", "istanbul"}, /* İ: i and a dot */
	        {"ab\xe4\xb8\x80"
	         "cd",
	         "ab", "abcd"}, /* an ideograph parts */
	        {"ab\xe3\x80\x81"
	         "cd",
	         "cd", "abcd"}, /* 、 parts */
	};
	struct dtk_buf yaml = DTK_BUF_INIT, want = DTK_BUF_INIT;
	char *dir = S_base();
	struct t_run r;
	size_t t, at, k;
	(void)state;
	for (t = 0; t < sizeof(texts) / sizeof(*texts); t++) {
		yaml.len = want.len = 0;
		dtk_buf_puts(&yaml, "node: gamma\nbloom: remember\ninsights:\n");
		for (at = 0; at < 80 && *texts[t][1]; at++) /* the title hits first */
			if ((at < 40) == (at % 40 % 3 != 0))
				dtk_buf_printf(&want, "gamma-%03zu\n", at % 40 + 1);
		for (at = 0; at < 40; at++) {
			dtk_buf_printf(&yaml, "  - id: gamma-%03zu\n    title: \"", at + 1);
			for (k = 0; k < at; k++)
				dtk_buf_putc(&yaml, at % 2 ? 'Q' : '.');
			dtk_buf_printf(&yaml,
			               "%s\"\n    claim: \"%s%s\"\n    confidence: low\n    "
			               "source: paper-a\n    created: 2026-01-01\n",
			               at % 3 ? texts[t][0] : "-", at % 3 ? "-" : texts[t][0],
			               at % 5 ? "" : " tail of the claim");
		}
		t_write_str(dir, "insights/gamma.yaml", yaml.ptr);
		if (*texts[t][1])
			S_ids(dir, want.ptr, texts[t][1], "--node", "gamma", NULL);
		S_ids(dir, "", texts[t][2], "--node", "gamma", NULL);
	}
	/* a word of letters and digits found in one place, counted in the
	 * title and in the claim as the folded text has it */
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\ninsights:\n"
	            "  - id: gamma-001\n    title: \"a \xef\xac\x81le\"\n    claim: x\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n"
	            "  - id: gamma-002\n    title: x\n    claim: \"FILE\"\n"
	            "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n");
	t_dtk(&r, dir, NULL, "search", "--format", "ids", "file", "--node", "gamma", NULL);
	assert_string_equal(r.out, "gamma-001\ngamma-002\n"); /* the title hit first */
	t_run_free(&r);
	dtk_buf_release(&yaml);
	dtk_buf_release(&want);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fold),
	        cmocka_unit_test(test_fold_bad_utf8),
	        cmocka_unit_test(test_search_bounded),
	        cmocka_unit_test(test_fold_map),
	        cmocka_unit_test(test_fold_fast_paths),
	        cmocka_unit_test(test_words),
	        cmocka_unit_test(test_file_filter),
	        cmocka_unit_test(test_search_matches),
	        cmocka_unit_test(test_search_ranking),
	        cmocka_unit_test(test_search_formats),
	        cmocka_unit_test(test_search_kept_text),
	        cmocka_unit_test(test_search_bad_input),
	        cmocka_unit_test(test_search_escapes_text),
	        cmocka_unit_test(test_search_highlights_folded_text),
	        cmocka_unit_test(test_search_text_made_while_loading),
	        cmocka_unit_test(test_search_alnum_words),
	        cmocka_unit_test(test_search_source_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
