/*
 * fuzz_write.c: libFuzzer target for what the write commands write. The
 * input's first byte picks a write command and the layout of a small base
 * on disk (LF or CRLF, flow or block lists); the rest is one or two strings
 * (split at the first NUL byte) given to the command as its text: a title
 * and a claim (add, add --from), a source's title, a category, a note, a
 * stance; the commands that take no text (use, cite, close, review, verify,
 * relate, bloom) edit an entry just added with those strings. The command
 * runs in-process as 'dtk <cmd>' runs it.
 *
 * When it succeeds, the base must load and every string given must read
 * back through the loader exactly as given (byte for byte), else abort. When
 * it refuses, every file must be byte for byte as before, and the refusal
 * must not be the read-back's (a string the writer cannot write back is a
 * bug of the writer), else abort. Any crash or sanitizer report is a bug.
 */
#define _DEFAULT_SOURCE /* open_memstream, mkdtemp */
#include "dtk/cmd.h"
#include "dtk/fs.h"
#include "dtk/json.h"
#include "dtk/kb.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const S_names[] = {"_domain.yaml", "_sources.yaml", "alpha.yaml", "INDEX.md"};
#define N_FILES 4

enum {
	C_ADD,
	C_FROM,
	C_SOURCE,
	C_NODE,
	C_CONTRADICT,
	C_RESOLVE,
	C_STANCE,
	C_EDIT,        /* edit --title a --claim b of alpha-001 */
	C_EDIT_SOURCE, /* edit-source --title a of s1 */
	C_RETRACT,     /* retract --reason a of alpha-001 */
	C_USE,
	C_CITE,
	C_CLOSE,
	C_REVIEW,
	C_VERIFY,
	C_RELATE,
	C_BLOOM,
	C_CONFIDENCE,
	C_UNRELATE,
	C_UNVERIFY,
	C_SUPERSEDE,
	C_COUNT
};

static char *S_dir;

/* Returns the text of file i of the base in the layout asked. */
static void S_text(struct dtk_buf *b, int i, int crlf, int block)
{
	static const char domain_flow[] = "domain: fuzz\ntitle: Fuzz\ndescription: d\n"
	                                  "positioning: p\ncategories:\n  - name: c\n"
	                                  "    nodes: [alpha]\n";
	static const char domain_block[] = "domain: fuzz\ntitle: Fuzz\ndescription: d\n"
	                                   "positioning: p\ncategories:\n  - name: c\n"
	                                   "    nodes:\n      - alpha\n";
	static const char sources[] = "- id: s1\n  title: S1\n- id: s2\n  title: S2\n";
	static const char alpha_flow[] = "node: alpha\nbloom: apply\nstance: s\ninsights:\n"
	                                 "  - id: alpha-001\n    title: t\n    claim: c\n"
	                                 "    confidence: low\n    source: s1\n"
	                                 "    verified_by: [s2]\n    created: 2026-01-01\n"
	                                 "  - id: alpha-002\n    title: t2\n    claim: c2\n"
	                                 "    confidence: low\n    source: s2\n"
	                                 "    created: 2026-01-02\n    relates: [alpha-001]\n";
	static const char alpha_block[] = "node: alpha\nbloom: apply\nstance: s\ninsights:\n"
	                                  "  - id: alpha-001\n    title: t\n    claim: c\n"
	                                  "    confidence: low\n    source: s1\n"
	                                  "    verified_by:\n      - s2\n    created: 2026-01-01\n"
	                                  "  - id: alpha-002\n    title: t2\n    claim: c2\n"
	                                  "    confidence: low\n    source: s2\n"
	                                  "    created: 2026-01-02\n    relates:\n"
	                                  "      - alpha-001\n";
	const char *t = i == 0   ? (block ? domain_block : domain_flow)
	                : i == 1 ? sources
	                         : (block ? alpha_block : alpha_flow);
	for (; *t; t++) {
		if (*t == '\n' && crlf)
			dtk_buf_putc(b, '\r');
		dtk_buf_putc(b, *t);
	}
}

/* Writes the base (INDEX.md removed); aborts when it cannot. */
static void S_reset(int crlf, int block)
{
	char *ins = dtk_path_join(S_dir, "insights");
	int i;

	for (i = 0; i < N_FILES; i++) {
		struct dtk_buf b = DTK_BUF_INIT;
		char *p = dtk_path_join(i == 3 ? S_dir : ins, S_names[i]);
		if (i < 3) {
			S_text(&b, i, crlf, block);
			if (dtk_file_write_atomic(p, b.ptr, b.len) < 0)
				abort();
		} else {
			remove(p);
		}
		dtk_buf_release(&b);
		free(p);
	}
	{ /* a node another helper's run left */
		char *p = dtk_path_join(ins, "zz-fuzz.yaml");
		remove(p);
		free(p);
	}
	{ /* the records of uses of the runs before (use, cite) */
		char *p = dtk_path_join(ins, "_uses");
		DIR *d = opendir(p);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' && unlinkat(dirfd(d), de->d_name, 0) < 0)
				abort();
		if (d)
			closedir(d);
		free(p);
	}
	free(ins);
}

/* Reads every file of the base into v (NULL: absent). */
static void S_snap(char **v, size_t *len)
{
	char *ins = dtk_path_join(S_dir, "insights");
	int i;
	for (i = 0; i < N_FILES; i++) {
		char *p = dtk_path_join(i == 3 ? S_dir : ins, S_names[i]);
		v[i] = NULL;
		len[i] = 0;
		if (dtk_file_read(&v[i], &len[i], p, 64u << 20) != 0)
			v[i] = NULL;
		free(p);
	}
	free(ins);
}

/* Runs 'dtk <argv...>' in the base; returns its exit status, its standard
 * error in *err (malloc'd). */
/* The first line of the last command's standard output: the id of the
 * entry an add made. */
static char S_id[96];

static int S_run(int argc, const char **argv, char **err)
{
	const struct dtk_cmd *cmd = dtk_cmd_find(argv[0]);
	struct dtk_ctx ctx;
	size_t elen = 0, olen = 0;
	char *obuf = NULL;
	FILE *out = open_memstream(&obuf, &olen);
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.root = S_dir;
	ctx.out = out;
	ctx.err = open_memstream(err, &elen);
	ctx.no_pager = 1;
	if (!cmd || !out || !ctx.err)
		abort();
	dtk_error_clear();
	rc = dtk_cmd_run(&ctx, cmd, argc, (char **)argv);
	fclose(ctx.err);
	fclose(out);
	snprintf(S_id, sizeof(S_id), "%.*s", (int)strcspn(obuf, "\n"), obuf);
	free(obuf);
	return rc;
}

/* Aborts unless got is the string asked. */
static void S_same(const char *got, const char *want, const char *what)
{
	if (!got || strcmp(got, want)) {
		fprintf(stderr, "%s: asked '%s', read back '%s'\n", what, dtk_esc(want),
		        got ? dtk_esc(got) : "(none)");
		abort();
	}
}

/* Aborts when a refusal was the read-back's own (the writer could not
 * write a string so that it reads back), unless the strings a and b, which
 * the message may quote, say so themselves. Called for text a command must
 * take (S_must_take): for text that is not (invalid UTF-8), the read-back
 * refusing it is the last guard doing its work. */
static void S_not_read_back(const char *err, const char *a, const char *b)
{
	if (strstr(err, "read back") && !strstr(a, "read back") && !strstr(b, "read back")) {
		fprintf(stderr, "the writer cannot write a string: %s", err);
		abort();
	}
}

/* Returns 1 when s is text a command must take for a field of limit max
 * characters: valid UTF-8 (no surrogate, no overlong form), not blank, not
 * longer than max. */
static int S_takes(const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t chars = 0, i = 0, k, n;
	uint32_t cp;

	if (!s[strspn(s, " \t\r\n")])
		return 0;
	while (u[i]) {
		n = u[i] < 0x80             ? 1
		    : (u[i] & 0xE0) == 0xC0 ? 2
		    : (u[i] & 0xF0) == 0xE0 ? 3
		    : (u[i] & 0xF8) == 0xF0 ? 4
		                            : 0;
		if (!n)
			return 0;
		cp = n == 1 ? u[i] : (uint32_t)(u[i] & (0x7F >> n));
		for (k = 1; k < n; k++) {
			if ((u[i + k] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (u[i + k] & 0x3F);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += n;
		chars++;
	}
	return chars <= max;
}

/* Returns 1 when command c must take strings a and b. */
static int S_must_take(unsigned c, const char *a, const char *b)
{
	switch (c) {
	case C_SOURCE: return S_takes(a, DTK_MAX_TITLE_CHARS);
	case C_NODE: return S_takes(a, (size_t)-1);
	case C_EDIT_SOURCE: return S_takes(a, DTK_MAX_TITLE_CHARS);
	case C_CONTRADICT:
	case C_RESOLVE:
	case C_RETRACT:
	case C_STANCE: return S_takes(a, DTK_MAX_PROSE_CHARS);
	default: return S_takes(a, DTK_MAX_TITLE_CHARS) && S_takes(b, DTK_MAX_PROSE_CHARS);
	}
}

/* Aborts when command c refused strings a and b it must take. */
static void S_no_refusal(unsigned c, const char *a, const char *b, const char *err)
{
	if (S_must_take(c, a, b)) {
		fprintf(stderr, "a write refused text it must take: %s", err);
		abort();
	}
}

/* Runs the command c with strings a and b; checks the outcome. */
static void S_one(unsigned c, const char *a, const char *b)
{
	char *before[N_FILES], *after[N_FILES], *err = NULL, *from = NULL;
	size_t blen[N_FILES], alen[N_FILES];
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	const struct dtk_entry *e;
	const char *args[24];
	int n = 0, rc, i, added = 0;
	char id[96] = "";

	/* resolve closes a contradiction recorded first */
	if (c == C_RESOLVE) {
		const char *con[] = {"contradict", "--note", "n", "alpha-001", "alpha-002"};
		if (S_run(5, con, &err) != 0) {
			fprintf(stderr, "contradict refused: %s", err);
			abort();
		}
		free(err);
		err = NULL;
	}
	/* the text-less commands edit an entry added with the strings first */
	if (c >= C_USE) {
		/* a value that starts with '-' (say "-h") is the option's */
		const char *add[] = {"add",      "alpha", "--title",      a,    "--claim", b,
		                     "--source", "s1",    "--confidence", "low"};
		rc = S_run(10, add, &err);
		if (rc != 0) {
			if (S_must_take(C_ADD, a, b))
				S_not_read_back(err, a, b);
			S_no_refusal(C_ADD, a, b, err);
		}
		free(err);
		err = NULL;
		if (rc != 0) {
			return;
		}
		added = 1;
		memcpy(id, S_id, sizeof(id));
	}
	S_snap(before, blen);
	switch (c) {
	case C_ADD:
	case C_FROM:
		args[n++] = "add";
		args[n++] = "alpha";
		if (c == C_ADD) {
			args[n++] = "--title";
			args[n++] = a;
			args[n++] = "--claim";
			args[n++] = b;
			args[n++] = "--source";
			args[n++] = "s1";
			args[n++] = "--confidence";
			args[n++] = "low";
		} else {
			struct dtk_buf j = DTK_BUF_INIT;
			struct dtk_json w;
			dtk_json_init(&w, &j);
			dtk_json_object(&w);
			dtk_json_kstring(&w, "title", a);
			dtk_json_kstring(&w, "claim", b);
			dtk_json_kstring(&w, "source", "s2");
			dtk_json_kstring(&w, "confidence", "medium");
			dtk_json_end(&w, '}');
			from = dtk_path_join(S_dir, "from.json");
			if (dtk_file_write_atomic(from, j.ptr, j.len) < 0)
				abort();
			dtk_buf_release(&j);
			args[n++] = "--from";
			args[n++] = from;
		}
		break;
	case C_SOURCE:
		args[n++] = "add-source";
		args[n++] = "--title";
		args[n++] = a;
		args[n++] = "s9";
		break;
	case C_NODE:
		args[n++] = "add-node";
		args[n++] = "--new-category"; /* a text close to a category's name */
		args[n++] = "--category";
		args[n++] = a;
		args[n++] = "zz-fuzz";
		break;
	case C_CONTRADICT:
	case C_RESOLVE:
		args[n++] = c == C_CONTRADICT ? "contradict" : "resolve";
		args[n++] = "--note";
		args[n++] = a;
		args[n++] = c == C_CONTRADICT ? "alpha-002" : "alpha-001";
		args[n++] = c == C_CONTRADICT ? "alpha-001" : "alpha-002";
		break;
	case C_STANCE:
		args[n++] = "stance";
		args[n++] = "alpha";
		args[n++] = "--";
		args[n++] = a;
		break;
	case C_EDIT:
		args[n++] = "edit";
		args[n++] = "--title";
		args[n++] = a;
		args[n++] = "--claim";
		args[n++] = b;
		args[n++] = "alpha-001";
		break;
	case C_EDIT_SOURCE:
		args[n++] = "edit-source";
		args[n++] = "--title";
		args[n++] = a;
		args[n++] = "s1";
		break;
	case C_RETRACT:
		args[n++] = "retract";
		args[n++] = "--reason";
		args[n++] = a;
		args[n++] = "alpha-001";
		break;
	case C_CONFIDENCE:
		args[n++] = "confidence";
		args[n++] = "medium";
		break;
	case C_UNRELATE: /* the relation just added is removed */ args[n++] = "unrelate"; break;
	case C_UNVERIFY: args[n++] = "unverify"; break;
	case C_SUPERSEDE: args[n++] = "supersede"; break;
	case C_USE: args[n++] = "use"; break;
	case C_CITE: args[n++] = "cite"; break;
	case C_CLOSE: args[n++] = "close"; break;
	case C_REVIEW: args[n++] = "review"; break;
	case C_VERIFY: args[n++] = "verify"; break;
	case C_RELATE: args[n++] = "relate"; break;
	default: args[n++] = "bloom"; break;
	}
	if (c >= C_USE && c != C_BLOOM)
		args[n++] = c == C_UNRELATE ? "alpha-002" : c == C_UNVERIFY ? "alpha-001" : id;
	if (c == C_VERIFY || c == C_UNVERIFY)
		args[n++] = "s2";
	if (c == C_RELATE || c == C_SUPERSEDE)
		args[n++] = "alpha-002";
	if (c == C_UNRELATE)
		args[n++] = "alpha-001";
	if (c == C_BLOOM) {
		args[n++] = "alpha";
		args[n++] = "analyze";
	}
	args[n] = NULL;
	rc = S_run(n, args, &err);
	S_snap(after, alen);
	if (rc != 0) {
		if (S_must_take(c, a, b))
			S_not_read_back(err, a, b);
		if (c >= C_USE) { /* the entry is there, the arguments right */
			fprintf(stderr, "%s refused: %s", args[0], err);
			abort();
		}
		S_no_refusal(c, a, b, err);
		for (i = 0; i < N_FILES; i++)
			if (alen[i] != blen[i] ||
			    (before[i] && memcmp(after[i], before[i], alen[i]))) {
				fprintf(stderr, "%s refused (%s) but changed %s\n", args[0], err,
				        S_names[i]);
				abort();
			}
		goto done;
	}
	/* written: the base loads, and says what was asked */
	if (dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = S_dir, .what = DTK_KB_ALL},
	                &diags) != 0) {
		fprintf(stderr, "%s wrote an invalid base\n", args[0]);
		abort();
	}
	if (c == C_ADD || c == C_FROM)
		memcpy(id, S_id, sizeof(id));
	e = dtk_kb_entry(kb, id);
	if (c == C_ADD || c == C_FROM || added) {
		if (!e)
			abort();
		S_same(e->title, a, "title");
		S_same(e->claim, b, "claim");
	}
	if (c == C_SOURCE) {
		for (i = 0; i < (int)kb->n_sources && strcmp(kb->sources[i].id, "s9"); i++)
			;
		S_same(i < (int)kb->n_sources ? kb->sources[i].title : NULL, a, "source title");
	} else if (c == C_NODE) {
		const char *name = NULL;
		size_t k;
		for (k = 0; k < kb->n_categories; k++)
			if (kb->categories[k].n_nodes &&
			    !strcmp(kb->categories[k].nodes[kb->categories[k].n_nodes - 1].id,
			            "zz-fuzz"))
				name = kb->categories[k].name;
		S_same(name, a, "category");
	} else if (c == C_CONTRADICT || c == C_RESOLVE) {
		const struct dtk_entry *x =
		        dtk_kb_entry(kb, c == C_CONTRADICT ? "alpha-002" : "alpha-001");
		S_same(x && x->n_contradicts ? x->contradicts[x->n_contradicts - 1].note : NULL, a,
		       "note");
	} else if (c == C_EDIT) {
		const struct dtk_entry *x = dtk_kb_entry(kb, "alpha-001");
		S_same(x ? x->title : NULL, a, "edited title");
		S_same(x ? x->claim : NULL, b, "edited claim");
	} else if (c == C_EDIT_SOURCE) {
		S_same(kb->n_sources ? kb->sources[0].title : NULL, a, "edited source title");
	} else if (c == C_RETRACT) {
		const struct dtk_entry *x = dtk_kb_entry(kb, "alpha-001");
		S_same(x ? x->retracted_reason : NULL, a, "retraction's reason");
	} else if (c == C_STANCE) {
		S_same(dtk_kb_node(kb, "alpha") ? dtk_kb_node(kb, "alpha")->stance : NULL, a,
		       "stance");
	} else if ((c == C_USE && e->used != 1) || (c == C_CITE && e->cited != 1) ||
	           (c == C_CLOSE && !e->closed) || (c == C_REVIEW && !e->reviewed) ||
	           (c == C_VERIFY && e->n_verified_by != 1) ||
	           (c == C_RELATE && e->n_relates != 1) ||
	           (c == C_CONFIDENCE && e->confidence != DTK_CONF_MEDIUM) ||
	           (c == C_SUPERSEDE &&
	            (!e->superseded_by.id || strcmp(e->superseded_by.id, "alpha-002"))) ||
	           (c == C_UNRELATE && dtk_kb_entry(kb, "alpha-002")->n_relates != 0) ||
	           (c == C_UNVERIFY && dtk_kb_entry(kb, "alpha-001")->n_verified_by != 0)) {
		fprintf(stderr, "%s did not write what it says\n", args[0]);
		abort();
	}
done:
	dtk_kb_free(kb);
	dtk_diags_release(&diags);
	for (i = 0; i < N_FILES; i++) {
		free(before[i]);
		free(after[i]);
	}
	free(err);
	free(from);
}

/* Removes the base at exit. */
static void S_cleanup(void)
{
	char *ins = dtk_path_join(S_dir, "insights");
	size_t i;
	for (i = 0; i < N_FILES; i++) {
		char *p = dtk_path_join(i == 3 ? S_dir : ins, S_names[i]);
		remove(p);
		free(p);
	}
	{
		const char *more[] = {"insights/zz-fuzz.yaml", "from.json", "insights", NULL};
		for (i = 0; more[i]; i++) {
			char *p = dtk_path_join(S_dir, more[i]);
			remove(p);
			free(p);
		}
	}
	remove(S_dir);
	free(ins);
	free(S_dir);
	S_dir = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *nul;
	const char *b;
	unsigned c;

	if (size < 1 || size > 16384)
		return 0;
	if (!S_dir) {
		const char *tmp = getenv("TMPDIR");
		char *tmpl = dtk_path_join(tmp && *tmp ? tmp : "/tmp", "dtk-fuzz-write.XXXXXX");
		char *ins;
		if (!mkdtemp(tmpl))
			abort();
		S_dir = tmpl;
		/* what is asked is that the text reads back: add's duplicate check,
		 * which refuses a claim like one already there, is another matter */
		setenv("DTK_NO_DUPLICATE_CHECK", "1", 1);
		ins = dtk_path_join(S_dir, "insights");
		if (dtk_file_mkdirs(ins, 0777) < 0)
			abort();
		free(ins);
		atexit(S_cleanup);
	}
	c = data[0] % C_COUNT;
	S_reset(data[0] & 0x80, data[0] & 0x40);
	a = dtk_xmalloc(size);
	memcpy(a, data + 1, size - 1);
	a[size - 1] = '\0';
	/* a NUL ends the first string; what follows is the second */
	nul = memchr(data + 1, '\0', size - 1);
	b = nul ? a + ((const uint8_t *)nul - data) : "c";
	if (!*b)
		b = "c";
	S_one(c, a, b);
	free(a);
	return 0;
}
