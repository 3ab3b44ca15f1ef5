/*
 * test_cases.c: the corpus of tests/cases (one .case file each), each run through the dtk
 * binary on a copy of tests/fixtures/base with the case's files laid over it.
 *
 * A case file is a list of sections, each opened by a line "=== <header>":
 *   === insights/x.yaml            write the lines that follow to that file
 *   === +insights/x.yaml           append them instead
 *   === insights/x.yaml (escaped)  the same, after \xNN \0 \r \t \n \\ escapes
 *   === insights/x.yaml (repeat N) the text (its last newline dropped) N times
 *   === rm insights/x.yaml         remove a file
 *   === mkdir insights/x.yaml      make a directory
 *   === symlink insights/x.yaml -> TARGET
 *   === expect                     the exact error lines of 'dtk reindex';
 *                                  none means the input is valid and must give
 *                                  INDEX.md byte for byte as the base does
 * Lines before the first section are comments. An invalid case must exit 2,
 * print exactly those lines (then the summary line) and write nothing.
 */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *S_base_index;

/* Decodes the escapes of an (escaped) section into out. */
static void S_unescape(struct dtk_buf *out, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c != '\\' || i + 1 >= n) {
			dtk_buf_putc(out, c);
			continue;
		}
		c = s[++i];
		if (c == 'x' && i + 2 < n) {
			char hex[3] = {s[i + 1], s[i + 2], 0};
			dtk_buf_putc(out, (char)strtol(hex, NULL, 16));
			i += 2;
		} else {
			dtk_buf_putc(out, c == '0'   ? '\0'
			                  : c == 'r' ? '\r'
			                  : c == 't' ? '\t'
			                  : c == 'n' ? '\n'
			                             : c);
		}
	}
}

/* Applies one section (header and body) to dir; collects "expect" lines. */
static void S_section(const char *dir, const char *hdr, const char *body, size_t n,
                      struct dtk_buf *expect, int *has_expect)
{
	struct dtk_buf data = DTK_BUF_INIT;
	char path[512], mode[64] = "";
	long repeat = 0;
	int append = hdr[0] == '+';
	char *full;

	if (!strcmp(hdr, "expect")) {
		dtk_buf_put(expect, body, n);
		*has_expect = 1;
		return;
	}
	if (!strncmp(hdr, "rm ", 3)) {
		full = dtk_path_join(dir, hdr + 3);
		assert_int_equal(unlink(full), 0);
		free(full);
		return;
	}
	if (!strncmp(hdr, "mkdir ", 6)) {
		full = dtk_path_join(dir, hdr + 6);
		assert_int_equal(t_sh(dir, "mkdir -p '%s'", full), 0);
		free(full);
		return;
	}
	if (!strncmp(hdr, "symlink ", 8)) {
		const char *arrow = strstr(hdr, " -> ");
		assert_non_null(arrow);
		snprintf(path, sizeof(path), "%.*s", (int)(arrow - hdr - 8), hdr + 8);
		full = dtk_path_join(dir, path);
		unlink(full);
		assert_int_equal(symlink(arrow + 4, full), 0);
		free(full);
		return;
	}
	if (sscanf(hdr + append, "%511s (%63[^)])", path, mode) < 1)
		fail_msg("bad section header '%s'", hdr);
	if (!strcmp(mode, "escaped"))
		S_unescape(&data, body, n);
	else if (!strncmp(mode, "repeat ", 7) && (repeat = atol(mode + 7)) > 0)
		for (long i = 0; i < repeat; i++)
			dtk_buf_put(&data, body, n && body[n - 1] == '\n' ? n - 1 : n);
	else
		dtk_buf_put(&data, body, n);
	if (append) {
		size_t old_len;
		char *old = t_read(dir, path, &old_len);
		struct dtk_buf all = DTK_BUF_INIT;
		dtk_buf_put(&all, old ? old : "", old ? old_len : 0);
		dtk_buf_put(&all, dtk_buf_cstr(&data), data.len);
		t_write(dir, path, dtk_buf_cstr(&all), all.len);
		dtk_buf_release(&all);
		free(old);
	} else {
		t_write(dir, path, dtk_buf_cstr(&data), data.len);
	}
	dtk_buf_release(&data);
}

/* Lays the case's sections over dir; returns the expected error lines. */
static char *S_apply(const char *dir, const char *text, int *has_expect)
{
	struct dtk_buf expect = DTK_BUF_INIT;
	const char *p = text, *hdr = NULL, *body = NULL;
	size_t hlen = 0;

	*has_expect = 0;
	for (;;) {
		const char *eol = strchr(p, '\n');
		int at_end = *p == '\0', is_hdr = !at_end && !strncmp(p, "=== ", 4);
		if ((is_hdr || at_end) && hdr) {
			char *h = dtk_xstrndup(hdr, hlen);
			S_section(dir, h, body, (size_t)(p - body), &expect, has_expect);
			free(h);
		}
		if (at_end)
			break;
		if (is_hdr) {
			hdr = p + 4;
			hlen = (size_t)((eol ? eol : p + strlen(p)) - hdr);
			body = eol ? eol + 1 : p + strlen(p);
		}
		p = eol ? eol + 1 : p + strlen(p);
	}
	return dtk_buf_detach(&expect);
}

static void S_run_case(void **state)
{
	const char *case_path = *state;
	char *text = t_read("/", case_path, NULL), *dir = t_mkdtemp(), *expect, *index;
	char *base = t_src("tests/fixtures/base");
	struct t_run r;
	int has_expect;

	assert_non_null(text);
	t_copytree(base, dir);
	expect = S_apply(dir, text, &has_expect);
	t_dtk(&r, dir, NULL, "reindex", "--quiet", NULL);
	index = t_read(dir, "INDEX.md", NULL);
	if (has_expect && *expect) {
		struct dtk_buf want = DTK_BUF_INIT;
		size_t n = 0;
		for (const char *l = expect; *l; l = strchr(l, '\n') + 1)
			n++;
		dtk_buf_printf(&want, "%sdtk: %zu error%s; nothing was written\n", expect, n,
		               n == 1 ? "" : "s");
		if (strcmp(r.err, want.ptr))
			print_error("case %s\n--- want\n%s--- got\n%s", case_path, want.ptr, r.err);
		assert_string_equal(r.err, want.ptr);
		assert_int_equal(r.status, 2);
		dtk_buf_release(&want);
	} else {
		if (r.status != 0)
			print_error("case %s: %s", case_path, r.err);
		assert_int_equal(r.status, 0);
	}
	assert_non_null(index);
	assert_string_equal(index, S_base_index);
	t_run_free(&r);
	t_rmtree(dir);
	free(index);
	free(expect);
	free(base);
	free(dir);
	free(text);
}

static int S_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char *dir = t_src("tests/cases"), **names = NULL;
	struct CMUnitTest *tests = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc;

	S_base_index = t_read(DTK_SOURCE_DIR, "tests/fixtures/base/INDEX.md", NULL);
	if (!d || !S_base_index) {
		fprintf(stderr, "cannot read %s or the base's INDEX.md\n", dir);
		return 1;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".case"))
			continue;
		if (argc > 1 && !strstr(de->d_name, argv[1]))
			continue;
		dtk_grow((void **)&names, &cap, n + 1, sizeof(*names));
		names[n++] = dtk_path_join(dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), S_cmp);
	tests = dtk_xcalloc(n + 1, sizeof(*tests));
	for (i = 0; i < n; i++) {
		tests[i].name = strrchr(names[i], '/') + 1;
		tests[i].test_func = S_run_case;
		tests[i].initial_state = names[i];
	}
	rc = _cmocka_run_group_tests("cases", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	free(dir);
	free(S_base_index);
	return rc;
}
