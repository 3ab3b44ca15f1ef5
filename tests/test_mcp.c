/* test_mcp.c: the MCP server's message reader and JSON-RPC layer, in-process. */
#define _GNU_SOURCE /* fmemopen */
#include "dtk/cmd.h"
#include "dtk/fs.h"
#include "dtk/kb.h"
#include "dtk/mcp.h"
#include "dtk/view.h"
#include "support.h"

#include <ctype.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Returns the response to msg as JSON (NULL when none), failing on a
 * response that is not one line of JSON. */
static json_t *S_ask(struct dtk_mcp *m, const char *msg)
{
	char *r = dtk_mcp_handle(m, msg, strlen(msg), 0);
	json_t *j;
	if (!r)
		return NULL;
	assert_null(strchr(r, '\n'));
	j = json_loads(r, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "jsonrpc")), "2.0");
	free(r);
	return j;
}

/* Initializes m's session (2025-11-25). */
static void S_init(struct dtk_mcp *m)
{
	char *r =
	        dtk_mcp_handle(m,
	                       "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
	                       "{\"protocolVersion\":\"2025-11-25\"}}",
	                       strlen("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	                              "\"params\":{\"protocolVersion\":\"2025-11-25\"}}"),
	                       0);
	assert_non_null(strstr(r, "\"protocolVersion\":\"2025-11-25\""));
	free(r);
}

static int S_code(json_t *j)
{
	return (int)json_integer_value(json_object_get(json_object_get(j, "error"), "code"));
}

static void S_expect_error(struct dtk_mcp *m, const char *msg, int code, int null_id)
{
	json_t *j = S_ask(m, msg);
	assert_non_null(j);
	assert_int_equal(S_code(j), code);
	if (null_id)
		assert_true(json_is_null(json_object_get(j, "id")));
	json_decref(j);
}

/* A request that is not JSON-RPC 2.0 but whose id can be read gets its
 * error under that id, so that the client's call does not wait forever. */
static void S_expect_id(struct dtk_mcp *m, const char *msg, const char *id)
{
	json_t *j = S_ask(m, msg);
	assert_non_null(j);
	assert_int_equal(S_code(j), -32600);
	assert_string_equal(json_string_value(json_object_get(j, "id")), id);
	json_decref(j);
}

static void test_jsonrpc_errors(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	(void)state;
	/* before initialize, only ping */
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", -32600, 0);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{}}",
	               -32600, 0);
	S_init(m);
	S_expect_error(m, "{", -32700, 1);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", -32700, 1);
	S_expect_error(m, "[]", -32600, 1);
	S_expect_error(m, "42", -32600, 1);
	S_expect_error(m, "{\"id\":1,\"method\":\"ping\"}", -32600, 0);
	S_expect_id(m, "{\"jsonrpc\":\"1.0\",\"id\":\"q\",\"method\":\"ping\"}", "q");
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", -32600, 1);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600, 1);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", -32600, 0);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1}", -32600, 0);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}", -32601, 0);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}",
	               -32602, 0);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}",
	               -32602, 0);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{}}",
	               -32602, 0);
	/* numbers beyond what jansson holds, in valid JSON: an id beyond 64
	 * bits is refused under null, one elsewhere does not stop the request
	 * (nor a notification from being one); digits inside strings, escaped
	 * quotes too, are text */
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,"
	               "\"method\":\"ping\"}",
	               -32600, 1);
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":-1e999,\"method\":\"ping\"}", -32600, 1);
	{
		json_t *j =
		        S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\\"1e999\",\"method\":\"ping\","
		                 "\"params\":{\"_meta\":{\"a\":\"\\\\\",\"n\":18446744073709551616,"
		                 "\"r\":1e999}}}");
		assert_non_null(json_object_get(j, "result"));
		assert_string_equal(json_string_value(json_object_get(j, "id")), "x\"1e999");
		json_decref(j);
	}
	assert_null(S_ask(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	                     "\"params\":{\"requestId\":18446744073709551616}}"));
	/* initialize without a protocolVersion string */
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}", -32602, 0);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	               "{\"protocolVersion\":42}}",
	               -32602, 0);
	/* notifications and responses get no answer */
	assert_null(S_ask(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
	assert_null(S_ask(m, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}"));
	assert_null(S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}"));
	dtk_mcp_free(m);
}

/* Initializes m asking for version asked: it agrees on got; a second
 * initialize is refused, the session keeping its version. */
static void S_expect_version(struct dtk_mcp *m, const char *asked, const char *got)
{
	char msg[300];
	json_t *j, *r;
	snprintf(msg, sizeof(msg),
	         "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":"
	         "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	         "\"version\":\"1\"}}}",
	         asked);
	j = S_ask(m, msg);
	assert_string_equal(json_string_value(json_object_get(j, "id")), "a");
	r = json_object_get(j, "result");
	assert_string_equal(json_string_value(json_object_get(r, "protocolVersion")), got);
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")),
	        "dtk");
	assert_non_null(json_object_get(json_object_get(r, "capabilities"), "tools"));
	assert_non_null(json_object_get(json_object_get(r, "capabilities"), "resources"));
	json_decref(j);
	S_expect_error(m, msg, -32600, 0);
}

static void test_initialize_and_ping(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	json_t *j;
	static const char *const v[][2] = {{"2025-11-25", "2025-11-25"},
	                                   {"2025-06-18", "2025-06-18"},
	                                   {"2025-03-26", "2025-03-26"},
	                                   {"2024-11-05", "2024-11-05"},
	                                   {"2023-01-01", "2025-11-25"}}; /* unknown: the latest */
	size_t i;
	(void)state;
	for (i = 0; i < 5; i++) {
		struct dtk_mcp *one = dtk_mcp_new(DTK_MCP_NO_CALLS);
		S_expect_version(one, v[i][0], v[i][1]);
		dtk_mcp_free(one);
	}
	S_init(m);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 7);
	assert_int_equal(json_object_size(json_object_get(j, "result")), 0);
	json_decref(j);
	dtk_mcp_free(m);
}

static void test_tools_list(void **state)
{
	static const char *const want[] = {"show",    "list",  "search",
	                                   "next_id", "check", "crystallize_plan"};
	struct dtk_mcp *m = dtk_mcp_new(0);
	json_t *j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"), *tools,
	       *t;
	size_t i, k, found = 0;
	(void)state;
	S_init(m);
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	tools = json_object_get(json_object_get(j, "result"), "tools");
	assert_true(json_array_size(tools) >= 6);
	json_array_foreach(tools, i, t)
	{
		json_t *in = json_object_get(t, "inputSchema");
		assert_string_equal(json_string_value(json_object_get(in, "type")), "object");
		assert_non_null(json_object_get(t, "outputSchema"));
		assert_true(strlen(json_string_value(json_object_get(t, "description"))) > 20);
		for (k = 0; k < 6; k++)
			found += !strcmp(json_string_value(json_object_get(t, "name")), want[k]);
	}
	assert_int_equal(found, 6);
	json_decref(j);
	dtk_mcp_free(m);
}

/* A tools/call answered with an isError result whose text is want. */
/* (want NULL: a text that names the argument allow_future) */
static void S_expect_tool_error(struct dtk_mcp *m, const char *msg, const char *want)
{
	json_t *j = S_ask(m, msg), *r = json_object_get(j, "result");
	const char *text = json_string_value(
	        json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
	assert_true(json_is_true(json_object_get(r, "isError")));
	if (want)
		assert_string_equal(text, want);
	else
		assert_non_null(strstr(text, "argument 'allow_future'"));
	json_decref(j);
}

/* A server in a copy of the fixture base, the working directory until
 * S_session_end. */
struct session {
	struct dtk_mcp *m;
	char *dir, *cwd;
};

static struct session S_session(void)
{
	struct session s = {dtk_mcp_new(0), t_mkdtemp(), getcwd(NULL, 0)};
	char *base = t_src("tests/fixtures/base");
	t_copytree(base, s.dir);
	free(base);
	assert_int_equal(chdir(s.dir), 0);
	S_init(s.m);
	return s;
}

static void S_session_end(struct session *s)
{
	assert_int_equal(chdir(s->cwd), 0);
	dtk_mcp_free(s->m);
	t_rmtree(s->dir);
	free(s->dir);
	free(s->cwd);
}

/* Tool calls in a copy of the fixture base (the working directory moves). */
static void test_tools_call(void **state)
{
	struct session s = S_session();
	struct dtk_mcp *m = s.m;
	json_t *j, *r;
	(void)state;
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
	             "\"show\",\"arguments\":{\"target\":\"beta-001\"}}}");
	r = json_object_get(j, "result");
	assert_true(json_is_false(json_object_get(r, "isError")));
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(r, "structuredContent"), "id")),
	        "beta-001");
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
	             "\"show\",\"arguments\":{\"target\":\"../x\"}}}");
	r = json_object_get(j, "result");
	assert_true(json_is_true(json_object_get(r, "isError")));
	assert_non_null(strstr(json_string_value(json_object_get(
	                               json_array_get(json_object_get(r, "content"), 0), "text")),
	                       "is not a node name or entry id"));
	json_decref(j);
	S_expect_error(
	        m,
	        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
	        "\"nope\",\"arguments\":{}}}",
	        -32602, 0);
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"show\",\"arguments\":{\"target\":3}}}",
	                    "tool 'show': argument 'target' got 3; it accepts a string");
	S_expect_tool_error(
	        m,
	        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	        "\"name\":\"search\",\"arguments\":{\"query\":\"\\u3000\"}}}",
	        "tool 'search': argument 'query' got \"\u3000\"; it accepts a string of 1 "
	        "to 64 words");
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"search\",\"arguments\":{\"query\":\"  \"}}}",
	                    "tool 'search': argument 'query' got \"  \"; it accepts a string of 1 "
	                    "to 64 words");
	S_expect_tool_error(
	        m,
	        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	        "\"name\":\"list\",\"arguments\":{\"limit\":1.5}}}",
	        "tool 'list': argument 'limit' got 1.5; it accepts an integer from 1 to "
	        "100");
	S_expect_error(
	        m,
	        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
	        "\"list\",\"arguments\":{\"cursor\":\"o0\"}}}",
	        -32602, 0);
	/* no arguments at all: as none given */
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"show\"}}",
	                    "tool 'show' needs the argument 'target' (a node name, an entry id "
	                    "(<node>-<suffix>) or a source id (sources finds one)): a string");
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	             "\"name\":\"list\"}}");
	assert_true(json_is_array(json_object_get(
	        json_object_get(json_object_get(j, "result"), "structuredContent"), "entries")));
	json_decref(j);
	/* a value cut in a message is cut between characters (else no answer) */
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"list\",\"arguments\":{\"confidence\":\"高高高高高高高高高"
	                    "高高高高高高高高高高高高高高高高高高高高高\"}}}",
	                    "tool 'list': argument 'confidence' got \"高高高高高高高高高高高高高高高高高"
	                    "高高高高高高高高高…; it accepts one of \"high\", \"medium\", \"low\"");
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":"
	               "{\"uri\":\"dtk://node/../../etc/passwd\"}}",
	               -32002, 0);
	S_session_end(&s);
}

/* Returns the structuredContent of tool name's result with args (JSON). */
static json_t *S_tool(struct dtk_mcp *m, const char *name, const char *args)
{
	char msg[512];
	json_t *j, *sc;

	snprintf(msg, sizeof(msg),
	         "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{"
	         "\"name\":\"%s\",\"arguments\":%s}}",
	         name, args);
	j = S_ask(m, msg);
	assert_true(json_is_false(json_object_get(json_object_get(j, "result"), "isError")));
	sc = json_incref(json_object_get(json_object_get(j, "result"), "structuredContent"));
	json_decref(j);
	return sc;
}

/* Returns the freshness date of entry id in a page of list's (sc). */
static const char *S_fresh(json_t *sc, const char *id)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(sc, "entries"), i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "id")), id))
			return json_string_value(json_object_get(e, "fresh"));
	}
	fail_msg("%s is not in the page", id);
	return NULL;
}

/* INDEX.md made stale by hand: check says so, the reindex tool writes it,
 * check then says it is current, and reindex again writes nothing. */
static void test_reindex_tool(void **state)
{
	struct session s = S_session();
	struct dtk_mcp *m = s.m;
	const char *msg;
	json_t *sc;
	char *line;
	(void)state;
	assert_int_equal(t_sh(s.dir, "echo stale >> INDEX.md"), 0);
	sc = S_tool(m, "check", "{}");
	assert_true(json_is_false(json_object_get(sc, "index_current")));
	json_decref(sc);
	sc = S_tool(m, "reindex", "{}");
	assert_true(json_is_true(json_object_get(sc, "written")));
	assert_string_equal(json_string_value(json_object_get(sc, "index")), "INDEX.md");
	json_decref(sc);
	sc = S_tool(m, "check", "{}");
	assert_true(json_is_true(json_object_get(sc, "index_current")));
	json_decref(sc);
	/* the command's bytes as it wrote them under dtk mcp: no spaces */
	msg = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"reindex\",\"arguments\":{}}}";
	line = dtk_mcp_handle(m, msg, strlen(msg), 0);
	assert_non_null(strstr(line, "\"structuredContent\":{\"index\":\"INDEX.md\","
	                          "\"written\":false},\"content\":[{\"type\":\"text\",\"text\":"
	                          "\"{\\\"index\\\":\\\"INDEX.md\\\",\\\"written\\\":false}\"}]"));
	free(line);
	/* a date after today: the refusal names the argument that accepts it */
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"review\",\"arguments\":{\"ids\":\"beta-001\",\"date\":"
	                    "\"2999-01-01\"}}}",
	                    NULL);
	json_decref(S_tool(m, "review",
	                   "{\"ids\":\"beta-001\",\"date\":\"2999-01-01\",\"allow_future\":true,"
	                   "\"dry_run\":true}"));
	/* show of a node: its entries limit at a time */
	{
		json_t *a = S_tool(m, "show", "{\"target\":\"alpha\",\"limit\":1}"),
		       *b = S_tool(m, "show",
		                   "{\"target\":\"alpha\",\"limit\":1,\"cursor\":\"o1\"}");
		assert_int_equal(json_array_size(json_object_get(a, "entries")), 1);
		assert_true(json_integer_value(json_object_get(a, "entries_total")) >= 3);
		assert_string_equal(json_string_value(json_object_get(a, "nextCursor")), "o1");
		assert_string_equal(
		        json_string_value(json_object_get(
		                json_array_get(json_object_get(b, "entries"), 0), "id")),
		        "alpha-002");
		json_decref(a);
		json_decref(b);
	}
	/* crystallize_plan: the command's own pages (--limit, --page), each
	 * list cut to limit, its length in totals */
	{
		json_t *plan = S_tool(m, "crystallize_plan",
		                      "{\"date\":\"2026-12-01\",\"limit\":1}"),
		       *page;
		json_int_t stale = json_integer_value(
		        json_object_get(json_object_get(plan, "totals"), "stale"));
		assert_true(stale >= 2);
		assert_int_equal(json_array_size(json_object_get(plan, "stale")), 1);
		assert_int_equal(json_integer_value(json_object_get(plan, "next_page")), 2);
		page = S_tool(m, "crystallize_plan",
		              "{\"date\":\"2026-12-01\",\"limit\":1,\"page\":2}");
		assert_int_equal(json_array_size(json_object_get(page, "stale")), 1);
		assert_string_not_equal(
		        json_string_value(json_object_get(
		                json_array_get(json_object_get(page, "stale"), 0), "id")),
		        json_string_value(json_object_get(
		                json_array_get(json_object_get(plan, "stale"), 0), "id")));
		json_decref(plan);
		json_decref(page);
	}
	/* a node's review pairs: those of limit new entries a page */
	{
		json_t *plan, *r, *added, *near;
		added = S_tool(m, "add",
		               "{\"node\":\"beta\",\"title\":\"T\",\"claim\":\"Pipeline "
		               "bubbles shrink with more microbatches per step.\",\"source\":"
		               "\"paper-a\",\"confidence\":\"low\",\"created\":\"2026-12-01\"}");
		/* the gate's closest live entries come with the result */
		near = json_object_get(added, "closest");
		assert_true(json_is_array(near));
		assert_true(json_array_size(near) >= 1 && json_array_size(near) <= 5);
		assert_non_null(json_object_get(json_array_get(near, 0), "score"));
		assert_true(json_is_boolean(
		        json_object_get(json_array_get(near, 0), "likely_restatement")));
		json_decref(added);
		plan = S_tool(m, "crystallize_plan", "{\"date\":\"2026-12-02\",\"limit\":1}");
		r = json_array_get(json_object_get(plan, "reviews"), 0);
		assert_true(json_integer_value(json_object_get(r, "pair_count")) >= 2);
		assert_string_equal(json_string_value(json_object_get(r, "node")), "beta");
		json_decref(plan);
	}
	/* an operand's placeholder becomes the argument that gives it */
	S_expect_tool_error(m,
	                    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{"
	                    "\"name\":\"relate\",\"arguments\":{\"id\":\"alpha-001\",\"other\":"
	                    "\"nope-001\"}}}",
	                    "relate: error: argument 'other' 'nope-001': no such entry");
	/* crystallize_plan's messages name it, not the command it runs */
	S_expect_tool_error(
	        m,
	        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{"
	        "\"name\":\"crystallize_plan\",\"arguments\":{\"date\":\"2000-01-01\"}}}",
	        "crystallize_plan: error: the date 2000-01-01 is not after the last run "
	        "2026-07-01; pick a later day with argument 'date'");
	/* words split at any white space: U+3000, the ideographic space of
	 * Chinese and Japanese input, too */
	sc = S_tool(m, "search", "{\"query\":\"tensor\u3000domain\"}");
	assert_int_equal(json_integer_value(json_object_get(sc, "total")), 1);
	json_decref(sc);
	S_session_end(&s);
}

/* Runs dtk review of beta-001 at date in dir, as another process. */
static void S_review_beta(const char *dir, const char *date)
{
	struct t_run r;
	t_dtk(&r, dir, NULL, "review", "beta-001", "--date", date, NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
}

/* Ends a test run in a base of its own at dir: back to cwd, m freed, the
 * base removed, the names freed. */
static void S_leave(struct dtk_mcp *m, char *dir, char *base, char *cwd)
{
	assert_int_equal(chdir(cwd), 0);
	dtk_mcp_free(m);
	t_rmtree(dir);
	free(dir);
	free(base);
	free(cwd);
}

/* The read-only tools that load the whole base share one between calls,
 * loaded again only when a file changed: also when another process writes
 * it (here a dtk review run beside the session), whose change the next
 * call shows. */
static void S_held_base(void)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *cwd = getcwd(NULL, 0);
	struct dtk_mcp *m = dtk_mcp_new(0);
	struct t_run r;
	json_t *sc;

	t_copytree(base, dir);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1); /* files trusted at once */
	assert_int_equal(chdir(dir), 0);
	S_init(m);
	json_decref(S_tool(m, "list", "{}"));
	json_decref(S_tool(m, "similar", "{\"text\":\"small messages\"}"));
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_not_equal(S_fresh(sc, "beta-001"), "2026-11-30");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 1);
	t_dtk(&r, dir, NULL, "review", "beta-001", "--date", "2026-11-30", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-11-30");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 2);
	/* a write through the session itself, likewise */
	json_decref(S_tool(m, "review", "{\"ids\":[\"beta-001\"],\"date\":\"2026-12-01\"}"));
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-12-01");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 3);
	/* insights/ replaced by a copy whose beta-001 says otherwise */
	assert_int_equal(t_sh(dir, "mv insights old && cp -R old insights && rm -r old && "
	                           "sed -i 's/reviewed: 2026-12-01/reviewed: 2026-12-02/' "
	                           "insights/beta.yaml"),
	                 0);
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-12-02");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 4);
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 4);
	/* the directory put in its place is the one watched from then on */
	S_review_beta(dir, "2026-12-03");
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-12-03");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 5);
	/* a node file that is a link: a change of its target, which no watch of
	 * insights/ sees, shows too */
	assert_int_equal(t_sh(dir, "mkdir data && mv insights/beta.yaml data/ && "
	                           "ln -s ../data/beta.yaml insights/beta.yaml"),
	                 0);
	json_decref(S_tool(m, "list", "{\"node\":\"beta\"}"));
	assert_int_equal(dtk_mcp_base_loads(m), 6);
	S_review_beta(dir, "2026-12-02");
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-12-02");
	json_decref(sc);
	assert_int_equal(dtk_mcp_base_loads(m), 7);
	json_decref(S_tool(m, "list", "{\"node\":\"beta\"}"));
	assert_int_equal(dtk_mcp_base_loads(m), 7);
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	S_leave(m, dir, base, cwd);
}

/* The directory served replaced at its path (removed and copied back, as a
 * restore does): the next call reads the new one, not the old one gone. */
static void test_home_replaced(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *cwd = getcwd(NULL, 0);
	struct dtk_mcp *m = dtk_mcp_new(0);
	json_t *sc;
	(void)state;
	t_copytree(base, dir);
	assert_int_equal(chdir(dir), 0);
	S_init(m);
	json_decref(S_tool(m, "list", "{\"node\":\"beta\"}"));
	t_rmtree(dir);
	t_copytree(base, dir);
	t_sh(dir, "sed -i 's/^  - id: beta-001$/  - id: beta-001\\n    reviewed: 2026-11-29/' "
	          "insights/beta.yaml");
	sc = S_tool(m, "list", "{\"node\":\"beta\"}");
	assert_string_equal(S_fresh(sc, "beta-001"), "2026-11-29");
	json_decref(sc);
	S_leave(m, dir, base, cwd);
}

/* Returns the text of tool name's error result for args (malloc'd). */
static char *S_tool_error(struct dtk_mcp *m, const char *name, const char *args)
{
	struct dtk_buf msg = DTK_BUF_INIT;
	json_t *j, *r;
	char *text;

	dtk_buf_printf(&msg,
	               "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{"
	               "\"name\":\"%s\",\"arguments\":%s}}",
	               name, args);
	j = S_ask(m, msg.ptr);
	r = json_object_get(j, "result");
	assert_true(json_is_true(json_object_get(r, "isError")));
	text = dtk_xstrdup(json_string_value(
	        json_object_get(json_array_get(json_object_get(r, "content"), 0), "text")));
	json_decref(j);
	dtk_buf_release(&msg);
	return text;
}

/* What a model gets is bounded: a show lists 50 backlinks a list (the
 * count beside), a refusal 20 lines (the last kept, the others counted)
 * of at most 400 bytes each. */
static void test_results_bounded(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *cwd = getcwd(NULL, 0);
	struct dtk_mcp *m = dtk_mcp_new(0);
	struct dtk_buf b = DTK_BUF_INIT, v = DTK_BUF_INIT;
	size_t i, lines = 0;
	json_t *sc, *e;
	char *text, *p;
	(void)state;
	t_copytree(base, dir);
	for (i = 0; i < 60; i++)
		dtk_buf_printf(&b,
		               "  - id: alpha-%zu\n    title: link %zu\n    claim: Claim %zu.\n"
		               "    confidence: low\n    source: paper-c\n    created: 2026-07-20\n"
		               "    relates: [alpha-001]\n",
		               100 + i, i, i);
	t_sh(dir, "cat >>insights/alpha.yaml <<'EOF'\n%sEOF", b.ptr);
	assert_int_equal(chdir(dir), 0);
	S_init(m);
	sc = S_tool(m, "show", "{\"target\":\"alpha-001\"}");
	assert_int_equal(json_array_size(json_object_get(sc, "referenced_by")), 50);
	assert_true(json_integer_value(json_object_get(sc, "referenced_by_total")) > 60);
	json_decref(sc);
	sc = S_tool(m, "show", "{\"target\":\"alpha\",\"limit\":1}");
	e = json_array_get(json_object_get(sc, "entries"), 0);
	assert_int_equal(json_array_size(json_object_get(e, "referenced_by")), 50);
	assert_non_null(json_object_get(e, "referenced_by_total"));
	json_decref(sc);
	/* a value repeated whole in a message is cut */
	for (i = 0; i < 5000; i++)
		dtk_buf_putc(&v, 'x');
	b.len = 0;
	dtk_buf_printf(&b, "{\"target\":\"%s\"}", v.ptr);
	text = S_tool_error(m, "show", b.ptr);
	assert_true(strlen(text) < 600);
	assert_non_null(strstr(text, "…"));
	free(text);
	/* 30 invalid entries: 20 lines, the count of the others, the last */
	t_sh(dir, "sed -i 's/^    confidence: low$/    confidence: lowx/' insights/alpha.yaml");
	text = S_tool_error(m, "list", "{}");
	for (p = text; p; p = strchr(p + 1, '\n'))
		lines++;
	assert_int_equal(lines, 21);
	assert_non_null(strstr(text, " lines more, left out)\n"));
	assert_non_null(strstr(strrchr(text, '\n'), "errors"));
	free(text);
	dtk_buf_release(&b);
	dtk_buf_release(&v);
	S_leave(m, dir, base, cwd);
}

/* The base held: changes seen by the watch of insights/ (inotify)... */
static void test_held_base(void **state)
{
	(void)state;
	S_held_base();
}

/* ... and by the stat pass, where there is no watch (a network file
 * system) */
static void test_held_base_unwatched(void **state)
{
	(void)state;
	setenv("DTK_TEST_NO_WATCH", "1", 1);
	S_held_base();
	unsetenv("DTK_TEST_NO_WATCH");
}

/* Returns what server m (NULL: a new one) writes serving input in from a
 * file (malloc'd). */
static char *S_serve(struct dtk_mcp *m, const char *in, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fin = tmpfile(), *fout = open_memstream(&out, &len);
	assert_int_equal(fwrite(in, 1, n, fin), n);
	rewind(fin);
	struct dtk_mcp *own = m ? NULL : dtk_mcp_new(0);
	assert_int_equal(dtk_mcp_serve_fd(m ? m : own, fileno(fin), fout, stderr), 0);
	dtk_mcp_free(own);
	fclose(fout);
	fclose(fin);
	return out;
}

/* One message a line: blank lines skipped, a '\r' before the '\n' dropped,
 * the last line answered without its '\n'. */
static void test_serve(void **state)
{
	static const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \n"
	                         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n"
	                         "nope\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
	char *out = S_serve(NULL, in, sizeof(in) - 1);
	(void)state;
	assert_string_equal(out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	                         "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
	                         "\"message\":\"Parse error\"}}\n"
	                         "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
	free(out);
}

/* A client that closes its end of the server's output (the read end of the
 * pipe) before the server answers: the answer cannot be written, and the
 * server ends as at the end of its input, exit 0, rather than die of
 * SIGPIPE. */
static void test_serve_client_gone(void **state)
{
	static const char msgs[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
	                           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
	char *dir = t_mkdtemp(), *err;
	int out[2], st = 0, in;
	size_t len;
	pid_t pid;
	(void)state;
	t_write_str(dir, "in", msgs);
	assert_int_equal(pipe(out), 0);
	close(out[0]); /* the client has gone */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *in_path = dtk_path_join(dir, "in"), *err_path = dtk_path_join(dir, "err");
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		in = open(in_path, O_RDONLY);
		signal(SIGPIPE, SIG_DFL); /* as a shell starts it */
		if (in < 0 || e < 0 || dup2(in, 0) < 0 || dup2(out[1], 1) < 0 || dup2(e, 2) < 0 ||
		    chdir(dir) < 0)
			_exit(99);
		execl(t_dtk_bin, "dtk", "mcp", (char *)NULL);
		_exit(98);
	}
	close(out[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_false(WIFSIGNALED(st)); /* not killed by SIGPIPE */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	err = t_read(dir, "err", &len);
	assert_string_equal(err, "");
	free(err);
	t_done(dir);
}

/* resources/list names the node files that resources/read can read:
 * regular files, not a directory named like one nor a link out of the base;
 * and the generated pages of index/ (docs/index-format.md), each readable. */
static void test_resources_list_files(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *cwd = getcwd(NULL, 0);
	struct dtk_mcp *m = dtk_mcp_new(0);
	json_t *j, *list;
	size_t i;
	struct dtk_buf names = DTK_BUF_INIT;
	(void)state;
	t_copytree(base, dir);
	assert_int_equal(t_sh(dir, "mkdir insights/x.yaml && ln -s /etc/passwd insights/y.yaml && "
	                           "mkdir index && echo '# p' >index/a-b.md && echo x >index/c.txt"),
	                 0);
	assert_int_equal(chdir(dir), 0);
	S_init(m);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
	list = json_object_get(json_object_get(j, "result"), "resources");
	for (i = 0; i < json_array_size(list); i++)
		dtk_buf_printf(&names, "%s ",
		               json_string_value(json_object_get(json_array_get(list, i), "uri")));
	assert_string_equal(names.ptr, "dtk://index dtk://index/a-b.md dtk://sources "
	                               "dtk://node/alpha dtk://node/beta dtk://node/gamma ");
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":"
	             "{\"uri\":\"dtk://index/a-b.md\"}}");
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(json_object_get(json_object_get(j, "result"),
	                                                           "contents"),
	                                           0),
	                            "text")),
	                    "# p\n");
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
	             "{\"uri\":\"dtk://index/../INDEX.md\"}}");
	assert_non_null(json_object_get(j, "error"));
	json_decref(j);
	/* the sources' resource is _sources.yaml as it is */
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
	             "{\"uri\":\"dtk://sources\"}}");
	{
		size_t len;
		char *want = t_read(dir, "insights/_sources.yaml", &len);
		assert_string_equal(
		        json_string_value(json_object_get(
		                json_array_get(
		                        json_object_get(json_object_get(j, "result"), "contents"),
		                        0),
		                "text")),
		        want);
		free(want);
	}
	json_decref(j);
	assert_int_equal(chdir(cwd), 0);
	dtk_buf_release(&names);
	dtk_mcp_free(m);
	t_rmtree(dir);
	free(dir);
	free(base);
	free(cwd);
}

/* Returns the raw response to msg (malloc'd; NULL when none is due). */
static char *S_raw(struct dtk_mcp *m, const char *msg)
{
	return dtk_mcp_handle(m, msg, strlen(msg), 0);
}

/* U+2028 and U+2029 leave dtk mcp escaped: an id holding them is echoed
 * as \u2028 and \u2029, so a reader that splits on Unicode line breaks
 * still reads one message. */
static void test_line_separators_escaped(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(0);
	char *r;
	json_t *j;
	(void)state;
	r = S_raw(m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xE2\x80\xA8\x62\xE2\x80\xA9\",\"method\":"
	             "\"ping\"}");
	assert_non_null(r);
	assert_null(strstr(r, "\xE2\x80\xA8"));
	assert_null(strstr(r, "\xE2\x80\xA9"));
	assert_non_null(strstr(r, "\"a\\u2028b\\u2029\""));
	j = json_loads(r, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "id")), "a\xE2\x80\xA8"
	                                                                 "b\xE2\x80\xA9");
	json_decref(j);
	free(r);
	dtk_mcp_free(m);
}

/* Batches: only in a session that agreed on 2025-03-26, whose spec has them
 * (and keeps initialize out of them); later versions removed them. */
static void test_batches(void **state)
{
	static const char batch[] = "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"},"
	                            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},"
	                            "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"nope\"},1,"
	                            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\"}]";
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	json_t *j;
	char *r;
	(void)state;
	S_expect_error(m, batch, -32600, 1); /* before initialize: no batches */
	S_expect_version(m, "2025-03-26", "2025-03-26");
	r = S_raw(m, batch);
	assert_non_null(r);
	assert_null(strchr(r, '\n'));
	j = json_loads(r, 0, NULL);
	free(r);
	assert_true(json_is_array(j));
	assert_int_equal(json_array_size(j), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 5);
	assert_non_null(json_object_get(json_array_get(j, 0), "result"));
	assert_int_equal(S_code(json_array_get(j, 1)), -32601);
	assert_int_equal(S_code(json_array_get(j, 2)), -32600);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 3), "id")), 7);
	assert_int_equal(S_code(json_array_get(j, 3)), -32600);
	json_decref(j);
	/* notifications only: no answer; an empty batch is one invalid request */
	assert_null(S_raw(m, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]"));
	/* a request cancelled by a later message of its batch is not run */
	r = S_raw(m, "[{\"jsonrpc\":\"2.0\",\"id\":\"w\",\"method\":\"ping\"},"
	             "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"},"
	             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	             "\"params\":{\"requestId\":\"w\"}}]");
	j = json_loads(r, 0, NULL);
	free(r);
	assert_int_equal(json_array_size(j), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "id")), "x");
	json_decref(j);
	S_expect_error(m, "[]", -32600, 1);
	dtk_mcp_free(m);
	m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	S_expect_version(m, "2025-06-18", "2025-06-18");
	S_expect_error(m, batch, -32600, 1);
	dtk_mcp_free(m);
}

/* A message nesting deeper than DTK_MCP_MAX_DEPTH, or holding more than
 * DTK_MCP_MAX_VALUES values, is refused before it is parsed; within the
 * bounds it is answered. Brackets inside strings do not count. */
static void test_bounds(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i;
	json_t *j;
	(void)state;
	S_init(m);
	for (i = 0; i < DTK_MCP_MAX_DEPTH; i++)
		dtk_buf_putc(&b, '[');
	for (i = 0; i < DTK_MCP_MAX_DEPTH; i++)
		dtk_buf_putc(&b, ']');
	S_expect_error(m, b.ptr, -32600, 1); /* 64 deep: an invalid request, parsed */
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":");
	for (i = 0; i < DTK_MCP_MAX_DEPTH; i++)
		dtk_buf_putc(&b, '[');
	for (i = 0; i < DTK_MCP_MAX_DEPTH; i++)
		dtk_buf_putc(&b, ']');
	dtk_buf_puts(&b, "}}");
	j = S_ask(m, b.ptr);
	assert_string_equal(dtk_buf_cstr(&b) + 0, b.ptr);
	assert_int_equal(S_code(j), -32600); /* 66 deep: refused, under its id */
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 1);
	assert_non_null(
	        strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	               "64 levels"));
	json_decref(j);
	/* values */
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":[");
	for (i = 0; i < DTK_MCP_MAX_VALUES; i++)
		dtk_buf_puts(&b, i ? ",{}" : "{}");
	dtk_buf_puts(&b, "]}}");
	S_expect_error(m, b.ptr, -32600, 1);
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"x\":\"");
	for (i = 0; i < 2 * DTK_MCP_MAX_VALUES; i++)
		dtk_buf_puts(&b, "[{,:\\\"");
	dtk_buf_puts(&b, "\"}}");
	j = S_ask(m, b.ptr);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 3);
	assert_non_null(json_object_get(j, "result"));
	json_decref(j);
	/* deeper than jansson parses at all: still too deep, not a parse error,
	 * under its id (never parsed) */
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":");
	for (i = 0; i < 3000; i++)
		dtk_buf_putc(&b, '[');
	for (i = 0; i < 3000; i++)
		dtk_buf_putc(&b, ']');
	dtk_buf_puts(&b, "}}");
	j = S_ask(m, b.ptr);
	assert_int_equal(S_code(j), -32600);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 5);
	json_decref(j);
	/* a string holding U+0000 (valid JSON): refused under its id */
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":"
	             "\"a\\u0000b\"}}");
	assert_int_equal(S_code(j), -32602);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 4);
	json_decref(j);
	dtk_buf_release(&b);
	dtk_mcp_free(m);
}

/* 2026-07-28: no handshake; each request names its version in _meta, one
 * dtk does not speak gets -32022 with the versions it does; results say
 * they are complete; ping and initialize are gone from it. */
static void test_modern(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	json_t *j, *r, *data;
	(void)state;
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":"
	             "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
	r = json_object_get(j, "result");
	assert_string_equal(
	        json_string_value(json_array_get(json_object_get(r, "supportedVersions"), 0)),
	        "2026-07-28");
	assert_string_equal(json_string_value(json_object_get(r, "resultType")), "complete");
	assert_non_null(json_object_get(json_object_get(r, "capabilities"), "tools"));
	assert_non_null(json_object_get(r, "instructions"));
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":"
	             "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
	r = json_object_get(j, "result");
	assert_true(json_array_size(json_object_get(r, "tools")) >= 6);
	assert_string_equal(json_string_value(json_object_get(r, "cacheScope")), "private");
	assert_true(json_is_integer(json_object_get(r, "ttlMs")));
	json_decref(j);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":"
	             "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\"}}}");
	assert_int_equal(S_code(j), -32022);
	data = json_object_get(json_object_get(j, "error"), "data");
	assert_string_equal(json_string_value(json_object_get(data, "requested")), "2099-01-01");
	assert_int_equal(json_array_size(json_object_get(data, "supported")), DTK_MCP_N_VERSIONS);
	json_decref(j);
	/* a version spoken after initialize, named in _meta: only 2026-07-28 is
	 * listed, the one a retry may name there */
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":"
	             "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\"}}}");
	assert_int_equal(S_code(j), -32022);
	data = json_object_get(json_object_get(j, "error"), "data");
	assert_int_equal(json_array_size(json_object_get(data, "supported")), 1);
	assert_string_equal(
	        json_string_value(json_array_get(json_object_get(data, "supported"), 0)),
	        "2026-07-28");
	json_decref(j);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":"
	               "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
	               -32601, 0);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":"
	               "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":5}}}",
	               -32602, 0);
	/* the legacy session was never initialized: refused there */
	S_expect_error(m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}", -32600, 0);
	dtk_mcp_free(m);
}

/* A request whose notifications/cancelled is already waiting when its turn
 * comes is not run, and gets no answer; one answered before its cancel
 * came is answered. */
static void test_cancel_queued(void **state)
{
	static const char in[] =
	        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n"
	        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
	        "{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"ping\"}\n"
	        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n"
	        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
	        "{\"requestId\":\"two\"}}\n"
	        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
	        "{\"requestId\":1}}\n";
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	char *out = S_serve(m, in, sizeof(in) - 1);
	(void)state;
	/* 1 and two were both queued with their cancels: neither ran */
	assert_null(strstr(out, "\"id\":1,"));
	assert_null(strstr(out, "\"two\""));
	assert_non_null(strstr(out, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"));
	free(out);
	dtk_mcp_free(m);
}

/* Returns the result of tools/list of a new server named with prefix (a
 * new reference). */
static json_t *S_tools_of(const char *prefix)
{
	struct dtk_mcp *m = dtk_mcp_new(0);
	json_t *j, *r;
	dtk_mcp_set_prefix(m, prefix);
	S_init(m);
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	r = json_incref(json_object_get(j, "result"));
	json_decref(j);
	dtk_mcp_free(m);
	return r;
}

/* With --prefix, the descriptions name the other tools with it (and the
 * '@' that marks them is never shown). */
static void test_prefix_descriptions(void **state)
{
	static const char *const compound[] = {"add_node", "add_source", "similar", "contradict"};
	json_t *r = S_tools_of("kb_");
	char *all = json_dumps(r, JSON_COMPACT), *p;
	size_t i;
	(void)state;
	assert_null(strchr(all, '@'));
	assert_non_null(strstr(all, "and call kb_show for an entry"));
	assert_non_null(strstr(all, "(kb_add_node makes a new one)"));
	for (i = 0; i < 4; i++)
		for (p = all; (p = strstr(p + 1, compound[i])) != NULL;)
			if (p[-1] != '"' && !isalpha((unsigned char)p[strlen(compound[i])]))
				assert_memory_equal(p - 3, "kb_", 3); /* not its name, a word */
	free(all);
	json_decref(r);
	r = S_tools_of("");
	all = json_dumps(r, JSON_COMPACT);
	assert_null(strchr(all, '@'));
	assert_non_null(strstr(all, "and call show for an entry"));
	free(all);
	json_decref(r);
}

/* Returns the input schema's properties of tool name in tools/list r. */
static json_t *S_props(json_t *r, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(r, "tools"), i, t)
	{
		if (!strcmp(json_string_value(json_object_get(t, "name")), name))
			return json_object_get(json_object_get(t, "inputSchema"), "properties");
	}
	fail_msg("no tool %s", name);
	return NULL;
}

/* A tool's arguments are its command's declaration: list's are the
 * options of dtk list it names (their help, choices), then the page; add's
 * confidence the choices its option declares; gap's action the
 * alternatives of its operand's placeholder. */
static void test_schema_from_declaration(void **state)
{
	json_t *r = S_tools_of(""), *props = S_props(r, "list"), *v, *e;
	const struct dtk_opt *o;
	const char *key, *ops = dtk_cmd_find("gap")->operands;
	char name[64], *c, help[256];
	size_t i, n = 0;
	(void)state;
	json_object_foreach(props, key, v)
	{
		if (!strcmp(key, "limit") || !strcmp(key, "cursor"))
			continue;
		snprintf(name, sizeof(name), "%s", key);
		for (c = name; (c = strchr(c, '_')) != NULL;)
			*c = '-';
		for (o = dtk_cmd_find("list")->opts; o->name && strcmp(o->name, name); o++)
			;
		assert_non_null(o->name);
		snprintf(help, sizeof(help), "%s", o->help);
		for (c = help; (c = strchr(c, '\n')) != NULL;)
			*c = ' ';
		assert_string_equal(json_string_value(json_object_get(v, "description")), help);
		assert_int_equal(json_object_get(v, "enum") != NULL, o->choices != NULL);
		n++;
	}
	assert_int_equal(n, 6);
	e = json_object_get(json_object_get(S_props(r, "add"), "confidence"), "enum");
	for (i = 0; dtk_confidence_names[i]; i++)
		assert_string_equal(json_string_value(json_array_get(e, i)), dtk_confidence_names[i]);
	assert_int_equal(json_array_size(e), i);
	e = json_object_get(json_object_get(S_props(r, "gap"), "action"), "enum");
	for (i = 0, c = name; i < json_array_size(e); i++)
		c += sprintf(c, "%s%s", i ? "|" : "<", json_string_value(json_array_get(e, i)));
	assert_memory_equal(ops, name, strlen(name));
	assert_int_equal(ops[strlen(name)], '>');
	json_decref(r);
}

/* dtk mcp --help names every read tool. */
static void test_help_read_tools(void **state)
{
	const char *help = dtk_cmd_find("mcp")->help;
	json_t *r = S_tools_of(""), *t;
	size_t i, n = 0;
	char word[100];
	(void)state;
	json_array_foreach(json_object_get(r, "tools"), i, t)
	{
		if (!json_is_true(
		            json_object_get(json_object_get(t, "annotations"), "readOnlyHint")))
			continue;
		snprintf(word, sizeof(word), "%s,", json_string_value(json_object_get(t, "name")));
		if (!strstr(help, word)) /* the last, or a name at a line's end */
			snprintf(word, sizeof(word), "%s",
			         json_string_value(json_object_get(t, "name")));
		assert_non_null(strstr(help, word));
		n++;
	}
	assert_true(n >= 7);
	json_decref(r);
}

/* Returns the peak resident memory (KiB) of a child process serving
 * input in (b's bytes, released first: the child's pages are its own) with
 * a new server in the working directory. */
static long S_peak_kib(struct dtk_buf *b)
{
	struct rusage ru;
	FILE *f = tmpfile();
	int st = 0;
	pid_t pid;

	assert_int_equal(fwrite(b->ptr, 1, b->len, f), b->len);
	fflush(f);
	rewind(f);
	dtk_buf_release(b);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct dtk_mcp *m = dtk_mcp_new(0);
		FILE *out = fopen("/dev/null", "w");
		_exit(out && dtk_mcp_serve_fd(m, fileno(f), out, out) == 0 ? 0 : 1);
	}
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fclose(f);
	return ru.ru_maxrss;
}

/* Sets b to head and a message of 99,800 short strings (under 16 MiB), a
 * number beyond a double before them when wide, then a search of "alpha"
 * under the id "last". */
static void S_short_strings(struct dtk_buf *b, const char *head, int wide)
{
	size_t i;

	b->len = 0;
	dtk_buf_puts(b, head);
	dtk_buf_printf(b,
	               "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{"
	               "\"_meta\":{\"n\":%s,\"x\":[",
	               wide ? "1e999" : "1");
	for (i = 0; i < 99800; i++)
		dtk_buf_printf(b, "%s\"%0164zu\"", i ? "," : "", i);
	dtk_buf_puts(b, "]},\"name\":\"search\",\"arguments\":{\"query\":\"alpha\"}},"
	                "\"id\":\"last\"}\n");
	assert_true(b->len - strlen(head) < DTK_MCP_MAX_MESSAGE);
}

/* The work of one message is bounded: a search of 5 million two-letter
 * words (15 MiB, under the message limit) is refused (a query takes at
 * most 64 words), a string argument over 1 MiB too, a message holding a
 * string over 2 MiB is refused under its id before it is parsed; and the
 * 15 MiB search costs less than twice the message limit beyond a session
 * that served one small search of the same base (it took 1.5 GB). */
/* A batch (protocol 2025-03-26) is held whole while its requests run: one
 * over DTK_MCP_MAX_BATCH as written is refused whole, so a request's work
 * beside the rest of its batch stays within twice the message limit (a
 * `similar` of 1 MiB of Chinese before 15 MiB of short strings took 2.2
 * times); one under it is answered. */
static void test_batch_bounded(void **state)
{
	struct session s = S_session();
	struct dtk_mcp *m = dtk_mcp_new(0);
	struct dtk_buf b = DTK_BUF_INIT;
	static const char head[] =
	        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	        "\"protocolVersion\":\"2025-03-26\"}}\n";
	long idle, big;
	json_t *j;
	size_t i;
	char *r;
	(void)state;
	dtk_buf_put(&b, head, sizeof(head) - 2);
	json_decref(S_ask(m, b.ptr));
	b.len = 0;
	dtk_buf_puts(&b, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
	                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{"
	                 "\"_meta\":{\"x\":[");
	for (i = 0; b.len < DTK_MCP_MAX_BATCH - 200; i++)
		dtk_buf_printf(&b, "%s\"%062zu\"", i ? "," : "", i);
	dtk_buf_puts(&b, "]}}}]");
	r = dtk_mcp_handle(m, b.ptr, b.len, 0); /* under: both answered */
	j = json_loads(r, 0, NULL);
	free(r);
	assert_true(json_is_array(j) && json_array_size(j) == 2);
	json_decref(j);
	b.len -= 5;
	dtk_buf_puts(&b, ",\"0123456789012345678901234567890123456789012345678901234567890123\"");
	dtk_buf_puts(&b, ",\"0123456789012345678901234567890123456789012345678901234567890123\"");
	dtk_buf_puts(&b, ",\"0123456789012345678901234567890123456789012345678901234567890123\"");
	dtk_buf_puts(&b, ",\"0123456789012345678901234567890123456789012345678901234567890123\"");
	dtk_buf_puts(&b, "]}}}]");
	assert_true(b.len > DTK_MCP_MAX_BATCH);
	r = dtk_mcp_handle(m, b.ptr, b.len, 0); /* over: refused whole */
	j = json_loads(r, 0, NULL);
	free(r);
	assert_true(json_is_object(j));
	assert_int_equal(S_code(j), -32600);
	assert_true(json_is_null(json_object_get(j, "id")));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "error"),
	                                                         "message")),
	                       "over 4 MiB"));
	json_decref(j);
	dtk_mcp_free(m);
	/* the peak of the shape that took 2.2 times the limit */
	b.len = 0;
	dtk_buf_puts(&b, head);
	idle = S_peak_kib(&b);
	dtk_buf_puts(&b, head);
	dtk_buf_puts(&b, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
	                 "\"name\":\"similar\",\"arguments\":{\"text\":\"");
	for (i = 0; i < 349000; i++) {
		unsigned c = 0x4e00 + (unsigned)(i * 7919 % 20000);
		dtk_buf_putc(&b, (char)(0xe0 | c >> 12));
		dtk_buf_putc(&b, (char)(0x80 | (c >> 6 & 0x3f)));
		dtk_buf_putc(&b, (char)(0x80 | (c & 0x3f)));
	}
	dtk_buf_puts(&b, "\"}}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	                 "\"params\":{\"name\":\"list\",\"arguments\":{\"node\":[");
	for (i = 0; i < 88000; i++)
		dtk_buf_printf(&b, "%s\"%0164zu\"", i ? "," : "", i);
	dtk_buf_puts(&b, "]}}}]\n");
	assert_true(b.len < DTK_MCP_MAX_MESSAGE);
	big = S_peak_kib(&b);
	print_message("peak: %ld KiB, %ld KiB after a 16 MiB batch\n", idle, big);
#ifndef __SANITIZE_ADDRESS__
	assert_true(big - idle < 2 * (long)(DTK_MCP_MAX_MESSAGE / 1024));
#endif
	S_session_end(&s);
}

static void test_message_work_bounded(void **state)
{
	struct session s = S_session();
	struct dtk_buf b = DTK_BUF_INIT, words = DTK_BUF_INIT;
	static const char head[] =
	        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	        "\"protocolVersion\":\"2025-11-25\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	        "\"tools/"
	        "call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"alpha\"}}}\n";
	long idle, big;
	json_t *j;
	size_t i, k;
	char *out;
	(void)state;
	for (i = 0; i < 65; i++)
		dtk_buf_puts(&words, i ? " ab" : "ab");
	dtk_buf_printf(&b,
	               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
	               "\"name\":\"search\",\"arguments\":{\"query\":\"%s\"}}}",
	               words.ptr);
	j = S_ask(s.m, b.ptr);
	assert_true(json_is_true(json_object_get(json_object_get(j, "result"), "isError")));
	assert_non_null(strstr(
	        json_string_value(json_object_get(
	                json_array_get(json_object_get(json_object_get(j, "result"), "content"), 0),
	                "text")),
	        "a string of 1 to 64 words"));
	json_decref(j);
	words.len -= 3; /* 64: searched */
	b.len = 0;
	dtk_buf_printf(&b,
	               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
	               "\"name\":\"search\",\"arguments\":{\"query\":\"%.*s\"}}}",
	               (int)words.len, words.ptr);
	j = S_ask(s.m, b.ptr);
	assert_true(json_is_false(json_object_get(json_object_get(j, "result"), "isError")));
	json_decref(j);
	/* a string over 1 MiB, and one over 2 MiB as written */
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\",\"params\":"
	                 "{\"name\":\"show\",\"arguments\":{\"target\":\"");
	for (i = 0; i <= (1u << 20); i++)
		dtk_buf_putc(&b, 'x');
	dtk_buf_puts(&b, "\"}}}");
	j = S_ask(s.m, b.ptr);
	assert_true(json_is_true(json_object_get(json_object_get(j, "result"), "isError")));
	assert_non_null(strstr(
	        json_string_value(json_object_get(
	                json_array_get(json_object_get(json_object_get(j, "result"), "content"), 0),
	                "text")),
	        "of at most 1048576 bytes (not 1048577)"));
	json_decref(j);
	b.len -= 4;
	for (i = 0; i <= (1u << 20); i++)
		dtk_buf_putc(&b, 'x');
	dtk_buf_puts(&b, "\"}}}");
	j = S_ask(s.m, b.ptr);
	assert_int_equal(S_code(j), -32602);
	assert_string_equal(json_string_value(json_object_get(j, "id")), "big");
	json_decref(j);
	/* the peak of the 15 MiB search */
	b.len = 0;
	dtk_buf_puts(&b, head);
	idle = S_peak_kib(&b);
	dtk_buf_puts(&b, head);
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
	                 "\"name\":\"search\",\"arguments\":{\"query\":\"");
	for (i = 0; i < 5000000; i++)
		dtk_buf_printf(&b, "%s%c%c", i ? " " : "", 'a' + (int)(i % 26),
		               'a' + (int)(i / 26 % 26));
	dtk_buf_puts(&b, "\"}}}\n");
	assert_true(b.len < DTK_MCP_MAX_MESSAGE);
	big = S_peak_kib(&b);
	print_message("peak: %ld KiB, %ld KiB after a 15 MiB search\n", idle, big);
	assert_true(big - idle < 2 * (long)(DTK_MCP_MAX_MESSAGE / 1024));
	/* a list argument of 1,001 names is refused before any is looked up
	 * (99,900 took 2.5 times the limit) */
	b.len = 0;
	dtk_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
	                 "\"name\":\"list\",\"arguments\":{\"node\":[\"no\"");
	for (i = 1; i < 1001; i++)
		dtk_buf_puts(&b, ",\"no\"");
	dtk_buf_puts(&b, "]}}}");
	j = S_ask(s.m, b.ptr);
	assert_non_null(strstr(
	        json_string_value(json_object_get(
	                json_array_get(json_object_get(json_object_get(j, "result"), "content"), 0),
	                "text")),
	        "a string or a list of 1 to 1000 strings"));
	json_decref(j);
	/* 16 MiB of short strings, the most values (jansson's overhead on
	 * each), a number beyond a double before them or not: the message is
	 * given back as it is parsed (it took 2.2 times the limit held beside
	 * its parsed values), and read right (the id after them, the search
	 * after them answered); the peaks first (the answers grow this
	 * process's heap, which its children would start with) */
	for (k = 0; k < 4; k++) {
		S_short_strings(&b, head, k % 2);
		if (k < 2) {
			big = S_peak_kib(&b);
			print_message("peak: %ld KiB after 16 MiB of short strings\n", big);
#ifndef __SANITIZE_ADDRESS__ /* its allocator's peak: redzones, a quarantine */
			assert_true(big - idle < 2 * (long)(DTK_MCP_MAX_MESSAGE / 1024));
#endif
			continue;
		}
		out = S_serve(s.m, b.ptr, b.len);
		assert_non_null(strstr(
		        out, "\n{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"result\":"
		             "{\"structuredContent\":{\"entries\":[{"));
		free(out);
	}
	dtk_buf_release(&b);
	dtk_buf_release(&words);
	S_session_end(&s);
}

/* next_id in a session gives an id of the node asked for, whichever it is
 * (not the first node of the base held). */
static void test_next_id_node(void **state)
{
	struct session s = S_session();
	static const char *const nodes[] = {"gamma", "beta", "alpha"};
	char args[100], prefix[100];
	json_t *r;
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(args, sizeof(args), "{\"node\":\"%s\"}", nodes[i]);
		snprintf(prefix, sizeof(prefix), "%s-", nodes[i]);
		r = S_tool(s.m, "next_id", args);
		assert_int_equal(strncmp(json_string_value(json_object_get(r, "id")), prefix,
		                         strlen(prefix)),
		                 0);
		json_decref(r);
	}
	S_session_end(&s);
}

/* 50,000 pipelined requests, all in the input at once: each is answered in
 * order, but those cancelled by a notification later in the input (read
 * ahead across reads); a cancellation before its request cancels nothing,
 * nor does the tail of a line over the limit that looks like one. */
static void test_pipeline_large(void **state)
{
	struct dtk_buf in = DTK_BUF_INIT, want = DTK_BUF_INIT;
	struct dtk_mcp *m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	static const char cancel[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	                             "cancelled\",\"params\":{\"requestId\":%d}}\n";
	char *out;
	int i;
	(void)state;
	dtk_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
	                  "{\"protocolVersion\":\"2025-11-25\"}}\n");
	for (i = 1; i <= 50000; i++) {
		if (i % 100 == 10)
			dtk_buf_printf(&in, cancel, i + 5); /* before its request */
		dtk_buf_printf(&in, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i);
		if (i % 100 == 50)
			dtk_buf_printf(&in, cancel, i - 40);
		if (i % 100 != 10)
			dtk_buf_printf(&want, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", i);
	}
	for (i = 0; i < (int)DTK_MCP_MAX_MESSAGE; i += 4)
		dtk_buf_puts(&in, "    "); /* its tail alone would parse */
	dtk_buf_printf(&in, cancel, 50001);
	dtk_buf_printf(&want, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
	                      "\"message\":\"message larger than 16 MiB\"}}\n");
	dtk_buf_printf(&in, "{\"jsonrpc\":\"2.0\",\"id\":50001,\"method\":\"ping\"}\n");
	dtk_buf_printf(&want, "{\"jsonrpc\":\"2.0\",\"id\":50001,\"result\":{}}\n");
	out = S_serve(m, in.ptr, in.len);
	assert_non_null(strchr(out, '\n'));
	assert_string_equal(strchr(out, '\n') + 1, want.ptr);
	free(out);
	dtk_buf_release(&in);
	dtk_buf_release(&want);
	dtk_mcp_free(m);
}

/* Runs dtk cmd args... (NULL-ended) on the base at root in-process, with
 * hold (NULL: none); returns its stdout, stderr and status in one string
 * (malloc'd). */
static char *S_run_cmd(const char *root, struct dtk_kb_hold **hold, const char *cmd, ...)
{
	char *argv[16], *out = NULL, *err = NULL, *all = NULL;
	size_t n_out = 0, n_err = 0;
	struct dtk_ctx ctx;
	va_list ap;
	int argc = 0, rc;

	argv[argc++] = (char *)cmd;
	va_start(ap, cmd);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.out = open_memstream(&out, &n_out);
	ctx.err = open_memstream(&err, &n_err);
	ctx.hold = hold;
	rc = dtk_cmd_run(&ctx, dtk_cmd_find(cmd), argc, argv);
	fclose(ctx.out);
	fclose(ctx.err);
	if (asprintf(&all, "%s\n--\n%s\n-- %d\n", out, err, rc) < 0)
		fail();
	free(out);
	free(err);
	return all;
}

/* Sources for agents: the tool sources finds them by id, title or url, a
 * page at a time; show (tool and command, held base or not) shows one. */
static void test_sources(void **state)
{
	struct session s = S_session();
	struct dtk_kb_hold *hold = NULL;
	json_t *r;
	char *out;
	(void)state;
	r = S_tool(s.m, "sources", "{\"query\":\"SEQUEL paper\"}");
	assert_int_equal(json_integer_value(json_object_get(r, "total")), 1);
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(json_object_get(r, "entries"), 0), "id")),
	                    "paper-c");
	json_decref(r);
	r = S_tool(s.m, "sources", "{\"query\":\"example.org\"}"); /* the url */
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(json_object_get(r, "entries"), 0), "url")),
	                    "https://example.org/a");
	json_decref(r);
	r = S_tool(s.m, "sources", "{\"limit\":3}"); /* every one, a page at a time */
	assert_int_equal(json_integer_value(json_object_get(r, "total")), 4);
	assert_int_equal(json_array_size(json_object_get(r, "entries")), 3);
	assert_string_equal(json_string_value(json_object_get(r, "nextCursor")), "o3");
	json_decref(r);
	r = S_tool(s.m, "show", "{\"target\":\"paper-a\"}");
	assert_string_equal(json_string_value(json_object_get(r, "read")), "2026-01-10");
	assert_string_equal(json_string_value(json_object_get(r, "title")), "Paper A");
	json_decref(r);
	/* the command, with a held base and without */
	out = S_run_cmd(s.dir, &hold, "show", "paper-c", NULL);
	assert_string_equal(out, "paper-c  (source)\n  Paper C: the sequel\n\n--\n\n-- 0\n");
	free(out);
	out = S_run_cmd(s.dir, NULL, "show", "paper-c", NULL);
	assert_string_equal(out, "paper-c  (source)\n  Paper C: the sequel\n\n--\n\n-- 0\n");
	free(out);
	out = S_run_cmd(s.dir, NULL, "show", "paper-z", NULL);
	assert_non_null(strstr(out, "no node, entry or source 'paper-z'"));
	assert_non_null(strstr(out, "-- 2\n"));
	free(out);
	out = S_run_cmd(s.dir, NULL, "search", "--sources", "--format", "ids", "d", NULL);
	assert_string_equal(out, "docs-d\n\n--\n\n-- 0\n");
	free(out);
	dtk_kb_hold_free(hold);
	S_session_end(&s);
}

/* Returns a page (view.h) of n items of size bytes each, from offset,
 * parsed. */
static json_t *S_page_of(size_t n, size_t size, size_t offset)
{
	struct dtk_page page = {.offset = offset, .size = 100};
	struct dtk_buf b = DTK_BUF_INIT, item = DTK_BUF_INIT;
	struct dtk_json j;
	json_t *r;
	size_t i;

	for (i = 0; i < size - 2; i++)
		dtk_buf_putc(&item, 'x');
	dtk_json_init(&j, &b);
	j.compact = 2;
	dtk_view_list_begin(&j, &page);
	for (i = 0; i < n; i++)
		if (dtk_view_list_item(&j, &page))
			dtk_json_string(&j, item.ptr);
	dtk_view_list_end(&j, &page);
	r = json_loads(b.ptr, 0, NULL);
	assert_non_null(r);
	dtk_buf_release(&b);
	dtk_buf_release(&item);
	return r;
}

/* A page of a list ends before the item that would take it past
 * DTK_VIEW_PAGE_BYTES (taken out again once written), one item at least;
 * its cursor goes on from there. */
static void test_page_bytes(void **state)
{
	size_t per = DTK_VIEW_PAGE_BYTES / 7 + 1, k = (DTK_VIEW_PAGE_BYTES + 1) / (per + 1);
	json_t *p = S_page_of(20, per, 0);
	char next[16];
	(void)state;
	assert_int_equal(json_array_size(json_object_get(p, "entries")), k);
	assert_int_equal(json_integer_value(json_object_get(p, "total")), 20);
	snprintf(next, sizeof(next), "o%zu", k);
	assert_string_equal(json_string_value(json_object_get(p, "nextCursor")), next);
	json_decref(p);
	p = S_page_of(3, 2 * DTK_VIEW_PAGE_BYTES, 1); /* one item over the bound */
	assert_int_equal(json_array_size(json_object_get(p, "entries")), 1);
	assert_string_equal(json_string_value(json_object_get(p, "nextCursor")), "o2");
	json_decref(p);
	p = S_page_of(3, 10, 5); /* past the end */
	assert_int_equal(json_array_size(json_object_get(p, "entries")), 0);
	assert_null(json_object_get(p, "nextCursor"));
	json_decref(p);
}

/* Returns the names of the tools m lists, each followed by a space
 * (malloc'd). */
static char *S_tool_names(struct dtk_mcp *m)
{
	struct dtk_buf b = DTK_BUF_INIT;
	json_t *j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"), *t;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(j, "result"), "tools"), i, t)
	        dtk_buf_printf(&b, "%s ", json_string_value(json_object_get(t, "name")));
	json_decref(j);
	dtk_buf_putc(&b, '\0');
	return dtk_buf_detach(&b);
}

/* Tool subsets (--read-only, --tools): the others are neither listed nor
 * called, and the instructions leave out the loop's writes. */
static void test_tool_subsets(void **state)
{
	struct dtk_mcp *m = dtk_mcp_new(0);
	char *names, *out, *dir = t_mkdtemp();
	json_t *j;
	(void)state;
	assert_int_equal(dtk_mcp_set_tools(m, NULL, 1), 0);
	dtk_mcp_set_prefix(m, "kb_");
	j = S_ask(m, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
	             "{\"protocolVersion\":\"2025-11-25\"}}");
	assert_null(strstr(
	        json_string_value(json_object_get(json_object_get(j, "result"), "instructions")),
	        "kb_use"));
	json_decref(j);
	names = S_tool_names(m);
	assert_string_equal(names, "kb_show kb_list kb_search kb_sources kb_similar kb_next_id "
	                           "kb_check kb_crystallize_plan ");
	free(names);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
	               "\"name\":\"kb_add\",\"arguments\":{}}}",
	               -32602, 0);
	S_expect_error(m,
	               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
	               "\"name\":\"kb_reindex\",\"arguments\":{}}}",
	               -32602, 0);
	dtk_mcp_free(m);
	m = dtk_mcp_new(0);
	assert_int_equal(dtk_mcp_set_tools(m, "use,search", 0), 0);
	S_init(m);
	names = S_tool_names(m);
	assert_string_equal(names, "search use ");
	free(names);
	/* unknown names, writes under --read-only: refused, naming the tools */
	assert_int_equal(dtk_mcp_set_tools(m, "show,nope", 0), -1);
	assert_non_null(strstr(dtk_error_last(), "'nope' is no tool; the tools are show, list,"));
	assert_int_equal(dtk_mcp_set_tools(m, "show,", 0), -1);
	assert_int_equal(dtk_mcp_set_tools(m, "show,add", 1), -1);
	assert_non_null(strstr(dtk_error_last(), "'add' is a tool that writes (--read-only)"));
	dtk_mcp_free(m);
	out = S_run_cmd(dir, NULL, "mcp", "--read-only", "--tools", "add", NULL);
	assert_non_null(strstr(out, "dtk mcp: error: --tools: 'add' is a tool that writes"));
	assert_non_null(strstr(out, "-- 2\n"));
	free(out);
	t_rmtree(dir);
	free(dir);
}

/* show and search from the base held print the bytes a process of their own
 * prints: every node and entry of the shipped base shown, text and json,
 * and searches of every format and filter; one load for all of them. */
static void test_held_same_bytes(void **state)
{
	static const char *const queries[][4] = {
	        {"nccl", NULL},
	        {"通信", "--format", "json", NULL},
	        {"rank", "--format", "jsonl", NULL},
	        {"a", "--format", "ids", NULL},
	        {"checkpoint", "--limit", "3", NULL},
	        {"a", "--node", "collective-communication", NULL},
	        {"a", "--confidence", "high", NULL},
	        {"zzznothing", NULL},
	        {"a", "--include-retired", NULL},
	};
	char *dir = t_mkdtemp(), *ins = t_src("insights"), path[4096];
	struct dtk_kb_hold *hold = NULL;
	struct dtk_kb *kb = NULL;
	struct dtk_diags d = DTK_DIAGS_INIT;
	size_t i, k, n_targets = 0;
	const char *targets[2000];
	(void)state;

	snprintf(path, sizeof(path), "%s/insights", dir);
	t_copytree(ins, path);
	setenv("DTK_TEST_CACHE_GRAIN_NS", "0", 1); /* files trusted at once */
	assert_int_equal(dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = dir}, &d), 0);
	for (i = 0; i < kb->n_nodes; i++) {
		targets[n_targets++] = kb->nodes[i]->name;
		for (k = 0; k < kb->nodes[i]->n_entries && n_targets < 2000; k++)
			targets[n_targets++] = kb->nodes[i]->entries[k].id;
	}
	assert_true(n_targets > 50);
	for (i = 0; i < n_targets; i++) {
		for (k = 0; k < 2; k++) {
			const char *fmt = k ? "json" : "text";
			char *want =
			        S_run_cmd(dir, NULL, "show", "--format", fmt, targets[i], NULL);
			char *got =
			        S_run_cmd(dir, &hold, "show", "--format", fmt, targets[i], NULL);
			assert_string_equal(got, want);
			free(want);
			free(got);
		}
	}
	for (i = 0; i < sizeof(queries) / sizeof(*queries); i++) {
		const char *const *q = queries[i];
		char *want = S_run_cmd(dir, NULL, "search", q[0], q[1], q[2], q[3], NULL);
		char *got = S_run_cmd(dir, &hold, "search", q[0], q[1], q[2], q[3], NULL);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	/* a node the base does not hold: the command's own load says so */
	{
		char *want = S_run_cmd(dir, NULL, "show", "nosuch-node", NULL);
		char *got = S_run_cmd(dir, &hold, "show", "nosuch-node", NULL);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	{
		const struct dtk_kb *held;
		assert_int_equal(dtk_kb_hold_peek(hold, &held), 1);
	}
	unsetenv("DTK_TEST_CACHE_GRAIN_NS");
	dtk_kb_hold_free(hold);
	dtk_kb_free(kb);
	dtk_diags_release(&d);
	t_rmtree(dir);
	free(dir);
	free(ins);
}

/* The string of the first message's text of prompts/get's result j. */
static const char *S_prompt_text(json_t *j)
{
	json_t *msgs = json_object_get(json_object_get(j, "result"), "messages");
	return json_string_value(
	        json_object_get(json_object_get(json_array_get(msgs, 0), "content"), "text"));
}

/* The values of completion/complete's result j, joined by spaces. */
static char *S_values(json_t *j)
{
	json_t *v = json_object_get(json_object_get(json_object_get(j, "result"), "completion"),
	                            "values");
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i;
	for (i = 0; i < json_array_size(v); i++)
		dtk_buf_printf(&b, "%s%s", i ? " " : "", json_string_value(json_array_get(v, i)));
	return dtk_buf_detach(&b);
}

#define REQ(method, params)                                                                        \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" method "\",\"params\":" params "}"

/* Prompts, their arguments completed from the base, logging/setLevel, and
 * a session swapped out and in (mcp_http.c's sessions). */
static void test_prompts(void **state)
{
	struct session s = S_session();
	struct dtk_mcp *m = s.m;
	struct dtk_mcp_session other = {NULL, 0, 0};
	char today[16], *v;
	json_t *j;
	(void)state;

	j = S_ask(m, REQ("prompts/list", "{}"));
	assert_string_equal(
	        json_string_value(json_object_get(
	                json_array_get(json_object_get(json_object_get(j, "result"), "prompts"), 1),
	                "name")),
	        "monthly_review");
	json_decref(j);
	S_expect_error(m, REQ("prompts/list", "{\"cursor\":\"x\"}"), -32602, 0);
	S_expect_error(m, REQ("prompts/get", "{\"name\":\"nope\"}"), -32602, 0);
	S_expect_error(m, REQ("prompts/get", "{\"name\":\"working_loop\"}"), -32602, 0);
	S_expect_error(
	        m, REQ("prompts/get", "{\"name\":\"working_loop\",\"arguments\":{\"topic\":1}}"),
	        -32602, 0);
	S_expect_error(m,
	               REQ("prompts/get",
	                   "{\"name\":\"working_loop\",\"arguments\":{\"topic\":\"x\","
	                   "\"depth\":\"x\"}}"),
	               -32602, 0);
	S_expect_error(m,
	               REQ("prompts/get",
	                   "{\"name\":\"working_loop\",\"arguments\":{\"topic\":\"x\","
	                   "\"node\":\"../beta\"}}"),
	               -32602, 0);
	S_expect_error(m,
	               REQ("prompts/get", "{\"name\":\"monthly_review\",\"arguments\":{\"date\":"
	                                  "\"2026-02-30\"}}"),
	               -32602, 0);

	/* the tools named with the prefix; an '@' of an argument kept */
	dtk_mcp_set_prefix(m, "kb_");
	j = S_ask(m, REQ("prompts/get", "{\"name\":\"working_loop\",\"arguments\":{\"topic\":"
	                                "\"a@b\",\"node\":\"beta\"}}"));
	assert_non_null(strstr(S_prompt_text(j), "call kb_search"));
	assert_null(strstr(S_prompt_text(j), "@"
	                                     "search"));
	assert_non_null(strstr(S_prompt_text(j), "The topic: a@b."));
	assert_non_null(strstr(S_prompt_text(j), "The node: beta (kb_show it first"));
	json_decref(j);

	/* completion: node names (those that begin with the value first), the
	 * base's dates newest first, today; nothing for what it does not know */
	j = S_ask(m, REQ("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
	                                        "\"working_loop\"},\"argument\":{\"name\":\"node\","
	                                        "\"value\":\"a\"}}"));
	v = S_values(j);
	assert_string_equal(v, "alpha beta gamma");
	free(v);
	json_decref(j);
	j = S_ask(m, REQ("completion/complete", "{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
	                                        "\"dtk://node/{name}\"},\"argument\":{\"name\":"
	                                        "\"name\",\"value\":\"et\"}}"));
	v = S_values(j);
	assert_string_equal(v, "beta");
	free(v);
	json_decref(j);
	j = S_ask(m, REQ("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
	                                        "\"monthly_review\"},\"argument\":{\"name\":"
	                                        "\"date\",\"value\":\"\"}}"));
	v = S_values(j);
	assert_string_equal(v, dtk_date_format(today, dtk_date_today()));
	free(v);
	json_decref(j);
	j = S_ask(m, REQ("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
	                                        "\"monthly_review\"},\"argument\":{\"name\":"
	                                        "\"since\",\"value\":\"2\"}}"));
	v = S_values(j);
	assert_true(strlen(v) >= 21);            /* two dates at least */
	assert_true(strncmp(v, v + 11, 10) > 0); /* newest first, each once */
	free(v);
	json_decref(j);
	j = S_ask(m, REQ("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
	                                        "\"other\"},\"argument\":{\"name\":\"x\","
	                                        "\"value\":\"\"}}"));
	v = S_values(j);
	assert_string_equal(v, "");
	free(v);
	json_decref(j);
	S_expect_error(m, REQ("completion/complete", "{\"ref\":\"x\"}"), -32602, 0);

	j = S_ask(m, REQ("logging/setLevel", "{\"level\":\"error\"}"));
	assert_int_equal(json_object_size(json_object_get(j, "result")), 0);
	json_decref(j);
	S_expect_error(m, REQ("logging/setLevel", "{\"level\":\"loud\"}"), -32602, 0);

	/* another session in use knows no initialize; the server's own is as
	 * it was after */
	dtk_mcp_use_session(m, &other);
	S_expect_error(m, REQ("tools/list", "{}"), -32600, 0);
	assert_null(other.version);
	assert_int_equal(other.unbound, 1);
	dtk_mcp_use_session(m, NULL);
	j = S_ask(m, REQ("prompts/list", "{}"));
	assert_non_null(json_object_get(j, "result"));
	json_decref(j);
	S_session_end(&s);

	/* what --http calls loopback */
	assert_int_equal(dtk_mcp_http_loopback("127.0.0.1"), 1);
	assert_int_equal(dtk_mcp_http_loopback("127.9.8.7"), 1);
	assert_int_equal(dtk_mcp_http_loopback("::1"), 1);
	assert_int_equal(dtk_mcp_http_loopback("0.0.0.0"), 0);
	assert_int_equal(dtk_mcp_http_loopback("::"), 0);
	assert_int_equal(dtk_mcp_http_loopback("10.0.0.1"), 0);
	assert_int_equal(dtk_mcp_http_loopback("localhost"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_line_separators_escaped),
	        cmocka_unit_test(test_jsonrpc_errors),
	        cmocka_unit_test(test_initialize_and_ping),
	        cmocka_unit_test(test_tools_list),
	        cmocka_unit_test(test_tools_call),
	        cmocka_unit_test(test_held_base),
	        cmocka_unit_test(test_home_replaced),
	        cmocka_unit_test(test_results_bounded),
	        cmocka_unit_test(test_held_base_unwatched),
	        cmocka_unit_test(test_reindex_tool),
	        cmocka_unit_test(test_held_same_bytes),
	        cmocka_unit_test(test_serve),
	        cmocka_unit_test(test_batches),
	        cmocka_unit_test(test_serve_client_gone),
	        cmocka_unit_test(test_resources_list_files),
	        cmocka_unit_test(test_bounds),
	        cmocka_unit_test(test_modern),
	        cmocka_unit_test(test_cancel_queued),
	        cmocka_unit_test(test_prompts),
	        cmocka_unit_test(test_pipeline_large),
	        cmocka_unit_test(test_next_id_node),
	        cmocka_unit_test(test_sources),
	        cmocka_unit_test(test_tool_subsets),
	        cmocka_unit_test(test_message_work_bounded),
	        cmocka_unit_test(test_batch_bounded),
	        cmocka_unit_test(test_prefix_descriptions),
	        cmocka_unit_test(test_schema_from_declaration),
	        cmocka_unit_test(test_help_read_tools),
	        cmocka_unit_test(test_page_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
