/* test_gate.c: the duplicate gate of dtk add measured on the labelled
 * bases of tests/similar/ (docs/similar.md): the shipped base
 * (labelled.tsv) and bases of other fields, each made with dtk init --lang en
 * from its .tsv. Prints the figures, tuning and held-out bases apart, and
 * fails when the held-out bases miss the targets docs/similar.md states.
 * DTK_SIMILAR_SCORES=1 prints every case's scores (for tuning). */
#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/similar.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a pool of cases gave (a pool: the tuning bases, or the held-out). */
struct figures {
	size_t para, first, top3, para_refused, para_caught;
	size_t xpara, xtop3, xcaught;
	size_t diff, diff_refused, fresh, fresh_refused;
	size_t copies, copies_refused;
};

static double S_pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

/* Ranks kb's entries for title and claim as dtk add does; returns the hits
 * (free), *n. */
static struct dtk_similar_hit *S_rank(const struct dtk_kb *kb, const char *title, const char *claim,
                                      size_t *n)
{
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *hits = NULL;
	q.title = title;
	q.claim = claim;
	assert_int_equal(dtk_similar_rank(&hits, n, kb, &q), 0);
	return hits;
}

/* Returns the 1-based rank of entry id among h[0..n), 0 when absent. */
static size_t S_rank_of(const struct dtk_similar_hit *h, size_t n, const char *id)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(h[i].entry->id, id))
			return i + 1;
	return 0;
}

/* One case: kind (para, xpara, diff, new), target (an entry id; a node for
 * new), title, claim. */
static void S_case(const struct dtk_kb *kb, const char *base, char **f, struct figures *fig)
{
	size_t n, rank;
	struct dtk_similar_hit *h = S_rank(kb, f[2], f[3], &n);
	enum dtk_similar_verdict v = dtk_similar_verdict(h, n, NULL, 0);
	int refused = v == DTK_SIMILAR_REFUSE;

	rank = S_rank_of(h, n, f[1]);
	if (!strcmp(f[0], "para") || !strcmp(f[0], "xpara")) {
		/* caught: refused, or the original shown marked as likely */
		int caught = refused || (rank && rank <= DTK_SIMILAR_SHOWN &&
		                         h[rank - 1].score >= DTK_SIMILAR_LIKELY);
		if (!strcmp(f[0], "para")) {
			fig->para++;
			fig->first += rank == 1;
			fig->top3 += rank && rank <= 3;
			fig->para_refused += refused;
			fig->para_caught += caught;
		} else {
			fig->xpara++;
			fig->xtop3 += rank && rank <= 3;
			fig->xcaught += caught;
		}
		if (getenv("DTK_SIMILAR_SHOW") && (rank != 1 || !caught))
			printf("  %s %s %s ranked %zu (%.2f; first %s %.2f)\n", base, f[0], f[1],
			       rank, rank ? h[rank - 1].score : 0, n ? h[0].entry->id : "-",
			       n ? h[0].score : 0);
	} else if (!strcmp(f[0], "diff")) {
		fig->diff++;
		fig->diff_refused += refused;
	} else {
		assert_string_equal(f[0], "new");
		fig->fresh++;
		fig->fresh_refused += refused;
	}
	if (getenv("DTK_SIMILAR_SHOW") && refused && strcmp(f[0], "para"))
		printf("  %s %s refused: %s %.2f: %s\n", base, f[0], h[0].entry->id, h[0].score,
		       f[2]);
	if (getenv("DTK_SIMILAR_SCORES"))
		printf("score\t%s\t%s\t%zu\t%.4f\t%.4f\n", base, f[0], rank,
		       rank ? h[rank - 1].score : 0, n ? h[0].score : 0);
	free(h);
}

/* Every live entry's claim, as it is, must be refused as the same claim. */
static void S_copies(const struct dtk_kb *kb, struct figures *fig)
{
	size_t i, k, n;
	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->n_entries; k++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[k];
			struct dtk_similar_hit *h;
			if (!dtk_similar_live(e))
				continue;
			h = S_rank(kb, e->title, e->claim, &n);
			fig->copies++;
			fig->copies_refused +=
			        dtk_similar_verdict(h, n, NULL, 0) == DTK_SIMILAR_REFUSE &&
			        h[0].same;
			free(h);
		}
}

/* Splits line at tabs into f[0..max); returns the count. */
static size_t S_fields(char *line, char **f, size_t max)
{
	size_t k = 0;
	while (k < max) {
		f[k++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return k;
}

/* Appends s to b as a YAML double-quoted scalar. */
static void S_quoted(struct dtk_buf *b, const char *s)
{
	dtk_buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			dtk_buf_putc(b, '\\');
		dtk_buf_putc(b, *s);
	}
	dtk_buf_puts(b, "\"");
}

/* Writes the node file held in b (node's rows) into dir and empties b. */
static void S_flush(const char *dir, const char *node, struct dtk_buf *b)
{
	char rel[200];
	if (!b->len)
		return;
	snprintf(rel, sizeof(rel), "insights/%s.yaml", node);
	t_write(dir, rel, b->ptr, b->len);
	dtk_buf_release(b);
}

/* Makes the base of a .tsv in a new directory with dtk init --lang en,
 * add-source and add-node, and writes its node files from the entry rows
 * (ids <node>-<suffix>, so that cases can name them). Returns the directory
 * (t_done). */
static char *S_make(char *text, const char *name)
{
	char *dir = t_mkdtemp(), *line, *next, *f[5], node[128] = "";
	struct dtk_buf b = DTK_BUF_INIT;
	struct t_run r;

	t_dtk(&r, dir, NULL, "init", "--lang", "en", "--domain", name, NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "add-source", "ref", "--title", "Reference", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "entry\t", 6))
			continue;
		assert_int_equal(S_fields(line, f, 5), 5);
		if (strcmp(node, f[1])) {
			S_flush(dir, node, &b);
			snprintf(node, sizeof(node), "%s", f[1]);
			t_dtk(&r, dir, NULL, "add-node", node, "--category", "Topics", NULL);
			assert_int_equal(r.status, 0);
			t_run_free(&r);
			dtk_buf_printf(&b, "node: %s\nbloom: apply\ninsights:\n", node);
		}
		dtk_buf_printf(&b, "  - id: %s-%s\n    title: ", f[1], f[2]);
		S_quoted(&b, f[3]);
		dtk_buf_puts(&b, "\n    claim: ");
		S_quoted(&b, f[4]);
		dtk_buf_puts(&b, "\n    confidence: medium\n    source: ref\n"
		                 "    created: 2026-01-05\n");
	}
	S_flush(dir, node, &b);
	return dir;
}

static struct dtk_kb *S_load(const char *root)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	if (dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = root, .what = DTK_KB_ALL}, &d))
		dtk_diags_print(&d, stderr);
	assert_non_null(kb);
	dtk_diags_release(&d);
	return kb;
}

/* Evaluates the cases of one base into fig[0] (tuning) or fig[1] (held
 * out), as its first line says. labelled.tsv is the shipped base's: its rows
 * have a split column, its base is the repository's own. */
static void S_base(const char *file, struct figures *fig)
{
	char *path, *text, *copy, *line, *next, *f[6], *dir = NULL, name[64] = "shipped",
	                                               split[8] = "";
	size_t len, k;
	int held = 0, shipped = !strcmp(file, "labelled.tsv");
	struct dtk_kb *kb;

	path = dtk_path_join(DTK_SOURCE_DIR "/tests/similar", file);
	assert_int_equal(dtk_file_read(&text, &len, path, 1u << 24), 0);
	if (!shipped) {
		assert_int_equal(sscanf(text, "# base\t%63[^\t]\t%7[^\t]", name, split), 2);
		held = !strcmp(split, "held");
		copy = dtk_xstrdup(text);
		dir = S_make(copy, name);
		free(copy);
	}
	kb = S_load(dir ? dir : DTK_SOURCE_DIR);
	S_copies(kb, &fig[held]);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line == '#' || !*line || !strncmp(line, "entry\t", 6))
			continue;
		k = S_fields(line, f, 6);
		if (shipped) { /* kind, target, split, title, claim */
			assert_int_equal(k, 5);
			f[2] = f[3];
			f[3] = f[4];
		} else {
			assert_int_equal(k, 4);
		}
		S_case(kb, name, f, &fig[held]);
	}
	dtk_kb_free(kb);
	if (dir)
		t_done(dir);
	free(text);
	free(path);
}

static void S_print(const char *what, const struct figures *f)
{
	printf("%s: %zu restatements: first %.1f %%, top 3 %.1f %%, refused %.1f %%, caught "
	       "%.1f %%; %zu across languages: top 3 %.1f %%, caught %.1f %%; "
	       "%zu same-topic: refused %.1f %%; %zu novel: refused %.1f %%; "
	       "%zu exact copies: refused %.1f %%\n",
	       what, f->para, S_pct(f->first, f->para), S_pct(f->top3, f->para),
	       S_pct(f->para_refused, f->para), S_pct(f->para_caught, f->para), f->xpara,
	       S_pct(f->xtop3, f->xpara), S_pct(f->xcaught, f->xpara), f->diff,
	       S_pct(f->diff_refused, f->diff), f->fresh, S_pct(f->fresh_refused, f->fresh),
	       f->copies, S_pct(f->copies_refused, f->copies));
}

static void test_labelled(void **state)
{
	static const char *const files[] = {"labelled.tsv", "kubernetes.tsv", "storage.tsv",
	                                    "webops.tsv"};
	struct figures fig[2];
	size_t i;
	(void)state;
	memset(fig, 0, sizeof(fig));
	for (i = 0; i < sizeof(files) / sizeof(*files); i++)
		S_base(files[i], fig);
	S_print("tuning bases", &fig[0]);
	S_print("held-out bases", &fig[1]);
	/* the targets (docs/similar.md), on the held-out bases */
	assert_true(S_pct(fig[1].para_caught, fig[1].para) >= 95);
	assert_true(S_pct(fig[1].first, fig[1].para) >= 95);
	assert_true(S_pct(fig[1].copies_refused, fig[1].copies) >= 100);
	assert_true(S_pct(fig[1].fresh_refused, fig[1].fresh) <= 3);
	assert_true(S_pct(fig[1].diff_refused, fig[1].diff) <= 10);
	assert_true(S_pct(fig[1].xtop3, fig[1].xpara) >= 90);
	/* and the tuning bases hold them too */
	assert_true(S_pct(fig[0].para_caught, fig[0].para) >= 95);
	assert_true(S_pct(fig[0].fresh_refused, fig[0].fresh) <= 3);
	assert_true(S_pct(fig[0].diff_refused, fig[0].diff) <= 10);
}

/* Returns the score of entry id for claim over the base at dir; sets
 * *rank to its rank (0: not found). */
static double S_score_of(const char *dir, const char *id, const char *claim, size_t *rank)
{
	struct dtk_kb *kb = S_load(dir);
	size_t n;
	struct dtk_similar_hit *h = S_rank(kb, NULL, claim, &n);
	double score;
	*rank = S_rank_of(h, n, id);
	score = *rank ? h[*rank - 1].score : 0;
	free(h);
	dtk_kb_free(kb);
	return score;
}

/* A base teaches its own equivalents: _glossary.yaml, validated. */
static void test_glossary(void **state)
{
	static const char claim[] = "创建或重命名文件改的是目录项；目录没 fsync 前崩溃，新文件名"
	                            "可能丢失。";
	char *path = dtk_path_join(DTK_SOURCE_DIR "/tests/similar", "storage.tsv"), *text, *dir;
	size_t len, rank_before, rank_after;
	double before, after;
	struct t_run r;
	(void)state;
	assert_int_equal(dtk_file_read(&text, &len, path, 1u << 24), 0);
	dir = S_make(text, "storage");
	before = S_score_of(dir, "wal-durability-006", claim, &rank_before);
	t_write_str(dir, "insights/_glossary.yaml",
	            "# words of this field, one term each\n"
	            "- id: directory\n  terms: [目录, directory, dir]\n"
	            "- id: file\n  terms: [文件, file]\n"
	            "- id: rename\n  terms:\n    - 重命名\n    - rename\n"
	            "- id: crash\n  terms: [崩溃, crash]\n"
	            "- id: create\n  terms: [创建, create, creating]\n"
	            "- id: lose\n  terms: [丢失, lose, lost]\n");
	after = S_score_of(dir, "wal-durability-006", claim, &rank_after);
	printf("glossary: %.2f (rank %zu) without it, %.2f (rank %zu) with it\n", before,
	       rank_before, after, rank_after);
	assert_true(before < DTK_SIMILAR_LIKELY);
	assert_true(after >= DTK_SIMILAR_LIKELY);
	assert_int_equal(rank_after, 1);
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	/* what is wrong, where */
	t_write_str(dir, "insights/_glossary.yaml",
	            "- id: directory\n  terms: [目录, directory]\n"
	            "- id: Directory\n  terms: [folder]\n"
	            "- id: file\n  terms: [file, 目录, write ahead]\n"
	            "- id: file\n  terms: [x, y]\n  note: n\n");
	RUN(r, dir, 2, "check");
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:3:7: error: id 'Directory' is not "
	                              "a valid name"));
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:4:10: error: 'terms' must be a "
	                              "list of two or more words, found fewer"));
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:6:17: error: '目录' is a term of "
	                              "glossary item 'directory' already"));
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:6:21: error: a term is one word"));
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:7:7: error: glossary item 'file' is "
	                              "listed twice"));
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:9:3: error: unknown key 'note'"));
	t_run_free(&r);
	t_write_str(dir, "insights/_glossary.yaml", "terms: [a, b]\n");
	RUN(r, dir, 2, "check");
	assert_non_null(strstr(r.err, "insights/_glossary.yaml:1:1: error: _glossary.yaml must be "
	                              "a list"));
	t_run_free(&r);
	t_done(dir);
	free(text);
	free(path);
}

/* Returns the line of out (ids, one a line) that is id, 1-based; 0: none. */
static size_t S_line_of(const char *out, const char *id)
{
	size_t line = 1, len = strlen(id);
	const char *p;
	for (p = out; *p; line++) {
		if (!strncmp(p, id, len) && p[len] == '\n')
			return line;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return 0;
}

/* Search takes the gate's equivalents: a Chinese word finds English entries
 * and back, stems, a base's own glossary, a node's category; the words as
 * given rank first. */
static void test_search_equivalents(void **state)
{
	char *dir = t_mkdtemp(), *ins = t_src("insights"), *to = dtk_path_join(dir, "insights"),
	     *path, *text, *base;
	struct t_run r;
	size_t len;
	(void)state;
	t_copytree(ins, to);
	/* 长上下文: as given in two entries, and "context" (上下) in the
	 * long-context-training node's ids: Ring Attention and Ulysses */
	RUN(r, dir, 0, "search", "长上下文", "--format", "ids");
	assert_true(S_line_of(r.out, "large-scale-training-002") <= 2);
	assert_true(S_line_of(r.out, "long-context-training-003") <= 2);
	assert_true(S_line_of(r.out, "long-context-training-001") > 2);
	assert_true(S_line_of(r.out, "long-context-training-002") > 2);
	t_run_free(&r);
	/* an English stem: "trained" finds "training" */
	RUN(r, dir, 0, "search", "ulysses", "trained", "--format", "ids");
	assert_true(S_line_of(r.out, "long-context-training-002") > 0);
	t_run_free(&r);
	/* a category's name */
	RUN(r, dir, 0, "search", "规模与场景", "--format", "ids");
	assert_true(S_line_of(r.out, "multimodal-training-001") > 0);
	assert_int_equal(S_line_of(r.out, "collective-communication-001"), 0);
	t_run_free(&r);
	t_done(dir);
	free(ins);
	free(to);
	/* a base's own glossary: 目录 finds the English entry on directories */
	path = dtk_path_join(DTK_SOURCE_DIR "/tests/similar", "storage.tsv");
	assert_int_equal(dtk_file_read(&text, &len, path, 1u << 24), 0);
	base = S_make(text, "storage");
	RUN(r, base, 1, "search", "目录", "--format", "ids");
	t_run_free(&r);
	t_write_str(base, "insights/_glossary.yaml",
	            "- id: directory\n  terms: [目录, directory]\n");
	RUN(r, base, 0, "search", "目录", "--format", "ids");
	assert_true(S_line_of(r.out, "wal-durability-006") > 0);
	t_run_free(&r);
	t_done(base);
	free(text);
	free(path);
}

/* ---- the index of terms: the same hits as reading every entry ---- */

/* The load of dtk add's check (write.c): the nodes the index holds as their
 * summaries. */
#define S_IX_LOAD (DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_INDEX | DTK_KB_TERMS)
/* Every entry read: no node cache, no index. */
#define S_REF_LOAD (DTK_KB_ALL | DTK_KB_TERMS | DTK_KB_NO_CACHE)

/* Loads the base at root with what, mem[0..n_mem) standing in for its
 * files. */
static struct dtk_kb *S_load_mem(const char *root, int what, const struct dtk_memfile *mem,
                                 size_t n_mem)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	if (dtk_kb_load(&kb,
	                &(struct dtk_kb_load_opts){
	                        .root = root, .what = what, .files = mem, .n_files = n_mem},
	                &d))
		dtk_diags_print(&d, stderr);
	assert_non_null(kb);
	dtk_diags_release(&d);
	return kb;
}

/* Asserts that hits a[0..na) and b[0..nb) are the same: entries, scores to
 * the bit, same claims. */
static void S_same(const struct dtk_similar_hit *a, size_t na, const struct dtk_similar_hit *b,
                   size_t nb)
{
	size_t i;
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_string_equal(a[i].entry->id, b[i].entry->id);
		assert_string_equal(a[i].entry->title, b[i].entry->title);
		assert_true(a[i].score == b[i].score);
		assert_int_equal(a[i].same, b[i].same);
	}
}

/* Asserts that ranking title and claim (skip left out) gives the same hits
 * over ix (loaded with the index) as over ref (every entry read), all of
 * them and the best few. */
static void S_same_rank(const struct dtk_kb *ix, const struct dtk_kb *ref, const char *title,
                        const char *claim, const char *skip)
{
	struct dtk_similar_query q = {.title = title, .claim = claim, .skip = skip};
	struct dtk_similar_hit *a, *b;
	size_t na, nb;

	for (q.limit = 0; q.limit <= DTK_SIMILAR_SHOWN; q.limit += DTK_SIMILAR_SHOWN) {
		assert_int_equal(dtk_similar_rank(&a, &na, ix, &q), 0);
		assert_int_equal(dtk_similar_rank(&b, &nb, ref, &q), 0);
		S_same(a, na, b, nb);
		free(a);
		free(b);
	}
}

/* Asserts that dtk add's check of entry id gives the same verdict and
 * closest entries over ix as over ref, the closest named or not. */
static void S_same_check(const struct dtk_kb *ix, const struct dtk_kb *ref, const char *id)
{
	const char *named[DTK_SIMILAR_SHOWN];
	struct dtk_similar_hit *a, *b, *c;
	size_t na, nb, nc, i;

	assert_int_equal(dtk_similar_check(&a, &na, ix, id, NULL, 0),
	                 dtk_similar_check(&b, &nb, ref, id, NULL, 0));
	S_same(a, na, b, nb);
	for (i = 0; i < nb; i++)
		named[i] = b[i].entry->id;
	free(a);
	assert_int_equal(dtk_similar_check(&a, &na, ix, id, named, nb),
	                 dtk_similar_check(&c, &nc, ref, id, named, nb));
	S_same(a, na, c, nc);
	free(a);
	free(b);
	free(c);
}

/* Returns how many nodes of kb came as their summaries, held by its index. */
static size_t S_held(const struct dtk_kb *kb)
{
	size_t i, n = 0;
	for (i = 0; i < kb->n_nodes; i++)
		n += dtk_kb_node_held(kb->nodes[i]);
	return n;
}

/* Returns the path of the index of the base at dir (free). */
static char *S_ix_path(const char *dir)
{
	char *real = realpath(dir, NULL), *path = dtk_cache_path(real, "terms");
	free(real);
	return path;
}

/* Compares the hits over ix and ref of the cases of text (kind, target,
 * title, claim) and of entries of ref's nodes (left out as they are
 * ranked). Returns the comparisons made. */
static size_t S_compare_rank(const struct dtk_kb *ix, const struct dtk_kb *ref, const char *text)
{
	char *copy = dtk_xstrdup(text), *line, *next, *f[6];
	size_t i, k, n = 0;

	for (i = 0; i < ref->n_nodes; i++) /* an entry of each node, left out */
		for (k = 0; k < ref->nodes[i]->n_entries; k += 7, n++)
			S_same_rank(ix, ref, ref->nodes[i]->entries[k].title,
			            ref->nodes[i]->entries[k].claim, ref->nodes[i]->entries[k].id);
	for (line = copy; line && *line; line = next, n++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line == '#' || !*line || !strncmp(line, "entry\t", 6))
			continue;
		k = S_fields(line, f, 6);
		S_same_rank(ix, ref, f[k - 2], f[k - 1], NULL);
	}
	free(copy);
	return n;
}

/* Compares, over the base at dir with its index, the hits of the cases of
 * text (S_compare_rank) and dtk add's check of new entries of its first
 * node (given in memory, as dtk add gives its files: that node changed
 * since the index was written): a copy of an entry's claim of another node,
 * another claim written otherwise, words of the base in another order, and
 * words of its own. Returns the comparisons made. */
static size_t S_compare(const char *dir, const char *text)
{
	static const char *const claims[] = {NULL, NULL, "rollout 训练 throughput checkpoint",
	                                     "zyxq wvut"};
	struct dtk_kb *ref = S_load_mem(dir, DTK_KB_ALL | DTK_KB_TERMS, NULL, 0), *ix, *wh;
	struct dtk_buf b = DTK_BUF_INIT, c = DTK_BUF_INIT;
	char rel[300], id[300], name[128], *node_text;
	struct dtk_memfile mem;
	size_t i, len, n;

	/* the node file with the new entries, in memory */
	snprintf(name, sizeof(name), "%s", ref->nodes[0]->name);
	snprintf(rel, sizeof(rel), "insights/%s.yaml", name);
	node_text = t_read(dir, rel, &len);
	dtk_buf_put(&b, node_text, len);
	for (i = 0; i < sizeof(claims) / sizeof(*claims); i++) {
		c.len = 0;
		dtk_buf_puts(&c, claims[i] ? claims[i]
		                           : ref->nodes[ref->n_nodes - i - 1]->entries[i].claim);
		if (i == 1)
			dtk_buf_puts(&c, "  !");
		dtk_buf_printf(&b, "  - id: %s-9%zu0\n    title: \"new %zu\"\n    claim: ", name, i,
		               i);
		S_quoted(&b, c.ptr);
		dtk_buf_puts(&b,
		             "\n    confidence: low\n    source: ref\n    created: 2026-02-01\n");
	}
	mem = (struct dtk_memfile){rel + strlen("insights/"), b.ptr, b.len};
	dtk_kb_free(ref);
	ref = S_load_mem(dir, S_REF_LOAD, &mem, 1);
	ix = S_load_mem(dir, S_IX_LOAD, &mem, 1);
	/* every node whole, those it holds read from it (dtk similar's load) */
	wh = S_load_mem(dir, DTK_KB_ALL | DTK_KB_TERMS, &mem, 1);
	assert_non_null(wh->terms_index);
	assert_int_equal(S_held(wh), 0);
	assert_int_equal(S_held(ix), ix->n_nodes - 1); /* all but the node changed */
	for (i = 1; i < ref->n_nodes; i++) {           /* what --distinct-from names, held */
		const struct dtk_entry *e = &ref->nodes[i]->entries[0];
		assert_null(dtk_kb_entry(ix, e->id));
		assert_string_equal(dtk_similar_entry(ix, e->id)->title, e->title);
	}
	n = S_compare_rank(ix, ref, text) + S_compare_rank(wh, ref, text);
	for (i = 0; i < sizeof(claims) / sizeof(*claims); i++, n += 2) {
		snprintf(id, sizeof(id), "%s-9%zu0", name, i);
		S_same_check(ix, ref, id);
		S_same_check(wh, ref, id);
	}
	dtk_kb_free(ix);
	dtk_kb_free(wh);
	dtk_kb_free(ref);
	dtk_buf_release(&b);
	dtk_buf_release(&c);
	free(node_text);
	return n;
}

/* Writes the index of the base at dir (dtk add's check of an entry over a
 * load without one writes it) and asserts it is there. */
static void S_index(const char *dir)
{
	struct dtk_kb *kb = S_load_mem(dir, DTK_KB_ALL | DTK_KB_TERMS, NULL, 0);
	char *path = S_ix_path(dir);
	struct dtk_similar_hit *h;
	struct stat st;
	size_t n;

	assert_true(dtk_similar_check(&h, &n, kb, kb->nodes[0]->entries[0].id, NULL, 0) >= 0);
	free(h);
	assert_int_equal(stat(path, &st), 0);
	dtk_kb_free(kb);
	free(path);
}

/* Changes byte at of the file at path (from its end when at < 0). */
static void S_corrupt(const char *path, long at)
{
	char *text;
	size_t len;
	FILE *f;
	assert_int_equal(dtk_file_read(&text, &len, path, 1u << 30), 0);
	text[at < 0 ? (long)len + at : at] ^= 0x55;
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(text);
}

/* The index gives the hits reading every entry gives, on the bases of
 * tests/similar/ (one with a glossary of its own): the nodes it holds read
 * from it, the node changed since from its file. When it does not read as
 * written (a byte changed in its postings, or its head's part), the same
 * hits, and it is written again. */
static void test_index(void **state)
{
	static const char *const files[] = {"kubernetes.tsv", "storage.tsv", "webops.tsv"};
	char *cache = t_mkdtemp();
	size_t i, n = 0;
	(void)state;
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1); /* the records trusted at once */
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *path = dtk_path_join(DTK_SOURCE_DIR "/tests/similar", files[i]), *text, *dir,
		     *copy, *ix;
		size_t len;

		assert_int_equal(dtk_file_read(&text, &len, path, 1u << 24), 0);
		copy = dtk_xstrdup(text);
		dir = S_make(copy, "b");
		free(copy);
		if (i == 1)
			t_write_str(dir, "insights/_glossary.yaml",
			            "- id: directory\n  terms: [目录, directory, dir]\n"
			            "- id: crash\n  terms: [崩溃, crash, fsync]\n");
		S_index(dir);
		n += S_compare(dir, text);
		ix = S_ix_path(dir);
		/* a node of three changed since: the check removed it */
		assert_int_equal(access(ix, F_OK), -1);
		S_index(dir);
		S_corrupt(ix, -3); /* in the postings: opened, found so when read */
		{
			struct dtk_kb *a = S_load_mem(dir, S_IX_LOAD, NULL, 0),
			              *b = S_load_mem(dir, S_REF_LOAD, NULL, 0);
			assert_int_equal(S_held(a), a->n_nodes);
			n += S_compare_rank(a, b, text);
			assert_int_equal(access(ix, F_OK), -1); /* removed */
			dtk_kb_free(a);
			dtk_kb_free(b);
		}
		S_index(dir);
		S_corrupt(ix, 100); /* in the nodes: not opened */
		{
			struct dtk_kb *a = S_load_mem(dir, S_IX_LOAD, NULL, 0);
			assert_int_equal(S_held(a), 0);
			dtk_kb_free(a);
		}
		t_done(dir);
		free(ix);
		free(text);
		free(path);
	}
	printf("index: %zu comparisons, the same hits with it and without\n", n);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	t_done(cache);
}

/* Sets the 32 bits at at of the index at path to v, its head's sum made
 * again over its tables when sum is set (a hostile file, not a torn one). */
static void S_poke(const char *path, size_t at, uint32_t v, int sum)
{
	char *text;
	size_t len, meta;
	uint32_t n[4];
	uint64_t posts, h;
	FILE *f;
	assert_int_equal(dtk_file_read(&text, &len, path, 1u << 30), 0);
	assert_true(at + 4 <= len);
	memcpy(text + at, &v, 4);
	if (sum) { /* the head: magic, key[2], 4 counts, posts_len, sum */
		memcpy(n, text + 24, sizeof(n));
		memcpy(&posts, text + 40, 8);
		meta = len - 56 - (size_t)posts;
		h = dtk_cache_sum(text + 56, meta);
		memcpy(text + 48, &h, 8);
	}
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(text);
}

/* A hostile index (sizes that wrap, a term's count beyond its postings, a
 * FIFO in its place) is not opened, and a load is not blocked; a check
 * that finds its mapped index damaged removes it only while its path still
 * names that file, not one another process has written since. */
static void test_index_hostile(void **state)
{
	char *cache = t_mkdtemp(), *path, *tsv, *copy, *text, *dir, *ix, *fresh;
	struct dtk_kb *a, *b;
	FILE *f;
	uint32_t counts[4];
	uint64_t posts, wrap;
	size_t len, terms;
	(void)state;
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1);
	path = dtk_path_join(DTK_SOURCE_DIR "/tests/similar", "kubernetes.tsv");
	assert_int_equal(dtk_file_read(&tsv, &len, path, 1u << 24), 0);
	copy = dtk_xstrdup(tsv);
	dir = S_make(copy, "b");
	free(copy);
	ix = S_ix_path(dir);
	S_index(dir);
	{ /* posts_len that wraps the size sum to the file's size */
		char *bytes;
		size_t n;
		assert_int_equal(dtk_file_read(&bytes, &n, ix, 1u << 30), 0);
		memcpy(counts, bytes + 24, sizeof(counts));
		memcpy(&posts, bytes + 40, 8);
		free(bytes);
		S_poke(ix, 24, 0x10000000u, 0);
		wrap = (uint64_t)n - 56 -
		       ((uint64_t)0x10000000u * 32 + (uint64_t)counts[1] * 16 +
		        (uint64_t)counts[2] * 16 + counts[3]);
		S_poke(ix, 40, (uint32_t)wrap, 0);
		S_poke(ix, 44, (uint32_t)(wrap >> 32), 0);
		a = S_load_mem(dir, S_IX_LOAD, NULL, 0);
		assert_int_equal(S_held(a), 0);
		dtk_kb_free(a);
	}
	unlink(ix);
	S_index(dir);
	terms = 56 + (size_t)counts[0] * 32 + (size_t)counts[1] * 16;
	S_poke(ix, terms + 4, 0xfffffff0u, 1); /* the first term's count */
	a = S_load_mem(dir, S_IX_LOAD, NULL, 0);
	assert_int_equal(S_held(a), 0);
	dtk_kb_free(a);
	unlink(ix);
	S_index(dir);
	/* the last node's entries begin one before its own (its count beyond
	 * its live entries), the node before it holds one less (as
	 * fuzz/regress/index-whole-count-beyond-live): a ranking over the nodes
	 * whole takes neither from the index */
	{
		size_t at = 56 + ((size_t)counts[0] - 2) * 32 + 16, n;
		uint32_t node[2]; /* the one before the last: its first entry, its count */
		char *bytes;
		assert_int_equal(dtk_file_read(&bytes, &n, ix, 1u << 30), 0);
		memcpy(node, bytes + at, sizeof(node));
		free(bytes);
		S_poke(ix, at + 4, node[1] - 1, 0);
		S_poke(ix, at + 32, node[0] + node[1] - 1, 0);
		S_poke(ix, at + 36, counts[1] - node[0] - node[1] + 1, 1);
	}
	a = S_load_mem(dir, DTK_KB_ALL | DTK_KB_TERMS, NULL, 0);
	b = S_load_mem(dir, S_REF_LOAD, NULL, 0);
	S_compare_rank(a, b, tsv);
	dtk_kb_free(a);
	dtk_kb_free(b);
	unlink(ix);
	assert_int_equal(mkfifo(ix, 0600), 0); /* not waited for */
	a = S_load_mem(dir, S_IX_LOAD, NULL, 0);
	assert_int_equal(S_held(a), 0);
	dtk_kb_free(a);
	unlink(ix);
	S_index(dir);
	a = S_load_mem(dir, S_IX_LOAD, NULL, 0); /* maps the index */
	b = S_load_mem(dir, S_REF_LOAD, NULL, 0);
	assert_int_equal(S_held(a), a->n_nodes);
	fresh = dtk_path_join(cache, "fresh");
	assert_int_equal(dtk_file_read(&text, &len, ix, 1u << 30), 0);
	assert_non_null(f = fopen(fresh, "wb")); /* a copy, whole */
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	S_corrupt(ix, -3);                      /* the file a maps, damaged */
	assert_int_equal(rename(fresh, ix), 0); /* another writer's, in its place */
	S_compare_rank(a, b, tsv);
	assert_int_equal(access(ix, F_OK), 0); /* the other writer's kept */
	dtk_kb_free(a);
	dtk_kb_free(b);
	free(fresh);
	free(text);
	free(tsv);
	t_done(dir);
	free(ix);
	free(path);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	t_done(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_labelled),           cmocka_unit_test(test_glossary),
	        cmocka_unit_test(test_search_equivalents), cmocka_unit_test(test_index),
	        cmocka_unit_test(test_index_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
