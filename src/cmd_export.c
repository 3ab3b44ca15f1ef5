/* cmd_export.c: dtk export html: the base as a static site. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/export.h"
#include "dtk/kb.h"

#include <getopt.h>
#include <string.h>

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	int rc;

	static const char *const formats[] = {"html"};
	const char *dir;

	optind = 0;
	if (dtk_cmd_getopt(ctx, argc, argv, "", NULL) != -1 ||
	    dtk_cmd_operands(ctx, "export", argc, argv, 1, 2, "the format (html) and <dir>") < 0 ||
	    dtk_cmd_choice(ctx, "export", "the format", argv[optind], formats, 1) < 0 ||
	    dtk_cmd_operands(ctx, "export", argc, argv, 2, 2, "<dir>") < 0)
		return DTK_EXIT_INVALID;
	dir = argv[optind + 1];
	if ((rc = dtk_cmd_load(ctx, "export", &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK) {
		/* said why */
	} else if ((rc = dtk_export_html(kb, dir)) < 0) {
		rc = dtk_cmd_fail(ctx, "export", DTK_EXIT_INVALID);
	} else {
		fprintf(ctx->err, "wrote %d pages and style.css to %s; open %s/index.html\n", rc,
		        dir, dir);
		rc = DTK_EXIT_OK;
	}
	dtk_kb_free(kb);
	return rc;
}

const struct dtk_cmd dtk_cmd_export = {
        .name = "export",
        .usage = "dtk export html <dir>",
        .summary = "write the base as a static HTML site",
        .help = "\nWrites index.html (INDEX.md with node names linked), one page per node\n"
                "(stance, entries with claims, sources linked) and style.css into <dir>.\n"
                "Links are relative, so the site works from the file system. Raw HTML in\n"
                "the data is not passed through.\n\n"
                "examples:\n"
                "  dtk export html site && xdg-open site/index.html\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
