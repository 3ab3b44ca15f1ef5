/* ytree.c: libyaml's event stream to a dtk_yval tree, strictly. */
#include "ytree_int.h"

#include "dtk/linebreak.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Returns the 1-based column of libyaml's 0-based mark m. */
int dtk_ytree_col(yaml_mark_t m)
{
	return (int)m.column + 1;
}

void dtk_ytree_error(struct builder *b, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dtk_diags_vadd(b->diags, b->path, line, col, fmt, ap);
	va_end(ap);
	b->errors++;
}

/* Sets *line and *col (1-based, col in characters) for byte offset off. */
void dtk_ytree_offset_pos(const char *buf, size_t len, size_t off, int *line, int *col)
{
	size_t i;
	*line = 1;
	*col = 1;
	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n' || (c == '\r' && (i + 1 >= len || buf[i + 1] != '\n'))) {
			(*line)++;
			*col = 1;
		} else if ((c & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static int S_match_all(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

static int S_is_int(const char *s)
{
	if (!strncmp(s, "0o", 2))
		return S_match_all(s + 2, "01234567");
	if (!strncmp(s, "0x", 2))
		return S_match_all(s + 2, "0123456789abcdefABCDEF");
	if (*s == '-' || *s == '+')
		s++;
	return S_match_all(s, "0123456789");
}

static int S_is_float(const char *s)
{
	const char *p = s;
	int digits = 0;
	if (*p == '-' || *p == '+')
		p++;
	if (*p == '.' && (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF") ||
	                  !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")))
		return 1;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

enum dtk_ytype dtk_yaml_resolve(const char *s)
{
	/* the only spellings of the core schema's null and booleans */
	static const char *const words[][3] = {
	        {"null", "Null", "NULL"}, {"true", "True", "TRUE"}, {"false", "False", "FALSE"}};
	size_t w, i;

	switch (*s) {
	case '\0': return DTK_YT_NULL;
	case '~': return s[1] ? DTK_YT_STR : DTK_YT_NULL;
	case 'n':
	case 'N': w = 0; break;
	case 't':
	case 'T': w = 1; break;
	case 'f':
	case 'F': w = 2; break;
	default:
		if ((*s < '0' || *s > '9') && *s != '+' && *s != '-' && *s != '.')
			return DTK_YT_STR; /* most scalars: text */
		if (S_is_int(s))
			return DTK_YT_INT;
		return S_is_float(s) ? DTK_YT_FLOAT : DTK_YT_STR;
	}
	if (s[1] == '\0' || s[2] == '\0' || s[3] == '\0' || (s[4] != '\0' && s[5] != '\0'))
		return DTK_YT_STR; /* not 4 or 5 bytes long */
	for (i = 0; i < 3; i++)
		if (!strcmp(s, words[w][i]))
			return w ? DTK_YT_BOOL : DTK_YT_NULL;
	return DTK_YT_STR;
}

#define CORE_TAG "tag:yaml.org,2002:"

/* Checks an explicit tag against the value; returns the resolved type. */
static enum dtk_ytype S_check_tag(struct builder *b, struct dtk_yval *v, const char *tag,
                                  enum dtk_ytype plain)
{
	static const struct {
		const char *name;
		int kind, type;
	} tags[] = {
	        {"str", DTK_Y_SCALAR, DTK_YT_STR},
	        {"null", DTK_Y_SCALAR, DTK_YT_NULL},
	        {"bool", DTK_Y_SCALAR, DTK_YT_BOOL},
	        {"int", DTK_Y_SCALAR, DTK_YT_INT},
	        {"float", DTK_Y_SCALAR, DTK_YT_FLOAT},
	        {"map", DTK_Y_MAP, 0},
	        {"seq", DTK_Y_SEQ, 0},
	};
	size_t i;

	if (!tag || !strcmp(tag, "!"))
		return plain;
	if (!strncmp(tag, CORE_TAG, strlen(CORE_TAG)))
		for (i = 0; i < sizeof(tags) / sizeof(*tags); i++) {
			if (strcmp(tag + strlen(CORE_TAG), tags[i].name))
				continue;
			if ((int)v->kind != tags[i].kind ||
			    (v->kind == DTK_Y_SCALAR && tags[i].type != DTK_YT_STR &&
			     (int)plain != tags[i].type)) {
				dtk_ytree_error(b, v->line, v->col,
				                "value does not match its tag '!!%s'",
				                tags[i].name);
				return plain;
			}
			return (enum dtk_ytype)tags[i].type;
		}
	dtk_ytree_error(b, v->line, v->col, "tag '%s' is not allowed (only YAML's core tags are)",
	                tag);
	return plain;
}

/* Returns the byte offset in buf of libyaml's mark index idx: libyaml 0.2.5
 * counts characters (a CRLF as two), not bytes. Marks come in order, so the
 * count goes on from the last mark asked for (mark_chars is the number of
 * bytes in buf[0, mark_bytes) that start a character), eight bytes at a
 * time: every event has marks, so this is on the parser's hot path. */
size_t dtk_ytree_mark_byte(struct builder *b, size_t idx)
{
	const unsigned char *p = (const unsigned char *)b->buf;
	const uint64_t high = UINT64_C(0x8080808080808080);

	if (idx < b->mark_chars)
		b->mark_chars = b->mark_bytes = 0; /* not seen: marks only go forward */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (b->mark_bytes + 8 <= b->len) {
		uint64_t w, starts;
		size_t n, k;
		memcpy(&w, p + b->mark_bytes, 8);
		/* bit 7 of each byte that starts a character (not 10xxxxxx) */
		starts = ~(w & ~(w << 1)) & high;
		n = (size_t)(((starts >> 7) * UINT64_C(0x0101010101010101)) >> 56);
		if (b->mark_chars + n <= idx) {
			b->mark_chars += n;
			b->mark_bytes += 8;
			continue;
		}
		for (k = idx - b->mark_chars; k > 0; k--)
			starts &= starts - 1;
		b->mark_bytes += (size_t)__builtin_ctzll(starts) / 8;
		b->mark_chars = idx;
		return b->mark_bytes;
	}
#endif
	for (; b->mark_bytes < b->len; b->mark_bytes++) {
		if ((p[b->mark_bytes] & 0xC0) == 0x80)
			continue;
		if (b->mark_chars == idx)
			break;
		b->mark_chars++;
	}
	return b->mark_bytes;
}

/* Returns the byte offset (counting a skipped byte order mark) of mark m. */
static uint32_t S_offset(struct builder *b, yaml_mark_t m)
{
	return b->off + (uint32_t)dtk_ytree_mark_byte(b, m.index);
}

static struct dtk_yval *S_new(struct builder *b, enum dtk_ykind kind, yaml_mark_t m)
{
	struct dtk_yval *v = dtk_arena_alloc(b->arena, sizeof(*v));
	v->kind = kind;
	v->line = (int)m.line + 1;
	v->col = dtk_ytree_col(m);
	v->start = v->end = S_offset(b, m);
	return v;
}

/* Returns where the text of a block scalar that libyaml ends at end (past
 * its trailing line breaks and blank lines) really ends: past the last
 * character of its last line that is not blank; with keep chomping ('+'),
 * past its last blank line. */
static size_t S_block_end(const char *buf, size_t start, size_t end)
{
	size_t h;

	/* with '+' (keep) the trailing blank lines are part of the value: the
	 * text ends with the last of them (its line break not included) */
	for (h = start + 1; h < end && strchr("+-123456789", buf[h]); h++)
		if (buf[h] == '+') {
			if (end > start && buf[end - 1] == '\n')
				end--;
			if (end > start && buf[end - 1] == '\r')
				end--;
			return end;
		}
	while (end > start) {
		size_t line = end;
		if (buf[end - 1] == '\n' || buf[end - 1] == '\r') {
			end--;
			continue;
		}
		while (line > start && buf[line - 1] == ' ')
			line--;
		if (line > start && buf[line - 1] != '\n' && buf[line - 1] != '\r')
			break; /* a line with text */
		if (line == start)
			break;
		end = line; /* a blank line: drop it */
	}
	return end;
}

/* Sets the style and the end of scalar v from its event. */
static void S_scalar_span(struct builder *b, struct dtk_yval *v, const yaml_event_t *ev)
{
	static const unsigned char styles[] = {
	        [YAML_ANY_SCALAR_STYLE] = DTK_YS_PLAIN,
	        [YAML_PLAIN_SCALAR_STYLE] = DTK_YS_PLAIN,
	        [YAML_SINGLE_QUOTED_SCALAR_STYLE] = DTK_YS_SINGLE,
	        [YAML_DOUBLE_QUOTED_SCALAR_STYLE] = DTK_YS_DOUBLE,
	        [YAML_LITERAL_SCALAR_STYLE] = DTK_YS_LITERAL,
	        [YAML_FOLDED_SCALAR_STYLE] = DTK_YS_FOLDED,
	};
	size_t start = dtk_ytree_mark_byte(b, ev->start_mark.index), end;

	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag &&
	    !ev->data.scalar.anchor && ev->start_mark.line == ev->end_mark.line) {
		/* a plain scalar on one line is its text: no need to count (a tag
		 * or an anchor before it starts the event) */
		end = start + ev->data.scalar.length;
		b->mark_chars = ev->end_mark.index;
		b->mark_bytes = end;
	} else {
		end = dtk_ytree_mark_byte(b, ev->end_mark.index);
	}
	v->style = styles[ev->data.scalar.style];
	v->start = b->off + (uint32_t)start;
	if (v->style == DTK_YS_LITERAL || v->style == DTK_YS_FOLDED)
		end = S_block_end(b->buf, start, end);
	v->end = b->off + (uint32_t)end;
}

/* Returns a new string scalar holding a copy of s[0..len), its text in the
 * same allocation (one arena call, nothing zeroed twice: most values are
 * scalars). */
static struct dtk_yval *S_new_scalar(struct builder *b, yaml_mark_t m, const char *s, size_t len)
{
	struct dtk_yval *v = dtk_arena_alloc_raw(b->arena, sizeof(*v) + len + 1);
	char *str = (char *)(v + 1);

	memcpy(str, s, len);
	str[len] = '\0';
	v->kind = DTK_Y_SCALAR;
	v->type = DTK_YT_STR;
	v->line = (int)m.line + 1;
	v->col = dtk_ytree_col(m);
	v->style = DTK_YS_PLAIN;
	v->start = v->end = 0;
	v->str = str;
	v->len = len;
	v->items = NULL;
	v->n = 0;
	return v;
}

/* Applies the East Asian line-break rule (linebreak.h) to scalar v of event ev:
 * only folded and multi-line plain scalars fold line breaks to spaces. */
static void S_join_wide(struct builder *b, struct dtk_yval *v, const yaml_event_t *ev)
{
	int block = ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
	uint32_t from;

	if (!block && (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	               ev->start_mark.line == ev->end_mark.line))
		return;
	from = v->start - b->off; /* S_scalar_span has set the span */
	v->len =
	        dtk_linebreak_join((char *)v->str, v->len, b->buf + from, v->end - v->start, block);
}

/* Adds v to the collection on top of the stack, or makes it the root. */
static void S_add(struct builder *b, struct dtk_yval *v)
{
	struct frame *f;
	if (b->depth == 0) {
		b->root = v;
		return;
	}
	if (b->keep && b->depth == 1) { /* an item of the root sequence */
		b->each(b->each_arg, v);
		b->each_end = v->end;
		dtk_arena_reset(b->arena);
		return;
	}
	f = &b->stack[b->depth - 1];
	if (f->val->kind == DTK_Y_MAP && (b->n_items - f->start) % 2 == 0 &&
	    v->kind != DTK_Y_SCALAR)
		dtk_ytree_error(b, v->line, v->col, "mapping keys must be plain values, not %s",
		                dtk_yval_describe(v));
	if (b->n_items == b->cap_items)
		dtk_grow((void **)&b->items, &b->cap_items, b->n_items + 1, sizeof(*b->items));
	b->items[b->n_items++] = v;
}

static int S_keycmp(const void *pa, const void *pb)
{
	const struct dtk_yval *a = *(struct dtk_yval *const *)pa;
	const struct dtk_yval *b = *(struct dtk_yval *const *)pb;
	int c = strcmp(a->str ? a->str : "", b->str ? b->str : "");
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->col < b->col ? -1 : a->col > b->col;
}

/* Reports every repeated key of mapping v, at each repeat, and sets each
 * repeat's key to NULL. */
static void S_check_dup_keys(struct builder *b, struct dtk_yval *v)
{
	size_t i, j, k = 0;
	struct dtk_yval **keys;

	if (v->n < 4)
		return;
	if (v->n <= 64) {
		/* the common case, a few keys: a key is compared with those before
		 * only when one of them set its bit (of its length and ends) */
		uint64_t seen = 0;
		for (i = 0; i + 1 < v->n; i += 2) {
			const struct dtk_yval *a = v->items[i];
			uint64_t bit;
			if (a->kind != DTK_Y_SCALAR)
				continue;
			bit = (uint64_t)1 << ((a->len * 7 + (unsigned char)a->str[0] +
			                       (unsigned char)a->str[a->len ? a->len - 1 : 0]) &
			                      63);
			if (!(seen & bit)) {
				seen |= bit;
				continue;
			}
			for (j = 0; j < i; j += 2) {
				const struct dtk_yval *f = v->items[j];
				if (f && f->kind == DTK_Y_SCALAR && f->len == a->len &&
				    !memcmp(f->str, a->str, a->len)) {
					dtk_ytree_error(b, a->line, a->col,
					                "duplicate key '%s' (first at line %d)",
					                a->str, f->line);
					v->items[i] = NULL; /* S_drop_pairs takes it out */
					break;
				}
			}
		}
		return;
	}
	keys = dtk_xmalloc(v->n * sizeof(*keys)); /* the keys, then the repeats */
	for (i = 0; i + 1 < v->n; i += 2)
		if (v->items[i]->kind == DTK_Y_SCALAR)
			keys[k++] = v->items[i]; /* other keys are reported already */
	qsort(keys, k, sizeof(*keys), S_keycmp);
	for (i = 1, j = 0; i < k; i++) {
		size_t first = i - 1;
		while (first > 0 && !strcmp(keys[first - 1]->str, keys[i]->str))
			first--;
		if (!strcmp(keys[first]->str, keys[i]->str)) {
			dtk_ytree_error(b, keys[i]->line, keys[i]->col,
			                "duplicate key '%s' (first at line %d)", keys[i]->str,
			                keys[first]->line);
			keys[k + j++] = keys[i]; /* in the keys' order */
		}
	}
	for (i = 0; j && i + 1 < v->n; i += 2) /* S_drop_pairs takes them out */
		if (v->items[i]->kind == DTK_Y_SCALAR &&
		    bsearch(&v->items[i], keys + k, j, sizeof(*keys), S_keycmp))
			v->items[i] = NULL;
	free(keys);
}

/* Takes out of mapping v the pairs whose key was reported (a repeat, set to
 * NULL, or not a scalar), so that a tree with errors is still one the
 * schema can check: each key once, every key a scalar. */
static void S_drop_pairs(struct dtk_yval *v)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < v->n; i += 2)
		if (v->items[i] && v->items[i]->kind == DTK_Y_SCALAR) {
			v->items[n++] = v->items[i];
			v->items[n++] = v->items[i + 1];
		}
	v->n = n;
}

static void S_push(struct builder *b, struct dtk_yval *v)
{
	struct frame *f = &b->stack[b->depth++];
	f->val = v;
	f->start = b->n_items;
	if (b->each && b->depth == 1 && v->kind == DTK_Y_SEQ) {
		b->keep = b->arena;
		b->arena = dtk_arena_new();
	}
}

/* Closes the collection on top of the stack; m is the end mark of its end
 * event. */
static void S_pop(struct builder *b, yaml_mark_t m)
{
	struct frame *f = &b->stack[--b->depth];
	struct dtk_yval *v = f->val;

	if (b->keep && b->depth == 0) { /* the root sequence: its items went */
		dtk_arena_free(b->arena);
		b->arena = b->keep;
		b->keep = NULL;
		v->end = b->each_end > v->start ? b->each_end : v->start;
	}
	v->n = b->n_items - f->start;
	v->items = dtk_arena_alloc(b->arena, (v->n ? v->n : 1) * sizeof(*v->items));
	if (v->n)
		memcpy(v->items, b->items + f->start, v->n * sizeof(*v->items));
	b->n_items = f->start;
	if (v->style == DTK_YS_FLOW)
		v->end = S_offset(b, m);
	else if (v->n)
		v->end = v->items[v->n - 1]->end;
	if (v->kind == DTK_Y_MAP) {
		S_check_dup_keys(b, v);
		if (b->errors) /* a repeat or a key that is no scalar, maybe */
			S_drop_pairs(v);
	}
	S_add(b, v);
}

/* Handles one event; returns 0 to go on, 1 at the end, -1 to stop. */
static int S_event(struct builder *b, yaml_event_t *ev)
{
	struct dtk_yval *v;
	yaml_mark_t m = ev->start_mark;
	const char *anchor = NULL, *tag = NULL;

	if ((ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT ||
	     ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) &&
	    ++b->values > DTK_MAX_VALUES) {
		dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
		                "file holds more than %u values", DTK_MAX_VALUES);
		return -1;
	}
	switch (ev->type) {
	case YAML_STREAM_END_EVENT: return 1;
	case YAML_DOCUMENT_START_EVENT:
		if (++b->documents > 1) {
			dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
			                "a file holds one YAML document; this is a second one");
			return -1;
		}
		return 0;
	case YAML_ALIAS_EVENT:
		dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
		                "aliases are not allowed (found '*%s')",
		                (char *)ev->data.alias.anchor);
		v = S_new(b, DTK_Y_SCALAR, m);
		v->type = DTK_YT_NULL;
		v->str = "";
		v->end = S_offset(b, ev->end_mark);
		S_add(b, v);
		return 0;
	case YAML_SCALAR_EVENT:
		anchor = (const char *)ev->data.scalar.anchor;
		tag = (const char *)ev->data.scalar.tag;
		if (ev->data.scalar.length > DTK_MAX_SCALAR_BYTES) {
			dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
			                "value is %zu bytes long; the limit is %u",
			                ev->data.scalar.length, DTK_MAX_SCALAR_BYTES);
			return -1;
		}
		v = S_new_scalar(b, m, (const char *)ev->data.scalar.value, ev->data.scalar.length);
		S_scalar_span(b, v, ev);
		/* libyaml refuses a NUL byte in the input: only an escape of a
		 * double-quoted scalar (\0, \x00, \u0000) can make one */
		if (ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE &&
		    memchr(v->str, '\0', v->len))
			dtk_ytree_error(b, v->line, v->col, "value holds a NUL character");
		v->type = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? dtk_yaml_resolve(v->str)
		                                                           : DTK_YT_STR;
		if (tag && strcmp(tag, "!"))
			v->type = S_check_tag(b, v, tag, dtk_yaml_resolve(v->str));
		S_join_wide(b, v, ev);
		S_add(b, v);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth >= DTK_MAX_DEPTH) {
			dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
			                "nesting deeper than %d levels", DTK_MAX_DEPTH);
			return -1;
		}
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			anchor = (const char *)ev->data.sequence_start.anchor;
			tag = (const char *)ev->data.sequence_start.tag;
			v = S_new(b, DTK_Y_SEQ, m);
			v->style = ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
			                   ? DTK_YS_FLOW
			                   : DTK_YS_BLOCK;
		} else {
			anchor = (const char *)ev->data.mapping_start.anchor;
			tag = (const char *)ev->data.mapping_start.tag;
			v = S_new(b, DTK_Y_MAP, m);
			v->style = ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
			                   ? DTK_YS_FLOW
			                   : DTK_YS_BLOCK;
		}
		S_check_tag(b, v, tag, DTK_YT_STR);
		S_push(b, v);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: S_pop(b, ev->end_mark); return 0;
	default: return 0;
	}
	if (anchor)
		dtk_ytree_error(b, (int)m.line + 1, dtk_ytree_col(m),
		                "anchors are not allowed (found '&%s')", anchor);
	return 0;
}

/* Runs libyaml over b's text, handing each event to S_event. Returns what
 * the last event returned (0 after a libyaml error, 1 at the end, -1 when b
 * stopped), or -2 when libyaml cannot start. */
static int S_loop(struct builder *b)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return -2;
	yaml_parser_set_input_string(&parser, (const unsigned char *)b->buf, b->len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			dtk_ytree_parser_error(b, &parser);
			break;
		}
		rc = S_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Frees the builder's item stack and, when it stopped inside its root
 * sequence, the arena of the item it was building. */
static void S_builder_done(struct builder *b)
{
	free(b->items);
	b->items = NULL;
	if (b->keep) {
		dtk_arena_free(b->arena);
		b->arena = b->keep;
		b->keep = NULL;
	}
}

static int S_parse(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                   const char *buf, size_t len, struct dtk_diags *diags, dtk_yaml_item_fn each,
                   void *arg)
{
	struct builder b;
	int rc;

	memset(&b, 0, sizeof(b));
	b.each = each;
	b.each_arg = arg;
	b.arena = arena;
	b.path = path;
	b.buf = buf;
	b.len = len;
	b.diags = diags;
	*out = NULL;
	/* libyaml skips a leading byte order mark only when it detects the
	 * encoding itself; dtk sets UTF-8 (so UTF-16 is refused) and skips it */
	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
		buf += 3;
		len -= 3;
		b.off = 3;
		b.buf = buf;
		b.len = len;
	}
	if (len > 0) {
		dtk_ytree_check_boms(&b);
		dtk_ytree_check_conflicts(&b);
	}
	if (b.errors)
		return -1;
	rc = S_loop(&b);
	S_builder_done(&b);
	if (rc == -2)
		return dtk_error("out of memory");
	if (b.errors && rc != 1)
		return -1;
	*out = b.root; /* read to the end: whole, whatever was reported */
	return b.errors ? -1 : 0;
}

int dtk_yaml_parse(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                   const char *buf, size_t len, struct dtk_diags *diags)
{
	return S_parse(out, arena, path, buf, len, diags, NULL, NULL);
}

int dtk_yaml_parse_items(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                         const char *buf, size_t len, struct dtk_diags *diags,
                         dtk_yaml_item_fn each, void *arg)
{
	return S_parse(out, arena, path, buf, len, diags, each, arg);
}

const struct dtk_yval *dtk_yval_getn(const struct dtk_yval *m, const char *key, size_t n)
{
	size_t i;
	if (!m || m->kind != DTK_Y_MAP)
		return NULL;
	for (i = 0; i + 1 < m->n; i += 2) {
		const struct dtk_yval *k = m->items[i];
		if (k->len == n && k->str && !memcmp(k->str, key, n))
			return m->items[i + 1];
	}
	return NULL;
}

const char *dtk_yval_str(const struct dtk_yval *m, const char *key)
{
	const struct dtk_yval *v = m && m->kind == DTK_Y_MAP ? dtk_yval_get(m, key) : NULL;
	/* an empty value (null: nothing, "~", "null") counts as absent */
	return v && v->kind == DTK_Y_SCALAR && v->type != DTK_YT_NULL ? v->str : NULL;
}

int dtk_yval_list_find(const struct dtk_yval *m, const char *key, const char *s, const char *sub)
{
	const struct dtk_yval *l = m && m->kind == DTK_Y_MAP ? dtk_yval_get(m, key) : NULL;
	size_t i;
	for (i = 0; l && l->kind == DTK_Y_SEQ && i < l->n; i++) {
		const char *v = sub ? dtk_yval_str(l->items[i], sub)
		                    : (l->items[i]->kind == DTK_Y_SCALAR ? l->items[i]->str : NULL);
		if (v && !strcmp(v, s))
			return (int)i;
	}
	return -1;
}

size_t dtk_yval_list_len(const struct dtk_yval *m, const char *key)
{
	const struct dtk_yval *l = m && m->kind == DTK_Y_MAP ? dtk_yval_get(m, key) : NULL;
	return l && l->kind == DTK_Y_SEQ ? l->n : 0;
}

const char *dtk_yval_describe(const struct dtk_yval *v)
{
	if (v->kind == DTK_Y_MAP)
		return "a mapping";
	if (v->kind == DTK_Y_SEQ)
		return "a list";
	switch (v->type) {
	case DTK_YT_NULL: return "an empty value";
	case DTK_YT_BOOL: return "a boolean";
	case DTK_YT_INT: return "an integer";
	case DTK_YT_FLOAT: return "a number";
	default: return "a string";
	}
}
