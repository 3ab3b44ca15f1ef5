/* cmd_gap.c: dtk gap: add, edit, close or remove a knowledge gap of
 * _domain.yaml. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

/* The keys of a gap, in the order they are written. */
static const char *const S_keys[] = {"id", "text", "flagged_by", "nodes", "written", "closed",
                                     NULL};

/* The actions, in the order of .operands */
enum { A_ADD, A_EDIT, A_CLOSE, A_REMOVE };

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"text", 't', DTK_OPT_STRING, .arg = "T", .help = "the gap's text (edit)"},
        {"flagged-by", 'b', DTK_OPT_STRING, .arg = "ID",
         .help = "the entry that flagged it (add, edit)"},
        {"node", 'n', DTK_OPT_LIST, .arg = "NODE",
         .help = "a node the gap is about (repeatable; add, edit: added\n"
                 "to those it names)"},
        DTK_WRITE_DATE_OPTS("the day its text is written or it is closed\n"
                            "(default today; not after it)"),
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *text = dtk_args_str(a, 't'), *by = dtk_args_str(a, 'b');
	const char *const *nodes;
	const struct dtk_yval *gaps, *g = NULL;
	struct dtk_yscalar list[64];
	struct dtk_wfile *f;
	struct dtk_write w;
	char day[11], id[DTK_ID_SUFFIX_LEN + 8];
	const char *gid = NULL, *what;
	size_t n_nodes, i, k = 0;
	int act = a->action, rc = DTK_EXIT_INVALID, e = 0;
	long at = -1;

	dtk_write_init(&w, ctx);
	nodes = dtk_args_list(a, 'n', &n_nodes);
	if (dtk_write_date(&w, day) < 0)
		goto done;
	if (act == A_ADD)
		text = a->argv[1];
	if ((act == A_ADD || act == A_EDIT) ? act == A_EDIT && !text && !by && !n_nodes
	                                    : text || by || n_nodes) {
		dtk_cmd_usage_error(ctx,
		                    act == A_EDIT
		                            ? "nothing to change: give --text, --flagged-by or "
		                              "--node"
		                            : "%s takes no --text, --flagged-by or --node",
		                    a->argv[0]);
		goto done;
	}
	if (n_nodes > 64) {
		dtk_cmd_usage_error(ctx, "at most 64 --node");
		goto done;
	}
	if (dtk_write_check_text(&w, "the text", "text", text) || !(f = dtk_write_open(&w, "_domain.yaml")))
		goto done;
	gaps = dtk_yval_get(f->doc.root, "gaps");
	if (act != A_ADD && (at = dtk_write_item(&w, gaps, "gap", a->argv[1])) < 0)
		goto done;
	if (at >= 0) {
		g = gaps->items[at];
		gid = dtk_yval_str(g, "id");
		if (act == A_CLOSE && dtk_yval_get(g, "closed")) {
			dtk_write_refuse(&w, "gap '%s' is closed already", a->argv[1]);
			goto done;
		}
	}
	if (!gid && act != A_REMOVE) { /* a command names it from now on */
		dtk_write_item_id(id, sizeof(id), gaps, "gap",
		                  text ? text : dtk_yval_str(g, "text"), "", "");
		gid = id;
	}
	for (i = 0; i < n_nodes; i++)
		if (!g || dtk_yval_list_find(g, "nodes", nodes[i], NULL) < 0)
			list[k++] = (struct dtk_yscalar){nodes[i], 0};
	if (act == A_ADD) {
		struct dtk_yfield fl[5] = {{"id", {gid, 0}, NULL, 0}, {"text", {text, 0}, NULL, 0}};
		size_t n = 2;
		if (by)
			fl[n++] = (struct dtk_yfield){"flagged_by", {by, 0}, NULL, 0};
		if (k)
			fl[n++] = (struct dtk_yfield){"nodes", {NULL, 0}, list, k};
		fl[n++] = (struct dtk_yfield){"written", {day, 1}, NULL, 0};
		e = dtk_yedit_append_map(&f->doc, f->doc.root, "gaps",
		                         gaps && gaps->kind == DTK_Y_SEQ ? gaps : NULL, fl, n);
		what = "added";
	} else if (act == A_REMOVE) {
		e = dtk_yedit_remove_item(&f->doc, f->doc.root, "gaps", (size_t)at);
		what = "removed";
		gid = gid ? gid : a->argv[1];
	} else {
		if (!dtk_yval_str(g, "id"))
			e |= dtk_yedit_set_key(&f->doc, g, "id", (struct dtk_yscalar){gid, 0}, S_keys);
		if (text)
			e |= dtk_yedit_set_key(&f->doc, g, "text", (struct dtk_yscalar){text, 0},
			                       S_keys);
		if (by)
			e |= dtk_yedit_set_key(&f->doc, g, "flagged_by", (struct dtk_yscalar){by, 0},
			                       S_keys);
		if (k && dtk_yval_get(g, "nodes"))
			for (i = 0; i < k; i++)
				e |= dtk_yedit_append(&f->doc, g, "nodes", list[i], S_keys);
		else if (k)
			e |= dtk_yedit_add_list(&f->doc, g, "nodes", list, k, S_keys);
		/* the day the text was written or re-read: the plan asks again
		 * once its nodes get entries after it */
		e |= dtk_yedit_set_key(&f->doc, g, act == A_CLOSE ? "closed" : "written",
		                       (struct dtk_yscalar){day, 1}, S_keys);
		what = act == A_CLOSE ? "closed" : "edited";
	}
	rc = dtk_write_item_commit(&w, e, gid, what);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_gap = {
        .name = "gap",
        .summary = "add, edit, close or remove a knowledge gap",
        .help = "\nThe gaps of _domain.yaml, listed on INDEX.md's 知识缺口: topics known to be\n"
                "missing. 'add <text>' appends one with a fresh id (gap-xxxxxxx) and the day\n"
                "it was written; 'edit <gap>' changes its text, its flagged_by or adds nodes\n"
                "it is about, and dates it again; 'close <gap>' dates it closed (it stays\n"
                "in the file, off the page); 'remove <gap>' deletes it. <gap> is its id, or\n"
                "its place in the list from 1 (a gap without an id gets one). 'dtk\n"
                "crystallize --plan' lists the gaps whose nodes got entries after the day\n"
                "they were written, to be read again. Every other byte of the file stays;\n"
                "the base is validated before anything is written. Prints '<id>: added'\n"
                "(edited, closed, removed).\n",
        .examples = "examples:\n"
                    "  dtk gap add '每瓦吞吐仍是空白' --node training-parallelism\n"
                    "  dtk gap close 1\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES | DTK_CMD_ACTION,
        .opts = S_opts,
        .operands = "<add|edit|close|remove> <text|gap>",
        .run = S_run,
};
