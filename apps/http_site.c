/*
 * HTTP on port 80: our site, served by the HTTP/1.1 engine in
 * apps/http_server.c.
 *
 *   /, /dashboard, its script and style, the error pages
 *                 static: apps/www/, compiled into the image as one table
 *                 of answers (apps/http_pages.h, mk/www.mk)
 *   /stats.json   generated at request time by stats_json()
 *   /stats-schema.json  its description, by stats_schema_json()
 *   /iperf-client/PORT  POST: starts lwiperf's client against the host
 *                 (apps/http_control.c, behind its gate: http_control=1)
 *   /profile/...  the profiler's trigger (behind the same gate) and
 *                 reports (apps/http_profile.c)
 *   /trace.json, /trace/...  the event trace and its trigger, when the
 *                 boot asked for them (apps/http_trace.c)
 *   /capture.pcap, /capture/...  packet capture and its trigger, when
 *                 the boot asked for them (apps/http_capture.c)
 *
 * Any other path gets our /404.html, a method a path does not take our
 * /405.html (with Allow); the engine asks for /400.html, /501.html and
 * the other pages of a request it refuses. When a dynamic answer cannot
 * be given (no memory for the body, lwiperf cannot start) the answer is
 * our 503 page, never a cut document.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "apps.h"
#include "http_control.h"
#include "http_pages.h"
#include "http_server.h"
#include "lwip/mem.h"
#include "net/net_percpu.h"
#include "libc/stat_table.h"
#include "stats.h"

/* Error pages sent, by status. */
static const int error_statuses[] = {400, 403, 404, 405, 409, 413,
				     414, 431, 501, 503, 505};
#define NR_ERROR_STATUSES (sizeof(error_statuses) / sizeof(error_statuses[0]))
/* Each stack instance's own (net/net_percpu.h), summed when read. */
static NET_PERCPU unsigned long error_count[NR_ERROR_STATUSES];

/* The page at @path, or NULL. Lengths first: most pages differ there. */
static const struct http_page *page_find(const char *path)
{
	size_t len = strlen(path);

	for (unsigned int i = 0; i < http_pages_count; i++) {
		const struct http_page *pg = &http_pages[i];

		if (pg->path_len == len && memcmp(pg->path, path, len) == 0)
			return pg;
	}
	return NULL;
}

static void count_status(int status)
{
	for (size_t i = 0; i < NR_ERROR_STATUSES; i++)
		if (status == error_statuses[i])
			error_count[i]++;
}

static void page_response(const struct http_page *pg,
			  struct http_response *resp)
{
	resp->answer[0] = pg->answer[0];
	resp->answer[1] = pg->answer[1];
	resp->answer_len[0] = pg->answer_len[0];
	resp->answer_len[1] = pg->answer_len[1];
	resp->head = pg->head;
	resp->head_len = pg->head_len;
	resp->status = pg->status;
	resp->content_type = pg->content_type;
	resp->body = pg->body;
	resp->body_len = pg->body_len;
	count_status(pg->status);
}

/* Our page for @status; every one of them is in the table (pages.txt). */
static void site_error(int status, struct http_response *resp)
{
	char path[16];
	const struct http_page *pg;

	snprintf(path, sizeof(path), "/%d.html", status);
	pg = page_find(path);
	if (!pg) /* a status without a page: the 400 page says enough */
		pg = page_find("/400.html");
	page_response(pg, resp);
}

/* Our 405 page: @allow names the methods the path takes. */
static void method_not_allowed(const char *allow, struct http_response *resp)
{
	site_error(405, resp);
	resp->allow = allow;
}

/* The kept /stats.json buffer (serve_stats below), each instance's. */
static NET_PERCPU struct {
	char *buf;
	int size;
	bool lent; /* queued by a connection, not yet given back */
	unsigned long grown, own;
} stats_buf;

/*
 * The "http" section of /stats.json: error pages sent per status and the
 * stats buffer (site_stats), then the engine's own counters
 * (server_stats, over struct http_server_stats).
 */
struct site_snap {
	unsigned long err[NR_ERROR_STATUSES]; /* error_statuses' order */
	int stats_buf_bytes;
	unsigned long stats_buf_grown, stats_buf_own;
};
#define SITE_ERR(i, n, l) \
	STAT_NAMED(n, struct site_snap, err[i], STAT_KIND_COUNTER, "events", l)
static const struct stat_desc site_stats[] = {
	SITE_ERR(0, "err400", "400 pages sent: a request we cannot read"),
	SITE_ERR(1, "err403", "403 pages sent: an action not enabled"),
	SITE_ERR(2, "err404", "404 pages sent: no such page"),
	SITE_ERR(3, "err405",
		 "405 pages sent: a method the path does not take"),
	SITE_ERR(4, "err409", "409 pages sent: the action runs already"),
	SITE_ERR(5, "err413", "413 pages sent: a body too large"),
	SITE_ERR(6, "err414", "414 pages sent: a request line too long"),
	SITE_ERR(7, "err431", "431 pages sent: headers too large"),
	SITE_ERR(8, "err501", "501 pages sent: a method we do not serve"),
	SITE_ERR(9, "err503", "503 pages sent: no memory"),
	SITE_ERR(10, "err505",
		 "505 pages sent: an HTTP version we do not speak"),
	STAT_GAUGE_AT(struct site_snap, stats_buf_bytes, "bytes",
		      "the kept /stats.json buffer"),
	STAT_COUNTER_AT(struct site_snap, stats_buf_grown, "events",
			"times the kept buffer grew"),
	STAT_COUNTER_AT(struct site_snap, stats_buf_own, "events",
			"documents written into a buffer of their own"),
};
#define SERVER_COUNTER(f, l) \
	STAT_COUNTER_AT(struct http_server_stats, f, "events", l)
static const struct stat_desc server_stats[] = {
	SERVER_COUNTER(connections, "connections accepted"),
	SERVER_COUNTER(requests, "requests served"),
	SERVER_COUNTER(reused, "requests on a connection already used"),
	SERVER_COUNTER(refused, "connections refused for lack of memory"),
	SERVER_COUNTER(idle_closed, "connections closed for being idle"),
	SERVER_COUNTER(stalled, "connections aborted: an answer stalled"),
	SERVER_COUNTER(held_back,
		       "times received bytes waited unread for answers"),
	STAT_GAUGE_AT(struct http_server_stats, open, "",
		      "connections open now"),
};
static const struct stat_group http_groups[] = {
	STAT_GROUP("", site_stats),
	STAT_GROUP("", server_stats),
};
static const struct stat_schema http_schema = STAT_SCHEMA(http_groups);

static int http_stats_json(char *buf, size_t size)
{
	struct site_snap o = {.stats_buf_bytes = stats_buf.size};
	struct http_server_stats server;
	struct strbuf sb;

	net_instance_sum_u64(o.err, error_count, sizeof(o.err));
	for (int k = 0; k < net_instance_count; k++) {
		o.stats_buf_grown += NET_INSTANCE_VAR(k, stats_buf)->grown;
		o.stats_buf_own += NET_INSTANCE_VAR(k, stats_buf)->own;
	}
	http_server_stats_read(&server);
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, site_stats, STAT_TABLE_LEN(site_stats), &o);
	strbuf_printf(&sb, ",");
	stat_json_members(&sb, server_stats, STAT_TABLE_LEN(server_stats),
			  &server);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}

/*
 * /stats.json is written into one buffer that the site keeps between
 * requests. The document is about 22 KiB with four queues, so its buffer
 * is an order-3 block, and after a flood at -m 8M no order-3 block was
 * left (every free page alone, between buffers still queued in TCP): a
 * fresh allocation per request answered 503 to every /stats.json while
 * the rest of the site answered, exactly when the counters matter. The
 * kept buffer is taken when the server starts (at boot, while memory is
 * whole; else at the first request), with a quarter of slack so a
 * growing document rarely needs a new one, and grows when the document
 * outgrows it. Taken at the first request instead, the tap guest of the
 * 8 MiB test (313 free pages after boot) answered 503 to its first
 * /stats.json once receive coalescing was on. The slack never takes the
 * buffer into a larger block than the document needs: native kmalloc
 * hands out power-of-two blocks above 8 KiB, and a quarter more than a
 * 26 KiB document (two CPUs, one queue) is a 64 KiB block where 32 KiB
 * holds it. A second request while the kept buffer is still being
 * queued gets a buffer of its own, freed as usual.
 */

static void stats_buf_release(void *body)
{
	if (body == stats_buf.buf)
		stats_buf.lent = false;
	else
		mem_free(body);
}

/* The kept buffer's size for a document of @want bytes: a quarter more,
 * but no more than the power of two (of at least a page) that @want
 * itself rounds up to. */
static int stats_buf_size(int want)
{
	int block = 4096, slack = want + want / 4;

	while (block < want)
		block *= 2;
	return slack < block ? slack : block;
}

/* A buffer of at least @want bytes for the document, or NULL. */
static char *stats_buf_take(int want)
{
	if (stats_buf.lent) {
		stats_buf.own++;
		return mem_malloc((mem_size_t)want);
	}
	if (stats_buf.size < want) {
		int size = stats_buf_size(want);
		char *grown = mem_malloc((mem_size_t)size);
		if (!grown)
			return NULL;
		if (stats_buf.buf)
			mem_free(stats_buf.buf);
		stats_buf.buf = grown;
		stats_buf.size = size;
		stats_buf.grown++;
	}
	stats_buf.lent = true;
	return stats_buf.buf;
}

/*
 * The counters move while we measure and write (an allocation bumps the
 * heap counters), so leave slack and retry with the larger size if the
 * document still grew.
 */
static void serve_stats(struct http_response *resp)
{
	int want = stats_json(NULL, 0) + 512;

	for (int tries = 0; tries < 3; tries++) {
		char *body = stats_buf_take(want);
		int len;

		if (!body)
			break;
		len = stats_json(body, (size_t)want);
		if (len < want) {
			http_answer_body(resp, body, (size_t)len,
					 "application/json", stats_buf_release);
			return;
		}
		stats_buf_release(body);
		want = len + 512;
	}
	site_error(503, resp);
}

/*
 * /stats-schema.json: what every value of /stats.json is (unit, kind,
 * label). The same text until an app adds a section, and read once per
 * dashboard load: written per request into a buffer of its own.
 */
static void serve_schema(struct http_response *resp)
{
	int len = stats_schema_json(NULL, 0);
	char *body = mem_malloc((mem_size_t)len + 1);

	if (!body) {
		site_error(503, resp);
		return;
	}
	stats_schema_json(body, (size_t)len + 1);
	http_answer_body(resp, body, (size_t)len, "application/json", NULL);
}

static void site_serve(const struct http_request *req,
		       struct http_response *resp)
{
	const struct http_page *pg;
	int status = 0;

	if (strncmp(req->path, "/iperf-client/", 14) == 0)
		status = http_control_iperf(req, req->path + 14, resp);
	else
		status = app_profile_serve(req, resp);
	if (!status)
		status = app_trace_serve(req, resp);
	if (!status)
		status = app_capture_serve(req, resp);
	if (status) {
		if (status != 200)
			site_error(status, resp); /* keeps a 405's Allow */
		return;
	}
	if (req->method == HTTP_POST) { /* the rest only reads */
		method_not_allowed("GET, HEAD", resp);
		return;
	}
	if (strcmp(req->path, "/stats.json") == 0) {
		serve_stats(resp);
		return;
	}
	if (strcmp(req->path, "/stats-schema.json") == 0) {
		serve_schema(resp);
		return;
	}
	pg = page_find(req->path);
	if (pg)
		page_response(pg, resp);
	else
		site_error(404, resp);
}

static const struct http_site site = {
	.serve = site_serve,
	.error = site_error,
};

void app_http_start(void)
{
	stats_section_add("http", http_stats_json, &http_schema);
	app_http_listen();
}

void app_http_listen(void)
{
	/* The kept /stats.json buffer now, while memory is whole (why: the
	 * comment on the kept buffer); if even this fails, the first request tries. */
	char *body = stats_buf_take(stats_json(NULL, 0) + 512);

	if (body)
		stats_buf_release(body);
	http_server_start(80, &site);
}
