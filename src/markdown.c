/* markdown.c: the document builder over cmark-gfm. */
#include "dtk/markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
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

struct dtk_md *dtk_md_new(void)
{
	struct dtk_md *md = dtk_xcalloc(1, sizeof(*md));
	cmark_gfm_core_extensions_ensure_registered();
	md->table = cmark_find_syntax_extension("table");
	if (!md->table) {
		fputs("dtk: fatal: cmark-gfm has no table extension\n", stderr);
		abort();
	}
	md->doc = md->cur = cmark_node_new(CMARK_NODE_DOCUMENT);
	return md;
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
	S_flush(md);
	if (md->depth == 0)
		return;
	node = md->open[--md->depth];
	md->cur = cmark_node_parent(node);
}

void dtk_md_text(struct dtk_md *md, const char *text)
{
	dtk_buf_puts(&md->text, text);
}

/* Returns 1 when text reads the same as Markdown and as text: no character
 * inline Markdown gives a meaning to, no line break, no space at either end
 * (a paragraph would drop it). */
static int S_plain(const char *text)
{
	size_t n = strlen(text);
	return n && !strpbrk(text, "\\`*_[]<>!&\n\r") && text[0] != ' ' && text[0] != '\t' &&
	       text[n - 1] != ' ' && text[n - 1] != '\t';
}

void dtk_md_link(struct dtk_md *md, const char *url, const char *text)
{
	cmark_node *link = cmark_node_new(CMARK_NODE_LINK);
	cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
	cmark_node_set_url(link, url);
	cmark_node_set_literal(t, text);
	cmark_node_append_child(link, t);
	S_add(md, link, NULL);
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

/* Makes node's strings its own: inline nodes of a parsed document point into
 * the document's buffers until their strings are read once (cmark copies
 * them then), and the document is freed before the copy is rendered. */
static void S_own(cmark_node *node)
{
	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_TEXT:
	case CMARK_NODE_CODE:
	case CMARK_NODE_HTML_INLINE: cmark_node_get_literal(node); break;
	case CMARK_NODE_LINK:
	case CMARK_NODE_IMAGE:
		cmark_node_get_url(node);
		cmark_node_get_title(node);
		break;
	default: break;
	}
}

/* Replaces soft and hard line breaks below node with spaces, and makes the
 * strings of every node below it its own. */
static void S_unbreak(cmark_node *node)
{
	cmark_node *child = cmark_node_first_child(node), *next;
	for (; child; child = next) {
		cmark_node_type t = cmark_node_get_type(child);
		next = cmark_node_next(child);
		if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK) {
			cmark_node *sp = cmark_node_new(CMARK_NODE_TEXT);
			cmark_node_set_literal(sp, " ");
			cmark_node_replace(child, sp);
			cmark_node_free(child);
		} else {
			S_own(child);
			S_unbreak(child);
		}
	}
}

void dtk_md_inline(struct dtk_md *md, const char *markdown)
{
	cmark_node *doc, *p, *child, *next;

	if (S_plain(markdown) && strspn(markdown, "#0123456789-+=|>~") == 0) {
		dtk_md_text(md, markdown); /* the common case, without a parse */
		return;
	}
	doc = cmark_parse_document(markdown, strlen(markdown), CMARK_OPT_DEFAULT);
	p = cmark_node_first_child(doc);
	if (!p || cmark_node_next(p) || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH) {
		dtk_md_text(md, markdown);
		cmark_node_free(doc);
		return;
	}
	S_unbreak(p);
	for (child = cmark_node_first_child(p); child; child = next) {
		next = cmark_node_next(child);
		cmark_node_unlink(child);
		S_add(md, child, NULL);
	}
	cmark_node_free(doc);
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
	s = cmark_render_html(md->doc, CMARK_OPT_DEFAULT, exts);
	char *copy = dtk_xstrdup(s);
	cmark_llist_free(cmark_get_default_mem_allocator(), exts);
	free(s);
	return copy;
}
