/* write.c: the transaction of the write commands (see write.h): the files
 * opened and edited, the whole base validated with the edits, all written
 * or nothing; write_cmd.c holds what the commands share around it. */
#include "dtk/write.h"

#include "dtk/fs.h"
#include "dtk/git.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void dtk_write_init(struct dtk_write *w, struct dtk_ctx *ctx)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->cmd = ctx->cmd->name;
	if (ctx->args) {
		w->opts.dry_run = dtk_args_has(ctx->args, DTK_WOPT_DRY_RUN) > 0;
		w->opts.no_reindex = dtk_args_has(ctx->args, DTK_WOPT_NO_REINDEX) > 0;
		w->opts.json = dtk_args_int(ctx->args, DTK_WOPT_FORMAT, 0) == 1;
	}
}

const char *const dtk_write_formats[] = {"text", "json", NULL};

void dtk_write_release(struct dtk_write *w)
{
	size_t i;
	for (i = 0; i < w->n_files; i++) {
		struct dtk_wfile *f = w->files[i];
		dtk_ydoc_release(&f->doc);
		free(f->name);
		free(f->rel);
		free(f->real);
		free(f->old);
		free(f->text);
		free(f);
	}
	free(w->files);
	dtk_kb_free(w->kb);
	memset(w, 0, sizeof(*w));
}

int dtk_write_refuse(struct dtk_write *w, const char *fmt, ...)
{
	struct dtk_buf b = DTK_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	dtk_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	/* one line: a newline or control byte of what it quotes is escaped */
	fprintf(w->ctx->err, "dtk %s: error: %s\n", w->cmd, dtk_esc(dtk_buf_cstr(&b)));
	dtk_buf_release(&b);
	return DTK_EXIT_INVALID;
}

int dtk_write_check_text(struct dtk_write *w, const char *what, const char *key, const char *s)
{
	size_t max = dtk_text_limit(key), len = s ? strlen(s) : 0, n;

	if (s && strspn(s, " \t\r\n") == len)
		return dtk_cmd_usage_error(w->ctx, "%s must not be blank", what);
	if (!max || len <= max || (n = dtk_utf8_chars(s, len)) <= max)
		return 0;
	return dtk_cmd_usage_error(w->ctx, "%s is %zu characters long; the limit is %zu", what, n,
	                           max);
}

static struct dtk_wfile *S_find(struct dtk_write *w, const char *name)
{
	size_t i;
	for (i = 0; i < w->n_files; i++)
		if (!strcmp(w->files[i]->name, name))
			return w->files[i];
	return NULL;
}

static struct dtk_wfile *S_add(struct dtk_write *w, const char *name)
{
	struct dtk_wfile *f = dtk_xcalloc(1, sizeof(*f));
	dtk_grow((void **)&w->files, &w->cap, w->n_files + 1, sizeof(*w->files));
	w->files[w->n_files++] = f;
	f->name = dtk_xstrdup(name);
	f->rel = dtk_path_join("insights", name);
	return f;
}

struct dtk_wfile *dtk_write_open(struct dtk_write *w, const char *name)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_wfile *f = S_find(w, name);
	char *ins, *full, *real;
	int fd, rc;

	if (f)
		return f;
	ins = dtk_path_join(w->ctx->root, "insights");
	full = dtk_path_join(ins, name);
	free(ins);
	/* a regular file inside the base, as the loader reads it */
	real = realpath(w->ctx->root, NULL);
	rc = real ? dtk_file_open_within(&fd, real, full) : dtk_error("%s", "no base");
	free(real);
	if (rc == 0) {
		f = S_add(w, name);
		rc = dtk_file_read_fd(&f->old, &f->old_len, fd, full, DTK_MAX_FILE_BYTES);
		close(fd);
		/* a link (inside the base, as checked) stays a link: its file
		 * is the one replaced, reached from the root again */
		if (rc == 0 && !(f->real = dtk_path_within(w->ctx->root, full)))
			rc = dtk_error("changed while being read");
	}
	free(full);
	if (rc == 1) {
		dtk_error("insights/%s does not exist", name);
		dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
		return NULL;
	}
	if (rc < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		if (rc == DTK_ETOOBIG)
			dtk_error("insights/%s is larger than the limit of %u bytes", name,
			          DTK_MAX_FILE_BYTES);
		else
			dtk_error("insights/%s: %s", name, why);
		free(why);
		dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
		return NULL;
	}
	if (dtk_ydoc_parse(&f->doc, f->rel, f->old, f->old_len, &diags) < 0 || !f->doc.root) {
		if (!diags.n)
			dtk_diags_add(&diags, f->rel, 1, 1, "file is empty");
		dtk_cmd_report_invalid(w->ctx, &diags);
		dtk_diags_release(&diags);
		return NULL;
	}
	return f;
}

struct dtk_wfile *dtk_write_create(struct dtk_write *w, const char *name, char *text, size_t len)
{
	char *full = dtk_path_join(w->ctx->root, "insights"), *p = dtk_path_join(full, name);
	char *dir = dtk_path_within(w->ctx->root, full);
	struct stat st;
	/* anything there, a FIFO or a dangling link too, is not opened */
	int exists = lstat(p, &st) == 0, err = exists ? 0 : dir ? errno : ENOTDIR;
	struct dtk_wfile *f;

	free(full);
	free(p);
	if (exists || S_find(w, name) || err != ENOENT) {
		free(text);
		if (exists || err == ENOENT)
			dtk_write_refuse(w, "insights/%s already exists", name);
		else
			dtk_write_refuse(w, "cannot create insights/%s: %s", name, strerror(err));
		free(dir);
		return NULL;
	}
	f = S_add(w, name);
	f->real = dtk_path_join(dir, name); /* insights/ may be a link inside */
	free(dir);
	f->text = text;
	f->len = len;
	return f;
}

const struct dtk_yval *dtk_write_seq_find(const struct dtk_yval *list, const char *key,
                                          const char *s)
{
	size_t i;
	for (i = 0; list && list->kind == DTK_Y_SEQ && i < list->n; i++) {
		const char *v = dtk_yval_str(list->items[i], key);
		if (v && !strcmp(v, s))
			return list->items[i];
	}
	return NULL;
}

const struct dtk_yval *dtk_write_entry(struct dtk_write *w, const char *id, struct dtk_wfile **fp)
{
	const struct dtk_yval *e;
	size_t plen;
	int k;

	if (!dtk_entry_id_split(id, &plen)) {
		dtk_cmd_usage_error(w->ctx, "'%s' is not an entry id (<node>-<suffix>)", id);
		return NULL;
	}
	if ((k = dtk_write_find(w, id, &e, fp)) > 0)
		return e;
	if (k == 0 && !*fp)
		dtk_write_refuse(w, "no entry '%s': there is no node '%.*s'", id, (int)plen, id);
	else if (k == 0)
		dtk_write_refuse(w, "no entry '%s' in %s", id, (*fp)->rel);
	return NULL;
}

/* ---- commit ---- */

/* Prints the unified diff of old to new, shown as path. */
static int S_diff(struct dtk_write *w, struct dtk_buf *out, const char *old, size_t old_len,
                  const char *new_, size_t new_len, const char *path)
{
	char *diff = NULL;
	if (dtk_git_diff_buffers(&diff, old, old ? old_len : 0, new_, new_len, path) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_puts(out, diff);
	free(diff);
	return DTK_EXIT_OK;
}

/* Returns 1 when f's new text differs from its bytes on disk. */
static int S_changed(const struct dtk_wfile *f)
{
	return !f->old || f->len != f->old_len || memcmp(f->text, f->old, f->len);
}

/* Prints the diffs of every changed file and INDEX.md (idx: the new page,
 * NULL when unchanged). */
static int S_dry_run(struct dtk_write *w, const struct dtk_buf *idx, const char *idx_path)
{
	struct dtk_buf out = DTK_BUF_INIT;
	char *old = NULL;
	size_t i, old_len = 0;
	int rc = DTK_EXIT_OK;

	for (i = 0; i < w->n_files && rc == DTK_EXIT_OK; i++) {
		struct dtk_wfile *f = w->files[i];
		if (S_changed(f))
			rc = S_diff(w, &out, f->old, f->old_len, f->text, f->len, f->rel);
	}
	if (rc == DTK_EXIT_OK && idx) {
		if (dtk_file_read_regular(&old, &old_len, idx_path, DTK_MAX_INDEX_BYTES) != 0) {
			old = NULL;
			old_len = 0;
		}
		rc = S_diff(w, &out, old, old_len, idx->ptr ? idx->ptr : "", idx->len,
		            DTK_INDEX_FILE);
		free(old);
	}
	if (rc == DTK_EXIT_OK && w->opts.json) {
		struct dtk_buf b = DTK_BUF_INIT;
		struct dtk_json j;
		dtk_json_init(&j, &b);
		dtk_json_object(&j);
		dtk_json_kbool(&j, "dry_run", 1);
		dtk_json_kstring(&j, "diff", dtk_buf_cstr(&out));
		dtk_json_end(&j, '}');
		fputs(dtk_buf_cstr(&b), w->ctx->out);
		dtk_buf_release(&b);
	} else if (rc == DTK_EXIT_OK) {
		dtk_cmd_pager(w->ctx);
		fputs(dtk_buf_cstr(&out), w->ctx->out);
	}
	dtk_buf_release(&out);
	return rc;
}

/* Points each diagnostic about an edited file at that file as it is on
 * disk (the edited text is never written): a position in text the edit
 * adds becomes where it would go in, and says so. */
static void S_map_diags(struct dtk_write *w, struct dtk_diags *diags)
{
	static const char note[] = " (in the text the edit would add here)";
	size_t i, k, n;

	for (i = 0; i < diags->n; i++) {
		struct dtk_diag *g = &diags->v[i];
		for (k = 0; k < w->n_files; k++) {
			const struct dtk_wfile *f = w->files[k];
			if (!f->old || strcmp(g->path, f->rel))
				continue;
			if (dtk_ydoc_map_back(&f->doc, f->text, f->len, &g->line, &g->col)) {
				n = strlen(g->msg);
				g->msg = dtk_xrealloc(g->msg, n + sizeof(note));
				memcpy(g->msg + n, note, sizeof(note));
			}
			break;
		}
	}
}

/* After a write of every changed file of w and INDEX.md (idx set) whose
 * error names only the files whose directory was not synced: adds the
 * files written to the error set, when there are several. */
static void S_name_written(struct dtk_write *w, const struct dtk_buf *idx)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, k = 0;

	for (i = 0; i <= w->n_files; i++) {
		char *shown;
		if (i < w->n_files ? !S_changed(w->files[i]) : !idx)
			continue;
		shown = dtk_path_shown(i < w->n_files ? w->files[i]->rel : DTK_INDEX_FILE);
		dtk_buf_printf(&b, "%s%s", k++ ? ", " : "", shown);
		free(shown);
	}
	if (k > 1) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; written: %s", why, b.ptr);
		free(why);
	}
	dtk_buf_release(&b);
}

/*
 * Writes the changed files of w, then INDEX.md (idx: its text, NULL when
 * unchanged), all or nothing (dtk_file_commit_all): every new text is first
 * written beside its file (a full disk fails here, with nothing changed),
 * each directory opened from the root with no link followed, then each is
 * renamed into place. Returns DTK_EXIT_OK; DTK_EXIT_INVALID after an error
 * when nothing was changed; DTK_EXIT_DRIFT after an error saying what was
 * written when something was (a file that could not be put back, or a
 * directory that could not be synced).
 */
static int S_write(struct dtk_write *w, const struct dtk_buf *idx, const char *idx_path)
{
	struct dtk_file_staged *st = dtk_xcalloc(w->n_files + 1, sizeof(*st));
	const char *root = w->ctx->root;
	char *conv = NULL;
	size_t i, n = w->n_files + (idx ? 1 : 0), conv_len = 0;
	int rootfd, rc = 0;

	dtk_crash_point("before-write");
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		rc = dtk_error("cannot open %s: %s", root, strerror(errno));
	for (i = 0; i < n && rc >= 0; i++) {
		struct dtk_wfile *f = i < w->n_files ? w->files[i] : NULL;
		const char *text = f ? f->text : idx->ptr ? idx->ptr : "";
		size_t len = f ? f->len : idx->len;
		if (f && !S_changed(f))
			continue;
		/* INDEX.md as git would check it out (core.autocrlf) */
		if (!f && (rc = dtk_git_checkout_form(&conv, &conv_len, idx_path, text, len)) > 0) {
			text = conv;
			len = conv_len;
		}
		/* a new file of a folder of insights/ (_uses/): the folder made */
		if (f && !f->old && strchr(f->name, '/') && rc >= 0) {
			char *dir = dtk_xstrdup(f->real);
			*strrchr(dir, '/') = '\0';
			(void)dtk_file_mkdir_within(rootfd, dir); /* else the stage says why */
			free(dir);
		}
		if (rc >= 0)
			rc = dtk_file_stage_within(&st[i], rootfd, root,
			                           f ? f->real : DTK_INDEX_FILE, text, len, -1);
	}
	if (rc < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s: nothing was written", why);
		free(why);
	} else
		rc = dtk_file_commit_all(rootfd, root, st, n);
	for (i = 0; i < n; i++)
		dtk_file_stage_release(&st[i]);
	if (rootfd >= 0)
		close(rootfd);
	free(st);
	free(conv);
	if (rc == DTK_ENOSYNC)
		S_name_written(w, idx);
	return rc == 0 ? DTK_EXIT_OK
	               : dtk_cmd_fail(w->ctx,
	                              rc == DTK_ENOSYNC ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID);
}

int dtk_write_commit(struct dtk_write *w)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_memfile *mem = dtk_xcalloc(w->n_files + 1, sizeof(*mem));
	struct dtk_file_cmp cmp = {.fd = -1};
	struct dtk_index_pages pages = {NULL, 0, NULL};
	char *idx_path = dtk_path_join(w->ctx->root, DTK_INDEX_FILE);
	size_t i;
	int rc, idx_differs = 0;

	for (i = 0; i < w->n_files; i++) {
		struct dtk_wfile *f = w->files[i];
		if (f->doc.root) { /* read, or created and parsed to edit */
			free(f->text);
			f->text = dtk_ydoc_apply(&f->doc, &f->len);
			if (!f->text) {
				rc = dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
				goto done;
			}
		}
		mem[i] = (struct dtk_memfile){f->name, f->text, f->len};
	}
	rc = dtk_kb_load(
	        &w->kb,
	        &(struct dtk_kb_load_opts){.root = w->ctx->root,
	                                   .what = DTK_KB_ALL |
	                                           (w->opts.json ? 0 : DTK_KB_LEAN | DTK_KB_INDEX) |
	                                           (w->check ? DTK_KB_TERMS : 0),
	                                   .files = mem,
	                                   .n_files = w->n_files},
	        &diags);
	if (rc == DTK_EINVALID) {
		S_map_diags(w, &diags);
		rc = dtk_cmd_report_invalid(w->ctx, &diags);
		goto done;
	}
	if (rc < 0) {
		rc = dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if (w->check && (rc = w->check(w, w->check_arg)) != DTK_EXIT_OK)
		goto done;
	if (!w->opts.no_reindex) {
		/* INDEX.md from the base just validated: no second load */
		if (dtk_file_cmp_open(&cmp, idx_path, DTK_MAX_INDEX_BYTES) < 0 ||
		    dtk_index_write_pages(w->kb, dtk_file_cmp_write, &cmp, &pages) < 0 ||
		    (idx_differs = dtk_file_cmp_finish(&cmp)) < 0) {
			rc = dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
			goto done;
		}
	}
	if (w->opts.dry_run) {
		rc = S_dry_run(w, idx_differs ? &cmp.text : NULL, idx_path);
		goto done;
	}
	rc = S_write(w, idx_differs ? &cmp.text : NULL, idx_path);
	/* the pages of index/ after (docs/index-format.md): each written
	 * atomically; one not written is drift that check reports */
	if (rc == DTK_EXIT_OK && !w->opts.no_reindex &&
	    dtk_index_pages_sync(w->ctx->root, &pages, 1, NULL, NULL) < 0)
		rc = dtk_cmd_fail(w->ctx, DTK_EXIT_DRIFT);
done:
	dtk_index_pages_release(&pages);
	dtk_file_cmp_release(&cmp);
	dtk_diags_release(&diags);
	free(idx_path);
	free(mem);
	return rc;
}

int dtk_write_find(struct dtk_write *w, const char *id, const struct dtk_yval **e,
                   struct dtk_wfile **fp)
{
	char name[300];
	size_t plen;

	*e = NULL;
	*fp = NULL;
	if (!dtk_entry_id_split(id, &plen)) /* a name: no ':' of another domain */
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)plen, id);
	if (!dtk_kb_has_node(w->ctx->root, name))
		return 0;
	strcat(name, ".yaml");
	if (!(*fp = dtk_write_open(w, name)))
		return -1;
	*e = dtk_write_seq_find(dtk_yval_get((*fp)->doc.root, "insights"), "id", id);
	return *e != NULL;
}

long dtk_write_item(struct dtk_write *w, const struct dtk_yval *list, const char *what,
                    const char *name)
{
	const struct dtk_yval *it = dtk_write_seq_find(list, "id", name);
	size_t n = list && list->kind == DTK_Y_SEQ ? list->n : 0;
	char *end;
	long k = 0;

	if (it) {
		while (list->items[k] != it)
			k++;
		return k;
	}
	k = strtol(name, &end, 10);
	if (*name >= '1' && *name <= '9' && !*end && k >= 1 && (size_t)k <= n)
		return k - 1;
	dtk_write_refuse(w,
	                 "no %s '%s' in insights/_domain.yaml (name one by its id, or by its place "
	                 "in the list from 1)",
	                 what, name);
	return -1;
}

void dtk_write_item_id(char *id, size_t size, const struct dtk_yval *list, const char *prefix,
                       const char *a, const char *b, const char *c)
{
	unsigned nonce = 0;

	do
		dtk_entry_id_birth(id, size, prefix, a, b, c, nonce++);
	while (dtk_write_seq_find(list, "id", id));
}

int dtk_write_item_commit(struct dtk_write *w, int e, const char *id, const char *action)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	int rc = e < 0 ? dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID) : dtk_write_commit(w);

	if (rc != DTK_EXIT_OK || w->opts.dry_run)
		return rc;
	if (!w->opts.json) {
		fprintf(w->ctx->out, "%s: %s\n", id, action);
		return rc;
	}
	dtk_json_init(&j, &b);
	dtk_json_object(&j);
	dtk_json_kstring(&j, "id", id);
	dtk_json_kstring(&j, "action", action);
	dtk_json_end(&j, '}');
	dtk_write_put_json(w, &b);
	return rc;
}
