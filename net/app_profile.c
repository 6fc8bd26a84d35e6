/*
 * The profiler over HTTP (kernel/profile.h, docs/profiling.md):
 *
 *   /profile/start      start a session at profile_hz= samples per second
 *   /profile/start/HZ   start one at HZ (PROFILE_HZ_MIN..PROFILE_HZ_MAX)
 *   /profile/stop       stop sampling; the samples stay for the reports
 *   /profile.txt        the samples as folded stacks (flame graph input)
 *   /profile.json       the same stacks and every counter, as JSON
 *
 * Each answer is built whole, status line and headers too
 * (FS_FILE_FLAGS_HEADER_INCLUDED): left to itself httpd picks the status
 * from digits in the URI, and /profile/start/400 would go out as "400 Bad
 * Request". A bad rate gets our 400 page, a start without memory for the
 * buffers, or a report without memory for its body, our 503 page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "kernel/cmdline.h"
#include "kernel/profile.h"
#include "lwip/apps/fs.h"
#include "lwip/mem.h"

/* Room for the status line and headers in front of a body. */
#define HEADER_ROOM 192

typedef int (*report_fn)(char *buf, size_t size);

static int serve_error(struct fs_file *file, const char *page)
{
	return fs_open(file, page) == ERR_OK;
}

/* buf holds the body at buf + HEADER_ROOM; put the headers right in front
 * of it and hand the whole to httpd (fs_close_custom frees buf). */
static int answer(struct fs_file *file, char *buf, int body_len,
		  const char *type)
{
	char head[HEADER_ROOM];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.0 200 OK\r\nServer: " HTTPD_SERVER_AGENT
			 "\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
			 "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
			 type, body_len);

	if (n <= 0 || n >= HEADER_ROOM) { /* cannot happen: fixed types */
		mem_free(buf);
		return serve_error(file, "/503.html");
	}
	memcpy(buf + HEADER_ROOM - n, head, (size_t)n);
	file->data = buf + HEADER_ROOM - n;
	file->len = n + body_len;
	file->index = file->len;
	file->flags = FS_FILE_FLAGS_HEADER_INCLUDED;
	file->pextension = buf;
	return 1;
}

/* A report into a heap body. Samples keep arriving while a session runs,
 * so leave slack and retry with the larger size if the report still
 * grew past it. */
static int answer_report(struct fs_file *file, report_fn report,
			 const char *type)
{
	int want = report(NULL, 0) + 4096;

	for (int tries = 0; tries < 3; tries++) {
		char *buf = mem_malloc((mem_size_t)(HEADER_ROOM + want));
		int len;

		if (!buf)
			return serve_error(file, "/503.html");
		len = report(buf + HEADER_ROOM, (size_t)want);
		if (len < want)
			return answer(file, buf, len, type);
		mem_free(buf);
		want = len + 4096;
	}
	return serve_error(file, "/503.html");
}

static int answer_text(struct fs_file *file, const char *text)
{
	int len = (int)strlen(text);
	char *buf = mem_malloc((mem_size_t)(HEADER_ROOM + len));

	if (!buf)
		return serve_error(file, "/503.html");
	memcpy(buf + HEADER_ROOM, text, (size_t)len);
	return answer(file, buf, len, "text/plain");
}

/* /profile/start[/HZ]: arg is what follows "/profile/start". */
static int serve_start(struct fs_file *file, const char *arg)
{
	long hz = cmdline_get_long("profile_hz");
	char text[64];
	int err;

	if (*arg) {
		char *end;

		if (arg[0] != '/' || arg[1] < '0' || arg[1] > '9')
			return serve_error(file, "/400.html");
		hz = strtol(arg + 1, &end, 10);
		if (*end || hz < PROFILE_HZ_MIN || hz > PROFILE_HZ_MAX)
			return serve_error(file, "/400.html");
	}
	err = profile_start((unsigned int)hz);
	if (err)
		return serve_error(file, err == -1 ? "/400.html" : "/503.html");
	snprintf(text, sizeof(text), "started hz=%ld\n", hz);
	return answer_text(file, text);
}

int app_profile_open(struct fs_file *file, const char *name)
{
	if (strncmp(name, "/profile/start", 14) == 0 &&
	    (name[14] == 0 || name[14] == '/'))
		return serve_start(file, name + 14);
	if (strcmp(name, "/profile/stop") == 0) {
		profile_stop();
		return answer_text(file, "stopped\n");
	}
	if (strcmp(name, "/profile.txt") == 0)
		return answer_report(file, profile_report_text, "text/plain");
	if (strcmp(name, "/profile.json") == 0)
		return answer_report(file, profile_report_json,
				     "application/json");
	return 0;
}
