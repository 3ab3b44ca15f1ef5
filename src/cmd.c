/* cmd.c: the table of commands and the dispatcher. */
#define _DEFAULT_SOURCE /* flock */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/kb.h"
#include "dtk/self.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const struct dtk_cmd *const S_cmds[] = {
        &dtk_cmd_reindex,   &dtk_cmd_check,        &dtk_cmd_show,        &dtk_cmd_list,
        &dtk_cmd_next_id,   &dtk_cmd_export,       &dtk_cmd_crystallize, &dtk_cmd_log,
        &dtk_cmd_setup_git, &dtk_cmd_merge_driver,
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
	fprintf(ctx->err, "dtk: %zu error%s; nothing was written\n", diags->n,
	        diags->n == 1 ? "" : "s");
	return DTK_EXIT_INVALID;
}

int dtk_cmd_fail(struct dtk_ctx *ctx, const char *cmd, int status)
{
	fprintf(ctx->err, "dtk %s: error: %s\n", cmd, dtk_error_last());
	return status;
}

int dtk_cmd_load(struct dtk_ctx *ctx, const char *cmd, struct dtk_kb **kb, int what,
                 const char *node)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	int rc = dtk_kb_load(kb, ctx->root, what, node, &diags);

	if (rc == DTK_EINVALID)
		rc = dtk_cmd_report_invalid(ctx, &diags);
	else if (rc < 0)
		rc = dtk_cmd_fail(ctx, cmd, DTK_EXIT_INVALID);
	dtk_diags_release(&diags);
	return rc;
}

static void S_usage(FILE *f)
{
	size_t i;
	fputs("usage: dtk [-C <dir>] <command> [<args>]\n"
	      "       dtk --help | --version | help <command>\n\n"
	      "dtk keeps a knowledge base (insights/*.yaml) and its INDEX.md honest.\n\n"
	      "commands:\n",
	      f);
	for (i = 0; i < N_CMDS; i++)
		fprintf(f, "  %-12s %s\n", S_cmds[i]->name, S_cmds[i]->summary);
	fputs("\noptions:\n"
	      "  -C <dir>      run as if dtk was started in <dir>\n"
	      "  -h, --help    show this help; 'dtk <command> --help' for a command\n"
	      "  --version     print dtk's version\n\n"
	      "exit status: 0 ok, 1 'dtk check' found INDEX.md out of date,\n"
	      "2 invalid input or usage. See dtk(1) and docs/commands.md.\n",
	      f);
}

static void S_cmd_help(const struct dtk_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: %s\n\n%s\n%s", cmd->usage, cmd->summary, cmd->help);
}

/* Returns 1 when argv holds -h or --help before a "--". */
static int S_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

static int S_unknown(const char *name)
{
	const char *names[N_CMDS], *hint;
	size_t i;
	for (i = 0; i < N_CMDS; i++)
		names[i] = S_cmds[i]->name;
	hint = dtk_suggest(name, names, N_CMDS);
	fprintf(stderr, "dtk: '%s' is not a dtk command", name);
	if (hint)
		fprintf(stderr, "; did you mean '%s'?", hint);
	fputs("\nsee 'dtk --help'\n", stderr);
	return DTK_EXIT_INVALID;
}

/* Takes the base's lock (flock on its root directory), waiting when another
 * dtk run holds it. Returns the descriptor to close, or -1. */
static int S_lock(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			fprintf(stderr, "dtk: another dtk run holds the lock on %s; waiting\n",
			        root);
			if (flock(fd, LOCK_EX) == 0)
				return fd;
		}
		close(fd);
		return -1;
	}
	return fd;
}

/* Flushes standard output and reports a failed write or flush of it (as git
 * and coreutils do: "dtk list > /dev/full" must not pass for a success).
 * Returns rc, or DTK_EXIT_INVALID when standard output could not be written. */
static int S_flush_stdout(int rc)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	e = errno;
	fprintf(stderr, "dtk: error: cannot write to standard output%s%s\n", e ? ": " : "",
	        e ? strerror(e) : "");
	return DTK_EXIT_INVALID;
}

/* Runs cmd with its arguments after preparing what its flags ask for. */
static int S_run(const struct dtk_cmd *cmd, int argc, char **argv)
{
	struct dtk_ctx ctx = {NULL, stdout, stderr};
	char *root = NULL;
	int lock = -1, rc;

	if (S_wants_help(argc, argv)) {
		S_cmd_help(cmd, stdout);
		return DTK_EXIT_OK;
	}
	if (cmd->flags & DTK_CMD_NEEDS_KB) {
		root = dtk_kb_find_root(".");
		if (!root)
			return dtk_cmd_fail(&ctx, cmd->name, DTK_EXIT_INVALID);
		ctx.root = root;
	}
	if ((cmd->flags & DTK_CMD_LOCKS) && root && (lock = S_lock(root)) < 0) {
		dtk_error("cannot lock %s: %s", root, strerror(errno));
		free(root);
		return dtk_cmd_fail(&ctx, cmd->name, DTK_EXIT_INVALID);
	}
	rc = cmd->exec(&ctx, argc, argv);
	if (lock >= 0)
		close(lock);
	free(root);
	return rc;
}

static int S_main(int argc, char **argv)
{
	const struct dtk_cmd *cmd;
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-C") && i + 1 < argc) {
			if (chdir(argv[i + 1]) < 0) {
				fprintf(stderr, "dtk: error: cannot change to %s: %s\n",
				        argv[i + 1], strerror(errno));
				return DTK_EXIT_INVALID;
			}
			i += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			S_usage(stdout);
			return DTK_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			printf("dtk %s\n", DTK_VERSION);
			return DTK_EXIT_OK;
		} else {
			fprintf(stderr, "dtk: unknown option '%s'\n", argv[i]);
			S_usage(stderr);
			return DTK_EXIT_INVALID;
		}
	}
	if (i >= argc) {
		S_usage(stderr);
		return DTK_EXIT_INVALID;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 >= argc) {
			S_usage(stdout);
			return DTK_EXIT_OK;
		}
		cmd = dtk_cmd_find(argv[i + 1]);
		if (!cmd)
			return S_unknown(argv[i + 1]);
		S_cmd_help(cmd, stdout);
		return DTK_EXIT_OK;
	}
	cmd = dtk_cmd_find(argv[i]);
	if (!cmd)
		return S_unknown(argv[i]);
	return S_run(cmd, argc - i, argv + i);
}

int dtk_main(int argc, char **argv)
{
	dtk_self_init(argc > 0 ? argv[0] : NULL); /* before -C changes directory */
	return S_flush_stdout(S_main(argc, argv));
}
