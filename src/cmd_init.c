/* cmd_init.c: dtk init: a new, empty knowledge base. */
#include "dtk/cmd.h"

#include "dtk/fs.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/lock.h"
#include "dtk/write.h"
#include "dtk/yemit.h"
#include "lang.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The texts of a new base, per language: the title after the domain's
 * name, description, positioning. */
static const char *const S_text[2][3] = {
        {" 知识索引", "本域的知识条目与结晶记录，由 dtk 维护。", "知识飞轮"},
        {" knowledge index",
         "The knowledge entries and crystallization records of this "
         "domain, kept by dtk.",
         "knowledge flywheel"}};

/* Sets b to a domain name made of the last part of dir: lowercase letters,
 * digits and '-' (anything else becomes '-'), "knowledge" when nothing is
 * left. */
static void S_domain_of(struct dtk_buf *b, const char *dir)
{
	const char *base = strrchr(dir, '/');

	base = base ? base + 1 : dir;
	for (; *base; base++) {
		char ch = *base >= 'A' && *base <= 'Z' ? (char)(*base - 'A' + 'a') : *base;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
		if (ok || (b->len && b->ptr[b->len - 1] != '-'))
			dtk_buf_putc(b, ok ? ch : '-');
	}
	while (b->len && b->ptr[b->len - 1] == '-')
		b->ptr[--b->len] = '\0';
	if (!b->len)
		dtk_buf_puts(b, "knowledge");
}

/* Appends "key: value" and a line break to b, value quoted as needed. */
static int S_field(struct dtk_buf *b, const char *key, const char *value)
{
	dtk_buf_printf(b, "%s: ", key);
	if (dtk_yemit_scalar(b, value, strlen(value), DTK_YEMIT_BLOCK, 0, "\n") < 0)
		return -1;
	dtk_buf_putc(b, '\n');
	return 0;
}

/* Adds the three files of a new base to w: domain, title (NULL: made from
 * the domain), in English (en) or Chinese. Returns the exit status. */
static int S_files(struct dtk_write *w, const char *domain, const char *title, int en)
{
	struct dtk_buf d = DTK_BUF_INIT, t = DTK_BUF_INIT;
	int rc = DTK_EXIT_INVALID;

	if (!title)
		dtk_buf_printf(&t, "%s%s", domain, S_text[en][0]);
	if (S_field(&d, "domain", domain) < 0 || S_field(&d, "title", title ? title : t.ptr) < 0 ||
	    S_field(&d, "description", S_text[en][1]) < 0 ||
	    S_field(&d, "positioning", S_text[en][2]) < 0) {
		dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
		goto done;
	}
	dtk_buf_printf(&d, "categories: []\nlang: %s\n", en ? "en" : "zh");
	if (dtk_write_create(w, "_domain.yaml", d.ptr, d.len) &&
	    dtk_write_create(w, "_sources.yaml", dtk_xstrdup("[]\n"), 3) &&
	    dtk_write_create(w, "_crystallizations.yaml", dtk_xstrdup("[]\n"), 3))
		rc = DTK_EXIT_OK;
	d.ptr = NULL; /* adopted */
done:
	dtk_buf_release(&d);
	dtk_buf_release(&t);
	return rc;
}

/* Returns 1 when s holds a Chinese, Japanese or Korean character (a code
 * point from U+2E80 on, as UTF-8 spells it: a lead byte of 0xE2 0xBA on),
 * else 0: a title in English asks for an English base. */
static int S_has_cjk(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p >= 0xE3 || (*p == 0xE2 && p[1] >= 0xBA))
			return 1;
	return 0;
}

/* Prints what was made: the domain on standard output (with --format json
 * its files), then as a note the files, the language and what comes next. */
static void S_print(struct dtk_write *w, const char *domain, int en)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	size_t i;

	if (w->opts.dry_run)
		return;
	if (!w->opts.json) {
		fprintf(w->ctx->out, "%s\n", domain);
		dtk_cmd_note(w->ctx,
		             "dtk %s: a new base '%s' in %s (--lang %s for %s): "
		             "insights/_domain.yaml, insights/_sources.yaml, "
		             "insights/_crystallizations.yaml%s\n"
		             "next: dtk add-node <node> --category <category>, then dtk add-source "
		             "<source-id> --title <title> and dtk add <node>\n",
		             w->cmd, domain, en ? "English" : "Chinese", en ? "zh" : "en",
		             en ? "Chinese" : "English", w->opts.no_reindex ? "" : ", INDEX.md");
		return;
	}
	dtk_json_init(&j, &b);
	dtk_json_object(&j);
	dtk_json_kstring(&j, "domain", domain);
	dtk_json_kstring(&j, "lang", en ? "en" : "zh");
	dtk_json_key(&j, "files");
	dtk_json_array(&j);
	for (i = 0; i < w->n_files; i++)
		dtk_json_string(&j, w->files[i]->rel);
	if (!w->opts.no_reindex)
		dtk_json_string(&j, "INDEX.md");
	dtk_json_end(&j, ']');
	dtk_json_end(&j, '}');
	dtk_write_put_json(w, &b);
}

/* Refuses a directory inside a base, or one whose insights/ or INDEX.md is
 * there already. Returns 0 or the exit status. */
static int S_refuse_existing(struct dtk_write *w, const char *dir)
{
	char *root = dtk_kb_find_root(dir), *p;
	struct stat st;
	int rc = 0;

	if (root) {
		rc = strcmp(root, dir)
		             ? dtk_write_refuse(w, "%s is inside the knowledge base at %s", dir,
		                                root)
		             : dtk_write_refuse(w, "%s holds a knowledge base already", dir);
		free(root);
		return rc;
	}
	p = dtk_path_join(dir, "INDEX.md");
	if (lstat(p, &st) == 0)
		rc = dtk_write_refuse(w, "%s exists: not a new base", p);
	free(p);
	p = dtk_path_join(dir, "insights");
	if (!rc && lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
		rc = dtk_write_refuse(w, "%s exists and is not a directory", p);
	free(p);
	return rc;
}

/* The values of --lang. */

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"lang", 'l', DTK_OPT_CHOICE, .choices = dtk_lang_names,
         .help = "the language of INDEX.md and of the texts (default:\n"
                 "en for a --title in English, else zh)"},
        {"domain", 'd', DTK_OPT_STRING, .arg = "NAME",
         .help = "the domain's name (default: the directory's name, as a\n"
                 "name: lowercase letters, digits and '-')"},
        {"title", 't', DTK_OPT_STRING, .arg = "T",
         .help = "INDEX.md's title (default '<domain> 知识索引', or\n"
                 "'<domain> knowledge index' in English)"},
        /* DTK_WRITE_OPTS, but what --format json prints */
        {"dry-run", DTK_WOPT_DRY_RUN, DTK_OPT_FLAG,
         .help = "print the diff of every file it would change; write nothing"},
        {"format", DTK_WOPT_FORMAT, DTK_OPT_CHOICE, .choices = dtk_write_formats,
         .help = "json: the base made, {\"domain\", \"lang\", \"files\"}"},
        {"no-reindex", DTK_WOPT_NO_REINDEX, DTK_OPT_FLAG, .help = "do not rebuild INDEX.md"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *title, *domain;
	struct dtk_buf name = DTK_BUF_INIT;
	char *dir = realpath(".", NULL), *insights = NULL;
	struct dtk_write w;
	int en, made = 0, lock = -1, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	domain = dtk_args_str(a, 'd');
	title = dtk_args_str(a, 't');
	/* without --lang: English for a title without Chinese, Japanese or
	 * Korean characters, else Chinese */
	en = (int)dtk_args_int(a, 'l', title && !S_has_cjk(title));
	if (!dir) {
		dtk_error("cannot resolve the working directory: %s", strerror(errno));
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if (domain && !dtk_is_name(domain)) {
		dtk_cmd_usage_error(ctx,
		                    "--domain: '%s' is not a name (lowercase letters, digits and "
		                    "'-')",
		                    domain);
		goto done;
	}
	if (dtk_write_check_text(&w, "--title", "title", title))
		goto done;
	if (!domain)
		S_domain_of(&name, dir);
	if ((lock = dtk_lock_take(dir)) < 0) {
		dtk_error("cannot lock %s: %s", dir, strerror(errno));
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if ((rc = S_refuse_existing(&w, dir)) != 0)
		goto done;
	/* the files are made in insights/, which the commit needs; a run that
	 * writes nothing removes it again */
	insights = dtk_path_join(dir, "insights");
	if (mkdir(insights, 0777) == 0) {
		made = 1;
	} else if (errno != EEXIST) {
		dtk_error("cannot create %s: %s", insights, strerror(errno));
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	ctx->root = dir;
	rc = S_files(&w, domain ? domain : name.ptr, title, en);
	if (rc == DTK_EXIT_OK)
		rc = dtk_write_commit(&w);
	if (rc == DTK_EXIT_OK)
		S_print(&w, domain ? domain : name.ptr, en);
	ctx->root = NULL;
done:
	if (made && (rc != DTK_EXIT_OK || w.opts.dry_run))
		rmdir(insights);
	dtk_lock_release(lock);
	dtk_write_release(&w);
	dtk_buf_release(&name);
	free(insights);
	free(dir);
	return rc;
}

const struct dtk_cmd dtk_cmd_init = {
        .name = "init",
        .summary = "start a new knowledge base in the working directory",
        .help = "\nWrites a minimal valid base in the working directory (or -C DIR):\n"
                "insights/_domain.yaml (domain, title, description, positioning, no\n"
                "categories yet, lang), empty insights/_sources.yaml and\n"
                "insights/_crystallizations.yaml, and INDEX.md, every text in the language\n"
                "asked. Then 'dtk add-node', 'dtk add-source' and 'dtk add' fill it.\n"
                "Refused inside an existing base, and where INDEX.md or an insights/ that\n"
                "is not a directory exists. Prints the domain's name; on standard error,\n"
                "the files made, the language and the next step.\n",
        .examples = "examples:\n"
                    "  cd \"$(mktemp -d)\" && git init -q && dtk init --lang en &&\n"
                    "      dtk add-node basics --category Basics\n",
        .flags = DTK_CMD_PAGES,
        .opts = S_opts,
        .run = S_run,
};
