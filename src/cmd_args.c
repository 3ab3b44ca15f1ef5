/* cmd_args.c: not a command but the dispatcher's parser of the options a
 * command declares (struct dtk_opt, cmd.h), and the usage line and the
 * options of --help made from them. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument errors ---- */

int dtk_cmd_usage_error(struct dtk_ctx *ctx, const char *fmt, ...)
{
	const char *cmd = ctx->cmd ? ctx->cmd->name : NULL;
	struct dtk_buf b = DTK_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	dtk_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	/* one line: an argument's newline or control byte is escaped */
	fprintf(ctx->err, "dtk%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "",
	        dtk_esc(dtk_buf_cstr(&b)));
	dtk_buf_release(&b);
	return dtk_cmd_usage_see(ctx);
}

int dtk_cmd_usage_see(struct dtk_ctx *ctx)
{
	const char *cmd = ctx->cmd ? ctx->cmd->name : NULL;

	fprintf(ctx->err, "see 'dtk%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
	return DTK_EXIT_INVALID;
}

/* Returns the long options' names whose start is the n bytes of name
 * (all of them when n is 0); sets *exact to the one equal to it, if any.
 * The array (not the names) is malloc'd. */
static const char **S_long_names(const struct option *lo, const char *name, size_t n, size_t *count,
                                 const char **exact)
{
	const char **v;
	size_t k = 0, i;

	for (i = 0; lo && lo[i].name; i++)
		;
	v = dtk_xcalloc(i + 1, sizeof(*v));
	*exact = NULL;
	for (i = 0; lo && lo[i].name; i++) {
		if (strncmp(lo[i].name, name, n))
			continue;
		if (strlen(lo[i].name) == n)
			*exact = lo[i].name;
		v[k++] = lo[i].name;
	}
	*count = k;
	return v;
}

/* Reports what getopt_long refused in the long option arg ("--name[=v]"). */
static int S_bad_long(struct dtk_ctx *ctx, const char *arg, int missing, const struct option *lo)
{
	const char *name = arg + 2, *eq = strchr(name, '='), *exact, *hint;
	size_t n = eq ? (size_t)(eq - name) : strlen(name), count, i;
	const char **v = S_long_names(lo, name, n, &count, &exact);
	char *word = dtk_xstrndup(name, n);
	struct dtk_buf b = DTK_BUF_INIT;

	if (missing) {
		dtk_buf_printf(&b, "option '--%s' needs a value", exact ? exact : v[0]);
	} else if (exact || count == 1) {
		dtk_buf_printf(&b, "option '--%s' takes no value", exact ? exact : v[0]);
	} else if (count > 1) {
		dtk_buf_printf(&b, "option '--%s' is ambiguous; it could be", word);
		for (i = 0; i < count; i++)
			dtk_buf_printf(&b, "%s '--%s'",
			               i == 0           ? ""
			               : i + 1 == count ? " or"
			                                : ",",
			               v[i]);
	} else {
		free(v);
		v = S_long_names(lo, "", 0, &count, &exact);
		hint = dtk_suggest(word, v, count);
		dtk_buf_printf(&b, "unknown option '--%s'", word);
		if (hint)
			dtk_buf_printf(&b, "; did you mean '--%s'?", hint);
	}
	dtk_cmd_usage_error(ctx, "%s", b.ptr);
	dtk_buf_release(&b);
	free(word);
	free(v);
	return '?';
}

static int S_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Returns 1 when arg has the shape of an option ("-x", "--name[=value]"),
 * 0 when it can only be an operand that starts with '-' ("- item", "-5%"). */
static int S_option_shaped(const char *arg)
{
	const char *p = arg + 2;

	if (arg[1] != '-') { /* a cluster of letters */
		for (p = arg + 1; S_alnum(*p) && !(*p >= '0' && *p <= '9'); p++)
			;
		return p > arg + 1 && !*p;
	}
	if (!S_alnum(*p))
		return 0;
	while (S_alnum(*p) || *p == '-')
		p++;
	return !*p || *p == '=';
}

/* Returns the argument of argv (before a "--") whose cluster of short
 * options holds the letter c, unknown to shortopts, or "". */
static const char *S_short_arg(int argc, char **argv, const char *shortopts, int c)
{
	const char *p, *o;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (argv[i][0] != '-' || argv[i][1] == '-' || !argv[i][1])
			continue;
		for (p = argv[i] + 1; *p; p++) {
			o = *p == ':' ? NULL : strchr(shortopts, *p);
			if (!o && *p == (char)c)
				return argv[i];
			if (!o || o[1] == ':') /* another error, or the rest is a value */
				break;
		}
	}
	return "";
}

/* Prints the error for arg, an argument that starts with '-' and that no
 * option has the shape of: an operand, which must follow "--". */
static void S_dash_operand(struct dtk_ctx *ctx, const char *arg)
{
	dtk_cmd_usage_error(ctx,
	                    "'%s' is not an option: put '--' before an argument that starts "
	                    "with '-' ('--' ends the options)",
	                    arg);
}

void dtk_cmd_note(struct dtk_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->quiet)
		return;
	va_start(ap, fmt);
	vfprintf(ctx->err, fmt, ap);
	va_end(ap);
}

/* The codes of the options every command takes. */
enum { S_OPT_QUIET = 0x7f00, S_OPT_NO_PAGER };

/* Makes ctx quiet: its output goes to a null stream (dtk_cmd_run puts the
 * command's own back). */
static void S_quiet(struct dtk_ctx *ctx)
{
	FILE *null;

	if (ctx->quiet)
		return;
	ctx->quiet = 1;
	if ((null = fopen("/dev/null", "w"))) {
		ctx->loud = ctx->out;
		ctx->out = null;
	}
}

/* Room for the options of one command and those every command takes. */
#define S_MAX_OPTIONS 64

/* Sets all (S_MAX_OPTIONS) to the long options ctx->cmd declares and those
 * every command takes, and opts (S_MAX_OPTIONS bytes) to the short ones as
 * getopt_long takes them; with help, -h and --help too. Returns all. */
static const struct option *S_options(const struct dtk_ctx *ctx, int help, struct option *all,
                                      char *opts)
{
	const struct dtk_opt *d = ctx->cmd->opts;
	char shorts[S_MAX_OPTIONS - 4] = "" /* room for ":qh" */, *s = shorts;
	size_t k = 0;

	for (; d && d->name; d++) { /* declared: as getopt_long takes them */
		if (k + 4 >= S_MAX_OPTIONS || s + 4 >= shorts + sizeof(shorts))
			abort();
		all[k++] = (struct option){d->name,
		                           d->type == DTK_OPT_FLAG       ? no_argument
		                           : d->type == DTK_OPT_OPTIONAL ? optional_argument
		                                                         : required_argument,
		                           NULL, d->key};
		if (d->flags & DTK_OPT_SHORT) {
			*s++ = (char)d->key;
			if (d->type)
				*s++ = ':';
			if (d->type == DTK_OPT_OPTIONAL)
				*s++ = ':';
		}
	}
	all[k++] = (struct option){"quiet", no_argument, NULL, S_OPT_QUIET};
	if (ctx->flags & DTK_CMD_PAGES)
		all[k++] = (struct option){"no-pager", no_argument, NULL, S_OPT_NO_PAGER};
	if (help)
		all[k++] = (struct option){"help", no_argument, NULL, 'h'};
	all[k] = (struct option){NULL, 0, NULL, 0};
	snprintf(opts, S_MAX_OPTIONS, ":q%s%s", help ? "h" : "", shorts);
	return all;
}

/* getopt_long over the options ctx->cmd declares (argv[0] is its name),
 * with dtk's own messages: returns the option as getopt_long does, -1 after
 * the last, or '?' after printing the usage error for an unknown, ambiguous
 * or misused option or one missing its value. Starts over when optind is
 * 0. Handles -q and --no-pager itself (dtk_args_parse). */
static int S_getopt(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct option all[S_MAX_OPTIONS];
	char opts[S_MAX_OPTIONS];
	const struct option *longopts = S_options(ctx, 0, all, opts);
	const char *shortopts = opts + 2, *arg, *exact;
	const char **v;
	size_t count;
	int c;

	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, opts, longopts, NULL);
		if (c == 'q' || c == S_OPT_QUIET)
			S_quiet(ctx);
		else if (c == S_OPT_NO_PAGER)
			ctx->no_pager = 1;
		else
			break;
	}
	if (c != '?' && c != ':')
		return c;
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (!strncmp(arg, "--", 2) && arg[2]) {
		if (c != ':' && !S_option_shaped(arg)) {
			S_dash_operand(ctx, arg);
			return '?';
		}
		return S_bad_long(ctx, arg, c == ':', longopts);
	}
	if (c == ':') {
		dtk_cmd_usage_error(ctx, "option '-%c' needs a value", optopt);
		return '?';
	}
	/* the argument the unknown letter is in: getopt may be inside it */
	arg = S_short_arg(argc, argv, shortopts, optopt);
	if (*arg && !S_option_shaped(arg)) {
		S_dash_operand(ctx, arg);
		return '?';
	}
	/* an unknown letter: name the long option it may stand for */
	v = S_long_names(longopts, (char[]){(char)optopt, 0}, 1, &count, &exact);
	if (count == 1 && optopt > ' ' && optopt < 127)
		dtk_cmd_usage_error(ctx, "unknown option '-%c'; did you mean '--%s'?", optopt,
		                    v[0]);
	else
		dtk_cmd_usage_error(ctx, "unknown option '-%c'", optopt);
	free(v);
	return '?';
}

int dtk_cmd_choice(struct dtk_ctx *ctx, const char *opt, const char *value,
                   const char *const *choices, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const char *hint;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(value, choices[i]))
			return (int)i;
	hint = dtk_suggest(value, choices, n);
	dtk_buf_printf(&b, "%s must be ", opt);
	for (i = 0; i < n; i++)
		dtk_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i]);
	dtk_buf_printf(&b, ", not '%s'", value);
	if (hint)
		dtk_buf_printf(&b, "; did you mean '%s'?", hint);
	dtk_cmd_usage_error(ctx, "%s", b.ptr);
	dtk_buf_release(&b);
	return -1;
}

int dtk_cmd_not_future(struct dtk_ctx *ctx, const char *opt, int date, int allow, const char *why)
{
	char d[16], t[16];

	if (allow || date <= dtk_date_today())
		return 0;
	fprintf(ctx->err,
	        "dtk %s: error: %s%sthe date %s is after today (%s)%s%s: pass --allow-future if "
	        "you mean it\n",
	        ctx->cmd->name, opt ? opt : "", opt ? ": " : "", dtk_date_format(d, date),
	        dtk_date_format(t, dtk_date_today()), why ? "; " : "", why ? why : "");
	return -1;
}

int dtk_cmd_conflict(struct dtk_ctx *ctx, int has_a, const char *a, int has_b, const char *b,
                     const char *why)
{
	if (!has_a || !has_b)
		return 0;
	dtk_cmd_usage_error(ctx, "%s and %s cannot be used together%s%s", a, b, why ? ": " : "",
	                    why ? why : "");
	return -1;
}

int dtk_args_wants_help(const struct dtk_ctx *ctx, int argc, char **argv)
{
	struct option all[S_MAX_OPTIONS];
	char opts[S_MAX_OPTIONS], **copy = dtk_xcalloc((size_t)argc + 1, sizeof(*copy));
	int c, help = 0;

	S_options(ctx, 1, all, opts);
	memcpy(copy, argv, (size_t)argc * sizeof(*copy)); /* getopt permutes it */
	opterr = 0;
	optind = 0;
	while (!help && (c = getopt_long(argc, copy, opts, all, NULL)) != -1)
		help = c == 'h';
	optind = 0;
	free(copy);
	return help;
}

/* The value of one declared option (its first entry: aliases share it). */
struct dtk_args_val {
	int count;         /* times given */
	int pos;           /* where the last was among the options given */
	const char *str;   /* the last value */
	long num;          /* INT, CHOICE (index), DATE */
	const char **list; /* LIST: every value */
	size_t n, cap;
};

/* Returns the index in cmd->opts of the first option with key, or -1. */
static int S_index(const struct dtk_cmd *cmd, int key)
{
	int i;

	for (i = 0; cmd->opts && cmd->opts[i].name; i++)
		if (cmd->opts[i].key == key)
			return i;
	return -1;
}

/* Returns how many choices o has. */
static size_t S_n_choices(const struct dtk_opt *o)
{
	size_t n = 0;

	while (o->choices && o->choices[n])
		n++;
	return n;
}

/* Stores and converts v, the value of option i; returns 0, or -1 after
 * printing the usage error. */
static int S_value(struct dtk_ctx *ctx, struct dtk_args *a, int i, const char *v, int pos)
{
	const struct dtk_opt *o = &a->cmd->opts[i];
	struct dtk_args_val *x = &a->v[i];
	dtk_date d;
	char opt[80], *end;
	long n;

	snprintf(opt, sizeof(opt), "--%s", o->name);
	x->count++;
	x->pos = pos;
	x->str = v;
	switch (o->type) {
	case DTK_OPT_FLAG:
	case DTK_OPT_STRING:
	case DTK_OPT_OPTIONAL: return 0;
	case DTK_OPT_LIST:
		dtk_grow((void **)&x->list, &x->cap, x->n + 2, sizeof(*x->list));
		x->list[x->n++] = v;
		x->list[x->n] = NULL;
		return 0;
	case DTK_OPT_INT:
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || *end || end == v || n < 1)
			return dtk_cmd_usage_error(ctx, "%s must be a positive number, not '%s'",
			                           opt, v),
			       -1;
		x->num = n;
		return 0;
	case DTK_OPT_CHOICE:
		x->num = dtk_cmd_choice(ctx, opt, v, o->choices, S_n_choices(o));
		return x->num < 0 ? -1 : 0;
	case DTK_OPT_DATE:
		if (dtk_date_parse(&d, v) < 0)
			return dtk_cmd_usage_error(ctx, "%s must be a date (YYYY-MM-DD), not '%s'",
			                           opt, v),
			       -1;
		x->num = d;
		return 0;
	}
	return 0;
}

/* Checks the required options and the conflicts of a; returns 0, or -1
 * after printing the usage error. */
static int S_check(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const struct dtk_cmd *cmd = a->cmd;
	const struct dtk_opt_conflict *c;
	char x[80], y[80];
	int i;

	for (i = 0; cmd->opts && cmd->opts[i].name; i++)
		if ((cmd->opts[i].flags & DTK_OPT_REQUIRED) && !a->v[i].count)
			return dtk_cmd_usage_error(ctx, "missing --%s", cmd->opts[i].name), -1;
	for (c = cmd->conflicts; c && c->a; c++) {
		snprintf(x, sizeof(x), "--%s", cmd->opts[S_index(cmd, c->a)].name);
		snprintf(y, sizeof(y), "--%s", cmd->opts[S_index(cmd, c->b)].name);
		if (dtk_cmd_conflict(ctx, dtk_args_has(a, c->a), x, dtk_args_has(a, c->b), y,
		                     c->why) < 0)
			return -1;
	}
	return 0;
}

/* Returns the operands a's command takes as they were given: the .operands
 * of the first option given that has them, else the command's. */
static const char *S_decl(const struct dtk_args *a)
{
	const struct dtk_opt *o;

	for (o = a->cmd->opts; o && o->name; o++)
		if (o->operands && dtk_args_has(a, o->key))
			return o->operands;
	return a->cmd->operands;
}

/* Checks the operands of a against the declaration (cmd.h, .operands):
 * "missing <what is left>" (one placeholder and none given: without its
 * "..."), "unexpected argument 'x'"; then a DTK_CMD_ACTION's action, its
 * index set in a->action. Returns 0, or -1 after the usage error. */
static int S_operands(struct dtk_ctx *ctx, struct dtk_args *a)
{
	const char *decl = S_decl(a), *p = decl ? decl : "", *v[16];
	char words[128], *w, *save;
	int n = 0, min = 0, i;
	size_t k = 0;

	if (a->cmd->flags & DTK_CMD_OWN_OPERANDS)
		return 0;
	for (; *p; p += strspn(p, " "), n++) {
		if (*p == '<')
			min = n + 1;
		p += strcspn(p, " ");
	}
	if (a->argc > n && !(decl && strstr(decl, "...")))
		return dtk_cmd_usage_error(ctx, "unexpected argument '%s'", a->argv[n]), -1;
	for (p = decl, i = 0; a->argc < min && i < a->argc; i++)
		p = strchr(p, ' ') + 1;
	if (min && !a->argc && (a->cmd->flags & DTK_CMD_ACTION))
		return dtk_cmd_usage_error(ctx, "missing <action>%s", p + strcspn(p, " ")), -1;
	if (a->argc < min)
		return dtk_cmd_usage_error(
		               ctx, "missing %.*s",
		               (int)(a->argc || strchr(p, ' ') ? strlen(p) : strcspn(p, ".")), p),
		       -1;
	if (!(a->cmd->flags & DTK_CMD_ACTION))
		return 0;
	snprintf(words, sizeof(words), "%.*s", (int)strcspn(decl + 1, ">"), decl + 1);
	for (w = strtok_r(words, "|", &save); w && k < 16; w = strtok_r(NULL, "|", &save))
		v[k++] = w;
	return (a->action = dtk_cmd_choice(ctx, "<action>", a->argv[0], v, k)) < 0 ? -1 : 0;
}

int dtk_args_parse(struct dtk_ctx *ctx, int argc, char **argv, struct dtk_args *a)
{
	size_t n = 0;
	int c, i, pos = 0;

	while (ctx->cmd->opts && ctx->cmd->opts[n].name)
		n++;
	memset(a, 0, sizeof(*a));
	a->cmd = ctx->cmd;
	a->v = dtk_xcalloc(n + 1, sizeof(*a->v));
	optind = 0;
	while ((c = S_getopt(ctx, argc, argv)) != -1) {
		i = S_index(a->cmd, c);
		if (c == '?' || i < 0 || S_value(ctx, a, i, optarg, ++pos) < 0)
			goto fail;
	}
	a->nargs = argc - 1;
	a->argc = argc - optind;
	a->argv = argv + optind;
	if (S_check(ctx, a) < 0 || S_operands(ctx, a) < 0)
		goto fail;
	return 0;
fail:
	dtk_args_release(a);
	return -1;
}

void dtk_args_release(struct dtk_args *a)
{
	size_t i;

	if (!a || !a->v)
		return;
	for (i = 0; a->cmd->opts && a->cmd->opts[i].name; i++)
		free(a->v[i].list);
	free(a->v);
	a->v = NULL;
}

/* Returns the value of option key in a, or NULL when a has none. */
static const struct dtk_args_val *S_val(const struct dtk_args *a, int key)
{
	int i = a && a->v ? S_index(a->cmd, key) : -1;
	return i < 0 ? NULL : &a->v[i];
}

int dtk_args_has(const struct dtk_args *a, int key)
{
	const struct dtk_args_val *x = S_val(a, key);
	return x ? x->count : 0;
}

const char *dtk_args_str(const struct dtk_args *a, int key)
{
	const struct dtk_args_val *x = S_val(a, key);
	return x ? x->str : NULL;
}

long dtk_args_int(const struct dtk_args *a, int key, long def)
{
	const struct dtk_args_val *x = S_val(a, key);
	return x && x->count ? x->num : def;
}

int dtk_args_pos(const struct dtk_args *a, int key)
{
	const struct dtk_args_val *x = S_val(a, key);
	return x ? x->pos : 0;
}

const char *const *dtk_args_list(const struct dtk_args *a, int key, size_t *n)
{
	const struct dtk_args_val *x = S_val(a, key);
	*n = x ? x->n : 0;
	return x ? x->list : NULL;
}

/* ---- usage and help ---- */

/* Appends the value of o as usage and help show it ("N", "a|b|c"). */
static void S_arg(struct dtk_buf *b, const struct dtk_opt *o)
{
	size_t i;

	if (o->type == DTK_OPT_FLAG)
		return;
	if (o->type == DTK_OPT_OPTIONAL) {
		dtk_buf_printf(b, "[=%s]", o->arg ? o->arg : "V");
		return;
	}
	dtk_buf_puts(b, " ");
	if (o->arg || !o->choices) {
		dtk_buf_puts(b, o->arg ? o->arg : "V");
		return;
	}
	for (i = 0; i < S_n_choices(o); i++)
		dtk_buf_printf(b, "%s%s", i ? "|" : "", o->choices[i]);
}

/* Returns 1 when o is another name of the option before it. */
static int S_alias(const struct dtk_opt *opts, size_t i)
{
	return i > 0 && !opts[i].help && opts[i].key == opts[i - 1].key;
}

/* The widest line of usage (without its break). */
#define S_WIDTH 80

void dtk_args_usage(const struct dtk_cmd *cmd, FILE *f)
{
	const struct dtk_opt *o = cmd->opts;
	struct dtk_buf w = DTK_BUF_INIT;
	size_t i, indent = strlen("usage: dtk  ") + strlen(cmd->name), col;

	if (cmd->usage || !o) {
		fputs(cmd->usage ? cmd->usage : "", f);
		return;
	}
	fprintf(f, "dtk %s", cmd->name);
	col = indent - 1;
	for (i = 0;; i++) {
		w.len = 0;
		if (o[i].name && S_alias(o, i))
			continue;
		if (o[i].name) {
			int req = o[i].flags & (DTK_OPT_REQUIRED | DTK_OPT_NEEDED);
			dtk_buf_printf(&w, "%s--%s", req ? "" : "[", o[i].name);
			S_arg(&w, &o[i]);
			dtk_buf_printf(&w, "%s%s", req ? "" : "]",
			               o[i].type == DTK_OPT_LIST ? "..." : "");
		} else if (cmd->operands) {
			dtk_buf_puts(&w, cmd->operands);
		}
		if (w.len && col + 1 + w.len > S_WIDTH) {
			fprintf(f, "\n%*s%s", (int)indent, "", w.ptr);
			col = indent + w.len;
		} else if (w.len) {
			fprintf(f, " %s", w.ptr);
			col += 1 + w.len;
		}
		if (!o[i].name)
			break;
	}
	dtk_buf_release(&w);
}

/* The widest option that has its help beside it, and the help's column
 * at the least (that of every write command's options). */
#define S_LABEL 16
#define S_COLUMN 19

/* Sets b to the left column of option i ("-n, --node N, --alias"). */
static void S_label(struct dtk_buf *b, const struct dtk_opt *o, size_t i)
{
	b->len = 0;
	if (o[i].flags & DTK_OPT_SHORT)
		dtk_buf_printf(b, "-%c, ", o[i].key);
	dtk_buf_printf(b, "--%s", o[i].name);
	S_arg(b, &o[i]);
	for (i++; o[i].name && S_alias(o, i); i++)
		dtk_buf_printf(b, ", --%s", o[i].name);
}

void dtk_args_help(const struct dtk_cmd *cmd, FILE *f)
{
	const struct dtk_opt *o = cmd->opts;
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, w = 0, col;
	const char *p, *nl;

	for (i = 0; o && o[i].name; i++) {
		if (S_alias(o, i) || !o[i].help)
			continue;
		S_label(&b, o, i);
		if (b.len <= S_LABEL && b.len > w)
			w = b.len;
	}
	col = 2 + w + 2 < S_COLUMN ? S_COLUMN : 2 + w + 2;
	for (i = 0; o && o[i].name; i++) {
		if (S_alias(o, i) || !o[i].help)
			continue;
		S_label(&b, o, i);
		if (!*o[i].help) /* the label says it all */
			fprintf(f, "  %s\n", b.ptr);
		else if (b.len > S_LABEL)
			fprintf(f, "  %s\n%*s", b.ptr, (int)col, "");
		else
			fprintf(f, "  %-*s", (int)(col - 2), b.ptr);
		for (p = o[i].help; *p && (nl = strchr(p, '\n')); p = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - p), p, (int)col, "");
		if (*o[i].help)
			fprintf(f, "%s\n", p);
	}
	dtk_buf_release(&b);
}
