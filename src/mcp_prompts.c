/* mcp_prompts.c: the MCP server's prompts (the working loop, the monthly
 * review), the completion of their arguments and of the resource
 * template's, and the logging level. */
#include "mcp_prompts.h"

#include "dtk/cmd.h"
#include "dtk/dtk.h"
#include "dtk/kb.h"
#include "dtk/model.h"

#include <stdlib.h>
#include <string.h>

/* What an argument is completed from. */
enum { C_NONE, C_NODE, C_DATE, C_TODAY };

struct arg {
	const char *name, *description;
	int required, complete;
};

/* A prompt: its text is one user message; '@' stands for the tools'
 * prefix, and each argument given adds its line of more (in args' order). */
struct prompt {
	const char *name, *title, *description;
	struct arg args[2];
	const char *text;
	const char *more[2]; /* "%s": the argument's value (no '@' before it) */
};

static const struct prompt S_prompts[] = {
        {"working_loop",
         "Work on the base",
         "The working loop on the knowledge base: search before writing, add, relate, handle a "
         "refusal.",
         {{"topic", "what you are working on, in a few words", 1, C_NONE},
          {"node", "the node (topic file) the work belongs to", 0, C_NODE}},
         "Work on the knowledge base in this loop.\n"
         "1. Search before writing: call @search with the words of the topic, and @similar "
         "with any claim you mean to add; @show each entry you would rely on or extend, and "
         "read its open contradictions. Add nothing the base holds already: @verify, @review "
         "or @relate the entry that holds it.\n"
         "2. Add: @add a new claim with its node, title, claim, source and confidence. The "
         "source must be registered: look for it first, and @add_source only one that is not "
         "there. dry_run: true shows the diff without writing.\n"
         "3. Relate: @relate the new entry to the entries it builds on; @contradict one it "
         "disagrees with, with a note, rather than editing it.\n"
         "4. A refusal (an isError result) wrote nothing: its messages name the argument, "
         "what it got and the next step. Fix that argument and call again; never repeat a "
         "call unchanged, and never work around a refusal by editing the files.\n"
         "5. Record: @use the entries your work relied on, @cite those you quoted as "
         "evidence, @close them once the outcome is known.",
         {"\nThe topic: %s.", "\nThe node: %s (@show it first: its stance and entries)."}},
        {"monthly_review",
         "Monthly review",
         "The monthly review of the knowledge base: the plan, then the verdict on each entry "
         "it lists.",
         {{"date", "the day of the review, YYYY-MM-DD (default: today)", 0, C_TODAY},
          {"since", "look also at what changed since this date, YYYY-MM-DD", 0, C_DATE}},
         "Run the monthly review of the knowledge base.\n"
         "1. The plan: call @crystallize_plan and read its totals, then the next pages of "
         "its lists (its page argument). The plan writes nothing.\n"
         "2. The verdict, entry by entry: @review an entry you checked that still holds; "
         "@verify one another source corroborates; @confidence to change a level the "
         "evidence no longer supports; @supersede one a newer entry replaces; @retract one "
         "that proved wrong, with its reason; @resolve a contradiction that is settled; "
         "@stance for a node whose summary changed. Use dry_run first for what replaces "
         "text.\n"
         "3. Close with @check (and @reindex when it says the index is not current), then "
         "report the verdict: what was reviewed, changed, retired, and what is left open.",
         {"\nThe review's date: %s (give it to @crystallize_plan and to @review).",
          "\nAlso look at what changed since %s: @list with since."}},
};
#define N_PROMPTS (sizeof(S_prompts) / sizeof(S_prompts[0]))

/* The levels of logging/setLevel, least severe first. */
static const char *const S_levels[] = {"debug", "info",     "notice", "warning",
                                       "error", "critical", "alert",  "emergency"};

/* The most values a completion gives (MCP's limit). */
#define MAX_VALUES 100

static const struct prompt *S_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < N_PROMPTS; i++)
		if (!strcmp(S_prompts[i].name, name))
			return &S_prompts[i];
	return NULL;
}

/* Appends s to b with each '@' as prefix. */
static void S_put_text(struct dtk_buf *b, const char *s, const char *prefix)
{
	for (; *s; s++) {
		if (*s == '@')
			dtk_buf_puts(b, prefix);
		else
			dtk_buf_putc(b, *s);
	}
}

static json_t *S_list(void)
{
	json_t *list = json_array(), *args;
	size_t i, k;

	for (i = 0; i < N_PROMPTS; i++) {
		const struct prompt *p = &S_prompts[i];
		args = json_array();
		for (k = 0; k < 2 && p->args[k].name; k++)
			json_array_append_new(args,
			                      json_pack("{s:s,s:s,s:b}", "name", p->args[k].name,
			                                "description", p->args[k].description,
			                                "required", p->args[k].required));
		json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:o}", "name", p->name, "title",
		                                      p->title, "description", p->description,
		                                      "arguments", args));
	}
	return json_pack("{s:o}", "prompts", list);
}

/* Returns 0 when value fits argument a, else -1 with err set. */
static int S_check_arg(const struct arg *a, const char *value, char *err, size_t size)
{
	dtk_date d;
	char *root;
	int ok;

	if (a->complete == C_DATE || a->complete == C_TODAY) {
		if (dtk_date_parse(&d, value) == 0)
			return 0;
		snprintf(err, size, "argument %s must be a date, YYYY-MM-DD, not '%s'", a->name,
		         value);
		return -1;
	}
	if (a->complete != C_NODE)
		return 0;
	if (!(root = dtk_kb_find_root("."))) {
		snprintf(err, size, "%s", dtk_error_last());
		return -1;
	}
	ok = dtk_kb_has_node(root, value);
	free(root);
	if (!ok)
		snprintf(err, size,
		         "argument node: no node '%s' in the base (completion/complete lists "
		         "them)",
		         value);
	return ok ? 0 : -1;
}

/* prompts/get. Returns the result, or NULL with err set. */
static json_t *S_get(json_t *params, const char *prefix, char *err, size_t size)
{
	const char *name = json_string_value(json_object_get(params, "name")), *key;
	json_t *args = json_object_get(params, "arguments"), *v, *r = NULL;
	const struct prompt *p = S_find(name);
	struct dtk_buf b = DTK_BUF_INIT;
	const char *given[2] = {NULL, NULL};
	size_t k;

	if (!p) {
		snprintf(err, size,
		         "Unknown prompt: %s (prompts/list lists working_loop and "
		         "monthly_review)",
		         name ? name : "(no name)");
		return NULL;
	}
	if (args && !json_is_null(args) && !json_is_object(args)) {
		snprintf(err, size, "prompts/get's arguments must be an object of strings");
		return NULL;
	}
	json_object_foreach(args, key, v)
	{
		for (k = 0; k < 2 && p->args[k].name && strcmp(p->args[k].name, key); k++)
			;
		if (k == 2 || !p->args[k].name) {
			snprintf(err, size, "prompt %s takes no argument %s", p->name, key);
			return NULL;
		}
		if (!json_is_string(v)) {
			snprintf(err, size, "argument %s must be a string", key);
			return NULL;
		}
		given[k] = json_string_value(v);
		if (!*given[k])
			given[k] = NULL; /* empty: as not given (a client's blank field) */
		else if (S_check_arg(&p->args[k], given[k], err, size) < 0)
			return NULL;
	}
	for (k = 0; k < 2 && p->args[k].name; k++) {
		if (p->args[k].required && !given[k]) {
			snprintf(err, size, "prompt %s needs argument %s (%s)", p->name,
			         p->args[k].name, p->args[k].description);
			return NULL;
		}
	}
	S_put_text(&b, p->text, prefix);
	for (k = 0; k < 2; k++) {
		const char *at = given[k] ? strstr(p->more[k], "%s") : NULL;
		if (!at)
			continue;
		dtk_buf_put(&b, p->more[k], (size_t)(at - p->more[k]));
		dtk_buf_puts(&b, given[k]); /* as given: an '@' in it stays */
		S_put_text(&b, at + 2, prefix);
	}
	r = json_pack("{s:s,s:[{s:s,s:{s:s,s:s}}]}", "description", p->description, "messages",
	              "role", "user", "content", "type", "text", "text", dtk_buf_cstr(&b));
	dtk_buf_release(&b);
	if (!r)
		snprintf(err, size, "an argument is not UTF-8 text");
	return r;
}

/* Adds to values each of names that begins with prefix (in their order),
 * then those that hold it elsewhere; counts every match in *total. */
static void S_match(json_t *values, size_t *total, char **names, size_t n, const char *prefix)
{
	size_t i, len = strlen(prefix);
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			int begins = !strncmp(names[i], prefix, len);
			if (pass == 0 ? !begins : (begins || !strstr(names[i], prefix)))
				continue;
			if (json_array_size(values) < MAX_VALUES)
				json_array_append_new(values, json_string(names[i]));
			(*total)++;
		}
}

static int S_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* Sets *out to the distinct dates of the base's live entries (created and
 * reviewed), newest first, as YYYY-MM-DD strings; returns their count. */
static size_t S_dates(char ***out, struct dtk_kb_hold **hold, const char *root)
{
	struct dtk_ctx ctx = {.root = root, .hold = hold};
	struct dtk_kb *kb;
	char **v = NULL, buf[16];
	size_t n = 0, cap = 0, i, k, w;
	dtk_date d[2];

	*out = NULL;
	if (dtk_cmd_held(&ctx, &kb) < 0)
		return 0;
	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->n_entries; k++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[k];
			d[0] = e->created;
			d[1] = e->reviewed;
			for (w = 0; w < 2; w++) {
				if (!d[w])
					continue;
				dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
				v[n++] = dtk_xstrdup(dtk_date_format(buf, d[w]));
			}
		}
	if (n)
		qsort(v, n, sizeof(*v), S_desc);
	for (i = w = 0; i < n; i++) { /* each once */
		if (w && !strcmp(v[w - 1], v[i]))
			free(v[i]);
		else
			v[w++] = v[i];
	}
	*out = v;
	return w;
}

/* completion/complete. Returns the result, or NULL with err set. */
static json_t *S_complete(json_t *params, struct dtk_kb_hold **hold, char *err, size_t size)
{
	json_t *ref = json_object_get(params, "ref"), *arg = json_object_get(params, "argument");
	const char *type = json_string_value(json_object_get(ref, "type"));
	const char *name = json_string_value(json_object_get(arg, "name"));
	const char *value = json_string_value(json_object_get(arg, "value"));
	json_t *values = json_array();
	const struct prompt *p;
	int how = C_NONE;
	size_t total = 0, n = 0, k;
	char **names = NULL, *root = NULL, today[16];
	int got;

	if (!json_is_object(ref) || !type || !name || !value) {
		json_decref(values);
		snprintf(err, size,
		         "completion/complete needs ref (an object with its type) and "
		         "argument (its name and value, strings)");
		return NULL;
	}
	if (!strcmp(type, "ref/prompt") &&
	    (p = S_find(json_string_value(json_object_get(ref, "name"))))) {
		for (k = 0; k < 2 && p->args[k].name; k++)
			if (!strcmp(p->args[k].name, name))
				how = p->args[k].complete;
	} else if (!strcmp(type, "ref/resource") && json_is_string(json_object_get(ref, "uri")) &&
	           !strcmp(json_string_value(json_object_get(ref, "uri")), "dtk://node/{name}") &&
	           !strcmp(name, "name")) {
		how = C_NODE;
	} /* else nothing to offer: no values */
	if (how == C_TODAY) {
		char *t = dtk_date_format(today, dtk_date_today());
		S_match(values, &total, &t, 1, value);
	} else if (how != C_NONE && (root = dtk_kb_find_root("."))) {
		got = how == C_NODE ? dtk_kb_list_nodes(&names, root)
		                    : (int)S_dates(&names, hold, root);
		n = got > 0 ? (size_t)got : 0;
		S_match(values, &total, names, n, value);
	}
	if (n)
		dtk_strv_free(names, n);
	free(root);
	return json_pack("{s:{s:o,s:I,s:b}}", "completion", "values", values, "total",
	                 (json_int_t)total, "hasMore", total > json_array_size(values));
}

int dtk_mcp_prompts_method(const char *method, json_t *params, const char *prefix, int *log_level,
                           struct dtk_kb_hold **hold, json_t **result, char *err, size_t size)
{
	const char *level;
	size_t i;

	*result = NULL;
	if (!strcmp(method, "prompts/list")) {
		*result = S_list(); /* a cursor is refused before (mcp.c) */
	} else if (!strcmp(method, "prompts/get")) {
		*result = S_get(params, prefix, err, size);
	} else if (!strcmp(method, "completion/complete")) {
		*result = S_complete(params, hold, err, size);
	} else if (!strcmp(method, "logging/setLevel")) {
		level = json_string_value(json_object_get(params, "level"));
		for (i = 0; level && i < sizeof(S_levels) / sizeof(S_levels[0]); i++)
			if (!strcmp(level, S_levels[i])) {
				*log_level = (int)i;
				*result = json_object();
			}
		if (!*result)
			snprintf(err, size,
			         "logging/setLevel needs level: debug, info, notice, warning, "
			         "error, "
			         "critical, alert or emergency");
	} else {
		return 0;
	}
	return *result ? 1 : -1;
}
