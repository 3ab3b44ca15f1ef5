/* export.c: the static HTML site (dtk export html). */
#include "dtk/export.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/markdown.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char S_css[] =
        "body{margin:0;font:16px/1.6 system-ui,-apple-system,\"Segoe UI\",\"Noto Sans CJK SC\","
        "sans-serif;color:#1f2328;background:#fff}\n"
        "nav{padding:.6rem 1.5rem;border-bottom:1px solid #d0d7de;background:#f6f8fa}\n"
        "nav a{color:#0969da;text-decoration:none;font-weight:600}\n"
        "main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem 3rem}\n"
        "h1{font-size:1.9rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}\n"
        "h2{font-size:1.4rem;margin-top:2rem;border-bottom:1px solid #eaeef2}\n"
        "h3{font-size:1.1rem}\n"
        "table{border-collapse:collapse;width:100%;margin:.8rem 0;font-size:.95rem}\n"
        "th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}\n"
        "th{background:#f6f8fa}\n"
        "td:first-child{white-space:nowrap}\n"
        "tr:nth-child(even) td{background:#fbfcfd}\n"
        "a{color:#0969da}\n"
        "code{background:#eff1f3;padding:.1rem .3rem;border-radius:4px;font-size:.9em}\n"
        ".meta{color:#57606a}\n";

/* Appends s to b escaped for HTML text and attributes. */
static void S_escape(struct dtk_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': dtk_buf_puts(b, "&amp;"); break;
		case '<': dtk_buf_puts(b, "&lt;"); break;
		case '>': dtk_buf_puts(b, "&gt;"); break;
		case '"': dtk_buf_puts(b, "&quot;"); break;
		default: dtk_buf_putc(b, *s);
		}
	}
}

/* Writes dir/name: an HTML page with title around body. */
static int S_page(const char *dir, const char *name, const struct dtk_kb *kb, const char *title,
                  const char *body)
{
	struct dtk_buf p = DTK_BUF_INIT;
	char *path = dtk_path_join(dir, name);
	int rc;

	dtk_buf_printf(
	        &p,
	        "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
	        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	        kb->lang_en ? "en" : "zh");
	S_escape(&p, title);
	dtk_buf_puts(&p, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n"
	                 "<nav><a href=\"index.html\">");
	S_escape(&p, kb->title);
	dtk_buf_printf(&p, "</a></nav>\n<main>\n%s</main>\n</body>\n</html>\n", body);
	rc = dtk_file_write_atomic(path, p.ptr, p.len);
	dtk_buf_release(&p);
	free(path);
	return rc;
}

static void S_item_source(struct dtk_md *md, const struct dtk_kb *kb, const char *label,
                          const char *id)
{
	const struct dtk_source *s = dtk_kb_source(kb, id);
	dtk_md_text(md, label);
	if (s && s->url)
		dtk_md_link(md, s->url, s->title);
	else
		dtk_md_text(md, s ? s->title : id);
	dtk_md_textf(md, " (%s)", id);
}

/* Adds an entry reference: a link to its node's page when it is local. */
static void S_ref(struct dtk_md *md, const struct dtk_kb *kb, const char *id)
{
	const struct dtk_entry *e = strchr(id, ':') ? NULL : dtk_kb_entry(kb, id);
	struct dtk_buf url = DTK_BUF_INIT;
	if (e) {
		dtk_buf_printf(&url, "%s.html", e->node->name);
		dtk_md_link(md, url.ptr, id);
	} else {
		dtk_md_text(md, id);
	}
	dtk_buf_release(&url);
}

static void S_entry(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	char c[11], r[11];
	size_t i;

	dtk_md_heading(md, 2);
	dtk_md_textf(md, "%s ", e->id);
	dtk_md_plain(md, e->title);
	dtk_md_close(md);
	dtk_md_paragraph(md);
	dtk_md_plain(md, e->claim);
	dtk_md_close(md);
	dtk_md_list(md);
	dtk_md_item(md);
	dtk_md_textf(md, "confidence: %s%s · created %s", dtk_confidence_names[e->confidence],
	             dtk_entry_is_candidate(kb, e) ? " (candidate)" : "",
	             dtk_date_format(c, e->created));
	if (e->reviewed)
		dtk_md_textf(md, " · reviewed %s", dtk_date_format(r, e->reviewed));
	dtk_md_textf(md, " · used %ld · cited %ld%s", e->used, e->cited,
	             e->closed ? " · closed" : "");
	dtk_md_close(md);
	dtk_md_item(md);
	S_item_source(md, kb, "source: ", e->source.id);
	dtk_md_close(md);
	for (i = 0; i < e->n_verified_by; i++) {
		dtk_md_item(md);
		S_item_source(md, kb, "verified by: ", e->verified_by[i].id);
		dtk_md_close(md);
	}
	for (i = 0; i < e->n_relates; i++) {
		dtk_md_item(md);
		dtk_md_text(md, "relates to: ");
		S_ref(md, kb, e->relates[i].id);
		dtk_md_close(md);
	}
	for (i = 0; i < e->n_contradicts; i++) {
		dtk_md_item(md);
		dtk_md_textf(md,
		             "contradicts (%s): ", e->contradicts[i].open ? "open" : "resolved");
		S_ref(md, kb, e->contradicts[i].ref.id);
		if (e->contradicts[i].note) {
			dtk_md_text(md, " — ");
			dtk_md_plain(md, e->contradicts[i].note);
		}
		dtk_md_close(md);
	}
	dtk_md_close(md);
}

static int S_node_page(const struct dtk_kb *kb, const struct dtk_node *n, const char *dir)
{
	struct dtk_md *md = dtk_md_new();
	struct dtk_buf name = DTK_BUF_INIT;
	char *html;
	size_t i;
	int rc;

	dtk_md_heading(md, 1);
	dtk_md_text(md, n->name);
	dtk_md_close(md);
	dtk_md_paragraph(md);
	dtk_md_textf(md, "%s%sbloom %s · %zu entr%s",
	             n->category >= 0 ? kb->categories[n->category].name : "",
	             n->category >= 0 ? " · " : "", dtk_bloom_names[n->bloom], n->n_entries,
	             n->n_entries == 1 ? "y" : "ies");
	dtk_md_close(md);
	dtk_md_paragraph(md);
	if (!n->stance) {
		dtk_md_text(md, "—");
	} else {
		dtk_md_text(md, dtk_node_has_high(n) ? "stance: " : "stance (tentative): ");
		dtk_md_plain(md, n->stance);
	}
	dtk_md_close(md);
	for (i = 0; i < n->n_entries; i++)
		S_entry(md, kb, &n->entries[i]);
	html = dtk_md_render_html(md);
	dtk_buf_printf(&name, "%s.html", n->name);
	rc = S_page(dir, name.ptr, kb, n->name, html);
	free(html);
	dtk_buf_release(&name);
	dtk_md_free(md);
	return rc;
}

int dtk_export_html(const struct dtk_kb *kb, const char *dir)
{
	char *html, *css;
	size_t i;
	int rc;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return dtk_error("cannot create %s: %s", dir, strerror(errno));
	css = dtk_path_join(dir, "style.css");
	rc = dtk_file_write_atomic(css, S_css, sizeof(S_css) - 1);
	free(css);
	if (rc < 0)
		return -1;
	html = dtk_index_render_html(kb);
	rc = S_page(dir, "index.html", kb, kb->title, html);
	free(html);
	for (i = 0; rc == 0 && i < kb->n_nodes; i++)
		rc = S_node_page(kb, kb->nodes[i], dir);
	return rc < 0 ? -1 : (int)kb->n_nodes + 1;
}
