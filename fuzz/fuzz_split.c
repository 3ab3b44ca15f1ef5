/*
 * fuzz_split.c: libFuzzer target for the parse of a long list in two parts
 * at once (dtk_yaml_parse_split). The input is any text; it is parsed in one
 * part, then in two from each of its first 16 lines that start with "-":
 * every parse must give the same items, root and errors, byte for byte, or
 * the target aborts.
 */
#include "dtk/ytree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void S_item(void *arg, const struct dtk_yval *item)
{
	dtk_yval_dump(arg, item);
	dtk_buf_putc(arg, '\n');
}

/* Returns what a parse from byte from gives (malloc'd). */
static char *S_parse(const char *text, size_t len, size_t from)
{
	struct dtk_buf first = DTK_BUF_INIT, second = DTK_BUF_INIT;
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_yval *root = NULL;
	int split, rc = dtk_yaml_parse_split(&root, a, "f.yaml", text, len, &d, S_item, &first,
	                                     &second, from, &split);
	size_t i;

	if (split)
		dtk_buf_put(&first, second.ptr, second.len);
	dtk_buf_printf(&first, "rc %d\n", rc);
	if (root)
		dtk_yval_dump(&first, root);
	dtk_diags_sort(&d);
	for (i = 0; i < d.n; i++)
		dtk_buf_printf(&first, "\n%d:%d %s", d.v[i].line, d.v[i].col, d.v[i].msg);
	dtk_diags_release(&d);
	dtk_buf_release(&second);
	dtk_arena_free(a);
	return dtk_buf_detach(&first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	char *one = S_parse(text, size, SIZE_MAX);
	int tries = 0;

	while (tries < 16 && (p = memchr(p, '\n', (size_t)(end - p))) && ++p < end) {
		char *two;
		if (*p != '-')
			continue;
		two = S_parse(text, size, (size_t)(p - text));
		if (strcmp(one, two))
			abort();
		free(two);
		tries++;
	}
	free(one);
	return 0;
}
