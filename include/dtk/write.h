/*
 * write.h: the transaction of dtk's write commands (add, use, verify, ...).
 *
 * A command opens the files it changes (read and parsed once: yedit.h),
 * records its edits, and commits: the edits are spliced in, the WHOLE base
 * is loaded and validated with the new texts in place of the old ones
 * (dtk_kb_load with files over the base) before any byte is written; then each changed file and
 * INDEX.md (rebuilt from the base already loaded, as reindex would) are
 * replaced atomically, all or nothing (those replaced are put back when a
 * later one cannot be, or by the next write after a kill: fs.h's
 * dtk_file_commit_all), through directories opened from the root with no
 * link followed. On any error every file is left as it was (exit 2),
 * or the message names what was written (exit 1: not put back, not
 * synced). The
 * dispatcher holds the base's lock for the whole command (DTK_CMD_LOCKS), so
 * that read, validation and write are one step for other dtk runs.
 */
#ifndef DTK_WRITE_H
#define DTK_WRITE_H

#include "dtk/cmd.h"
#include "dtk/model.h"
#include "dtk/yedit.h"

/* The options every write command takes (see DTK_WRITE_OPTS). */
struct dtk_write_opts {
	int dry_run;    /* print the diff of every file, write nothing */
	int json;       /* --format json */
	int no_reindex; /* leave INDEX.md alone */
};

/* The keys of the common options (DTK_WRITE_OPTS). */
enum { DTK_WOPT_DRY_RUN = 0x100, DTK_WOPT_FORMAT, DTK_WOPT_NO_REINDEX };

/* The values of --format, NULL-terminated. */
extern const char *const dtk_write_formats[];

/* The declared options (struct dtk_opt) every write command takes, at the
 * end of its .opts; dtk_write_init reads them from ctx->args. */
/* clang-format off */
#define DTK_WRITE_OPTS \
	{"dry-run", DTK_WOPT_DRY_RUN, DTK_OPT_FLAG, \
	 .help = "print the diff of every file it would change; write nothing"}, \
	{"format", DTK_WOPT_FORMAT, DTK_OPT_CHOICE, .choices = dtk_write_formats, \
	 .help = "json: what was written, as 'dtk show --format json' shows it"}, \
	{"no-reindex", DTK_WOPT_NO_REINDEX, DTK_OPT_FLAG, .help = "do not rebuild INDEX.md"}

/* The options of a write command that dates what it does: --date D (its
 * help: text) and --allow-future (dtk_cmd_not_future's allow). */
#define DTK_WRITE_DATE_OPTS(text) \
	{"date", 'd', DTK_OPT_STRING, .arg = "D", .help = text}, \
	{"allow-future", 'F', DTK_OPT_FLAG, .help = "accept a --date after today"}
/* clang-format on */

/* The options of a write command that takes only those (use, cite). */
extern const struct dtk_opt dtk_write_opts[];

/* A file of insights/ the transaction changes. */
struct dtk_wfile {
	char *name; /* in insights/, e.g. "alpha.yaml" */
	char *rel;  /* "insights/alpha.yaml", as shown */
	char *real; /* the file written, from the root, every link resolved
	             * (a link inside the base is written through) */
	char *old;  /* its bytes; NULL for a file to create */
	size_t old_len;
	struct dtk_ydoc doc; /* old parsed (or a new text, to edit); record edits on it */
	char *text;          /* the new bytes (made at commit, or given) */
	size_t len;
};

struct dtk_write {
	struct dtk_ctx *ctx;
	const char *cmd; /* ctx->cmd's name, for messages */
	struct dtk_write_opts opts;
	struct dtk_wfile **files;
	size_t n_files, cap;
	struct dtk_kb *kb; /* after a commit: the base as written (full with json) */
	int high_min;      /* policy.high_min_verified once read; 0 before */
	/* Called by the commit once the base with the edits is loaded (full:
	 * claims and titles kept) and valid, in w->kb, before anything is
	 * written; a status other than DTK_EXIT_OK stops the commit, nothing
	 * written. NULL: none. */
	int (*check)(struct dtk_write *w, void *arg);
	void *check_arg;
};

/* Starts w for ctx->cmd; with ctx->args (a command that declares
 * DTK_WRITE_OPTS), w->opts as they were given. */
void dtk_write_init(struct dtk_write *w, struct dtk_ctx *ctx);
void dtk_write_release(struct dtk_write *w);

/* Returns insights/name read and parsed (once per transaction), or NULL
 * after printing why (a missing file: "no node"). */
struct dtk_wfile *dtk_write_open(struct dtk_write *w, const char *name);
/* Adds insights/name, which must not exist, with text (adopted: malloc'd).
 * Returns the file, or NULL after printing why. */
struct dtk_wfile *dtk_write_create(struct dtk_write *w, const char *name, char *text, size_t len);

/* Returns the mapping of list (a sequence: else none) whose key is s, or
 * NULL: an entry by its id, a category by its name. */
const struct dtk_yval *dtk_write_seq_find(const struct dtk_yval *list, const char *key,
                                          const char *s);

/* Returns the mapping of entry id in the node file f, or NULL after printing
 * "no entry" (opening the node file of the id). */
const struct dtk_yval *dtk_write_entry(struct dtk_write *w, const char *id, struct dtk_wfile **f);

/*
 * Applies the edits, validates the base with them and writes every changed
 * file and INDEX.md (or prints the diffs with --dry-run). Returns the exit
 * status after printing every error: DTK_EXIT_INVALID when nothing was
 * written, DTK_EXIT_DRIFT when something was (the message says what).
 */
int dtk_write_commit(struct dtk_write *w);

/* Prints the outcome of a commit: text lines (each of lines, when not
 * NULL), or with --format json an array of the entries ids (n) as 'dtk
 * show' prints them; run by dtk mcp (dtk_json_tight), {"entries": [...]}
 * without their referenced_by, the tool's result as it is. */
void dtk_write_print_entries(struct dtk_write *w, const char *const *ids, size_t n,
                             const char *lines);

/* Edits entry e (id, in file f) for a command naming it times times on its
 * command line; appends the line text output shows to lines. Returns
 * DTK_EXIT_OK, or the exit status after printing why. */
typedef int (*dtk_write_edit_fn)(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                                 const char *id, size_t times, struct dtk_buf *lines, void *arg);
/* Runs a command over the entry ids argv[first..argc) (each once, however
 * often named): fn edits each, then the commit, then the output (json: an
 * array of the entries). Returns the exit status. */
int dtk_write_each(struct dtk_write *w, int argc, char **argv, int first, dtk_write_edit_fn fn,
                   void *arg);

/* The run of a command that only edits the entries argv[0..argc) with fn
 * (close, unrelate, unverify): dtk_write_each in a transaction of its own.
 * Returns the exit status. */
int dtk_write_entries(struct dtk_ctx *ctx, int argc, char **argv, dtk_write_edit_fn fn, void *arg);

/* The run of a command on two entries, <entry-id> (named what_id) and
 * another (named what; with retired, not a retired one: a link to it),
 * both of this base (dtk_write_known_pair), that edits the first with fn
 * (relate, contradict, supersede). Returns the exit status. */
int dtk_write_pair(struct dtk_ctx *ctx, const char *what_id, const char *what, int retired,
                   dtk_write_edit_fn fn, void *arg);

/* The run of dtk use and dtk cite: adds to the counter of each entry named
 * by the operands of a, the command's name as done (used, cited). Returns
 * the exit status. */
int dtk_write_counter(struct dtk_ctx *ctx, const struct dtk_args *a);

/* Returns policy.high_min_verified of _domain.yaml (2 by default; read once
 * a transaction), or -1 after printing why the file cannot be read. */
int dtk_write_high_min(struct dtk_write *w);
/* Checks the name of a new node or source (what: "node name") and opt, the
 * option it needs (val its value): returns 0, or -1 after the usage error,
 * "'x' is not a <what> (lowercase letters, digits and '-')" or "missing
 * <opt>". */
int dtk_write_new_name(struct dtk_write *w, const char *what, const char *name, const char *opt,
                       const char *val);
/* Returns 1 when _sources.yaml has a source id, 0 when not, -1 after
 * printing why it cannot be read. */
int dtk_write_source_known(struct dtk_write *w, const char *id);

/* Prints the outcome of a commit that changed node name: line, or with
 * --format json the node as 'dtk show --format json' prints it (by dtk
 * mcp, its entries short: id, title, confidence). */
void dtk_write_print_node(struct dtk_write *w, const char *name, const char *line);
/* Returns the node file of name, read and parsed, or NULL after printing
 * why (not a name, no such node: with a suggestion). */
struct dtk_wfile *dtk_write_open_node(struct dtk_write *w, const char *name);
/* The whole of dtk bloom and dtk stance: sets node key (a key of the node
 * file's top mapping) of node name to v, commits, and prints "<name>: <key>
 * <v>" (or the node, with --format json). With text (what it is: "the
 * stance"), v is text, checked by dtk_write_check_text, and the line says
 * "<key> set". Returns the command's exit status. */
int dtk_write_node_key(struct dtk_ctx *ctx, const char *name, const char *key, struct dtk_yscalar v,
                       const char *text);

/* ---- command-line values that name what the base does not have ----
 * Prints "dtk <cmd>: error: <what> '<id>': no such entry[; did you mean
 * '<id>'?]" (an entry id of the base; with sources, the same of a source)
 * for each of ids[0..n) that names none, and returns how many did (-1 after
 * printing why a file cannot be read). An entry id of another domain
 * (<domain>:<id>) is not checked. The caller ends the list with
 * dtk_cmd_usage_see. */
int dtk_write_unknown(struct dtk_write *w, const char *what, const char *const *ids, size_t n,
                      int sources);

/* Returns "superseded by <id>" or "retracted" when entry e (a node file's
 * item) is retired, else NULL; the text is in buf. */
const char *dtk_write_retired(const struct dtk_yval *e, char *buf, size_t size);

/* Prints "dtk <cmd>: error: <what> '<id>' is retracted (or superseded by
 * X): a link to knowledge withdrawn" for each of ids[0..n) that names a
 * retired entry of the base (what dtk check warns of in a relates), and
 * returns how many did. */
int dtk_write_retired_links(struct dtk_write *w, const char *what, const char *const *ids,
                            size_t n);

/* The operands id (an entry id, its name what_id: "<entry-id>") and other
 * (named what: an entry id, or a source id when source is set) of relate,
 * contradict, resolve, supersede and verify: returns DTK_EXIT_OK when both
 * name what the base has, else the exit status after the errors about each
 * that does not. */
int dtk_write_known_pair(struct dtk_write *w, const char *what_id, const char *id, const char *what,
                         const char *other, int source);

/* Returns 0 when text s (NULL: none) of key ("title", "claim", ...) is not
 * blank and within its limit (dtk_text_limit); else DTK_EXIT_INVALID after
 * printing a usage error naming what (an option, or the key): "<what> must
 * not be blank", or both lengths. */
int dtk_write_check_text(struct dtk_write *w, const char *what, const char *key, const char *s);

/* Sets *e to the mapping of entry id of this base (NULL: none) and *fp to
 * its node file (NULL: no such node). Returns 1 when there is the entry, 0
 * when not (not an id of this base, no such node or entry), saying nothing;
 * -1 after printing why the node file cannot be read. */
int dtk_write_find(struct dtk_write *w, const char *id, const struct dtk_yval **e,
                   struct dtk_wfile **fp);
/* Formats into buf (11 bytes) the date of --date (DTK_WRITE_DATE_OPTS),
 * today when not given: the date of something that happened, so not after
 * today unless --allow-future (dtk_cmd_not_future). Returns 0, or -1 after
 * a usage error (not a date, or after today). */
int dtk_write_date(struct dtk_write *w, char *buf);
/* The same of arg (NULL: today), the value of option opt ("--created"). */
int dtk_write_date_of(struct dtk_write *w, const char *opt, const char *arg, char *buf);

/* Sets key keys[i] of m (an entry or a source of f; order: its keys'
 * order) to vals[i] for i < n, each given (not NULL) and not as it is, then
 * revised to date when one was; appends to what the keys set ("title,
 * claim"; none: nothing set). Returns DTK_EXIT_OK, or the exit status after
 * printing why. */
int dtk_write_revise(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *m,
                     const char *const *keys, const char *const *vals, size_t n,
                     const char *const *order, const char *date, struct dtk_buf *what);

/* Sets confidence_changed (today) and confidence_was (old; NULL: low) on
 * entry e of f, after its confidence was set: the month's events
 * (crystal.h). Returns 0, or -1 with the error set. */
int dtk_write_confidence_changed(struct dtk_write *w, struct dtk_wfile *f,
                                 const struct dtk_yval *e, const char *old);

/* Prints the JSON text b holds, ending in a line break, and releases b. */
void dtk_write_put_json(struct dtk_write *w, struct dtk_buf *b);

/* ---- the items of _domain.yaml a command names (gaps, hotspots) ---- */
/* Returns the index in list (a YAML sequence of mappings, or NULL) of the
 * item name names: its id, else a number, its place from 1; or -1 after
 * refusing "no <what> 'name'". */
long dtk_write_item(struct dtk_write *w, const struct dtk_yval *list, const char *what,
                    const char *name);
/* Writes to id (size bytes, at least strlen(prefix) + DTK_ID_SUFFIX_LEN + 2)
 * a fresh id "<prefix>-xxxxxxx" hashed from a, b and c (dtk_entry_id_birth),
 * one no item of list has: the same item added on two branches gets one id
 * (an entry's: prefix its node, list its node file's insights). */
void dtk_write_item_id(char *id, size_t size, const struct dtk_yval *list, const char *prefix,
                       const char *a, const char *b, const char *c);
/* Commits the edits of item id (e < 0: one failed, said instead) and prints
 * the outcome: "<id>: <action>", or with --format json {"id", "action"}
 * (nothing with --dry-run). Returns the exit status. */
int dtk_write_item_commit(struct dtk_write *w, int e, const char *id, const char *action);

/* Prints "dtk <cmd>: error: <fmt...>" on one line (its newlines and control
 * bytes escaped) and returns DTK_EXIT_INVALID: a refusal of what the command
 * was asked (nothing is written). */
int dtk_write_refuse(struct dtk_write *w, const char *fmt, ...) DTK_PRINTF(2, 3);

#endif
