/* test_args.c: the parser of the options commands declare (struct dtk_opt):
 * types, required options, conflicts, the errors, and --help made from the
 * declaration, through dtk_cmd_run as every command runs. */
#include "support.h"

#include "dtk/cmd.h"
#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const S_formats[] = {"text", "json", NULL};

static const struct dtk_opt S_opts[] = {
        {"title", 't', DTK_OPT_STRING, .arg = "T", .help = "the title"},
        {"limit", 'l', DTK_OPT_INT, .arg = "N", .help = "at most N"},
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .choices = S_formats,
         .help = "text or json"},
        {"since", 's', DTK_OPT_DATE, .arg = "D", .help = "on or after D"},
        {"relates", 'r', DTK_OPT_LIST, .arg = "ID", .help = "a related entry\n(repeat for more)"},
        {"nodes", 'N', DTK_OPT_FLAG, .help = "the nodes"},
        {"include-retired", 'R', DTK_OPT_FLAG, .help = "retired ones too"},
        {"all", 'R', DTK_OPT_FLAG, .help = NULL}, /* another name */
        {0}};

static const struct dtk_opt_conflict S_conflicts[] = {{'N', 'l', "--nodes lists nodes"}, {0}};

/* What the last run was given. */
static struct {
	int ran, argc, retired, nodes, action;
	char title[64], argv0[64], relates[64];
	long limit, format, since;
} S_got;

static int S_record(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *const *v;
	size_t n, i;

	(void)ctx;
	memset(&S_got, 0, sizeof(S_got));
	S_got.ran = 1;
	S_got.argc = a->argc;
	S_got.action = a->action;
	snprintf(S_got.argv0, sizeof(S_got.argv0), "%s", a->argc ? a->argv[0] : "");
	snprintf(S_got.title, sizeof(S_got.title), "%s",
	         dtk_args_str(a, 't') ? dtk_args_str(a, 't') : "(null)");
	S_got.limit = dtk_args_int(a, 'l', 10);
	S_got.format = dtk_args_int(a, 'f', -1);
	S_got.since = dtk_args_int(a, 's', 0);
	S_got.nodes = dtk_args_has(a, 'N');
	S_got.retired = dtk_args_has(a, 'R');
	v = dtk_args_list(a, 'r', &n);
	for (i = 0; i < n; i++)
		snprintf(S_got.relates + strlen(S_got.relates),
		         sizeof(S_got.relates) - strlen(S_got.relates), "%s%s", i ? "," : "", v[i]);
	return DTK_EXIT_OK;
}

static const struct dtk_cmd S_cmd = {
        .name = "t",
        .summary = "a test command",
        .help = "\nIt records what it was given.\n",
        .opts = S_opts,
        .conflicts = S_conflicts,
        .operands = "[<x>] [<y>]",
        .examples = "examples:\n  dtk t --title T\n",
        .run = S_record,
};

static const struct dtk_opt S_req_opts[] = {
        {"node", 'n', DTK_OPT_STRING, DTK_OPT_REQUIRED, .arg = "N", .help = "the node"}, {0}};

static const struct dtk_cmd S_req = {
        .name = "req",
        .summary = "a command with a required option",
        .help = "\n",
        .opts = S_req_opts,
        .operands = "<x>",
        .run = S_record,
};

/* Operands that are an action and items (none with --all: the action only),
 * and a command whose operands are one placeholder repeated. */
static const struct dtk_opt S_act_opts[] = {
        {"all", 'a', DTK_OPT_FLAG, .help = "every item", .operands = "<add|drop>"}, {0}};

static const struct dtk_cmd S_act = {
        .name = "t",
        .summary = "a command with an action",
        .help = "\n",
        .flags = DTK_CMD_ACTION,
        .opts = S_act_opts,
        .operands = "<add|drop> <item>...",
        .run = S_record,
};

static const struct dtk_cmd S_many = {
        .name = "t",
        .summary = "a command of many operands",
        .help = "\n",
        .operands = "<item>...",
        .run = S_record,
};

static const struct dtk_opt S_sign_opts[] = {
        {"sign", 'S', DTK_OPT_OPTIONAL, .arg = "KEYID", .help = "sign"},
        {"no-sign", 'G', DTK_OPT_FLAG, .help = "do not sign"},
        {0}};

/* What the last run of S_sign was given. */
static struct {
	int ran, nargs, pos_sign, pos_no;
	char key[64];
} S_sign_got;

static int S_sign_record(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	(void)ctx;
	S_sign_got.ran = 1;
	S_sign_got.nargs = a->nargs;
	S_sign_got.pos_sign = dtk_args_pos(a, 'S');
	S_sign_got.pos_no = dtk_args_pos(a, 'G');
	snprintf(S_sign_got.key, sizeof(S_sign_got.key), "%s",
	         dtk_args_str(a, 'S') ? dtk_args_str(a, 'S') : "(null)");
	return DTK_EXIT_OK;
}

static const struct dtk_cmd S_sign = {
        .name = "sign",
        .summary = "a command with an optional value",
        .help = "\n",
        .opts = S_sign_opts,
        .operands = "[<x>]",
        .run = S_sign_record,
};

/* The outcome of one run. */
struct out {
	int rc;
	char *out, *err;
	size_t n_out, n_err;
};

/* Runs cmd with the NULL-terminated arguments (after its name). */
static void S_run(struct out *o, const struct dtk_cmd *cmd, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	FILE *out, *err;
	struct dtk_ctx ctx;

	memset(o, 0, sizeof(*o));
	argv[argc++] = (char *)cmd->name;
	va_start(ap, cmd);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	out = open_memstream(&o->out, &o->n_out);
	err = open_memstream(&o->err, &o->n_err);
	assert_non_null(out);
	assert_non_null(err);
	memset(&ctx, 0, sizeof(ctx));
	ctx.out = out;
	ctx.err = err;
	memset(&S_got, 0, sizeof(S_got));
	o->rc = dtk_cmd_run(&ctx, cmd, argc, argv);
	fclose(out);
	fclose(err);
}

static void S_free(struct out *o)
{
	free(o->out);
	free(o->err);
}

/* Checks that o failed with exactly the usage error msg of command t. */
static void S_refused(struct out *o, const char *msg)
{
	char want[512];

	snprintf(want, sizeof(want), "dtk t: error: %s\nsee 'dtk t --help'\n", msg);
	assert_int_equal(o->rc, DTK_EXIT_INVALID);
	assert_string_equal(o->err, want);
	assert_string_equal(o->out, "");
	assert_int_equal(S_got.ran, 0);
	S_free(o);
}

static void test_types(void **state)
{
	struct out o;
	dtk_date d;

	(void)state;
	S_run(&o, &S_cmd, "--title", "T", "--limit", "5", "-f", "json", "--since", "2026-01-02",
	      "--relates", "a", "x", "--relates", "b", "--all", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_string_equal(o.err, "");
	assert_int_equal(S_got.ran, 1);
	assert_string_equal(S_got.title, "T");
	assert_int_equal(S_got.limit, 5);
	assert_int_equal(S_got.format, 1);
	assert_int_equal(dtk_date_parse(&d, "2026-01-02"), 0);
	assert_int_equal(S_got.since, d);
	assert_string_equal(S_got.relates, "a,b");
	assert_int_equal(S_got.retired, 1);
	assert_int_equal(S_got.nodes, 0);
	assert_int_equal(S_got.argc, 1);
	assert_string_equal(S_got.argv0, "x");
	S_free(&o);

	/* none given: the defaults */
	S_run(&o, &S_cmd, NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_string_equal(S_got.title, "(null)");
	assert_int_equal(S_got.limit, 10);
	assert_int_equal(S_got.format, -1);
	assert_string_equal(S_got.relates, "");
	assert_int_equal(S_got.argc, 0);
	S_free(&o);
}

static void test_equals_and_aliases(void **state)
{
	struct out o;

	(void)state;
	S_run(&o, &S_cmd, "--title=a=b", "--limit=3", "--format=text", "--include-retired", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_string_equal(S_got.title, "a=b");
	assert_int_equal(S_got.limit, 3);
	assert_int_equal(S_got.format, 0);
	assert_int_equal(S_got.retired, 1);
	S_free(&o);
	/* the last value of a string option wins */
	S_run(&o, &S_cmd, "--title", "a", "--title", "b", NULL);
	assert_string_equal(S_got.title, "b");
	S_free(&o);
}

static void test_help_as_value(void **state)
{
	struct out o;

	(void)state;
	/* -h as an option's value is the value, not a request for help */
	S_run(&o, &S_cmd, "--title", "-h", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.ran, 1);
	assert_string_equal(S_got.title, "-h");
	assert_string_equal(o.out, "");
	S_free(&o);
	S_run(&o, &S_cmd, "x", "-h", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.ran, 0);
	assert_non_null(strstr(o.out, "usage: dtk t "));
	S_free(&o);
}

static void test_operands(void **state)
{
	struct out o;

	(void)state;
	/* "--" ends the options */
	S_run(&o, &S_cmd, "--", "--limit", "-5%", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.argc, 2);
	assert_string_equal(S_got.argv0, "--limit");
	assert_int_equal(S_got.limit, 10);
	S_free(&o);
	/* an operand that starts with '-' needs "--" */
	S_run(&o, &S_cmd, "-5%", NULL);
	S_refused(&o, "'-5%' is not an option: put '--' before an argument that starts with '-' "
	              "('--' ends the options)");
	/* more operands than the command takes */
	S_run(&o, &S_cmd, "a", "b", "c", NULL);
	assert_int_equal(o.rc, DTK_EXIT_INVALID);
	assert_string_equal(o.err, "dtk t: error: unexpected argument 'c'\nsee 'dtk t --help'\n");
	S_free(&o);
}

/* The operands the entry declares are checked before the command runs. */
static void test_declared_operands(void **state)
{
	struct out o;

	(void)state;
	/* what is missing: what is left of the declaration; an action is <action> */
	S_run(&o, &S_act, NULL);
	S_refused(&o, "missing <action> <item>...");
	S_run(&o, &S_act, "add", NULL);
	S_refused(&o, "missing <item>...");
	S_run(&o, &S_many, NULL);
	S_refused(&o, "missing <item>");
	/* the action is one of the words of its placeholder; its index is given */
	S_run(&o, &S_act, "ad", "x", NULL);
	S_refused(&o, "<action> must be add or drop, not 'ad'; did you mean 'add'?");
	S_run(&o, &S_act, "drop", "x", "y", "z", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.action, 1);
	assert_int_equal(S_got.argc, 4);
	S_free(&o);
	/* an option that declares operands of its own replaces the command's */
	S_run(&o, &S_act, "--all", "add", "x", NULL);
	S_refused(&o, "unexpected argument 'x'");
	S_run(&o, &S_act, "--all", "drop", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.action, 1);
	S_free(&o);
}

static void test_errors(void **state)
{
	struct out o;

	(void)state;
	S_run(&o, &S_cmd, "--bogus", NULL);
	S_refused(&o, "unknown option '--bogus'");
	S_run(&o, &S_cmd, "--titel", "x", NULL);
	S_refused(&o, "unknown option '--titel'; did you mean '--title'?");
	S_run(&o, &S_cmd, "-x", NULL);
	S_refused(&o, "unknown option '-x'");
	S_run(&o, &S_cmd, "--limit", NULL);
	S_refused(&o, "option '--limit' needs a value");
	S_run(&o, &S_cmd, "-f", NULL);
	S_refused(&o, "option '-f' needs a value");
	S_run(&o, &S_cmd, "--nodes=yes", NULL);
	S_refused(&o, "option '--nodes' takes no value");
	S_run(&o, &S_cmd, "--limit", "x", NULL);
	S_refused(&o, "--limit must be a positive number, not 'x'");
	S_run(&o, &S_cmd, "--limit", "0", NULL);
	S_refused(&o, "--limit must be a positive number, not '0'");
	S_run(&o, &S_cmd, "--limit", "5x", NULL);
	S_refused(&o, "--limit must be a positive number, not '5x'");
	S_run(&o, &S_cmd, "--format", "jsno", NULL);
	S_refused(&o, "--format must be text or json, not 'jsno'; did you mean 'json'?");
	S_run(&o, &S_cmd, "--since", "2026-13-01", NULL);
	S_refused(&o, "--since must be a date (YYYY-MM-DD), not '2026-13-01'");
}

static void test_conflicts_and_required(void **state)
{
	struct out o;

	(void)state;
	S_run(&o, &S_cmd, "--nodes", "--limit", "3", NULL);
	S_refused(&o, "--nodes and --limit cannot be used together: --nodes lists nodes");
	S_run(&o, &S_cmd, "--nodes", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_int_equal(S_got.nodes, 1);
	S_free(&o);

	S_run(&o, &S_req, "x", NULL);
	assert_int_equal(o.rc, DTK_EXIT_INVALID);
	assert_string_equal(o.err, "dtk req: error: missing --node\nsee 'dtk req --help'\n");
	S_free(&o);
	S_run(&o, &S_req, "--node", "n", "x", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	S_free(&o);
}

static void test_help(void **state)
{
	struct out o;

	(void)state;
	S_run(&o, &S_cmd, "--help", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_string_equal(
	        o.out, "usage: dtk t [--title T] [--limit N] [--format text|json] [--since D]\n"
	               "             [--relates ID]... [--nodes] [--include-retired] [<x>] [<y>]\n"
	               "\n"
	               "a test command\n"
	               "\n"
	               "It records what it was given.\n"
	               "\n"
	               "options:\n"
	               "  --title T        the title\n"
	               "  --limit N        at most N\n"
	               "  -f, --format text|json\n"
	               "                   text or json\n"
	               "  --since D        on or after D\n"
	               "  --relates ID     a related entry\n"
	               "                   (repeat for more)\n"
	               "  --nodes          the nodes\n"
	               "  --include-retired, --all\n"
	               "                   retired ones too\n"
	               "\n"
	               "examples:\n"
	               "  dtk t --title T\n"
	               "\n"
	               "options of every command:\n"
	               "  -q, --quiet  print nothing but errors and warnings: nothing on standard\n"
	               "               output, no note of what was done (the exit status tells)\n"
	               "  -h, --help   print this help\n");
	S_free(&o);
	S_run(&o, &S_req, "-h", NULL);
	assert_non_null(strstr(o.out, "usage: dtk req --node N <x>\n"));
	S_free(&o);
}

static void test_optional_and_order(void **state)
{
	struct out o;

	(void)state;
	memset(&S_sign_got, 0, sizeof(S_sign_got));
	S_run(&o, &S_sign, "--sign=K", "--no-sign", "x", NULL);
	assert_int_equal(o.rc, DTK_EXIT_OK);
	assert_string_equal(S_sign_got.key, "K");
	assert_int_equal(S_sign_got.pos_sign, 1);
	assert_int_equal(S_sign_got.pos_no, 2);
	assert_int_equal(S_sign_got.nargs, 3);
	S_free(&o);
	/* without '=' the next argument is not its value */
	S_run(&o, &S_sign, "--no-sign", "--sign", "x", NULL);
	assert_string_equal(S_sign_got.key, "(null)");
	assert_int_equal(S_sign_got.pos_sign, 2);
	assert_int_equal(S_sign_got.pos_no, 1);
	S_free(&o);
	S_run(&o, &S_sign, NULL);
	assert_int_equal(S_sign_got.pos_sign, 0);
	assert_int_equal(S_sign_got.nargs, 0);
	S_free(&o);
	S_run(&o, &S_sign, "--help", NULL);
	assert_non_null(strstr(o.out, "usage: dtk sign [--sign[=KEYID]] [--no-sign] [<x>]\n"));
	assert_non_null(strstr(o.out, "  --sign[=KEYID]   sign\n"));
	S_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_types),
	        cmocka_unit_test(test_equals_and_aliases),
	        cmocka_unit_test(test_help_as_value),
	        cmocka_unit_test(test_operands),
	        cmocka_unit_test(test_declared_operands),
	        cmocka_unit_test(test_errors),
	        cmocka_unit_test(test_conflicts_and_required),
	        cmocka_unit_test(test_help),
	        cmocka_unit_test(test_optional_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
