/*
 * The profiler over HTTP (kernel/profile.h, docs/profiling.md):
 *
 *   /profile/start      start a session at profile_hz= samples per second
 *   /profile/start/HZ   start one at HZ (PROFILE_HZ_MIN..PROFILE_HZ_MAX)
 *   /profile/stop       stop sampling; the samples stay for the reports
 *   /profile.txt        the samples as folded stacks (flame graph input)
 *   /profile.json       the same stacks and every counter, as JSON
 *
 * Each answer is a body the HTTP engine (apps/http_server.c) frames with
 * its own status line and headers, so the status is ours alone: digits in
 * the URI (/profile/start/400) never become the status. A bad rate gets
 * our 400 page, a start without memory for the buffers, or a report
 * without memory for its body, our 503 page (the caller serves them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "http_server.h"
#include "kernel/cmdline.h"
#include "kernel/profile.h"
#include "lwip/mem.h"

typedef int (*report_fn)(char *buf, size_t size);

/* An owned body of @len bytes at @buf: the engine frees it once queued. */
static int answer(struct http_response *resp, char *buf, int len,
		  const char *type)
{
	resp->status = 200;
	resp->content_type = type;
	resp->body = buf;
	resp->body_len = (uint32_t)len;
	resp->body_owned = buf;
	return 200;
}

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
			return answer(resp, buf, len, type);
		mem_free(buf);
		want = len + 4096;
	}
	return 503;
}

static int answer_text(struct http_response *resp, const char *text)
{
	int len = (int)strlen(text);
	char *buf = mem_malloc((mem_size_t)(len ? len : 1));

	if (!buf)
		return 503;
	memcpy(buf, text, (size_t)len);
	return answer(resp, buf, len, "text/plain");
}

/* /profile/start[/HZ]: arg is what follows "/profile/start". */
static int serve_start(struct http_response *resp, const char *arg)
{
	long hz = cmdline_get_long("profile_hz");
	char text[64];
	int err;

	if (*arg) {
		char *end;

		if (arg[0] != '/' || arg[1] < '0' || arg[1] > '9')
			return 400;
		hz = strtol(arg + 1, &end, 10);
		if (*end || hz < PROFILE_HZ_MIN || hz > PROFILE_HZ_MAX)
			return 400;
	}
	err = profile_start((unsigned int)hz);
	if (err)
		return err == -1 ? 400 : 503;
	snprintf(text, sizeof(text), "started hz=%ld\n", hz);
	return answer_text(resp, text);
}

int app_profile_serve(const char *path, struct http_response *resp)
{
	if (strncmp(path, "/profile/start", 14) == 0 &&
	    (path[14] == 0 || path[14] == '/'))
		return serve_start(resp, path + 14);
	if (strcmp(path, "/profile/stop") == 0) {
		profile_stop();
		return answer_text(resp, "stopped\n");
	}
	if (strcmp(path, "/profile.txt") == 0)
		return answer_report(resp, profile_report_text, "text/plain");
	if (strcmp(path, "/profile.json") == 0)
		return answer_report(resp, profile_report_json,
				     "application/json");
	return 0;
}
