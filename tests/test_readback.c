/* test_readback.c: what every write command writes reads back as what it was
 * given: text holding YAML's document markers ("---", "...") and other
 * hostile text, in every text field of every write command, single-line and
 * of several lines, in LF and CRLF files; the loader reads the value back
 * and every byte of the file outside the edit is kept (byte comparisons).
 * And a scalar that would not read back is refused, nothing written. */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/yedit.h"

#include <stdlib.h>
#include <string.h>

/* Text that a writer could spoil: YAML's document markers at either end,
 * alone, with or without text around them, and other indicators. */
static const char *const S_lines[] = {"wait ...",  "Pipeline stages ...",
                                      "...",       "... wait",
                                      "---",       "--- x",
                                      "x ---",     "a ... b",
                                      "a --- b",   " ...",
                                      "... ",      "....",
                                      "-----",     "...x",
                                      "x...",      "'...'",
                                      "\"...\"",   "...:",
                                      "- ...",     "? ...",
                                      "[...]",     "a # ...",
                                      "…",         "a\t...",
                                      "%...",      "&...",
                                      "*...",      "!...",
                                      "|...",      ">...",
                                      "wait ... ", "中文...",
                                      "...中文",   NULL};
/* The same, of several lines (where a field takes them). */
static const char *const S_multi[] = {"a\n...",     "...\na",          "a\n---\nb",    "a\n...\n",
                                      "a\n...\n\n", "---\n...",        "x ...\ny ---", "  ...\n...",
                                      "a\n\n...",   "中文\n...\n中文", "a\r\n...",     NULL};

enum field {
	F_TITLE,
	F_CLAIM,
	F_FROM, /* add --from: title and claim */
	F_SOURCE_TITLE,
	F_CONTRADICT_NOTE,
	F_RESOLVE_NOTE,
	F_STANCE,
	F_CATEGORY,
	F_EDIT_TITLE,
	F_EDIT_CLAIM,
	F_EDIT_SOURCE, /* edit-source --title */
	F_RETRACT,     /* retract --reason */
	F_COUNT
};
static const char *const S_field_names[F_COUNT] = {"add --title",
                                                   "add --claim",
                                                   "add --from",
                                                   "add-source --title",
                                                   "contradict --note",
                                                   "resolve --note",
                                                   "stance",
                                                   "add-node --category",
                                                   "edit --title",
                                                   "edit --claim",
                                                   "edit-source --title",
                                                   "retract --reason"};
/* The file each field's command edits or adds to. */
static const char *const S_field_files[F_COUNT] = {
        "insights/beta.yaml",     "insights/beta.yaml",     "insights/beta.yaml",
        "insights/_sources.yaml", "insights/beta.yaml",     "insights/beta.yaml",
        "insights/beta.yaml",     "insights/_domain.yaml",  "insights/beta.yaml",
        "insights/beta.yaml",     "insights/_sources.yaml", "insights/beta.yaml"};

/* Converts every line break of dir/rel to CRLF. */
static void S_crlf(const char *dir, const char *rel)
{
	size_t len, i;
	char *t = t_read(dir, rel, &len);
	struct dtk_buf b = DTK_BUF_INIT;
	for (i = 0; i < len; i++) {
		if (t[i] == '\n' && (i == 0 || t[i - 1] != '\r'))
			dtk_buf_putc(&b, '\r');
		dtk_buf_putc(&b, t[i]);
	}
	t_write(dir, rel, b.ptr, b.len);
	dtk_buf_release(&b);
	free(t);
}

/* Fails unless every byte of old is kept in new: new is old with text put
 * in at one place (its common prefix and suffix cover all of old), or,
 * when change is set, with old[change_from, change_to) the only bytes gone. */
static void S_kept(const char *old, size_t ol, const char *new_, size_t nl, const char *what)
{
	size_t pre = 0, suf = 0;
	while (pre < ol && pre < nl && old[pre] == new_[pre])
		pre++;
	while (suf < ol - pre && suf < nl - pre && old[ol - 1 - suf] == new_[nl - 1 - suf])
		suf++;
	if (pre + suf < ol)
		print_error("%s: bytes of the file changed (%zu of %zu kept)\n", what, pre + suf,
		            ol);
	assert_true(pre + suf >= ol);
}

/* Runs the command that writes v into field f in dir; returns the id of the
 * entry added (add), else NULL (malloc'd). */
static char *S_write(const char *dir, enum field f, const char *v)
{
	struct t_run r;
	char *id = NULL;

	switch (f) {
	case F_TITLE:
		RUN(r, dir, 0, "add", "beta", "--title", v, "--claim", "c", "--source", "paper-a",
		    "--confidence", "low");
		break;
	case F_CLAIM:
		RUN(r, dir, 0, "add", "beta", "--title", "t", "--claim", v, "--source", "paper-a",
		    "--confidence", "low");
		break;
	case F_FROM: {
		struct dtk_buf b = DTK_BUF_INIT;
		struct dtk_json j;
		dtk_json_init(&j, &b);
		dtk_json_object(&j);
		dtk_json_kstring(&j, "title", v);
		dtk_json_kstring(&j, "claim", v);
		dtk_json_kstring(&j, "source", "paper-a");
		dtk_json_kstring(&j, "confidence", "low");
		dtk_json_end(&j, '}');
		t_write(dir, "from.json", b.ptr, b.len);
		dtk_buf_release(&b);
		RUN(r, dir, 0, "add", "beta", "--from", "from.json");
		break;
	}
	case F_SOURCE_TITLE: RUN(r, dir, 0, "add-source", "--title", v, "zz-src"); break;
	case F_CONTRADICT_NOTE:
		RUN(r, dir, 0, "contradict", "--note", v, "beta-002", "alpha-002");
		break;
	case F_RESOLVE_NOTE:
		RUN(r, dir, 0, "contradict", "--note", "n", "beta-002", "alpha-002");
		t_run_free(&r);
		RUN(r, dir, 0, "resolve", "--note", v, "beta-002", "alpha-002");
		break;
	case F_STANCE: RUN(r, dir, 0, "stance", "beta", "--", v); break;
	case F_CATEGORY: RUN(r, dir, 0, "add-node", "--category", v, "zz-node"); break;
	case F_EDIT_TITLE: RUN(r, dir, 0, "edit", "--title", v, "beta-002"); break;
	case F_EDIT_CLAIM: RUN(r, dir, 0, "edit", "--claim", v, "beta-002"); break;
	case F_EDIT_SOURCE: RUN(r, dir, 0, "edit-source", "--title", v, "paper-b"); break;
	case F_RETRACT: RUN(r, dir, 0, "retract", "--reason", v, "beta-002"); break;
	default: fail();
	}
	if (f <= F_FROM) {
		id = dtk_xstrdup(r.out);
		id[strcspn(id, "\n")] = '\0';
	}
	t_run_free(&r);
	return id;
}

/* Returns what the loader reads in field f (id: the entry added). */
static const char *S_read(const struct dtk_kb *kb, enum field f, const char *id, int second)
{
	const struct dtk_entry *e = id ? dtk_kb_entry(kb, id) : dtk_kb_entry(kb, "beta-002");
	size_t i;

	switch (f) {
	case F_TITLE: return e ? e->title : NULL;
	case F_CLAIM: return e ? e->claim : NULL;
	case F_EDIT_TITLE: return e ? e->title : NULL;
	case F_EDIT_CLAIM: return e ? e->claim : NULL;
	case F_RETRACT: return e ? e->retracted_reason : NULL;
	case F_EDIT_SOURCE:
		for (i = 0; i < kb->n_sources; i++)
			if (!strcmp(kb->sources[i].id, "paper-b"))
				return kb->sources[i].title;
		return NULL;
	case F_FROM: return e ? (second ? e->claim : e->title) : NULL;
	case F_SOURCE_TITLE:
		for (i = 0; i < kb->n_sources; i++)
			if (!strcmp(kb->sources[i].id, "zz-src"))
				return kb->sources[i].title;
		return NULL;
	case F_CONTRADICT_NOTE:
	case F_RESOLVE_NOTE: return e && e->n_contradicts ? e->contradicts[0].note : NULL;
	case F_STANCE: return dtk_kb_node(kb, "beta") ? dtk_kb_node(kb, "beta")->stance : NULL;
	case F_CATEGORY:
		for (i = 0; i < kb->n_categories; i++)
			if (kb->categories[i].n_nodes == 1 &&
			    !strcmp(kb->categories[i].nodes[0].id, "zz-node"))
				return kb->categories[i].name;
		return NULL;
	default: return NULL;
	}
}

/* Writes v into field f of a fresh base (CRLF files when crlf) and checks
 * the read-back and the bytes kept. */
static void S_one(enum field f, const char *v, int crlf)
{
	char *dir = t_base(), *old, *new_, *id;
	const char *file = S_field_files[f];
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	size_t ol, nl;
	int k;

	if (crlf)
		S_crlf(dir, file);
	old = t_read(dir, file, &ol);
	id = S_write(dir, f, v);
	new_ = t_read(dir, file, &nl);
	{
		char what[200];
		snprintf(what, sizeof(what), "%s '%s'%s", S_field_names[f], dtk_esc(v),
		         crlf ? " (CRLF)" : "");
		if (f != F_RESOLVE_NOTE && f != F_STANCE && f < F_EDIT_TITLE)
			S_kept(old, ol, new_, nl, what);
		assert_int_equal(
		        dtk_kb_load(&kb,
		                    &(struct dtk_kb_load_opts){.root = dir, .what = DTK_KB_ALL},
		                    &diags),
		        0);
		for (k = 0; k < (f == F_FROM ? 2 : 1); k++) {
			const char *got = S_read(kb, f, id, k);
			if (!got || strcmp(got, v))
				print_error("%s read back as '%s'\n", what,
				            got ? dtk_esc(got) : "(none)");
			assert_non_null(got);
			assert_string_equal(got, v);
		}
	}
	dtk_kb_free(kb);
	dtk_diags_release(&diags);
	free(id);
	free(old);
	free(new_);
	t_done(dir);
}

static void test_document_markers_read_back_in_every_field(void **state)
{
	int f, i;
	(void)state;
	for (f = 0; f < F_COUNT; f++)
		for (i = 0; S_lines[i]; i++)
			S_one((enum field)f, S_lines[i], 0);
}

static void test_lines_read_back_in_every_field(void **state)
{
	int f, i;
	(void)state;
	for (f = 0; f < F_COUNT; f++) {
		if (f == F_SOURCE_TITLE || f == F_CATEGORY || f == F_EDIT_SOURCE)
			continue; /* names of one line (see below) */
		for (i = 0; S_multi[i]; i++)
			S_one((enum field)f, S_multi[i], 0);
	}
}

static void test_crlf_files_read_back(void **state)
{
	int f, i;
	(void)state;
	for (f = 0; f < F_COUNT; f++)
		for (i = 0; i < 6; i++) {
			S_one((enum field)f, S_lines[i], 1);
			if (f != F_SOURCE_TITLE && f != F_CATEGORY && f != F_EDIT_SOURCE)
				S_one((enum field)f, S_multi[i], 1);
		}
}

/* A source title and a category name of several lines read back too. */
static void test_names_of_several_lines(void **state)
{
	(void)state;
	S_one(F_SOURCE_TITLE, "a\n...", 0);
	S_one(F_CATEGORY, "...\na", 0);
}

/* Text the file already holds with document markers, plain, quoted, folded
 * and literal, is kept byte for byte by an edit beside it and read as
 * written. */
static void test_markers_in_the_file_are_kept(void **state)
{
	static const char text[] = "node: beta\n"
	                           "bloom: apply\n"
	                           "insights:\n"
	                           "  - id: beta-001\n"
	                           "    title: wait ...\n"
	                           "    claim: >-\n"
	                           "      Pipeline stages\n"
	                           "      ...\n"
	                           "    confidence: low\n"
	                           "    source: paper-a\n"
	                           "    created: 2026-01-01\n"
	                           "  - id: beta-002\n"
	                           "    title: 'x ---'\n"
	                           "    claim: |-\n"
	                           "      a\n"
	                           "      ...\n"
	                           "      ---\n"
	                           "    confidence: low\n"
	                           "    source: paper-a\n"
	                           "    created: 2026-01-01\n"
	                           "  - id: beta-003\n"
	                           "    title: a\n"
	                           "      ...\n"
	                           "    claim: \"... b\"\n"
	                           "    confidence: low\n"
	                           "    source: paper-a\n"
	                           "    created: 2026-01-01\n";
	static const char *const want[][2] = {
	        {"beta-001", "wait ..."}, {"beta-002", "x ---"}, {"beta-003", "a ..."}};
	static const char *const claims[] = {"Pipeline stages ...", "a\n...\n---", "... b"};
	char *dir = t_base(), *now, id[64];
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	struct t_run r;
	size_t len, i;
	(void)state;

	t_write_str(dir, "insights/beta.yaml", text);
	RUN(r, dir, 0, "use", "beta-001", "beta-002", "beta-003");
	t_run_free(&r);
	RUN(r, dir, 0, "add", "beta", "--title", "after ...", "--claim", "...", "--source",
	    "paper-a", "--confidence", "low");
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	t_run_free(&r);
	now = t_read(dir, "insights/beta.yaml", &len);
	/* the old lines are all there, in order, each untouched */
	{
		const char *p = now, *line = text;
		while (*line) {
			const char *nl = strchr(line, '\n');
			char one[200];
			snprintf(one, sizeof(one), "%.*s", (int)(nl - line + 1), line);
			p = strstr(p, one);
			if (!p)
				print_error("line lost: %s", one);
			assert_non_null(p);
			p += strlen(one);
			line = nl + 1;
		}
	}
	assert_int_equal(dtk_kb_load(&kb,
	                             &(struct dtk_kb_load_opts){.root = dir, .what = DTK_KB_ALL},
	                             &diags),
	                 0);
	for (i = 0; i < 3; i++) {
		const struct dtk_entry *e = dtk_kb_entry(kb, want[i][0]);
		assert_non_null(e);
		assert_string_equal(e->title, want[i][1]);
		assert_string_equal(e->claim, claims[i]);
		assert_int_equal(e->used, 1);
	}
	assert_string_equal(dtk_kb_entry(kb, id)->title, "after ...");
	assert_string_equal(dtk_kb_entry(kb, id)->claim, "...");
	dtk_kb_free(kb);
	dtk_diags_release(&diags);
	free(now);
	t_done(dir);
}

/* The exact bytes of the case: the title and claim ending in "..."
 * are written plain, whole. */
static void test_trailing_dots_bytes(void **state)
{
	char *dir = t_base(), *now, id[64];
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "add", "beta", "--title", "wait ...", "--claim", "Pipeline stages ...",
	    "--source", "paper-a", "--confidence", "low");
	assert_int_equal(strlen(r.out), strlen("beta-") + 7 + 1);
	assert_memory_equal(r.out, "beta-", 5);
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	t_run_free(&r);
	now = t_read(dir, "insights/beta.yaml", NULL);
	assert_non_null(strstr(now, "    title: wait ...\n    claim: Pipeline stages ...\n"));
	free(now);
	RUN(r, dir, 0, "show", id);
	assert_non_null(strstr(r.out, "wait ..."));
	assert_non_null(strstr(r.out, "Pipeline stages ..."));
	t_run_free(&r);
	t_done(dir);
}

/* The read-back refuses an edit whose scalar would read back otherwise
 * (here a raw scalar that a comment would cut short): nothing is made. */
static void test_read_back_refuses_a_mismatch(void **state)
{
	static const char text[] = "a: 1\nb: [x]\n";
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_ydoc d;
	size_t len;
	char *out;
	(void)state;

	assert_int_equal(dtk_ydoc_parse(&d, "f.yaml", text, strlen(text), &diags), 0);
	assert_int_equal(dtk_yedit_set_key(&d, d.root, "a", (struct dtk_yscalar){"2 # x", 1}, NULL),
	                 0);
	out = dtk_ydoc_apply(&d, &len);
	assert_null(out);
	assert_non_null(strstr(dtk_error_last(), "f.yaml:1:4: '2 # x' would read back as '2'"));
	dtk_ydoc_release(&d);

	/* a value that runs into the text after it */
	assert_int_equal(dtk_ydoc_parse(&d, "f.yaml", text, strlen(text), &diags), 0);
	assert_int_equal(dtk_yedit_append(&d, d.root, "b", (struct dtk_yscalar){"y, z", 1}, NULL),
	                 0);
	assert_null(dtk_ydoc_apply(&d, &len));
	assert_non_null(strstr(dtk_error_last(), "'y, z' would read back as 'y'"));
	dtk_ydoc_release(&d);

	/* the same edits, quoted as the emitter quotes them, read back */
	assert_int_equal(dtk_ydoc_parse(&d, "f.yaml", text, strlen(text), &diags), 0);
	assert_int_equal(dtk_yedit_set_key(&d, d.root, "a", (struct dtk_yscalar){"2 # x", 0}, NULL),
	                 0);
	assert_int_equal(dtk_yedit_append(&d, d.root, "b", (struct dtk_yscalar){"y, z", 0}, NULL),
	                 0);
	out = dtk_ydoc_apply(&d, &len);
	assert_non_null(out);
	assert_string_equal(out, "a: '2 # x'\nb: [x, 'y, z']\n");
	free(out);
	dtk_ydoc_release(&d);
	dtk_diags_release(&diags);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_trailing_dots_bytes),
	        cmocka_unit_test(test_read_back_refuses_a_mismatch),
	        cmocka_unit_test(test_document_markers_read_back_in_every_field),
	        cmocka_unit_test(test_lines_read_back_in_every_field),
	        cmocka_unit_test(test_crlf_files_read_back),
	        cmocka_unit_test(test_names_of_several_lines),
	        cmocka_unit_test(test_markers_in_the_file_are_kept),
	};
	/* the same short texts are written many times over: add's duplicate
	 * check (tests/test_similar.c) would refuse them */
	setenv("DTK_NO_DUPLICATE_CHECK", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
