/*
 * HTTP on port 80: lwIP's httpd, serving only our pages.
 *
 *   /, /dashboard, its script and style, the error pages
 *                 static: net/www/, compiled into the image as lwIP fsdata
 *                 (mk/www.mk); each holds its whole response, headers too
 *   /stats.json   generated at request time by net_stats_json()
 *   /iperf-client/PORT  starts lwiperf's client against the host
 *   /profile/...  the profiler's trigger and reports (net/app_profile.c)
 *
 * httpd asks fs_open_custom() for every URI first; we build dynamic bodies
 * into a heap buffer that fs_close_custom() frees. Anything else goes to
 * the fsdata files; a URI found nowhere gets our /404.html (httpd opens it
 * itself, as it opens /400.html and /501.html for its own errors). When a
 * dynamic answer cannot be given (no memory for the body, lwiperf cannot
 * start) the answer is our 503 page, never lwIP's or a cut document.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "lwip/apps/fs.h"
#include "lwip/apps/httpd.h"
#include "lwip/mem.h"
#include "lwip/netif.h"
#include "net.h"
#include "net_mem.h"

/* Error pages sent, by status: httpd's own (400, 404, 501) and ours. */
static const char *const error_pages[] = {"/400.html", "/404.html", "/501.html",
					  "/503.html"};
static unsigned long error_count[4];

/* One of the static error pages (net/www/CODE.html) into file. */
static int serve_error(struct fs_file *file, const char *page)
{
	/* fs_open() comes back through fs_open_custom() (which counts the
	 * page) and finds it among the fsdata files. */
	return fs_open(file, page) == ERR_OK;
}

/* Counts an error page when httpd or serve_error() opens it. */
static void count_error_page(const char *name)
{
	for (size_t i = 0; i < sizeof(error_pages) / sizeof(error_pages[0]);
	     i++)
		if (strcmp(name, error_pages[i]) == 0)
			error_count[i]++;
}

int app_http_stats_json(char *buf, size_t size)
{
	return snprintf(buf, size,
			"{\"err400\":%lu,\"err404\":%lu,\"err501\":%lu,"
			"\"err503\":%lu}",
			error_count[0], error_count[1], error_count[2],
			error_count[3]);
}

/*
 * /stats.json into a heap buffer. The counters move while we measure and
 * write (this very allocation bumps the heap counters), so leave slack and
 * retry with the larger size if the document still grew.
 */
static int serve_stats(struct fs_file *file)
{
	int want = net_stats_json(NULL, 0) + 512;

	for (int tries = 0; tries < 3; tries++) {
		char *body = mem_malloc((mem_size_t)want);
		int len;

		if (!body)
			return serve_error(file, "/503.html");
		len = net_stats_json(body, (size_t)want);
		if (len < want) {
			file->data = body;
			file->len = len;
			file->index = len;
			file->pextension = body;
			return 1;
		}
		mem_free(body);
		want = len + 512;
	}
	return serve_error(file, "/503.html");
}

/*
 * GET /iperf-client/N makes the guest run lwiperf's 10-second TCP
 * client test against port N of the default gateway (the host, under
 * QEMU's user networking): the guest->host half of the benchmark. (iperf
 * 2.1's -r/-d reverse modes do not interoperate with lwiperf 2.1.3.)
 */
static int serve_iperf_client(struct fs_file *file, const char *arg)
{
	static const char ok[] = "started\n";
	char *end;
	long port = strtol(arg, &end, 10);

	if (end == arg || *end || port <= 0 || port > 65535)
		return serve_error(file, "/400.html");
	if (app_iperf_client(netif_ip4_gw(netif_default), (uint16_t)port))
		return serve_error(file, "/503.html");
	file->data = ok;
	file->len = (int)sizeof(ok) - 1;
	file->index = file->len;
	file->flags = FS_FILE_FLAGS_HEADER_PERSISTENT;
	return 1;
}

int fs_open_custom(struct fs_file *file, const char *name)
{
	memset(file, 0, sizeof(*file));
	if (strcmp(name, "/stats.json") == 0)
		return serve_stats(file);
	if (strncmp(name, "/iperf-client/", 14) == 0)
		return serve_iperf_client(file, name + 14);
	if (app_profile_open(file, name))
		return 1;
	count_error_page(name);
	return 0;
}

void fs_close_custom(struct fs_file *file)
{
	if (file->pextension)
		mem_free(file->pextension);
	file->pextension = NULL;
}

void app_http_start(void)
{
	httpd_init();
}
