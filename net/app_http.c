/*
 * HTTP on port 80: lwIP's httpd with our two files, served from memory.
 *
 *   /            (and /index.html) a short page naming the services
 *   /stats.json  generated at request time by net_stats_json()
 *
 * httpd asks fs_open_custom() for every URI first; we build the body into
 * a heap buffer that fs_close_custom() frees. Anything else falls through
 * to the files built into lwIP's fsdata.c (its 404 page).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "lwip/apps/fs.h"
#include "lwip/apps/httpd.h"
#include "lwip/mem.h"
#include "lwip/netif.h"
#include "net.h"
#include "net_mem.h"

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>netkernel</title></head><body>\n"
	"<h1>netkernel: lwIP on a bare-metal x86_64 kernel</h1>\n"
	"<ul>\n<li><a href=\"/stats.json\">/stats.json</a>: allocator, NIC "
	"and lwIP counters, live</li>\n"
	"<li>echo: TCP and UDP port 7</li>\n"
	"<li>iperf2 server (lwiperf): TCP port 5001</li>\n</ul>\n"
	"</body></html>\n";

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
			return 0;
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
	return 0;
}

/*
 * GET /iperf-client/N makes the guest run lwiperf's 10-second TCP
 * client test against port N of the default gateway (the host, under
 * QEMU's user networking): the guest->host half of the benchmark. (iperf
 * 2.1's -r/-d reverse modes do not interoperate with lwiperf 2.1.3.)
 */
static int serve_iperf_client(struct fs_file *file, const char *arg)
{
	static const char ok[] = "started\n", bad[] = "bad port\n";
	long port = strtol(arg, NULL, 10);
	bool started = port > 0 && port < 65536 &&
		       app_iperf_client(netif_ip4_gw(netif_default),
					(uint16_t)port) == 0;

	file->data = started ? ok : bad;
	file->len = (int)(started ? sizeof(ok) : sizeof(bad)) - 1;
	file->index = file->len;
	file->flags = FS_FILE_FLAGS_HEADER_PERSISTENT;
	return 1;
}

int fs_open_custom(struct fs_file *file, const char *name)
{
	memset(file, 0, sizeof(*file));
	if (strcmp(name, "/") == 0 || strcmp(name, "/index.html") == 0) {
		file->data = index_html;
		file->len = (int)sizeof(index_html) - 1;
		file->index = file->len;
		/* Static bytes: httpd may send them without copying. */
		file->flags = FS_FILE_FLAGS_HEADER_PERSISTENT;
		return 1;
	}
	if (strcmp(name, "/stats.json") == 0)
		return serve_stats(file);
	if (strncmp(name, "/iperf-client/", 14) == 0)
		return serve_iperf_client(file, name + 14);
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
