/*
 * fuzz_node.c: libFuzzer target for one node file. The input is the text of
 * insights/gamma.yaml in a small valid base held in memory; the whole loader
 * runs on it (YAML, schema, references) and, when it is valid, INDEX.md is
 * rendered. Any crash, leak, hang or sanitizer report is a bug.
 */
#include "dtk/index.h"
#include "dtk/kb.h"

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

	if (dtk_kb_load_mem(&kb, files, sizeof(files) / sizeof(*files), DTK_KB_ALL, &d) == 0) {
		free(dtk_index_render(kb));
		dtk_kb_free(kb);
	}
	dtk_diags_release(&d);
	return 0;
}
