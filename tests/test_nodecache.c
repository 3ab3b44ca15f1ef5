/* test_nodecache.c: the node cache of dtk search: a packed node unpacks to
 * what the schema made, damage of any byte is caught, the checks that read
 * other files are made again, and the cache is used when, and only when, a
 * file is as it was recorded (docs/design.md, "The node cache"). */
#define _GNU_SOURCE /* asprintf, memmem */
#include "support.h"

#include "dtk/cache.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/nodecache.h"
#include "dtk/similar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Returns the packed node of node (malloc'd) and its length. */
static char *S_pack(const struct dtk_node *node, size_t *len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	dtk_nodecache_pack(&b, node);
	*len = b.len;
	return dtk_buf_detach(&b);
}

static struct dtk_kb *S_fixture(void)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	char *root = t_src("tests/fixtures/base");

	assert_int_equal(
	        dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = root, .what = DTK_KB_ALL}, &d),
	        0);
	dtk_diags_release(&d);
	free(root);
	return kb;
}

/* Every node of the fixture packs, unpacks and packs again to the same
 * bytes, borrowed or copied; its fields are the schema's. */
static void test_round_trip(void **state)
{
	struct dtk_kb *kb = S_fixture();
	size_t i, k, len, len2;
	int borrow, contradicts = 0, relates = 0;

	(void)state;
	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *node = kb->nodes[i];
		char *blob = S_pack(node, &len), *again;
		for (borrow = 0; borrow < 2; borrow++) {
			struct dtk_arena *a = dtk_arena_new(), *s = dtk_arena_new();
			struct dtk_node *out;
			assert_int_equal(dtk_nodecache_unpack(&out, kb, a, s, blob, len, node->name,
			                                      node->path, borrow, NULL),
			                 0);
			again = S_pack(out, &len2);
			assert_int_equal(len, len2);
			assert_memory_equal(blob, again, len);
			free(again);
			assert_string_equal(out->name, node->name);
			assert_string_equal(out->path, node->path);
			assert_int_equal(out->n_entries, node->n_entries);
			assert_int_equal(out->n_by_id, node->n_by_id);
			assert_int_equal(out->n_linking, node->n_linking);
			for (k = 0; k < out->n_entries; k++) {
				const struct dtk_entry *e = &out->entries[k],
				                       *o = &node->entries[k];
				assert_ptr_equal(e->node, out);
				assert_string_equal(e->title, o->title);
				assert_int_equal(e->pos.line, o->pos.line);
				assert_int_equal(e->used, o->used);
				/* borrowed: the title points into the blob */
				assert_int_equal(e->title >= blob && e->title < blob + len, borrow);
				if (e->source.id) /* the source's own string */
					assert_ptr_equal(e->source.id,
					                 dtk_kb_source(kb, e->source.id)->id);
				contradicts += (int)e->n_contradicts;
				relates += (int)e->n_relates;
			}
			if (out->n_entries)
				assert_ptr_equal(dtk_node_entry(out, out->entries[0].id),
				                 &out->entries[0]);
			dtk_arena_free(a);
			dtk_arena_free(s);
		}
		free(blob);
	}
	assert_true(contradicts > 0 && relates > 0); /* the fixture has both */
	dtk_kb_free(kb);
}

/* Every shorter blob is refused; a blob with any byte changed is refused or
 * unpacks (under the sanitizers: without reading outside it). */
static void test_damage(void **state)
{
	struct dtk_kb *kb = S_fixture();
	const struct dtk_node *node = kb->nodes[0];
	size_t len, cut, i;
	char *blob = S_pack(node, &len), *copy;

	(void)state;
	for (cut = 0; cut < len; cut++) {
		struct dtk_arena *a = dtk_arena_new();
		struct dtk_node *out = (struct dtk_node *)1;
		copy = dtk_xmalloc(cut + 1);
		memcpy(copy, blob, cut);
		copy[cut] = '\0';
		assert_int_equal(
		        dtk_nodecache_unpack(&out, kb, a, a, copy, cut, "n", "n.yaml", 1, NULL),
		        -1);
		assert_null(out);
		free(copy);
		dtk_arena_free(a);
	}
	for (i = 0; i < len; i++) {
		struct dtk_arena *a = dtk_arena_new();
		struct dtk_node *out;
		copy = dtk_xmalloc(len + 1);
		memcpy(copy, blob, len);
		copy[len] = '\0';
		copy[i] ^= (char)0xa5;
		(void)dtk_nodecache_unpack(&out, kb, a, a, copy, len, "n", "n.yaml", 1, NULL);
		free(copy);
		dtk_arena_free(a);
	}
	free(blob);
	dtk_kb_free(kb);
}

/* The checks of a node file that read other files are made again: a source
 * no longer in _sources.yaml, a policy that asks more verifications. */
static void test_checks_again(void **state)
{
	struct dtk_kb *kb = S_fixture();
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_node *out;
	size_t i, len, k;
	int refused = 0, high = 0;

	(void)state;
	for (i = 0; i < kb->n_nodes; i++) {
		char *blob = S_pack(kb->nodes[i], &len);
		for (k = 0; k < kb->nodes[i]->n_entries; k++)
			high += kb->nodes[i]->entries[k].confidence == DTK_CONF_HIGH;
		kb->high_min_verified += 100;
		refused +=
		        dtk_nodecache_unpack(&out, kb, a, a, blob, len, "n", "n.yaml", 0, NULL) < 0;
		kb->high_min_verified -= 100;
		assert_int_equal(
		        dtk_nodecache_unpack(&out, kb, a, a, blob, len, "n", "n.yaml", 0, NULL), 0);
		free(blob);
	}
	assert_true(high > 0);
	assert_true(refused > 0);
	/* no sources: every entry names one */
	{
		struct dtk_slot *slots = kb->source_slots;
		char *blob = S_pack(kb->nodes[0], &len);
		kb->source_slots = NULL;
		assert_int_equal(
		        dtk_nodecache_unpack(&out, kb, a, a, blob, len, "n", "n.yaml", 0, NULL),
		        -1);
		kb->sources_ok = 0; /* _sources.yaml's own errors said it all */
		assert_int_equal(
		        dtk_nodecache_unpack(&out, kb, a, a, blob, len, "n", "n.yaml", 0, NULL), 0);
		kb->source_slots = slots;
		free(blob);
	}
	dtk_arena_free(a);
	dtk_kb_free(kb);
}

/* A stat of a file as old as age seconds, with size size. */
static struct stat S_st(time_t age, off_t size)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 2049;
	st.st_ino = 77;
	st.st_size = size;
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = time(NULL) - age;
	st.st_mode = S_IFREG | 0644;
	return st;
}

/* Asserts that c holds node file name's record, trusted at st, and that its
 * packed node is want[0..len). */
static void S_get_is(struct dtk_nodecache *c, const char *name, const struct stat *st,
                     const char *want, size_t len)
{
	char *blob;
	size_t got;

	assert_int_equal(dtk_nodecache_get(c, name, st, &blob, &got), 0);
	assert_int_equal(got, len);
	assert_memory_equal(blob, want, len);
	free(blob);
}

/* The summary every record put in these tests has (the cache keeps its
 * bytes; what they hold is nodesum.c's concern). */
static const struct dtk_buf S_summary = {(char *)"summary", 7, 0};

/* Records put, saved and read back; trusted only as they were and old
 * enough; any byte of the file changed leaves every look-up refused or
 * exact. */
static void test_file(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "nodes-x"), *blob, *file;
	/* packed nodes as far as the cache looks: a head (its length first,
	 * the whole here: little-endian, as on every machine dtk builds for) */
	static const char a[] = "\x11\0\0\0packed alpha", b[] = "\x18\0\0\0packed beta, longer";
	struct stat old = S_st(100, 5), fresh = S_st(0, 5), other = S_st(100, 6);
	struct dtk_nodecache *c;
	size_t len, flen, i;
	int used = 0;

	(void)state;
	c = dtk_nodecache_open(path, "/base");
	assert_int_equal(dtk_nodecache_get(c, "alpha.yaml", &old, &blob, &len), -1);
	dtk_nodecache_put(c, "beta.yaml", &old, b, sizeof(b), &S_summary, NULL, 0, "", 0);
	dtk_nodecache_put(c, "alpha.yaml", &old, a, sizeof(a), &S_summary, NULL, 0, "", 0);
	dtk_nodecache_put(c, "gamma.yaml", &fresh, a, sizeof(a), &S_summary, NULL, 0, "", 0);
	assert_int_equal(dtk_nodecache_save(c), 0);
	dtk_nodecache_free(c);
	/* written as of before the puts: wait out the grain for alpha's sake? no:
	 * its times are 100 s old, older than the cache's time less 2 s */
	c = dtk_nodecache_open(path, "/base");
	S_get_is(c, "alpha.yaml", &old, a, sizeof(a));
	S_get_is(c, "beta.yaml", &old, b, sizeof(b));
	assert_int_equal(dtk_nodecache_get(c, "alpha.yaml", &other, &blob, &len), -1);
	assert_int_equal(dtk_nodecache_get(c, "gamma.yaml", &fresh, &blob, &len), -1); /* racy */
	assert_int_equal(dtk_nodecache_get(c, "delta.yaml", &old, &blob, &len), -1);
	dtk_nodecache_free(c);
	/* a record read and kept, then added again (its node failed a check
	 * and was parsed): the one added wins, and the cache stays readable */
	c = dtk_nodecache_open(path, "/base");
	assert_int_equal(dtk_nodecache_get(c, "beta.yaml", &old, NULL, NULL), 0);
	assert_int_equal(dtk_nodecache_get(c, "alpha.yaml", &old, &blob, &len), 0);
	free(blob);
	dtk_nodecache_put(c, "alpha.yaml", &old, b, sizeof(b), &S_summary, NULL, 0, "", 0);
	assert_int_equal(dtk_nodecache_save(c), 0);
	dtk_nodecache_free(c);
	c = dtk_nodecache_open(path, "/base");
	S_get_is(c, "alpha.yaml", &old, b, sizeof(b));
	S_get_is(c, "beta.yaml", &old, b, sizeof(b));
	dtk_nodecache_free(c);
	dtk_nodecache_put(c = dtk_nodecache_open(path, "/base"), "alpha.yaml", &old, a, sizeof(a),
	                  &S_summary, NULL, 0, "", 0);
	dtk_nodecache_get(c, "beta.yaml", &old, NULL, NULL);
	assert_int_equal(dtk_nodecache_save(c), 0);
	dtk_nodecache_free(c);
	/* another base: nothing */
	c = dtk_nodecache_open(path, "/other");
	assert_int_equal(dtk_nodecache_get(c, "alpha.yaml", &old, &blob, &len), -1);
	dtk_nodecache_free(c);
	/* each byte changed in turn */
	file = t_read(dir, "nodes-x", &flen);
	for (i = 0; i < flen; i++) {
		char *bad = dtk_xmalloc(flen);
		memcpy(bad, file, flen);
		bad[i] ^= 0x21;
		t_write(dir, "nodes-x", bad, flen);
		c = dtk_nodecache_open(path, "/base");
		if (dtk_nodecache_get(c, "alpha.yaml", &old, &blob, &len) == 0) {
			assert_int_equal(len, sizeof(a));
			assert_memory_equal(blob, a, len);
			free(blob);
			used++;
		}
		if (dtk_nodecache_get(c, "beta.yaml", &old, &blob, &len) == 0) {
			assert_int_equal(len, sizeof(b));
			assert_memory_equal(blob, b, len);
			free(blob);
		}
		dtk_nodecache_free(c);
		free(bad);
	}
	/* a change in beta's bytes leaves alpha's usable: some were */
	assert_true(used > 0 && used < (int)flen);
	/* truncated */
	t_write(dir, "nodes-x", file, flen - 1);
	c = dtk_nodecache_open(path, "/base");
	assert_int_equal(dtk_nodecache_get(c, "alpha.yaml", &old, &blob, &len), -1);
	dtk_nodecache_free(c);
	free(file);
	free(path);
	t_rmtree(dir);
	free(dir);
}

/* Reads the whole cache file at path. */
static char *S_cache_file(const char *dir, size_t *len)
{
	char *cmd = NULL, *name;
	struct t_run r;
	FILE *p;
	char line[4096];

	(void)r;
	if (asprintf(&cmd, "ls %s/xdg/dtk/nodes-* 2>/dev/null", dir) < 0)
		fail();
	p = popen(cmd, "r");
	assert_non_null(p);
	name = fgets(line, sizeof(line), p) ? dtk_xstrdup(line) : NULL;
	pclose(p);
	free(cmd);
	assert_non_null(name);
	name[strcspn(name, "\n")] = '\0';
	{
		char *slash = strrchr(name, '/'), *text;
		*slash = '\0';
		text = t_read(name, slash + 1, len);
		*slash = '/';
		free(name);
		return text;
	}
}

/* Rewrites the cache file of dir with every "from" in alpha's packed node
 * made "to" (as long), its checksums made again: a cache that dtk trusts,
 * unless other_build, which makes its build line another build's. */
static void S_forge(const char *dir, const char *from, const char *to, int other_build)
{
	size_t len, ilen, n, fl = strlen(from);
	unsigned long long ioff;
	char *file = S_cache_file(dir, &len), *idx, *line, *p, *tail;
	char name[300], *slash;
	unsigned long long v[13];

	assert_int_equal(sscanf(file, "dtk node cache 6\nindex %llu %zu", &ioff, &ilen), 2);
	idx = file + ioff;
	line = strstr(idx, "\nalpha.yaml ");
	assert_non_null(line);
	assert_int_equal(sscanf(line + 12,
	                        "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
	                        &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
	                        &v[9], &v[10], &v[11], &v[12]),
	                 13);
	/* the packed node (the 6th and 7th numbers) and its summary (11th, 12th) */
	n = 0;
	for (p = file + v[5]; (p = memmem(p, file + v[5] + v[6] - p, from, fl)); p += fl, n++)
		memcpy(p, to, fl);
	for (p = file + v[10]; (p = memmem(p, file + v[10] + v[11] - p, from, fl)); p += fl, n++)
		memcpy(p, to, fl);
	assert_true(n > 0);
	/* the record's checksums (the packed node's, its head's and its
	 * summary's: the 8th, 10th and 13th numbers), then the index's */
	{
		size_t hlen = dtk_nodecache_head_len(file + v[5], v[6]);
		unsigned long long sums[3] = {dtk_cache_sum(file + v[5], v[6]),
		                              dtk_cache_sum(file + v[5], hlen),
		                              dtk_cache_sum(file + v[10], v[11])};
		int k, at[3] = {7, 9, 12}, j;
		for (j = 2; j >= 0; j--) { /* the later first: the earlier stays put */
			char num[64], *sum = line + 12, *end;
			struct dtk_buf b = DTK_BUF_INIT;
			for (k = 0; k < at[j]; k++)
				sum = strchr(sum, ' ') + 1;
			end = strchr(sum, ' ');
			snprintf(num, sizeof(num), "%llu", sums[j]);
			dtk_buf_put(&b, file, (size_t)(sum - file));
			dtk_buf_puts(&b, num);
			dtk_buf_put(&b, end, len - (size_t)(end - file));
			line = b.ptr + (line - file);
			free(file);
			len = b.len;
			file = dtk_buf_detach(&b);
		}
	}
	idx = file + ioff;
	ilen = len - ioff;
	if (other_build) { /* the build line's last character changed */
		char *b = strstr(idx, "\nbuild ");
		assert_non_null(b);
		b = strchr(b + 1, '\n');
		b[-1] = b[-1] == '0' ? '1' : '0';
	}
	idx[ilen - 1] = '\0';
	tail = strrchr(idx, '\n');
	{
		struct dtk_buf b = DTK_BUF_INIT;
		size_t count = (size_t)strtoull(tail + 5, NULL, 10);
		dtk_buf_put(&b, file, (size_t)(tail + 1 - file));
		dtk_buf_printf(&b, "end %zu %016llx\n", count,
		               (unsigned long long)dtk_cache_sum(idx, (size_t)(tail + 1 - idx)));
		free(file);
		len = b.len;
		file = dtk_buf_detach(&b);
	}
	ilen = len - ioff;
	/* the head: where the index is */
	memset(file, ' ', 64);
	file[63] = '\n';
	p = file + snprintf(file, 64, "dtk node cache 6\nindex %llu %zu", ioff, ilen);
	*p = '\n';
	{
		char *cmd = NULL;
		FILE *f;
		if (asprintf(&cmd, "ls %s/xdg/dtk/nodes-*", dir) < 0)
			fail();
		f = popen(cmd, "r");
		assert_non_null(fgets(name, sizeof(name), f));
		pclose(f);
		free(cmd);
	}
	name[strcspn(name, "\n")] = '\0';
	slash = strrchr(name, '/');
	*slash = '\0';
	t_write(name, slash + 1, file, len);
	free(file);
}

/* With the dtk binary: a search reads a node from the cache when its file
 * is as it was (a forged cache shows), and from the file once it changed,
 * even to the same size and mtime. */
static void test_used_and_stale(void **state)
{
	char *dir = t_mkdtemp(), *base = dtk_path_join(dir, "base"), *env = NULL, *src;
	struct t_run r;

	(void)state;
	src = t_src("tests/fixtures/base");
	t_copytree(src, base);
	free(src);
	/* no stat grain (a test build's DTK_TEST_CACHE_GRAIN_NS): the files,
	 * older than the cache, are trusted without waiting for the clock */
	if (asprintf(&env, "XDG_CACHE_HOME=%s/xdg DTK_TEST_CACHE_GRAIN_NS=0", dir) < 0)
		fail();
	t_dtk(&r, base, env, "search", "alpha", "--format", "ids", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "cp xdg/dtk/nodes-* good"), 0);
	S_forge(dir, "alpha-00", "qqqqq-00", 0);
	t_dtk(&r, base, env, "search", "qqqqq", "--format", "ids", NULL);
	assert_int_equal(r.status, 0); /* the forged cache was read */
	assert_non_null(strstr(r.out, "qqqqq-"));
	t_run_free(&r);
	/* list and check read it too, and check the references across files
	 * on the packed node and its summary: alpha's reference to beta-001,
	 * renamed there only, names an unknown entry */
	assert_int_equal(t_sh(dir, "cp good xdg/dtk/nodes-*"), 0);
	S_forge(dir, "beta-00", "qqqq-00", 0);
	t_dtk(&r, base, env, "list", "--format", "json", NULL);
	assert_non_null(strstr(r.err, "'contradicts' names unknown entry 'qqqq-001'"));
	t_run_free(&r);
	t_dtk(&r, base, env, "check", NULL);
	assert_non_null(strstr(r.err, "'contradicts' names unknown entry 'qqqq-001'"));
	t_run_free(&r);
	/* the same cache, said to be another build's: not read */
	assert_int_equal(t_sh(dir, "cp good xdg/dtk/nodes-*"), 0);
	S_forge(dir, "alpha-00", "qqqqq-00", 1);
	t_dtk(&r, base, env, "search", "qqqqq", "--format", "ids", NULL);
	assert_null(strstr(r.out, "qqqqq-"));
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "cp good xdg/dtk/nodes-*"), 0);
	S_forge(dir, "alpha-00", "qqqqq-00", 0);
	/* the same bytes, size and mtime, but the file was written: its ctime */
	assert_int_equal(t_sh(base, "cp insights/alpha.yaml a && cat a > insights/alpha.yaml && "
	                            "touch -d '2020-01-01 00:00:00' insights/alpha.yaml"),
	                 0);
	t_dtk(&r, base, env, "search", "qqqqq", "--format", "ids", NULL);
	assert_null(strstr(r.out, "qqqqq-"));
	t_run_free(&r);
	free(env);
	free(base);
	t_rmtree(dir);
	free(dir);
}

/* Ranks claim over the base at root loaded with what; returns "id score"
 * lines of the hits (malloc'd). */
static char *S_ranked(const char *root, int what, const char *claim)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *hits = NULL;
	struct dtk_buf b = DTK_BUF_INIT;
	size_t n = 0, i;

	assert_int_equal(
	        dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = root, .what = what}, &d), 0);
	q.claim = claim;
	assert_int_equal(dtk_similar_rank(&hits, &n, kb, &q), 0);
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		dtk_buf_printf(&b, "%s %.17g %d\n", hits[i].entry->id, hits[i].score, hits[i].same);
	free(hits);
	dtk_kb_free(kb);
	dtk_diags_release(&d);
	return dtk_buf_detach(&b);
}

/* Copies the fixture base to base (in dir) for a load in this process, with
 * the caches in dir/xdg and no stat grain (a test build's
 * DTK_TEST_CACHE_GRAIN_NS). */
static void S_in_process(const char *dir, const char *base)
{
	char *src = t_src("tests/fixtures/base"), *xdg = dtk_path_join(dir, "xdg");

	t_copytree(src, base);
	setenv("XDG_CACHE_HOME", xdg, 1);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1);
	free(src);
	free(xdg);
}

/* The terms a load with DTK_KB_TERMS keeps in the node cache give the
 * ranking a full load gives, cold and warm; a node file changed gets fresh
 * terms; damaged terms are cut again. */
static void test_terms(void **state)
{
	char *dir = t_mkdtemp(), *base = dtk_path_join(dir, "base"), *want, *got;
	const int terms = DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_TERMS;
	const char *claim = "small messages bound by bandwidth and synchronization";
	size_t len, i;

	(void)state;
	S_in_process(dir, base);
	want = S_ranked(base, DTK_KB_ALL, claim);
	for (i = 0; i < 2; i++) { /* cut and saved, then read from the cache */
		got = S_ranked(base, terms, claim);
		assert_string_equal(got, want);
		free(got);
	}
	/* a node file changed: an entry's claim is now the query's */
	{
		static const char old[] = "Small messages are bound by synchronization steps, not "
		                          "bandwidth.";
		char *text = t_read(base, "insights/alpha.yaml", &len), *at = strstr(text, old);
		struct dtk_buf b = DTK_BUF_INIT;
		assert_non_null(at);
		dtk_buf_put(&b, text, (size_t)(at - text));
		dtk_buf_puts(&b, claim);
		dtk_buf_puts(&b, at + strlen(old));
		t_write(base, "insights/alpha.yaml", b.ptr, b.len);
		free(text);
		dtk_buf_release(&b);
	}
	free(want);
	want = S_ranked(base, DTK_KB_ALL, claim);
	assert_non_null(strstr(want, " 1\n")); /* the same claim */
	for (i = 0; i < 2; i++) {
		got = S_ranked(base, terms, claim);
		assert_string_equal(got, want);
		free(got);
	}
	/* every term of the cache file changed: cut again, the same ranking */
	{
		char *cache = S_cache_file(dir, &len), *name = NULL, *p, *slash;
		unsigned long long ioff, v[15];
		size_t ilen, k, damaged = 0;
		assert_int_equal(sscanf(cache, "dtk node cache 6\nindex %llu %zu", &ioff, &ilen),
		                 2);
		/* the terms: the 14th and 15th numbers (after the stat data, the
		 * packed node, its head and its summary) */
		for (p = strstr(cache + ioff, "\n") + 1; (p = strstr(p, ".yaml ")); p++) {
			assert_int_equal(sscanf(p + 6,
			                        "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
			                        "%llu %llu %llu %llu %llu",
			                        &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			                        &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13],
			                        &v[14]),
			                 15);
			for (k = 0; k < v[14]; k += 4, damaged++)
				cache[v[13] + k] ^= 0x5a;
		}
		assert_true(damaged > 0);
		if (asprintf(&name, "ls %s/xdg/dtk/nodes-*", dir) < 0)
			fail();
		{
			FILE *f = popen(name, "r");
			char line[4096];
			assert_non_null(fgets(line, sizeof(line), f));
			pclose(f);
			line[strcspn(line, "\n")] = '\0';
			slash = strrchr(line, '/');
			*slash = '\0';
			t_write(line, slash + 1, cache, len);
		}
		free(name);
		free(cache);
	}
	got = S_ranked(base, terms, claim);
	assert_string_equal(got, want);
	free(got);
	free(want);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	free(base);
	t_rmtree(dir);
	free(dir);
}

/* The text both caches write (cache.c): numbers to the last one that
 * fits, stat data, the time line and the end line read back as written. */
static void test_cache_text(void **state)
{
	struct dtk_cache_stat st = {2049, 77, 1234, 5000000001LL, 6000000002LL}, back;
	struct dtk_buf b = DTK_BUF_INIT;
	struct stat fst;
	const char *p;
	char *text, *tail;
	uint64_t v, n;
	int64_t stamp;
	size_t i;

	(void)state;
	p = "18446744073709551615 ";
	assert_int_equal(dtk_cache_num(&p, &v), 0);
	assert_true(v == UINT64_MAX && *p == ' ');
	p = "18446744073709551616";
	assert_int_equal(dtk_cache_num(&p, &v), -1);
	p = "x1";
	assert_int_equal(dtk_cache_num(&p, &v), -1);
	dtk_buf_puts(&b, "head\n");
	dtk_cache_time_put(&b, 7 * DTK_CACHE_NS + 5);
	dtk_cache_stat_put(&b, &st);
	dtk_buf_puts(&b, " rest\n");
	dtk_cache_end_put(&b, 1);
	text = dtk_xstrdup(b.ptr);
	tail = dtk_cache_end_check(text, b.len, &n);
	assert_non_null(tail);
	assert_int_equal(n, 1);
	memset(&fst, 0, sizeof(fst));
	fst.st_mtim.tv_sec = 9; /* later than the time line: the line's time */
	p = dtk_cache_time_read(text + 5, &fst, &stamp);
	assert_non_null(p);
	assert_true(stamp == 7 * DTK_CACHE_NS + 5);
	assert_int_equal(dtk_cache_stat_read(&p, &back), 0);
	assert_memory_equal(&st, &back, sizeof(st));
	assert_string_equal(p, "rest\n");
	free(text);
	/* any byte changed: the end line refuses the text, but for its count,
	 * which the caches check by reading that many records to the end line */
	for (i = 0; i < b.len; i++) {
		text = dtk_xstrdup(b.ptr);
		text[i] ^= 0x02;
		tail = dtk_cache_end_check(text, b.len, &n);
		assert_true(!tail || (i == b.len - 19 && n == 3));
		free(text);
	}
	dtk_buf_release(&b);
}

/* A held base (dtk_kb_hold): the same base while no file changes; loaded
 * again, with what another process wrote, once one does; not held while a
 * file is within the stat grain. */
static void test_hold(void **state)
{
	char *dir = t_mkdtemp(), *base = dtk_path_join(dir, "base");
	struct dtk_diags d = DTK_DIAGS_INIT;
	const struct dtk_kb *kb, *again;
	struct dtk_kb_hold *h;

	(void)state;
	S_in_process(dir, base);
	h = dtk_kb_hold_new(base, DTK_KB_ALL);
	assert_int_equal(dtk_kb_hold_get(h, &kb, &d), 0);
	assert_non_null(dtk_kb_entry(kb, "alpha-001"));
	assert_int_equal(dtk_kb_hold_get(h, &again, &d), 0);
	assert_ptr_equal(kb, again); /* nothing changed: held */
	/* another process writes a node file: the next request sees it */
	assert_int_equal(t_sh(base, "sed -i 's/^  - id: alpha-001$/  - id: alpha-009/' "
	                            "insights/alpha.yaml && sed -i 's/alpha-001/alpha-009/g' "
	                            "insights/*.yaml"),
	                 0);
	assert_int_equal(dtk_kb_hold_get(h, &kb, &d), 0);
	assert_null(dtk_kb_entry(kb, "alpha-001"));
	assert_non_null(dtk_kb_entry(kb, "alpha-009"));
	/* a file added, then made invalid: reported, and loaded again after */
	assert_int_equal(t_sh(base, "printf 'node: zeta\n' > insights/zeta.yaml"), 0);
	assert_int_equal(dtk_kb_hold_get(h, &kb, &d), DTK_EINVALID);
	assert_null(kb);
	assert_true(d.n > 0);
	dtk_diags_release(&d);
	assert_int_equal(t_sh(base, "rm insights/zeta.yaml"), 0);
	assert_int_equal(dtk_kb_hold_get(h, &kb, &d), 0);
	assert_non_null(dtk_kb_entry(kb, "alpha-009"));
	/* with the grain as shipped, a file just written is never trusted:
	 * each request loads again */
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	assert_int_equal(t_sh(base, "touch insights/beta.yaml"), 0);
	assert_int_equal(dtk_kb_hold_get(h, &kb, &d), 0);
	assert_int_equal(dtk_kb_hold_get(h, &again, &d), 0);
	assert_non_null(again);
	assert_ptr_not_equal(kb, NULL);
	dtk_kb_hold_free(h);
	dtk_kb_hold_free(NULL);
	unsetenv("XDG_CACHE_HOME");
	free(base);
	t_rmtree(dir);
	free(dir);
}

/* Returns a packed node as far as the cache looks (a head alone) of len
 * bytes (at least 8), filled with c; malloc'd. */
static char *S_fake(size_t len, char c)
{
	char *b = dtk_xmalloc(len);
	uint32_t head = (uint32_t)len;
	memset(b, c, len);
	memcpy(b, &head, sizeof(head));
	return b;
}

/* A save with one record changed appends to the cache (the same file,
 * grown by about that record and the index), never rewriting the others;
 * once more than half the file is garbage it is written anew; every
 * record reads as last put throughout, also when another process's
 * records were appended in between. */
static void test_append(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "nodes-x"), *big = S_fake(300000, 'b');
	struct stat old = S_st(100, 5), st, before;
	struct dtk_nodecache *c, *other;
	size_t i;
	int appended = 0, anew = 0;

	(void)state;
	c = dtk_nodecache_open(path, "/base");
	dtk_nodecache_put(c, "big.yaml", &old, big, 300000, &S_summary, NULL, 0, "", 0);
	assert_int_equal(dtk_nodecache_save(c), 0);
	dtk_nodecache_free(c);
	for (i = 0; i < 24; i++) {
		char *small = S_fake(100000, (char)('a' + i));
		assert_int_equal(stat(path, &before), 0);
		c = dtk_nodecache_open(path, "/base");
		assert_int_equal(dtk_nodecache_get(c, "big.yaml", &old, NULL, NULL), 0);
		dtk_nodecache_put(c, "small.yaml", &old, small, 100000, &S_summary, NULL, 0, "", 0);
		if (i == 5) { /* another process appends and saves meanwhile */
			other = dtk_nodecache_open(path, "/base");
			dtk_nodecache_put(other, "x.yaml", &old, big, 300000, &S_summary, NULL, 0,
			                  "", 0);
			assert_int_equal(dtk_nodecache_save(other), 0);
			dtk_nodecache_free(other);
		}
		assert_int_equal(dtk_nodecache_save(c), 0);
		dtk_nodecache_free(c);
		assert_int_equal(stat(path, &st), 0);
		if (st.st_ino == before.st_ino) {
			appended++;
			assert_true(st.st_size > before.st_size &&
			            st.st_size <
			                    before.st_size + 100000 + 4096 + (i == 5 ? 300000 : 0));
		} else {
			anew++;
		}
		/* never more than twice what the records need, and 1 MiB */
		assert_true(st.st_size <= 2 * (400000 + 4096) + (1 << 20) + 100000 + 4096);
		c = dtk_nodecache_open(path, "/base");
		S_get_is(c, "small.yaml", &old, small, 100000);
		S_get_is(c, "big.yaml", &old, big, 300000);
		dtk_nodecache_free(c);
		free(small);
	}
	assert_true(appended >= 16);
	assert_true(anew >= 1);
	/* the file replaced by another command (written anew and renamed)
	 * between the load and the save: this one writes it anew too, not
	 * into the file no name leads to any more */
	{
		char *small = S_fake(100000, 'z'), *file,
		     *other_path = dtk_path_join(dir, "nodes-y");
		size_t flen;
		c = dtk_nodecache_open(path, "/base");
		assert_int_equal(dtk_nodecache_get(c, "big.yaml", &old, NULL, NULL), 0);
		dtk_nodecache_put(c, "small.yaml", &old, small, 100000, &S_summary, NULL, 0, "", 0);
		file = t_read(dir, "nodes-x", &flen);
		t_write(dir, "nodes-y", file, flen);
		assert_int_equal(rename(other_path, path), 0);
		assert_int_equal(stat(path, &before), 0);
		assert_int_equal(dtk_nodecache_save(c), 0);
		dtk_nodecache_free(c);
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_ino != before.st_ino);
		c = dtk_nodecache_open(path, "/base");
		S_get_is(c, "small.yaml", &old, small, 100000);
		S_get_is(c, "big.yaml", &old, big, 300000);
		dtk_nodecache_free(c);
		free(file);
		free(small);
		free(other_path);
	}
	free(big);
	free(path);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_round_trip),   cmocka_unit_test(test_damage),
	        cmocka_unit_test(test_checks_again), cmocka_unit_test(test_file),
	        cmocka_unit_test(test_append),       cmocka_unit_test(test_used_and_stale),
	        cmocka_unit_test(test_terms),        cmocka_unit_test(test_cache_text),
	        cmocka_unit_test(test_hold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
