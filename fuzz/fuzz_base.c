/*
 * fuzz_base.c: libFuzzer target for a whole base. The input holds several
 * files in the format of tests/cases: sections opened by a line
 * "=== <name>" (the name of a file in insights/), so the case corpus seeds
 * it. The loader runs on all of them and, when valid, INDEX.md is rendered.
 */
#include "dtk/index.h"
#include "dtk/kb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Splits the input into memory files; returns how many. */
static size_t S_split(const char *p, const char *end, struct dtk_memfile *files, char names[][64])
{
	size_t n = 0;
	const char *body = NULL;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end;
		if (end - p > 4 && !memcmp(p, "=== ", 4) && n < MAX_FILES) {
			size_t len = (size_t)((eol ? eol : end) - (p + 4));
			const char *name = p + 4;
			if (len > 9 && !memcmp(name, "insights/", 9)) {
				name += 9;
				len -= 9;
			}
			if (body && n)
				files[n - 1].len = (size_t)(p - body);
			if (len >= 64)
				len = 63;
			memcpy(names[n], name, len);
			names[n][len] = '\0';
			files[n].name = names[n];
			files[n].data = next;
			files[n].len = 0;
			body = next;
			n++;
		}
		p = next;
	}
	if (body && n)
		files[n - 1].len = (size_t)(end - body);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dtk_memfile files[MAX_FILES];
	static char names[MAX_FILES][64];
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	size_t n = S_split((const char *)data, (const char *)data + size, files, names);

	if (dtk_kb_load(
	            &kb,
	            &(struct dtk_kb_load_opts){.what = DTK_KB_ALL, .files = files, .n_files = n},
	            &d) == 0) {
		struct dtk_buf page = DTK_BUF_INIT;
		dtk_index_write_pages(kb, dtk_buf_write, &page, NULL);
		dtk_buf_release(&page);
		dtk_kb_free(kb);
	}
	dtk_diags_release(&d);
	return 0;
}
