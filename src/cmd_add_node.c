/* cmd_add_node.c: dtk add-node: a new node file and its place in a category. */
#include "dtk/cmd.h"

#include "dtk/kb.h"
#include "dtk/model.h"
#include "dtk/write.h"

#include <string.h>

/* Returns the category of cats nearest name (dtk_suggest), or NULL. */
static const char *S_near_category(const struct dtk_yval *cats, const char *name)
{
	const char *names[64];
	size_t i, n = 0;

	for (i = 0; cats && cats->kind == DTK_Y_SEQ && i < cats->n && n < 64; i++)
		if (dtk_yval_str(cats->items[i], "name"))
			names[n++] = dtk_yval_str(cats->items[i], "name");
	return dtk_suggest(name, names, n);
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"category", 'c', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "NAME",
         .help = "the category it belongs to (required)"},
        {"new-category", 'N', DTK_OPT_FLAG,
         .help = "--category names a new category, though one is\nspelled alike"},
        {"bloom", 'b', DTK_OPT_CHOICE, .arg = "LEVEL", .choices = dtk_bloom_names,
         .help = "its Bloom level (default remember)"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *category, *node, *near;
	const struct dtk_yval *cats, *cat;
	struct dtk_buf text = DTK_BUF_INIT, line = DTK_BUF_INIT;
	struct dtk_wfile *dom;
	struct dtk_write w;
	char file[300];
	int bloom, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	category = dtk_args_str(a, 'c');
	bloom = (int)dtk_args_int(a, 'b', DTK_BLOOM_REMEMBER);
	node = a->argv[0];
	if (dtk_write_new_name(&w, "node name", node, "--category", category) < 0)
		goto done;
	if (dtk_kb_has_node(ctx->root, node)) {
		dtk_write_refuse(&w, "node '%s' already exists", node);
		goto done;
	}
	dom = dtk_write_open(&w, "_domain.yaml");
	if (!dom)
		goto done;
	cats = dtk_yval_get(dom->doc.root, "categories");
	cat = dtk_write_seq_find(cats, "name", category);
	if (!cat && !dtk_args_has(a, 'N') && (near = S_near_category(cats, category))) {
		dtk_write_refuse(&w,
		                 "no category '%s'; did you mean '%s'? (--new-category adds '%s' "
		                 "as a new one)",
		                 category, near, category);
		goto done;
	}
	if (cat && dtk_yval_list_find(cat, "nodes", node, NULL) >= 0) {
		/* listed already: a run killed after writing _domain.yaml (which
		 * is written first) is finished by running it again */
		rc = 0;
	} else if (cat) {
		rc = dtk_yedit_append(&dom->doc, cat, "nodes", (struct dtk_yscalar){node, 0}, NULL);
	} else {
		const struct dtk_yscalar l[1] = {{node, 0}};
		const struct dtk_yfield f[2] = {{"name", {category, 0}, NULL, 0},
		                                {"nodes", {NULL, 0}, l, 1}};
		rc = dtk_yedit_append_map(&dom->doc, dom->doc.root, "categories", cats, f, 2);
	}
	if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	dtk_buf_printf(&text, "node: %s%sbloom: %s%sinsights: []%s", node, dom->doc.eol,
	               dtk_bloom_names[bloom], dom->doc.eol, dom->doc.eol);
	snprintf(file, sizeof(file), "%.255s.yaml", node);
	if (!dtk_write_create(&w, file, text.ptr, text.len)) {
		text.ptr = NULL;
		rc = DTK_EXIT_INVALID;
		goto done;
	}
	text.ptr = NULL; /* adopted */
	rc = dtk_write_commit(&w);
	dtk_buf_printf(&line, "%s\n", node);
	if (rc != DTK_EXIT_INVALID) /* written (1: in part, or not synced) */
		dtk_write_print_node(&w, node, line.ptr);
done:
	dtk_buf_release(&text);
	dtk_buf_release(&line);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_add_node = {
        .name = "add-node",
        .summary = "add a node: its file and its place in a category",
        .help = "\nCreates insights/<node>.yaml (node, bloom, insights: []) and appends the\n"
                "node to the category's nodes in _domain.yaml (a category not there yet is\n"
                "added at the end; one spelled like one there, 'Storage structure' beside\n"
                "'Storage structures', only with --new-category). Refused when the node\n"
                "exists. Prints the node's name.\n"
                "_domain.yaml is written first: when a run was killed before the node\n"
                "file, running it again finishes it.\n",
        .examples = "examples:\n"
                    "  dtk add-node pipeline-schedules --category 分布式策略\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<node>",
        .run = S_run,
};
