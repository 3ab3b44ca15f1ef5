/* markdown.c: the document builder over cmark-gfm. */
#include "dtk/markdown.h"

#include "dtk/linebreak.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exported by libcmark-gfm-extensions but not declared in its headers. */
extern cmark_node_type CMARK_NODE_TABLE, CMARK_NODE_TABLE_ROW, CMARK_NODE_TABLE_CELL;

#define MD_MAX_OPEN 16

struct dtk_md {
	cmark_node *doc, *cur;
	cmark_node *open[MD_MAX_OPEN]; /* the blocks opened, innermost last */
	int depth;
	cmark_syntax_extension *table;
	struct dtk_buf text; /* text not yet added: one node for a run of text */
	dtk_write_fn write;  /* streamed documents: where closed blocks go */
	void *arg;
	int failed;    /* streamed: a write failed; nothing more goes out */
	int started;   /* streamed: something went out */
	int continued; /* streamed: what went out last ends inside a paragraph */
	int in_run;    /* streamed: the open paragraph holds nothing after its runs */
	int skip_next; /* streamed: the next blocks start with an "a" to drop
	                  (dtk_md_rendered) */
};

/* Adds the pending text at the cursor as one text node. */
static void S_flush(struct dtk_md *md)
{
	cmark_node *t;
	if (!md->text.len)
		return;
	t = cmark_node_new(CMARK_NODE_TEXT);
	cmark_node_set_literal(t, md->text.ptr);
	if (!cmark_node_append_child(md->cur, t)) {
		fputs("dtk: fatal: invalid Markdown document structure\n", stderr);
		abort();
	}
	md->text.len = 0;
}

/* Writes s[0..len) unless a write failed before (its error is set). */
static void S_out(struct dtk_md *md, const char *s, size_t len)
{
	if (!md->failed && md->write(md->arg, s, len) < 0)
		md->failed = 1;
	md->started = 1;
}

/* Streamed: renders the top-level blocks of doc, writes them and frees doc.
 * Blocks are separated by one blank line, as cmark separates them; partial:
 * the last is the first part of a paragraph that what is written next goes
 * on. */
static void S_write_blocks(struct dtk_md *md, cmark_node *doc, int partial)
{
	char *s = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
	size_t len = strlen(s), skip = (size_t)md->skip_next < len ? (size_t)md->skip_next : len;

	cmark_node_free(doc);
	md->skip_next = 0;
	if (md->started && !md->continued)
		S_out(md, "\n", 1);
	/* a paragraph that goes on ends without its newline */
	if (partial)
		len -= len && s[len - 1] == '\n';
	S_out(md, s + skip, len - skip);
	md->continued = partial;
	free(s);
}

/* Streamed: writes the top-level blocks held and starts a new document for
 * the blocks to come. */
static void S_emit(struct dtk_md *md)
{
	cmark_node *doc = md->doc;

	if (!cmark_node_first_child(doc))
		return;
	md->doc = md->cur = cmark_node_new(CMARK_NODE_DOCUMENT);
	S_write_blocks(md, doc, 0);
}

/* Streamed: writes the blocks held and what the open top-level paragraph
 * has so far (dtk_md_rendered: runs go next). */
static void S_emit_piece(struct dtk_md *md)
{
	cmark_node *p = md->open[0], *doc = cmark_node_new(CMARK_NODE_DOCUMENT), *q, *c;

	while ((c = cmark_node_first_child(md->doc)) != p)
		cmark_node_append_child(doc, c); /* lists held before it */
	q = cmark_node_new(CMARK_NODE_PARAGRAPH);
	cmark_node_append_child(doc, q);
	while ((c = cmark_node_first_child(p)) != NULL)
		cmark_node_append_child(q, c);
	S_write_blocks(md, doc, 1);
}

/* cmark-gfm registers its extensions in a global list, unlocked: once, for
 * every thread (the loader's make documents too: nodesum.c's runs). */
static pthread_once_t S_registered = PTHREAD_ONCE_INIT;

static void S_register(void)
{
	cmark_gfm_core_extensions_ensure_registered();
}

struct dtk_md *dtk_md_new(void)
{
	struct dtk_md *md = dtk_xcalloc(1, sizeof(*md));
	pthread_once(&S_registered, S_register);
	md->table = cmark_find_syntax_extension("table");
	if (!md->table) {
		fputs("dtk: fatal: cmark-gfm has no table extension\n", stderr);
		abort();
	}
	md->doc = md->cur = cmark_node_new(CMARK_NODE_DOCUMENT);
	return md;
}

struct dtk_md *dtk_md_new_stream(dtk_write_fn write, void *arg)
{
	struct dtk_md *md = dtk_md_new();
	md->write = write;
	md->arg = arg;
	return md;
}

int dtk_md_finish(struct dtk_md *md)
{
	S_flush(md);
	if (!md->write)
		return 0;
	S_emit(md);
	return md->failed ? -1 : 0;
}

void dtk_md_free(struct dtk_md *md)
{
	if (!md)
		return;
	cmark_node_free(md->doc);
	dtk_buf_release(&md->text);
	free(md);
}

/* Appends node at the cursor and, when open, moves the cursor into inner. */
static void S_add(struct dtk_md *md, cmark_node *node, cmark_node *inner)
{
	md->in_run = 0;
	S_flush(md);
	if (!cmark_node_append_child(md->cur, node)) {
		fputs("dtk: fatal: invalid Markdown document structure\n", stderr);
		abort();
	}
	if (inner) {
		if (md->depth >= MD_MAX_OPEN)
			abort();
		md->open[md->depth++] = node;
		md->cur = inner;
	}
}

void dtk_md_heading(struct dtk_md *md, int level)
{
	cmark_node *h = cmark_node_new(CMARK_NODE_HEADING);
	cmark_node_set_heading_level(h, level);
	S_add(md, h, h);
}

void dtk_md_paragraph(struct dtk_md *md)
{
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	S_add(md, p, p);
}

void dtk_md_list(struct dtk_md *md)
{
	cmark_node *l = cmark_node_new(CMARK_NODE_LIST);
	cmark_node_set_list_type(l, CMARK_BULLET_LIST);
	cmark_node_set_list_tight(l, 1);
	S_add(md, l, l);
}

void dtk_md_item(struct dtk_md *md)
{
	cmark_node *item = cmark_node_new(CMARK_NODE_ITEM);
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	cmark_node_append_child(item, p);
	S_add(md, item, p);
}

void dtk_md_table(struct dtk_md *md, int ncols)
{
	cmark_node *t = cmark_node_new_with_ext(CMARK_NODE_TABLE, md->table);
	uint8_t align[64] = {0};
	if (ncols > 64)
		ncols = 64;
	cmark_gfm_extensions_set_table_columns(t, (uint16_t)ncols);
	cmark_gfm_extensions_set_table_alignments(t, (uint16_t)ncols, align);
	S_add(md, t, t);
}

void dtk_md_row(struct dtk_md *md, int header)
{
	cmark_node *r = cmark_node_new_with_ext(CMARK_NODE_TABLE_ROW, md->table);
	cmark_gfm_extensions_set_table_row_is_header(r, header);
	S_add(md, r, r);
}

void dtk_md_cell(struct dtk_md *md)
{
	/* Not cmark_node_new_with_ext: in cmark-gfm 0.29.0.gfm.6 the table
	 * extension allocates cell data there that is never freed, and stores its
	 * pointer where the cell's column index belongs (cmark-gfm issue #360).
	 * A plain node given the extension afterwards has neither problem. */
	cmark_node *c = cmark_node_new(CMARK_NODE_TABLE_CELL);
	cmark_node_set_syntax_extension(c, md->table);
	S_add(md, c, c);
}

void dtk_md_close(struct dtk_md *md)
{
	cmark_node *node;
	md->in_run = 0;
	S_flush(md);
	if (md->depth == 0)
		return;
	node = md->open[--md->depth];
	md->cur = cmark_node_parent(node);
	if (md->write && md->depth == 0 && cmark_node_get_type(node) != CMARK_NODE_LIST)
		S_emit(md);
}

/* As dtk_md_text, for the n bytes at text (no NUL needed). */
static void S_textn(struct dtk_md *md, const char *text, size_t n)
{
	md->in_run = 0;
	/* a bidirectional control or another invisible character is seen:
	 * "<U+202E>" */
	dtk_buf_put_marked(&md->text, text, n);
}

void dtk_md_text(struct dtk_md *md, const char *text)
{
	S_textn(md, text, strlen(text));
}

void dtk_md_plain(struct dtk_md *md, const char *text)
{
	const char *p = text, *brk;
	size_t len = strlen(text);

	while ((brk = strpbrk(p, "\r\n")) != NULL) {
		const char *next = brk + strspn(brk, "\r\n");
		S_textn(md, p, (size_t)(brk - p));
		/* a break between two East Asian wide characters is no space
		 * (docs/schema.md, "Text"); others are one */
		if (!dtk_linebreak_wide_pair(text, len, (size_t)(brk - text),
		                             (size_t)(next - text)))
			S_textn(md, " ", 1);
		p = next;
	}
	dtk_md_text(md, p);
}

void dtk_md_link(struct dtk_md *md, const char *url, const char *text)
{
	cmark_node *link = cmark_node_new(CMARK_NODE_LINK);
	cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
	cmark_node_set_url(link, url);
	cmark_node_set_literal(t, dtk_marked(text));
	cmark_node_append_child(link, t);
	S_add(md, link, NULL);
}

void dtk_md_fill(struct dtk_md *md, const char *tpl, const struct dtk_md_slot *slots, size_t n)
{
	const char *p = tpl, *open, *close;
	size_t i, len;

	while ((open = strchr(p, '{')) != NULL) {
		close = strchr(open, '}');
		len = close ? (size_t)(close - open - 1) : 0;
		for (i = 0; close && i < n; i++)
			if (!strncmp(open + 1, slots[i].name, len) && !slots[i].name[len])
				break;
		if (!close || i == n) { /* the '{' is text */
			S_textn(md, p, (size_t)(open + 1 - p));
			p = open + 1;
			continue;
		}
		if (open > p)
			S_textn(md, p, (size_t)(open - p));
		if (slots[i].md)
			dtk_md_plain(md, slots[i].value);
		else
			dtk_md_text(md, slots[i].value);
		p = close + 1;
	}
	if (*p)
		dtk_md_text(md, p);
}

void dtk_md_textf(struct dtk_md *md, const char *fmt, ...)
{
	struct dtk_buf b = DTK_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	dtk_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dtk_md_text(md, dtk_buf_cstr(&b));
	dtk_buf_release(&b);
}

/*
 * A run's text is rendered after a letter ("a", cut off again), as one text
 * node: cmark renders a character of a text node by the character alone,
 * the one after it in the node ('&' before a letter), and, only at the start
 * of a block, what came before. After a non-digit of the same paragraph
 * (never at a block's start) and not after '&', the run's text renders the
 * same in a node of its own as within the text around it.
 */
struct dtk_md *dtk_md_new_run(void)
{
	struct dtk_md *md = dtk_md_new();

	dtk_md_paragraph(md);
	dtk_md_text(md, "a");
	S_flush(md);
	return md;
}

char *dtk_md_run_render(struct dtk_md *md, size_t *len)
{
	char *s, *run;
	size_t n;

	S_flush(md);
	if (cmark_node_last_child(md->open[0]) == cmark_node_first_child(md->open[0]))
		return NULL; /* no text added */
	if (cmark_node_get_type(cmark_node_last_child(md->open[0])) != CMARK_NODE_TEXT)
		return NULL;
	s = cmark_render_commonmark(md->doc, CMARK_OPT_DEFAULT, 0);
	n = strlen(s);
	if (n < 3 || s[0] != 'a' || s[n - 1] != '\n' || memchr(s, '\n', n - 1) || s[n - 2] == '&') {
		free(s);
		return NULL;
	}
	*len = n - 2;
	run = dtk_xmalloc(n - 1);
	memcpy(run, s + 1, n - 2);
	run[n - 2] = '\0';
	free(s);
	return run;
}

/* Returns 1 when a run may go out as it is after the text md holds: see
 * dtk_md_new_run. */
static int S_run_fits(const struct dtk_md *md)
{
	const char *t = md->text.ptr;
	size_t n = md->text.len;

	/* a non-digit before it, and no '&', nor a '.' or ')' after digits
	 * alone, at the end: those render by what follows them */
	return md->write && md->depth == 1 &&
	       cmark_node_get_type(md->open[0]) == CMARK_NODE_PARAGRAPH && n && t[n - 1] != '&' &&
	       strspn(t, "0123456789") < n &&
	       !((t[n - 1] == '.' || t[n - 1] == ')') && strspn(t, "0123456789") == n - 1);
}

void dtk_md_rendered(struct dtk_md *md, const char *run, size_t len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	cmark_node *doc, *p, *child;

	if (md->in_run || S_run_fits(md)) {
		/* the paragraph so far goes out, then the runs as they are;
		 * what follows them goes on after an "a" (not written), as a
		 * run's text was rendered: the runs' neighbours render as they
		 * would around their text */
		if (!md->in_run) {
			cmark_node *a = cmark_node_new(CMARK_NODE_TEXT);
			S_flush(md);
			S_emit_piece(md);
			cmark_node_set_literal(a, "a");
			cmark_node_append_child(md->open[0], a);
			md->skip_next = 1;
			md->in_run = 1;
		}
		S_out(md, run, len);
		return;
	}
	/* read back: between two letters, as it was rendered after one (a
	 * paragraph's spaces at either end would be dropped) */
	dtk_buf_putc(&b, 'a');
	dtk_buf_put(&b, run, len);
	dtk_buf_putc(&b, 'a');
	doc = cmark_parse_document(b.ptr, b.len, CMARK_OPT_DEFAULT);
	b.len = 0;
	p = cmark_node_first_child(doc);
	for (child = p ? cmark_node_first_child(p) : NULL; child; child = cmark_node_next(child))
		if (cmark_node_get_type(child) == CMARK_NODE_TEXT)
			dtk_buf_puts(&b, cmark_node_get_literal(child));
	if (b.len >= 2) {
		b.ptr[b.len - 1] = '\0';
		dtk_md_text(md, b.ptr + 1);
	}
	cmark_node_free(doc);
	dtk_buf_release(&b);
}

char *dtk_md_render(struct dtk_md *md)
{
	S_flush(md);
	/* cmark allocates with malloc: the caller's free() releases it */
	return cmark_render_commonmark(md->doc, CMARK_OPT_DEFAULT, 0);
}

char *dtk_md_render_html(struct dtk_md *md)
{
	cmark_llist *exts = cmark_llist_append(cmark_get_default_mem_allocator(), NULL, md->table);
	char *s;

	S_flush(md);
	s = cmark_render_html(md->doc, CMARK_OPT_DEFAULT, exts); /* malloc'd, as dtk_md_render's */
	cmark_llist_free(cmark_get_default_mem_allocator(), exts);
	return s;
}
