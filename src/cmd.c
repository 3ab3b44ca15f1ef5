/* cmd.c: the table of commands and the dispatcher. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/lock.h"
#include "dtk/model.h"
#include "dtk/pager.h"
#include "dtk/self.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct dtk_cmd *const S_cmds[] = {
        &dtk_cmd_reindex,
        &dtk_cmd_check,
        &dtk_cmd_show,
        &dtk_cmd_list,
        &dtk_cmd_search,
        &dtk_cmd_similar,
        &dtk_cmd_next_id,
        &dtk_cmd_export,
        &dtk_cmd_crystallize,
        &dtk_cmd_log,
        &dtk_cmd_setup_git,
        &dtk_cmd_merge_driver,
        &dtk_cmd_sync,
        &dtk_cmd_mcp,
        /* the write commands */
        &dtk_cmd_add,
        &dtk_cmd_add_node,
        &dtk_cmd_add_source,
        &dtk_cmd_use,
        &dtk_cmd_cite,
        &dtk_cmd_close,
        &dtk_cmd_review,
        &dtk_cmd_verify,
        &dtk_cmd_relate,
        &dtk_cmd_contradict,
        &dtk_cmd_resolve,
        &dtk_cmd_stance,
        &dtk_cmd_bloom,
        &dtk_cmd_gap,
        &dtk_cmd_hotspot,
        /* the rest of an entry's life, and a new base */
        &dtk_cmd_edit,
        &dtk_cmd_edit_source,
        &dtk_cmd_confidence,
        &dtk_cmd_unrelate,
        &dtk_cmd_unverify,
        &dtk_cmd_supersede,
        &dtk_cmd_retract,
        &dtk_cmd_init,
};
#define N_CMDS (sizeof(S_cmds) / sizeof(*S_cmds))

const struct dtk_cmd *dtk_cmd_find(const char *name)
{
	size_t i;
	for (i = 0; i < N_CMDS; i++)
		if (!strcmp(S_cmds[i]->name, name))
			return S_cmds[i];
	return NULL;
}

int dtk_cmd_report_invalid(struct dtk_ctx *ctx, struct dtk_diags *diags)
{
	dtk_diags_print(diags, ctx->err);
	fprintf(ctx->err, "dtk: %zu error%s%s\n", diags->n, diags->n == 1 ? "" : "s",
	        ctx->flags & DTK_CMD_READ_ONLY ? "" : "; nothing was written");
	return DTK_EXIT_INVALID;
}

int dtk_cmd_fail(struct dtk_ctx *ctx, int status)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	const char *path;
	int line, col;

	if (!dtk_error_pos(&path, &line, &col)) {
		fprintf(ctx->err, "dtk %s: error: %s\n", ctx->cmd->name,
		        dtk_esc_mode(dtk_error_last(), 1));
		return status;
	}
	/* about the data: as check prints it */
	dtk_diags_add(&diags, path, line, col, "%s", dtk_error_last());
	dtk_cmd_report_invalid(ctx, &diags);
	dtk_diags_release(&diags);
	return status;
}

/* ---- terminal output ---- */

const char *const dtk_color_names[4] = {"auto", "always", "never", NULL};

int dtk_cmd_use_color(const struct dtk_ctx *ctx, int when)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if (when != DTK_COLOR_AUTO)
		return when == DTK_COLOR_ALWAYS;
	/* a terminal that says it has no colour (TERM=dumb, as git reads it) */
	return ctx->tty && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

int dtk_cmd_pager(struct dtk_ctx *ctx)
{
	return !ctx->no_pager && ctx->out == stdout && dtk_pager_start() == 1;
}

int dtk_cmd_held(struct dtk_ctx *ctx, struct dtk_kb **kb)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	const struct dtk_kb *held = NULL;
	int rc;

	*kb = NULL;
	if (!ctx->hold)
		return -1;
	if (!*ctx->hold)
		*ctx->hold = dtk_kb_hold_new(ctx->root, DTK_KB_ALL | DTK_KB_TERMS);
	rc = dtk_kb_hold_get(*ctx->hold, &held, &diags);
	dtk_diags_release(&diags);
	*kb = rc == 0 ? (struct dtk_kb *)held : NULL; /* read-only commands only */
	return rc == 0 && held ? 0 : -1;
}

int dtk_cmd_load(struct dtk_ctx *ctx, struct dtk_kb **kb, int what, const char *node)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	int rc;

	/* one node's load: when the held base has it (else the load says why) */
	if ((ctx->flags & DTK_CMD_READ_ONLY) && dtk_cmd_held(ctx, kb) == 0) {
		if (!(what & DTK_KB_ONE_NODE) || dtk_kb_node(*kb, node))
			return DTK_EXIT_OK;
		*kb = NULL;
	}
	rc = dtk_kb_load(kb,
	                 &(struct dtk_kb_load_opts){.root = ctx->root, .what = what, .node = node},
	                 &diags);

	if (rc == DTK_EINVALID)
		rc = dtk_cmd_report_invalid(ctx, &diags);
	else if (rc < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	dtk_diags_release(&diags);
	return rc;
}

void dtk_cmd_unload(struct dtk_ctx *ctx, struct dtk_kb *kb)
{
	const struct dtk_kb *held = NULL;

	if (ctx->hold && *ctx->hold)
		dtk_kb_hold_peek(*ctx->hold, &held);
	if (kb != held)
		dtk_kb_free(kb);
}

static void S_usage(FILE *f)
{
	size_t i, w = 0;
	fputs("usage: dtk [-C <dir>] [-P] <command> [<args>]\n"
	      "       dtk --help | --version | help <command>\n\n"
	      "dtk keeps a knowledge base (insights/*.yaml) and its INDEX.md honest.\n\n"
	      "commands:\n",
	      f);
	for (i = 0; i < N_CMDS; i++) /* the summaries in one column */
		if (strlen(S_cmds[i]->name) > w)
			w = strlen(S_cmds[i]->name);
	for (i = 0; i < N_CMDS; i++)
		fprintf(f, "  %-*s  %s\n", (int)w, S_cmds[i]->name, S_cmds[i]->summary);
	fputs("\noptions:\n"
	      "  -C <dir>        run as if dtk was started in <dir>\n"
	      "  -P, --no-pager  do not page long output on a terminal (see DTK_PAGER)\n"
	      "  -h, --help      show this help; 'dtk <command> --help' for a command\n"
	      "  --version       print dtk's version\n\n"
	      "exit status: 0 ok, 1 'dtk check' found INDEX.md out of date,\n"
	      "2 invalid input or usage. See dtk(1) and docs/commands.md.\n",
	      f);
}

static void S_cmd_help(const struct dtk_cmd *cmd, FILE *f)
{
	fputs("usage: ", f);
	dtk_args_usage(cmd, f);
	fprintf(f, "\n\n%s\n%s", cmd->summary, cmd->help);
	if (cmd->opts) {
		fputs("\noptions:\n", f);
		dtk_args_help(cmd, f);
		fputs("\n", f);
	}
	if (cmd->examples)
		fputs(cmd->examples, f);
	if (cmd->flags & DTK_CMD_GIT_ARGS)
		return;
	fputs("\noptions of every command:\n"
	      "  -q, --quiet  print nothing but errors and warnings: nothing on standard\n"
	      "               output, no note of what was done (the exit status tells)\n",
	      f);
	if (cmd->flags & DTK_CMD_PAGES)
		fputs("  --no-pager   on a terminal, print without a pager (DTK_PAGER, PAGER,\n"
		      "               else less)\n",
		      f);
	fputs("  -h, --help   print this help\n", f);
}

static int S_unknown(struct dtk_ctx *ctx, const char *name)
{
	const char *names[N_CMDS], *hint;
	size_t i;
	for (i = 0; i < N_CMDS; i++)
		names[i] = S_cmds[i]->name;
	hint = dtk_suggest(name, names, N_CMDS);
	if (hint)
		return dtk_cmd_usage_error(ctx, "'%s' is not a dtk command; did you mean '%s'?",
		                           name, hint);
	return dtk_cmd_usage_error(ctx, "'%s' is not a dtk command", name);
}

/* The exit status for output that could not be written after the command
 * returned rc: DTK_EXIT_WRITTEN when files were written (never 2: an agent
 * that retries on 2 would make the change twice), else DTK_EXIT_INVALID. */
static int S_output_lost(int rc)
{
	if (rc == DTK_EXIT_WRITTEN || (rc == DTK_EXIT_OK && dtk_file_replaced())) {
		fputs("dtk: the files were written, but not the report of what was written "
		      "(exit 3)\n",
		      stderr);
		return DTK_EXIT_WRITTEN;
	}
	return rc == DTK_EXIT_OK ? DTK_EXIT_INVALID : rc;
}

/* Flushes standard output and reports a failed write or flush of it (as git
 * and coreutils do: "dtk list > /dev/full" must not pass for a success).
 * Returns rc, or what S_output_lost says when standard output could not be
 * written. */
static int S_flush_stdout(int rc)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	e = errno;
	fprintf(stderr, "dtk: error: cannot write to standard output%s%s\n", e ? ": " : "",
	        e ? strerror(e) : "");
	/* 1 after a write that failed part way says what was written: it stays */
	if (rc == DTK_EXIT_DRIFT)
		return dtk_file_replaced() ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID;
	return S_output_lost(rc);
}

/* Has the base's paths shown relative to the working directory, which is
 * root (absolute, real) or a directory inside it. */
static void S_show_paths_from(const char *root)
{
	char *cwd = realpath(".", NULL);
	size_t n = strlen(root);

	if (n == 1) /* the root is "/" */
		n = 0;
	if (cwd && !strncmp(cwd, root, n) && (cwd[n] == '/' || !cwd[n])) {
		dtk_path_show_from(cwd + n + (cwd[n] == '/'));
		dtk_path_show_root(root);
	}
	free(cwd);
}

/* Runs ctx->cmd, which declares its options, with the arguments parsed by
 * them; returns the exit status. */
static int S_run_declared(struct dtk_ctx *ctx, int argc, char **argv)
{
	const struct dtk_args *outer = ctx->args;
	struct dtk_args args;
	int rc;

	if (dtk_args_parse(ctx, argc, argv, &args) < 0)
		return DTK_EXIT_INVALID;
	ctx->args = &args;
	rc = ctx->cmd->run(ctx, &args);
	ctx->args = outer;
	dtk_args_release(&args);
	return rc;
}

int dtk_cmd_run(struct dtk_ctx *ctx, const struct dtk_cmd *cmd, int argc, char **argv)
{
	char *root = NULL, *journal;
	int lock = -1, rc;

	ctx->flags = cmd->flags;
	ctx->cmd = cmd;
	if (dtk_args_wants_help(ctx, argc, argv)) {
		S_cmd_help(cmd, ctx->out);
		return DTK_EXIT_OK;
	}
	if ((cmd->flags & DTK_CMD_NEEDS_KB) && !ctx->root) {
		root = dtk_kb_find_root(".");
		if (!root)
			return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		ctx->root = root;
		S_show_paths_from(root);
	}
	if (ctx->root && !dtk_file_replaced())
		dtk_file_count_below(ctx->root);
	if ((cmd->flags & DTK_CMD_LOCKS) && ctx->root &&
	    (lock = dtk_lock_take_base(ctx->root, !!(cmd->flags & DTK_CMD_RESUMES))) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	/* a read after a write killed between its renames: said, with what
	 * settles it (check's finding, a write's rollback) */
	if (ctx->root && !(cmd->flags & DTK_CMD_LOCKS) && cmd != &dtk_cmd_check &&
	    (journal = dtk_lock_journal(ctx->root))) {
		fprintf(ctx->err,
		        "dtk %s: warning: a write was interrupted before it finished (%s): %s may "
		        "be half written; run 'dtk reindex' to put them back as they were before "
		        "it\n",
		        cmd->name, DTK_FILE_JOURNAL, dtk_esc(journal));
		free(journal);
	}
	rc = cmd->run ? S_run_declared(ctx, argc, argv) : cmd->exec(ctx, argc, argv);
	if (ctx->loud) { /* -q: the null stream goes */
		fclose(ctx->out);
		ctx->out = ctx->loud;
		ctx->loud = NULL;
	}
	ctx->quiet = 0;
	if (dtk_pager_finish() < 0 && rc == DTK_EXIT_OK)
		rc = S_output_lost(dtk_cmd_fail(ctx, DTK_EXIT_OK));
	dtk_path_show_from(NULL);
	dtk_path_show_root(NULL);
	dtk_file_count_below(NULL);
	dtk_lock_release(lock);
done:
	if (root)
		ctx->root = NULL;
	free(root);
	return rc;
}

/* Runs cmd with its arguments on the standard streams. */
static int S_run(const struct dtk_cmd *cmd, int argc, char **argv, int no_pager)
{
	struct dtk_ctx ctx = {.out = stdout,
	                      .err = stderr,
	                      .flags = cmd->flags,
	                      .tty = isatty(STDOUT_FILENO),
	                      .no_pager = no_pager,
	                      .cmd = cmd};
	return dtk_cmd_run(&ctx, cmd, argc, argv);
}

static const char S_help_help[] =
        "usage: dtk help [<command>]\n\n"
        "print dtk's help, or a command's (the same as 'dtk <command> --help')\n";

/* dtk help [<command>]: its errors are dtk's, but for one of its own */
static int S_help(struct dtk_ctx *ctx, int argc, char **argv)
{
	static const struct dtk_cmd help = {.name = "help"};
	const struct dtk_cmd *cmd;

	if (argc > 2)
		return ctx->cmd = &help,
		       dtk_cmd_usage_error(ctx, "unexpected argument '%s'", argv[2]);
	if (argc == 1) {
		S_usage(stdout);
		return DTK_EXIT_OK;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(S_help_help, stdout);
		return DTK_EXIT_OK;
	}
	cmd = dtk_cmd_find(argv[1]);
	if (!cmd)
		return S_unknown(ctx, argv[1]);
	S_cmd_help(cmd, stdout);
	return DTK_EXIT_OK;
}

static int S_main(int argc, char **argv)
{
	struct dtk_ctx ctx = {.out = stdout, .err = stderr};
	const struct dtk_cmd *cmd;
	const char *dir;
	int i = 1, no_pager = 0;

	while (i < argc && argv[i][0] == '-') {
		if (!strncmp(argv[i], "-C", 2)) {
			dir = argv[i][2] ? argv[i] + 2 : i + 1 < argc ? argv[++i] : NULL;
			if (!dir)
				return dtk_cmd_usage_error(&ctx, "option '-C' needs a directory");
			if (chdir(dir) < 0) {
				fprintf(stderr, "dtk: error: cannot change to %s: %s\n", dir,
				        strerror(errno));
				return DTK_EXIT_INVALID;
			}
			i++;
		} else if (!strcmp(argv[i], "-P") || !strcmp(argv[i], "--no-pager")) {
			no_pager = 1;
			i++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			/* 'dtk --help add': as 'dtk help add' */
			if (i + 1 < argc)
				return S_help(&ctx, argc - i, argv + i);
			S_usage(stdout);
			return DTK_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			printf("dtk %s\n", DTK_VERSION);
			return DTK_EXIT_OK;
		} else {
			return dtk_cmd_usage_error(&ctx, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc)
		return dtk_cmd_usage_error(&ctx, "no command given");
	if (!strcmp(argv[i], "help"))
		return S_help(&ctx, argc - i, argv + i);
	cmd = dtk_cmd_find(argv[i]);
	if (!cmd)
		return S_unknown(&ctx, argv[i]);
	return S_run(cmd, argc - i, argv + i, no_pager);
}

int dtk_main(int argc, char **argv)
{
	dtk_self_init(argc > 0 ? argv[0] : NULL); /* before -C changes directory */
	return S_flush_stdout(S_main(argc, argv));
}
