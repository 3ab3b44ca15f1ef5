/* gen.c: writes a synthetic knowledge base that follows docs/schema.md, for
 * benchmarking dtk.
 *
 *   bench/gen --nodes N --entries M [--sources K] [--seed S] --out DIR
 *
 * writes DIR/insights/{_domain,_sources,_crystallizations}.yaml and N node files
 * of M entries each (no INDEX.md: run `dtk reindex`). The same arguments give
 * the same bytes (xorshift64*, no rand(), no clock, no locale).
 *
 * What it writes: K sources (default max(50, N); more than 4 N get short
 * titles and fewer urls); categories of about 25 nodes (at most 40
 * categories), five hotspots, three gaps (two flagged by an entry), the default
 * policy; three crystallization records, monthly, the last on 2026-06-24, each
 * with `since` after the first. Per entry: a title of 10-40 characters, a
 * claim of 300-900 bytes mixing technical words and Chinese (a folded scalar),
 * 12% high (2-3 verified_by), 58% medium (0-3), 30% low (0-1), verified_by
 * distinct and never the source, created 2025-09-01..2026-06-23 in file order,
 * 40% reviewed (not before created), the counters used/cited/closed, half with
 * 1-3 relates to other entries of the node, 4% with a contradiction (85%
 * resolved). One node in ten has 1-3 entries created after the last record, so
 * `crystallize --plan` has review pairs to list. 1000 x 100 is about 75 MB.
 *
 * --shape seed: the shipped base's proportions instead (the sizes of
 * INDEX.md in docs/index-format.md): 4% high, 2% candidates (one verified_by;
 * the other entries none), 0.6 hotspots and 0.4 gaps a node, about
 * 1.5 sqrt(N) categories, titles of 16-60 characters, stances of 50-100. */
#define _POSIX_C_SOURCE 200809L
#include "gentext.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DOMAIN "synthetic-bench"
#define LINE_WIDTH 96 /* folded claims wrap at spaces near this many bytes */

struct gen {
	unsigned nodes, entries, sources;
	int seed_shape; /* --shape seed */
	const char *out;
	struct gen_rng rng;
	char **node_names, **source_names;
	long start, last_run; /* first possible created date; last record's date */
	struct gen_buf tmp;
	unsigned long long bytes;
};

static const char *const S_blooms[] = {"remember", "understand", "apply",
                                       "analyze",  "evaluate",   "create"};

/* Returns a malloc'ed string formatted as printf does; aborts when out of
 * memory. The caller frees it. */
__attribute__((format(printf, 1, 2))) static char *S_strf(const char *fmt, ...)
{
	va_list ap;
	int len;
	char *s;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = len < 0 ? NULL : malloc((size_t)len + 1);
	if (!s) {
		fputs("gen: out of memory\n", stderr);
		abort();
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Returns node i's name: two words and a letter suffix, unique by i. It never
 * ends in digits, so no node name reads as an entry id. */
static char *S_node_name(unsigned i)
{
	char suffix[8];
	unsigned w = gen_name_words(), k = i, n = 0;

	do { /* base 26, at least three letters */
		suffix[n++] = (char)('a' + k % 26);
		k /= 26;
	} while ((k || n < 3) && n < sizeof(suffix) - 1);
	suffix[n] = '\0';
	return S_strf("%s-%s-%s", gen_name_word(i), gen_name_word(i / w + 7 * i + 3), suffix);
}

/* Opens DIR/insights/name for writing; returns NULL after a message. */
static FILE *S_open(struct gen *g, const char *name)
{
	char *path = S_strf("%s/insights/%s", g->out, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "gen: cannot write %s: %s\n", path, strerror(errno));
	free(path);
	return f;
}

/* Closes f, adding its size to the total; returns 0, or -1 after a message. */
static int S_close(struct gen *g, FILE *f, const char *name)
{
	long size = ftell(f);
	int bad = ferror(f);

	if (fclose(f) != 0 || bad || size < 0) {
		fprintf(stderr, "gen: error writing %s\n", name);
		return -1;
	}
	g->bytes += (unsigned long long)size;
	return 0;
}

/* Writes s as the lines of a folded block scalar, wrapped at spaces only so
 * that folding gives back s exactly. */
static void S_put_folded(FILE *f, const char *s, const char *indent)
{
	while (*s) {
		size_t n = strlen(s), cut;
		const char *sp;
		if (n <= LINE_WIDTH) {
			fprintf(f, "%s%s\n", indent, s);
			return;
		}
		for (cut = LINE_WIDTH; cut > 0 && s[cut] != ' '; cut--)
			;
		if (cut == 0) {
			sp = strchr(s + LINE_WIDTH, ' ');
			cut = sp ? (size_t)(sp - s) : n;
		}
		fprintf(f, "%s%.*s\n", indent, (int)cut, s);
		s += cut + (s[cut] == ' ');
	}
}

/* Returns gen's scratch buffer holding a fresh phrase (see gen_phrase). */
static const char *S_phrase(struct gen *g, unsigned min, unsigned max, int punct)
{
	gen_buf_clear(&g->tmp);
	gen_phrase(&g->rng, &g->tmp, min, max, punct);
	return g->tmp.p;
}

/* Returns the length to ask of a claim: 300 to 840 bytes, most of them short
 * (300 + 540 u^4, mean 408); a claim overshoots by less than one run of text
 * (60 bytes), so claims are 300-900 bytes. The mean sets the base's size:
 * 1000 x 100 is about 75 MB. */
static size_t S_claim_bytes(struct gen_rng *r)
{
	double u = (double)(gen_rng_next(r) >> 11) / 9007199254740992.0; /* [0, 1) */
	return 300 + (size_t)(540.0 * u * u * u * u);
}

/* Returns a random index in [0, n) other than the ones in used[0..k). */
static unsigned S_pick_other(struct gen *g, unsigned n, const unsigned *used, unsigned k)
{
	for (;;) {
		unsigned x = gen_rng_range(&g->rng, 0, n - 1), i;
		for (i = 0; i < k && used[i] != x; i++)
			;
		if (i == k)
			return x;
	}
}

/* qsort's comparison of two longs: returns <0, 0 or >0. */
static int S_cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Writes entry j of node i, created on day created. */
static void S_entry(struct gen *g, FILE *f, unsigned i, unsigned j, long created)
{
	struct gen_rng *r = &g->rng;
	const char *node = g->node_names[i];
	unsigned pick[5], nv, k, conf = gen_rng_range(r, 0, 99);
	char date[11];

	fprintf(f, "  - id: %s-%03u\n", node, j + 1);
	fprintf(f, "    title: %s\n",
	        g->seed_shape ? S_phrase(g, 16, 60, 0) : S_phrase(g, 10, 40, 0));
	gen_buf_clear(&g->tmp);
	gen_paragraph(r, &g->tmp, S_claim_bytes(r));
	fputs("    claim: >-\n", f);
	S_put_folded(f, g->tmp.p, "      ");

	/* confidence, then sources: high needs two or more verifications */
	conf = conf < (g->seed_shape ? 4 : 12) ? 0 : conf < 70 ? 1 : 2;
	nv = conf == 0       ? gen_rng_range(r, 2, 3)
	     : g->seed_shape ? gen_rng_range(r, 0, 95) < 2 /* of all: 2% */
	     : conf == 1     ? (unsigned[]){0, 0, 0, 0, 1, 1, 1, 2, 2, 3}[gen_rng_range(r, 0, 9)]
	                     : gen_rng_range(r, 0, 1);
	fprintf(f, "    confidence: %s\n", (const char *[]){"high", "medium", "low"}[conf]);
	pick[0] = gen_rng_range(r, 0, g->sources - 1);
	fprintf(f, "    source: %s\n", g->source_names[pick[0]]);
	if (nv) {
		fputs("    verified_by: [", f);
		for (k = 1; k <= nv; k++) {
			pick[k] = S_pick_other(g, g->sources, pick, k);
			fprintf(f, "%s%s", k > 1 ? ", " : "", g->source_names[pick[k]]);
		}
		fputs("]\n", f);
	}

	fprintf(f, "    created: %s\n", gen_date(date, created));
	if (gen_rng_pct(r, 40)) {
		/* cap > created: entries are created by last_run + 26 */
		long rev = created + gen_rng_range(r, 0, 150), cap = g->last_run + 28;
		fprintf(f, "    reviewed: %s\n", gen_date(date, rev > cap ? cap : rev));
	}
	if (gen_rng_pct(r, 68))
		fprintf(f, "    used: %u\n", gen_rng_range(r, 1, 20));
	if (gen_rng_pct(r, 55))
		fprintf(f, "    cited: %u\n", gen_rng_range(r, 1, 8));
	if (gen_rng_pct(r, 16))
		fputs("    closed: true\n", f);
	else if (gen_rng_pct(r, 10))
		fputs("    closed: false\n", f);

	if (g->entries >= 2 && gen_rng_pct(r, 50)) { /* other entries of this node */
		unsigned n = gen_rng_range(r, 1, g->entries - 1 < 3 ? g->entries - 1 : 3);
		pick[0] = j;
		fputs("    relates: [", f);
		for (k = 1; k <= n; k++) {
			pick[k] = S_pick_other(g, g->entries, pick, k);
			fprintf(f, "%s%s-%03u", k > 1 ? ", " : "", node, pick[k] + 1);
		}
		fputs("]\n", f);
	}
	if (g->entries >= 2 && gen_rng_pct(r, 4)) { /* this node's or the next one's */
		unsigned other_node = gen_rng_pct(r, 50) ? i : (i + 1) % g->nodes;
		pick[0] = j;
		k = other_node == i ? S_pick_other(g, g->entries, pick, 1)
		                    : gen_rng_range(r, 0, g->entries - 1);
		fprintf(f, "    contradicts:\n      - id: %s-%03u\n", g->node_names[other_node],
		        k + 1);
		fprintf(f, "        status: %s\n", gen_rng_pct(r, 85) ? "resolved" : "open");
		if (gen_rng_pct(r, 70))
			fprintf(f, "        note: %s\n", S_phrase(g, 10, 60, 1));
	}
}

/* Writes node i's file; returns 0 or -1. */
static int S_node(struct gen *g, unsigned i, long *created)
{
	struct gen_rng *r = &g->rng;
	char *name = S_strf("%s.yaml", g->node_names[i]);
	FILE *f = S_open(g, name);
	unsigned j, n_new = i % 10 == 3 ? gen_rng_range(r, 1, 3) : 0;
	int rc;

	if (!f) {
		free(name);
		return -1;
	}
	if (n_new > g->entries)
		n_new = g->entries;
	for (j = 0; j < g->entries; j++) /* file order is creation order */
		created[j] = j < g->entries - n_new ? gen_rng_range(r, (unsigned)g->start,
		                                                    (unsigned)g->last_run - 1)
		                                    : gen_rng_range(r, (unsigned)g->last_run + 1,
		                                                    (unsigned)g->last_run + 26);
	qsort(created, g->entries, sizeof(*created), S_cmp_long);

	fprintf(f, "node: %s\nbloom: %s\n", g->node_names[i], S_blooms[gen_rng_range(r, 0, 5)]);
	if (gen_rng_pct(r, 90))
		fprintf(f, "stance: %s\n",
		        g->seed_shape ? S_phrase(g, 50, 100, 1) : S_phrase(g, 30, 90, 1));
	fputs(g->entries ? "insights:\n" : "insights: []\n", f);
	for (j = 0; j < g->entries; j++)
		S_entry(g, f, i, j, created[j]);
	rc = S_close(g, f, name);
	free(name);
	return rc;
}

/* Returns a random entry id of the base in a static buffer (entries > 0). */
static const char *S_some_entry(struct gen *g)
{
	static char id[256];
	snprintf(id, sizeof(id), "%s-%03u", g->node_names[gen_rng_range(&g->rng, 0, g->nodes - 1)],
	         gen_rng_range(&g->rng, 1, g->entries));
	return id;
}

/* Writes _domain.yaml; returns 0 or -1. */
static int S_domain(struct gen *g)
{
	static const char *const domains[] = {"cluster-infra", "inference-system", "kvcache",
	                                      "agent-system"};
	struct gen_rng *r = &g->rng;
	FILE *f = S_open(g, "_domain.yaml");
	unsigned cats = g->nodes / 25, c, i, k, hot = g->nodes < 5 ? g->nodes : 5, gaps = 3;

	if (!f)
		return -1;
	cats = cats < 1 ? 1 : cats > 40 ? 40 : cats;
	if (g->seed_shape) { /* 1.5 sqrt(N) categories, 0.6 hotspots and 0.4 gaps a node */
		for (cats = 1; cats * cats * 4 < g->nodes * 9; cats++)
			;
		hot = (g->nodes * 6 + 5) / 10;
		gaps = (g->nodes * 4 + 5) / 10;
	}
	fprintf(f, "domain: %s\ntitle: Synthetic Benchmark Knowledge Index\n", DOMAIN);
	gen_buf_clear(&g->tmp);
	gen_paragraph(r, &g->tmp, 200);
	fputs("description: >-\n", f);
	S_put_folded(f, g->tmp.p, "  ");
	fputs("positioning: 合成基准\ncategories:\n", f);
	for (c = 0; c < cats; c++) {
		fprintf(f, "  - name: %s %02u\n    nodes: [", S_phrase(g, 2, 8, 0), c + 1);
		for (i = c * g->nodes / cats; i < (c + 1) * g->nodes / cats; i++)
			fprintf(f, "%s%s", i > c * g->nodes / cats ? ", " : "", g->node_names[i]);
		fputs("]\n", f);
	}
	fputs(hot ? "hotspots:\n" : "", f);
	for (k = 0; k < hot; k++) {
		unsigned n = gen_rng_range(r, 1, 2);
		fprintf(f, "  - node: %s\n    links: [", g->node_names[k * g->nodes / hot]);
		if (g->seed_shape) /* as long as the seed's */
			n = gen_rng_range(r, 1, 3);
		for (i = 0; i < n; i++)
			fprintf(f, "%s%s/%s-%s", i ? ", " : "", domains[(k + i) % 4],
			        gen_name_word(gen_rng_range(r, 0, 99)),
			        gen_name_word(gen_rng_range(r, 0, 99)));
		fprintf(f, "]\n    note: %s\n",
		        g->seed_shape ? S_phrase(g, 25, 90, 1) : S_phrase(g, 15, 60, 1));
	}
	fputs(gaps ? "gaps:\n" : "", f);
	for (k = 0; k < gaps; k++) {
		fprintf(f, "  - text: %s\n", S_phrase(g, 15, 50, 1));
		if ((g->seed_shape ? k % 2 == 0 : k < 2) && g->entries)
			fprintf(f, "    flagged_by: %s\n", S_some_entry(g));
	}
	fputs("policy:\n  stale_after_months: 6\n  high_min_verified: 2\n", f);
	return S_close(g, f, "_domain.yaml");
}

/* Writes _sources.yaml; returns 0 or -1. */
static int S_sources(struct gen *g)
{
	FILE *f = S_open(g, "_sources.yaml");
	unsigned i;
	char date[11];

	if (!f)
		return -1;
	for (i = 0; i < g->sources; i++) {
		/* many sources (--sources): short titles and fewer urls, as a
		 * long reading list has (33,000 sources are then about 2.9 MB) */
		fprintf(f, "- id: %s\n  title: %s\n", g->source_names[i],
		        g->sources > 4 * g->nodes ? S_phrase(g, 4, 14, 0) : S_phrase(g, 20, 60, 0));
		if (gen_rng_pct(&g->rng, g->sources > 4 * g->nodes ? 30 : 80))
			fprintf(f, "  url: https://example.org/papers/%s\n", g->source_names[i]);
		if (gen_rng_pct(&g->rng, 70))
			fprintf(f, "  read: %s\n",
			        gen_date(date, g->start + gen_rng_range(&g->rng, 0, 290)));
	}
	return S_close(g, f, "_sources.yaml");
}

/* Writes _crystallizations.yaml: three monthly records ending at last_run,
 * each after the first with `since`; returns 0 or -1. */
static int S_records(struct gen *g)
{
	struct gen_rng *r = &g->rng;
	FILE *f = S_open(g, "_crystallizations.yaml");
	long dates[3] = {g->last_run - 70, g->last_run - 35, g->last_run};
	char a[11], b[11];
	unsigned k;

	if (!f)
		return -1;
	for (k = 0; k < 3; k++) {
		fprintf(f, "- date: %s\n", gen_date(a, dates[k]));
		if (k)
			fprintf(f, "  since: %s\n", gen_date(b, dates[k - 1]));
		fprintf(f, "  new_entries: %u\n  high_changes: %u\n  stale: 0\n  earliest: %s\n",
		        gen_rng_range(r, 3, 40), gen_rng_range(r, 0, 2), gen_date(a, g->start));
		if (k == 1)
			fprintf(f, "  bloom_changes: {%s: analyze→evaluate}\n", g->node_names[0]);
		else
			fputs("  bloom_changes: {}\n", f);
		fprintf(f, "  stance_rewrites: %u\n  contradictions_new: %u\n",
		        gen_rng_range(r, 0, 4), k == 1);
		fprintf(f, "  eval: {scenario: scenario-%03u, verdict: acceptable}\n", k + 1);
		if (k != 2)
			continue;
		fprintf(f, "  review:\n    pairs: {%s: %u", g->node_names[0],
		        gen_rng_range(r, 1, 30));
		if (g->nodes > 1)
			fprintf(f, ", %s: %u", g->node_names[g->nodes - 1],
			        gen_rng_range(r, 1, 30));
		fputs("}\n", f);
		if (g->entries) {
			fprintf(f, "    cross_pairs: [\"%s↔", S_some_entry(g));
			fprintf(f, "%s\"]\n", S_some_entry(g));
		}
		fprintf(f, "    verdict: 均为限定或同源互补\n    note: %s\n",
		        S_phrase(g, 10, 40, 1));
	}
	return S_close(g, f, "_crystallizations.yaml");
}

/* Makes DIR and DIR/insights; refuses an insights/ that already holds YAML.
 * Returns 0 or -1 after a message. */
static int S_prepare(const char *out)
{
	char *ins = S_strf("%s/insights", out);
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if ((mkdir(out, 0777) && errno != EEXIST) || (mkdir(ins, 0777) && errno != EEXIST)) {
		fprintf(stderr, "gen: cannot create %s: %s\n", ins, strerror(errno));
		free(ins);
		return -1;
	}
	d = opendir(ins);
	while (d && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) {
			fprintf(stderr, "gen: %s already holds a base; remove it first\n", ins);
			rc = -1;
			break;
		}
	}
	if (d)
		closedir(d);
	free(ins);
	return rc;
}

/* Parses a whole number option value; returns 0 or -1 after a message. */
static int S_number(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	*out = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || *out > max || *s == '-') {
		fprintf(stderr, "gen: %s needs a whole number up to %lu\n", opt, max);
		return -1;
	}
	return 0;
}

static const char S_usage[] =
        "usage: gen --nodes N --entries M [--sources K] [--seed S] [--shape seed] --out DIR\n"
        "writes a synthetic knowledge base (DIR/insights/*.yaml) that dtk accepts;\n"
        "run `dtk -C DIR reindex` to write its INDEX.md\n";

int main(int argc, char **argv)
{
	struct gen g = {0};
	unsigned long nodes = 0, entries = 0, seed = 1, sources = 0;
	unsigned i;
	long *created = NULL;
	int rc = 1, a;

	for (a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(argv[a], "--nodes") && !S_number("--nodes", v, 100000, &nodes))
			a++;
		else if (!strcmp(argv[a], "--entries") &&
		         !S_number("--entries", v, 100000, &entries))
			a++;
		else if (!strcmp(argv[a], "--seed") && !S_number("--seed", v, 0xFFFFFFFFul, &seed))
			a++;
		else if (!strcmp(argv[a], "--sources") &&
		         !S_number("--sources", v, 1000000, &sources))
			a++;
		else if (!strcmp(argv[a], "--shape") && v && !strcmp(v, "seed") && ++a)
			g.seed_shape = 1;
		else if (!strcmp(argv[a], "--out") && v)
			g.out = argv[++a];
		else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			fputs(S_usage, stdout);
			return 0;
		} else {
			fputs(S_usage, stderr);
			return 2;
		}
	}
	if (!g.out || nodes == 0) {
		fputs(S_usage, stderr);
		return 2;
	}
	g.nodes = (unsigned)nodes;
	g.entries = (unsigned)entries;
	g.sources = sources ? (unsigned)sources : g.nodes > 50 ? g.nodes : 50;
	g.start = gen_days(2025, 9, 1);
	g.last_run = gen_days(2026, 6, 24);
	gen_rng_seed(&g.rng, seed);
	if (S_prepare(g.out) < 0)
		return 1;

	g.node_names = calloc(g.nodes, sizeof(char *));
	g.source_names = calloc(g.sources, sizeof(char *));
	created = calloc(g.entries + 1, sizeof(long));
	if (!g.node_names || !g.source_names || !created) {
		fputs("gen: out of memory\n", stderr);
		abort();
	}
	for (i = 0; i < g.nodes; i++)
		g.node_names[i] = S_node_name(i);
	for (i = 0; i < g.sources; i++)
		g.source_names[i] = S_strf("%s-%s-%04u", gen_name_word(i * 7 + 1),
		                           gen_name_word(i / 3 + 5), i + 1);

	if (S_domain(&g) < 0 || S_sources(&g) < 0 || S_records(&g) < 0)
		goto done;
	for (i = 0; i < g.nodes; i++)
		if (S_node(&g, i, created) < 0)
			goto done;
	printf("gen: %u nodes x %u entries, %u sources, %.1f MB in %s/insights\n", g.nodes,
	       g.entries, g.sources, (double)g.bytes / 1e6, g.out);
	rc = 0;
done:
	for (i = 0; i < g.nodes; i++)
		free(g.node_names[i]);
	for (i = 0; i < g.sources; i++)
		free(g.source_names[i]);
	free(g.node_names);
	free(g.source_names);
	free(created);
	gen_buf_free(&g.tmp);
	return rc;
}
