/* support.c: test helpers (see support.h). */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *t_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *path = dtk_path_join(tmp && *tmp ? tmp : "/tmp", "dtk-test-XXXXXX");
	if (!mkdtemp(path))
		fail_msg("mkdtemp: %s", strerror(errno));
	return path;
}

int t_sh(const char *dir, const char *fmt, ...)
{
	struct dtk_buf cmd = DTK_BUF_INIT;
	va_list ap;
	int rc;

	dtk_buf_printf(&cmd, "cd '%s' && ", dir);
	va_start(ap, fmt);
	dtk_buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	rc = system(cmd.ptr);
	dtk_buf_release(&cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

void t_rmtree(const char *path)
{
	if (path && *path && strcmp(path, "/"))
		t_sh("/", "rm -rf '%s'", path);
}

void t_copytree(const char *src, const char *dst)
{
	assert_int_equal(t_sh("/", "mkdir -p '%s' && cp -R '%s'/. '%s'/", dst, src, dst), 0);
}

void t_write(const char *dir, const char *rel, const char *data, size_t len)
{
	char *path = dtk_path_join(dir, rel), *slash;
	FILE *f;

	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	if (len && fwrite(data, 1, len, f) != len)
		fail_msg("short write to %s", path);
	fclose(f);
	free(path);
}

void t_write_str(const char *dir, const char *rel, const char *text)
{
	t_write(dir, rel, text, strlen(text));
}

char *t_read(const char *dir, const char *rel, size_t *len)
{
	char *path = dtk_path_join(dir, rel), *out = NULL;
	size_t n = 0;
	if (dtk_file_read(&out, &n, path, 1u << 30) < 0)
		out = NULL;
	if (len)
		*len = n;
	free(path);
	return out;
}

char *t_src(const char *rel)
{
	return dtk_path_join(DTK_SOURCE_DIR, rel);
}

char *t_base(void)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base");
	t_copytree(base, dir);
	free(base);
	return dir;
}

void t_done(char *dir)
{
	t_rmtree(dir);
	free(dir);
}

static char *S_slurp(const char *path)
{
	char *out = NULL;
	size_t n;
	if (dtk_file_read(&out, &n, path, 1u << 30) < 0)
		return dtk_xstrdup("");
	return out;
}

const char *t_dtk_bin = DTK_BIN;

void t_dtk(struct t_run *r, const char *dir, const char *env, ...)
{
	struct dtk_buf cmd = DTK_BUF_INIT;
	char *tmp = t_mkdtemp(), *out = dtk_path_join(tmp, "out"), *err = dtk_path_join(tmp, "err");
	const char *arg;
	va_list ap;
	int rc;

	const char *wrap = getenv("DTK_TEST_WRAPPER"); /* e.g. valgrind */
	/* the node cache: never the user's ~/.cache (ctest sets one) */
	if (!getenv("XDG_CACHE_HOME")) {
		char *tmpdir = getenv("TMPDIR");
		char *cache = dtk_path_join(tmpdir && *tmpdir ? tmpdir : "/tmp", "dtk-test-cache");
		setenv("XDG_CACHE_HOME", cache, 0);
		free(cache);
	}
	dtk_buf_printf(&cmd, "cd '%s' && %s%s%s%s'%s'", dir, env ? env : "", env ? " " : "",
	               wrap ? wrap : "", wrap ? " " : "", t_dtk_bin);
	va_start(ap, env);
	while ((arg = va_arg(ap, const char *))) {
		/* each argument single-quoted, a quote in it as '\'' */
		dtk_buf_puts(&cmd, " '");
		for (; *arg; arg++)
			dtk_buf_puts(&cmd, *arg == '\'' ? "'\\''" : (char[2]){*arg, 0});
		dtk_buf_putc(&cmd, '\'');
	}
	va_end(ap);
	dtk_buf_printf(&cmd, " >'%s' 2>'%s' </dev/null", out, err);
	rc = system(cmd.ptr);
	r->status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	r->out = S_slurp(out);
	r->err = S_slurp(err);
	t_rmtree(tmp);
	free(tmp);
	free(out);
	free(err);
	dtk_buf_release(&cmd);
}

void t_run_free(struct t_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* The files t_snap reads, in its order. */
static const char *const S_snap_files[T_SNAP_FILES] = {"INDEX.md",
                                                       "insights/_domain.yaml",
                                                       "insights/_sources.yaml",
                                                       "insights/_crystallizations.yaml",
                                                       "insights/alpha.yaml",
                                                       "insights/beta.yaml",
                                                       "insights/gamma.yaml"};

void t_snap(struct t_snap *s, const char *dir)
{
	int i;
	for (i = 0; i < T_SNAP_FILES; i++)
		s->data[i] = t_read(dir, S_snap_files[i], &s->len[i]);
}

void t_snap_free(struct t_snap *s)
{
	int i;
	for (i = 0; i < T_SNAP_FILES; i++)
		free(s->data[i]);
}

void t_snap_same(const struct t_snap *s, const char *dir, const char *what)
{
	struct t_snap now;
	int i;
	t_snap(&now, dir);
	for (i = 0; i < T_SNAP_FILES; i++) {
		int same = now.len[i] == s->len[i] && !memcmp(now.data[i], s->data[i], s->len[i]);
		if (!same)
			print_error("%s changed %s\n", what, S_snap_files[i]);
		assert_true(same);
	}
	t_snap_free(&now);
	assert_int_equal(t_sh(dir, "ls -a insights | grep -q tmp"), 1);
}
