/* mcp_tools.c: dtk's MCP tools, each a dtk command run in-process with its
 * arguments built from the tool's, its JSON output parsed back. */
#define _GNU_SOURCE /* open_memstream */
#include "mcp_tools.h"

#include "dtk/cmd.h"
#include "dtk/dtk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a tool's output becomes structuredContent. */
enum shape {
	O_OBJECT,  /* the command's JSON object */
	O_ENTRIES, /* the command's JSON array, as {"entries": [...]} */
	O_ID,      /* the command's one line, as {"id": "..."} */
	O_CHECK,   /* {"valid": bool, "index_current": bool} from the exit status */
	O_WRITE,   /* a write's JSON: an object as it is, an array as {"entries": [...]} */
};

/* One argument of a tool: its JSON type ('s' string, 'i' integer >= 1, 'b'
 * boolean, 'l' string or list of strings, 'w' words: a string split at
 * spaces), the option it becomes (NULL: operands after "--"). */
struct param {
	const char *name;
	char type;
	int required;
	const char *flag;
	const char *desc;
	const char *const *choices; /* NULL-terminated, or NULL */
};

#define S_MAX_PARAMS 10 /* the most a tool takes */

struct tool {
	const char *name, *cmd, *title, *desc;
	const char *fixed[5]; /* arguments after the command's name */
	struct param params[S_MAX_PARAMS];
	enum shape shape;
	int read_only;
	int ok_status; /* an exit status besides 0 that is not an error (-1: none) */
};

static const char *const S_conf[] = {"high", "medium", "low", NULL};
static const char *const S_lang[] = {"zh", "en", NULL};

#define DATE "a date, YYYY-MM-DD"
#define DRY_RUN                                                                                    \
	{                                                                                          \
		"dry_run", 'b', 0, "--dry-run",                                                    \
		        "write nothing: the result is {dry_run, diff}, the diff of every file "    \
		        "it would change",                                                         \
		        NULL                                                                       \
	}
#define IDS(what)                                                                                  \
	{                                                                                          \
		"ids", 'l', 1, NULL, what, NULL                                                    \
	}

static const struct tool S_tools[] = {
        {"show",
         "show",
         "Show a node or an entry",
         "One node (stance, bloom, every entry) or one entry (claim, confidence, dates, "
         "sources, relations) with what names it (referenced_by). As 'dtk show --format json'.",
         {"--format", "json"},
         {{"target", 's', 1, NULL, "a node name or an entry id (<node>-NNN)", NULL}},
         O_OBJECT,
         1,
         -1},
        {"list",
         "list",
         "List entries",
         "The entries that match every filter, in listing order. As 'dtk list --format json'.",
         {"--format", "json"},
         {{"node", 'l', 0, "--node", "entries of this node (or of any of these nodes)", NULL},
          {"confidence", 's', 0, "--confidence", "entries of this confidence", S_conf},
          {"since", 's', 0, "--since", "entries created on or after this date (" DATE ")", NULL},
          {"stale_at", 's', 0, "--stale-at", "entries stale at this date (" DATE ")", NULL},
          {"candidates", 'b', 0, "--candidates", "entries one verification short of high", NULL},
          {"include_retired", 'b', 0, "--include-retired", "superseded and retracted entries too",
           NULL}},
         O_ENTRIES,
         1,
         -1},
        {"search",
         "search",
         "Search entries",
         "Entries whose id, title, claim or source titles hold every word of the query "
         "(NFKC and case folded; substrings, so CJK needs no spaces), best first. As "
         "'dtk search --format json'.",
         {"--format", "json"},
         {{"query", 'w', 1, NULL, "words, separated by spaces; every one must match", NULL},
          {"node", 's', 0, "--node", "entries of this node only", NULL},
          {"confidence", 's', 0, "--confidence", "entries of this confidence", S_conf},
          {"limit", 'i', 0, "--limit", "at most this many hits", NULL},
          {"include_retired", 'b', 0, "--include-retired", "superseded and retracted entries too",
           NULL}},
         O_ENTRIES,
         1,
         1},
        /* ---- similar: the ranking of the duplicate check ---- */
        {"similar",
         "similar",
         "Entries alike a text",
         "The live entries most alike a text (words and Chinese character pairs after "
         "folding, weighed by rarity: BM25), best first, each with a score from 0 to 1 and "
         "same_claim; add refuses a new entry scoring 0.15 or more against one unless "
         "distinct_from names it. As 'dtk similar --format json'.",
         {"--format", "json"},
         {{"text", 's', 1, NULL, "the text to compare: a claim, or a title and claim", NULL},
          {"node", 's', 0, "--node", "entries of this node only", NULL},
          {"limit", 'i', 0, "--limit", "at most this many (default 10)", NULL}},
         O_ENTRIES,
         1,
         1},
        /* ---- end of similar ---- */
        {"next_id",
         "next-id",
         "Next entry id",
         "The id the node's next entry should take. As 'dtk next-id'.",
         {NULL},
         {{"node", 's', 1, NULL, "a node name", NULL}},
         O_ID,
         1,
         -1},
        {"check",
         "check",
         "Check the base",
         "Validates every file of insights/ and compares INDEX.md with what reindex would "
         "write. Invalid data is an error result holding every path:line:col message. As "
         "'dtk check'.",
         {NULL},
         {{NULL, 0, 0, NULL, NULL, NULL}},
         O_CHECK,
         1,
         1},
        {"crystallize_plan",
         "crystallize",
         "Crystallization worklist",
         "What a crystallization run would review: new and changed entries, review pairs, "
         "stale entries, candidates. Writes nothing. As 'dtk crystallize --plan --format "
         "json'.",
         {"--plan", "--format", "json"},
         {{"date", 's', 0, "--date", "the run's date (" DATE "; default today)", NULL}},
         O_OBJECT,
         1,
         -1},
        /* the write tools: each is listed when dtk has its command */
        {"add",
         "add",
         "Add an entry",
         "Appends an entry to a node with the node's next id; the whole base is validated "
         "with it before anything is written, INDEX.md rebuilt. Refused when a live entry "
         "has the same claim, or when entries are near-duplicates (listed with their "
         "scores) that distinct_from does not name. Returns the new entry. As "
         "'dtk add --format json'.",
         {"--format", "json"},
         {{"node", 's', 1, NULL, "the node to add to", NULL},
          {"title", 's', 1, "--title", "the entry's title", NULL},
          {"claim", 's', 1, "--claim", "the claim, in full", NULL},
          {"source", 's', 1, "--source", "the id of its source (in _sources.yaml)", NULL},
          {"confidence", 's', 1, "--confidence",
           "high needs the policy's number of verified_by sources", S_conf},
          {"verified_by", 'l', 0, "--verified-by", "ids of corroborating sources", NULL},
          {"relates", 'l', 0, "--relates", "ids of related entries", NULL},
          {"created", 's', 0, "--created", "its date (" DATE "; default today)", NULL},
          /* ---- the duplicate check ---- */
          {"distinct_from", 'l', 0, "--distinct-from",
           "ids of entries the new one says something else than: not refused as their "
           "near-duplicate (an entry with the same claim always is)",
           NULL},
          /* ---- end of the duplicate check ---- */
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"add_source",
         "add-source",
         "Add a source",
         "Adds a source to insights/_sources.yaml. As 'dtk add-source --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the new source's id", NULL},
          {"title", 's', 1, "--title", "its title", NULL},
          {"url", 's', 0, "--url", "its URL (absolute)", NULL},
          {"read", 's', 0, "--read", "when it was read (" DATE ")", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"use",
         "use",
         "Count a use",
         "Counts a use of each entry (used + 1). As 'dtk use --format json'.",
         {"--format", "json"},
         {IDS("entry ids (one or a list)"), DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"cite",
         "cite",
         "Count a citation",
         "Counts a citation of each entry (cited + 1). As 'dtk cite --format json'.",
         {"--format", "json"},
         {IDS("entry ids (one or a list)"), DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"close",
         "close",
         "Close entries",
         "Marks entries closed: an outcome was fed back. As 'dtk close --format json'.",
         {"--format", "json"},
         {IDS("entry ids (one or a list)"), DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"verify",
         "verify",
         "Verify an entry",
         "Adds an independent source that corroborates the entry (verified_by); with "
         "promote, also sets confidence high (refused unless it then meets the policy). As "
         "'dtk verify --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry id", NULL},
          {"source", 's', 1, NULL, "the corroborating source's id", NULL},
          {"promote", 'b', 0, "--promote", "also set confidence: high", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"review",
         "review",
         "Review entries",
         "Records that entries were confirmed still true (reviewed: the date). As 'dtk "
         "review --format json'.",
         {"--format", "json"},
         {IDS("entry ids (one or a list)"),
          {"date", 's', 0, "--date", "the review's date (" DATE "; default today)", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"relate",
         "relate",
         "Relate two entries",
         "Records that an entry relates to another (relates). As 'dtk relate --format "
         "json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry that relates", NULL},
          {"other", 's', 1, NULL, "the entry it relates to", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        /* ---- the rest of an entry's life (edit ... retract), contradictions,
         * and a new base: one tool per command, as those above ---- */
        {"edit",
         "edit",
         "Correct an entry",
         "Changes an entry's title, claim or source in place (the id stays) and sets its "
         "revised date, so that the next crystallization plan lists it. As 'dtk edit "
         "--format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry id", NULL},
          {"title", 's', 0, "--title", "the new title", NULL},
          {"claim", 's', 0, "--claim", "the new claim, in full", NULL},
          {"source", 's', 0, "--source", "the new source's id (in _sources.yaml)", NULL},
          {"date", 's', 0, "--date", "the revision's date (" DATE "; default today)", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"edit_source",
         "edit-source",
         "Correct a source",
         "Changes a source's title or url in place (the id stays) and sets its revised "
         "date. As 'dtk edit-source --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the source id", NULL},
          {"title", 's', 0, "--title", "the new title", NULL},
          {"url", 's', 0, "--url", "the new URL (absolute)", NULL},
          {"date", 's', 0, "--date", "the revision's date (" DATE "; default today)", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"confidence",
         "confidence",
         "Re-rate entries",
         "Sets the confidence of entries: lowering always, high only for entries with the "
         "policy's number of verified_by sources. With qualified (and level high), every "
         "entry that meets the high rule and is not high. As 'dtk confidence --format "
         "json'.",
         {"--format", "json"},
         {{"level", 's', 1, NULL, "the confidence to set", S_conf},
          {"ids", 'l', 0, NULL, "entry ids (one or a list); none with qualified", NULL},
          {"qualified", 'b', 0, "--qualified", "raise every qualifying entry to high", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"unrelate",
         "unrelate",
         "Unrelate two entries",
         "Removes one item of an entry's relates. As 'dtk unrelate --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry that relates", NULL},
          {"other", 's', 1, NULL, "the entry it no longer relates to", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"unverify",
         "unverify",
         "Unverify an entry",
         "Removes one source of an entry's verified_by; refused when a high entry would "
         "break the policy, unless confidence lowers it in the same call. As 'dtk unverify "
         "--format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry id", NULL},
          {"source", 's', 1, NULL, "the source to remove", NULL},
          {"confidence", 's', 0, "--confidence", "also set the confidence", S_conf},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"supersede",
         "supersede",
         "Supersede an entry",
         "Marks an older entry replaced by a newer one (superseded_by, superseded); it stays "
         "in its file as history, out of counts, lists and search. As 'dtk supersede "
         "--format json'.",
         {"--format", "json"},
         {{"old", 's', 1, NULL, "the entry replaced", NULL},
          {"new", 's', 1, NULL, "the live entry that replaces it", NULL},
          {"date", 's', 0, "--date", "the date (" DATE "; default today)", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"retract",
         "retract",
         "Retract entries",
         "Withdraws entries with a reason and a date (retracted, retracted_reason), kept in "
         "their files as tombstones. As 'dtk retract --format json'.",
         {"--format", "json"},
         {IDS("entry ids (one or a list)"),
          {"reason", 's', 1, "--reason", "why they are withdrawn", NULL},
          {"date", 's', 0, "--date", "the date (" DATE "; default today)", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"contradict",
         "contradict",
         "Record a contradiction",
         "Records an open contradiction between two entries; refused when the pair has one "
         "already, declared from either side. As 'dtk contradict --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "the entry that contradicts", NULL},
          {"other", 's', 1, NULL, "the entry it contradicts", NULL},
          {"note", 's', 1, "--note", "what conflicts", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"resolve",
         "resolve",
         "Resolve a contradiction",
         "Marks the contradiction of two entries resolved, whichever of them declares it. "
         "As 'dtk resolve --format json'.",
         {"--format", "json"},
         {{"id", 's', 1, NULL, "one entry of the pair", NULL},
          {"other", 's', 1, NULL, "the other", NULL},
          {"note", 's', 0, "--note", "how it was resolved", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        {"init",
         "init",
         "Start a new base",
         "Writes a minimal valid base (_domain.yaml, _sources.yaml, _crystallizations.yaml, "
         "INDEX.md) in the server's working directory; refused inside a base. As 'dtk init "
         "--format json'.",
         {"--format", "json"},
         {{"lang", 's', 0, "--lang", "the language of INDEX.md (default zh)", S_lang},
          {"domain", 's', 0, "--domain", "the domain's name (default: the directory's)", NULL},
          {"title", 's', 0, "--title", "INDEX.md's title", NULL},
          DRY_RUN},
         O_WRITE,
         0,
         -1},
        /* ---- end of the lifecycle tools ---- */
};
#define N_TOOLS (sizeof(S_tools) / sizeof(*S_tools))

/* ---- tools/list ---- */

static json_t *S_input_schema(const struct tool *t)
{
	json_t *props = json_object(), *req = json_array(), *p;
	const struct param *a;
	size_t i;

	for (a = t->params; a < t->params + S_MAX_PARAMS && a->name; a++) {
		if (a->type == 'l') {
			p = json_pack("{s:[{s:s},{s:s,s:{s:s}}]}", "anyOf", "type", "string",
			              "type", "array", "items", "type", "string");
		} else {
			p = json_pack("{s:s}", "type",
			              a->type == 'i'   ? "integer"
			              : a->type == 'b' ? "boolean"
			                               : "string");
			if (a->type == 'i')
				json_object_set_new(p, "minimum", json_integer(1));
		}
		json_object_set_new(p, "description", json_string(a->desc));
		if (a->choices) {
			json_t *e = json_array();
			for (i = 0; a->choices[i]; i++)
				json_array_append_new(e, json_string(a->choices[i]));
			json_object_set_new(p, "enum", e);
		}
		json_object_set_new(props, a->name, p);
		if (a->required)
			json_array_append_new(req, json_string(a->name));
	}
	return json_pack("{s:s,s:o,s:o,s:b}", "type", "object", "properties", props, "required",
	                 req, "additionalProperties", 0);
}

static json_t *S_output_schema(const struct tool *t)
{
	switch (t->shape) {
	case O_ENTRIES:
		return json_pack("{s:s,s:{s:{s:s,s:{s:s}}},s:[s]}", "type", "object", "properties",
		                 "entries", "type", "array", "items", "type", "object", "required",
		                 "entries");
	case O_ID:
		return json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties", "id",
		                 "type", "string", "required", "id");
	case O_CHECK:
		return json_pack("{s:s,s:{s:{s:s},s:{s:s}},s:[s,s]}", "type", "object",
		                 "properties", "valid", "type", "boolean", "index_current", "type",
		                 "boolean", "required", "valid", "index_current");
	case O_OBJECT:
	case O_WRITE: break;
	}
	return json_pack("{s:s}", "type", "object");
}

json_t *dtk_mcp_tools_list(void)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < N_TOOLS; i++) {
		const struct tool *t = &S_tools[i];
		if (!dtk_cmd_find(t->cmd))
			continue;
		json_array_append_new(
		        list,
		        json_pack("{s:s,s:s,s:s,s:o,s:o,s:{s:b,s:b,s:b,s:b}}", "name", t->name,
		                  "title", t->title, "description", t->desc, "inputSchema",
		                  S_input_schema(t), "outputSchema", S_output_schema(t),
		                  "annotations", "readOnlyHint", t->read_only, "destructiveHint", 0,
		                  "idempotentHint", t->read_only, "openWorldHint", 0));
	}
	return list;
}

/* ---- tools/call ---- */

struct argv {
	char **v;
	size_t n, cap;
};

static void S_push(struct argv *a, const char *s)
{
	dtk_grow((void **)&a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = dtk_xstrdup(s);
	a->v[a->n] = NULL;
}

static void S_argv_free(struct argv *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* Adds the words of s (split at white space) to a; returns how many. */
static size_t S_push_words(struct argv *a, const char *s)
{
	size_t n = 0, len;
	char *w;

	while (*s) {
		s += strspn(s, " \t\r\n");
		len = strcspn(s, " \t\r\n");
		if (!len)
			break;
		w = dtk_xstrndup(s, len);
		S_push(a, w);
		free(w);
		s += len;
		n++;
	}
	return n;
}

/* Builds the command line of tool t from args into a. Returns 0, or -1 with
 * the reason in buf. */
static int S_build(const struct tool *t, json_t *args, struct argv *a, char *buf, size_t size)
{
	struct argv ops = {NULL, 0, 0};
	const struct param *p;
	const char *key;
	json_t *v, *item;
	size_t i;
	int rc = -1;

	S_push(a, t->cmd);
	for (i = 0; i < 5 && t->fixed[i]; i++)
		S_push(a, t->fixed[i]);
	json_object_foreach(args, key, v)
	{
		for (p = t->params; p < t->params + S_MAX_PARAMS && p->name && strcmp(p->name, key); p++)
			;
		if (p == t->params + S_MAX_PARAMS || !p->name) {
			snprintf(buf, size, "tool '%s' has no argument '%s'", t->name, key);
			goto done;
		}
	}
	for (p = t->params; p < t->params + S_MAX_PARAMS && p->name; p++) {
		v = json_object_get(args, p->name);
		if (!v || json_is_null(v)) {
			if (p->required) {
				snprintf(buf, size, "tool '%s' needs the argument '%s'", t->name,
				         p->name);
				goto done;
			}
			continue;
		}
		if ((p->type == 's' || p->type == 'w') && !json_is_string(v))
			goto type;
		if (p->type == 'i' && (!json_is_integer(v) || json_integer_value(v) < 1))
			goto type;
		if (p->type == 'b' && !json_is_boolean(v))
			goto type;
		if (p->type == 'l' && !json_is_string(v) && !json_is_array(v))
			goto type;
		if (p->choices) {
			for (i = 0; p->choices[i] && strcmp(p->choices[i], json_string_value(v));
			     i++)
				;
			if (!p->choices[i])
				goto type;
		}
		if (p->type == 'b') {
			if (json_is_true(v))
				S_push(a, p->flag);
		} else if (p->type == 'i') {
			char num[32];
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			S_push(a, p->flag);
			S_push(a, num);
		} else if (p->type == 'w') {
			if (!S_push_words(&ops, json_string_value(v))) {
				snprintf(buf, size, "argument '%s' of tool '%s' holds no word",
				         p->name, t->name);
				goto done;
			}
		} else if (p->type == 'l' && json_is_array(v)) {
			json_array_foreach(v, i, item)
			{
				if (!json_is_string(item))
					goto type;
				S_push(p->flag ? a : &ops,
				       p->flag ? p->flag : json_string_value(item));
				if (p->flag)
					S_push(a, json_string_value(item));
			}
		} else if (p->flag) {
			S_push(a, p->flag);
			S_push(a, json_string_value(v));
		} else {
			S_push(&ops, json_string_value(v));
		}
	}
	S_push(a, "--");
	for (i = 0; i < ops.n; i++)
		S_push(a, ops.v[i]);
	rc = 0;
	goto done;
type:
	snprintf(buf, size, "argument '%s' of tool '%s' must be %s", p->name, t->name,
	         p->choices       ? "one of the values its schema lists"
	         : p->type == 'i' ? "an integer of 1 or more"
	         : p->type == 'b' ? "true or false"
	         : p->type == 'l' ? "a string or a list of strings"
	                          : "a string");
done:
	S_argv_free(&ops);
	return rc;
}

/* Returns the CallToolResult of a command that refused: its messages. */
static json_t *S_error_result(const char *out, const char *err, int status)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *r;

	dtk_buf_puts(&b, err);
	if (*out)
		dtk_buf_printf(&b, "%s%s", *err ? "\n" : "", out);
	if (!b.len)
		dtk_buf_printf(&b, "the command exited with status %d", status);
	r = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text", dtk_buf_cstr(&b),
	              "isError", 1);
	dtk_buf_release(&b);
	return r;
}

/* Returns the structured content of tool t's output (a new reference), or
 * NULL when it is not what the command promises. */
static json_t *S_shape(const struct tool *t, const char *out, int status)
{
	json_t *j = NULL;
	size_t len;

	switch (t->shape) {
	case O_CHECK: return json_pack("{s:b,s:b}", "valid", 1, "index_current", status == 0);
	case O_ID:
		len = strcspn(out, "\n");
		return len ? json_pack("{s:s%}", "id", out, len) : NULL;
	case O_ENTRIES:
		j = json_loads(out, 0, NULL);
		if (!json_is_array(j))
			break;
		return json_pack("{s:o}", "entries", j);
	case O_OBJECT:
		j = json_loads(out, 0, NULL);
		if (json_is_object(j))
			return j;
		break;
	case O_WRITE:
		j = json_loads(out, 0, NULL);
		if (json_is_object(j))
			return j;
		if (json_is_array(j))
			return json_pack("{s:o}", "entries", j);
		break;
	}
	json_decref(j);
	return NULL;
}

/* Runs the command line a; sets *out and *err (malloc'd) to what it wrote. */
static int S_run(struct argv *a, char **out, char **err)
{
	const struct dtk_cmd *cmd = dtk_cmd_find(a->v[0]);
	size_t olen = 0, elen = 0;
	struct dtk_ctx ctx;
	int rc;

	*out = *err = NULL;
	memset(&ctx, 0, sizeof(ctx));
	ctx.out = open_memstream(out, &olen);
	ctx.err = open_memstream(err, &elen);
	if (!ctx.out || !ctx.err)
		abort(); /* out of memory */
	dtk_error_clear();
	rc = dtk_cmd_run(&ctx, cmd, (int)a->n, a->v);
	fclose(ctx.out);
	fclose(ctx.err);
	return rc;
}

int dtk_mcp_tools_call(const char *name, json_t *args, json_t **result, const char **message,
                       char *msgbuf, size_t msgsize)
{
	const struct tool *t = NULL;
	struct argv a = {NULL, 0, 0};
	json_t *sc, *empty = NULL;
	char *out = NULL, *err = NULL, *text;
	size_t i;
	int rc;

	*result = NULL;
	for (i = 0; i < N_TOOLS && !t; i++)
		if (!strcmp(S_tools[i].name, name) && dtk_cmd_find(S_tools[i].cmd))
			t = &S_tools[i];
	if (!t) {
		snprintf(msgbuf, msgsize, "unknown tool '%s'", name);
		*message = msgbuf;
		return -1;
	}
	if (!args)
		args = empty = json_object();
	if (!json_is_object(args)) {
		*message = "arguments must be an object";
		return -1;
	}
	if (S_build(t, args, &a, msgbuf, msgsize) < 0) {
		json_decref(empty);
		S_argv_free(&a);
		*message = msgbuf;
		return -1;
	}
	rc = S_run(&a, &out, &err);
	if (rc != 0 && rc != t->ok_status) {
		*result = S_error_result(out, err, rc);
	} else if (!(sc = S_shape(t, rc && t->shape == O_ENTRIES ? "[]" : out, rc))) {
		*result = S_error_result(out,
		                         "dtk: error: the command's output is not what the "
		                         "tool promises\n",
		                         rc);
	} else {
		text = json_dumps(sc, JSON_COMPACT);
		*result = json_pack("{s:[{s:s,s:s}],s:o,s:b}", "content", "type", "text", "text",
		                    text, "structuredContent", sc, "isError", 0);
		free(text);
		if (*err) /* warnings beside a result */
			json_array_append_new(json_object_get(*result, "content"),
			                      json_pack("{s:s,s:s}", "type", "text", "text", err));
	}
	free(out);
	free(err);
	S_argv_free(&a);
	json_decref(empty);
	return 0;
}
