/*
 * fuzz_edit.c: libFuzzer target for the YAML editor. The input is the text
 * of insights/gamma.yaml in a small valid base held in memory; when that base
 * is valid, an edit chosen from the input's bytes is made to one of its
 * entries (a counter, a date, closed, a list appended to or shortened, a
 * string), each
 * edit in turn, as the write commands make them. The result must parse, validate, and differ
 * from the input only inside the edited entry's lines. Any
 * crash, sanitizer report or abort is a bug.
 */
#include "dtk/kb.h"
#include "dtk/yedit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char S_domain[] = "domain: fuzz\ntitle: Fuzz\ndescription: d\npositioning: p\n"
                               "categories:\n  - {name: c, nodes: [alpha, gamma]}\n";
static const char S_sources[] = "- {id: s1, title: S1}\n- {id: s2, title: S2}\n"
                                "- {id: s3, title: S3}\n";
static const char S_alpha[] = "node: alpha\nbloom: apply\ninsights:\n"
                              "  - {id: alpha-001, title: t, claim: c, confidence: low, source: "
                              "s1, created: 2026-01-01}\n";

/* Loads the base with gamma.yaml as text; returns 1 when it is valid. */
static int S_valid(const char *text, size_t len)
{
	struct dtk_memfile files[] = {
	        {"_domain.yaml", S_domain, sizeof(S_domain) - 1},
	        {"_sources.yaml", S_sources, sizeof(S_sources) - 1},
	        {"alpha.yaml", S_alpha, sizeof(S_alpha) - 1},
	        {"gamma.yaml", text, len},
	};
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	int ok = dtk_kb_load(&kb,
	                     &(struct dtk_kb_load_opts){
	                             .what = DTK_KB_ALL, .files = files, .n_files = 4},
	                     &d) == 0;
	dtk_kb_free(kb);
	dtk_diags_release(&d);
	return ok;
}

/* Returns 1 when the edit (op) keeps the base valid, as the commands make
 * sure before they edit; sets what it needs. */
static int S_edit(struct dtk_ydoc *doc, const struct dtk_yval *e, unsigned op)
{
	const struct dtk_yval *l;
	const char *src, *id;
	size_t i;

	switch (op % 9) {
	case 0:
		return dtk_yedit_set_key(doc, e, "used", (struct dtk_yscalar){"7", 1},
		                         dtk_entry_keys) == 0;
	case 1:
		return dtk_yedit_set_key(doc, e, "cited", (struct dtk_yscalar){"12", 1},
		                         dtk_entry_keys) == 0;
	case 2:
		return dtk_yedit_set_key(doc, e, "closed", (struct dtk_yscalar){"true", 1},
		                         dtk_entry_keys) == 0;
	case 3:
		return dtk_yedit_set_key(doc, e, "reviewed", (struct dtk_yscalar){"9999-12-31", 1},
		                         dtk_entry_keys) == 0;
	case 4: /* a source neither its own nor already there */
		src = dtk_yval_get(e, "source") ? dtk_yval_get(e, "source")->str : "";
		l = dtk_yval_get(e, "verified_by");
		for (i = 0; l && l->kind == DTK_Y_SEQ && i < l->n; i++)
			if (!strcmp(l->items[i]->str, "s3"))
				return 0;
		if (!strcmp(src, "s3") || (l && l->kind != DTK_Y_SEQ))
			return 0;
		return dtk_yedit_append(doc, e, "verified_by", (struct dtk_yscalar){"s3", 0},
		                        dtk_entry_keys) == 0;
	case 5: /* relates to alpha-001, unless it does */
		l = dtk_yval_get(e, "relates");
		for (i = 0; l && l->kind == DTK_Y_SEQ && i < l->n; i++)
			if (!strcmp(l->items[i]->str, "alpha-001"))
				return 0;
		if (l && l->kind != DTK_Y_SEQ)
			return 0;
		return dtk_yedit_append(doc, e, "relates", (struct dtk_yscalar){"alpha-001", 0},
		                        dtk_entry_keys) == 0;
	case 6: /* the first relation goes */
		l = dtk_yval_get(e, "relates");
		return l && l->kind == DTK_Y_SEQ && l->n &&
		       dtk_yedit_remove_item(doc, e, "relates", 0) == 0;
	case 7: /* the last verification goes, unless high needs it */
		l = dtk_yval_get(e, "verified_by");
		src = dtk_yval_get(e, "confidence") ? dtk_yval_get(e, "confidence")->str : "";
		return l && l->kind == DTK_Y_SEQ && l->n && (strcmp(src, "high") || l->n > 2) &&
		       dtk_yedit_remove_item(doc, e, "verified_by", l->n - 1) == 0;
	default: /* an odd title */
		id = "a: b # c\n第二行 ' \" \\ end";
		return dtk_yedit_set_key(doc, e, "title", (struct dtk_yscalar){id, 0},
		                         dtk_entry_keys) == 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks that positions of out (the edited text) outside the edit map back
 * to the same character of text: the first column of some lines, and the
 * column after the first character of each. */
static void S_check_map(const struct dtk_ydoc *doc, const char *text, size_t size, const char *out,
                        size_t len)
{
	int line, col, l0, c0, k;
	size_t o, t;

	for (k = 0; k < 64; k++) {
		l0 = 1 + k * 3;
		c0 = 1 + k % 2;
		o = dtk_text_offset(out, len, l0, c0);
		line = l0, col = c0;
		if (dtk_ydoc_map_back(doc, out, len, &line, &col))
			continue;
		t = dtk_text_offset(text, size, line, col);
		if ((o == len) != (t == size) || (o < len && out[o] != text[t]))
			abort(); /* a position outside the edit moved elsewhere */
	}
}

/* Makes edit op to the entry pick chooses and checks the result. */
static void S_one(const char *text, size_t size, unsigned pick, unsigned op)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	const struct dtk_yval *l, *e;
	struct dtk_ydoc doc, again;
	size_t start = 0, end = 0, len = 0, k;
	char *out = NULL;

	if (dtk_ydoc_parse(&doc, "gamma.yaml", text, size, &d) < 0)
		abort(); /* the loader read it */
	l = dtk_yval_get(doc.root, "insights");
	if (!l || l->kind != DTK_Y_SEQ || l->n == 0)
		goto done;
	k = (size_t)(pick % l->n);
	e = l->items[k];
	if (e->kind != DTK_Y_MAP || !S_edit(&doc, e, op))
		goto done;
	out = dtk_ydoc_apply(&doc, &len);
	if (!out)
		abort();
	if (!S_valid(out, len))
		abort(); /* the edit broke the base */
	/* only the entry's lines changed: the same bytes before and after */
	if (l->style == DTK_YS_BLOCK) {
		if (dtk_yedit_item_span(&doc, l, k, &start, &end) < 0)
			abort();
	} else {
		start = e->start;
		end = e->end;
	}
	if (len < size - (end - start) || memcmp(out, text, start) ||
	    memcmp(out + len - (size - end), text + end, size - end))
		abort();
	S_check_map(&doc, text, size, out, len);
	if (dtk_ydoc_parse(&again, "gamma.yaml", out, len, &d) < 0)
		abort();
	dtk_ydoc_release(&again);
done:
	free(out);
	dtk_ydoc_release(&doc);
	dtk_diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned pick = 0, op;
	size_t i;

	if (size > 65536 || !S_valid((const char *)data, size))
		return 0;
	for (i = 0; i < size; i++)
		pick = pick * 31 + data[i];
	/* every edit, each on the input, on the entry the input's hash picks
	 * and the three after it */
	for (i = 0; i < 4; i++)
		for (op = 0; op < 7; op++)
			S_one((const char *)data, size, (pick >> 8) + (unsigned)i, op);
	return 0;
}
