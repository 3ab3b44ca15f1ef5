/* cmd_export.c: dtk export html: the base as a static site. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/export.h"
#include "dtk/kb.h"

#include <string.h>

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	int rc;

	if (argc != 3 || strcmp(argv[1], "html")) {
		fprintf(ctx->err, "usage: %s\n", dtk_cmd_export.usage);
		return DTK_EXIT_INVALID;
	}
	if ((rc = dtk_cmd_load(ctx, "export", &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK) {
		/* said why */
	} else if ((rc = dtk_export_html(kb, argv[2])) < 0) {
		rc = dtk_cmd_fail(ctx, "export", DTK_EXIT_INVALID);
	} else {
		fprintf(ctx->err, "wrote %d pages and style.css to %s; open %s/index.html\n", rc,
		        argv[2], argv[2]);
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
