/* gentext.c: PRNG, buffer, text and dates for bench/gen (see gentext.h). */
#include "gentext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- xorshift64* ---- */

void gen_rng_seed(struct gen_rng *r, uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15u; /* splitmix64: never 0 out */

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	r->s = (z ^ (z >> 31)) | 1;
}

uint64_t gen_rng_next(struct gen_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Du;
}

unsigned gen_rng_range(struct gen_rng *r, unsigned lo, unsigned hi)
{
	uint64_t span = (uint64_t)hi - lo + 1;
	return lo + (unsigned)((gen_rng_next(r) >> 11) % span);
}

int gen_rng_pct(struct gen_rng *r, unsigned pct)
{
	return gen_rng_range(r, 0, 99) < pct;
}

/* ---- buffer ---- */

void gen_buf_add(struct gen_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			fputs("gen: out of memory\n", stderr);
			abort();
		}
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void gen_buf_clear(struct gen_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void gen_buf_free(struct gen_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---- text ---- */

/* Common Chinese characters, each three bytes in UTF-8 (U+4E00..U+9FFF). */
static const char S_hanzi[] =
        "的一是在不了有和人这中大为上个我以要他时来用们生到作地于出就分对成会可主发"
        "年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如"
        "水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前"
        "外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气"
        "第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题程展五果料象员"
        "革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手"
        "角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规"
        "热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单"
        "风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信"
        "马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众"
        "书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸"
        "历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置"
        "派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞";

/* Chinese punctuation, three bytes each: ， 、 ； */
static const char *const S_punct[] = {"\xEF\xBC\x8C", "\xE3\x80\x81", "\xEF\xBC\x9B"};
#define FULL_STOP "\xE3\x80\x82" /* 。 */

/* Technical words: no YAML indicator, no ':' nor '#', never a whole number. */
static const char *const S_words[] = {
        "NCCL",       "RCCL",       "all-reduce", "all-gather", "reduce-scatter",
        "all-to-all", "TP",         "PP",         "DP",         "EP",
        "CP",         "TP/PP",      "ZeRO-3",     "FSDP",       "1F1B",
        "bubble",     "microbatch", "checkpoint", "rank",       "communicator",
        "NVLink",     "InfiniBand", "RDMA",       "RoCE",       "MFU",
        "throughput", "latency",    "bandwidth",  "overlap",    "activation",
        "recompute",  "optimizer",  "shard",      "gradient",   "bf16",
        "fp8",        "loss",       "spike",      "router",     "expert",
        "token",      "sequence",   "ring",       "tree",       "topology",
        "straggler",  "failover",   "rollout",    "weights",    "sync",
        "async",      "DiLoCo",     "outer",      "step",       "warmup",
        "scheduler",  "kernel",     "stream",     "barrier",    "timeout",
        "watchdog",   "GPU",        "cluster",    "rack",       "switch",
        "link",       "55.2%",      "2.5x",       "8",          "64",
        "1024",       "Megatron",   "DeepSpeed",  "PyTorch",    "ProcessGroup",
        "DeviceMesh", "KV",         "cache",
};
#define N_WORDS (sizeof(S_words) / sizeof(S_words[0]))

/* Lowercase words for node and source names. */
static const char *const S_name_words[] = {
        "gradient",  "pipeline",  "expert",  "collective", "checkpoint", "rollout",   "shard",
        "overlap",   "elastic",   "context", "memory",     "network",    "kernel",    "schedule",
        "stability", "weight",    "async",   "tensor",     "sequence",   "optimizer", "recovery",
        "topology",  "precision", "routing", "storage",    "straggler",  "compiler",  "profiling",
        "serving",   "data",      "reward",  "parallel",
};
#define N_NAME_WORDS (sizeof(S_name_words) / sizeof(S_name_words[0]))

const char *gen_name_word(unsigned i)
{
	return S_name_words[i % N_NAME_WORDS];
}

unsigned gen_name_words(void)
{
	return (unsigned)N_NAME_WORDS;
}

/* Appends one random Chinese character to b. */
static void S_hanzi_add(struct gen_rng *r, struct gen_buf *b)
{
	unsigned n = (unsigned)(sizeof(S_hanzi) - 1) / 3;
	gen_buf_add(b, S_hanzi + 3 * gen_rng_range(r, 0, n - 1), 3);
}

/* Returns the number of code points of the UTF-8 string s. */
static unsigned S_chars(const char *s)
{
	unsigned n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

void gen_phrase(struct gen_rng *r, struct gen_buf *b, unsigned min_chars, unsigned max_chars,
                int punct)
{
	unsigned target = gen_rng_range(r, min_chars, max_chars), count = 1;
	int prev_ascii = 0, prev_punct = 0;

	S_hanzi_add(r, b);
	while (count < target) {
		unsigned left = target - count;
		const char *w = S_words[gen_rng_range(r, 0, N_WORDS - 1)];
		unsigned cost = 1 + S_chars(w);

		/* a word only where a following "space + character" still fits */
		if (gen_rng_pct(r, 30) && (cost == left || cost + 2 <= left)) {
			gen_buf_add(b, " ", 1);
			gen_buf_add(b, w, strlen(w));
			count += cost;
			prev_ascii = 1;
			prev_punct = 0;
			continue;
		}
		if (prev_ascii) { /* left >= 2 here */
			gen_buf_add(b, " ", 1);
			count++;
		}
		if (punct && !prev_ascii && !prev_punct && left >= 2 && gen_rng_pct(r, 8)) {
			gen_buf_add(b, S_punct[gen_rng_range(r, 0, 1)], 3);
			prev_punct = 1;
		} else {
			S_hanzi_add(r, b);
			prev_punct = 0;
		}
		count++;
		prev_ascii = 0;
	}
}

void gen_paragraph(struct gen_rng *r, struct gen_buf *b, size_t bytes)
{
	size_t start = b->len;
	int ascii = gen_rng_pct(r, 50);

	while (b->len - start < bytes) {
		unsigned i, n;
		if (b->len > start)
			gen_buf_add(b, " ", 1);
		if (ascii) {
			n = gen_rng_range(r, 1, 5);
			for (i = 0; i < n; i++) {
				const char *w = S_words[gen_rng_range(r, 0, N_WORDS - 1)];
				if (i)
					gen_buf_add(b, " ", 1);
				gen_buf_add(b, w, strlen(w));
			}
		} else {
			int punct = 1; /* no punctuation first, last or twice in a row */
			n = gen_rng_range(r, 4, 20);
			for (i = 0; i < n; i++) {
				if (!punct && i + 1 < n && gen_rng_pct(r, 6)) {
					gen_buf_add(b, S_punct[gen_rng_range(r, 0, 2)], 3);
					punct = 1;
				} else {
					S_hanzi_add(r, b);
					punct = 0;
				}
			}
			if (gen_rng_pct(r, 25))
				gen_buf_add(b, FULL_STOP, 3);
		}
		ascii = !ascii;
	}
	if (b->len < 3 || memcmp(b->p + b->len - 3, FULL_STOP, 3))
		gen_buf_add(b, FULL_STOP, 3);
}

/* ---- dates (Howard Hinnant's days_from_civil / civil_from_days) ---- */

long gen_days(int y, int m, int d)
{
	long yy = y - (m <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
	long yoe = yy - era * 400;
	long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

char *gen_date(char out[11], long days)
{
	long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	long doe = z - era * 146097;
	long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
	long m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2);

	long parts[3] = {y, m, d}, k;
	int i, width[3] = {4, 2, 2}, at = 0;

	for (i = 0; i < 3; i++) { /* YYYY-MM-DD, digit by digit */
		for (k = width[i] - 1, at += width[i]; k >= 0; k--, parts[i] /= 10)
			out[at - width[i] + k] = (char)('0' + parts[i] % 10);
		out[at++] = i < 2 ? '-' : '\0';
	}
	return out;
}
