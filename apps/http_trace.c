/*
 * The event tracer over HTTP (kernel/trace.h, docs/observe.md):
 *
 *   GET /trace.json            the last session as Chrome trace-event
 *                              JSON (Perfetto's UI, chrome://tracing)
 *   POST /trace/start/CLASSES  a new session of a comma list of classes
 *                              (mm,net,app,irq,poll,lock or all)
 *   POST /trace/stop           every class off; the events stay
 *
 * A trace shows addresses and what the machine did, so the document is
 * served only when the boot asked for it with trace= (trace=none serves
 * it without recording until a start): 403 otherwise. Start and stop
 * are actions and pass the gate of apps/http_control.h besides
 * (http_control=1, POST).
 *
 * The document is written per request into a kmalloc'd body of at most
 * TRACE_JSON_MAX bytes (what does not fit is left out per CPU, counted
 * in the document): lwIP's heap is for packets, not for megabytes.
 */
#include <stdio.h>
#include <string.h>

#include "apps.h"
#include "http_control.h"
#include "http_server.h"
#include "kernel/cmdline.h"
#include "kernel/trace.h"
#include "kernel/trace_tunables.h"
#include "mm/mm.h"

/* The room the writer may fill: the body's bound less its slack. */
#define TRACE_HTTP_LIMIT (TRACE_JSON_MAX - 4096)

/* GET /trace.json. Events keep arriving while a session records: sized
 * with slack, and once more with the larger size if it still grew. */
static int serve_json(struct http_response *resp)
{
	size_t want = (size_t)trace_json(NULL, 0, TRACE_HTTP_LIMIT, 0) + 4096;

	for (int tries = 0; tries < 3; tries++) {
		char *buf;
		int len;

		if (want > TRACE_JSON_MAX)
			want = TRACE_JSON_MAX;
		buf = kmalloc(want, GFP_KERNEL);
		if (!buf)
			return 503;
		len = trace_json(buf, want, TRACE_HTTP_LIMIT, 0);
		if ((size_t)len < want)
			return http_answer_body(resp, buf, (size_t)len,
						"application/json",
						http_body_kfree);
		kfree(buf);
		want = (size_t)len + 4096;
	}
	return 503;
}

/* POST /trace/start/CLASSES: arg is what follows "/trace/start". */
static int serve_start(const struct http_request *req,
		       struct http_response *resp, const char *arg)
{
	int err = http_control_gate(req, resp);
	int mask;
	char text[96];

	if (err)
		return err;
	if (arg[0] != '/')
		return 400;
	mask = trace_classes_parse(arg + 1);
	if (mask <= 0)
		return 400;
	if (trace_start((unsigned int)mask) != 0)
		return 503;
	http_control_log(req, "trace of %s", arg + 1);
	snprintf(text, sizeof(text), "recording %s\n", arg + 1);
	return http_answer_text(resp, text);
}

static int serve_stop(const struct http_request *req,
		      struct http_response *resp)
{
	int err = http_control_gate(req, resp);

	if (err)
		return err;
	if (trace_running()) {
		trace_stop();
		http_control_log(req, "trace stopped");
	}
	return http_answer_text(resp, "stopped\n");
}

int app_trace_serve(const struct http_request *req, struct http_response *resp)
{
	const char *path = req->path;

	if (strncmp(path, "/trace", 6) != 0 ||
	    (path[6] != '/' && path[6] != '.'))
		return 0;
	if (!cmdline_given("trace"))
		return 403;
	if (strncmp(path, "/trace/start", 12) == 0)
		return serve_start(req, resp, path + 12);
	if (strcmp(path, "/trace/stop") == 0)
		return serve_stop(req, resp);
	if (strcmp(path, "/trace.json") != 0)
		return 0;
	if (req->method == HTTP_POST) { /* the document changes nothing */
		resp->allow = "GET, HEAD";
		return 405;
	}
	return serve_json(resp);
}
