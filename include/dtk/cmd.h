/*
 * cmd.h: dtk's commands. Each src/cmd_<name>.c exports one const struct
 * dtk_cmd; src/cmd.c holds the one table of them and the dispatcher.
 *
 * Adding a command: write src/cmd_<name>.c with a static exec function and
 * the exported struct, declare it below, list it in cmd.c's table, add it to
 * CMakeLists.txt, docs/commands.md and a test.
 */
#ifndef DTK_CMD_H
#define DTK_CMD_H

#include <stdio.h>

/* What the dispatcher prepares before a command runs. */
enum {
	DTK_CMD_NEEDS_KB = 1 << 0, /* find the base root (ctx->root) */
	DTK_CMD_LOCKS = 1 << 1     /* hold the base's lock while running */
};

struct dtk_ctx {
	const char *root; /* the knowledge base root, when NEEDS_KB */
	FILE *out, *err;
};

struct dtk_cmd {
	const char *name;
	const char *usage;   /* "dtk show [--format text|json] <node|entry-id>" */
	const char *summary; /* one line for dtk --help */
	const char *help;    /* the rest of dtk <cmd> --help: options, examples */
	unsigned flags;
	/* Runs the command with its own arguments (argv[0] is its name); returns
	 * the exit status. */
	int (*exec)(struct dtk_ctx *ctx, int argc, char **argv);
};

extern const struct dtk_cmd dtk_cmd_reindex;
extern const struct dtk_cmd dtk_cmd_check;
extern const struct dtk_cmd dtk_cmd_show;
extern const struct dtk_cmd dtk_cmd_crystallize;
extern const struct dtk_cmd dtk_cmd_log;
extern const struct dtk_cmd dtk_cmd_list;
extern const struct dtk_cmd dtk_cmd_next_id;
extern const struct dtk_cmd dtk_cmd_setup_git;
extern const struct dtk_cmd dtk_cmd_merge_driver;
extern const struct dtk_cmd dtk_cmd_export;
extern const struct dtk_cmd dtk_cmd_search;

/* Returns the command called name, or NULL. */
const struct dtk_cmd *dtk_cmd_find(const char *name);

/* The whole program: parses global options and runs a command; returns the
 * exit status. */
int dtk_main(int argc, char **argv);

/* Prints every diagnostic to ctx->err and returns DTK_EXIT_INVALID. */
struct dtk_diags;
int dtk_cmd_report_invalid(struct dtk_ctx *ctx, struct dtk_diags *diags);

/* Prints "dtk <cmd>: error: <msg>" for the last error; returns status. */
int dtk_cmd_fail(struct dtk_ctx *ctx, const char *cmd, int status);

/* Loads the base at ctx->root for command cmd (what and node as for
 * dtk_kb_load). Returns DTK_EXIT_OK and sets *kb (dtk_kb_free), or the exit
 * status after printing every error of the data, or why it cannot be read. */
struct dtk_kb;
int dtk_cmd_load(struct dtk_ctx *ctx, const char *cmd, struct dtk_kb **kb, int what,
                 const char *node);

#endif
