/* mcp.c: the MCP server: messages, JSON-RPC, the lifecycle, resources. */
#include "dtk/mcp.h"

#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/ytree.h"
#include "mcp_tools.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const dtk_mcp_versions[4] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/* JSON-RPC's error codes, and MCP's for an unknown resource. */
enum {
	E_PARSE = -32700,
	E_REQUEST = -32600,
	E_METHOD = -32601,
	E_PARAMS = -32602,
	E_RESOURCE = -32002
};

struct dtk_mcp {
	unsigned flags;
	const char *version; /* the version initialize agreed on, or NULL */
};

/* ---- reading messages ---- */

int dtk_mcp_read_line(FILE *in, size_t max, struct dtk_buf *line)
{
	int c, over = 0, any = 0;

	line->len = 0;
	while ((c = getc(in)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (over)
			continue;
		if (line->len >= max) { /* drop it, skip the rest */
			over = 1;
			line->len = 0;
			continue;
		}
		dtk_buf_putc(line, (char)c);
	}
	if (ferror(in))
		return dtk_error("cannot read standard input: %s", strerror(errno));
	if (over)
		return DTK_ETOOBIG;
	if (line->len && line->ptr[line->len - 1] == '\r')
		line->len--;
	dtk_buf_putc(line, '\0');
	line->len--;
	return any ? 1 : 0;
}

/* ---- responses ---- */

struct dtk_mcp *dtk_mcp_new(unsigned flags)
{
	struct dtk_mcp *m = dtk_xcalloc(1, sizeof(*m));
	m->flags = flags;
	return m;
}

void dtk_mcp_free(struct dtk_mcp *m)
{
	free(m);
}

/* Returns the response line for id (stolen) and result (stolen). */
static char *S_result(json_t *id, json_t *result)
{
	json_t *r = json_pack("{s:s,s:o,s:o}", "jsonrpc", "2.0", "id", id, "result", result);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return s;
}

/* Returns the error response line for id (stolen; NULL: null). */
static char *S_error(json_t *id, int code, const char *msg)
{
	json_t *r = json_pack("{s:s,s:o,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
	                      id ? id : json_null(), "error", "code", code, "message", msg);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return s;
}

/* ---- methods ---- */

static json_t *S_initialize(struct dtk_mcp *m, json_t *params)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	const char *v = dtk_mcp_versions[0];
	size_t i;

	for (i = 0; asked && i < 4; i++)
		if (!strcmp(asked, dtk_mcp_versions[i]))
			v = dtk_mcp_versions[i];
	m->version = v;
	return json_pack(
	        "{s:s,s:{s:{s:b},s:{s:b,s:b}},s:{s:s,s:s,s:s},s:s}", "protocolVersion", v,
	        "capabilities", "tools", "listChanged", 0, "resources", "listChanged", 0,
	        "subscribe", 0, "serverInfo", "name", "dtk", "title", "dtk knowledge base",
	        "version", DTK_VERSION, "instructions",
	        "dtk keeps a knowledge base of insights (insights/<node>.yaml, one entry per "
	        "claim with its sources and confidence) and its INDEX.md. Search or list "
	        "entries, show one with what names it; each call reads the base as it is on "
	        "disk.");
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
	int fd = -1, rc;

	*code = E_RESOURCE;
	if (!strncmp(uri, "dtk://node/", 11)) {
		node = uri + 11;
		mime = "application/yaml";
	} else if (strcmp(uri, "dtk://index")) {
		snprintf(err, size, "Resource not found: %s", uri);
		return NULL;
	}
	if (!(root = dtk_kb_find_root("."))) {
		*code = E_PARAMS;
		snprintf(err, size, "%s", dtk_error_last());
		return NULL;
	}
	if (node && (!dtk_is_name(node) || strlen(node) > 200 || !dtk_kb_has_node(root, node))) {
		snprintf(err, size, "Resource not found: %s", uri);
		goto done;
	}
	rel = node ? dtk_xmalloc(strlen(node) + 20) : dtk_xstrdup(DTK_INDEX_FILE);
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

/* Runs method with params; returns the response line. */
static char *S_method(struct dtk_mcp *m, json_t *id, const char *method, json_t *params)
{
	char err[512];
	const char *msg = NULL;
	json_t *r = NULL;
	int code = E_PARAMS;

	if (params && !json_is_object(params))
		return S_error(id, E_PARAMS, "params must be an object");
	if (!strcmp(method, "initialize"))
		return S_result(id, S_initialize(m, params));
	if (!strcmp(method, "ping"))
		return S_result(id, json_object());
	if (!strcmp(method, "tools/list"))
		return S_result(id, json_pack("{s:o}", "tools", dtk_mcp_tools_list()));
	if (!strcmp(method, "resources/templates/list"))
		return S_result(id, json_pack("{s:[]}", "resourceTemplates"));
	if (!strcmp(method, "tools/call")) {
		json_t *name = json_object_get(params, "name");
		if (!json_is_string(name))
			return S_error(id, E_PARAMS, "tools/call needs the tool's name");
		if (m->flags & DTK_MCP_NO_CALLS)
			return S_error(id, E_PARAMS, "tool calls are off");
		if (dtk_mcp_tools_call(json_string_value(name),
		                       json_object_get(params, "arguments"), &r, &msg, err,
		                       sizeof(err)) < 0)
			return S_error(id, E_PARAMS, msg);
		return S_result(id, r);
	}
	if (!strcmp(method, "resources/list")) {
		if (!(r = S_resources_list(err, sizeof(err))))
			return S_error(id, E_PARAMS, err);
		return S_result(id, r);
	}
	if (!strcmp(method, "resources/read")) {
		json_t *uri = json_object_get(params, "uri");
		if (!json_is_string(uri))
			return S_error(id, E_PARAMS, "resources/read needs a uri");
		if (m->flags & DTK_MCP_NO_CALLS)
			return S_error(id, E_PARAMS, "reads are off");
		if (!(r = S_resources_read(json_string_value(uri), &code, err, sizeof(err))))
			return S_error(id, code, err);
		return S_result(id, r);
	}
	snprintf(err, sizeof(err), "Method not found: %s", method);
	return S_error(id, E_METHOD, err);
}

/* Answers one message j (not stolen); returns the response line, or NULL
 * when none is due. */
static char *S_message(struct dtk_mcp *m, json_t *j)
{
	json_t *id, *method;
	char *out = NULL;

	id = json_object_get(j, "id");
	method = json_object_get(j, "method");
	if (!json_is_object(j) || !json_is_string(json_object_get(j, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(j, "jsonrpc")), "2.0") ||
	    (id && !json_is_string(id) && !json_is_integer(id))) {
		/* an id that can be read is answered, so the request does not wait */
		out = S_error(id && (json_is_string(id) || json_is_integer(id)) ? json_incref(id)
		                                                                : NULL,
		              E_REQUEST, "Invalid Request");
	} else if (!method) {
		/* a response (to nothing dtk asked) or junk: answer only junk */
		if (!id || (!json_object_get(j, "result") && !json_object_get(j, "error")))
			out = S_error(id ? json_incref(id) : NULL, E_REQUEST, "Invalid Request");
	} else if (!json_is_string(method)) {
		out = S_error(id ? json_incref(id) : NULL, E_REQUEST, "Invalid Request");
	} else if (id) {
		out = S_method(m, json_incref(id), json_string_value(method),
		               json_object_get(j, "params"));
	} /* else a notification: nothing is answered */
	return out;
}

/* Answers a batch (a non-empty array) as protocol 2025-03-26 has them: an
 * array of the responses due, in order, or NULL when none is (notifications
 * only). An initialize in a batch is refused, as that version says. */
static char *S_batch(struct dtk_mcp *m, json_t *batch)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *item;
	size_t i;
	char *r;

	json_array_foreach(batch, i, item)
	{
		json_t *method = json_object_get(item, "method");
		if (json_is_string(method) && !strcmp(json_string_value(method), "initialize") &&
		    json_is_object(item) && json_object_get(item, "id"))
			r = S_error(json_incref(json_object_get(item, "id")), E_REQUEST,
			            "initialize must not be part of a batch");
		else
			r = S_message(m, item);
		if (!r)
			continue;
		dtk_buf_putc(&b, b.len ? ',' : '[');
		dtk_buf_puts(&b, r);
		free(r);
	}
	if (!b.len)
		return NULL;
	dtk_buf_putc(&b, ']');
	return dtk_buf_detach(&b);
}

char *dtk_mcp_handle(struct dtk_mcp *m, const char *msg, size_t len)
{
	json_error_t je;
	json_t *j = json_loadb(msg, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	char *out;

	if (!j)
		return S_error(NULL, E_PARSE, "Parse error");
	/* batches exist in 2025-03-26 only (2025-06-18 removed them) */
	if (json_is_array(j) && json_array_size(j) && m->version &&
	    !strcmp(m->version, "2025-03-26"))
		out = S_batch(m, j);
	else
		out = S_message(m, j);
	json_decref(j);
	return out;
}

int dtk_mcp_serve(FILE *in, FILE *out, FILE *err)
{
	struct dtk_buf line = DTK_BUF_INIT;
	struct dtk_mcp *m = dtk_mcp_new(0);
	char *resp;
	int rc;

	while ((rc = dtk_mcp_read_line(in, DTK_MCP_MAX_MESSAGE, &line)) != 0) {
		if (rc < 0 && rc != DTK_ETOOBIG)
			break;
		if (rc == DTK_ETOOBIG) {
			fprintf(err, "dtk mcp: a message over %u bytes was refused\n",
			        DTK_MCP_MAX_MESSAGE);
			resp = S_error(NULL, E_REQUEST, "message larger than 16 MiB");
		} else if (line.len == strspn(line.ptr, " \t")) {
			continue; /* a blank line */
		} else {
			resp = dtk_mcp_handle(m, line.ptr, line.len);
		}
		errno = 0;
		if (resp && (fputs(resp, out) < 0 || putc('\n', out) < 0 || fflush(out))) {
			free(resp);
			/* the client closed its end: it has gone, as at the end of
			 * the input */
			rc = errno == EPIPE ? 0
			                    : dtk_error("cannot write standard output: %s",
			                                strerror(errno));
			break;
		}
		free(resp);
	}
	dtk_buf_release(&line);
	dtk_mcp_free(m);
	return rc < 0 ? -1 : 0;
}
