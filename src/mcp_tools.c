/*
 * mcp_tools.c: dtk's MCP tools, each a dtk command run in-process
 * (dtk_cmd_run on memory streams) with its arguments built from the tool's.
 *
 * A tool's arguments are its command's declaration (cmd.h): each option it
 * takes, named in `opts` by its long name, is an argument of the same name
 * ('-' as '_') with the option's type, choices, help and whether it is
 * required; each operand of the command's .operands, in order, is an
 * argument named in `operands`, "name: what it is" (its marks before the
 * colon: '?' optional, '|' one of `choices` or else of the alternatives its
 * placeholder lists, "<add|edit>", '*' words: a string split at spaces);
 * one whose placeholder ends in "..." takes a string or a list. A tool that
 * pages (H_PAGES) takes limit and cursor besides, the server's own.
 *
 * Adding a tool for a write command is one entry of S_tools below: its name
 * (its command's, '-' as '_'), a description saying what it is for and when
 * to call it (each other tool named @<name>: '@' stands for the tools'
 * prefix), its operands and options, its hints (H_IDEMPOTENT when a second
 * identical call changes nothing more, H_DESTRUCTIVE when it replaces or
 * removes what was there). tools/list lists it from then on whenever dtk
 * has the command; docs/agents.md lists it in its table.
 *
 * A tool's result is its command's output (--format json) as the command
 * wrote it (on one line: dtk_json_tight; with the page the tool asks for,
 * struct dtk_page: a list's page of short entries and a cursor, show's
 * backlinks cut; a write's entries without their backlinks), but for
 * next_id's line and check's exit status, made JSON here.
 */
#define _GNU_SOURCE /* open_memstream */
#include "mcp_tools.h"

#include "dtk/cmd.h"
#include "dtk/dtk.h"
#include "dtk/json.h"
#include "dtk/model.h"
#include "dtk/search.h"
#include "dtk/view.h"
#include "dtk/ytree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a tool's output becomes structuredContent (O_OBJECT unless a tool
 * says otherwise). */
enum shape {
	O_OBJECT, /* the command's JSON object */
	O_PAGE,   /* the command's JSON object: a page of a list (view.h) */
	O_ID,     /* the command's JSON object, {"id": "..."} */
	O_CHECK,  /* {"valid": bool, "index_current": bool} from the exit status */
};

/* What a tool does to the base (its annotations), and whether it pages. */
enum { H_READ_ONLY = 1, H_IDEMPOTENT = 2, H_DESTRUCTIVE = 4, H_PAGES = 8 };

#define MAX_PARAMS 12 /* the most a tool takes (add) */

struct tool {
	const char *name;
	const char *cmd;   /* NULL: the command named as the tool, '_' as '-' */
	const char *title; /* NULL: its command's summary */
	const char *desc;
	/* arguments after the command's name (none: --format json, but for
	 * O_CHECK, which reads the exit status) */
	const char *fixed[5];
	const char *operands[2];    /* "name: what", its command's operands in order */
	const char *opts;           /* its command's options it takes, space-separated */
	const char *const *choices; /* of a '|' operand whose placeholder lists none */
	enum shape shape;
	unsigned hints;
	int ok_status; /* an exit status besides 0 that is not an error (0: none) */
};

/* One argument of a tool, as S_params makes it from the tool and its
 * command: its JSON type ('s' string, 'e' one of choices, 'd' date, 'b'
 * boolean, 'l' string or list of strings, 'w' words: a string split at
 * spaces, 'i' a number from 1 to PAGE_MAX, 'p' page size, 'c' cursor: the
 * last two the server's own), the option it becomes (flag; "": an operand,
 * in order). */
struct param {
	char name[32];
	char flag[34]; /* "--<long name>" */
	char num[8];   /* the value of an 'i', as the command line gives it */
	char type;
	int required;
	const char *desc; /* its help: '\n' a space, "--x" the argument x, '@' the prefix */
	const char *const *choices;
	const char *alt[8]; /* the choices of a placeholder "<a|b|c>" */
	char alts[64];
};

/* A page of a list: its default and largest size. */
#define PAGE_DEFAULT 20
#define PAGE_MAX 100
#define ERROR_LINES 20                 /* a refusal's lines a tool result holds, the last kept */
#define ARG_BYTES DTK_MAX_SCALAR_BYTES /* a string argument, as any value of a base */
#define ERROR_LINE_BYTES 400           /* and the bytes of each (a value repeated whole is cut) */
#define LIST_MAX 1000                  /* strings in a list argument (each looked up) */

#define W "dry-run"
#define READ (H_READ_ONLY | H_IDEMPOTENT)
#define IDS "ids: entry ids (one or a list)"

static const struct tool S_tools[] = {
        {.name = "show",
         .desc = "Reads one entry in full (claim, confidence, dates, sources, relations, "
                 "contradictions) or one node (stance, Bloom level, every entry), with what names "
                 "it (referenced_by: entries relating to or contradicting it). Call it before "
                 "relying on or citing an entry that @list or @search returned in short form, and "
                 "read any open contradiction it shows. A node's entries come limit at a time "
                 "(default 20): entries_total counts them, and nextCursor, passed as cursor, "
                 "gives the next ones (a page also ends after 4.5 KB of entries). A referenced_by "
                 "list holds at most 50; referenced_by_total counts a longer one. A source id "
                 "gives the source: {id, title, url, read, revised}.",
         .operands = {"target: a node name, an entry id (<node>-<suffix>) or a source id (@sources "
                      "finds one)"},
         .hints = READ | H_PAGES},
        {.name = "list",
         .desc = "Browses the entries that match every filter given, in the index's order, a page "
                 "at a time in short form (id, title, confidence, freshness date, the claim's "
                 "first 160 characters; a page ends after 7 KB of entries); pass the "
                 "result's nextCursor as cursor for the next page, and call @show for an entry's "
                 "whole text. To find entries on a topic, @search is better.",
         .opts = "node confidence since stale-at candidates include-retired",
         .shape = O_PAGE,
         .hints = READ | H_PAGES},
        {.name = "search",
         .desc = "Finds the entries on a topic: every word of the query must occur in the entry's "
                 "id, title, claim or a source's title (compared without case or width; "
                 "substrings, so Chinese or Japanese need no spaces). Best first, a page at a "
                 "time in short form, as @list gives them. Search before adding an entry, so as "
                 "not to add what the base holds.",
         .operands = {"query*: words separated by spaces; every one must match"},
         .opts = "node confidence include-retired",
         .shape = O_PAGE,
         .hints = READ | H_PAGES,
         .ok_status = 1},
        {.name = "sources",
         .cmd = "search",
         .title = "Find sources",
         .desc = "Finds the registered sources (papers, documents, pages) whose id, title or url "
                 "hold every word of query (compared as @search compares), in the order of "
                 "_sources.yaml, a page at a time (id, title, url, read, revised); without query, "
                 "every source. Call it before @add_source, so as not to register a source twice, "
                 "and for the id @add needs.",
         .fixed = {"--sources", "--format", "json"},
         .operands = {"query*?: words separated by spaces; every one must match"},
         .shape = O_PAGE,
         .hints = READ | H_PAGES,
         .ok_status = 1},
        {.name = "similar",
         .desc = "The live entries most alike a text (words and Chinese character pairs after "
                 "folding, weighed by rarity: BM25), best first, a page at a time, each with a "
                 "score from 0 to 1 and same_claim. @add refuses a new entry with the same claim "
                 "as a live one, or scoring 0.60 or more against one it does not name in "
                 "distinct_from or relates, and shows the closest: call this before adding.",
         .fixed = {"--format", "json", "--limit", "100"},
         .operands = {"text: the text to compare: a claim, or a title and claim"},
         .opts = "node",
         .shape = O_PAGE,
         .hints = READ | H_PAGES,
         .ok_status = 1},
        {.name = "next_id",
         .desc = "A fresh id for an entry written by hand (random; not a sequence number). @add "
                 "gives its entry one on its own: this is for naming an entry before it is added.",
         .operands = {"node: a node name"},
         .shape = O_ID,
         .hints = READ},
        {.name = "check",
         .desc = "Validates every file of the base and compares INDEX.md with what it should be. "
                 "Call it after files were edited by hand; the write tools validate on their own. "
                 "Invalid data is an error result holding every path:line:col message.",
         .shape = O_CHECK,
         .hints = READ,
         .ok_status = 1},
        {.name = "reindex",
         .desc = "Validates the base and writes INDEX.md anew when it differs from what the files "
                 "say: call it when @check answers index_current false (after files were edited "
                 "by hand); the write tools keep INDEX.md current on their own. Returns whether "
                 "it was written.",
         .hints = H_IDEMPOTENT},
        {.name = "crystallize_plan",
         .cmd = "crystallize",
         .title = "Crystallization worklist",
         .desc = "What a crystallization (the periodic review of the base) would work through: "
                 "new and changed entries, pairs of entries to review together, stale entries, "
                 "candidates for high confidence. Writes nothing. Each list holds a page of its "
                 "items (limit a page, default 20; review pairs: those of limit new entries) and "
                 "totals says how long each is; next_page, passed as page, gives the next page of "
                 "every list.",
         .fixed = {"--plan", "--format", "json"},
         .opts = "date limit page",
         .hints = READ},
        {.name = "add",
         .desc = "Records a new insight: an entry of a node with its claim, its source and a "
                 "confidence; it gets a fresh id. Search first: to dispute an entry call "
                 "@contradict, to corroborate one call @verify. The base is validated with the "
                 "entry before anything is written. Refused when a live entry has the same claim, "
                 "or scores 0.60 or more (see @similar) and distinct_from or relates does not "
                 "name it. Returns its id and title, and closest: the most alike live entries "
                 "with their scores, likely_restatement marked at 0.10 or more; @relate, "
                 "@supersede or @retract where the new entry restates one.",
         .operands = {"node: the node to add to (@add_node makes a new one)"},
         .opts = "title claim source confidence verified-by relates created allow-future "
                 "distinct-from dry-run"},
        {.name = "add_source",
         .desc = "Registers a source (a paper, a document, a page) so that entries can name it as "
                 "their source or in verified_by (call @sources first: it may be there). Returns "
                 "its id.",
         .operands = {"id: the new source's id (a name: letters, digits, -)"},
         .opts = "title url read allow-future dry-run",
         .hints = H_IDEMPOTENT},
        {.name = "add_node",
         .desc = "Creates a node (a topic that holds entries) in a category of the domain; @add "
                 "needs the node to exist. Returns its name.",
         .operands = {"node: the new node's name (letters, digits, -)"},
         .opts = "category bloom dry-run",
         .hints = H_IDEMPOTENT},
        {.name = "use",
         .desc = "Records that entries were relied on in your work (each one's used count + 1): "
                 "call it for the entries an answer or a change of yours rests on. Every call "
                 "counts.",
         .operands = {IDS},
         .opts = W},
        {.name = "cite",
         .desc = "Records that entries were cited as evidence to a user or in a document (cited + "
                 "1). @use is for relying on an entry, @cite for quoting it. Every call counts.",
         .operands = {IDS},
         .opts = W},
        {.name = "close",
         .desc = "Marks entries closed: the outcome of acting on them was fed back into the base, "
                 "and their loop is done.",
         .operands = {IDS},
         .opts = W,
         .hints = H_IDEMPOTENT},
        {.name = "verify",
         .desc = "Records an independent source that corroborates an entry (verified_by); with "
                 "promote, also raises its confidence to high (refused unless the base's policy "
                 "then holds).",
         .operands = {"id: the entry's id", "source: the corroborating source's id"},
         .opts = "promote dry-run",
         .hints = H_IDEMPOTENT},
        {.name = "review",
         .desc = "Records that entries were checked and still hold (reviewed: the date), which "
                 "makes them fresh again.",
         .operands = {IDS},
         .opts = "date allow-future dry-run",
         .hints = H_IDEMPOTENT},
        {.name = "relate",
         .desc = "Records that an entry relates to another (its relates list).",
         .operands = {"id: the entry that relates", "other: the entry it relates to"},
         .opts = W,
         .hints = H_IDEMPOTENT},
        {.name = "contradict",
         .desc = "Records an open contradiction: an entry conflicts with another, with a note "
                 "saying how. Call it instead of rewriting a claim you doubt; @show lists it on "
                 "both entries until @resolve closes it. Refused when the pair has one already, "
                 "from either side.",
         .operands = {"id: the entry that contradicts", "other: the entry it contradicts"},
         .opts = "note dry-run",
         .hints = H_IDEMPOTENT},
        {.name = "resolve",
         .desc = "Marks the contradiction of two entries resolved, whichever of them declares it, "
                 "its note replaced by note when given.",
         .operands = {"id: one entry of the pair", "other: the other"},
         .opts = "note dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "stance",
         .desc = "Sets a node's stance: the base's current core position on the topic, in a "
                 "sentence, replacing the one before.",
         .operands = {"node: the node", "text: the stance, plain text"},
         .opts = W,
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "bloom",
         .desc = "Sets a node's Bloom level: how deep the base's understanding of the topic goes, "
                 "from remember (facts) to create (new designs), replacing the one before.",
         .operands = {"node: the node", "level|: the level"},
         .opts = W,
         .choices = dtk_bloom_names,
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "gap",
         .desc = "Adds, edits, closes or removes a knowledge gap of the domain: a topic known to "
                 "be missing from the base, listed in INDEX.md. add takes the text as target and "
                 "returns the new gap's id; the other actions name the gap by its id (or its "
                 "place in the list from 1). Name the nodes a gap is about: the crystallization "
                 "plan asks to re-read it once they get entries.",
         .operands = {"action|: what to do", "target: add: the gap's text; else the gap's id"},
         .opts = "text flagged-by node date allow-future dry-run",
         .hints = H_DESTRUCTIVE},
        {.name = "hotspot",
         .desc = "Adds, edits or removes a cross-domain hotspot: a node of this domain linked to "
                 "nodes of other domains (domain/node), with a note on what links them; listed in "
                 "INDEX.md. add takes the node as target and returns the new hotspot's id; edit "
                 "and remove name the hotspot by its id (or its place in the list from 1).",
         .operands = {"action|: what to do", "target: add: the node; else the hotspot's id"},
         .opts = "link note dry-run",
         .hints = H_DESTRUCTIVE},
        {.name = "edit",
         .desc = "Corrects an entry's title, claim or source in place (its id stays) and dates "
                 "the revision, so that the next crystallization reviews it. For a claim that no "
                 "longer holds, @supersede or @retract it instead; for one you doubt, @contradict "
                 "it.",
         .operands = {"id: the entry's id"},
         .opts = "title claim source date allow-future dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "edit_source",
         .desc = "Corrects a source's title or URL in place (its id stays) and dates the revision.",
         .operands = {"id: the source's id"},
         .opts = "title url date allow-future dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "confidence",
         .desc = "Sets the confidence of entries: lowering always works, high only for an entry "
                 "with the policy's number of corroborating sources. With qualified (and level "
                 "high), raises every entry that meets the rule.",
         .operands = {"level|: the confidence to set",
                      "ids?: entry ids (one or a list); none with qualified"},
         .opts = "qualified dry-run",
         .choices = dtk_confidence_names,
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "unrelate",
         .desc = "Removes one entry from another's relates: the relation was recorded by mistake.",
         .operands = {"id: the entry that relates", "other: the entry it no longer relates to"},
         .opts = W,
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "unverify",
         .desc = "Removes a source from an entry's verified_by (it does not corroborate it after "
                 "all); refused when a high entry would break the policy, unless confidence "
                 "lowers it in the same call.",
         .operands = {"id: the entry's id", "source: the source to remove"},
         .opts = "confidence dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "supersede",
         .desc = "Marks an older entry replaced by a newer one that says better what it said: the "
                 "old one stays in its file as history, out of counts, lists and search. Add the "
                 "new entry first.",
         .operands = {"old: the entry replaced", "new: the live entry that replaces it"},
         .opts = "date allow-future dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "retract",
         .desc = "Withdraws entries found wrong, with the reason: they stay in their files as "
                 "tombstones, out of counts, lists and search. For a claim in dispute, "
                 "@contradict it instead.",
         .operands = {IDS},
         .opts = "reason date allow-future dry-run",
         .hints = H_IDEMPOTENT | H_DESTRUCTIVE},
        {.name = "init",
         .desc = "Writes a minimal valid base (_domain.yaml, _sources.yaml, "
                 "_crystallizations.yaml, INDEX.md) in the server's working directory, when it is "
                 "not inside a base yet.",
         .opts = "lang domain title dry-run",
         .hints = H_IDEMPOTENT},
};
#define N_TOOLS (sizeof(S_tools) / sizeof(*S_tools))

/* ---- the arguments, from the command's declaration ---- */

/* Sets p to the operand of tool spec s ("name: what") whose placeholder in
 * the command's operands is ph[0..n) ("<entry-id>...", n 0: none). */
static void S_operand(const struct tool *t, const char *s, const char *ph, size_t n,
                      struct param *p)
{
	size_t len = strcspn(s, "?|*:"), marks = strcspn(s, ":"), i = 0;
	char *w;

	snprintf(p->name, sizeof(p->name), "%.*s", (int)len, s);
	p->desc = s + marks + 2;
	p->required = !memchr(s, '?', marks);
	p->type = memchr(s, '*', marks) ? 'w' : n > 3 && !strncmp(ph + n - 3, "...", 3) ? 'l' : 's';
	if (!memchr(s, '|', marks))
		return;
	p->type = 'e';
	p->choices = t->choices;
	if (p->choices || n < 2)
		return;
	snprintf(p->alts, sizeof(p->alts), "%.*s", (int)(strcspn(ph, ">") - 1), ph + 1);
	for (w = p->alts; i + 1 < sizeof(p->alt) / sizeof(*p->alt) && *w; *w ? *w++ = '\0' : 0) {
		p->alt[i++] = w;
		w += strcspn(w, "|");
	}
	p->choices = p->alt;
}

/* Sets p to the option called name[0..n) of cmd: its argument's name, type
 * and help. A string option whose value is named D or DATE is a date. */
static void S_option(const struct dtk_cmd *cmd, const char *name, size_t n, struct param *p)
{
	const struct dtk_opt *o = cmd->opts;
	char *c;

	while (o->name && (strlen(o->name) != n || strncmp(o->name, name, n)))
		o++;
	if (!o->name)
		abort(); /* S_tools names an option its command lacks */
	snprintf(p->flag, sizeof(p->flag), "--%s", o->name);
	snprintf(p->name, sizeof(p->name), "%s", o->name);
	for (c = p->name; (c = strchr(c, '-')) != NULL;)
		*c = '_';
	p->desc = o->help;
	p->required = (o->flags & (DTK_OPT_REQUIRED | DTK_OPT_NEEDED)) != 0;
	p->choices = o->choices;
	p->type = o->choices                ? 'e'
	          : o->type == DTK_OPT_FLAG ? 'b'
	          : o->type == DTK_OPT_LIST ? 'l'
	          : o->type == DTK_OPT_INT  ? 'i'
	                                    : 's';
	if (o->type == DTK_OPT_DATE || (o->type == DTK_OPT_STRING && o->arg &&
	                                (!strcmp(o->arg, "D") || !strcmp(o->arg, "DATE"))))
		p->type = 'd';
}

/* Returns the command tool t runs, or NULL when dtk lacks it. */
static const struct dtk_cmd *S_cmd(const struct tool *t)
{
	char name[32], *c;

	if (t->cmd)
		return dtk_cmd_find(t->cmd);
	snprintf(name, sizeof(name), "%s", t->name);
	for (c = name; (c = strchr(c, '_')) != NULL;)
		*c = '-';
	return dtk_cmd_find(name);
}

/* Fills ps (MAX_PARAMS) with tool t's arguments: its operands, its options,
 * then the server's own; returns how many. */
static size_t S_params(const struct tool *t, struct param *ps)
{
	static const struct param own[] = {
	        {.name = "limit", .type = 'p', .desc = "items per page (1 to 100; default 20)"},
	        {.name = "cursor",
	         .type = 'c',
	         .desc = "the nextCursor of the page before, for the next one"}};
	const struct dtk_cmd *cmd = S_cmd(t);
	const char *ph = cmd ? cmd->operands : NULL, *o = t->opts ? t->opts : "";
	size_t n = 0, i, len;

	memset(ps, 0, MAX_PARAMS * sizeof(*ps));
	for (i = 0; i < 2 && t->operands[i]; i++) {
		ph = ph ? strchr(ph, '<') : NULL;
		len = ph ? strcspn(ph, " ]") : 0;
		S_operand(t, t->operands[i], ph, len, &ps[n++]);
		ph = ph ? ph + len : NULL;
	}
	for (; cmd && *o; o += len + (o[len] == ' ')) {
		len = strcspn(o, " ");
		S_option(cmd, o, len, &ps[n++]);
	}
	for (i = 0; (t->hints & H_PAGES) && i < 2; i++)
		ps[n++] = own[i];
	return n;
}

/* ---- tools/list ---- */

/* Appends help h of an argument (or a text for a model) to b: each '\n' a
 * space, each option "--x-y" the argument "x_y", each '@' prefix. */
static void S_put_help(struct dtk_buf *b, const char *prefix, const char *h)
{
	while (*h) {
		if (h[0] == '-' && h[1] == '-' && h[2] >= 'a' && h[2] <= 'z') {
			for (h += 2; (*h >= 'a' && *h <= 'z') || *h == '-'; h++)
				dtk_buf_putc(b, *h == '-' ? '_' : *h);
			continue;
		}
		if (*h == '@')
			dtk_buf_puts(b, prefix);
		else
			dtk_buf_putc(b, *h == '\n' ? ' ' : *h);
		h++;
	}
}

json_t *dtk_mcp_prefixed(const char *prefix, const char *s)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *r;

	S_put_help(&b, prefix, s); /* no '\n' or "--" in the texts it is given */
	r = json_string(dtk_buf_cstr(&b));
	dtk_buf_release(&b);
	return r;
}

_Static_assert(N_TOOLS <= 64, "a set of tools is 64 bits");

/* Returns 1 when tool i is in set and dtk has its command. */
static int S_in(uint64_t set, size_t i)
{
	return (set >> i & 1) && S_cmd(&S_tools[i]);
}

static const struct tool *S_find(const char *prefix, uint64_t set, const char *name)
{
	size_t i, n = strlen(prefix);

	if (strncmp(name, prefix, n))
		return NULL;
	for (i = 0; i < N_TOOLS; i++)
		if (!strcmp(S_tools[i].name, name + n) && S_in(set, i))
			return &S_tools[i];
	return NULL;
}

int dtk_mcp_tools_write(uint64_t set)
{
	size_t i;
	for (i = 0; i < N_TOOLS; i++)
		if (S_in(set, i) && !(S_tools[i].hints & H_READ_ONLY))
			return 1;
	return 0;
}

int dtk_mcp_tools_select(uint64_t *out, const char *names, int read_only, char *msgbuf,
                         size_t msgsize)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const char *p = names;
	size_t i, n, k;
	int rc = 0;

	*out = 0;
	for (i = 0; !names && i < N_TOOLS; i++)
		if (!read_only || (S_tools[i].hints & H_READ_ONLY))
			*out |= 1ull << i;
	while (names && !rc) {
		n = strcspn(p, ",");
		for (i = 0; i < N_TOOLS && !(strlen(S_tools[i].name) == n &&
		                             !strncmp(S_tools[i].name, p, n) && S_in(~0ull, i));
		     i++)
			;
		if (i == N_TOOLS || (read_only && !(S_tools[i].hints & H_READ_ONLY))) {
			dtk_buf_printf(&b, "'%.*s' is %s; the %stools are", (int)n, p,
			               i == N_TOOLS ? "no tool"
			                            : "a tool that writes (--read-only)",
			               read_only ? "read " : "");
			for (i = 0, k = 0; i < N_TOOLS; i++)
				if (S_in(~0ull, i) &&
				    (!read_only || (S_tools[i].hints & H_READ_ONLY)))
					dtk_buf_printf(&b, "%s %s", k++ ? "," : "",
					               S_tools[i].name);
			snprintf(msgbuf, msgsize, "%s", b.ptr);
			rc = -1;
		} else {
			*out |= 1ull << i;
		}
		if (rc || !p[n])
			break;
		p += n + 1;
	}
	dtk_buf_release(&b);
	return rc;
}

/* Returns the tool that runs command cmd, or NULL. */
static const struct tool *S_for_cmd(const char *cmd, size_t len)
{
	const struct dtk_cmd *c;
	size_t i;

	for (i = 0; i < N_TOOLS; i++)
		if ((c = S_cmd(&S_tools[i])) && strlen(c->name) == len &&
		    !strncmp(c->name, cmd, len) &&
		    (!S_tools[i].fixed[0] || !strcmp(S_tools[i].fixed[0], "--format")))
			return &S_tools[i]; /* not crystallize_plan for crystallize */
	return NULL;
}

static json_t *S_param_schema(const char *prefix, const struct param *a)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *p, *e;
	size_t i;

	switch (a->type) {
	case 'l':
		p = json_pack("{s:[{s:s},{s:s,s:{s:s},s:i}]}", "anyOf", "type", "string", "type",
		              "array", "items", "type", "string", "maxItems", LIST_MAX);
		break;
	case 'b': p = json_pack("{s:s}", "type", "boolean"); break;
	case 'i':
	case 'p':
		p = json_pack("{s:s,s:i,s:i}", "type", "integer", "minimum", 1, "maximum",
		              PAGE_MAX);
		if (a->type == 'p')
			json_object_set_new(p, "default", json_integer(PAGE_DEFAULT));
		break;
	case 'd':
		p = json_pack("{s:s,s:s}", "type", "string", "pattern",
		              "^[0-9]{4}-[0-9]{2}-[0-9]{2}$");
		break;
	default: p = json_pack("{s:s}", "type", "string");
	}
	S_put_help(&b, prefix, a->desc);
	json_object_set_new(p, "description", json_string(dtk_buf_cstr(&b)));
	dtk_buf_release(&b);
	if (a->choices) {
		e = json_array();
		for (i = 0; a->choices[i]; i++)
			json_array_append_new(e, json_string(a->choices[i]));
		json_object_set_new(p, "enum", e);
	}
	return p;
}

static json_t *S_input_schema(const char *prefix, const struct tool *t)
{
	json_t *props = json_object(), *req = json_array();
	struct param ps[MAX_PARAMS];
	size_t i, n = S_params(t, ps);

	for (i = 0; i < n; i++) {
		json_object_set_new(props, ps[i].name, S_param_schema(prefix, &ps[i]));
		if (ps[i].required)
			json_array_append_new(req, json_string(ps[i].name));
	}
	return json_pack("{s:s,s:o,s:o,s:b}", "type", "object", "properties", props, "required",
	                 req, "additionalProperties", 0);
}

static json_t *S_output_schema(const struct tool *t)
{
	switch (t->shape) {
	case O_PAGE:
		return json_pack("{s:s,s:{s:{s:s,s:{s:s}},s:{s:s},s:{s:s}},s:[s,s]}", "type",
		                 "object", "properties", "entries", "type", "array", "items",
		                 "type", "object", "total", "type", "integer", "nextCursor", "type",
		                 "string", "required", "entries", "total");
	case O_ID:
		return json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties", "id",
		                 "type", "string", "required", "id");
	case O_CHECK:
		return json_pack("{s:s,s:{s:{s:s},s:{s:s}},s:[s,s]}", "type", "object",
		                 "properties", "valid", "type", "boolean", "index_current", "type",
		                 "boolean", "required", "valid", "index_current");
	case O_OBJECT: break;
	}
	return json_pack("{s:s}", "type", "object");
}

json_t *dtk_mcp_tools_list(const char *prefix, uint64_t set)
{
	json_t *list = json_array();
	char name[200];
	size_t i;

	for (i = 0; i < N_TOOLS; i++) {
		const struct tool *t = &S_tools[i];
		if (!S_in(set, i))
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, t->name);
		json_array_append_new(
		        list,
		        json_pack("{s:s,s:s,s:o,s:o,s:o,s:{s:b,s:b,s:b,s:b}}", "name", name,
		                  "title", t->title ? t->title : S_cmd(t)->summary, "description",
		                  dtk_mcp_prefixed(prefix, t->desc), "inputSchema",
		                  S_input_schema(prefix, t), "outputSchema", S_output_schema(t),
		                  "annotations", "readOnlyHint", !!(t->hints & H_READ_ONLY),
		                  "destructiveHint", !!(t->hints & H_DESTRUCTIVE), "idempotentHint",
		                  !!(t->hints & H_IDEMPOTENT), "openWorldHint", 0));
	}
	return list;
}

/* ---- arguments ---- */

/* A command line: its words borrowed (from the tool's arguments, which
 * outlive it, or the table), never copied, but those of a words argument,
 * cut out of a copy of it. */
struct argv {
	const char **v;
	size_t n, cap;
	char *words; /* the copy of a words argument (one a tool at most) */
};

static void S_push(struct argv *a, const char *s)
{
	dtk_grow((void **)&a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void S_argv_free(struct argv *a)
{
	free(a->v);
	free(a->words);
}

/* Adds the words of s (split at white space: U+3000 and the other Unicode
 * spaces too) to ops, each cut out of a copy of s that a keeps, no more than
 * DTK_SEARCH_MAX_WORDS + 1; returns how many. */
static size_t S_push_words(struct argv *a, struct argv *ops, const char *s)
{
	size_t len, sp, end = strlen(s), n = 0;
	char *w = a->words = dtk_xstrdup(s), *stop = w + end;

	while (w < stop && n <= DTK_SEARCH_MAX_WORDS) {
		while ((sp = dtk_fold_space_len(w, (size_t)(stop - w))) > 0)
			w += sp;
		for (len = 0; w + len < stop &&
		              !(sp = dtk_fold_space_len(w + len, (size_t)(stop - w) - len));)
			len++;
		if (!len)
			break;
		S_push(ops, w);
		n++;
		w += len;
		if (w < stop) { /* the space after it (sp bytes) ends it */
			*w = '\0';
			w += sp;
		}
	}
	return n;
}

/* What an argument of a tool accepts, in words, into b. */
static void S_accepts(struct dtk_buf *b, const struct param *p)
{
	size_t i;

	switch (p->type) {
	case 'e':
		dtk_buf_puts(b, "one of");
		for (i = 0; p->choices[i]; i++)
			dtk_buf_printf(b, "%s\"%s\"", i ? ", " : " ", p->choices[i]);
		break;
	case 'd': dtk_buf_puts(b, "a date, YYYY-MM-DD, as a string"); break;
	case 'b': dtk_buf_puts(b, "true or false"); break;
	case 'i':
	case 'p': dtk_buf_printf(b, "an integer from 1 to %d", PAGE_MAX); break;
	case 'l': dtk_buf_printf(b, "a string or a list of 1 to %d strings", LIST_MAX); break;
	case 'w': dtk_buf_printf(b, "a string of 1 to %d words", DTK_SEARCH_MAX_WORDS); break;
	case 'c': dtk_buf_puts(b, "the nextCursor of a page, as given"); break;
	default: dtk_buf_puts(b, "a string");
	}
}

/* A dump callback that keeps the first 81 bytes (then stops the dump). */
static int S_dump_head(const char *buf, size_t size, void *data)
{
	struct dtk_buf *b = data;
	size_t room = b->len < 81 ? 81 - b->len : 0;

	dtk_buf_put(b, buf, size < room ? size : room);
	return size < room ? 0 : -1;
}

/* Appends s[0..n) to b, cut to max bytes at a character's start ("…"
 * then). */
static void S_put_cut(struct dtk_buf *b, const char *s, size_t n, size_t max)
{
	size_t k = n;

	if (n > max)
		for (k = max; k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80; k--)
			;
	dtk_buf_put(b, s, k);
	if (k < n)
		dtk_buf_puts(b, "…");
}

/* Appends the JSON of value got to b, cut to 80 bytes: never dumped whole. */
static void S_put_got(struct dtk_buf *b, json_t *got)
{
	struct dtk_buf g = DTK_BUF_INIT;

	json_dump_callback(got, S_dump_head, &g, JSON_COMPACT | JSON_ENCODE_ANY);
	S_put_cut(b, g.ptr, g.len, 80);
	dtk_buf_release(&g);
}

/* Sets b to "tool T: argument A got G; it accepts ...". */
static void S_bad_arg(struct dtk_buf *b, const char *prefix, const struct tool *t,
                      const struct param *p, json_t *got)
{
	dtk_buf_printf(b, "tool '%s%s': argument '%s' got ", prefix, t->name, p->name);
	S_put_got(b, got);
	dtk_buf_puts(b, "; it accepts ");
	S_accepts(b, p);
	if (json_string_length(got) > ARG_BYTES)
		dtk_buf_printf(b, " of at most %u bytes (not %zu)", ARG_BYTES,
		               json_string_length(got));
}

/* Returns 1 when v is an integral number (1 and 1.0 alike) and sets *out. */
static int S_integral(json_t *v, long long *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 1;
	}
	if (!json_is_real(v))
		return 0;
	d = json_real_value(v);
	if (d < -1e15 || d > 1e15 || d != (double)(long long)d)
		return 0;
	*out = (long long)d;
	return 1;
}

/* Returns 1 when v fits parameter p's type, else 0. */
static int S_fits(const struct param *p, json_t *v)
{
	struct argv words = {NULL, 0, 0, NULL};
	long long n;
	dtk_date d;
	size_t i, k;
	json_t *item;

	if (json_string_length(v) > ARG_BYTES) /* 0 for what is no string */
		return 0;
	switch (p->type) {
	case 'b': return json_is_boolean(v);
	case 'i':
	case 'p': return S_integral(v, &n) && n >= 1 && n <= PAGE_MAX;
	case 'l':
		if (json_is_string(v))
			return 1;
		if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > LIST_MAX)
			return 0;
		json_array_foreach(v, i, item) if (!json_is_string(item) ||
		                                   json_string_length(item) > ARG_BYTES) return 0;
		return 1;
	case 'd': return json_is_string(v) && dtk_date_parse(&d, json_string_value(v)) == 0;
	case 'e':
		if (!json_is_string(v))
			return 0;
		for (i = 0; p->choices[i]; i++)
			if (!strcmp(p->choices[i], json_string_value(v)))
				return 1;
		return 0;
	case 'w': /* 1 to DTK_SEARCH_MAX_WORDS words (white space: U+3000 too) */
		if (!json_is_string(v))
			return 0;
		k = S_push_words(&words, &words, json_string_value(v));
		S_argv_free(&words);
		return k >= 1 && k <= DTK_SEARCH_MAX_WORDS;
	default: return json_is_string(v);
	}
}

/* Adds argument p's value v (it fits) to the options a or the operands ops. */
static void S_add_arg(struct param *p, json_t *v, struct argv *a, struct argv *ops)
{
	long long n;
	json_t *item;
	size_t i;

	if (p->type == 'p' || p->type == 'c')
		return; /* the server's own */
	if (p->type == 'i' && S_integral(v, &n)) {
		snprintf(p->num, sizeof(p->num), "%lld", n);
		S_push(a, p->flag);
		S_push(a, p->num);
	} else if (p->type == 'b') {
		if (json_is_true(v))
			S_push(a, p->flag);
	} else if (p->type == 'w') {
		S_push_words(a, ops, json_string_value(v));
	} else if (p->type == 'l' && json_is_array(v)) {
		json_array_foreach(v, i, item)
		{
			if (*p->flag)
				S_push(a, p->flag);
			S_push(*p->flag ? a : ops, json_string_value(item));
		}
	} else if (*p->flag) {
		S_push(a, p->flag);
		S_push(a, json_string_value(v));
	} else {
		S_push(ops, json_string_value(v));
	}
}

/* Builds the command line of tool t from args into a. Returns 0, or -1 with
 * what is wrong with the arguments in msg. */
static int S_build(const char *prefix, const struct tool *t, struct param *ps, size_t n,
                   json_t *args, struct argv *a, struct dtk_buf *msg)
{
	struct argv ops = {NULL, 0, 0, NULL};
	const char *key;
	json_t *v;
	size_t i;
	int rc = -1;

	static const char *const json[] = {"--format", "json", NULL};
	const char *const *fixed = t->fixed[0] || t->shape == O_CHECK ? t->fixed : json;

	S_push(a, S_cmd(t)->name);
	for (i = 0; i < 5 && fixed[i]; i++)
		S_push(a, fixed[i]);
	json_object_foreach(args, key, v)
	{
		for (i = 0; i < n && strcmp(ps[i].name, key); i++)
			;
		if (i < n)
			continue;
		dtk_buf_printf(msg, "tool '%s%s' has no argument '%s'; its arguments are", prefix,
		               t->name, key);
		for (i = 0; i < n; i++)
			dtk_buf_printf(msg, "%s'%s'", i ? ", " : " ", ps[i].name);
		if (!n)
			dtk_buf_puts(msg, " none");
		goto done;
	}
	for (i = 0; i < n; i++) {
		v = json_object_get(args, ps[i].name);
		if (!v || json_is_null(v)) {
			if (!ps[i].required)
				continue;
			dtk_buf_printf(msg, "tool '%s%s' needs the argument '%s' (", prefix,
			               t->name, ps[i].name);
			S_put_help(msg, prefix, ps[i].desc);
			dtk_buf_puts(msg, "): ");
			S_accepts(msg, &ps[i]);
			goto done;
		}
		if (!S_fits(&ps[i], v)) {
			S_bad_arg(msg, prefix, t, &ps[i], v);
			goto done;
		}
		S_add_arg(&ps[i], v, a, &ops);
	}
	S_push(a, "--");
	for (i = 0; i < ops.n; i++)
		S_push(a, ops.v[i]);
	rc = 0;
done:
	S_argv_free(&ops);
	return rc;
}

/* ---- messages ---- */

/* When s begins with a command line's words (after b's text), puts the
 * tool's words for them into b (t's, the tool run, when it runs them): "dtk <cmd>:" at a line's
 * start becomes
 * "<tool>:", "'dtk <cmd> ...'" and "dtk <cmd>" within a sentence "the tool
 * '<tool>'". Returns how many bytes of s it replaced, or 0. */
static size_t S_tool_words(struct dtk_buf *b, const char *prefix, const struct tool *t,
                           const char *s, int line_start)
{
	int quoted = *s == '\'';
	const char *c = s + quoted + 4;
	const struct tool *o;
	size_t n;

	if (strncmp(s + quoted, "dtk ", 4))
		return 0;
	if (!quoted && !line_start && strchr(" (", b->ptr[b->len - 1]) == NULL)
		return 0; /* inside a word */
	n = strspn(c, "abcdefghijklmnopqrstuvwxyz-");
	/* the tool run first (crystallize_plan for crystallize) */
	o = t && strlen(S_cmd(t)->name) == n && !strncmp(S_cmd(t)->name, c, n) ? t
	                                                                       : S_for_cmd(c, n);
	if (!n || !o)
		return 0;
	if (!quoted && line_start && c[n] == ':') {
		dtk_buf_printf(b, "%s%s", prefix, o->name);
		return (size_t)(c + n - s);
	}
	if (quoted) {
		n += strcspn(c + n, "'\n");
		if (c[n] != '\'')
			return 0;
		n++;
	} else if ((c[n] >= 'a' && c[n] <= 'z') || c[n] == '-') {
		return 0;
	}
	dtk_buf_printf(b, "the tool '%s%s'", prefix, o->name);
	return (size_t)(c + n - s);
}

/* When s begins with an operand's placeholder of t's command ("<other-id>",
 * "<entry-id>..."), puts the name of the tool's argument that gives that
 * operand into b. Returns how many bytes of s it replaced, or 0. */
static size_t S_operand_words(struct dtk_buf *b, const struct tool *t, const struct param *ps,
                              const char *s)
{
	const struct dtk_cmd *cmd = S_cmd(t);
	const char *ops = cmd ? cmd->operands : NULL, *at;
	size_t n = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyz-|"), k = 0;

	if (!ops || s[n] != '>')
		return 0;
	n++;
	for (at = ops; (at = strstr(at, "<")) != NULL && strncmp(at, s, n); at++)
		k++; /* its place among the operands */
	if (!at || k >= 2 || !t->operands[k])
		return 0;
	dtk_buf_printf(b, "argument '%s'", ps[k].name); /* the operands come first */
	return n + (strncmp(s + n, "...", 3) ? 0 : 3);
}

/*
 * Returns the command's messages s as a model reads them inside MCP
 * (malloc'd): "dtk <cmd>: " becomes the tool's name, "'dtk <cmd>'" the tool
 * that runs it, an option or an operand's placeholder of tool t its
 * argument's name, and the lines that send the reader to --help go.
 */
static char *S_mcp_text(const char *prefix, const struct tool *t, const char *s)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct param ps[MAX_PARAMS];
	size_t n, i, n_ps = S_params(t, ps);

	while (*s) {
		int line_start = !b.len || b.ptr[b.len - 1] == '\n';
		if (line_start && !strncmp(s, "see 'dtk ", 9)) {
			s += strcspn(s, "\n");
			s += *s == '\n';
			continue;
		}
		if ((n = S_tool_words(&b, prefix, t, s, line_start)) ||
		    (*s == '<' && (n = S_operand_words(&b, t, ps, s)))) {
			s += n;
			continue;
		}
		if (s[0] == '-' && s[1] == '-' && (s[2] >= 'a' && s[2] <= 'z')) {
			n = 2 + strspn(s + 2, "abcdefghijklmnopqrstuvwxyz-");
			for (i = 0; i < n_ps; i++)
				if (strlen(ps[i].flag) == n && !strncmp(ps[i].flag, s, n))
					break;
			if (i < n_ps) {
				dtk_buf_printf(&b, "argument '%s'", ps[i].name);
				s += n;
				continue;
			}
		}
		dtk_buf_putc(&b, *s++);
	}
	while (b.len && b.ptr[b.len - 1] == '\n')
		b.len--;
	dtk_buf_putc(&b, '\0');
	return dtk_buf_detach(&b);
}

/* Returns an error CallToolResult of text (not stolen). */
static json_t *S_error_text(const char *text)
{
	return json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text", text, "isError",
	                 1);
}

/* Returns text (malloc'd) bounded for a model: its first ERROR_LINES - 1
 * lines and its last (the count of errors), a line saying how many were
 * left out between, each line cut to ERROR_LINE_BYTES. */
static char *S_bounded_text(const char *text)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t lines = 0, i = 0, n;
	const char *p;

	for (p = text; *p; p += n + (p[n] == '\n'), lines++)
		n = strcspn(p, "\n");
	for (p = text; *p; p += n + (p[n] == '\n'), i++) {
		n = strcspn(p, "\n");
		if (lines > ERROR_LINES && i >= ERROR_LINES - 1 && i + 1 < lines)
			continue;
		if (b.len)
			dtk_buf_putc(&b, '\n');
		if (lines > ERROR_LINES && i + 1 == lines)
			dtk_buf_printf(&b, "(%zu lines more, left out)\n", lines - ERROR_LINES);
		S_put_cut(&b, p, n, ERROR_LINE_BYTES);
	}
	dtk_buf_putc(&b, '\0');
	return dtk_buf_detach(&b);
}

/* Returns the CallToolResult of a command that refused: its messages,
 * bounded (S_bounded_text). */
static json_t *S_error_result(const char *prefix, const struct tool *t, const char *out,
                              const char *err, int status)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *text, *bounded;
	json_t *r;

	dtk_buf_puts(&b, err);
	if (*out)
		dtk_buf_printf(&b, "%s%s", *err ? "\n" : "", out);
	if (!b.len)
		dtk_buf_printf(&b, "the command exited with status %d", status);
	text = S_mcp_text(prefix, t, dtk_buf_cstr(&b));
	bounded = S_bounded_text(text);
	r = S_error_text(bounded);
	free(bounded);
	free(text);
	dtk_buf_release(&b);
	return r;
}

/* ---- results ---- */

/* Parses cursor (NULL: the first page) into *offset. Returns 0, or -1 when
 * it is not one this server gives. */
static int S_cursor(json_t *cursor, size_t *offset)
{
	const char *s = json_string_value(cursor);
	char *end;
	unsigned long long n;

	*offset = 0;
	if (!cursor || json_is_null(cursor))
		return 0;
	if (!s || s[0] != 'o' || s[1] < '1' || s[1] > '9')
		return -1;
	n = strtoull(s + 1, &end, 10);
	if (*end || n > 100000000)
		return -1;
	*offset = (size_t)n;
	return 0;
}

/* Returns the structured content of tool t's output that is not the
 * command's JSON (check's, from its exit status) as a new reference, or
 * NULL. */
static json_t *S_shape(const struct tool *t, int status)
{
	if (t->shape != O_CHECK)
		return NULL;
	return json_pack("{s:b,s:b}", "valid", 1, "index_current", status == 0);
}

/* Runs the command line a, with the base held in *hold and the page wanted
 * of a list (NULL: all; ctx.page); sets *out and *err
 * (malloc'd) to what it wrote. */
static int S_run(struct argv *a, struct dtk_kb_hold **hold, struct dtk_page *page, char **out,
                 char **err)
{
	const struct dtk_cmd *cmd = dtk_cmd_find(a->v[0]);
	size_t olen = 0, elen = 0;
	struct dtk_ctx ctx;
	int rc;

	*out = *err = NULL;
	memset(&ctx, 0, sizeof(ctx));
	ctx.out = open_memstream(out, &olen);
	ctx.err = open_memstream(err, &elen);
	ctx.hold = hold;
	ctx.page = page;
	if (!ctx.out || !ctx.err)
		abort(); /* out of memory */
	dtk_error_clear();
	dtk_json_tight(1);                                     /* JSON to send as it is */
	rc = dtk_cmd_run(&ctx, cmd, (int)a->n, (char **)a->v); /* not written to */
	dtk_json_tight(0);
	fclose(ctx.out);
	fclose(ctx.err);
	return rc;
}

/* Runs tool t with args (an object, or NULL); returns the CallToolResult, which
 * leaves out the structuredContent and text of one that is no error: *raw
 * (dtk_mcp_tools_call). */
static json_t *S_call(const char *prefix, const struct tool *t, json_t *args, size_t offset,
                      struct dtk_kb_hold **hold, char **raw)
{
	struct argv a = {NULL, 0, 0, NULL};
	struct dtk_buf msg = DTK_BUF_INIT;
	json_t *sc, *r, *limit = json_object_get(args, "limit");
	struct param ps[MAX_PARAMS]; /* the options of a borrow their names */
	struct dtk_page page;
	char *out = NULL, *err = NULL, *nl;
	long long size = PAGE_DEFAULT;
	int rc;

	if (S_build(prefix, t, ps, S_params(t, ps), args, &a, &msg) < 0) {
		r = S_error_text(dtk_buf_cstr(&msg));
		goto done;
	}
	if ((t->hints & H_PAGES) && limit && !json_is_null(limit))
		S_integral(limit, &size);
	page = (struct dtk_page){.offset = offset, .size = (size_t)size};
	rc = S_run(&a, hold, &page, &out, &err);
	if (rc != 0 && rc != t->ok_status) {
		r = S_error_result(prefix, t, out, err, rc);
		goto done;
	}
	if (t->shape != O_CHECK && *out == '{' && (nl = strchr(out, '\n')) &&
	    !nl[1]) { /* one object, as it is */
		*nl = '\0';
		*raw = out;
		out = NULL;
	} else if ((sc = S_shape(t, rc)) != NULL) {
		*raw = dtk_json_escape_separators(json_dumps(sc, JSON_COMPACT));
		json_decref(sc);
	} else {
		r = S_error_result(prefix, t, out,
		                   "the command's output is not what the tool promises", rc);
		goto done;
	}
	r = json_pack("{s:[{s:s}],s:b}", "content", "type", "text", "isError", 0);
	if (*err) { /* the command's warnings beside it */
		nl = S_mcp_text(prefix, t, err);
		json_array_append_new(json_object_get(r, "content"),
		                      json_pack("{s:s,s:s}", "type", "text", "text", nl));
		free(nl);
	}
done:
	free(out);
	free(err);
	S_argv_free(&a);
	dtk_buf_release(&msg);
	return r;
}

int dtk_mcp_tools_call(const char *prefix, uint64_t set, const char *name, json_t *args,
                       struct dtk_kb_hold **hold, json_t **result, char **raw, char *msgbuf,
                       size_t msgsize)
{
	const struct tool *t = S_find(prefix, set, name);
	struct dtk_buf b = DTK_BUF_INIT;
	size_t offset = 0;

	*result = NULL;
	*raw = NULL;
	if (!t) {
		snprintf(msgbuf, msgsize, "Unknown tool: '%s'", name);
		return -1;
	}
	if (args && !json_is_object(args)) {
		dtk_buf_printf(&b, "tool '%s%s': its arguments must be an object, not ", prefix,
		               t->name);
		S_put_got(&b, args);
		*result = S_error_text(b.ptr);
		dtk_buf_release(&b);
		return 0;
	}
	if ((t->hints & H_PAGES) && S_cursor(json_object_get(args, "cursor"), &offset) < 0) {
		snprintf(msgbuf, msgsize,
		         "Invalid cursor: tool '%s%s' takes the nextCursor of a page it gave",
		         prefix, t->name);
		return -1;
	}
	*result = S_call(prefix, t, args, offset, hold, raw); /* NULL args: none */
	return 0;
}
