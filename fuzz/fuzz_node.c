/*
 * fuzz_node.c: libFuzzer target for one node file. The input is the text of
 * insights/gamma.yaml in a small valid base held in memory; the whole loader
 * runs on it (YAML, schema, references) and, when it is valid, INDEX.md is
 * rendered and each node goes through the node cache's packing: packed,
 * unpacked (borrowed and copied) and packed again, it must be the same
 * bytes, and unpacked lean, whole and from its head alone, to the same
 * node, else the target aborts; the input is also unpacked as if it were a
 * packed node. Any crash, leak, hang or sanitizer report
 * is a bug.
 */
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/nodecache.h"
#include "dtk/nodesum.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char S_domain[] = "domain: fuzz\ntitle: Fuzz\ndescription: d\npositioning: p\n"
                               "categories:\n  - {name: c, nodes: [alpha, gamma]}\n"
                               "hotspots:\n  - {node: gamma, links: [x/y], note: n}\n"
                               "gaps:\n  - {text: g, flagged_by: gamma-001}\n";
static const char S_sources[] = "- {id: s1, title: S1}\n- {id: s2, title: S2}\n"
                                "- {id: s3, title: S3}\n";
static const char S_alpha[] =
        "node: alpha\nbloom: apply\nstance: s\ninsights:\n"
        "  - {id: alpha-001, title: t, claim: c, confidence: high, source: s1,\n"
        "     verified_by: [s2, s3], created: 2026-01-01}\n";
static const char S_records[] =
        "- {date: 2026-02-01, new_entries: 1, high_changes: 0, stale: 0,\n"
        "   earliest: 2026-01-01, stance_rewrites: 0, contradictions_new: 0,\n"
        "   eval: {scenario: s, verdict: v}}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless node packs to the bytes of b. */
static void S_same_pack(const struct dtk_buf *b, const struct dtk_node *node)
{
	struct dtk_buf again = DTK_BUF_INIT;

	dtk_nodecache_pack(&again, node);
	if (again.len != b->len || memcmp(again.ptr, b->ptr, b->len))
		abort();
	dtk_buf_release(&again);
}

/* Unpacks data, any bytes, as a packed node in every form: it must fail
 * or give a node, never crash or read outside. */
static void S_unpack_any(const struct dtk_kb *kb, const uint8_t *data, size_t size)
{
	static const unsigned flags[] = {0, DTK_NODECACHE_BORROW, DTK_NODECACHE_LEAN};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
		struct dtk_arena *a = dtk_arena_new(), *s = dtk_arena_new();
		struct dtk_node *out;
		const struct dtk_node_sum *sum;
		struct dtk_sum_entry e;
		(void)dtk_nodecache_unpack(&out, kb, a, s, (const char *)data, size, "gamma",
		                           "insights/gamma.yaml", flags[i], NULL);
		/* and as a summary: read, then looked up in */
		if (i == 0 && (sum = dtk_nodesum_read(a, (const char *)data, size)) != NULL) {
			(void)dtk_nodesum_find(sum, "001", &e);
			(void)dtk_nodesum_open(sum, "gamma-001", "alpha-001");
		}
		dtk_arena_free(a);
		dtk_arena_free(s);
	}
}

/* Packs node's summary and reads it: aborts unless it reads, with every
 * entry id of node found in it. */
static void S_summary(const struct dtk_kb *kb, const struct dtk_node *node, struct dtk_arena *a)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const struct dtk_node_sum *sum;
	struct dtk_sum_entry e;
	size_t k, plen = strlen(node->name) + 1;

	dtk_nodesum_pack(&b, node, kb, DTK_NODESUM_RUN | DTK_NODESUM_SOURCES);
	if (!(sum = dtk_nodesum_read(a, b.ptr, b.len)))
		abort();
	for (k = 0; k < node->n_entries; k++)
		if (!dtk_nodesum_find(sum, node->entries[k].id + plen, &e))
			abort();
	dtk_buf_release(&b);
}

/* Packs each node of kb, unpacks it and packs it again: aborts unless the
 * bytes are the same. */
static void S_round_trip(const struct dtk_kb *kb)
{
	size_t i;
	int borrow;

	for (i = 0; i < kb->n_nodes; i++)
		for (borrow = 0; borrow < 2; borrow++) {
			struct dtk_buf one = DTK_BUF_INIT, two = DTK_BUF_INIT;
			struct dtk_arena *a = dtk_arena_new(), *s = dtk_arena_new();
			struct dtk_node *out;
			dtk_nodecache_pack(&one, kb->nodes[i]);
			if (dtk_nodecache_unpack(&out, kb, a, s, one.ptr, one.len,
			                         kb->nodes[i]->name, kb->nodes[i]->path, borrow,
			                         NULL) < 0)
				abort();
			dtk_nodecache_pack(&two, out);
			if (one.len != two.len || memcmp(one.ptr, two.ptr, one.len))
				abort();
			/* as a lean load unpacks it (check, reindex), whole and
			 * from its head alone (as a lean load reads it): the same */
			if (dtk_nodecache_unpack(&out, kb, a, s, one.ptr, one.len,
			                         kb->nodes[i]->name, kb->nodes[i]->path,
			                         DTK_NODECACHE_LEAN, NULL) < 0)
				abort();
			two.len = 0;
			dtk_nodecache_pack(&two, out);
			if (dtk_nodecache_unpack(&out, kb, a, s, one.ptr,
			                         dtk_nodecache_head_len(one.ptr, one.len),
			                         kb->nodes[i]->name, kb->nodes[i]->path,
			                         DTK_NODECACHE_LEAN, NULL) < 0)
				abort();
			S_same_pack(&two, out);
			S_summary(kb, kb->nodes[i], a);
			dtk_buf_release(&one);
			dtk_buf_release(&two);
			dtk_arena_free(a);
			dtk_arena_free(s);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dtk_memfile files[] = {
	        {"_domain.yaml", S_domain, sizeof(S_domain) - 1},
	        {"_sources.yaml", S_sources, sizeof(S_sources) - 1},
	        {"_crystallizations.yaml", S_records, sizeof(S_records) - 1},
	        {"alpha.yaml", S_alpha, sizeof(S_alpha) - 1},
	        {"gamma.yaml", (const char *)data, size},
	};
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;

	if (dtk_kb_load(&kb,
	                &(struct dtk_kb_load_opts){.what = DTK_KB_ALL,
	                                           .files = files,
	                                           .n_files = sizeof(files) / sizeof(*files)},
	                &d) == 0) {
		struct dtk_buf page = DTK_BUF_INIT;
		dtk_index_write_pages(kb, dtk_buf_write, &page, NULL);
		dtk_buf_release(&page);
		S_round_trip(kb);
		S_unpack_any(kb, data, size);
		dtk_kb_free(kb);
	}
	dtk_diags_release(&d);
	return 0;
}
