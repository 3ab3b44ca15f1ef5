/*
 * cmd.h: dtk's commands. Each src/cmd_<name>.c exports one const struct
 * dtk_cmd; src/cmd.c holds the one table of them and the dispatcher.
 *
 * (src/cmd_args.c is no command: it parses the options commands declare.)
 *
 * Adding a command: write src/cmd_<name>.c with a static run function, its
 * options (a static struct dtk_opt table, below) and the exported struct
 * naming both, declare it below, list it in cmd.c's table, add it to
 * CMakeLists.txt, docs/commands.md and a test.
 */
#ifndef DTK_CMD_H
#define DTK_CMD_H

#include <stdio.h>

/* What the dispatcher prepares before a command runs. */
enum {
	DTK_CMD_NEEDS_KB = 1 << 0, /* find the base root (ctx->root) */
	DTK_CMD_LOCKS = 1 << 1,    /* hold the base's lock while running */
	/* never writes: errors in the data do not add "nothing was written" */
	DTK_CMD_READ_ONLY = 1 << 2,
	/* can print more than a screen: pages on a terminal, takes --no-pager */
	DTK_CMD_PAGES = 1 << 3,
	/* run by git with the arguments git gives: none of every command's */
	DTK_CMD_GIT_ARGS = 1 << 4,
	/* runs with a crystallization's journal pending (crystallize: it
	 * finishes or refuses it); any other command with DTK_CMD_LOCKS is
	 * refused then, so that it never writes under a run cut short */
	DTK_CMD_RESUMES = 1 << 5,
	/* the first operand is an action, one of the words of the first of
	 * .operands ("<add|edit|remove>"), "<action>" in messages; .run gets
	 * its index in args->action */
	DTK_CMD_ACTION = 1 << 6,
	/* checks its operands itself (export's are words of its own) */
	DTK_CMD_OWN_OPERANDS = 1 << 7
};

struct dtk_ctx {
	const char *root; /* the knowledge base root, when NEEDS_KB */
	FILE *out, *err;
	unsigned flags;            /* the command's DTK_CMD_ flags */
	int tty;                   /* standard output is a terminal (or a pager on one) */
	int no_pager;              /* -P, --no-pager given */
	int quiet;                 /* -q, --quiet given: out is a null stream, no notes */
	FILE *loud;                /* with quiet: the out the command was given */
	const struct dtk_cmd *cmd; /* the command running (set by dtk_cmd_run) */
	/* NULL, or where a long-lived process (dtk mcp) keeps a base held
	 * between commands (kb.h, dtk_kb_hold): dtk_cmd_load serves the
	 * DTK_CMD_READ_ONLY commands' loads of the whole base from it, made at
	 * the first */
	struct dtk_kb_hold **hold;
	/* while a command with declared options runs: what the dispatcher
	 * parsed (the .run's args; dtk_write_init reads the write options) */
	const struct dtk_args *args;
	struct dtk_page *page; /* NULL, or the page of a list dtk mcp wants (view.h) */
};

/* ---- declared options ----
 * A command declares its options and operands in its struct dtk_cmd (.opts,
 * .conflicts, .operands, .run); the dispatcher parses and checks them once,
 * before the command runs, and hands the result to .run as a struct
 * dtk_args:
 *
 *   static const struct dtk_opt S_opts[] = {
 *           {"limit", 'l', DTK_OPT_INT, .arg = "N", .help = "at most N results"},
 *           {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .choices = S_formats,
 *            .help = "text or json"},
 *           {0}};
 *   ...
 *   static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
 *   {
 *           long limit = dtk_args_int(a, 'l', 10);
 *           int json = dtk_args_int(a, 'f', 0) == 1;
 *           ... a->argv[0] (.operands = "<node>": there is one) ...
 *
 * The parser's messages are dtk's usual ones ("dtk <cmd>: error: ..." then
 * "see 'dtk <cmd> --help'"): unknown, ambiguous, misused options, a
 * missing value, those of dtk_cmd_choice, dtk_cmd_conflict,
 * "<--opt> must be a positive number, not 'x'", "<--opt> must be a date
 * (YYYY-MM-DD), not 'x'", "missing <--opt>", and of the operands "missing
 * <node>", "unexpected argument 'x'". The usage line (unless
 * .usage is set) and the options part of --help are made from the same
 * declaration. */

/* What an option's value is, and what the dtk_args_ accessors give. */
enum dtk_opt_type {
	DTK_OPT_FLAG,   /* no value: dtk_args_has (how many times given) */
	DTK_OPT_STRING, /* a value: dtk_args_str (the last one given) */
	DTK_OPT_LIST,   /* a value, repeatable: dtk_args_list (each, in order) */
	DTK_OPT_INT,    /* a positive number: dtk_args_int */
	DTK_OPT_CHOICE, /* one of .choices: dtk_args_int is its index */
	DTK_OPT_DATE,   /* YYYY-MM-DD: dtk_args_int is the dtk_date */
	/* a value or none, --name[=value]: dtk_args_str (NULL: none) */
	DTK_OPT_OPTIONAL
};

/* dtk_opt.flags */
enum {
	DTK_OPT_REQUIRED = 1 << 0, /* "missing --name" when not given */
	DTK_OPT_SHORT = 1 << 1,    /* -<key> too (key a letter) */
	/* required, but the command checks it (its message or the order of
	 * its checks is its own): shown as required in the usage */
	DTK_OPT_NEEDED = 1 << 2
};

/* One option of a command. An entry with the key of the one before it and
 * no help is another name of it ("--all" for "--include-retired"): one
 * value for both, shown on its line in --help, not in the usage line. */
struct dtk_opt {
	const char *name; /* the long name, without "--"; NULL ends the table */
	int key;          /* what the accessors name it by: a letter, or >= 0x100
	                   * (not 'h', 'q', ':' or '?') */
	enum dtk_opt_type type;
	unsigned flags;             /* DTK_OPT_ */
	const char *arg;            /* the value's name in usage and help ("N");
	                             * NULL for a choice: "a|b|c" */
	/* DTK_OPT_CHOICE: the values, NULL-terminated; a STRING's: the values
	 * the command accepts (it checks them itself; dtk mcp offers them) */
	const char *const *choices;
	const char *help;           /* its line(s) in --help ('\n' between) */
	/* given, the command's operands are these, not its .operands ("[RUN]"
	 * with crystallize --amend) */
	const char *operands;
};

/* Two options that cannot be given together: "--a and --b cannot be used
 * together[: why]" (dtk_cmd_conflict). */
struct dtk_opt_conflict {
	int a, b; /* keys */
	const char *why;
};

/* What the dispatcher parsed (dtk_args_parse): read it with the accessors. */
struct dtk_args_val;
struct dtk_args {
	const struct dtk_cmd *cmd;
	int nargs;              /* how many arguments followed the command's name */
	int argc;               /* the operands: argv[0..argc), options taken out */
	char **argv;            /* (the command's name is not one) */
	int action;             /* DTK_CMD_ACTION: argv[0]'s index */
	struct dtk_args_val *v; /* one per option of cmd->opts (internal) */
};

struct dtk_cmd {
	const char *name;
	/* "dtk show [--format text|json] <node|entry-id>"; with .opts, NULL
	 * makes it from them and .operands */
	const char *usage;
	const char *summary; /* one line for dtk --help */
	/* the rest of dtk <cmd> --help: options, examples; with .opts, the
	 * prose before the options, which are made from .opts, then .examples */
	const char *help;
	unsigned flags;
	/* Declared options (NULL-name terminated; NULL: none but those of
	 * every command) and pairs that conflict (terminated by a 0 key).
	 * With them the dispatcher parses the arguments and calls .run. */
	const struct dtk_opt *opts;
	const struct dtk_opt_conflict *conflicts;
	/* "<level> <entry-id>...": the end of the usage made, and what the
	 * dispatcher checks: each <x> one operand, each [x] one or none, and
	 * a "..." in the last word as many more as given; NULL: none */
	const char *operands;
	const char *examples; /* "examples:\n  dtk ...\n", after the options */
	int (*run)(struct dtk_ctx *ctx, const struct dtk_args *args);
	/* Without .run (a command run by git with git's arguments, none of
	 * them options: merge-driver): runs the command with its own
	 * arguments (argv[0] is its name); returns the exit status. */
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
extern const struct dtk_cmd dtk_cmd_sync;
extern const struct dtk_cmd dtk_cmd_export;
extern const struct dtk_cmd dtk_cmd_search;
extern const struct dtk_cmd dtk_cmd_similar;
extern const struct dtk_cmd dtk_cmd_use;
extern const struct dtk_cmd dtk_cmd_cite;
extern const struct dtk_cmd dtk_cmd_close;
extern const struct dtk_cmd dtk_cmd_review;
extern const struct dtk_cmd dtk_cmd_verify;
extern const struct dtk_cmd dtk_cmd_relate;
extern const struct dtk_cmd dtk_cmd_contradict;
extern const struct dtk_cmd dtk_cmd_resolve;
extern const struct dtk_cmd dtk_cmd_stance;
extern const struct dtk_cmd dtk_cmd_edit;
extern const struct dtk_cmd dtk_cmd_edit_source;
extern const struct dtk_cmd dtk_cmd_confidence;
extern const struct dtk_cmd dtk_cmd_unrelate;
extern const struct dtk_cmd dtk_cmd_unverify;
extern const struct dtk_cmd dtk_cmd_supersede;
extern const struct dtk_cmd dtk_cmd_retract;
extern const struct dtk_cmd dtk_cmd_init;
extern const struct dtk_cmd dtk_cmd_bloom;
extern const struct dtk_cmd dtk_cmd_add;
extern const struct dtk_cmd dtk_cmd_add_source;
extern const struct dtk_cmd dtk_cmd_add_node;
extern const struct dtk_cmd dtk_cmd_mcp;
extern const struct dtk_cmd dtk_cmd_gap;
extern const struct dtk_cmd dtk_cmd_hotspot;

/*
 * Runs cmd as 'dtk <cmd> argv[1..]' does, writing to ctx->out and ctx->err:
 * --help, the base's root (ctx->root when set, else found from the working
 * directory for DTK_CMD_NEEDS_KB), the base's lock for DTK_CMD_LOCKS. Sets
 * ctx->flags; leaves ctx->root as it was. Returns the exit status.
 */
int dtk_cmd_run(struct dtk_ctx *ctx, const struct dtk_cmd *cmd, int argc, char **argv);

/* Returns the command called name, or NULL. */
const struct dtk_cmd *dtk_cmd_find(const char *name);

/* The whole program: parses global options and runs a command; returns the
 * exit status. */
int dtk_main(int argc, char **argv);

/* Prints every diagnostic and "dtk: N errors[; nothing was written]" (the
 * latter unless the command is DTK_CMD_READ_ONLY) to ctx->err; returns
 * DTK_EXIT_INVALID. */
struct dtk_diags;
int dtk_cmd_report_invalid(struct dtk_ctx *ctx, struct dtk_diags *diags);

/* The messages below name the command running, ctx->cmd (the table's
 * name: no command passes its own). */

/* Prints "dtk <cmd>: error: <msg>" for the last error; returns status. */
int dtk_cmd_fail(struct dtk_ctx *ctx, int status);

/* ---- argument errors: one shape for every command ----
 * "dtk <cmd>: error: <message>" then "see 'dtk <cmd> --help'" on ctx->err;
 * the callers then return DTK_EXIT_INVALID. ctx->cmd NULL means dtk itself
 * ("dtk: error: ...", "see 'dtk --help'"). */

/* Prints a note (what was done: "wrote INDEX.md") to ctx->err, unless
 * ctx->quiet. */
void dtk_cmd_note(struct dtk_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "see 'dtk <cmd> --help'", the line that ends argument errors
 * printed one by one; returns DTK_EXIT_INVALID. */
int dtk_cmd_usage_see(struct dtk_ctx *ctx);

/* Prints the usage error; returns DTK_EXIT_INVALID. */
int dtk_cmd_usage_error(struct dtk_ctx *ctx, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* ---- the declared options' parser (struct dtk_opt) ----
 * dtk_cmd_run calls it for a command with .opts or .run; a command calls
 * only the accessors. */

/* Parses argv (argv[0] is the command's name) by ctx->cmd's declaration
 * into *a: each value converted, then the required ones and the conflicts
 * checked. "--" ends the options. Handles itself the options every
 * command takes, with one meaning everywhere: -q, --quiet (ctx->quiet:
 * standard output goes nowhere, dtk_cmd_note prints nothing; errors and
 * warnings still go to standard error) and, for DTK_CMD_PAGES, --no-pager
 * (ctx->no_pager). Returns 0, or -1 after printing the usage error (*a is
 * then released). Release *a with dtk_args_release. */
int dtk_args_parse(struct dtk_ctx *ctx, int argc, char **argv, struct dtk_args *a);
void dtk_args_release(struct dtk_args *a);

/* Returns how many times option key was given (0: not given). */
int dtk_args_has(const struct dtk_args *a, int key);
/* Returns the last value of option key, or NULL when not given. The
 * strings are argv's. */
const char *dtk_args_str(const struct dtk_args *a, int key);
/* Returns the value of an INT, CHOICE (its index) or DATE option key, or
 * def when not given. */
long dtk_args_int(const struct dtk_args *a, int key, long def);
/* Returns where the last of option key was among the options given (1:
 * the first), or 0 when not given: which of two came last. */
int dtk_args_pos(const struct dtk_args *a, int key);
/* Returns every value of option key in order (argv's strings; the array
 * belongs to a), and sets *n to their count (0 and NULL: none). */
const char *const *dtk_args_list(const struct dtk_args *a, int key, size_t *n);

/* Returns 1 when argv (argv[0] is the command's name), parsed with the options ctx->cmd declares, holds -h
 * or --help as an option (before a "--"; not as an option's value: in 'add
 * --title -h' it is the title). Unknown options are passed over here: the
 * command reports them. */
int dtk_args_wants_help(const struct dtk_ctx *ctx, int argc, char **argv);
/* Writes the usage line of cmd (its .usage, or made from .opts) to f. */
void dtk_args_usage(const struct dtk_cmd *cmd, FILE *f);
/* Writes the lines of cmd's .opts for --help to f, one column for the help. */
void dtk_args_help(const struct dtk_cmd *cmd, FILE *f);

/* Returns the index of value among the n choices; or prints "<opt> must be
 * a, b or c, not 'value'" (with a did-you-mean when one is close) and
 * returns -1. */
int dtk_cmd_choice(struct dtk_ctx *ctx, const char *opt, const char *value,
                   const char *const *choices, size_t n);

/* The one rule for a date of something that happened (add --created,
 * review --date, add-source --read, a crystallization's --date): returns 0
 * when date (a dtk_date) is not after today or allow (--allow-future) is
 * set; else prints "dtk <cmd>: error: [<opt> ]the date D is after today (T)
 * [; why]: pass --allow-future if you mean it" and returns -1. */
int dtk_cmd_not_future(struct dtk_ctx *ctx, const char *opt, int date, int allow, const char *why);

/* Refuses two options given together when both are set: prints "<a> and <b>
 * cannot be used together[: why]"; returns -1, or 0 when not both are set. */
int dtk_cmd_conflict(struct dtk_ctx *ctx, int has_a, const char *a, int has_b, const char *b,
                     const char *why);

/* ---- terminal output ---- */

/* The values of --color, in order. */
enum { DTK_COLOR_AUTO, DTK_COLOR_ALWAYS, DTK_COLOR_NEVER };
extern const char *const dtk_color_names[4];

/* Returns 1 when output is to be coloured: always; never; auto when
 * ctx->tty and NO_COLOR is unset or empty. */
int dtk_cmd_use_color(const struct dtk_ctx *ctx, int when);

/* Sends the rest of standard output through the pager (pager.h) unless
 * ctx->no_pager; the dispatcher waits for it when the command returns. A
 * command calls it once its arguments are checked, before long output.
 * Returns 1 when a pager runs, else 0. */
int dtk_cmd_pager(struct dtk_ctx *ctx);

/* Loads the base at ctx->root for ctx->cmd (what and node as for
 * dtk_kb_load): for a DTK_CMD_READ_ONLY command with ctx->hold, the held
 * base, as its files are now (one that does not load whole, or lacks the
 * node of DTK_KB_ONE_NODE, is loaded as asked). Returns DTK_EXIT_OK and sets *kb (dtk_cmd_unload),
 * or the exit status after printing every error of the data, or why it cannot be read. */
struct dtk_kb;
struct dtk_kb_hold;
int dtk_cmd_load(struct dtk_ctx *ctx, struct dtk_kb **kb, int what, const char *node);

/* With ctx->hold (dtk mcp): sets *kb to the held base (made at the first
 * call), as its files are now, and returns 0; returns -1 (*kb NULL) without
 * a hold or when the base does not load whole (nothing said: the command
 * loads as it asks, and says why). The base is not to be changed;
 * dtk_cmd_unload leaves it. */
int dtk_cmd_held(struct dtk_ctx *ctx, struct dtk_kb **kb);
/* Frees kb of dtk_cmd_load (NULL: nothing), unless it is the held base. */
void dtk_cmd_unload(struct dtk_ctx *ctx, struct dtk_kb *kb);

#endif
