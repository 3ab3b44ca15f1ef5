/* export.c: the static HTML site (dtk export html). */
#include "dtk/export.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/invisible.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/links.h"
#include "dtk/markdown.h"
#include "lang.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file that marks a directory as the export's own, and the directory of
 * the node pages (so that no node's page can be index.html). */
#define MARKER ".dtk-export"
#define NODES "nodes"

static const char S_marker_text[] =
        "This directory is written by `dtk export html`, which owns it: pages of\n"
        "nodes that no longer exist are removed when it is exported again.\n";

static const char S_css[] =
        "body{margin:0;font:16px/1.6 system-ui,-apple-system,\"Segoe UI\",\"Noto Sans CJK SC\","
        "sans-serif;color:#1f2328;background:#fff}\n"
        "nav{padding:.6rem 1.5rem;border-bottom:1px solid #d0d7de;background:#f6f8fa}\n"
        "nav a{color:#0969da;text-decoration:none;font-weight:600}\n"
        "main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem 3rem}\n"
        "h1{font-size:1.9rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}\n"
        "h2{font-size:1.4rem;margin-top:2rem;border-bottom:1px solid #eaeef2}\n"
        "h3{font-size:1.1rem}\n"
        "h2:target{background:#fff8c5}\n"
        "table{border-collapse:collapse;width:100%;margin:.8rem 0;font-size:.95rem}\n"
        "th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}\n"
        "th{background:#f6f8fa}\n"
        "td:first-child{white-space:nowrap}\n"
        "tr:nth-child(even) td{background:#fbfcfd}\n"
        "a{color:#0969da}\n"
        "code{background:#eff1f3;padding:.1rem .3rem;border-radius:4px;font-size:.9em}\n"
        ".meta{color:#57606a}\n"
        "#q{width:100%;box-sizing:border-box;font:inherit;padding:.4rem .6rem;"
        "border:1px solid #d0d7de;border-radius:6px}\n"
        "#hits{padding-left:1.5rem}\n";

/* The search box of index.html: filters search.js (titles and claims) as the
 * user types; index.html?q=words fills it. */
static const char S_search_js[] =
        "<script src=\"search.js\"></script>\n<script>\n"
        "(function () {\n"
        "  var q = document.getElementById('q'), hits = document.getElementById('hits');\n"
        "  function run() {\n"
        "    var words = q.value.toLowerCase().split(/\\s+/).filter(Boolean), n = 0;\n"
        "    hits.textContent = '';\n"
        "    if (!words.length) return;\n"
        "    DTK_SEARCH.forEach(function (e) {\n"
        "      var text = (e.id + ' ' + e.title + ' ' + e.claim).toLowerCase();\n"
        "      if (n >= 50 || !words.every(function (w) { return text.indexOf(w) >= 0; }))\n"
        "        return;\n"
        "      var li = document.createElement('li'), a = document.createElement('a');\n"
        "      a.href = 'nodes/' + e.node + '.html#' + e.id;\n"
        "      a.textContent = e.id;\n"
        "      li.appendChild(a);\n"
        "      li.appendChild(document.createTextNode(' ' + e.title));\n"
        "      hits.appendChild(li);\n"
        "      n++;\n"
        "    });\n"
        "    if (!n) {\n"
        "      var li = document.createElement('li');\n"
        "      li.textContent = q.dataset.none;\n"
        "      hits.appendChild(li);\n"
        "    }\n"
        "  }\n"
        "  q.addEventListener('input', run);\n"
        "  var m = /[?&]q=([^&]*)/.exec(location.search);\n"
        "  if (m) { q.value = decodeURIComponent(m[1].replace(/\\+/g, ' ')); run(); }\n"
        "})();\n</script>\n";

static const struct dtk_lang *S_lang(const struct dtk_kb *kb)
{
	return kb->lang_en ? &dtk_lang_en : &dtk_lang_zh;
}

/* Appends s to b escaped for HTML text and attributes, an invisible
 * character (invisible.h) as the text "<U+202E>". */
static void S_escape(struct dtk_buf *b, const char *s)
{
	for (s = dtk_marked(s); *s; s++) {
		switch (*s) {
		case '&': dtk_buf_puts(b, "&amp;"); break;
		case '<': dtk_buf_puts(b, "&lt;"); break;
		case '>': dtk_buf_puts(b, "&gt;"); break;
		case '"': dtk_buf_puts(b, "&quot;"); break;
		default: dtk_buf_putc(b, *s);
		}
	}
}

/* Adds template tpl with its one {x} filled with x (as it is). */
static void S_fill(struct dtk_md *md, const char *tpl, const char *x)
{
	dtk_md_fill(md, tpl, &(struct dtk_md_slot){"x", x, 0}, 1);
}

static int S_id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Appends html to b with every entry id of kb in its text (outside tags and
 * links, not after ':' as in a cross-domain reference) made a link to the
 * entry on its node's page; prefix goes before "<node>.html". */
static void S_link_ids(struct dtk_buf *b, const struct dtk_kb *kb, const char *html,
                       const char *prefix)
{
	const char *p = html;
	int in_a = 0;

	while (*p) {
		if (*p == '<') {
			const char *end = strchr(p, '>');
			size_t n = end ? (size_t)(end - p + 1) : strlen(p);
			if (!strncmp(p, "<a ", 3))
				in_a = 1;
			else if (!strncmp(p, "</a>", 4))
				in_a = 0;
			dtk_buf_put(b, p, n);
			p += n;
		} else if (!in_a && S_id_char(*p) &&
		           (p == html || (!S_id_char(p[-1]) && p[-1] != ':'))) {
			size_t n = 0;
			const struct dtk_entry *e = NULL;
			char id[128];
			while (S_id_char(p[n]))
				n++;
			if (n < sizeof(id) && p[n] != ':') {
				memcpy(id, p, n);
				id[n] = '\0';
				e = dtk_kb_entry(kb, id);
			}
			if (e)
				dtk_buf_printf(b, "<a href=\"%s%s.html#%s\">%s</a>", prefix,
				               e->node->name, e->id, e->id);
			else
				dtk_buf_put(b, p, n);
			p += n;
		} else {
			dtk_buf_putc(b, *p++);
		}
	}
}

/* Writes dir/name: an HTML page with title around body; up is "" or "../"
 * (the way to the site's root); search adds the search box. */
static int S_page(const char *dir, const char *name, const struct dtk_kb *kb, const char *title,
                  const char *body, const char *up, int search)
{
	const struct dtk_lang *L = S_lang(kb);
	struct dtk_buf p = DTK_BUF_INIT;
	char *path = dtk_path_join(dir, name);
	int rc;

	dtk_buf_printf(
	        &p,
	        "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
	        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	        kb->lang_en ? "en" : "zh");
	S_escape(&p, title);
	dtk_buf_printf(&p,
	               "</title>\n<link rel=\"stylesheet\" href=\"%sstyle.css\">\n</head>\n<body>\n"
	               "<nav><a href=\"%sindex.html\">",
	               up, up);
	S_escape(&p, kb->title);
	dtk_buf_puts(&p, "</a></nav>\n<main>\n");
	if (search) {
		dtk_buf_puts(&p, "<form role=\"search\" onsubmit=\"return false\"><input id=\"q\" "
		                 "type=\"search\" autocomplete=\"off\" placeholder=\"");
		S_escape(&p, L->x_search);
		dtk_buf_puts(&p, "\" aria-label=\"");
		S_escape(&p, L->x_search);
		dtk_buf_puts(&p, "\" data-none=\"");
		S_escape(&p, L->x_search_none);
		dtk_buf_puts(&p, "\"></form>\n<ol id=\"hits\"></ol>\n");
	}
	dtk_buf_puts(&p, body);
	dtk_buf_puts(&p, "</main>\n");
	if (search)
		dtk_buf_puts(&p, S_search_js);
	dtk_buf_puts(&p, "</body>\n</html>\n");
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
		dtk_md_plain(md, s ? s->title : id);
	dtk_md_textf(md, " (%s)", id);
}

/* Adds an entry reference: a link to the entry on its node's page, and its
 * title (marked when the entry is retired), when it is local. */
static void S_ref(struct dtk_md *md, const struct dtk_kb *kb, const char *id)
{
	const struct dtk_entry *e = strchr(id, ':') ? NULL : dtk_kb_entry(kb, id);
	struct dtk_buf url = DTK_BUF_INIT;
	if (e) {
		dtk_buf_printf(&url, "%s.html#%s", e->node->name, e->id);
		dtk_md_link(md, url.ptr, id);
		dtk_md_text(md, " ");
		dtk_md_plain(md, e->title);
		if (dtk_entry_retired(e))
			dtk_md_text(md, S_lang(kb)->x_retired);
	} else {
		dtk_md_text(md, id);
	}
	dtk_buf_release(&url);
}

/* Adds an item per entry or gap that names e: related by, contradicted by
 * (with the contradiction's status and note), flags a gap. */
static void S_backlinks(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                        const struct dtk_entry *e)
{
	struct dtk_link *links;
	size_t i, n = dtk_links_to(&links, kb, e->id, NULL);

	for (i = 0; i < n; i++) {
		const struct dtk_link *l = &links[i];
		dtk_md_item(md);
		if (l->how == DTK_LINK_GAP) {
			dtk_md_text(md, L->x_flags_gap);
			dtk_md_plain(md, l->gap->text);
		} else if (l->how == DTK_LINK_RELATES) {
			dtk_md_text(md, L->x_related_by);
			S_ref(md, kb, l->from->id);
		} else if (l->how == DTK_LINK_SUPERSEDES) {
			dtk_md_text(md, L->x_supersedes);
			S_ref(md, kb, l->from->id);
		} else {
			dtk_md_text(md, l->con->open ? L->x_contradicted_by_open
			                             : L->x_contradicted_by_resolved);
			S_ref(md, kb, l->from->id);
			if (l->con->note) {
				dtk_md_text(md, " — ");
				dtk_md_plain(md, l->con->note);
			}
		}
		dtk_md_close(md);
	}
	free(links);
}

/* Adds the template tpl with x filled in, after " · " unless first. */
static void S_meta(struct dtk_md *md, const char *tpl, const char *x, int first)
{
	if (!first)
		dtk_md_text(md, " · ");
	S_fill(md, tpl, x);
}

/* Adds the item that says e is retired: superseded (by whom, when) or
 * retracted (when, why); nothing for a live entry. */
static void S_retirement(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                         const struct dtk_entry *e)
{
	char date[11];

	if (!dtk_entry_retired(e))
		return;
	dtk_md_item(md);
	if (e->superseded_by.id) {
		S_fill(md, L->x_superseded_by, dtk_date_format(date, e->superseded));
		S_ref(md, kb, e->superseded_by.id);
	} else {
		S_fill(md, L->x_retracted, dtk_date_format(date, e->retracted));
		dtk_md_plain(md, e->retracted_reason);
	}
	dtk_md_close(md);
}

static void S_entry(struct dtk_md *md, const struct dtk_kb *kb, const struct dtk_lang *L,
                    const struct dtk_entry *e)
{
	char date[11], num[32];
	struct dtk_buf conf = DTK_BUF_INIT;
	size_t i;

	dtk_md_heading(md, 2); /* given id="<entry id>" by S_heading_ids */
	dtk_md_textf(md, "%s ", e->id);
	dtk_md_plain(md, e->title);
	if (dtk_entry_retired(e))
		dtk_md_text(md, L->x_retired);
	dtk_md_close(md);
	dtk_md_paragraph(md);
	dtk_md_plain(md, e->claim);
	dtk_md_close(md);
	dtk_md_list(md);
	S_retirement(md, kb, L, e);
	dtk_md_item(md);
	dtk_buf_puts(&conf, dtk_confidence_names[e->confidence]);
	if (dtk_entry_is_candidate(kb, e))
		dtk_buf_puts(&conf, L->x_candidate);
	S_meta(md, L->x_confidence, conf.ptr, 1);
	S_meta(md, L->x_created, dtk_date_format(date, e->created), 0);
	if (e->reviewed)
		S_meta(md, L->x_reviewed, dtk_date_format(date, e->reviewed), 0);
	snprintf(num, sizeof(num), "%ld", e->used);
	S_meta(md, L->x_used, num, 0);
	snprintf(num, sizeof(num), "%ld", e->cited);
	S_meta(md, L->x_cited, num, 0);
	if (e->closed)
		S_meta(md, L->x_closed, "", 0);
	dtk_md_close(md);
	dtk_md_item(md);
	S_item_source(md, kb, L->x_source, e->source.id);
	dtk_md_close(md);
	for (i = 0; i < e->n_verified_by; i++) {
		dtk_md_item(md);
		S_item_source(md, kb, L->x_verified_by, e->verified_by[i].id);
		dtk_md_close(md);
	}
	for (i = 0; i < e->n_relates; i++) {
		dtk_md_item(md);
		dtk_md_text(md, L->x_relates);
		S_ref(md, kb, e->relates[i].id);
		dtk_md_close(md);
	}
	for (i = 0; i < e->n_contradicts; i++) {
		dtk_md_item(md);
		dtk_md_text(md, e->contradicts[i].open ? L->x_contradicts_open
		                                       : L->x_contradicts_resolved);
		S_ref(md, kb, e->contradicts[i].ref.id);
		if (e->contradicts[i].note) {
			dtk_md_text(md, " — ");
			dtk_md_plain(md, e->contradicts[i].note);
		}
		dtk_md_close(md);
	}
	S_backlinks(md, kb, L, e);
	dtk_md_close(md);
	dtk_buf_release(&conf);
}

/* Appends html to b with the k-th "<h2>" given the id of n's k-th entry. */
static void S_heading_ids(struct dtk_buf *b, const struct dtk_node *n, const char *html)
{
	const char *p = html, *h;
	size_t k = 0;

	while ((h = strstr(p, "<h2>")) != NULL && k < n->n_entries) {
		dtk_buf_put(b, p, (size_t)(h - p));
		dtk_buf_printf(b, "<h2 id=\"%s\">", n->entries[k++].id);
		p = h + 4;
	}
	dtk_buf_puts(b, p);
}

static int S_node_page(const struct dtk_kb *kb, const struct dtk_node *n, const char *nodes_dir)
{
	const struct dtk_lang *L = S_lang(kb);
	struct dtk_md *md = dtk_md_new();
	struct dtk_buf name = DTK_BUF_INIT, ids = DTK_BUF_INIT, linked = DTK_BUF_INIT;
	char *html, num[32];
	int rc;
	size_t i;

	dtk_md_heading(md, 1);
	dtk_md_text(md, n->name);
	dtk_md_close(md);
	dtk_md_paragraph(md);
	if (n->category >= 0) {
		dtk_md_plain(md, kb->categories[n->category].name);
		dtk_md_text(md, " · ");
	}
	dtk_md_textf(md, "Bloom %s · ", dtk_bloom_names[n->bloom]);
	snprintf(num, sizeof(num), "%zu", dtk_node_live(n));
	S_fill(md, L->x_entries, num);
	if (dtk_node_live(n) < n->n_entries) {
		snprintf(num, sizeof(num), "%zu", n->n_entries - dtk_node_live(n));
		S_fill(md, L->x_retired_note, num);
	}
	dtk_md_close(md);
	dtk_md_paragraph(md);
	if (!n->stance) {
		dtk_md_text(md, L->x_no_stance);
	} else {
		dtk_md_text(md, dtk_node_has_high(n) ? L->x_stance : L->x_tentative);
		dtk_md_plain(md, n->stance);
	}
	dtk_md_close(md);
	for (i = 0; i < n->n_entries; i++)
		S_entry(md, kb, L, &n->entries[i]);
	html = dtk_md_render_html(md);
	S_heading_ids(&ids, n, html);
	S_link_ids(&linked, kb, dtk_buf_cstr(&ids), "");
	dtk_buf_printf(&name, "%s.html", n->name);
	rc = S_page(nodes_dir, name.ptr, kb, n->name, linked.ptr, "../", 0);
	free(html);
	dtk_buf_release(&name);
	dtk_buf_release(&ids);
	dtk_buf_release(&linked);
	dtk_md_free(md);
	return rc;
}

/* Writes dir/search.js: the entries' ids, nodes, titles and claims as one
 * JSON array (DTK_SEARCH) for the search box of index.html. */
static int S_search_index(const struct dtk_kb *kb, const char *dir)
{
	struct dtk_buf out = DTK_BUF_INIT;
	struct dtk_json j;
	char *path = dtk_path_join(dir, "search.js");
	size_t i, k;
	int rc;

	dtk_buf_puts(&out, "var DTK_SEARCH = ");
	dtk_json_init(&j, &out);
	j.compact = 1;
	dtk_json_array(&j);
	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->n_entries; k++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[k];
			if (dtk_entry_retired(e)) /* out of search, as dtk search */
				continue;
			dtk_json_object(&j);
			dtk_json_kstring(&j, "id", e->id);
			dtk_json_kstring(&j, "node", e->node->name);
			/* shown by the search box as the pages show them */
			dtk_json_kstring(&j, "title", dtk_marked(e->title));
			dtk_json_kstring(&j, "claim", dtk_marked(e->claim));
			dtk_json_end(&j, '}');
		}
	dtk_json_end(&j, ']');
	dtk_buf_puts(&out, ";\n");
	rc = dtk_file_write_atomic(path, out.ptr, out.len);
	dtk_buf_release(&out);
	free(path);
	return rc;
}

/* Makes dir the export's own: created when missing; an empty directory or
 * one holding the marker is taken; any other is refused (nothing written).
 * Returns 0, or -1 with the error set. */
static int S_claim(const char *dir)
{
	char *marker = dtk_path_join(dir, MARKER), *nodes = dtk_path_join(dir, NODES);
	struct stat st;
	DIR *d = NULL;
	struct dirent *de;
	int rc = -1, other = 0;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT) {
			dtk_error("cannot read %s: %s", dir, strerror(errno));
			goto done;
		}
		if (mkdir(dir, 0777) < 0) {
			dtk_error("cannot create %s: %s", dir, strerror(errno));
			goto done;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		dtk_error("%s is not a directory", dir);
		goto done;
	} else if (lstat(marker, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (!(d = opendir(dir))) {
			dtk_error("cannot read %s: %s", dir, strerror(errno));
			goto done;
		}
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				other = 1;
		if (other) {
			dtk_error(
			        "%s is not empty and was not written by dtk export (it has no %s): "
			        "refusing to write into it; name a new or empty directory",
			        dir, MARKER);
			goto done;
		}
	}
	/* the pages go into a directory of the export, not through a link */
	if (lstat(nodes, &st) == 0 ? !S_ISDIR(st.st_mode) : errno != ENOENT) {
		dtk_error("%s is not a directory (a symbolic link or a file is not written "
		          "through)",
		          nodes);
		goto done;
	}
	if (dtk_file_write_atomic(marker, S_marker_text, sizeof(S_marker_text) - 1) < 0)
		goto done;
	if (mkdir(nodes, 0777) < 0 && errno != EEXIST) {
		dtk_error("cannot create %s: %s", nodes, strerror(errno));
		goto done;
	}

	rc = 0;
done:
	if (d)
		closedir(d);
	free(marker);
	free(nodes);
	return rc;
}

/* Removes the pages in nodes_dir of nodes kb no longer has. Returns how
 * many, or -1 with the error set. */
static int S_prune(const struct dtk_kb *kb, const char *nodes_dir)
{
	DIR *d = opendir(nodes_dir);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return dtk_error("cannot read %s: %s", nodes_dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char name[256], *path;
		if (n <= 5 || n - 5 >= sizeof(name) || strcmp(de->d_name + n - 5, ".html"))
			continue;
		memcpy(name, de->d_name, n - 5);
		name[n - 5] = '\0';
		if (dtk_kb_node(kb, name))
			continue;
		path = dtk_path_join(nodes_dir, de->d_name);
		if (unlink(path) < 0 && errno != ENOENT) {
			dtk_error("cannot remove %s: %s", path, strerror(errno));
			free(path);
			closedir(d);
			return -1;
		}
		free(path);
		removed++;
	}
	closedir(d);
	return removed;
}

int dtk_export_html(const struct dtk_kb *kb, const char *dir, int *removed)
{
	struct dtk_buf linked = DTK_BUF_INIT;
	char *html = NULL, *css = NULL, *nodes = dtk_path_join(dir, NODES);
	size_t i;
	int rc = -1;

	*removed = 0;
	if (S_claim(dir) < 0)
		goto done;
	css = dtk_path_join(dir, "style.css");
	if (dtk_file_write_atomic(css, S_css, sizeof(S_css) - 1) < 0 || S_search_index(kb, dir) < 0)
		goto done;
	html = dtk_index_render_html(kb);
	S_link_ids(&linked, kb, html, NODES "/");
	if (S_page(dir, "index.html", kb, kb->title, linked.ptr, "", 1) < 0)
		goto done;
	for (i = 0; i < kb->n_nodes; i++)
		if (S_node_page(kb, kb->nodes[i], nodes) < 0)
			goto done;
	if ((*removed = S_prune(kb, nodes)) < 0)
		goto done;
	rc = (int)kb->n_nodes + 1;
done:
	dtk_buf_release(&linked);
	free(html);
	free(css);
	free(nodes);
	return rc;
}
