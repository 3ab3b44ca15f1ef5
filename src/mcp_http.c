/* mcp_http.c: dtk mcp --http: MCP's Streamable HTTP transport, by
 * libmicrohttpd (the only includer of <microhttpd.h>), run from one loop
 * in the calling thread. Each POST to /mcp carries one message, handled by
 * mcp.c as a line of stdio is; the answer is JSON (or one SSE event when
 * the client takes only that). */
#define _GNU_SOURCE /* pipe2 */
#include "dtk/mcp.h"

#include "dtk/dtk.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The most sessions kept: beyond, the one idle longest ends. */
#define MAX_SESSIONS 1024
#define ID_LEN 32 /* hexadecimal digits of a session's id (128 random bits) */

struct session {
	char id[ID_LEN + 1];
	struct dtk_mcp_session s;
	unsigned long long used; /* the server's clock when it was last used */
};

/* A connection (libmicrohttpd's socket context): when the request it is
 * receiving began, and whether it was answered. */
struct conn {
	struct conn *next;
	int fd;
	time_t since;
	int answered;
};

struct server {
	struct dtk_mcp *m;
	const struct dtk_mcp_http_opts *o;
	int loopback;
	struct session *sessions;
	size_t n_sessions;
	unsigned long long clock;  /* counts the messages handled */
	unsigned long long events; /* the ids of SSE events */
	struct conn *conns;
};

/* A request being received. */
struct request {
	struct dtk_buf body;
	int over; /* its body went past DTK_MCP_MAX_MESSAGE: dropped */
};

/* Returns the seconds of a clock that only goes forward. */
static time_t S_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* Returns connection c's struct conn. */
static struct conn *S_conn(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
	        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

/* ---- addresses ---- */

/* Parses addr into *ss (port set later); returns 4 or 6, or 0 when it is
 * no numeric address. */
static int S_parse_addr(struct sockaddr_storage *ss, const char *addr)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		return 4;
	}
	if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		return 6;
	}
	return 0;
}

int dtk_mcp_http_loopback(const char *addr)
{
	struct sockaddr_storage ss;

	switch (S_parse_addr(&ss, addr)) {
	case 4: return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	case 6: return IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
	default: return -1;
	}
}

/* Returns 1 when host (a Host header's value, or an origin's host with its
 * port) names this machine's loopback: localhost, 127.x.y.z or [::1], with
 * or without a port. */
static int S_local_host(const char *host)
{
	char name[64];
	const char *end;
	size_t n;

	if (*host == '[') {
		if (!(end = strchr(host, ']')) || (end[1] && end[1] != ':'))
			return 0;
		host++;
	} else if (!(end = strchr(host, ':'))) {
		end = host + strlen(host);
	}
	if ((n = (size_t)(end - host)) >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	return !strcasecmp(name, "localhost") || dtk_mcp_http_loopback(name) == 1;
}

/* Returns 1 when the request may go on as to Host and Origin: bound to
 * loopback, both must name loopback (a page of another site whose name
 * resolves to 127.0.0.1, DNS rebinding, sends its own); elsewhere an
 * Origin, when there is one, must be the Host's. */
static int S_origin_ok(struct server *srv, struct MHD_Connection *c)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	const char *o = origin;

	if (!host)
		return 0;
	if (srv->loopback && !S_local_host(host))
		return 0;
	if (!origin)
		return 1;
	if (!strncasecmp(o, "http://", 7))
		o += 7;
	else if (!strncasecmp(o, "https://", 8))
		o += 8;
	else
		return 0; /* "null", or no web origin */
	return srv->loopback ? S_local_host(o) : !strcasecmp(o, host);
}

/* Returns 1 when the request carries the token (or none is needed), in a
 * time that does not depend on how much of it matches. */
static int S_token_ok(struct server *srv, struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const char *t = srv->o->token;
	size_t i, n;
	unsigned char diff = 0;

	if (!t)
		return 1;
	if (!a || strncasecmp(a, "Bearer ", 7))
		return 0;
	a += 7;
	n = strlen(t);
	if (strlen(a) != n)
		return 0;
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(a[i] ^ t[i]);
	return diff == 0;
}

/* ---- sessions ---- */

static struct session *S_session(struct server *srv, const char *id)
{
	size_t i;

	for (i = 0; id && i < srv->n_sessions; i++)
		if (!strcmp(srv->sessions[i].id, id))
			return &srv->sessions[i];
	return NULL;
}

/* Returns a new session holding s, with a fresh random id, or NULL when
 * the system gives no random bytes. */
static struct session *S_session_new(struct server *srv, const struct dtk_mcp_session *s)
{
	unsigned char r[ID_LEN / 2];
	struct session *e;
	size_t i, old = 0;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	if (srv->n_sessions < MAX_SESSIONS) {
		e = &srv->sessions[srv->n_sessions++];
	} else { /* the one idle longest ends */
		for (i = 1; i < srv->n_sessions; i++)
			if (srv->sessions[i].used < srv->sessions[old].used)
				old = i;
		e = &srv->sessions[old];
	}
	for (i = 0; i < sizeof(r); i++)
		sprintf(e->id + 2 * i, "%02x", r[i]);
	e->s = *s;
	e->used = srv->clock;
	return e;
}

static void S_session_end(struct server *srv, struct session *e)
{
	*e = srv->sessions[--srv->n_sessions];
}

/* ---- responses ---- */

/* Queues a response of status with body (len bytes; freed when owned),
 * of type mime (NULL: none), and header name: value when name is not
 * NULL. Returns MHD's answer. */
static enum MHD_Result S_send(struct MHD_Connection *c, unsigned status, char *body, size_t len,
                              int owned, const char *mime, const char *name, const char *value)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	struct conn *k = S_conn(c);
	enum MHD_Result rc;

	if (!r)
		abort(); /* out of memory */
	if (k)
		k->answered = 1;
	if (mime)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, mime);
	if (name)
		MHD_add_response_header(r, name, value);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Refuses the request with status and a JSON-RPC error without an id
 * whose message is msg. */
static enum MHD_Result S_refuse(struct MHD_Connection *c, unsigned status, const char *msg,
                                const char *name, const char *value)
{
	char *r = dtk_mcp_error(-32000, msg);

	return S_send(c, status, r, strlen(r), 1, "application/json", name, value);
}

/* Returns 1 when the client takes only server-sent events (its Accept
 * names text/event-stream and neither JSON nor any type). */
static int S_sse_only(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");

	return a && strstr(a, "text/event-stream") && !strstr(a, "application/json") &&
	       !strstr(a, "*/*");
}

/* ---- requests ---- */

/* Returns 1 when the Content-Type is JSON (parameters allowed). */
static int S_json_type(struct MHD_Connection *c)
{
	const char *t = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	size_t n = strlen("application/json");

	return t && !strncasecmp(t, "application/json", n) && (!t[n] || t[n] == ';' || t[n] == ' ');
}

/* Returns 1 when the MCP-Protocol-Version header is absent or names a
 * version dtk speaks. */
static int S_version_ok(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "MCP-Protocol-Version");

	return !v || dtk_mcp_version(v) >= 0;
}

/* Handles the message of request q (received whole). */
static enum MHD_Result S_message(struct server *srv, struct MHD_Connection *c, struct request *q)
{
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	struct session *e = S_session(srv, sid);
	struct dtk_mcp_session st = {NULL, 0, 0};
	struct dtk_buf sse = DTK_BUF_INIT;
	char *r;

	if (q->over)
		return S_refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, "message larger than 16 MiB", NULL,
		                NULL);
	if (!S_json_type(c))
		return S_refuse(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
		                "a message is sent as Content-Type: application/json", NULL, NULL);
	if (!S_version_ok(c))
		return S_refuse(c, MHD_HTTP_BAD_REQUEST, "unsupported MCP-Protocol-Version", NULL,
		                NULL);
	if (sid && !e)
		return S_refuse(c, MHD_HTTP_NOT_FOUND,
		                "no such session (it ended): send initialize again", NULL, NULL);
	if (e)
		st = e->s;
	srv->clock++;
	dtk_mcp_use_session(srv->m, &st);
	r = dtk_mcp_handle(srv->m, q->body.ptr ? q->body.ptr : "", q->body.len, 1); /* gone */
	dtk_mcp_use_session(srv->m, NULL);
	if (e) {
		e->s = st;
		e->used = srv->clock;
	} else if (st.version && !(e = S_session_new(srv, &st))) {
		free(r);
		return S_refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random bytes for a session",
		                NULL, NULL);
	}       /* else no session: 2026-07-28's requests, or refusals */
	if (r && st.unbound) /* an older version's request without a session */
		return S_send(c, MHD_HTTP_BAD_REQUEST, r, strlen(r), 1, "application/json", NULL,
		              NULL);
	if (!r) /* a notification or a response: accepted */
		return S_send(c, MHD_HTTP_ACCEPTED, (char *)"", 0, 0, NULL,
		              e ? "Mcp-Session-Id" : NULL, e ? e->id : NULL);
	if (S_sse_only(c)) {
		dtk_buf_printf(&sse, "id: %llu\nevent: message\ndata: %s\n\n", ++srv->events, r);
		free(r);
		return S_send(c, MHD_HTTP_OK, sse.ptr, sse.len, 1, "text/event-stream",
		              e ? "Mcp-Session-Id" : NULL, e ? e->id : NULL);
	}
	return S_send(c, MHD_HTTP_OK, r, strlen(r), 1, "application/json",
	              e ? "Mcp-Session-Id" : NULL, e ? e->id : NULL);
}

/* DELETE /mcp: ends the session the request names. */
static enum MHD_Result S_delete(struct server *srv, struct MHD_Connection *c)
{
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	struct session *e = S_session(srv, sid);

	if (!sid)
		return S_refuse(c, MHD_HTTP_BAD_REQUEST, "DELETE needs the Mcp-Session-Id to end",
		                NULL, NULL);
	if (!e)
		return S_refuse(c, MHD_HTTP_NOT_FOUND, "no such session", NULL, NULL);
	S_session_end(srv, e);
	return S_send(c, MHD_HTTP_OK, (char *)"", 0, 0, NULL, NULL, NULL);
}

static enum MHD_Result S_access(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *data,
                                size_t *size, void **con_cls)
{
	struct server *srv = cls;
	struct request *q = *con_cls;
	const char *len;

	(void)version;
	if (q) { /* more of the body, or its end */
		if (!*size)
			return S_message(srv, c, q);
		if (!q->over && q->body.len + *size > DTK_MCP_MAX_MESSAGE) {
			q->over = 1;
			dtk_buf_release(&q->body);
		}
		if (!q->over)
			dtk_buf_put(&q->body, data, *size);
		*size = 0;
		return MHD_YES;
	}
	if (!S_origin_ok(srv, c))
		return S_refuse(c, MHD_HTTP_FORBIDDEN, "Host or Origin not allowed", NULL, NULL);
	if (!S_token_ok(srv, c))
		return S_refuse(c, MHD_HTTP_UNAUTHORIZED, "a bearer token is needed",
		                MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (strcmp(url, "/mcp"))
		return S_refuse(c, MHD_HTTP_NOT_FOUND, "the MCP endpoint is /mcp", NULL, NULL);
	if (!strcmp(method, MHD_HTTP_METHOD_DELETE))
		return S_delete(srv, c);
	if (strcmp(method, MHD_HTTP_METHOD_POST))
		/* GET: dtk sends nothing unasked, so it opens no stream */
		return S_refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST a message to /mcp",
		                MHD_HTTP_HEADER_ALLOW, "POST, DELETE");
	len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (len && strtoull(len, NULL, 10) > DTK_MCP_MAX_MESSAGE)
		return S_refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, "message larger than 16 MiB", NULL,
		                NULL);
	q = dtk_xcalloc(1, sizeof(*q));
	*con_cls = q;
	return MHD_YES;
}

static void S_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                        enum MHD_RequestTerminationCode how)
{
	struct request *q = *con_cls;
	struct conn *k = S_conn(c);

	(void)cls, (void)how;
	if (k) { /* the next request on the connection begins */
		k->since = S_now();
		k->answered = 0;
	}
	if (q) {
		dtk_buf_release(&q->body);
		free(q);
		*con_cls = NULL;
	}
}

/* Keeps the list of connections, with when each began. */
static void S_notify(void *cls, struct MHD_Connection *c, void **ctx,
                     enum MHD_ConnectionNotificationCode what)
{
	const union MHD_ConnectionInfo *i =
	        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct server *srv = cls;
	struct conn *k = *ctx, **p;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		k = dtk_xcalloc(1, sizeof(*k));
		k->fd = i ? i->connect_fd : -1;
		k->since = S_now();
		k->next = srv->conns;
		srv->conns = k;
		*ctx = k;
	} else if (k) {
		for (p = &srv->conns; *p != k; p = &(*p)->next)
			;
		*p = k->next;
		free(k);
		*ctx = NULL;
	}
}

/* Cuts off each connection whose request has taken longer than the
 * timeout to arrive (libmicrohttpd's own timeout is for silence only: a
 * request trickling in, byte by byte, would hold a connection for ever):
 * it is shut down, and libmicrohttpd closes it. */
static void S_cut_slow(struct server *srv)
{
	time_t now = S_now();
	struct conn *k;

	for (k = srv->conns; k; k = k->next)
		if (!k->answered && k->fd >= 0 && now - k->since > (time_t)srv->o->timeout) {
			shutdown(k->fd, SHUT_RDWR);
			k->answered = 1; /* once */
		}
}

/* ---- serving ---- */

/* Written to by the signal handler: the server stops. */
static int S_wake[2] = {-1, -1};

static void S_on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (write(S_wake[1], &c, 1) < 0) {
		/* nothing to do: a byte is waiting already */
	}
	errno = saved;
}

int dtk_mcp_serve_http(struct dtk_mcp *m, const struct dtk_mcp_http_opts *o, FILE *err)
{
	struct server srv = {.m = m, .o = o};
	struct sigaction sa, old_int, old_term;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d = NULL;
	MHD_UNSIGNED_LONG_LONG ms;
	struct timeval tv;
	fd_set rs, ws, es;
	MHD_socket max;
	int family, rc = -1, n;

	family = S_parse_addr(&ss, o->addr);
	if (!family)
		return dtk_error("'%s' is no IPv4 or IPv6 address", o->addr);
	srv.loopback = dtk_mcp_http_loopback(o->addr) == 1;
	if (family == 4)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)o->port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)o->port);
	if (pipe2(S_wake, O_CLOEXEC | O_NONBLOCK) < 0) /* its read end only selected */
		return dtk_error("cannot make a pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = S_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	srv.sessions = dtk_xcalloc(MAX_SESSIONS, sizeof(*srv.sessions));

	/* no thread of its own: this loop runs it, messages one at a time */
	d = MHD_start_daemon(family == 6 ? MHD_USE_IPv6 : 0, (uint16_t)o->port, NULL, NULL,
	                     S_access, &srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	                     MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
	                     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout,
	                     MHD_OPTION_NOTIFY_COMPLETED, S_completed, &srv,
	                     MHD_OPTION_NOTIFY_CONNECTION, S_notify, &srv, MHD_OPTION_END);
	if (!d) {
		dtk_error("cannot listen on %s port %u: %s", o->addr, o->port,
		          errno ? strerror(errno) : "libmicrohttpd refused");
		goto done;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(err, "dtk mcp: listening on http://%s%s%s:%u/mcp%s\n", family == 6 ? "[" : "",
	        o->addr, family == 6 ? "]" : "", info ? info->port : o->port,
	        o->token ? " (bearer token required)" : "");
	fflush(err);
	for (;;) {
		FD_ZERO(&rs);
		FD_ZERO(&ws);
		FD_ZERO(&es);
		max = S_wake[0];
		if (MHD_get_fdset(d, &rs, &ws, &es, &max) != MHD_YES)
			break;
		FD_SET(S_wake[0], &rs);
		tv.tv_sec = 1; /* S_cut_slow's grain */
		tv.tv_usec = 0;
		if (MHD_get_timeout(d, &ms) == MHD_YES && ms < 1000)
			tv.tv_sec = 0, tv.tv_usec = (suseconds_t)(ms * 1000);
		n = select(max + 1, &rs, &ws, &es, &tv);
		if (n < 0 && errno == EINTR)
			continue; /* a signal: its byte is waiting */
		if (n < 0 || FD_ISSET(S_wake[0], &rs))
			break;
		/* a message is handled whole in here: a signal waits for it,
		 * so nothing is left half written */
		MHD_run_from_select(d, &rs, &ws, &es);
		S_cut_slow(&srv);
	}
	MHD_stop_daemon(d);
	fprintf(err, "dtk mcp: stopped\n");
	rc = 0;
done:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	close(S_wake[0]);
	close(S_wake[1]);
	S_wake[0] = S_wake[1] = -1;
	free(srv.sessions);
	return rc;
}
