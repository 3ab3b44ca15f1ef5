/* cmd_hotspot.c: dtk hotspot: add, edit or remove a cross-domain hotspot of
 * _domain.yaml. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

/* The keys of a hotspot, in the order they are written. */
static const char *const S_keys[] = {"id", "node", "links", "note", NULL};

/* The actions, in the order of .operands */
enum { A_ADD, A_EDIT, A_REMOVE };

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"link", 'l', DTK_OPT_LIST, .arg = "DOMAIN/NODE",
         .help = "a node of another domain it links to (repeatable; add:\n"
                 "one at least; edit: added to its links)"},
        {"note", 'o', DTK_OPT_STRING, .arg = "T", .help = "what links them (add: required)"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *note = dtk_args_str(a, 'o'), *hid = NULL, *what;
	const char *const *links;
	const struct dtk_yval *hot, *h = NULL;
	struct dtk_yscalar list[64];
	struct dtk_wfile *f;
	struct dtk_write w;
	char id[DTK_ID_SUFFIX_LEN + 8];
	size_t n_links, i, k = 0;
	int act = a->action, rc = DTK_EXIT_INVALID, e = 0;
	long at = -1;

	dtk_write_init(&w, ctx);
	links = dtk_args_list(a, 'l', &n_links);
	if (act == A_ADD ? !note || !n_links : act == A_EDIT ? !note && !n_links : note || n_links) {
		dtk_cmd_usage_error(ctx, act == A_ADD ? "add needs --note and one --link at least"
		                         : act == A_EDIT
		                                 ? "nothing to change: give --note or --link"
		                                 : "remove takes no --note or --link");
		goto done;
	}
	if (n_links > 64) {
		dtk_cmd_usage_error(ctx, "at most 64 --link");
		goto done;
	}
	if (dtk_write_check_text(&w, "--note", "note", note) ||
	    !(f = dtk_write_open(&w, "_domain.yaml")))
		goto done;
	hot = dtk_yval_get(f->doc.root, "hotspots");
	if (act != A_ADD && (at = dtk_write_item(&w, hot, "hotspot", a->argv[1])) < 0)
		goto done;
	if (at >= 0) {
		h = hot->items[at];
		hid = dtk_yval_str(h, "id");
	}
	if (!hid && act != A_REMOVE) { /* a command names it from now on */
		dtk_write_item_id(id, sizeof(id), hot, "hot",
		                  h ? dtk_yval_str(h, "node") : a->argv[1],
		                  note ? note : dtk_yval_str(h, "note"), "");
		hid = id;
	}
	for (i = 0; i < n_links; i++)
		if (!h || dtk_yval_list_find(h, "links", links[i], NULL) < 0)
			list[k++] = (struct dtk_yscalar){links[i], 0};
	if (act == A_ADD) {
		const struct dtk_yfield fl[4] = {{"id", {hid, 0}, NULL, 0},
		                                 {"node", {a->argv[1], 0}, NULL, 0},
		                                 {"links", {NULL, 0}, list, k},
		                                 {"note", {note, 0}, NULL, 0}};
		e = dtk_yedit_append_map(&f->doc, f->doc.root, "hotspots",
		                         hot && hot->kind == DTK_Y_SEQ ? hot : NULL, fl, 4);
		what = "added";
	} else if (act == A_REMOVE) {
		e = dtk_yedit_remove_item(&f->doc, f->doc.root, "hotspots", (size_t)at);
		what = "removed";
		hid = hid ? hid : a->argv[1];
	} else {
		if (!dtk_yval_str(h, "id"))
			e |= dtk_yedit_set_key(&f->doc, h, "id", (struct dtk_yscalar){hid, 0}, S_keys);
		if (note)
			e |= dtk_yedit_set_key(&f->doc, h, "note", (struct dtk_yscalar){note, 0},
			                       S_keys);
		for (i = 0; i < k; i++)
			e |= dtk_yedit_append(&f->doc, h, "links", list[i], S_keys);
		what = "edited";
	}
	rc = dtk_write_item_commit(&w, e, hid, what);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_hotspot = {
        .name = "hotspot",
        .summary = "add, edit or remove a cross-domain hotspot",
        .help = "\nThe hotspots of _domain.yaml, INDEX.md's 跨域热点: a node of this\n"
                "domain, the nodes of other domains it links to and what links them.\n"
                "'add <node>' appends one with a fresh id (hot-xxxxxxx); 'edit\n"
                "<hotspot>' sets its note and adds links; 'remove <hotspot>' deletes it.\n"
                "<hotspot> is its id, or its place in the list from 1 (one without an id\n"
                "gets one). Every other byte of the file stays; the base is validated\n"
                "before anything is written. Prints '<id>: added' (edited, removed).\n",
        .examples = "examples:\n"
                    "  dtk hotspot add training-parallelism \\\n"
                    "      --link cluster-infra/heterogeneous-cluster --note '异构布局'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES | DTK_CMD_ACTION,
        .opts = S_opts,
        .operands = "<add|edit|remove> <node|hotspot>",
        .run = S_run,
};
