/* mcp.c: the MCP server: messages, JSON-RPC, the lifecycle, resources. */
#define _GNU_SOURCE /* open_memstream */
#include "dtk/mcp.h"

#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/ytree.h"
#include "mcp_prompts.h"
#include "mcp_tools.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const S_versions[DTK_MCP_N_VERSIONS] = {"2026-07-28", "2025-11-25", "2025-06-18",
                                                           "2025-03-26", "2024-11-05"};

/* The version without a handshake: each request names it in its _meta. */
#define MODERN "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"

/* JSON-RPC's error codes, MCP's for an unknown resource (before 2026-07-28)
 * and for a protocol version it does not speak. */
enum {
	E_PARSE = -32700,
	E_REQUEST = -32600,
	E_METHOD = -32601,
	E_PARAMS = -32602,
	E_RESOURCE = -32002,
	E_VERSION = -32022
};

struct dtk_mcp {
	unsigned flags;
	struct dtk_mcp_session own, *s; /* the session in use: its own, or a transport's */
	char *prefix;                   /* of every tool's name */
	uint64_t tools;                 /* the tools it has (mcp_tools.h) */
	/* the cancellations waiting (read ahead, or in the batch being
	 * answered): the compact JSON of each requestId -> how many */
	json_t *cancels;
	struct dtk_kb_hold *hold; /* the base the read-only tools share (cmd.h) */
	char *home;               /* the directory served (S_home); NULL: not yet */
};

/* What a request is answered in: a session's version, or 2026-07-28's. */
struct req {
	int modern;
	json_t *id;
};

/* ---- the server ---- */

struct dtk_mcp *dtk_mcp_new(unsigned flags)
{
	struct dtk_mcp *m = dtk_xcalloc(1, sizeof(*m));
	m->flags = flags;
	m->s = &m->own;
	m->prefix = dtk_xstrdup("");
	m->tools = DTK_MCP_TOOLS_ALL;
	m->cancels = json_object();
	return m;
}

void dtk_mcp_use_session(struct dtk_mcp *m, struct dtk_mcp_session *s)
{
	m->s = s ? s : &m->own;
}

int dtk_mcp_version(const char *v)
{
	int i;

	for (i = 0; v && i < DTK_MCP_N_VERSIONS; i++)
		if (!strcmp(v, S_versions[i]))
			return i;
	return -1;
}

int dtk_mcp_set_tools(struct dtk_mcp *m, const char *names, int read_only)
{
	char msg[1024];

	if (dtk_mcp_tools_select(&m->tools, names, read_only, msg, sizeof(msg)) < 0)
		return dtk_error("%s", msg);
	return 0;
}

void dtk_mcp_set_prefix(struct dtk_mcp *m, const char *prefix)
{
	free(m->prefix);
	m->prefix = dtk_xstrdup(prefix);
}

unsigned dtk_mcp_base_loads(const struct dtk_mcp *m)
{
	const struct dtk_kb *kb;
	return m->hold ? dtk_kb_hold_peek(m->hold, &kb) : 0;
}

void dtk_mcp_free(struct dtk_mcp *m)
{
	if (!m)
		return;
	free(m->prefix);
	free(m->home);
	json_decref(m->cancels);
	dtk_kb_hold_free(m->hold);
	free(m);
}

/* ---- responses ---- */

/* Returns the response line for id (stolen) and result (stolen). In
 * 2026-07-28 every result says it is complete and who answers. */
static char *S_result(struct req *q, json_t *result)
{
	json_t *r;
	char *s;

	if (q->modern) {
		json_object_set_new(result, "resultType", json_string("complete"));
		json_object_set_new(result, "_meta",
		                    json_pack("{s:{s:s,s:s}}", "io.modelcontextprotocol/serverInfo",
		                              "name", "dtk", "version", DTK_VERSION));
	}
	r = json_pack("{s:s,s:o,s:o}", "jsonrpc", "2.0", "id", q->id, "result", result);
	q->id = NULL;
	s = dtk_json_escape_separators(json_dumps(r, JSON_COMPACT));
	json_decref(r);
	return s;
}

/* Returns the response line for id (stolen) and a tool's result (stolen)
 * whose structuredContent and first text are raw (mcp_tools.h): jansson
 * writes the response with null and "" in their places, where the JSON
 * object is then written as the command wrote it, never parsed, and
 * quoted as the text (dtk_json_quote: not through jansson, which would
 * copy it twice). Neither place can be matched inside a string (its
 * quotes would be escaped), and each is the first there. */
static char *S_result_raw(struct req *q, json_t *result, const char *raw)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *r = json_pack("{s:n}", "structuredContent");
	char *line, *sc, *text;

	json_object_update(r, result);
	json_decref(result);
	json_object_set_new(json_array_get(json_object_get(r, "content"), 0), "text",
	                    json_string(""));
	line = S_result(q, r);
	sc = strstr(line, "\"structuredContent\":null") + 20;
	text = strstr(sc, "\"text\":\"\"") + 7;
	dtk_buf_put(&b, line, (size_t)(sc - line));
	dtk_buf_puts(&b, raw); /* puts, not a printf: raw is the bulk of the line */
	dtk_buf_put(&b, sc + 4, (size_t)(text - sc - 4));
	dtk_json_quote(&b, raw);
	dtk_buf_puts(&b, text + 2);
	free(line);
	return dtk_json_escape_separators(dtk_buf_detach(&b));
}

/* Returns the error response line for id (stolen; NULL: null), with data
 * (stolen) when not NULL. */
static char *S_error(json_t *id, int code, const char *msg, json_t *data)
{
	json_t *r = json_pack("{s:s,s:o,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
	                      id ? id : json_null(), "error", "code", code, "message", msg);
	char *s;

	if (data)
		json_object_set_new(json_object_get(r, "error"), "data", data);
	s = dtk_json_escape_separators(json_dumps(r, JSON_COMPACT));
	json_decref(r);
	return s;
}

char *dtk_mcp_error(int code, const char *msg)
{
	return S_error(NULL, code, msg, NULL);
}

/* The error response to request q (its id stolen). */
static char *S_qerror(struct req *q, int code, const char *msg)
{
	json_t *id = q->id;
	q->id = NULL;
	return S_error(id, code, msg, NULL);
}

/* ---- methods ---- */

/* What an agent reads first: its working loop on the base. Each '@' stands
 * for the tools' prefix. */
static const char S_instructions[] =
        "This server is one knowledge base of insights: entries, each a claim with its "
        "sources, a confidence (high, medium, low) and dates, grouped in nodes (topics). "
        "Work on it in this loop. 1. Orient: read the resource dtk://index (INDEX.md) for "
        "the nodes and what they hold. 2. Before relying on the base, call @search on the "
        "topic (@list browses by node or date); results are short, a page at a time: call "
        "@show on an entry before relying on it, and read any open contradiction it lists. ";
/* ... and what it writes (with the tools that write) */
static const char S_instructions_write[] =
        "3. Record what you did: @use for the entries your work relied on, @cite for those "
        "you quoted as evidence, @close when the outcome of acting on them is known. 4. "
        "Before @add, @search so as not to add what is there; name a registered source "
        "(@sources finds one, @add_source adds one). 5. When a claim looks wrong, do not "
        "overwrite it: @contradict it with another entry and a note (@resolve once "
        "settled); @verify an entry another source corroborates; @review one you checked "
        "still holds. Every write is validated and refused whole, with its reasons, when it "
        "would break the base; dry_run shows the diff first. ";

/* Returns m's instructions, each tool named with its prefix (a new
 * reference). */
static json_t *S_instructions_for(struct dtk_mcp *m)
{
	char *s = NULL;
	json_t *r;

	if (asprintf(&s, "%s%sEach call reads the base as it is on disk.", S_instructions,
	             dtk_mcp_tools_write(m->tools) ? S_instructions_write : "") < 0)
		abort(); /* out of memory */
	r = dtk_mcp_prefixed(m->prefix, s);
	free(s);
	return r;
}

static json_t *S_capabilities(void)
{
	return json_pack("{s:{s:b},s:{s:b,s:b},s:{s:b},s:{},s:{}}", "tools", "listChanged", 0,
	                 "resources", "listChanged", 0, "subscribe", 0, "prompts", "listChanged", 0,
	                 "completions", "logging");
}

static json_t *S_initialize(struct dtk_mcp *m, json_t *params)
{
	int i = dtk_mcp_version(json_string_value(json_object_get(params, "protocolVersion")));
	const char *v = S_versions[i > 0 ? i : 1];

	m->s->version = v;
	return json_pack("{s:s,s:o,s:{s:s,s:s,s:s},s:o}", "protocolVersion", v, "capabilities",
	                 S_capabilities(), "serverInfo", "name", "dtk", "title",
	                 "dtk knowledge base", "version", DTK_VERSION, "instructions",
	                 S_instructions_for(m));
}

/* server/discover (2026-07-28): what initialize tells, without a session. */
static json_t *S_discover(struct dtk_mcp *m)
{
	return json_pack("{s:[s],s:o,s:o}", "supportedVersions", MODERN, "capabilities",
	                 S_capabilities(), "instructions", S_instructions_for(m));
}

/* A list result in 2026-07-28 says how long it may be kept, and by whom. */
static json_t *S_cacheable(struct req *q, json_t *r, int ttl_ms)
{
	if (q->modern) {
		json_object_set_new(r, "ttlMs", json_integer(ttl_ms));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	return r;
}

static json_t *S_templates(void)
{
	return json_pack("{s:[{s:s,s:s,s:s,s:s,s:s}]}", "resourceTemplates", "uriTemplate",
	                 "dtk://node/{name}", "name", "node", "title", "A node file", "description",
	                 "insights/<name>.yaml: one node (a topic), its stance and every entry, "
	                 "as YAML; name is a node's name as list, search and show give it",
	                 "mimeType", "application/yaml");
}

static json_t *S_resource(const char *uri, const char *name, const char *title, const char *mime)
{
	return json_pack("{s:s,s:s,s:s,s:s}", "uri", uri, "name", name, "title", title, "mimeType",
	                 mime);
}

/* Returns 1 when insights/<node>.yaml of the base at root is a regular file
 * that resources/read can open (inside the base), else 0. */
static int S_node_readable(const char *root, const char *node)
{
	struct dtk_buf p = DTK_BUF_INIT;
	int fd = -1, rc;

	dtk_buf_printf(&p, "%s/insights/%s.yaml", root, node);
	rc = dtk_file_open_within(&fd, root, p.ptr) == 0;
	if (fd >= 0)
		close(fd);
	dtk_buf_release(&p);
	return rc;
}

/* Returns 1 when name can be a generated page of index/ ("<slug>.md"). */
static int S_page_name(const char *name)
{
	size_t len = strlen(name);
	return name[0] != '.' && len > 3 && len < 256 && !strchr(name, '/') &&
	       !strcmp(name + len - 3, ".md");
}

/* Adds to list a resource dtk://index/<slug>.md per generated page that
 * INDEX.md links, index/<slug>.md (docs/index-format.md), sorted. */
static void S_pages_list(json_t *list, const char *root)
{
	struct dirent **v = NULL;
	char *dir = dtk_path_join(root, DTK_INDEX_PAGES_DIR), uri[300], title[300];
	int n = scandir(dir, &v, NULL, alphasort), i;

	for (i = 0; i < n; i++) {
		if (S_page_name(v[i]->d_name)) {
			snprintf(uri, sizeof(uri), "dtk://index/%s", v[i]->d_name);
			snprintf(title, sizeof(title), DTK_INDEX_PAGES_DIR "/%s: a page of the index",
			         v[i]->d_name);
			json_array_append_new(list, S_resource(uri, v[i]->d_name, title,
			                                       "text/markdown"));
		}
		free(v[i]);
	}
	free(v);
	free(dir);
}

static json_t *S_resources_list(char *err, size_t size)
{
	json_t *list = json_array();
	char *root = dtk_kb_find_root("."), **names = NULL, uri[300], title[300];
	int n, i;

	if (!root) {
		snprintf(err, size, "%s", dtk_error_last());
		json_decref(list);
		return NULL;
	}
	json_array_append_new(list, S_resource("dtk://index", DTK_INDEX_FILE,
	                                       "INDEX.md: the base's index", "text/markdown"));
	S_pages_list(list, root);
	if (S_node_readable(root, "_sources"))
		json_array_append_new(list, S_resource("dtk://sources", "sources",
		                                       "insights/_sources.yaml: the sources",
		                                       "application/yaml"));
	n = dtk_kb_list_nodes(&names, root);
	for (i = 0; i < n; i++) {
		if (!S_node_readable(root, names[i]))
			continue; /* a directory named <node>.yaml, a link out of the base */
		snprintf(uri, sizeof(uri), "dtk://node/%s", names[i]);
		snprintf(title, sizeof(title), "insights/%s.yaml", names[i]);
		json_array_append_new(list, S_resource(uri, names[i], title, "application/yaml"));
	}
	if (n > 0)
		dtk_strv_free(names, (size_t)n);
	free(root);
	return json_pack("{s:o}", "resources", list);
}

/* Reads resource uri. Returns the ReadResourceResult, or NULL with the
 * error code and message set. */
static json_t *S_resources_read(const char *uri, int *code, char *err, size_t size)
{
	const char *mime = "text/markdown", *node = NULL;
	char *root = NULL, *rel = NULL, *full = NULL, *buf = NULL;
	json_t *r = NULL;
	size_t len = 0;
	int fd = -1, rc, is_node = !strncmp(uri, "dtk://node/", 11);
	int is_page = !strncmp(uri, "dtk://index/", 12);

	*code = E_RESOURCE;
	if (is_node || !strcmp(uri, "dtk://sources")) {
		node = is_node ? uri + 11 : "_sources";
		mime = "application/yaml";
	} else if (is_page ? !S_page_name(uri + 12) : strcmp(uri, "dtk://index") != 0) {
		snprintf(err, size, "Resource not found: %s", uri);
		return NULL;
	}
	if (!(root = dtk_kb_find_root("."))) {
		*code = E_PARAMS;
		snprintf(err, size, "%s", dtk_error_last());
		return NULL;
	}
	if (is_node && !dtk_kb_has_node(root, node)) {
		snprintf(err, size, "Resource not found: %s", uri);
		goto done;
	}
	rel = node      ? dtk_xmalloc(strlen(node) + 20)
	      : is_page ? dtk_path_join(DTK_INDEX_PAGES_DIR, uri + 12)
	                : dtk_xstrdup(DTK_INDEX_FILE);
	if (node)
		sprintf(rel, "insights/%s.yaml", node);
	full = dtk_path_join(root, rel);
	rc = dtk_file_open_within(&fd, root, full);
	if (rc == 0)
		rc = dtk_file_read_fd(&buf, &len, fd, full, DTK_MAX_FILE_BYTES);
	if (rc != 0) {
		snprintf(err, size, "%s: %s", rel,
		         rc == 1             ? "no such file"
		         : rc == DTK_ETOOBIG ? "too large"
		                             : dtk_error_last());
		goto done;
	}
	r = json_pack("{s:[{s:s,s:s,s:s%}]}", "contents", "uri", uri, "mimeType", mime, "text",
	              buf ? buf : "", len);
	if (!r)
		snprintf(err, size, "%s is not UTF-8 text", rel);
done:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(full);
	free(rel);
	free(root);
	return r;
}

/* Runs method with params for request q; returns the response line. */
static char *S_method(struct dtk_mcp *m, struct req *q, const char *method, json_t *params)
{
	char err[512], *raw = NULL, *line;
	json_t *r = NULL;
	int code = E_PARAMS;

	if (params && !json_is_object(params))
		return S_qerror(q, E_PARAMS, "params must be an object");
	if (!strcmp(method, "server/discover"))
		return S_result(q, S_discover(m));
	/* a protocolVersion that is no string is refused, not taken for the
	 * newest version (capabilities and clientInfo are not needed here) */
	if (!q->modern && !strcmp(method, "initialize") &&
	    !json_is_string(json_object_get(params, "protocolVersion")))
		return S_qerror(q, E_PARAMS, "initialize needs params.protocolVersion, a string");
	if (!q->modern && !strcmp(method, "initialize") && m->s->version)
		return S_qerror(q, E_REQUEST,
		                "the session is initialized already: a second initialize is "
		                "refused (start a new session to agree on another version)");
	if (!q->modern && !strcmp(method, "initialize"))
		return S_result(q, S_initialize(m, params));
	if (!q->modern && !strcmp(method, "ping"))
		return S_result(q, json_object());
	if (!q->modern && !m->s->version && strcmp(method, "initialize") && (m->s->unbound = 1))
		return S_qerror(q, E_REQUEST,
		                "the session has not been initialized: send initialize first (or "
		                "name protocol version " MODERN " in each request's _meta)");
	if (json_object_get(params, "cursor") && !json_is_null(json_object_get(params, "cursor")) &&
	    (!strcmp(method, "tools/list") || !strcmp(method, "resources/list") ||
	     !strcmp(method, "resources/templates/list") || !strcmp(method, "prompts/list")))
		return S_qerror(q, E_PARAMS, "Invalid cursor: this list has a single page");
	if (!strcmp(method, "tools/list"))
		return S_result(q, S_cacheable(q,
		                               json_pack("{s:o}", "tools",
		                                         dtk_mcp_tools_list(m->prefix, m->tools)),
		                               3600000));
	if (!strcmp(method, "resources/templates/list"))
		return S_result(q, S_cacheable(q, S_templates(), 3600000));
	switch (dtk_mcp_prompts_method(method, params, m->prefix, &m->s->log_level, &m->hold, &r,
	                               err, sizeof(err))) {
	case 1: return S_result(q, r);
	case -1: return S_qerror(q, E_PARAMS, err);
	default: break;
	}
	if (!strcmp(method, "tools/call")) {
		json_t *name = json_object_get(params, "name");
		if (!json_is_string(name))
			return S_qerror(q, E_PARAMS, "tools/call needs the tool's name");
		if (m->flags & DTK_MCP_NO_CALLS)
			return S_qerror(q, E_PARAMS, "tool calls are off");
		if (dtk_mcp_tools_call(m->prefix, m->tools, json_string_value(name),
		                       json_object_get(params, "arguments"), &m->hold, &r, &raw,
		                       err, sizeof(err)) < 0)
			return S_qerror(q, E_PARAMS, err);
		line = raw ? S_result_raw(q, r, raw) : S_result(q, r);
		free(raw);
		return line;
	}
	if (!strcmp(method, "resources/list")) {
		if (!(r = S_resources_list(err, sizeof(err))))
			return S_qerror(q, E_PARAMS, err);
		return S_result(q, S_cacheable(q, r, 0));
	}
	if (!strcmp(method, "resources/read")) {
		json_t *uri = json_object_get(params, "uri");
		if (!json_is_string(uri))
			return S_qerror(q, E_PARAMS, "resources/read needs a uri");
		if (m->flags & DTK_MCP_NO_CALLS)
			return S_qerror(q, E_PARAMS, "reads are off");
		if (!(r = S_resources_read(json_string_value(uri), &code, err, sizeof(err))))
			/* 2026-07-28 answers an unknown resource as invalid params */
			return S_qerror(q, q->modern ? E_PARAMS : code, err);
		return S_result(q, S_cacheable(q, r, 0));
	}
	snprintf(err, sizeof(err), "Method not found: %s", method);
	return S_qerror(q, E_METHOD, err);
}

/* ---- bounds ---- */

/* What a message's text shows before it is parsed (S_shape). */
struct shape {
	int code;        /* 0, or the JSON-RPC error it is refused with */
	const char *why; /* that error's message */
	int wide;        /* a number may be beyond what jansson holds */
	size_t id_at;    /* where the value of its top object's "id" begins (0: none) */
	char id[256];    /* the text from there (a message's pages go as it is parsed) */
};

/*
 * Looks through the JSON text msg without parsing it, into *s: refused
 * (code set) when it nests deeper than DTK_MCP_MAX_DEPTH, holds more than
 * DTK_MCP_MAX_VALUES values (id_at then 0: it is answered under null) or a
 * string over DTK_MCP_MAX_STRING bytes as written, so that what jansson
 * would build of it is bounded (a few hundred bytes a value) before it
 * builds anything. A count of brackets, commas and colons outside strings
 * bounds the values from above; malformed text is left to the parser.
 * wide: a number of 19 digits or with an exponent.
 */
static void S_shape(const char *msg, size_t len, struct shape *s)
{
	size_t i, values = 1, depth = 0, from = 0, digits = 0;
	int in_string = 0, deep = 0, big = 0, key = 0, want_id = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < len; i++) {
		char c = msg[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"') /* the key "id", when ':' follows */
				in_string = 0, key = depth == 1 && i - from == 3 &&
				                     !memcmp(msg + from, "\"id\"", 4);
			big |= i - from > DTK_MCP_MAX_STRING;
			continue;
		}
		if (want_id && !memchr(" \t\r\n", c, 4))
			want_id = 0, s->id_at = i;
		s->wide |= (c == 'e' || c == 'E') && digits;
		digits = c >= '0' && c <= '9' ? digits + 1 : 0;
		s->wide |= digits > 18;
		switch (c) {
		case '"':
			in_string = 1;
			from = i;
			break;
		case '[':
		case '{':
			deep |= ++depth > DTK_MCP_MAX_DEPTH;
			/* fall through */
		case ',':
		case ':':
			want_id |= c == ':' && key && !s->id_at;
			if (++values <= DTK_MCP_MAX_VALUES)
				break;
			*s = (struct shape){
			        E_REQUEST,
			        "message nests deeper than 64 levels or holds more than "
			        "100000 values",
			        0, 0, ""};
			return;
		case ']':
		case '}': depth -= depth > 0; break;
		default: break;
		}
	}
	if (s->id_at)
		memcpy(s->id, msg + s->id_at, len - s->id_at < 255 ? len - s->id_at : 255);
	if (big)
		s->code = E_PARAMS, s->why = "a string of the message is over 2 MiB as written: no "
		                             "argument takes more than 1 MiB";
	else if (deep)
		s->code = E_REQUEST, s->why = "message nests deeper than 64 levels";
}

/* Returns the id of the message S_shape looked through into s, as its top
 * object's "id" is written, when it is a string or an integer (a new
 * reference); else NULL. */
static json_t *S_id(const struct shape *s)
{
	json_t *id;

	if (!s->id_at)
		return NULL;
	id = json_loads(s->id, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, NULL);
	if (json_is_string(id) || json_is_integer(id))
		return id;
	json_decref(id);
	return NULL;
}

/* Appends number token t[0..n) of a message to b as jansson can read it:
 * an integer beyond 64 bits as a real (".0" added), a real beyond a
 * double's range as a string of its digits, either as null when it is the
 * request's id (refused then, as no id can be one); any other as it is. */
static void S_number(struct dtk_buf *b, const char *t, size_t n, int is_id)
{
	char *s = dtk_xstrndup(t, n);
	int real = strpbrk(s, ".eE") != NULL;

	errno = 0;
	if (real)
		(void)strtod(s, NULL);
	else
		(void)strtoll(s, NULL, 10);
	if (errno == ERANGE && is_id) {
		dtk_buf_puts(b, "null");
	} else if (errno == ERANGE && real) {
		dtk_buf_putc(b, '"');
		dtk_buf_put(b, t, n);
		dtk_buf_putc(b, '"');
	} else {
		dtk_buf_put(b, t, n);
		if (errno == ERANGE)
			dtk_buf_puts(b, ".0");
	}
	free(s);
}

/* A message as jansson reads it (S_feed): text[0..len), at read so far.
 * When drop, the pages read are given back as it goes (text is then a
 * buffer of the server's own, not read again), so that the message and
 * what is parsed of it are never both held whole: dropped bytes are gone. */
struct feed {
	const char *text;
	size_t len, at, dropped;
	int drop;
};

/* Gives back the whole pages of f's text before offset upto, a quarter of
 * a MiB at least at a time, when f drops. */
static void S_drop(struct feed *f, size_t upto)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;

	if (!f->drop || upto < f->dropped + (256u << 10))
		return;
	from = ((uintptr_t)f->text + f->dropped + page - 1) & ~(page - 1);
	to = ((uintptr_t)f->text + upto) & ~(page - 1);
	if (to > from) {
		(void)madvise((void *)from, to - from, MADV_DONTNEED); /* a hint */
		f->dropped = to - (uintptr_t)f->text;
	}
}

/* jansson's json_load_callback_t: the next bytes of f into buf. */
static size_t S_feed(void *buf, size_t size, void *data)
{
	struct feed *f = data;
	size_t n = f->len - f->at < size ? f->len - f->at : size;

	memcpy(buf, f->text + f->at, n);
	f->at += n;
	S_drop(f, f->at);
	return n;
}

/* Copies f's text, valid JSON but for numbers jansson cannot hold, into
 * b with each such number in a form it can (S_number; the id's begins at
 * id_at): so the message is answered (a tool reads an argument out of
 * range as one, an id beyond 64 bits is refused under null) and a
 * notification is not. */
static void S_widen_numbers(struct dtk_buf *b, struct feed *f, size_t id_at)
{
	const char *msg = f->text;
	size_t i, k, len = f->len;
	int in_str = 0;

	for (i = 0; i < len; i++) {
		char c = msg[i];
		S_drop(f, i);
		if (in_str) {
			if (c == '\\' && i + 1 < len)
				dtk_buf_putc(b, msg[i++]);
			else if (c == '"')
				in_str = 0;
			dtk_buf_putc(b, msg[i]);
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9')) {
			for (k = i + 1; k < len && msg[k] && strchr("0123456789.eE+-", msg[k]); k++)
				;
			S_number(b, msg + i, k - i, i == id_at);
			i = k - 1;
			continue;
		}
		in_str = c == '"';
		dtk_buf_putc(b, c);
	}
}

/* Parses message msg when S_shape finds it within the bounds, giving back
 * its pages as it goes when drop (S_feed). Returns the JSON (a new
 * reference), or NULL with s->code and s->why set: refused by S_shape,
 * malformed (id_at then 0: answered under null), or holding U+0000 in a
 * string (no argument takes one). */
static json_t *S_parse(const char *msg, size_t len, int drop, struct shape *s)
{
	struct feed f = {msg, len, 0, 0, drop};
	struct dtk_buf w = DTK_BUF_INIT;
	json_error_t je;
	json_t *j;

	S_shape(msg, len, s);
	if (s->code)
		return NULL;
	if (s->wide) { /* a copy with its numbers widened is parsed (the server's) */
		dtk_grow((void **)&w.ptr, &w.cap, len + len / 2 + 16, 1);
		S_widen_numbers(&w, &f, s->id_at);
		f = (struct feed){w.ptr, w.len, 0, 0, 1};
	}
	j = json_load_callback(S_feed, &f, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	dtk_buf_release(&w);
	if (!j && json_error_code(&je) == json_error_null_character)
		s->code = E_PARAMS, s->why = "a string of the request holds U+0000 (NUL), which "
		                             "no argument takes";
	else if (!j)
		s->code = E_PARSE, s->why = "Parse error", s->id_at = 0;
	return j;
}

/* ---- cancellation ---- */

/* Counts message j, when it is a notifications/cancelled, among m's
 * waiting (by 1: read ahead, or in the batch being answered) or as
 * handled (by -1), by the compact JSON of its requestId. */
static void S_count_cancel(struct dtk_mcp *m, json_t *j, int by)
{
	const char *method = json_string_value(json_object_get(j, "method"));
	json_t *id = json_object_get(json_object_get(j, "params"), "requestId");
	json_int_t n;
	char *key;

	if (!method || strcmp(method, "notifications/cancelled") || json_object_get(j, "id") ||
	    (!json_is_string(id) && !json_is_integer(id)))
		return;
	key = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
	n = json_integer_value(json_object_get(m->cancels, key)) + by;
	if (n > 0)
		json_object_set_new(m->cancels, key, json_integer(n));
	else
		json_object_del(m->cancels, key);
	free(key);
}

/* Returns 1 when a notifications/cancelled for request id is waiting: the
 * request is not run. */
static int S_cancelled(struct dtk_mcp *m, json_t *id)
{
	char *key;
	int found;

	if (!json_object_size(m->cancels))
		return 0;
	key = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
	found = key && json_object_get(m->cancels, key);
	free(key);
	return found;
}

/* ---- messages ---- */

/* Deletes the members of object o not named in keys (names, a space after
 * each). */
static void S_only(json_t *o, const char *keys)
{
	const char *k, *at;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(o, tmp, k, v)
	{
		for (at = keys; *at && (at = strstr(at, k)); at++)
			if ((at == keys || at[-1] == ' ') && at[strlen(k)] == ' ')
				break;
		if (!at || !*at)
			json_object_del(o, k);
	}
}

/* Lets go of what answering message j never reads: members of it and of
 * its params that no method reads, its _meta but the version it names,
 * what a response's result or error holds. So a tool's work is beside its
 * arguments, not the whole message. */
static void S_let_go(json_t *j)
{
	json_t *p = json_object_get(j, "params");

	S_only(j, "jsonrpc id method params result error ");
	if (json_object_get(j, "result"))
		json_object_set_new(j, "result", json_null());
	if (json_object_get(j, "error"))
		json_object_set_new(j, "error", json_null());
	S_only(p, "protocolVersion uri cursor name arguments level ref argument requestId _meta ");
	S_only(json_object_get(p, "_meta"), META_VERSION " ");
}

/* Answers request j with method and id: returns the response line, or
 * NULL when it was cancelled before it ran. */
static char *S_request(struct dtk_mcp *m, json_t *j, json_t *id, const char *method)
{
	json_t *v = json_object_get(json_object_get(json_object_get(j, "params"), "_meta"),
	                            META_VERSION);
	const char *claim = json_string_value(v); /* the version, named the 2026-07-28 way */
	struct req q = {0, json_incref(id)};
	json_t *data;
	char *out;
	size_t i;

	if (S_cancelled(m, id)) {
		json_decref(q.id);
		return NULL;
	}
	if (v && !claim)
		return S_qerror(&q, E_PARAMS, "_meta's " META_VERSION " must be a string");
	if (claim && strcmp(claim, MODERN)) {
		/* a version dtk speaks after initialize is no answer to one named
		 * in _meta: then only the one that may be named there is listed */
		int legacy = dtk_mcp_version(claim) >= 0;
		data = json_pack("{s:[],s:s}", "supported", "requested", claim);
		for (i = 0; i < (legacy ? 1 : DTK_MCP_N_VERSIONS); i++)
			json_array_append_new(json_object_get(data, "supported"),
			                      json_string(S_versions[i]));
		return S_error(q.id, E_VERSION,
		               legacy ? "Unsupported protocol version in _meta: this one is "
		                        "spoken after initialize"
		                      : "Unsupported protocol version",
		               data);
	}
	q.modern = claim != NULL;
	out = S_method(m, &q, method, json_object_get(j, "params"));
	json_decref(q.id);
	return out;
}

/* Answers one message j (not stolen); returns the response line, or NULL
 * when none is due. */
static char *S_message(struct dtk_mcp *m, json_t *j)
{
	json_t *id = json_object_get(j, "id"), *method = json_object_get(j, "method");
	const char *rpc = json_string_value(json_object_get(j, "jsonrpc"));
	int readable = json_is_string(id) || json_is_integer(id);

	S_count_cancel(m, j, -1);
	if (!method && readable && rpc && !strcmp(rpc, "2.0") &&
	    (json_object_get(j, "result") || json_object_get(j, "error")))
		return NULL; /* a response, to nothing dtk asked */
	if (!rpc || strcmp(rpc, "2.0") || (id && !readable) || !json_is_string(method))
		/* an id that can be read is answered, so the request does not wait */
		return S_error(readable ? json_incref(id) : NULL, E_REQUEST, "Invalid Request",
		               NULL);
	if (!id)
		return NULL; /* a notification: nothing is answered */
	return S_request(m, j, id, json_string_value(method));
}

/* Writes response r (freed) to out after sep when it is not NULL; returns
 * 1 when it wrote. */
static int S_put(FILE *out, char sep, char *r)
{
	if (!r)
		return 0;
	if (sep)
		putc(sep, out);
	fputs(r, out);
	free(r);
	return 1;
}

/* Answers a batch (a non-empty array) as protocol 2025-03-26 has them: an
 * array of the responses due, in order, written to out as each is made (so
 * that only one is held at a time), or nothing when none is due
 * (notifications only). An initialize in a batch is refused, as that
 * version says. Returns 1 when it wrote. */
static int S_batch(struct dtk_mcp *m, json_t *batch, FILE *out)
{
	json_t *item;
	size_t i;
	int any = 0;
	char *r;

	json_array_foreach(batch, i, item)
	{
		S_let_go(item);
		S_count_cancel(m, item, 1); /* a request it cancels is not run */
	}
	json_array_foreach(batch, i, item)
	{
		const char *method = json_string_value(json_object_get(item, "method"));
		if (method && !strcmp(method, "initialize") && json_object_get(item, "id"))
			r = S_error(json_incref(json_object_get(item, "id")), E_REQUEST,
			            "initialize must not be part of a batch", NULL);
		else
			r = S_message(m, item);
		any |= S_put(out, any ? ',' : '[', r);
	}
	if (any)
		putc(']', out);
	return any;
}

/* The directory a session serves is the working directory at its first
 * message, by its path: when that directory is replaced (removed and made
 * again, restored, swapped), the process would stay in the old one, gone,
 * so each message first goes back to the path when it names another. */
static void S_home(struct dtk_mcp *m)
{
	struct stat here, there;

	if (!m->home) {
		m->home = getcwd(NULL, 0);
		return;
	}
	if (stat(".", &here) == 0 && stat(m->home, &there) == 0 && here.st_dev == there.st_dev &&
	    here.st_ino == there.st_ino)
		return;
	if (chdir(m->home) < 0)
		return; /* gone: the request says what it cannot read */
}

/* Handles message msg, writing its response (without '\n') to out; its
 * pages are given back as it is parsed when drop (S_feed). Returns 1 when
 * it wrote one, 0 when none is due. */
static int S_handle(struct dtk_mcp *m, const char *msg, size_t len, int drop, FILE *out)
{
	struct shape s;
	json_t *j;
	int rc, batch;

	S_home(m);
	if (!(j = S_parse(msg, len, drop, &s))) /* refused, under its id when it can be read */
		return S_put(out, 0, S_error(S_id(&s), s.code, s.why, NULL));
	/* batches exist in 2025-03-26 only (2025-06-18 removed them) */
	batch = json_array_size(j) && m->s->version && !strcmp(m->s->version, "2025-03-26");
	if (batch && len > DTK_MCP_MAX_BATCH)
		rc = S_put(out, 0,
		           S_error(NULL, E_REQUEST,
		                   "a batch is over 4 MiB as written; send its messages one "
		                   "by one (each up to 16 MiB)",
		                   NULL));
	else if (batch)
		rc = S_batch(m, j, out);
	else {
		S_let_go(j);
		rc = S_put(out, 0, S_message(m, j));
	}
	json_decref(j);
	return rc;
}

char *dtk_mcp_handle(struct dtk_mcp *m, const char *msg, size_t len, int drop)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	int any;

	if (!out)
		abort(); /* out of memory */
	any = S_handle(m, msg, len, drop, out);
	fclose(out);
	if (!any) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- serving ---- */

/* Returns 1 when s[0..n) holds only spaces and tabs (a blank line). */
static int S_blank(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 0;
}

/* Input read from a file descriptor ahead of what was handled: buf[start,
 * len) is not handled yet; its complete lines before scanned were looked
 * through for cancellations (counted in the server's, S_count_cancel).
 * Every byte is copied and looked through once, so a message costs the
 * same however much input waits behind it. */
struct reader {
	int fd, eof;
	char *buf;
	size_t start, len, cap, scanned;
	size_t keep; /* where the line taken last starts: the bytes before it may go */
};

/* How much input is read ahead (to see cancellations of queued requests). */
#define LOOKAHEAD (1u << 20)

/* Reads once into r: waits for input when block, else reads only what is
 * there. Returns 1 when it read, 0 when nothing (at the end, or nothing
 * waiting), -1 with the error set when the input fails. */
static int S_fill(struct reader *r, int block)
{
	struct pollfd p = {r->fd, POLLIN, 0};
	ssize_t n;

	if (r->eof || (!block && poll(&p, 1, 0) <= 0))
		return 0;
	if (r->keep >= 65536 && r->keep >= r->len - r->keep) { /* drop what was handled */
		memmove(r->buf, r->buf + r->keep, r->len - r->keep);
		r->len -= r->keep;
		r->start -= r->keep;
		r->scanned -= r->scanned > r->keep ? r->keep : r->scanned;
		r->keep = 0;
	}
	dtk_grow((void **)&r->buf, &r->cap, r->len + 65536, 1);
	do
		n = read(r->fd, r->buf + r->len, 65536);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return dtk_error("cannot read standard input: %s", strerror(errno));
	if (n == 0)
		r->eof = 1;
	r->len += (size_t)n;
	return n > 0;
}

/* Looks through the complete lines of r from the one being handled on, not
 * looked through yet, for notifications/cancelled (lines of at most max
 * bytes), counting each in m's. */
static void S_scan(struct reader *r, struct dtk_mcp *m, size_t max)
{
	char *p, *nl, *end = r->buf + r->len;
	struct shape s;
	json_t *j;

	if (r->scanned < r->keep) /* lines handled already: not looked through */
		r->scanned = r->keep;
	for (p = r->buf + r->scanned; p < end && (nl = memchr(p, '\n', (size_t)(end - p)));
	     p = nl + 1) {
		if ((size_t)(nl - p) > max ||
		    !memmem(p, (size_t)(nl - p), "notifications/cancelled", 23) ||
		    !(j = S_parse(p, (size_t)(nl - p), 0, &s)))
			continue;
		S_count_cancel(m, j, 1);
		json_decref(j);
	}
	r->scanned = (size_t)(p - r->buf);
}

/* Takes the first line of r, waiting for it: sets r->keep to where it
 * starts in r->buf and *n to its length (without its '\n' or a '\r' before
 * it); it stays there until the next call. Returns 1, 0 at the end of the input,
 * DTK_ETOOBIG for a line over max bytes (skipped, never held whole), or -1
 * with the error set when the input fails. */
static int S_next_line(struct reader *r, size_t max, size_t *n)
{
	size_t from = r->start;
	char *nl;
	int rc, over = 0;

	r->keep = r->start;
	for (;;) {
		nl = r->len > from ? memchr(r->buf + from, '\n', r->len - from) : NULL;
		*n = (nl ? (size_t)(nl - r->buf) : r->len) - r->start;
		if (*n > max) /* drop it, skip the rest */
			over = 1;
		if (nl || (r->eof && r->len > r->start)) {
			r->keep = r->start;
			r->start += *n + (nl != NULL);
			break;
		}
		if (r->eof)
			return 0;
		if (over) { /* not kept: its rest is skipped as it comes (a line
			     * over max is never looked through: S_scan) */
			r->start = r->len = r->scanned = r->keep = 0;
		}
		from = r->len;
		if ((rc = S_fill(r, 1)) < 0)
			return rc;
	}
	if (over)
		return DTK_ETOOBIG;
	if (*n && r->buf[r->keep + *n - 1] == '\r')
		(*n)--;
	return 1;
}

int dtk_mcp_serve_fd(struct dtk_mcp *m, int in, FILE *out, FILE *err)
{
	struct reader r;
	size_t n;
	int rc, any;

	memset(&r, 0, sizeof(r));
	r.fd = in;
	while ((rc = S_next_line(&r, DTK_MCP_MAX_MESSAGE, &n)) != 0) {
		if (rc < 0 && rc != DTK_ETOOBIG)
			break;
		errno = 0;
		if (rc == DTK_ETOOBIG) {
			fprintf(err, "dtk mcp: a message over %u bytes was refused\n",
			        DTK_MCP_MAX_MESSAGE);
			any = S_put(out, 0, dtk_mcp_error(E_REQUEST, "message larger than 16 MiB"));
		} else if (S_blank(r.buf + r.keep, n)) {
			continue;
		} else {
			/* what is waiting already: a cancellation of a queued request */
			while (r.len - r.start < LOOKAHEAD && S_fill(&r, 0) > 0)
				;
			S_scan(&r, m, DTK_MCP_MAX_MESSAGE);
			any = S_handle(m, r.buf + r.keep, n, 1, out); /* in place, given back */
		}
		if (any && (putc('\n', out) < 0 || fflush(out) || ferror(out))) {
			/* the client closed its end: it has gone, as at the end of
			 * the input */
			rc = errno == EPIPE ? 0
			                    : dtk_error("cannot write standard output: %s",
			                                strerror(errno));
			break;
		}
	}
	json_object_clear(m->cancels); /* those of lines never handled */
	free(r.buf);
	return rc < 0 ? -1 : 0;
}
