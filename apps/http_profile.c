/*
 * The profiler over HTTP (kernel/profile.h, docs/profiling.md):
 *
 *   POST /profile/start     start a session at profile_hz= samples per
 *                           second
 *   POST /profile/start/HZ  start one at HZ (PROFILE_HZ_MIN..PROFILE_HZ_MAX)
 *   POST /profile/stop      stop sampling; the samples stay for the reports
 *   GET /profile.txt        the samples as folded stacks (flame graph input)
 *   GET /profile.json       the same stacks and every counter, as JSON
 *
 * Start and stop are actions: they pass the gate of apps/http_control.h
 * (http_control=1 at boot, POST, one session at a time: a start while one
 * samples is a 409). Each answer is a body the HTTP engine
 * (apps/http_server.c) frames with its own status line and headers, so
 * the status is ours alone: digits in the URI (/profile/start/400) never
 * become the status. A bad rate gets our 400 page, a start without memory
 * for the buffers, or a report without memory for its body, our 503 page
 * (the caller serves them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "http_control.h"
#include "http_server.h"
#include "kernel/cmdline.h"
#include "kernel/profile.h"
#include "lwip/mem.h"

typedef int (*report_fn)(char *buf, size_t size);

/* A report into a heap body. Samples keep arriving while a session runs,
 * so leave slack and retry with the larger size if the report still
 * grew past it. */
static int answer_report(struct http_response *resp, report_fn report,
			 const char *type)
{
	int want = report(NULL, 0) + 4096;

	for (int tries = 0; tries < 3; tries++) {
		char *buf = mem_malloc((mem_size_t)want);
		int len;

		if (!buf)
			return 503;
		len = report(buf, (size_t)want);
		if (len < want)
			return http_answer_body(resp, buf, (size_t)len, type,
						NULL);
		mem_free(buf);
		want = len + 4096;
	}
	return 503;
}

/* POST /profile/start[/HZ]: arg is what follows "/profile/start". */
static int serve_start(const struct http_request *req,
		       struct http_response *resp, const char *arg)
{
	long hz = cmdline_get_long("profile_hz");
	int err = http_control_gate(req, resp);
	char text[64];

	if (err)
		return err;
	if (*arg) {
		char *end;

		if (arg[0] != '/' || arg[1] < '0' || arg[1] > '9')
			return 400;
		hz = strtol(arg + 1, &end, 10);
		if (*end || hz < PROFILE_HZ_MIN || hz > PROFILE_HZ_MAX)
			return 400;
	}
	if (profile_sampling())
		return 409;
	err = profile_start((unsigned int)hz);
	if (err)
		return err == -1 ? 400 : 503;
	http_control_log(req, "profiler at %ld Hz on every CPU", hz);
	snprintf(text, sizeof(text), "started hz=%ld\n", hz);
	return http_answer_text(resp, text);
}

/* POST /profile/stop: stopping what is not running is no action (no
 * console line), but still the answer. */
static int serve_stop(const struct http_request *req,
		      struct http_response *resp)
{
	int err = http_control_gate(req, resp);

	if (err)
		return err;
	if (profile_sampling()) {
		profile_stop();
		http_control_log(req, "profiler stopped");
	}
	return http_answer_text(resp, "stopped\n");
}

int app_profile_serve(const struct http_request *req,
		      struct http_response *resp)
{
	const char *path = req->path;

	if (strncmp(path, "/profile/start", 14) == 0 &&
	    (path[14] == 0 || path[14] == '/'))
		return serve_start(req, resp, path + 14);
	if (strcmp(path, "/profile/stop") == 0)
		return serve_stop(req, resp);
	if (strncmp(path, "/profile.", 9) != 0)
		return 0;
	if (req->method == HTTP_POST) { /* the reports change nothing */
		resp->allow = "GET, HEAD";
		return 405;
	}
	if (strcmp(path, "/profile.txt") == 0)
		return answer_report(resp, profile_report_text, "text/plain");
	if (strcmp(path, "/profile.json") == 0)
		return answer_report(resp, profile_report_json,
				     "application/json");
	return 0;
}
