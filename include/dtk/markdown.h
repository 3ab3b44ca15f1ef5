/*
 * markdown.h: building a CommonMark (GFM) document and rendering it, over
 * cmark-gfm with its table extension. Only markdown.c includes cmark's headers.
 *
 * The builder keeps a cursor: the *_open calls add a block at the cursor and
 * move into it; dtk_md_close moves back out. Text is added at the cursor.
 */
#ifndef DTK_MARKDOWN_H
#define DTK_MARKDOWN_H

#include "dtk/dtk.h"

struct dtk_md;

/* Returns a new, empty document; free it with dtk_md_free. */
struct dtk_md *dtk_md_new(void);
/*
 * Returns a new document that is rendered as it is built, so that it is never
 * held whole: once a top-level block is closed, the blocks not yet rendered
 * go to write as CommonMark and are freed (after a list, only with the next
 * block: two lists in a row are rendered together). The bytes written are
 * those dtk_md_render would return for the whole document. End with
 * dtk_md_finish, then dtk_md_free.
 */
struct dtk_md *dtk_md_new_stream(dtk_write_fn write, void *arg);
/* Renders what a streamed document still holds. Returns 0, or -1 when a
 * write failed (nothing was written after it; the error is set). */
int dtk_md_finish(struct dtk_md *md);
void dtk_md_free(struct dtk_md *md);

void dtk_md_heading(struct dtk_md *md, int level);
void dtk_md_paragraph(struct dtk_md *md);
void dtk_md_list(struct dtk_md *md); /* a tight bullet list */
void dtk_md_item(struct dtk_md *md); /* a list item holding one paragraph */
/* A GFM table of ncols columns; add its rows with dtk_md_row. */
void dtk_md_table(struct dtk_md *md, int ncols);
void dtk_md_row(struct dtk_md *md, int header);
void dtk_md_cell(struct dtk_md *md);
/* Closes the block opened last. */
void dtk_md_close(struct dtk_md *md);

/* Adds a link to url whose text is text (both as they are). */
void dtk_md_link(struct dtk_md *md, const char *url, const char *text);

/* Adds text as it is: the renderer escapes what Markdown would read. */
void dtk_md_text(struct dtk_md *md, const char *text);
void dtk_md_textf(struct dtk_md *md, const char *fmt, ...) DTK_PRINTF(2, 3);
/* Adds a text field of the data: plain text (docs/schema.md, "Text"), on one
 * line. A run of line breaks becomes one space, or none between two East
 * Asian wide characters; the renderer escapes what Markdown would read. */
void dtk_md_plain(struct dtk_md *md, const char *text);

/* A value for a {name} placeholder of dtk_md_fill: a label, number or id as
 * it is, or (md) a text field of the data, plain text on one line
 * (dtk_md_plain). */
struct dtk_md_slot {
	const char *name, *value;
	int md;
};

/* Adds tpl at the cursor with its placeholders filled from slots[0..n) (a
 * '{' that starts no known placeholder is text). */
void dtk_md_fill(struct dtk_md *md, const char *tpl, const struct dtk_md_slot *slots, size_t n);

/*
 * A run: text rendered once and kept, to be added again without rendering
 * it again. dtk_md_new_run returns a document whose text (dtk_md_text and
 * the like, at its cursor) is the run's; dtk_md_run_render returns it
 * rendered as CommonMark, as that text renders inside a paragraph after
 * other text (malloc'd, *len bytes; the caller frees), or NULL when it is
 * empty or ends with '&' (whose rendering depends on what follows).
 */
struct dtk_md *dtk_md_new_run(void);
char *dtk_md_run_render(struct dtk_md *md, size_t *len);
/* Adds run[0..len), which dtk_md_run_render made, at the cursor: the page
 * reads as though the run's text were added there. Streamed, it goes out as
 * it is (written at once) after another run, or when the text before it in
 * the paragraph holds a character other than a digit and does not end with
 * '&'; otherwise (and in a document that is not streamed) it is read back
 * into text (where a numeric character reference such as "&#123;", which
 * cmark writes as it is, becomes what it names). Runs added one after
 * another read as the run of their texts joined. */
void dtk_md_rendered(struct dtk_md *md, const char *run, size_t len);

/* Returns the document as CommonMark, malloc'd (the caller frees). */
char *dtk_md_render(struct dtk_md *md);
/* Returns the document as HTML, malloc'd (the caller frees). */
char *dtk_md_render_html(struct dtk_md *md);

#endif
