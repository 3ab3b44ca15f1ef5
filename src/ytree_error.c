/* ytree_error.c: libyaml's errors said where the mistake is, in words for
 * the common mistakes of a hand-edited file, and the mistakes libyaml would
 * misname (byte order marks, merge conflicts), for ytree.c. */
#include "ytree_int.h"

#include <stdlib.h>
#include <string.h>

/* Reports libyaml's error about a quoted scalar or a flow collection that
 * runs on (an unclosed quote, bracket or brace) where the construct starts,
 * its context mark, with where libyaml stopped (line, col) in the message:
 * the problem position of an unclosed quote is the end of the file. Returns
 * 1 when the error was such an error, else 0. */
static int S_unclosed_error(struct builder *b, const yaml_parser_t *p, int line, int col)
{
	static const char *const what[][2] = {
	        {"while scanning a quoted scalar", "quoted scalar"},
	        {"while parsing a flow sequence", "flow sequence"},
	        {"while parsing a flow mapping", "flow mapping"},
	};
	int eof_line, eof_col;
	size_t i;

	if (!p->context || !p->problem)
		return 0;
	for (i = 0; i < sizeof(what) / sizeof(*what); i++)
		if (!strcmp(p->context, what[i][0]))
			break;
	if (i == sizeof(what) / sizeof(*what))
		return 0;
	dtk_ytree_offset_pos(b->buf, b->len, b->len, &eof_line, &eof_col);
	if (line == eof_line && col == eof_col)
		dtk_ytree_error(
		        b, (int)p->context_mark.line + 1, dtk_ytree_col(p->context_mark),
		        "the %s that starts here is never closed (the file ends at line %d, "
		        "column %d)",
		        what[i][1], line, col);
	else
		dtk_ytree_error(b, (int)p->context_mark.line + 1, dtk_ytree_col(p->context_mark),
		                "in the %s that starts here: %s (at line %d, column %d)",
		                what[i][1], p->problem, line, col);
	return 1;
}

/* Returns the column (1-based) of the first tab in the indentation (the
 * spaces and tabs that start it) of the line that holds byte off of the
 * buffer, or 0 when there is none. */
static int S_indent_tab(const struct builder *b, size_t off)
{
	size_t start = off > b->len ? b->len : off, i;

	while (start > 0 && b->buf[start - 1] != '\n')
		start--;
	for (i = start; i < b->len && (b->buf[i] == ' ' || b->buf[i] == '\t'); i++)
		if (b->buf[i] == '\t')
			return (int)(i - start) + 1;
	return 0;
}

/* ---- syntax errors in words ----
 * libyaml names the token it could not take ("did not find expected key
 * while parsing a block mapping"); the common mistakes of a hand-edited
 * file (a key indented one space off, a claim continued on a line less
 * indented than its key, a value holding ': ') are said as such, at the
 * line of the mistake, with the fix. */

/* A line of the text, as read for a message: where it starts and ends, its
 * indentation, and its key (after "- " entries), if it has one. */
struct yline {
	const char *s, *e;
	int no, indent;        /* 1-based line number; spaces before the text */
	int entry;             /* it opens a list entry ("- ") */
	const char *key, *val; /* the key ("key: value"), its value; or NULL */
	size_t key_len;
};

/* Reads into *l line no of b's text, which starts at s. */
static void S_yline_at(const struct builder *b, const char *s, int no, struct yline *l)
{
	const char *end = b->buf + b->len, *p;

	memset(l, 0, sizeof(*l));
	l->s = s;
	for (l->e = l->s; l->e < end && *l->e != '\n' && *l->e != '\r'; l->e++)
		;
	l->no = no;
	for (p = l->s; p < l->e && *p == ' '; p++)
		;
	l->indent = (int)(p - l->s);
	if (p + 1 < l->e && p[0] == '-' && p[1] == ' ') {
		l->entry = 1;
		for (p += 2; p < l->e && *p == ' '; p++)
			;
	}
	if (p < l->e && !strchr("#'\"[{|>-&*!%@`", *p)) {
		const char *c = p;
		while (c < l->e && !(c[0] == ':' && (c + 1 == l->e || c[1] == ' ')) &&
		       !(c[0] == ' ' && c + 1 < l->e && c[1] == '#'))
			c++;
		if (c < l->e && *c == ':') {
			l->key = p;
			l->key_len = (size_t)(c - p);
			for (c++; c < l->e && *c == ' '; c++)
				;
			l->val = c;
		}
	}
}

/* Reads line no of b's text into *l; returns 0 when the text has no such
 * line, else 1. */
static int S_yline(const struct builder *b, int no, struct yline *l)
{
	const char *s = b->buf + dtk_text_offset(b->buf, b->len, no, 1);

	if (no < 1 || (s >= b->buf + b->len && no > 1))
		return 0;
	S_yline_at(b, s, no, l);
	return 1;
}

/* Returns 1 when l holds nothing YAML reads (blank, or a comment). */
static int S_yline_empty(const struct yline *l)
{
	const char *p = l->s + l->indent;
	return p >= l->e || *p == '#' || *p == '\t';
}

/* Reads into *l the last line before line at that holds something (found
 * going back from at: each line is read once); 0 when there is none. */
static int S_yline_before(const struct builder *b, const struct yline *at, struct yline *l)
{
	const char *p = at->s;
	int no = at->no;

	while (p > b->buf) {
		p -= p[-1] == '\n' && p - 1 > b->buf && p[-2] == '\r' ? 2 : 1;
		while (p > b->buf && p[-1] != '\n' && p[-1] != '\r')
			p--;
		S_yline_at(b, p, --no, l);
		if (!S_yline_empty(l))
			return 1;
	}
	return 0;
}

/* Returns the column (0-based) where l's key starts. */
static int S_key_col(const struct yline *l)
{
	return (int)(l->key - l->s);
}

/* Returns 1 when l's value is plain text that goes on past its line: YAML
 * reads a following line indented more than the key as more of it. */
static int S_plain_value(const struct yline *l)
{
	return l->val && l->val < l->e && !strchr("#'\"[{|>&*!", *l->val);
}

/* Returns the 1-based column, in characters, of p on line l. */
static int S_char_col(const struct yline *l, const char *p)
{
	const char *q;
	int col = 1;

	for (q = l->s; q < p; q++)
		col += ((unsigned char)*q & 0xC0) != 0x80;
	return col;
}

/* A value with ": " in it: "the value of 'title' holds ': ' ...". */
static int S_explain_colon(struct builder *b, const struct yline *l, const char *colon)
{
	struct yline p;
	const char *v = l->val, *e = l->e, *q;
	struct dtk_buf fix = DTK_BUF_INIT;

	if (l->key && v && colon > v) {
		while (e > v && e[-1] == ' ')
			e--;
		if (e - v <= 60) { /* short enough to show quoted */
			dtk_buf_printf(&fix, ": %.*s: '", (int)l->key_len, l->key);
			for (q = v; q < e; q++)
				dtk_buf_puts(&fix, *q == '\'' ? "''" : (char[]){*q, 0});
			dtk_buf_putc(&fix, '\'');
		}
		dtk_ytree_error(
		        b, l->no, S_char_col(l, v),
		        "the value of '%.*s' holds ': ', which YAML reads as a key and its value: "
		        "put the whole value in quotes%s",
		        (int)l->key_len, l->key, dtk_buf_cstr(&fix));
		dtk_buf_release(&fix);
		return 1;
	}
	/* the line's own key: YAML reads the line as more of the value above */
	if (!l->key || colon != l->key + l->key_len || !S_yline_before(b, l, &p) ||
	    !S_plain_value(&p) || l->indent <= S_key_col(&p))
		return 0;
	dtk_ytree_error(
	        b, l->no, l->indent + 1,
	        "'%.*s' is indented %d spaces, more than '%.*s' on line %d (%d): YAML reads "
	        "this line as more of the value of '%.*s'; indent it as '%.*s' is",
	        (int)l->key_len, l->key, l->indent, (int)p.key_len, p.key, p.no, S_key_col(&p),
	        (int)p.key_len, p.key, (int)p.key_len, p.key);
	return 1;
}

/* A line with no "key:" where a key is expected: most often text meant to
 * continue the value above, indented too little. */
static int S_explain_no_key(struct builder *b, const struct yline *l)
{
	struct yline p;
	const char *t = l->s + l->indent;

	if (t >= l->e || strchr("'\"[{", *t) || l->entry)
		return 0;
	if (S_yline_before(b, l, &p) && S_plain_value(&p) && l->indent <= S_key_col(&p)) {
		dtk_ytree_error(
		        b, l->no, l->indent + 1,
		        "this line has no 'key:'; if it goes on with the value of '%.*s' "
		        "(line %d), indent it more than '%.*s' (at least %d space%s), or put "
		        "the whole value in quotes",
		        (int)p.key_len, p.key, p.no, (int)p.key_len, p.key, S_key_col(&p) + 1,
		        S_key_col(&p) ? "s" : "");
		return 1;
	}
	dtk_ytree_error(b, l->no, l->indent + 1,
	                "this line has no 'key:' (a key, a colon and a space, then the value)");
	return 1;
}

/* A key or a list entry indented to no level of the lines above it. */
static int S_explain_indent(struct builder *b, const struct yline *l)
{
	/* the levels open above l, innermost first: where their keys or
	 * entries start, which kind, and a line showing it */
	struct {
		int indent, entry;
		struct yline at;
	} lv[DTK_MAX_DEPTH];
	struct yline p, at = *l;
	int n = 0, min = INT32_MAX, i, best = -1, d, bd = 0;

	if (!l->key && !l->entry)
		return 0;
	while (n + 2 <= DTK_MAX_DEPTH && S_yline_before(b, &at, &p)) {
		/* right after a block scalar's header: the scalar's first line,
		 * whose indentation is its own */
		if (at.s == l->s && p.val && p.val < p.e && (*p.val == '|' || *p.val == '>'))
			return 0;
		at = p;
		if ((!p.key && !p.entry) || p.indent >= min)
			continue;
		if (p.entry && p.key && S_key_col(&p) < min) {
			lv[n].indent = S_key_col(&p);
			lv[n].entry = 0;
			lv[n++].at = p;
		}
		lv[n].indent = p.indent;
		lv[n].entry = p.entry;
		lv[n++].at = p;
		min = p.indent;
		if (min == 0)
			break;
	}
	for (i = 0; i < n; i++) {
		if (lv[i].indent == l->indent && lv[i].entry == l->entry)
			return 0; /* at a level: something else is wrong */
		d = abs(lv[i].indent - l->indent);
		if (best < 0 || (lv[i].entry == l->entry && lv[best].entry != l->entry) ||
		    (lv[i].entry == lv[best].entry && d < bd)) {
			best = i;
			bd = d;
		}
	}
	if (l->entry && (best < 0 || !lv[best].entry)) {
		dtk_ytree_error(
		        b, l->no, l->indent + 1,
		        "a list entry ('- ') where a key is expected: a list goes under its "
		        "key ('key:' and the entries below it, indented)");
		return 1;
	}
	if (best < 0)
		return 0;
	if (l->entry)
		dtk_ytree_error(b, l->no, l->indent + 1,
		                "this list entry is indented %d space%s, the entries above it %d "
		                "(line %d): indent it %d spaces",
		                l->indent, l->indent == 1 ? "" : "s", lv[best].indent,
		                lv[best].at.no, lv[best].indent);
	else if (lv[best].entry)
		dtk_ytree_error(
		        b, l->no, l->indent + 1,
		        "'%.*s' is indented %d space%s, where no key is: the list entries above "
		        "start at %d (line %d), their keys at %d",
		        (int)l->key_len, l->key, l->indent, l->indent == 1 ? "" : "s",
		        lv[best].indent, lv[best].at.no, lv[best].indent + 2);
	else
		dtk_ytree_error(
		        b, l->no, l->indent + 1,
		        "'%.*s' is indented %d space%s, the keys beside it %d ('%.*s', line "
		        "%d): indent it %d spaces",
		        (int)l->key_len, l->key, l->indent, l->indent == 1 ? "" : "s",
		        lv[best].indent, (int)lv[best].at.key_len, lv[best].at.key, lv[best].at.no,
		        lv[best].indent);
	return 1;
}

/* Says libyaml's syntax error (problem at line, col) in words when it is
 * one of the common mistakes above. Returns 1 when it did, else 0. */
static int S_explain(struct builder *b, const yaml_parser_t *p, int line, int col)
{
	struct yline l;
	const char *problem = p->problem, *context = p->context ? p->context : "";

	if (!problem)
		return 0;
	if (!strcmp(problem, "mapping values are not allowed in this context") &&
	    S_yline(b, line, &l))
		return S_explain_colon(b, &l,
		                       l.s + dtk_text_offset(l.s, (size_t)(l.e - l.s), 1, col));
	if (!strcmp(problem, "could not find expected ':'") &&
	    !strcmp(context, "while scanning a simple key") &&
	    S_yline(b, (int)p->context_mark.line + 1, &l))
		return S_explain_no_key(b, &l);
	if ((!strcmp(problem, "did not find expected key") ||
	     !strcmp(problem, "did not find expected '-' indicator")) &&
	    S_yline(b, line, &l) && col == l.indent + 1)
		return S_explain_indent(b, &l);
	return 0;
}

/* Reports a libyaml error, with positions computed where libyaml has none. */
void dtk_ytree_parser_error(struct builder *b, const yaml_parser_t *p)
{
	int tab;

	int line, col;
	const char *problem = p->problem ? p->problem : "malformed YAML";

	if (p->error == YAML_READER_ERROR) {
		dtk_ytree_offset_pos(b->buf, b->len, p->problem_offset, &line, &col);
		if (p->problem_value != -1 &&
		    (strstr(problem, "octet") || strstr(problem, "length")))
			dtk_ytree_error(b, line, col, "%s (byte 0x%02X)", problem,
			                p->problem_value & 0xFF);
		else if (p->problem_value != -1)
			dtk_ytree_error(b, line, col, "%s (U+%04X)", problem,
			                (unsigned)p->problem_value);
		else
			dtk_ytree_error(b, line, col, "%s", problem);
		return;
	}
	if (p->error == YAML_MEMORY_ERROR) {
		dtk_ytree_error(b, 1, 1, "out of memory while parsing");
		return;
	}
	line = (int)p->problem_mark.line + 1;
	col = dtk_ytree_col(p->problem_mark);
	/* libyaml says "found character that cannot start any token" */
	if (p->error == YAML_SCANNER_ERROR &&
	    (tab = S_indent_tab(b, dtk_ytree_mark_byte(b, p->problem_mark.index)))) {
		dtk_ytree_error(b, line, tab,
		                "a tab in the indentation: YAML indents with spaces only");
		return;
	}
	if (S_unclosed_error(b, p, line, col) || S_explain(b, p, line, col))
		return;
	if (p->context)
		dtk_ytree_error(b, line, col, "%s %s (at line %d, column %d)", problem, p->context,
		                (int)p->context_mark.line + 1, dtk_ytree_col(p->context_mark));
	else
		dtk_ytree_error(b, line, col, "%s", problem);
}

/* Reports byte order marks past the start: YAML would take them as text. */
void dtk_ytree_check_boms(struct builder *b)
{
	const char *p = b->buf, *end = b->buf + b->len;
	int line, col;

	while (p + 3 <= end && (p = memchr(p, 0xEF, (size_t)(end - p - 2)))) {
		if (!memcmp(p, "\xEF\xBB\xBF", 3)) {
			dtk_ytree_offset_pos(b->buf, b->len, (size_t)(p - b->buf), &line, &col);
			dtk_ytree_error(b, line, col, "byte order mark in the middle of the file");
		}
		p++;
	}
}

/* Returns the conflict marker line s[0..n) is ("<<<<<<<", "|||||||",
 * "=======" or ">>>>>>>", as git writes them: seven of the character at the
 * start of a line, then a space and a label or the end of the line), or
 * NULL. */
static const char *S_conflict_marker(const char *s, size_t n)
{
	static const char *const marks[] = {"<<<<<<<", "|||||||", "=======", ">>>>>>>"};
	size_t i;

	for (i = 0; i < 4; i++)
		if (n >= 7 && !memcmp(s, marks[i], 7) &&
		    (n == 7 || (s[7] == ' ' && marks[i][0] != '=')))
			return marks[i];
	return NULL;
}

/* Returns the line of b's text that starts at byte to (a line start past
 * from, a line start of line *line), counting LF, CR LF and CR as one
 * break each; sets *line to it. */
static int S_line_at(const struct builder *b, size_t from, size_t to, int *line)
{
	for (; from < to; from++)
		if (b->buf[from] == '\n' ||
		    (b->buf[from] == '\r' && (from + 1 >= b->len || b->buf[from + 1] != '\n')))
			(*line)++;
	return *line;
}

/* Reports each line of a merge conflict git left in the file: YAML would
 * report the first as a syntax error that does not say what is wrong. A
 * marker is a run of seven of one character, so one byte in seven is
 * looked at: one of them falls in each run; the run's start is then found
 * and must start a line. */
void dtk_ytree_check_conflicts(struct builder *b)
{
	const char *s = b->buf, *mark;
	size_t i, r, seen = 0, n;
	int line = 1;

	for (i = 0; i < b->len; i += 7) {
		if (s[i] != '<' && s[i] != '|' && s[i] != '=' && s[i] != '>')
			continue;
		for (r = i; r > 0 && i - r < 7 && s[r - 1] == s[i]; r--)
			;
		if (r > 0 && s[r - 1] != '\n' && s[r - 1] != '\r')
			continue;
		/* the line's length as S_conflict_marker needs it: 7 when it
		 * ends after the run, else more */
		n = b->len - r < 7                                            ? b->len - r
		    : r + 7 == b->len || s[r + 7] == '\n' || s[r + 7] == '\r' ? 7
		                                                              : 8;
		if (!(mark = S_conflict_marker(s + r, n)))
			continue;
		dtk_ytree_error(b, S_line_at(b, seen, r, &line), 1,
		                "unresolved merge conflict: marker '%s' (resolve the conflict and "
		                "remove the marker lines)",
		                mark);
		seen = r;
	}
}
