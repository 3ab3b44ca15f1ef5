/*
 * json.h: writing JSON (RFC 8259) into a buffer, indented by two spaces.
 * Strings are taken as UTF-8 and escaped as JSON requires, and U+2028 and
 * U+2029 as \u2028 and \u2029: every JSON dtk writes (--format json and
 * jsonl, dtk export, dtk mcp) holds no Unicode line separator raw, so that
 * no reader splitting lines on them cuts a message in two.
 */
#ifndef DTK_JSON_H
#define DTK_JSON_H

#include "dtk/dtk.h"

#define DTK_JSON_MAX_DEPTH 32

struct dtk_json {
	struct dtk_buf *out;
	int depth;
	int count[DTK_JSON_MAX_DEPTH]; /* values written at each level */
	int after_key;
	/* 1: no line breaks inside a value (JSON Lines); 2: no space between
	 * tokens either (dtk mcp's) */
	int compact;
	size_t refs; /* > 0: the most items a "referenced_by" list holds (view.h) */
};

/* Starts writing into out (which the caller owns), with j->compact as
 * dtk_json_tight last set it on this thread; set j->compact after this for
 * one value per line. */
void dtk_json_init(struct dtk_json *j, struct dtk_buf *out);
/* With on, each dtk_json_init of this thread from now starts with compact
 * 2: dtk mcp runs a command so, to send what it wrote as it is. */
void dtk_json_tight(int on);
void dtk_json_object(struct dtk_json *j);
void dtk_json_array(struct dtk_json *j);
/* Closes the innermost object or array. */
void dtk_json_end(struct dtk_json *j, char close);
void dtk_json_key(struct dtk_json *j, const char *key);
void dtk_json_string(struct dtk_json *j, const char *s); /* NULL writes null */
void dtk_json_int(struct dtk_json *j, long v);
void dtk_json_bool(struct dtk_json *j, int v);
/* A finite number v with that many decimals (a score: 0.8312). */
void dtk_json_fixed(struct dtk_json *j, double v, int decimals);
void dtk_json_null(struct dtk_json *j);

/* A key and its value, as dtk_json_key followed by the value's writer. */
void dtk_json_kstring(struct dtk_json *j, const char *key, const char *s);
void dtk_json_kint(struct dtk_json *j, const char *key, long v);
void dtk_json_kbool(struct dtk_json *j, const char *key, int v);

/* Returns JSON text json (malloc'd, adopted; NULL passes through) with each
 * U+2028 and U+2029 in it escaped as dtk_json_string escapes them: for JSON
 * made by another writer (jansson's json_dumps). The caller frees. */
char *dtk_json_escape_separators(char *json);

/* Appends s to b as a JSON string (quoted, escaped as dtk_json_string
 * escapes it). */
void dtk_json_quote(struct dtk_buf *b, const char *s);

#endif
