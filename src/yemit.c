/* yemit.c: scalars quoted by libyaml's emitter (see yemit.h). */
#define _GNU_SOURCE /* memmem */
#include "dtk/yemit.h"

#include "dtk/ytree.h"

#include <string.h>
#include <yaml.h>

/* YAML 1.1's words for booleans and null beyond the core schema's, and its
 * merge and value keys: a plain scalar spelled so is not a string there. */
static int S_yaml11_word(const char *s)
{
	static const char *const words[] = {"y",   "Y",   "yes", "Yes", "YES", "n",  "N",
	                                    "no",  "No",  "NO",  "on",  "On",  "ON", "off",
	                                    "Off", "OFF", "<<",  "=",   NULL};
	size_t i;
	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return 1;
	return 0;
}

/* Returns 1 when s could be a number, a date or a time to some YAML parser:
 * it starts with a digit (or a sign or dot before one) and holds nothing
 * but what such values are spelled with. */
static int S_numberish(const char *s)
{
	const char *p = s;
	if (*p == '+' || *p == '-' || *p == '.')
		p++;
	if (*p == '.')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return 0;
	return strspn(s, "0123456789abcdefABCDEFxXoO_:.+-tTzZ") == strlen(s);
}

int dtk_yemit_plain_safe(const char *s, size_t len)
{
	if (!len || memchr(s, '\0', len))
		return 0;
	return dtk_yaml_resolve(s) == DTK_YT_STR && !S_yaml11_word(s) && !S_numberish(s);
}

static int S_write(void *data, unsigned char *buffer, size_t size)
{
	dtk_buf_put(data, (const char *)buffer, size);
	return 1;
}

/* Emits a one-value document: {k: s} in block context, [s] in flow
 * context; returns 0, or -1 when libyaml refuses s. */
/* How S_emit_doc writes a value of several lines: as a literal block (in
 * block context), or double-quoted, with its line breaks escaped. */
enum lines { ONE_LINE, LINES_BLOCK, LINES_QUOTED };

/* Returns the way s[0..len) is written (enum lines): a value holding NEL,
 * LS or PS beside LF is double-quoted, since a literal block would make
 * each a line break of its own. */
static enum lines S_lines(const char *s, size_t len)
{
	if (!memchr(s, '\n', len))
		return ONE_LINE;
	if (memmem(s, len, "\xC2\x85", 2) || memmem(s, len, "\xE2\x80\xA8", 3) ||
	    memmem(s, len, "\xE2\x80\xA9", 3))
		return LINES_QUOTED;
	return LINES_BLOCK;
}

static int S_emit_doc(struct dtk_buf *doc, const char *s, size_t len, int where,
                      enum lines multiline)
{
	yaml_emitter_t e;
	yaml_event_t ev[8];
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
	size_t n = 0, i;
	int ok = 1, plain = dtk_yemit_plain_safe(s, len);

	if (multiline != ONE_LINE)
		style = where == DTK_YEMIT_BLOCK && multiline == LINES_BLOCK
		                ? YAML_LITERAL_SCALAR_STYLE
		                : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	ok &= yaml_stream_start_event_initialize(&ev[n++], YAML_UTF8_ENCODING);
	ok &= yaml_document_start_event_initialize(&ev[n++], NULL, NULL, NULL, 1);
	if (where == DTK_YEMIT_BLOCK) {
		ok &= yaml_mapping_start_event_initialize(&ev[n++], NULL, NULL, 1,
		                                          YAML_BLOCK_MAPPING_STYLE);
		ok &= yaml_scalar_event_initialize(&ev[n++], NULL, NULL, (yaml_char_t *)"k", 1, 1,
		                                   1, YAML_PLAIN_SCALAR_STYLE);
	} else {
		ok &= yaml_sequence_start_event_initialize(&ev[n++], NULL, NULL, 1,
		                                           YAML_FLOW_SEQUENCE_STYLE);
	}
	if (ok && !yaml_scalar_event_initialize(&ev[n++], NULL, NULL, (yaml_char_t *)s, (int)len,
	                                        plain, 1, style)) {
		n--;
		ok = 0;
	}
	if (ok && where == DTK_YEMIT_BLOCK)
		ok &= yaml_mapping_end_event_initialize(&ev[n++]);
	else if (ok)
		ok &= yaml_sequence_end_event_initialize(&ev[n++]);
	ok &= yaml_document_end_event_initialize(&ev[n++], 0);
	ok &= yaml_stream_end_event_initialize(&ev[n++]);
	if (!ok) {
		for (i = 0; i < n; i++)
			yaml_event_delete(&ev[i]);
		return -1;
	}
	yaml_emitter_initialize(&e);
	yaml_emitter_set_output(&e, S_write, doc);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	yaml_emitter_set_break(&e, YAML_LN_BREAK);
	for (i = 0; i < n; i++)
		if (ok && !yaml_emitter_emit(&e, &ev[i]))
			ok = 0; /* the emitter deletes what it was given */
		else if (!ok)
			yaml_event_delete(&ev[i]);
	yaml_emitter_delete(&e);
	return ok ? 0 : -1;
}

/* Returns 0 when text[0..n), written where (owned by a key at column
 * indent), reads back by dtk's loader as s[0..len); else -1 with the error
 * set. */
static int S_read_back(const char *text, size_t n, const char *s, size_t len, int where, int indent)
{
	struct dtk_buf doc = DTK_BUF_INIT;
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_arena *arena = dtk_arena_new();
	struct dtk_yval *root = NULL;
	const struct dtk_yval *v = NULL;
	int rc = -1;

	if (where == DTK_YEMIT_BLOCK)
		dtk_buf_printf(&doc, "%*s", indent, "");
	dtk_buf_puts(&doc, where == DTK_YEMIT_BLOCK ? "k: " : "[");
	dtk_buf_put(&doc, text, n);
	dtk_buf_puts(&doc, where == DTK_YEMIT_BLOCK ? "\n" : "]\n");
	if (dtk_yaml_parse(&root, arena, "", doc.ptr, doc.len, &diags) == 0 && root)
		v = where == DTK_YEMIT_BLOCK                  ? dtk_yval_get(root, "k")
		    : root->kind == DTK_Y_SEQ && root->n == 1 ? root->items[0]
		                                              : NULL;
	if (v && v->kind == DTK_Y_SCALAR && v->len == len && !memcmp(v->str, s, len))
		rc = 0;
	else
		dtk_error("'%s' would not read back as itself once written; nothing is written",
		          dtk_esc(s));
	dtk_diags_release(&diags);
	dtk_arena_free(arena);
	dtk_buf_release(&doc);
	return rc;
}

int dtk_yemit_scalar(struct dtk_buf *out, const char *s, size_t len, int where, int indent,
                     const char *eol)
{
	size_t from = out->len;
	struct dtk_buf doc = DTK_BUF_INIT;
	const char *p, *end;
	int rc = -1;

	if (len > (size_t)2147483647 || S_emit_doc(&doc, s, len, where, S_lines(s, len)))
		goto done;
	p = dtk_buf_cstr(&doc);
	end = p + doc.len;
	/* "k: <value>\n...\n" or "[<value>]\n...\n": the document's end is
	 * explicit, so that "..." is the marker on its own line and never a
	 * value's last three characters */
	if (end - p < 5 || memcmp(end - 5, "\n...\n", 5))
		goto done;
	end -= 4;
	if (where == DTK_YEMIT_BLOCK) {
		if (strncmp(p, "k:", 2))
			goto done;
		p += 2;
		if (*p == ' ')
			p++;
	} else {
		if (*p != '[')
			goto done;
		p++;
		while (end > p && end[-1] == '\n')
			end--;
		if (end > p && end[-1] == ']')
			end--;
	}
	if (where == DTK_YEMIT_BLOCK && end > p && end[-1] == '\n')
		end--; /* the document's last line break; a kept one ("|+") stays */
	/* the value's lines: breaks as eol, lines after the first indented
	 * from the owner's column instead of column 0 */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		dtk_buf_put(out, p, (size_t)(stop - p));
		if (!nl)
			break;
		dtk_buf_puts(out, eol);
		p = nl + 1;
		if (p < end && *p != '\n')
			dtk_buf_printf(out, "%*s", indent, "");
	}
	rc = 0;
done:
	dtk_buf_release(&doc);
	if (rc < 0)
		return dtk_error("cannot write this text as YAML (it is not valid UTF-8)");
	/* what is written is read back, so that it cannot say otherwise */
	if (S_read_back(out->ptr + from, out->len - from, s, len, where, indent) < 0) {
		out->len = from;
		return -1;
	}
	return rc;
}
