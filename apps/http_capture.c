/*
 * Packet capture over HTTP (net/capture.h, docs/observe.md):
 *
 *   GET /capture.pcap     the last capture's frames as a pcap file
 *                         (tshark -r, Wireshark)
 *   POST /capture/start   a new capture with the capture_* boot keys
 *   POST /capture/stop    stop; the frames stay
 *
 * Frames carry whatever went over the wire, so all of it answers only
 * when the boot asked for a capture (capture=1): 403 otherwise. Start
 * and stop are actions besides, behind apps/http_control.h's gate.
 */
#include <string.h>

#include "apps.h"
#include "http_control.h"
#include "http_server.h"
#include "kernel/cmdline.h"
#include "mm/mm.h"
#include "net/capture.h"

/* GET /capture.pcap. Frames keep coming while a capture records: sized
 * with room for a few more, and once more if it still grew. */
static int serve_pcap(struct http_response *resp)
{
	size_t want = net_capture_pcap(NULL, 0) + 16384;

	for (int tries = 0; tries < 3; tries++) {
		char *buf = kmalloc(want, GFP_KERNEL);
		size_t len;

		if (!buf)
			return 503;
		len = net_capture_pcap(buf, want);
		if (len <= want)
			return http_answer_body(resp, buf, len,
						"application/vnd.tcpdump.pcap",
						http_body_kfree);
		kfree(buf);
		want = len + 16384;
	}
	return 503;
}

static int serve_start(const struct http_request *req,
		       struct http_response *resp)
{
	int err = http_control_gate(req, resp);

	if (err)
		return err;
	err = net_capture_start(
		(unsigned long)cmdline_get_long("capture_count"),
		(unsigned int)cmdline_get_long("capture_snaplen"),
		cmdline_get("capture_filter"));
	if (err)
		return 503;
	http_control_log(req, "capture of %s", cmdline_get("capture_filter"));
	return http_answer_text(resp, "capturing\n");
}

static int serve_stop(const struct http_request *req,
		      struct http_response *resp)
{
	int err = http_control_gate(req, resp);

	if (err)
		return err;
	if (net_capturing()) {
		net_capture_stop();
		http_control_log(req, "capture stopped");
	}
	return http_answer_text(resp, "stopped\n");
}

int app_capture_serve(const struct http_request *req,
		      struct http_response *resp)
{
	const char *path = req->path;

	if (strcmp(path, "/capture.pcap") && strcmp(path, "/capture/start") &&
	    strcmp(path, "/capture/stop"))
		return 0;
	if (!cmdline_get_bool("capture"))
		return 403;
	if (!strcmp(path, "/capture/start"))
		return serve_start(req, resp);
	if (!strcmp(path, "/capture/stop"))
		return serve_stop(req, resp);
	if (req->method == HTTP_POST) { /* the file changes nothing */
		resp->allow = "GET, HEAD";
		return 405;
	}
	return serve_pcap(resp);
}
