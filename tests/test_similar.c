/* test_similar.c: the similarity measure (folding, terms, scores, order),
 * and dtk similar and dtk add's duplicate check
 * through the binary. */
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/similar.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

static struct dtk_kb *S_shipped(void)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	assert_int_equal(
	        dtk_kb_load(&kb,
	                    &(struct dtk_kb_load_opts){.root = DTK_SOURCE_DIR, .what = DTK_KB_ALL},
	                    &d),
	        0);
	dtk_diags_release(&d);
	return kb;
}

/* Ranks kb's entries for title and claim; returns the hits (free), *n. */
static struct dtk_similar_hit *S_rank(const struct dtk_kb *kb, const char *title, const char *claim,
                                      size_t *n)
{
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *hits = NULL;
	q.title = title;
	q.claim = claim;
	assert_int_equal(dtk_similar_rank(&hits, n, kb, &q), 0);
	return hits;
}

/* ---- the measure ---- */

/* Each variant of an entry's claim folds to the same claim: found first,
 * marked the same, score 1 or near it. */
static void S_same(const struct dtk_kb *kb, const char *id, const char *variant)
{
	size_t n;
	struct dtk_similar_hit *h = S_rank(kb, NULL, variant, &n);
	assert_true(n >= 1);
	assert_string_equal(h[0].entry->id, id);
	assert_int_equal(h[0].same, 1);
	assert_true(n < 2 || !h[1].same);
	free(h);
}

/* Returns s with ASCII letters upper-cased, ASCII punctuation made
 * full-width, spaces doubled and a line break after every 20 bytes at a
 * character boundary (malloc'd). */
static char *S_disguise(const char *s)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, col = 0;
	for (i = 0; s[i]; i++, col++) {
		unsigned char c = (unsigned char)s[i];
		if (col >= 20 && (c & 0xC0) != 0x80) {
			dtk_buf_putc(&b, '\n');
			col = 0;
		}
		if (c >= 'a' && c <= 'z')
			dtk_buf_putc(&b, (char)(c - 32));
		else if (c == ' ')
			dtk_buf_puts(&b, "  ");
		else if (c == ',' || c == '(' || c == ')' || c == ':' || c == ';')
			/* U+FF01..: the full-width form of c */
			dtk_buf_printf(&b, "\xef\xbc%c", (char)(0x80 + c - 0x20));
		else
			dtk_buf_putc(&b, (char)c);
	}
	return dtk_buf_detach(&b);
}

static void test_same_claim(void **state)
{
	struct dtk_kb *kb = S_shipped();
	size_t i, j;
	(void)state;
	/* every exact copy of every shipped entry, and its disguise */
	for (i = 0; i < kb->n_nodes; i++) {
		for (j = 0; j < kb->nodes[i]->n_entries; j++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[j];
			char *v = S_disguise(e->claim);
			S_same(kb, e->id, e->claim);
			S_same(kb, e->id, v);
			free(v);
		}
	}
	/* the punctuation of Chinese, and full-width letters */
	S_same(kb, "async-distributed-005",
	       "Ｋｉｍｉ k1.5 用 partial rollouts 处理长 CoT 的长尾 每轮 rollout 设固定的输出 "
	       "token "
	       "预算 未完成的轨迹存入 replay buffer 下一轮从断点继续生成 "
	       "只有当前轮生成的片段需要按当前策略计算 之前轮的片段直接复用 "
	       "一条超长轨迹因此不会阻塞整轮迭代 代价是同一条轨迹的不同片段来自不同版本的策略!!");
	dtk_kb_free(kb);
}

static void test_scores(void **state)
{
	struct dtk_kb *kb = S_shipped();
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *h;
	size_t n, i;
	(void)state;
	h = S_rank(kb, NULL, "DiLoCo 外层同步 Nesterov momentum", &n);
	assert_true(n >= 3);
	for (i = 0; i < n; i++) {
		assert_true(h[i].score > 0 && h[i].score <= 1);
		if (i)
			assert_true(h[i].score <= h[i - 1].score);
	}
	assert_string_equal(h[0].entry->id, "async-distributed-001");
	free(h);
	/* nothing shared: no hit; punctuation alone: no term */
	h = S_rank(kb, NULL, "zzqx wvvk", &n);
	assert_int_equal(n, 0);
	free(h);
	h = S_rank(kb, NULL, "，。！", &n);
	assert_int_equal(n, 0);
	free(h);
	/* a node, a limit, an entry left out */
	q.claim = "DiLoCo 外层同步";
	q.node = "large-scale-training";
	q.limit = 1;
	assert_int_equal(dtk_similar_rank(&h, &n, kb, &q), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].entry->node->name, "large-scale-training");
	free(h);
	q.node = NULL;
	q.limit = 0;
	q.skip = "async-distributed-001";
	assert_int_equal(dtk_similar_rank(&h, &n, kb, &q), 0);
	for (i = 0; i < n; i++)
		assert_string_not_equal(h[i].entry->id, "async-distributed-001");
	free(h);
	/* not UTF-8 */
	q.claim = "\xff";
	assert_int_equal(dtk_similar_rank(&h, &n, kb, &q), -1);
	dtk_kb_free(kb);
}

/* ---- through the binary ---- */

/* Returns a scratch copy of the shipped base (t_done removes it). */
static char *S_copy(void)
{
	char *dir = t_mkdtemp(), *ins = t_src("insights"), *to = dtk_path_join(dir, "insights"),
	     *index;
	size_t len;
	t_copytree(ins, to);
	index = t_read(DTK_SOURCE_DIR, "INDEX.md", &len);
	t_write(dir, "INDEX.md", index, len);
	free(index);
	free(to);
	free(ins);
	return dir;
}

static const char S_para[] =
        "1F1B 的 bubble 比例是 (p−1)/m。Megatron 的 interleaved 调度让每个设备放 v "
        "个不相邻的模型块（virtual stage），bubble 变为 1/v，但 stage 之间的通信增加到 v "
        "倍，还要求 micro-batch 数整除 pipeline 并行度。链路越慢，v 越不能取大。";

/* Runs dtk add of title and claim to training-parallelism in dir with the
 * extra arguments a and b (NULL: none), expecting status want; when it is 2,
 * checks that no byte of the node file and INDEX.md changed. */
static void S_add(struct t_run *r, const char *dir, const char *env, const char *claim,
                  const char *a, const char *b, int want)
{
	size_t l1, l2, l3, l4;
	char *node = t_read(dir, "insights/training-parallelism.yaml", &l1),
	     *index = t_read(dir, "INDEX.md", &l2), *node2, *index2;
	t_dtk(r, dir, env, "add", "training-parallelism", "--title", "interleaved 调度", "--claim",
	      claim, "--source", "megatron-2021", "--confidence", "low", a, b, NULL);
	if (r->status != want)
		print_error("exit %d: %s%s\n", r->status, r->out, r->err);
	assert_int_equal(r->status, want);
	node2 = t_read(dir, "insights/training-parallelism.yaml", &l3);
	index2 = t_read(dir, "INDEX.md", &l4);
	if (want == 2 || (a && !strcmp(a, "--dry-run"))) { /* byte for byte as before */
		assert_true(l1 == l3 && !memcmp(node, node2, l1));
		assert_true(l2 == l4 && !memcmp(index, index2, l2));
	} else {
		assert_true(l3 > l1);
	}
	free(node);
	free(node2);
	free(index);
	free(index2);
}

/* The claim of training-parallelism-002 with its last sentence cut: not the
 * same claim, but nearly (scores DTK_SIMILAR_SURE or more). */
static const char S_near[] =
        "1F1B 流水线的 bubble 占比为 (p−1)/m，p 为 stage 数，m 为每个 batch 的 micro-batch 数。"
        "Megatron 的 interleaved schedule 让每个设备承担 v 个不相邻的模型块（virtual stage），"
        "bubble 缩小为原来的 1/v，但 stage 间通信量按 v 倍增加，并要求 micro-batch 数能被"
        "pipeline 并行度整除。";

static void test_add_refuses(void **state)
{
	char *dir = S_copy(), *copy, *other;
	struct t_run r;
	struct dtk_kb *kb = S_shipped();
	(void)state;
	/* the claim of training-parallelism-002, disguised */
	copy = S_disguise(dtk_kb_entry(kb, "training-parallelism-002")->claim);
	S_add(&r, dir, NULL, copy, NULL, NULL, 2);
	assert_non_null(strstr(r.err, "the same claim is in the base already: "
	                              "training-parallelism-002"));
	t_run_free(&r);
	/* named distinct, or related, still the same claim */
	S_add(&r, dir, NULL, copy, "--distinct-from", "training-parallelism-002", 2);
	assert_non_null(strstr(r.err, "same claim"));
	t_run_free(&r);
	S_add(&r, dir, NULL, copy, "--relates", "training-parallelism-002", 2);
	assert_non_null(strstr(r.err, "same claim"));
	t_run_free(&r);
	/* nearly the same claim: refused, listed with its score */
	S_add(&r, dir, NULL, S_near, NULL, NULL, 2);
	assert_non_null(strstr(r.err, "the new entry restates a live entry (score 0.60 or more"));
	assert_non_null(strstr(r.err, "\n  training-parallelism-002  0."));
	assert_non_null(strstr(r.err, "  likely  interleaved 1F1B"));
	assert_non_null(strstr(r.err, "--distinct-from ID (or --relates ID)"));
	t_run_free(&r);
	/* --dry-run is refused alike */
	S_add(&r, dir, NULL, S_near, "--dry-run", NULL, 2);
	t_run_free(&r);
	/* an id that is no entry */
	S_add(&r, dir, NULL, S_near, "--distinct-from", "training-parallelism-404", 2);
	assert_non_null(strstr(r.err, "--distinct-from names no entry 'training-parallelism-404'"));
	t_run_free(&r);
	/* the check off (for measuring it) */
	S_add(&r, dir, "DTK_NO_DUPLICATE_CHECK=1", S_near, "--dry-run", NULL, 0);
	t_run_free(&r);
	/* a restatement it is not sure of goes in, the original shown marked
	 * likely, most alike first, on standard error: the id alone on out */
	S_add(&r, dir, NULL, S_para, NULL, NULL, 0);
	assert_int_equal(strlen(r.out), strlen("training-parallelism-") + 7 + 1);
	assert_non_null(strstr(r.err, "note: the closest live entries (score; 'likely': 0.10 or "
	                              "more, a likely restatement):\n"
	                              "  training-parallelism-002  0."));
	assert_non_null(strstr(r.err, "  likely  interleaved 1F1B"));
	t_run_free(&r);
	/* -q: the id, no note (in bases of their own: it is in this one now) */
	other = S_copy();
	S_add(&r, other, NULL, S_para, "-q", NULL, 0);
	assert_string_equal(r.err, "");
	t_run_free(&r);
	t_done(other);
	/* as JSON: the entry and its closest, each marked */
	other = S_copy();
	S_add(&r, other, NULL, S_para, "--format", "json", 0);
	t_done(other);
	assert_non_null(strstr(r.out, "\"closest\": [\n"));
	assert_non_null(strstr(r.out, "\"id\": \"training-parallelism-002\",\n"));
	assert_non_null(strstr(r.out, "\"likely_restatement\": true"));
	assert_string_equal(r.err, "");
	t_run_free(&r);
	/* looked at (related, or said distinct): the near copy goes in */
	S_add(&r, dir, NULL, S_near, "--relates", "training-parallelism-002", 0);
	t_run_free(&r);
	S_add(&r, dir, NULL, S_near, "--distinct-from", "training-parallelism-002", 2);
	assert_non_null(strstr(r.err, "same claim")); /* the one just added */
	t_run_free(&r);
	/* a new claim goes in */
	S_add(&r, dir, NULL,
	      "ZeRO-1 只把优化器状态按 DP rank 分片，ZeRO-2 再分片梯度，ZeRO-3 连参数也分片。",
	      NULL, NULL, 0);
	t_run_free(&r);
	RUN(r, dir, 0, "check");
	t_run_free(&r);
	free(copy);
	dtk_kb_free(kb);
	t_done(dir);
}

static void test_similar_cmd(void **state)
{
	char *dir = S_copy();
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "similar", "DiLoCo", "外层同步", "--limit", "2");
	assert_non_null(strstr(r.out, "async-distributed-"));
	assert_int_equal(strchr(strchr(r.out, '\n') + 1, '\n')[1], '\0'); /* two lines */
	t_run_free(&r);
	RUN(r, dir, 0, "similar", S_para, "--limit", "1", "--format", "ids");
	assert_string_equal(r.out, "training-parallelism-002\n");
	t_run_free(&r);
	RUN(r, dir, 0, "similar", S_para, "--limit", "1", "--format", "json");
	assert_non_null(strstr(r.out, "\"id\": \"training-parallelism-002\""));
	assert_non_null(strstr(r.out, "\"score\": 0."));
	assert_non_null(strstr(r.out, "\"same_claim\": false"));
	t_run_free(&r);
	RUN(r, dir, 0, "similar", S_para, "--node", "async-distributed", "--format", "ids");
	assert_null(strstr(r.out, "training-parallelism"));
	t_run_free(&r);
	RUN(r, dir, 1, "similar", "zzqx");
	assert_string_equal(r.out, "");
	t_run_free(&r);
	RUN(r, dir, 2, "similar", "x", "--node", "nope");
	t_run_free(&r);
	RUN(r, dir, 2, "similar", "x", "--limit", "0");
	t_run_free(&r);
	RUN(r, dir, 2, "similar");
	t_run_free(&r);
	t_done(dir);
}

/* crystallize --plan lists the review pairs most alike first */
static void test_plan_ranks_pairs(void **state)
{
	char *dir = S_copy(), id[64], want[256];
	struct t_run r;
	const char *p;
	(void)state;
	RUN(r, dir, 0, "add", "training-parallelism", "--title", "interleaved 调度", "--claim",
	    S_para, "--source", "megatron-2021", "--confidence", "low", "--created", "2026-10-01",
	    "--distinct-from", "training-parallelism-002");
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-12-20");
	snprintf(want, sizeof(want),
	         "  training-parallelism: 1 new × 11 older + 0 among the new = 11\n"
	         "    %s  interleaved 调度\n      0.",
	         id);
	p = strstr(r.out, want);
	assert_non_null(p);
	p += strlen(want);
	assert_non_null(strstr(p, "likely duplicate training-parallelism-002  "));
	assert_true(strstr(p, "likely duplicate training-parallelism-002  ") < strchr(p, '\n'));
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-12-20", "--format", "json");
	snprintf(want, sizeof(want), "\"pairs\": [\n        {\n          \"new\": \"%s\"", id);
	p = strstr(r.out, want);
	assert_non_null(p);
	p = strstr(p, "\"old\": \"training-parallelism-");
	assert_non_null(p);
	assert_memory_equal(p, "\"old\": \"training-parallelism-002\"", 33);
	assert_non_null(strstr(p, "\"score\": 0."));
	t_run_free(&r);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_same_claim),  cmocka_unit_test(test_scores),
	        cmocka_unit_test(test_add_refuses),
	        cmocka_unit_test(test_similar_cmd), cmocka_unit_test(test_plan_ranks_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
