/* json.c: a small JSON writer. */
#include "dtk/json.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local int S_tight;

void dtk_json_tight(int on)
{
	S_tight = on;
}

void dtk_json_init(struct dtk_json *j, struct dtk_buf *out)
{
	j->out = out;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
	j->compact = S_tight ? 2 : 0;
	j->refs = 0;
}

static void S_indent(struct dtk_json *j)
{
	int i;
	if (j->compact)
		return;
	dtk_buf_putc(j->out, '\n');
	for (i = 0; i < j->depth; i++)
		dtk_buf_puts(j->out, "  ");
}

/* Writes what goes before a value: a comma and a new line, unless after a key. */
static void S_before(struct dtk_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->count[j->depth]++) /* compact: ", " as between keys and values ": " */
			dtk_buf_puts(j->out, j->compact == 1 ? ", " : ",");
		S_indent(j);
	}
}

static void S_open(struct dtk_json *j, char c)
{
	S_before(j);
	dtk_buf_putc(j->out, c);
	if (j->depth + 1 < DTK_JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

void dtk_json_object(struct dtk_json *j)
{
	S_open(j, '{');
}

void dtk_json_array(struct dtk_json *j)
{
	S_open(j, '[');
}

void dtk_json_end(struct dtk_json *j, char close)
{
	int had = j->count[j->depth];
	j->depth--;
	if (had)
		S_indent(j);
	dtk_buf_putc(j->out, close);
	if (j->depth == 0)
		dtk_buf_putc(j->out, '\n');
}

/* Returns 1 when s starts with U+2028 (line separator) or U+2029
 * (paragraph separator). */
static int S_separator(const char *s)
{
	return s[0] == '\xE2' && s[1] == '\x80' && (s[2] == '\xA8' || s[2] == '\xA9');
}

char *dtk_json_escape_separators(char *json)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const char *p, *from;

	if (!json)
		return NULL;
	for (p = from = json; (p = strstr(p, "\xE2\x80")) != NULL; p += 2) {
		if (!S_separator(p))
			continue;
		dtk_buf_put(&b, from, (size_t)(p - from));
		dtk_buf_puts(&b, p[2] == '\xA8' ? "\\u2028" : "\\u2029");
		from = p + 3;
	}
	if (from == json) /* none */
		return json;
	dtk_buf_puts(&b, from);
	free(json);
	return dtk_buf_detach(&b);
}

/* Returns 1 when the byte at s needs more than itself in a JSON string as
 * dtk_json_quote writes it. */
static int S_escaped(const char *s)
{
	unsigned char c = (unsigned char)*s;
	return c == '"' || c == '\\' || c < 0x20 || c == 0x7f || S_separator(s);
}

void dtk_json_quote(struct dtk_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *from;

	dtk_buf_putc(b, '"');
	for (;;) {
		for (from = s; *s && !S_escaped(s); s++)
			;
		dtk_buf_put(b, from, (size_t)(s - from)); /* a span as it is */
		if (!*s)
			break;
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char esc[3] = {'\\', (char)c, 0};
			dtk_buf_puts(b, esc);
		} else if (c == '\n') {
			dtk_buf_puts(b, "\\n");
		} else if (c == '\t') {
			dtk_buf_puts(b, "\\t");
		} else if (c == '\r') {
			dtk_buf_puts(b, "\\r");
		} else if (S_separator(s)) {
			/* valid JSON raw, but a line break to JavaScript before
			 * ES2019 and to readers that split on Unicode lines */
			dtk_buf_puts(b, s[2] == '\xA8' ? "\\u2028" : "\\u2029");
			s += 2;
		} else {
			char esc[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
			dtk_buf_puts(b, esc);
		}
		s++;
	}
	dtk_buf_putc(b, '"');
}

void dtk_json_key(struct dtk_json *j, const char *key)
{
	S_before(j);
	dtk_json_quote(j->out, key);
	dtk_buf_puts(j->out, j->compact == 2 ? ":" : ": ");
	j->after_key = 1;
}

void dtk_json_string(struct dtk_json *j, const char *s)
{
	if (!s) {
		dtk_json_null(j);
		return;
	}
	S_before(j);
	dtk_json_quote(j->out, s);
}

void dtk_json_int(struct dtk_json *j, long v)
{
	S_before(j);
	dtk_buf_printf(j->out, "%ld", v);
}

void dtk_json_fixed(struct dtk_json *j, double v, int decimals)
{
	S_before(j);
	dtk_buf_printf(j->out, "%.*f", decimals, v);
}

void dtk_json_bool(struct dtk_json *j, int v)
{
	S_before(j);
	dtk_buf_puts(j->out, v ? "true" : "false");
}

void dtk_json_kstring(struct dtk_json *j, const char *key, const char *s)
{
	dtk_json_key(j, key);
	dtk_json_string(j, s);
}

void dtk_json_kint(struct dtk_json *j, const char *key, long v)
{
	dtk_json_key(j, key);
	dtk_json_int(j, v);
}

void dtk_json_kbool(struct dtk_json *j, const char *key, int v)
{
	dtk_json_key(j, key);
	dtk_json_bool(j, v);
}

void dtk_json_null(struct dtk_json *j)
{
	S_before(j);
	dtk_buf_puts(j->out, "null");
}
