/*
 * fuzz_index.c: libFuzzer target for the index of terms (similar_int.h), a
 * file of the user's git dir that may be damaged or hostile. A small fixed
 * base is written once in a temp dir (its caches there too); each input is
 * its first byte, the mode, then the bytes written as the base's index of
 * terms, the node cache's key put in its head. Mode bit 0 set: the
 * checksums are made again (a hostile file, that reads as written), and
 * the ranking must not fail (and, when the file is not opened, give the
 * hits of a load without it); clear: the file is as damaged as given, and
 * the hits must equal those of a load without it. Seeds: fuzz/regress/
 * index-*, a valid index in each mode.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "dtk/cache.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/similar.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the file's layout (similar_int.h): a head of 56 bytes (its counts at 24,
 * posts_len at 40, its checksum at 48), nodes of 32, entries and terms of 16 */
#define HEAD 56

#define IX_LOAD (DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_INDEX | DTK_KB_TERMS)
#define REF_LOAD (DTK_KB_ALL | DTK_KB_TERMS | DTK_KB_NO_CACHE)

static const char *const S_files[][2] = {
        {"_domain.yaml",
         "domain: x\ntitle: x\ndescription: x\npositioning: knowledge flywheel\n"
         "categories:\n  - name: Topics\n    nodes: [probes, rollouts, scheduling]\n"
         "lang: en\n"},
        {"_sources.yaml", "- id: ref\n  title: Reference\n"},
        {"_crystallizations.yaml", "[]\n"},
        {"probes.yaml",
         "node: probes\nbloom: apply\ninsights:\n"
         "  - id: probes-001\n    title: Liveness probes that check dependencies cause restart "
         "storms\n    claim: If the liveness probe fails when a database is slow, every replica "
         "is restarted at once.\n    confidence: medium\n    source: ref\n    created: "
         "2026-01-05\n"
         "  - id: probes-002\n    title: Readiness probes take a pod out of Service endpoints\n"
         "    claim: A failing readiness probe removes the pod from the Service endpoints "
         "without restarting it.\n    confidence: medium\n    source: ref\n    created: "
         "2026-01-05\n"
         "  - id: probes-003\n    title: Startup probes protect slow containers\n    claim: A "
         "startup probe disables liveness and readiness checks until it succeeds.\n"
         "    confidence: medium\n    source: ref\n    created: 2026-01-05\n"},
        {"rollouts.yaml",
         "node: rollouts\nbloom: apply\ninsights:\n"
         "  - id: rollouts-001\n    title: maxSurge and maxUnavailable control rolling update "
         "speed\n    claim: A rolling update creates up to maxSurge extra pods and allows up to "
         "maxUnavailable pods down.\n    confidence: medium\n    source: ref\n    created: "
         "2026-01-05\n"
         "  - id: rollouts-002\n    title: PodDisruptionBudgets limit voluntary evictions\n"
         "    claim: A PDB sets how many replicas may be down at once during node drains.\n"
         "    confidence: medium\n    source: ref\n    created: 2026-01-05\n"
         "  - id: rollouts-003\n    title: Readiness gates slow a rolling update\n    claim: A "
         "rolling update waits for each new pod to pass its readiness probe.\n"
         "    confidence: medium\n    source: ref\n    created: 2026-01-05\n"},
        {"scheduling.yaml",
         "node: scheduling\nbloom: apply\ninsights:\n"
         "  - id: scheduling-001\n    title: Requests drive scheduling, limits drive "
         "throttling\n    claim: The scheduler places a pod only on a node whose unreserved "
         "capacity covers its requests.\n    confidence: medium\n    source: ref\n    created: "
         "2026-01-05\n"
         "  - id: scheduling-002\n    title: CPU limits cause throttling even on idle nodes\n"
         "    claim: The CFS quota behind a CPU limit is enforced per 100 ms period.\n"
         "    confidence: medium\n    source: ref\n    created: 2026-01-05\n"
         "  - id: scheduling-003\n    title: Taints repel pods unless they tolerate them\n"
         "    claim: A taint on a node keeps off every pod without a matching toleration.\n"
         "    confidence: medium\n    source: ref\n    created: 2026-01-05\n"},
};
#define N_FILES (sizeof(S_files) / sizeof(S_files[0]))

/* the queries: a check of each entry named, and these texts ranked */
static const char *const S_checks[] = {"probes-001", "rollouts-003", "scheduling-002"};
static const char *const S_texts[][2] = {
        {"Readiness probes and rolling updates", "A pod that fails its readiness probe is "
                                                 "removed from endpoints during a rollout."},
        {"CPU limits", "The CFS quota behind a CPU limit is enforced per 100 ms period."},
};
#define N_QUERIES (sizeof(S_checks) / sizeof(S_checks[0]) + 2 * 2)

/* A hit as compared: its entry's id, score and sameness. */
struct hit {
	char id[32];
	double score;
	int same;
};
struct hits {
	struct hit *v;
	size_t n;
	int rc;
};

static char *S_dir, *S_ix;
static uint64_t S_key[2];
static struct hits S_ref[N_QUERIES];

static int S_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes the base and its caches at exit. */
static void S_cleanup(void)
{
	nftw(S_dir, S_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(S_dir);
	free(S_ix);
	S_dir = S_ix = NULL;
}

/* Loads the base with what; aborts when it cannot. */
static struct dtk_kb *S_load(int what)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	if (dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = S_dir, .what = what}, &d) < 0)
		abort();
	dtk_diags_release(&d);
	return kb;
}

/* Sets out[from..to) to the hits of those queries over kb. */
static void S_queries(struct hits *out, const struct dtk_kb *kb, size_t from, size_t to)
{
	size_t q, i;

	for (q = from; q < to; q++) {
		struct dtk_similar_hit *h = NULL;
		size_t n = 0;
		if (q < 3) {
			out[q].rc = dtk_similar_check(&h, &n, kb, S_checks[q], NULL, 0);
		} else {
			struct dtk_similar_query sq = {.title = S_texts[(q - 3) / 2][0],
			                               .claim = S_texts[(q - 3) / 2][1],
			                               .limit = (q - 3) % 2 ? 2 : 0};
			out[q].rc = dtk_similar_rank(&h, &n, kb, &sq);
		}
		out[q].v = calloc(n + 1, sizeof(*out[q].v));
		out[q].n = n;
		for (i = 0; i < n; i++) {
			snprintf(out[q].v[i].id, sizeof(out[q].v[i].id), "%s", h[i].entry->id);
			out[q].v[i].score = h[i].score;
			out[q].v[i].same = h[i].same;
		}
		free(h);
	}
}

/* Writes the base and its caches (the node cache, then the index of terms
 * a check writes), and the reference hits; aborts when it cannot. */
static void S_init(void)
{
	const char *tmp = getenv("TMPDIR");
	char *ins, *cache, *real;
	struct dtk_kb *kb;
	size_t i;

	S_dir = dtk_path_join(tmp && *tmp ? tmp : "/tmp", "dtk-fuzz-index.XXXXXX");
	if (!mkdtemp(S_dir))
		abort();
	atexit(S_cleanup);
	ins = dtk_path_join(S_dir, "insights");
	cache = dtk_path_join(S_dir, "cache");
	if (dtk_file_mkdirs(ins, 0777) < 0 || dtk_file_mkdirs(cache, 0777) < 0)
		abort();
	for (i = 0; i < N_FILES; i++) {
		char *p = dtk_path_join(ins, S_files[i][0]);
		if (dtk_file_write_atomic(p, S_files[i][1], strlen(S_files[i][1])) < 0)
			abort();
		free(p);
	}
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1); /* the caches trusted at once */
	unsetenv("DTK_NO_CACHE");
	real = realpath(S_dir, NULL);
	S_ix = dtk_cache_path(real, "terms");
	free(real);
	kb = S_load(DTK_KB_ALL | DTK_KB_TERMS); /* writes the node cache */
	dtk_kb_free(kb);
	kb = S_load(DTK_KB_ALL | DTK_KB_TERMS);
	{ /* a check writes the index; its head gives the key */
		struct dtk_similar_hit *h = NULL;
		size_t n;
		char *text;
		if (dtk_similar_check(&h, &n, kb, S_checks[0], NULL, 0) < 0)
			abort();
		free(h);
		if (!S_ix || dtk_file_read(&text, &n, S_ix, 1u << 20) < 0 || n < HEAD)
			abort();
		memcpy(S_key, text + 8, sizeof(S_key));
		if (getenv("DTK_FUZZ_INDEX_SEED")) { /* writes the seeds */
			FILE *f = fopen(getenv("DTK_FUZZ_INDEX_SEED"), "wb");
			if (!f || fputc(0, f) == EOF || fwrite(text, 1, n, f) != n || fclose(f))
				abort();
		}
		free(text);
	}
	dtk_kb_free(kb);
	kb = S_load(REF_LOAD);
	S_queries(S_ref, kb, 0, N_QUERIES);
	dtk_kb_free(kb);
	free(ins);
	free(cache);
}

static uint32_t S_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t S_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Makes the checksums of index b[0..n) again where its parts fit in it. */
static void S_resum(unsigned char *b, size_t n)
{
	uint64_t meta, posts, sum;
	uint32_t n_terms, i;

	if (n < HEAD)
		return;
	n_terms = S_u32(b + 32);
	posts = S_u64(b + 40);
	meta = (uint64_t)S_u32(b + 24) * 32 + (uint64_t)S_u32(b + 28) * 16 +
	       (uint64_t)n_terms * 16 + S_u32(b + 36);
	if (meta > n - HEAD)
		return;
	/* each term's postings: from its offset to the next's (the last's: posts_len) */
	for (i = 0; posts <= n - HEAD - meta && i < n_terms; i++) {
		unsigned char *t = b + HEAD + meta - S_u32(b + 36) - (uint64_t)(n_terms - i) * 16;
		uint64_t off = S_u32(t + 8), end = i + 1 < n_terms ? S_u32(t + 16 + 8) : posts;
		uint32_t s;
		if (off > end || end > posts)
			continue;
		s = (uint32_t)dtk_cache_sum((const char *)b + HEAD + meta + off, end - off);
		memcpy(t + 12, &s, sizeof(s));
	}
	sum = dtk_cache_sum((const char *)b + HEAD, meta);
	memcpy(b + 48, &sum, sizeof(sum));
}

/* Aborts unless a and b are the same hits. */
static void S_same(const struct hits *a, const struct hits *b)
{
	size_t i;
	if (a->rc != b->rc || a->n != b->n)
		abort();
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].id, b->v[i].id) || a->v[i].score != b->v[i].score ||
		    a->v[i].same != b->v[i].same)
			abort();
}

/* Writes b[0..n) as the base's index of terms; aborts when it cannot. */
static void S_put(const unsigned char *b, size_t n)
{
	int fd = open(S_ix, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b, n) != (ssize_t)n || close(fd) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hits got[N_QUERIES];
	unsigned char *b;
	struct dtk_kb *kb;
	size_t n, q;
	int opened;

	if (size < 1 || size > 65536)
		return 0;
	if (!S_dir)
		S_init();
	n = size - 1;
	b = malloc(n + 1);
	memcpy(b, data + 1, n);
	if (n >= HEAD)
		memcpy(b + 8, S_key, sizeof(S_key));
	if (data[0] & 1)
		S_resum(b, n);
	/* the texts over the nodes it holds as their summaries; the checks as
	 * dtk add's: the entry's node whole, the others ranked from the index
	 * as they are (the file put again: a ranking removes it when damaged) */
	S_put(b, n);
	kb = S_load(IX_LOAD);
	S_queries(got, kb, 3, N_QUERIES);
	opened = kb->terms_index != NULL;
	dtk_kb_free(kb);
	if (opened) { /* (else the checks' load would not open it either) */
		S_put(b, n);
		kb = S_load(DTK_KB_ALL | DTK_KB_TERMS);
		S_queries(got, kb, 0, 3);
		dtk_kb_free(kb);
	}
	free(b);
	for (q = opened ? 0 : 3; q < N_QUERIES; q++) {
		if (got[q].rc < 0)
			abort(); /* the index, whatever it holds, is an aid: no error */
		if (!(data[0] & 1) || !opened)
			S_same(&got[q], &S_ref[q]);
		free(got[q].v);
	}
	return 0;
}
