/* test_linkcache.c: the links cache of dtk show: what a file's bytes may
 * name, when an entry is trusted, and that any damage leaves it unused. */
#include "support.h"

#include "dtk/fs.h"
#include "dtk/linkcache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

/* Returns 1 when the list of text names node. */
static int S_names(const char *text, size_t len, const char *node)
{
	char *list = dtk_linkcache_scan(text, len);
	int rc = dtk_linkcache_names(list, node);
	free(list);
	return rc;
}

static void test_scan(void **state)
{
	static const char text[] = "- id: gamma-001\n  relates: [alpha-001, beta-x-002]\n"
	                           "  claim: see xdelta-7 and 2026-12-03, not epsilon-x\n"
	                           "  contradicts:\n    - id: \"zeta-0042\"\n";
	(void)state;
	assert_true(S_names(text, strlen(text), "alpha"));
	assert_true(S_names(text, strlen(text), "beta-x"));
	assert_true(S_names(text, strlen(text), "gamma"));
	assert_true(S_names(text, strlen(text), "zeta"));
	assert_true(S_names(text, strlen(text), "xdelta"));
	assert_true(S_names(text, strlen(text), "2026-12")); /* a superset: harmless */
	assert_false(S_names(text, strlen(text), "beta"));   /* beta-x-002 is beta-x's */
	assert_false(S_names(text, strlen(text), "delta"));  /* xdelta-7 is not delta's */
	assert_false(S_names(text, strlen(text), "epsilon"));
	assert_false(S_names(text, strlen(text), "omega"));
	assert_false(S_names("", 0, "alpha"));
	/* "alpha-" with no digits: links.c takes it for a link to alpha */
	assert_true(S_names("relates: [alpha-]", 17, "alpha"));
	/* the id at the very start and end of the bytes */
	assert_true(S_names("alpha-001", 9, "alpha"));
}

/* Bytes whose values YAML may spell otherwise: any node. */
static void test_scan_escapes(void **state)
{
	static const char esc[] = "relates: [\"\\x61lpha-001\"]\n";
	static const char nul[] = "relates: [beta-001]\n\0";
	static const char u16[] = "\xff\xfer\0e\0";
	char *list;
	(void)state;
	assert_true(S_names(esc, strlen(esc), "alpha"));
	assert_true(S_names(nul, sizeof(nul) - 1, "alpha"));
	assert_true(S_names(u16, sizeof(u16) - 1, "alpha"));
	list = dtk_linkcache_scan(esc, strlen(esc));
	assert_string_equal(list, "*");
	free(list);
	/* a list that is not one of keys may name anything */
	assert_true(dtk_linkcache_names("garbage", "alpha"));
}

/* A record of file name with stat data st aged by age seconds (mtime and
 * ctime that long before now). */
static struct dtk_linkcache_rec S_rec(const char *name, const char *list, int64_t age)
{
	struct timespec ts;
	struct dtk_linkcache_rec r = {name, {2049, 77, 1234, 0, 0}, list, 0};
	clock_gettime(CLOCK_REALTIME, &ts);
	r.st.mtime_ns = r.st.ctime_ns = ((int64_t)ts.tv_sec - age) * NS + ts.tv_nsec;
	return r;
}

/* A struct stat holding r's fields. */
static struct stat S_st(const struct dtk_linkcache_rec *r)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = (dev_t)r->st.dev;
	st.st_ino = (ino_t)r->st.ino;
	st.st_size = (off_t)r->st.size;
	st.st_mtim.tv_sec = (time_t)(r->st.mtime_ns / NS);
	st.st_mtim.tv_nsec = (long)(r->st.mtime_ns % NS);
	st.st_ctim.tv_sec = (time_t)(r->st.ctime_ns / NS);
	st.st_ctim.tv_nsec = (long)(r->st.ctime_ns % NS);
	return st;
}

static void test_round_trip_and_trust(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "a/b/links");
	char *alpha = dtk_linkcache_scan("alpha-001", 9);
	struct dtk_linkcache_rec recs[3] = {S_rec("alpha.yaml", alpha, 100),
	                                    S_rec("beta.yaml", "*", 100),
	                                    S_rec("gamma.yaml", "", 1)};
	struct dtk_linkcache *c = dtk_linkcache_open(path, "/base");
	struct stat st, st2;
	size_t len = 0;
	(void)state;

	assert_int_equal(dtk_linkcache_count(c), 0);
	st = S_st(&recs[0]);
	assert_null(dtk_linkcache_get(c, "alpha.yaml", &st, &len));
	assert_int_equal(dtk_linkcache_save(c, recs, 3), 0); /* makes a/b/ */
	dtk_linkcache_free(c);

	c = dtk_linkcache_open(path, "/base");
	assert_int_equal(dtk_linkcache_count(c), 3);
	st = S_st(&recs[0]);
	assert_string_equal(dtk_linkcache_get(c, "alpha.yaml", &st, &len), alpha);
	assert_int_equal(len, strlen(alpha));
	st = S_st(&recs[1]);
	assert_string_equal(dtk_linkcache_get(c, "beta.yaml", &st, &len), "*");
	/* racily clean: written a second before the cache, within its grain */
	st = S_st(&recs[2]);
	assert_null(dtk_linkcache_get(c, "gamma.yaml", &st, &len));
	/* any field of the stat data changed: not trusted */
	st = S_st(&recs[0]);
	st.st_ctim.tv_nsec ^= 1;
	assert_null(dtk_linkcache_get(c, "alpha.yaml", &st, &len));
	st = S_st(&recs[0]);
	st.st_size++;
	assert_null(dtk_linkcache_get(c, "alpha.yaml", &st, &len));
	st = S_st(&recs[0]);
	st.st_ino++;
	assert_null(dtk_linkcache_get(c, "alpha.yaml", &st, &len));
	st = S_st(&recs[0]);
	assert_null(dtk_linkcache_get(c, "delta.yaml", &st, &len));
	dtk_linkcache_free(c);

	/* another base's cache at the same path is not used */
	c = dtk_linkcache_open(path, "/other");
	assert_int_equal(dtk_linkcache_count(c), 0);
	dtk_linkcache_free(c);

	/* the same records, all trusted: not written again */
	recs[2] = S_rec("gamma.yaml", "", 100);
	c = dtk_linkcache_open(path, "/base");
	assert_int_equal(dtk_linkcache_save(c, recs, 3), 0);
	dtk_linkcache_free(c);
	assert_int_equal(stat(path, &st), 0);
	c = dtk_linkcache_open(path, "/base");
	for (int i = 0; i < 3; i++) {
		st2 = S_st(&recs[i]);
		assert_non_null(dtk_linkcache_get(c, recs[i].name, &st2, &len));
	}
	assert_int_equal(dtk_linkcache_save(c, recs, 3), 0);
	dtk_linkcache_free(c);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st.st_ino == st2.st_ino); /* a rewrite renames a new file over it */

	free(alpha);
	free(path);
	t_rmtree(dir);
	free(dir);
}

/* Writes a good cache at path and returns its bytes (malloc'd). */
static char *S_good(const char *path, size_t *len)
{
	struct dtk_linkcache_rec recs[2] = {S_rec("alpha.yaml", "", 100),
	                                    S_rec("beta.yaml", "*", 100)};
	struct dtk_linkcache *c = dtk_linkcache_open(path, "/base");
	char *buf;
	assert_int_equal(dtk_linkcache_save(c, recs, 2), 0);
	dtk_linkcache_free(c);
	assert_int_equal(dtk_file_read(&buf, len, path, 1 << 20), 0);
	return buf;
}

/* Writes len bytes of data to path, then returns how many entries a cache
 * opened there uses. */
static size_t S_count_with(const char *path, const char *data, size_t len)
{
	struct dtk_linkcache *c;
	size_t n;
	assert_int_equal(dtk_file_write_atomic(path, data, len), 0);
	c = dtk_linkcache_open(path, "/base");
	n = dtk_linkcache_count(c);
	dtk_linkcache_free(c);
	return n;
}

static void test_damage(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "links"), *buf, *v, *nl;
	size_t len, i;
	struct dtk_linkcache *c;
	struct dtk_linkcache_rec rec = S_rec("alpha.yaml", "", 100);
	(void)state;

	buf = S_good(path, &len);
	assert_int_equal(S_count_with(path, buf, len), 2);
	v = dtk_xmalloc(len);
	/* any byte changed */
	for (i = 0; i < len; i++) {
		memcpy(v, buf, len);
		v[i] ^= 0x20;
		assert_int_equal(S_count_with(path, v, len), 0);
	}
	/* truncated anywhere, also at the end of a line */
	for (i = 0; i < len; i++)
		assert_int_equal(S_count_with(path, buf, i), 0);
	i = strcspn(buf + 40, "\n") + 41; /* a line's end after the header's */
	assert_int_equal(S_count_with(path, buf, i), 0);
	/* another version */
	memcpy(v, buf, len);
	v[strlen("dtk links cache ")] = '9';
	assert_int_equal(S_count_with(path, v, len), 0);

	/* a directory in its place: unused, and not written */
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	c = dtk_linkcache_open(path, "/base");
	assert_int_equal(dtk_linkcache_count(c), 0);
	assert_int_equal(dtk_linkcache_save(c, &rec, 1), -1);
	dtk_linkcache_free(c);
	free(path);

	/* a place that cannot be made (a file where its directory would be) */
	t_write_str(dir, "file", "x");
	path = dtk_path_join(dir, "file/sub/links");
	c = dtk_linkcache_open(path, "/base");
	assert_int_equal(dtk_linkcache_count(c), 0);
	assert_int_equal(dtk_linkcache_save(c, &rec, 1), -1);
	dtk_linkcache_free(c);
	free(path);

	/* a directory that cannot be written (unless root, who can) */
	path = dtk_path_join(dir, "ro/links");
	t_write_str(dir, "ro/x", "x");
	nl = dtk_path_join(dir, "ro");
	assert_int_equal(chmod(nl, 0500), 0);
	c = dtk_linkcache_open(path, "/base");
	if (geteuid() != 0)
		assert_int_equal(dtk_linkcache_save(c, &rec, 1), -1);
	dtk_linkcache_free(c);
	chmod(nl, 0700);
	free(nl);
	free(path);
	free(v);
	free(buf);
	t_rmtree(dir);
	free(dir);
}

/* The place: the repository's git directory, else the user's cache. */
static void test_path(void **state)
{
	char *dir = t_mkdtemp(), *p, *want, *real;
	(void)state;

	unsetenv("GIT_DIR");
	setenv("DTK_NO_CACHE", "1", 1);
	assert_null(dtk_linkcache_path(dir));
	setenv("DTK_NO_CACHE", "0", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	p = dtk_linkcache_path(dir);
	assert_non_null(p);
	assert_true(!strncmp(p, "/xdg/dtk/links-", 15));
	free(p);
	setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored */
	setenv("HOME", "/home/u", 1);
	p = dtk_linkcache_path(dir);
	assert_true(!strncmp(p, "/home/u/.cache/dtk/links-", 25));
	free(p);

	/* a repository: its .git, from a folder below it */
	t_write_str(dir, "repo/.git/HEAD", "ref: refs/heads/main\n");
	t_write_str(dir, "repo/kb/insights/_domain.yaml", "");
	real = realpath(dir, NULL);
	want = dtk_path_join(real, "repo/.git/dtk/links-");
	free(real);
	real = dtk_path_join(dir, "repo/kb");
	p = dtk_linkcache_path(real);
	assert_true(!strncmp(p, want, strlen(want)));
	free(p);
	free(want);
	/* a worktree: the git directory its .git file names, only when that
	 * names it back (its gitdir file); else the user's cache */
	t_write_str(dir, "wt/.git", "gitdir: ../repo/.git/worktrees/wt\n");
	t_write_str(dir, "repo/.git/worktrees/wt/HEAD", "x\n");
	free(real);
	real = dtk_path_join(dir, "wt");
	p = dtk_linkcache_path(real);
	assert_true(!strncmp(p, "/home/u/.cache/dtk/links-", 25));
	free(p);
	{
		char *top = realpath(dir, NULL), *back = dtk_path_join(top, "wt/.git");
		t_write_str(dir, "repo/.git/worktrees/wt/gitdir", back);
		want = dtk_path_join(top, "repo/.git/worktrees/wt/dtk/links-");
		free(back);
		free(top);
	}
	p = dtk_linkcache_path(real);
	assert_true(!strncmp(p, want, strlen(want)));
	free(p);
	free(want);
	/* GIT_DIR wins */
	free(real);
	real = dtk_path_join(dir, "repo/.git/worktrees");
	setenv("GIT_DIR", real, 1);
	p = dtk_linkcache_path(dir);
	assert_true(strstr(p, "/repo/.git/worktrees/dtk/links-") != NULL);
	free(p);
	unsetenv("GIT_DIR");
	unsetenv("DTK_NO_CACHE");
	free(real);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_scan),
	        cmocka_unit_test(test_scan_escapes),
	        cmocka_unit_test(test_round_trip_and_trust),
	        cmocka_unit_test(test_damage),
	        cmocka_unit_test(test_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
