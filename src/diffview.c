/* diffview.c: a unified diff in colour, with the changed part of each
 * changed line marked. */
#include "dtk/diffview.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

#define C_META "\033[1m"
#define C_FRAG "\033[36m"
#define C_OLD "\033[31m"
#define C_NEW "\033[32m"
#define C_REV "\033[7m"
#define C_UNREV "\033[27m"
#define C_RESET "\033[m"

struct line {
	const char *s; /* the line after its first character (' ', '-', '+') */
	size_t len;    /* without the line break */
};

static int S_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Sets *pre and *suf to the lengths of the common start and end of a and b,
 * cut at character boundaries and widened so that no ASCII word is split. */
static void S_common(const struct line *a, const struct line *b, size_t *pre, size_t *suf)
{
	size_t p = 0, s = 0, max = a->len < b->len ? a->len : b->len;
	const unsigned char *x = (const unsigned char *)a->s, *y = (const unsigned char *)b->s;

	while (p < max && x[p] == y[p])
		p++;
	while (p > 0 &&
	       ((p < a->len && (x[p] & 0xC0) == 0x80) || (p < b->len && (y[p] & 0xC0) == 0x80)))
		p--;
	while (p > 0 && S_word(x[p - 1]) &&
	       ((p < a->len && S_word(x[p])) || (p < b->len && S_word(y[p]))))
		p--;
	while (s < max - p && x[a->len - 1 - s] == y[b->len - 1 - s])
		s++;
	while (s > 0 && ((x[a->len - s] & 0xC0) == 0x80 || (y[b->len - s] & 0xC0) == 0x80))
		s--;
	while (s > 0 && S_word(x[a->len - s]) &&
	       ((s < a->len && S_word(x[a->len - s - 1])) ||
	        (s < b->len && S_word(y[b->len - s - 1]))))
		s--;
	*pre = p;
	*suf = s;
}

/* Writes one changed line (sign '-' or '+') with its changed part marked. */
static void S_marked(FILE *f, char sign, const struct line *l, size_t pre, size_t suf)
{
	const char *c = sign == '-' ? C_OLD : C_NEW;
	fprintf(f, "%s%c%.*s" C_REV "%.*s" C_UNREV "%.*s" C_RESET "\n", c, sign, (int)pre, l->s,
	        (int)(l->len - pre - suf), l->s + pre, (int)suf, l->s + l->len - suf);
}

/* Writes the block of removed lines a[0..na) and added lines b[0..nb). */
static void S_block(FILE *f, const struct line *a, size_t na, const struct line *b, size_t nb,
                    unsigned how)
{
	const int color = (how & DTK_DIFF_COLOR) != 0;
	const char *o = color ? C_OLD : "", *n = color ? C_NEW : "", *r = color ? C_RESET : "";
	size_t i, pre, suf;
	int paired = na == nb, k;

	if (how & DTK_DIFF_WORDS) {
		for (i = 0; paired && i < na; i++) {
			S_common(&a[i], &b[i], &pre, &suf);
			fprintf(f, "%.*s%s[-%.*s-]%s%s{+%.*s+}%s%.*s\n", (int)pre, a[i].s, o,
			        (int)(a[i].len - pre - suf), a[i].s + pre, r, n,
			        (int)(b[i].len - pre - suf), b[i].s + pre, r, (int)suf,
			        a[i].s + a[i].len - suf);
		}
		for (i = 0; !paired && i < na; i++)
			fprintf(f, "%s[-%.*s-]%s\n", o, (int)a[i].len, a[i].s, r);
		for (i = 0; !paired && i < nb; i++)
			fprintf(f, "%s{+%.*s+}%s\n", n, (int)b[i].len, b[i].s, r);
		return;
	}
	for (k = 0; k < 2; k++) /* the removed lines, then the added */
		for (i = 0; i < (k ? nb : na); i++) {
			const struct line *l = k ? &b[i] : &a[i];
			if (!paired) {
				fprintf(f, "%s%c%.*s" C_RESET "\n", k ? C_NEW : C_OLD,
				        k ? '+' : '-', (int)l->len, l->s);
				continue;
			}
			S_common(&a[i], &b[i], &pre, &suf);
			S_marked(f, k ? '+' : '-', l, pre, suf);
		}
}

void dtk_diff_print(FILE *f, const char *diff, unsigned how)
{
	struct line *old = NULL, *new_ = NULL;
	size_t n_old = 0, n_new = 0, cap_old = 0, cap_new = 0;
	const char *p = diff, *eol;
	int in_hunk = 0;

	if (!how) {
		fputs(diff, f);
		return;
	}
	for (; *p; p = *eol ? eol + 1 : eol) {
		struct line l;
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		l.s = p + 1;
		l.len = (size_t)(eol - p) - (p < eol);
		if (in_hunk && *p == '-') {
			dtk_grow((void **)&old, &cap_old, n_old + 1, sizeof(*old));
			old[n_old++] = l;
			continue;
		}
		if (in_hunk && *p == '+') {
			dtk_grow((void **)&new_, &cap_new, n_new + 1, sizeof(*new_));
			new_[n_new++] = l;
			continue;
		}
		S_block(f, old, n_old, new_, n_new, how);
		n_old = n_new = 0;
		if (!strncmp(p, "@@", 2)) {
			in_hunk = 1;
			fprintf(f, "%s%.*s%s\n", how & DTK_DIFF_COLOR ? C_FRAG : "", (int)(eol - p),
			        p, how & DTK_DIFF_COLOR ? C_RESET : "");
		} else if (in_hunk && (*p == ' ' || *p == '\\')) {
			/* context: in word diff without its leading space, as git */
			if (*p == ' ' && (how & DTK_DIFF_WORDS))
				fprintf(f, "%.*s\n", (int)l.len, l.s);
			else
				fprintf(f, "%.*s\n", (int)(eol - p), p);
		} else {
			in_hunk = 0;
			fprintf(f, "%s%.*s%s\n", how & DTK_DIFF_COLOR ? C_META : "", (int)(eol - p),
			        p, how & DTK_DIFF_COLOR ? C_RESET : "");
		}
	}
	S_block(f, old, n_old, new_, n_new, how);
	free(old);
	free(new_);
}
