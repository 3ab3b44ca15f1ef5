/* gentext.h: the deterministic pieces bench/gen is made of — a PRNG, a growing
 * buffer, mixed ASCII/Chinese text that is safe as a plain YAML scalar, and
 * calendar dates. Nothing here reads the clock, the locale or rand(). */
#ifndef DTK_BENCH_GENTEXT_H
#define DTK_BENCH_GENTEXT_H

#include <stddef.h>
#include <stdint.h>

/* ---- xorshift64* ---- */

struct gen_rng {
	uint64_t s;
};

/* Seeds r from seed (any value, 0 included) through splitmix64. */
void gen_rng_seed(struct gen_rng *r, uint64_t seed);
/* Returns the next 64 random bits. */
uint64_t gen_rng_next(struct gen_rng *r);
/* Returns a number in [lo, hi] (both included; lo <= hi). */
unsigned gen_rng_range(struct gen_rng *r, unsigned lo, unsigned hi);
/* Returns 1 with probability pct percent, else 0. */
int gen_rng_pct(struct gen_rng *r, unsigned pct);

/* ---- a growing NUL-terminated byte buffer ---- */

struct gen_buf {
	char *p;
	size_t len, cap;
};

/* Appends n bytes of s; aborts when out of memory. */
void gen_buf_add(struct gen_buf *b, const char *s, size_t n);
/* Empties b, keeping its memory. */
void gen_buf_clear(struct gen_buf *b);
/* Frees b's memory; b may be reused after. */
void gen_buf_free(struct gen_buf *b);

/* ---- text ---- */

/* Appends to b a phrase of between min_chars and max_chars characters
 * (code points) of technical words and Chinese; it starts with a Chinese
 * character and contains no YAML indicator, so it is a valid plain scalar that
 * reads as a string. punct: 1 to allow Chinese punctuation. */
void gen_phrase(struct gen_rng *r, struct gen_buf *b, unsigned min_chars, unsigned max_chars,
                int punct);
/* Appends to b a paragraph of at least bytes bytes: runs of technical words
 * and runs of Chinese, single spaces between tokens, ending in "。". */
void gen_paragraph(struct gen_rng *r, struct gen_buf *b, size_t bytes);
/* Returns a word of the technical vocabulary (lowercase, [a-z]+) by index,
 * modulo the vocabulary's size; used to build names. */
const char *gen_name_word(unsigned i);
/* Returns the number of words gen_name_word cycles through. */
unsigned gen_name_words(void);

/* ---- dates, as days since 1970-01-01 ---- */

/* Returns the day number of the real date y-m-d. */
long gen_days(int y, int m, int d);
/* Writes the day number days as YYYY-MM-DD into out (11 bytes) and returns out. */
char *gen_date(char out[11], long days);

#endif
