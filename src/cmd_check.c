/* cmd_check.c: dtk check: the CI gate. Valid data, and INDEX.md in sync. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/git.h"
#include "dtk/index.h"
#include "dtk/kb.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* Prints the drift of INDEX.md (old) from what reindex writes (want). */
static int S_report_drift(struct dtk_ctx *ctx, const char *old, size_t old_len,
			  const char *want, int missing)
{
	char *diff = NULL;

	if (dtk_git_diff_buffers(&diff, old, old_len, want, strlen(want), DTK_INDEX_FILE) < 0)
		return dtk_cmd_fail(ctx, "check", DTK_EXIT_INVALID);
	fputs(diff, ctx->out);
	free(diff);
	fprintf(ctx->err, "dtk check: %s %s; run 'dtk reindex' and commit it\n",
		DTK_INDEX_FILE, missing ? "is missing" : "is out of date");
	return DTK_EXIT_DRIFT;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"quiet", no_argument, NULL, 'q'},
					     {NULL, 0, NULL, 0}};
	struct dtk_diags diags = DTK_DIAGS_INIT;
	char *want = NULL, *old = NULL, *path = NULL;
	size_t old_len = 0;
	int quiet = 0, c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		if (c == 'q')
			quiet = 1;
		else
			return DTK_EXIT_INVALID;
	}
	if (optind < argc) {
		fprintf(ctx->err, "dtk check: unexpected argument '%s'\n", argv[optind]);
		return DTK_EXIT_INVALID;
	}
	rc = dtk_index_build(&want, ctx->root, &diags);
	if (rc == DTK_EINVALID) {
		rc = dtk_cmd_report_invalid(ctx, &diags);
		goto done;
	} else if (rc < 0) {
		rc = dtk_cmd_fail(ctx, "check", DTK_EXIT_INVALID);
		goto done;
	}
	path = dtk_path_join(ctx->root, DTK_INDEX_FILE);
	rc = dtk_file_read(&old, &old_len, path, 1u << 30);
	if (rc < 0 && errno != ENOENT) {
		rc = dtk_cmd_fail(ctx, "check", DTK_EXIT_INVALID);
		goto done;
	}
	if (rc == 0 && old_len == strlen(want) && !memcmp(old, want, old_len)) {
		if (!quiet)
			fprintf(ctx->err, "dtk check: insights/ is valid and %s is up to date\n",
				DTK_INDEX_FILE);
		rc = DTK_EXIT_OK;
		goto done;
	}
	rc = S_report_drift(ctx, old ? old : "", old_len, want, rc < 0);
done:
	dtk_diags_release(&diags);
	free(want);
	free(old);
	free(path);
	return rc;
}

const struct dtk_cmd dtk_cmd_check = {
	.name = "check",
	.usage = "dtk check [-q]",
	.summary = "fail when insights/ is invalid or INDEX.md is out of date",
	.help = "\nValidates insights/ and compares INDEX.md with what 'dtk reindex' would\n"
		"write. Never writes anything. Exit status: 0 when all is well; 1 when\n"
		"INDEX.md differs (a unified diff goes to standard output); 2 when the\n"
		"data is invalid (every error goes to standard error).\n\n"
		"options:\n"
		"  -q, --quiet  print nothing when all is well\n\n"
		"examples:\n"
		"  dtk check\n"
		"  dtk check || dtk reindex\n",
	.flags = DTK_CMD_NEEDS_KB,
	.exec = S_exec,
};
