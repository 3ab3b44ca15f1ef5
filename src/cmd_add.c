/* cmd_add.c: dtk add: a new entry in a node, with a fresh id. */
#include "dtk/cmd.h"

#include "dtk/fs.h"
#include "dtk/json.h"
#include "dtk/jsonread.h"
#include "dtk/kb.h"
#include "dtk/links.h"
#include "dtk/similar.h"
#include "dtk/view.h"
#include "dtk/write.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LIST 256

/* The entry asked for: from --from, then the flags over it. */
struct entry {
	const char *title, *claim, *source, *confidence, *created;
	struct dtk_yscalar verified[MAX_LIST], relates[MAX_LIST];
	size_t n_verified, n_relates;
	const char *distinct[MAX_LIST]; /* --distinct-from */
	size_t n_distinct;
};

/* Returns 1 when v can be an id: a string, or a number written as digits
 * (as the schema takes ids). */
static int S_idlike(const struct dtk_yval *v)
{
	return v->kind == DTK_Y_SCALAR &&
	       (v->type == DTK_YT_STR ||
	        (v->type == DTK_YT_INT && v->len && strspn(v->str, "0123456789") == v->len));
}

/* Returns 1 when value v of key k (the index of keys in S_from) has the type
 * the schema wants: a string; the source may be an id written as digits. */
static int S_from_typed(size_t k, const struct dtk_yval *v)
{
	return v->type == DTK_YT_STR || (k == 2 && S_idlike(v));
}

/* Reads --from (a file, or "-": standard input) into e; its strings live in
 * arena. Returns 0, or the exit status after printing why. */
static int S_from(struct dtk_ctx *ctx, struct entry *e, const char *path, struct dtk_arena *arena)
{
	static const char *const keys[] = {"title",   "claim",   "source",     "confidence",
	                                   "created", "relates", "verified_by"};
	struct dtk_diags diags = DTK_DIAGS_INIT;
	const char *shown = strcmp(path, "-") ? path : "<stdin>";
	struct dtk_yval *root = NULL;
	char *buf = NULL;
	size_t len = 0, i, k, skip;
	int rc;

	/* never a part of it: the end cut off may be inside a value */
	rc = strcmp(path, "-")
	             ? dtk_file_read(&buf, &len, path, DTK_MAX_FILE_BYTES)
	             : dtk_file_read_fd(&buf, &len, 0, "standard input", DTK_MAX_FILE_BYTES);
	if (rc < 0) {
		free(buf);
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	}
	skip = strspn(buf, " \t\r\n");
	/* JSON by jansson, YAML by libyaml: each by its own parser */
	if (skip < len && (buf[skip] == '{' || buf[skip] == '['))
		rc = dtk_json_parse(&root, arena, shown, buf, len, &diags);
	else
		rc = dtk_yaml_parse(&root, arena, shown, buf, len, &diags);
	if (rc == 0 && (!root || root->kind != DTK_Y_MAP)) {
		dtk_diags_add(&diags, shown, 1, 1, "must hold a mapping of an entry's keys");
		rc = -1;
	}
	for (i = 0; rc == 0 && i + 1 < root->n; i += 2) {
		const struct dtk_yval *kv = root->items[i], *v = root->items[i + 1];
		const char **slot[] = {&e->title, &e->claim, &e->source, &e->confidence,
		                       &e->created};
		for (k = 0; k < 7 && strcmp(kv->str, keys[k]); k++)
			;
		if (k == 7) {
			dtk_diags_add(&diags, shown, kv->line, kv->col,
			              "unknown key '%s' (an entry takes title, claim, source, "
			              "confidence, created, verified_by, relates)",
			              kv->str);
		} else if (k < 5 && v->kind == DTK_Y_SCALAR && v->type != DTK_YT_NULL &&
		           !S_from_typed(k, v)) {
			dtk_diags_add(&diags, shown, v->line, v->col,
			              "'%s' must be a string, found %s (quote it to make it a "
			              "string)",
			              kv->str, dtk_yval_describe(v));
		} else if (k < 5 && v->kind == DTK_Y_SCALAR && v->type != DTK_YT_NULL) {
			dtk_date d;
			*slot[k] = dtk_arena_strdup(arena, v->str);
			if (k == 4 && dtk_date_parse(&d, v->str) < 0)
				dtk_diags_add(&diags, shown, v->line, v->col,
				              "'created' must be a date YYYY-MM-DD, found '%s'",
				              dtk_esc(v->str));
		} else if (k >= 5 && v->kind == DTK_Y_SEQ && v->n <= MAX_LIST) {
			struct dtk_yscalar *l = k == 5 ? e->relates : e->verified;
			size_t *n = k == 5 ? &e->n_relates : &e->n_verified, j;
			for (j = 0; j < v->n; j++) {
				if (!S_idlike(v->items[j])) { /* each one said */
					dtk_diags_add(&diags, shown, v->items[j]->line,
					              v->items[j]->col,
					              "'%s' must be a list of ids", kv->str);
					continue;
				}
				l[(*n)++] = (struct dtk_yscalar){v->items[j]->str, 0};
			}
		} else if (v->type != DTK_YT_NULL || v->kind != DTK_Y_SCALAR) {
			dtk_diags_add(&diags, shown, v->line, v->col, "'%s' must be %s", kv->str,
			              k < 5 ? "a string" : "a list of ids");
		}
	}
	if (diags.n)
		rc = dtk_cmd_report_invalid(ctx, &diags);
	else
		rc = 0;
	dtk_diags_release(&diags);
	free(buf);
	return rc;
}

/* Sets l (*n ids) to the values of the option key of a when it was given:
 * they replace the list of --from. Returns 0, or the exit status after the
 * usage error. */
static int S_list_arg(struct dtk_ctx *ctx, const struct dtk_args *a, int key, struct dtk_yscalar *l,
                      size_t *n)
{
	size_t i, k;
	const char *const *v = dtk_args_list(a, key, &k);

	if (k > MAX_LIST)
		return dtk_cmd_usage_error(ctx, "at most %d ids in a list", MAX_LIST);
	for (i = 0; i < k; i++)
		l[i] = (struct dtk_yscalar){v[i], 0};
	*n = k ? k : *n;
	return 0;
}

/* Sets over e (read from --from, or empty) the options of a that were
 * given; returns 0, or the exit status after the usage error. */
static int S_args(struct dtk_ctx *ctx, const struct dtk_args *a, struct entry *e)
{
	const char **slot[] = {&e->title, &e->claim, &e->source, &e->confidence, &e->created};
	const char *const *v;
	size_t i;

	for (i = 0; i < 5; i++)
		if (dtk_args_str(a, "tcsCd"[i]))
			*slot[i] = dtk_args_str(a, "tcsCd"[i]);
	v = dtk_args_list(a, 'D', &e->n_distinct);
	if (e->n_distinct > MAX_LIST)
		return dtk_cmd_usage_error(ctx, "at most %d ids in a list", MAX_LIST);
	if (e->n_distinct)
		memcpy(e->distinct, v, e->n_distinct * sizeof(*v));
	return S_list_arg(ctx, a, 'v', e->verified, &e->n_verified) ||
	                       S_list_arg(ctx, a, 'r', e->relates, &e->n_relates)
	               ? DTK_EXIT_INVALID
	               : 0;
}

/* The duplicate gate (similar.h), run by the commit on the base as it will
 * be written: arg is the struct dup of the new entry, whose closest live
 * entries it keeps for the result. Returns DTK_EXIT_OK, or the status after
 * refusing. */
struct dup {
	const struct entry *e;
	const char *id;
	struct dtk_similar_hit *near; /* the closest, malloc'd */
	size_t n_near;
};

/* Prints the closest entries of d, one line each ("  ID  score  [likely]
 * title"), to f. */
static void S_print_near(FILE *f, const struct dup *d)
{
	size_t i;
	for (i = 0; i < d->n_near; i++)
		fprintf(f, "  %s  %.2f  %s%s\n", d->near[i].entry->id, d->near[i].score,
		        d->near[i].same || d->near[i].score >= DTK_SIMILAR_LIKELY ? "likely  "
		                                                                    : "",
		        dtk_esc(d->near[i].entry->title));
}

static int S_check_duplicate(struct dtk_write *w, void *arg)
{
	struct dup *d = arg;
	const char *named[2 * MAX_LIST];
	size_t i, n = 0;
	int v;

	for (i = 0; i < d->e->n_distinct; i++)
		if (!dtk_similar_entry(w->kb, d->e->distinct[i]) ||
		    !strcmp(d->e->distinct[i], d->id))
			return dtk_write_refuse(w, "--distinct-from names no entry '%s'",
			                        d->e->distinct[i]);
	for (i = 0; i < d->e->n_distinct; i++)
		named[n++] = d->e->distinct[i];
	for (i = 0; i < d->e->n_relates; i++) /* related: looked at */
		named[n++] = d->e->relates[i].s;
	v = dtk_similar_check(&d->near, &d->n_near, w->kb, d->id, named, n);
	if (v < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	if (v != DTK_SIMILAR_REFUSE)
		return DTK_EXIT_OK;
	if (d->near[0].same)
		return dtk_write_refuse(w, "the same claim is in the base already: %s (%s)",
		                        d->near[0].entry->id, dtk_esc(d->near[0].entry->title));
	v = dtk_write_refuse(w, "the new entry restates a live entry (score %.2f or more, "
	                        "most alike first; 'likely' at %.2f or more):",
	                     DTK_SIMILAR_SURE, DTK_SIMILAR_LIKELY);
	S_print_near(w->ctx->err, d);
	fprintf(w->ctx->err, "if it says something they do not, add it again with "
	                     "--distinct-from ID (or --relates ID) for each\n");
	return v;
}

/* Prints what add wrote: the id (text; the closest entries as a note on
 * standard error) or the entry as JSON with its closest entries. */
static void S_print(struct dtk_write *w, const struct dup *d)
{
	const struct dtk_entry *e = dtk_kb_entry(w->kb, d->id);
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_link *links = NULL;
	struct dtk_json j;
	size_t i, nl;

	if (w->opts.dry_run)
		return;
	if (!w->opts.json) {
		fprintf(w->ctx->out, "%s\n", d->id);
		if (d->n_near && !w->ctx->quiet) {
			fprintf(w->ctx->err, "note: the closest live entries (score; 'likely': "
			                     "%.2f or more, a likely restatement):\n",
			        DTK_SIMILAR_LIKELY);
			S_print_near(w->ctx->err, d);
		}
		return;
	}
	if (!e)
		return;
	dtk_json_init(&j, &b);
	dtk_json_object(&j);
	nl = dtk_links_to(&links, w->kb, e->id, NULL);
	dtk_view_entry_json_keys(&j, w->kb, e, links, nl);
	free(links);
	dtk_json_key(&j, "closest");
	dtk_json_array(&j);
	for (i = 0; i < d->n_near; i++) {
		dtk_json_object(&j);
		dtk_json_kstring(&j, "id", d->near[i].entry->id);
		dtk_json_kstring(&j, "title", d->near[i].entry->title);
		dtk_json_key(&j, "score");
		dtk_json_fixed(&j, d->near[i].score, 2);
		dtk_json_kbool(&j, "likely_restatement",
		               d->near[i].same || d->near[i].score >= DTK_SIMILAR_LIKELY);
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	dtk_json_end(&j, '}');
	dtk_write_put_json(w, &b);
}

static int S_add(struct dtk_write *w, struct entry *e, const char *node)
{
	struct dup dup = {e, NULL, NULL, 0};
	const char *off;
	char id[300], today[16];
	struct dtk_yfield f[8];
	const struct dtk_yval *l;
	struct dtk_wfile *file;
	size_t n = 0, i;
	int min, rc;

	if (!e->title || !e->claim || !e->source || !e->confidence)
		return dtk_cmd_usage_error(w->ctx, "missing --%s",
		                           !e->title    ? "title"
		                           : !e->claim  ? "claim"
		                           : !e->source ? "source"
		                                        : "confidence (high, medium or low: no "
		                                          "default)");
	if (dtk_write_check_text(w, "the title", "title", e->title) ||
	    dtk_write_check_text(w, "the claim", "claim", e->claim))
		return DTK_EXIT_INVALID;
	if (dtk_cmd_choice(w->ctx, "--confidence", e->confidence, dtk_confidence_names,
	                   DTK_CONF_COUNT) < 0)
		return DTK_EXIT_INVALID;
	if (dtk_write_date_of(w, "--created", e->created, today) < 0)
		return DTK_EXIT_INVALID;
	if (!e->created)
		e->created = today;
	file = dtk_write_open_node(w, node);
	if (!file)
		return DTK_EXIT_INVALID;
	/* every value that names nothing, each with the option it came from */
	{
		const char *v[MAX_LIST];
		int a, b, c;
		for (i = 0; i < e->n_verified; i++)
			v[i] = e->verified[i].s;
		a = dtk_write_unknown(w, "--source", &e->source, 1, 1);
		b = a < 0 ? -1 : dtk_write_unknown(w, "--verified-by", v, e->n_verified, 1);
		for (i = 0; i < e->n_relates; i++)
			v[i] = e->relates[i].s;
		c = b < 0 ? -1 : dtk_write_unknown(w, "--relates", v, e->n_relates, 0);
		if (c < 0)
			return DTK_EXIT_INVALID;
		if (a + b + c)
			return dtk_cmd_usage_see(w->ctx);
		if (dtk_write_retired_links(w, "--relates", v, e->n_relates))
			return DTK_EXIT_INVALID;
	}
	if (!strcmp(e->confidence, "high")) {
		if ((min = dtk_write_high_min(w)) < 0)
			return DTK_EXIT_INVALID;
		if (e->n_verified < (size_t)min)
			return dtk_write_refuse(w,
			                        "confidence high needs at least %d verified_by "
			                        "sources (policy.high_min_verified); %zu given",
			                        min, e->n_verified);
	}
	l = dtk_yval_get(file->doc.root, "insights");
	dtk_write_item_id(id, sizeof(id), l, node, e->title, e->claim, e->source);
	f[n++] = (struct dtk_yfield){"id", {id, 1}, NULL, 0};
	f[n++] = (struct dtk_yfield){"title", {e->title, 0}, NULL, 0};
	f[n++] = (struct dtk_yfield){"claim", {e->claim, 0}, NULL, 0};
	f[n++] = (struct dtk_yfield){"confidence", {e->confidence, 1}, NULL, 0};
	f[n++] = (struct dtk_yfield){"source", {e->source, 0}, NULL, 0};
	if (e->n_verified)
		f[n++] = (struct dtk_yfield){"verified_by", {NULL, 0}, e->verified, e->n_verified};
	f[n++] = (struct dtk_yfield){"created", {e->created, 1}, NULL, 0};
	if (e->n_relates)
		f[n++] = (struct dtk_yfield){"relates", {NULL, 0}, e->relates, e->n_relates};
	if (dtk_yedit_append_map(&file->doc, file->doc.root, "insights", l, f, n) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dup.id = id;
	off = getenv("DTK_NO_DUPLICATE_CHECK"); /* for measuring the check's cost only */
	if (!off || !*off || !strcmp(off, "0")) {
		w->check = S_check_duplicate;
		w->check_arg = &dup;
	}
	rc = dtk_write_commit(w);
	if (rc != DTK_EXIT_INVALID) /* written */
		S_print(w, &dup);
	free(dup.near);
	return rc;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"title", 't', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "T", .help = "its title"},
        {"claim", 'c', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "C", .help = "its claim"},
        {"source", 's', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "S",
         .help = "its source (a source id)"},
        {"confidence", 'C', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "LEVEL",
         .choices = dtk_confidence_names, .help = "high, medium or low: there is no default"},
        {"verified-by", 'v', DTK_OPT_LIST, .arg = "S",
         .help = "a corroborating source (repeat for more)"},
        {"relates", 'r', DTK_OPT_LIST, .arg = "ID", .help = "a related entry (repeat for more)"},
        {"created", 'd', DTK_OPT_STRING, .arg = "DATE",
         .help = "its date (default today; not after it)"},
        {"from", 'f', DTK_OPT_STRING, .arg = "FILE|-",
         .help = "a YAML or JSON mapping with the same keys (title, claim,\n"
                 "source, confidence, created, verified_by, relates);\n"
                 "flags given as well override it"},
        {"allow-future", 'F', DTK_OPT_FLAG, .help = "accept a --created date after today"},
        {"distinct-from", 'D', DTK_OPT_LIST, .arg = "ID",
         .help = "the new entry says something entry ID does not: not\n"
                 "refused as restating it (repeat for more)"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_arena *arena = dtk_arena_new();
	struct entry *e = dtk_xcalloc(1, sizeof(*e));
	const char *from = dtk_args_str(a, 'f');
	struct dtk_write w;
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	/* flags given on the command line override the file */
	if ((from && (rc = S_from(ctx, e, from, arena)) != 0) || (rc = S_args(ctx, a, e)) != 0)
		goto done;
	rc = S_add(&w, e, a->argv[0]);
done:
	dtk_write_release(&w);
	dtk_arena_free(arena);
	free(e);
	return rc;
}

const struct dtk_cmd dtk_cmd_add = {
        .name = "add",
        .usage = "dtk add --title T --claim C --source S --confidence high|medium|low\n"
                 "               [--verified-by S]... [--relates ID]... [--created DATE]\n"
                 "               [--allow-future] [--distinct-from ID]... [--dry-run]\n"
                 "               [--format text|json] [--no-reindex] <node>\n"
                 "       dtk add --from FILE|- [the options above, which override it] <node>",
        .summary = "add an entry to a node, with a fresh id",
        .help = "\nAppends a new entry to insights/<node>.yaml, after its last entry and in\n"
                "its style. The id is fresh, <node>-<7 letters and digits>, a hash of the\n"
                "node, title, claim and source (docs/schema.md): it never needs renumbering;\n"
                "created defaults to today. --confidence is required: there is no default.\n"
                "high is refused unless the entry has policy.high_min_verified sources in\n"
                "verified_by. The whole base is validated with the new entry before\n"
                "anything is written. Prints the new id.\n\n"
                "The duplicate gate: an entry whose claim folds to the claim of a live\n"
                "entry (case, width, spaces, punctuation, line breaks aside) is refused,\n"
                "naming it; so is one that scores 0.60 or more against a live entry (as\n"
                "'dtk similar' scores them, title and claim) that --distinct-from or\n"
                "--relates does not name. Any other goes in, and the five closest live\n"
                "entries are shown (a note on standard error; 'closest' in JSON), those\n"
                "at 0.10 or more marked as likely restatements.\n",
        .examples = "examples:\n"
                    "  dtk add weight-management --title 'RDMA 写无需推理端参与' \\\n"
                    "      --claim '单边 RDMA WRITE 直接写入推理端显存。' \\\n"
                    "      --source perplexity-weight-transfer-2025 --confidence low \\\n"
                    "      --distinct-from weight-management-001\n"
                    "  echo '{\"title\": \"t\", \"claim\": \"c\", \"source\": \"metis-2024\",\n"
                    "        \"confidence\": \"medium\"}' |\n"
                    "      dtk add training-parallelism --from - --format json\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<node>",
        .run = S_run,
};
