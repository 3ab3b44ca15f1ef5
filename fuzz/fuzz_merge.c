/*
 * fuzz_merge.c: libFuzzer target for the three-way merge (merge.h).
 *
 * The first byte chooses the mode. Even: three related valid node files,
 * each side the base with edits the input chooses (entries added with the
 * fresh ids, titles, stance and bloom rewritten, counters bumped, sources and
 * references added), written in a layout the input chooses (indentation,
 * CRLF, flow or block lists). A clean merge must load as a valid base with
 * the other files (dtk_kb_load of files in memory); a conflicted one must hold conflict
 * markers. Odd: three arbitrary texts ("\n=====\n" between them) as one of
 * the four kinds of file: a clean merge must parse as YAML, a conflicted one
 * must hold markers. A failed expectation aborts; so does any crash, leak or
 * sanitizer report.
 */
#include "dtk/kb.h"
#include "dtk/merge.h"
#include "dtk/ytree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 24

static const char S_domain[] = "domain: fuzz\ntitle: Fuzz\ndescription: d\npositioning: p\n"
                               "categories:\n  - {name: c, nodes: [alpha]}\n";
static const char S_sources[] = "- {id: s1, title: S1}\n- {id: s2, title: S2}\n"
                                "- {id: s3, title: S3}\n- {id: s4, title: S4}\n";

struct entry {
	int num;          /* alpha-<num> */
	char title[16];   /* letters */
	int used, cited;  /* -1: absent */
	unsigned sources; /* bit i: s(i+2) in verified_by */
	unsigned relates; /* bit i: alpha-00(i+1) */
};

struct side {
	int bloom;
	char stance[16];
	struct entry e[MAX_ENTRIES];
	int n;
};

/* The input, read a byte at a time (0 once it runs out). */
struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned S_byte(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static void S_word(struct input *in, char *out, size_t size)
{
	size_t i, len = 1 + S_byte(in) % (size - 2);
	for (i = 0; i < len; i++)
		out[i] = (char)('a' + S_byte(in) % 26);
	out[len] = '\0';
}

/* Applies one edit the input chooses to side s. */
static void S_edit(struct side *s, struct input *in)
{
	unsigned op = S_byte(in) % 8, i = s->n ? S_byte(in) % (unsigned)s->n : 0;
	struct entry *e = &s->e[i];
	int k, max = 0;

	switch (op) {
	case 0:
		if (s->n == MAX_ENTRIES)
			break;
		for (k = 0; k < s->n; k++)
			max = s->e[k].num > max ? s->e[k].num : max;
		e = &s->e[s->n++];
		memset(e, 0, sizeof(*e));
		e->num = max + 1;
		S_word(in, e->title, sizeof(e->title));
		e->used = e->cited = -1;
		e->relates = S_byte(in) & 3u;
		break;
	case 1: S_word(in, e->title, sizeof(e->title)); break;
	case 2: e->used = e->used < 0 ? 1 : e->used + 1; break;
	case 3: e->cited = e->cited < 0 ? 1 : e->cited + 1; break;
	case 4: e->sources |= 1u << (S_byte(in) % 3); break;
	case 5: e->relates |= 1u << (S_byte(in) % 3); break;
	case 6: S_word(in, s->stance, sizeof(s->stance)); break;
	default: s->bloom = (int)(S_byte(in) % 6); break;
	}
}

/* Writes side s as a node file in the layout chosen by style's bits. */
static void S_write(struct dtk_buf *b, const struct side *s, unsigned style)
{
	static const char *const blooms[] = {"remember", "understand", "apply",
	                                     "analyze",  "evaluate",   "create"};
	const char *nl = style & 1 ? "\r\n" : "\n";
	int ind = (int)(style >> 1 & 3) * 2, flow = style >> 3 & 1, i, k;

	dtk_buf_printf(b, "node: alpha%sbloom: %s%sstance: %s%sinsights:%s", nl, blooms[s->bloom],
	               nl, s->stance, nl, s->n ? nl : " []");
	if (!s->n)
		dtk_buf_puts(b, nl);
	for (i = 0; i < s->n; i++) {
		const struct entry *e = &s->e[i];
		dtk_buf_printf(
		        b,
		        "%*s- id: alpha-%03d%s%*s  title: %s%s%*s  claim: c%s%*s  confidence: "
		        "low%s%*s  source: s1%s%*s  created: 2026-01-01%s",
		        ind, "", e->num, nl, ind, "", e->title, nl, ind, "", nl, ind, "", nl, ind,
		        "", nl, ind, "", nl);
		if (e->used >= 0)
			dtk_buf_printf(b, "%*s  used: %d%s", ind, "", e->used, nl);
		if (e->cited >= 0)
			dtk_buf_printf(b, "%*s  cited: %d%s", ind, "", e->cited, nl);
		for (k = 0; k < 2; k++) {
			unsigned bits = k ? e->relates : e->sources;
			int j, first = 1;
			/* an entry does not relate to itself */
			if (k)
				bits &= ~(e->num <= 3 ? 1u << (e->num - 1) : 0u);
			if (!bits)
				continue;
			dtk_buf_printf(b, "%*s  %s:%s", ind, "", k ? "relates" : "verified_by",
			               flow ? " [" : "");
			for (j = 0; j < 3; j++) {
				if (!(bits & 1u << j))
					continue;
				if (flow)
					dtk_buf_printf(b, "%s%s%d", first ? "" : ", ",
					               k ? "alpha-00" : "s", k ? j + 1 : j + 2);
				else
					dtk_buf_printf(b, "%s%*s    - %s%d", nl, ind, "",
					               k ? "alpha-00" : "s", k ? j + 1 : j + 2);
				first = 0;
			}
			dtk_buf_puts(b, flow ? "]" : "");
			dtk_buf_puts(b, nl);
		}
	}
}

/* Returns 1 when s[0..n) holds needle. */
static int S_holds(const char *s, size_t n, const char *needle)
{
	size_t i, k = strlen(needle);
	for (i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return 1;
	return 0;
}

static int S_has_markers(const struct dtk_merge_out *out)
{
	return S_holds(out->text, out->len, "<<<<<<< ") &&
	       S_holds(out->text, out->len, "=======") && S_holds(out->text, out->len, ">>>>>>> ");
}

static void S_structured(struct input *in)
{
	struct side base, sides[2];
	struct dtk_buf text[3] = {DTK_BUF_INIT, DTK_BUF_INIT, DTK_BUF_INIT};
	struct dtk_merge_in mi;
	struct dtk_merge_out out;
	int i, k, rc;

	memset(&base, 0, sizeof(base));
	base.bloom = 2;
	strcpy(base.stance, "s");
	base.n = 3;
	for (i = 0; i < 3; i++) {
		base.e[i].num = i + 1;
		snprintf(base.e[i].title, sizeof(base.e[i].title), "t%d", i + 1);
		base.e[i].used = base.e[i].cited = -1;
	}
	for (k = 0; k < 2; k++) {
		int edits = (int)(S_byte(in) % 12);
		sides[k] = base;
		for (i = 0; i < edits; i++)
			S_edit(&sides[k], in);
	}
	S_write(&text[0], &base, S_byte(in));
	S_write(&text[1], &sides[0], S_byte(in));
	S_write(&text[2], &sides[1], S_byte(in));
	memset(&mi, 0, sizeof(mi));
	mi.name = "alpha.yaml";
	mi.base = text[0].ptr;
	mi.base_len = text[0].len;
	mi.ours = text[1].ptr;
	mi.ours_len = text[1].len;
	mi.theirs = text[2].ptr;
	mi.theirs_len = text[2].len;
	rc = dtk_merge_file(&out, &mi);
	if (rc == 0) {
		struct dtk_memfile files[] = {
		        {"_domain.yaml", S_domain, sizeof(S_domain) - 1},
		        {"_sources.yaml", S_sources, sizeof(S_sources) - 1},
		        {"alpha.yaml", out.text, out.len},
		};
		struct dtk_diags d = DTK_DIAGS_INIT;
		struct dtk_kb *kb = NULL;
		if (dtk_kb_load(&kb,
		                &(struct dtk_kb_load_opts){
		                        .what = DTK_KB_ALL, .files = files, .n_files = 3},
		                &d) != 0) {
			fprintf(stderr, "clean merge is invalid:\n%s", out.text);
			dtk_diags_print(&d, stderr);
			abort();
		}
		dtk_kb_free(kb);
		dtk_diags_release(&d);
	} else if (!S_has_markers(&out)) {
		abort();
	}
	dtk_merge_out_release(&out);
	for (i = 0; i < 3; i++)
		dtk_buf_release(&text[i]);
}

/* Returns the first "\n=====\n" in p[0..n), or NULL. */
static const char *S_sep(const char *p, size_t n)
{
	size_t i;
	for (i = 0; i + 7 <= n; i++)
		if (!memcmp(p + i, "\n=====\n", 7))
			return p + i;
	return NULL;
}

static void S_raw(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"alpha.yaml", "_sources.yaml", "_domain.yaml",
	                                    "_crystallizations.yaml"};
	const char *part[3] = {"", "", ""}, *p = (const char *)data + 1, *end = p + size - 1;
	size_t len[3] = {0, 0, 0};
	struct dtk_merge_in mi;
	struct dtk_merge_out out;
	struct dtk_arena *a;
	struct dtk_yval *root = NULL;
	struct dtk_diags d = DTK_DIAGS_INIT;
	int i;

	for (i = 0; i < 3 && p <= end; i++) {
		const char *sep = S_sep(p, (size_t)(end - p));
		part[i] = p;
		len[i] = sep ? (size_t)(sep - p) + 1 : (size_t)(end - p);
		p = sep ? sep + 7 : end + 1;
	}
	memset(&mi, 0, sizeof(mi));
	mi.name = names[data[0] >> 1 & 3];
	mi.base = part[0];
	mi.base_len = len[0];
	mi.ours = part[1];
	mi.ours_len = len[1];
	mi.theirs = part[2];
	mi.theirs_len = len[2];
	if (dtk_merge_file(&out, &mi) == 0) {
		a = dtk_arena_new();
		if (dtk_yaml_parse(&root, a, "merged", out.text, out.len, &d) < 0)
			abort();
		dtk_arena_free(a);
		dtk_diags_release(&d);
	} else if (!S_has_markers(&out)) {
		abort();
	}
	dtk_merge_out_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data + 1, size ? size - 1 : 0};

	if (!size || size > (1u << 20))
		return 0;
	if (data[0] & 1)
		S_raw(data, size);
	else
		S_structured(&in);
	return 0;
}
