/* cmd_export.c: dtk export html: the base as a static site. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/export.h"
#include "dtk/kb.h"

#include <string.h>

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_kb *kb = NULL;
	int rc, removed = 0;

	static const char *const formats[] = {"html"};
	const char *dir;

	if (a->argc == 0 || a->argc > 2)
		return a->argc ? dtk_cmd_usage_error(ctx, "unexpected argument '%s'", a->argv[2])
		               : dtk_cmd_usage_error(ctx, "missing the format (html) and <dir>");
	if (dtk_cmd_choice(ctx, "the format", a->argv[0], formats, 1) < 0)
		return DTK_EXIT_INVALID;
	if (a->argc == 1)
		return dtk_cmd_usage_error(ctx, "missing <dir>");
	dir = a->argv[1];
	if ((rc = dtk_cmd_load(ctx, &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK) {
		/* said why */
	} else if ((rc = dtk_export_html(kb, dir, &removed)) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	} else {
		/* "site/" and "site" both say site/index.html */
		size_t n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			n--;
		if (removed)
			dtk_cmd_note(ctx, "removed %d page%s of nodes that no longer exist\n",
			             removed, removed == 1 ? "" : "s");
		dtk_cmd_note(ctx, "wrote %d pages to %.*s; open %.*s%sindex.html\n", rc, (int)n,
		             dir, (int)n, dir, dir[n - 1] == '/' ? "" : "/");
		rc = DTK_EXIT_OK;
	}
	dtk_kb_free(kb);
	return rc;
}

const struct dtk_cmd dtk_cmd_export = {
        .name = "export",
        .usage = "dtk export html <dir>",
        .summary = "write the base as a static HTML site",
        .help = "\nWrites index.html (INDEX.md with node names and entry ids linked, and a\n"
                "search box over titles and claims), nodes/<node>.html per node (stance,\n"
                "entries with claims, each entry an anchor), search.js and style.css into\n"
                "<dir>. Links are relative, so the site works from the file system. The\n"
                "export owns <dir>: it must be new, empty or an earlier export (marked by\n"
                ".dtk-export); pages of nodes that no longer exist are removed.\n\n"
                "examples:\n"
                "  dtk export html site     # then open site/index.html\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_OWN_OPERANDS,
        .run = S_run,
};
