/*
 * The gate of the HTTP actions that start work on the guest, and the
 * iperf client's action: http_control.h says what the gate lets through.
 *
 * Why a gate at all: one GET used to start a 10-second TCP flood from the
 * guest to any port of its gateway, as many at once as were asked for,
 * and another set every CPU to 5 kHz sampling; a browser prefetching a
 * link or any client on the network could do it. So an action is off
 * until whoever boots the kernel says otherwise, takes the method that
 * says "this changes something", never runs twice at once, and leaves one
 * line on the console for each time it really started.
 */
#include "http_control.h"

#include <stdio.h>
#include <stdlib.h>

#include "apps.h"
#include "http_server.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "lwip/ip_addr.h"
#include "lwip/netif.h"
#include "net/net_ip6.h"

CMDLINE_KEY(apps, http_control, "0", cmdline_valid_choice, "0|1",
	    "HTTP actions that start work on the guest (POST "
	    "/iperf-client/PORT, /profile/start, /profile/stop; README.md, "
	    "Safety): off unless 1");

int http_control_gate(const struct http_request *req,
		      struct http_response *resp)
{
	if (!cmdline_get_bool("http_control"))
		return 403;
	if (req->method != HTTP_POST) {
		resp->allow = "POST";
		return 405;
	}
	return 0;
}

/* a as text, an IPv6 one as RFC 5952 has it (lwIP's own writes
 * uppercase hex), as the iperf reports print their peers. */
static char *addr_text(const ip_addr_t *a, char *buf, size_t size)
{
	if (IP_IS_V6(a))
		return net_ip6_text(ip_2_ip6(a), buf, size);
	return ipaddr_ntoa_r(a, buf, (int)size);
}

void http_control_log(const struct http_request *req, const char *fmt, ...)
{
	char what[96], peer[IPADDR_STRLEN_MAX] = "?";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (req->peer)
		addr_text(req->peer, peer, sizeof(peer));
	kprintf("http: control: %s (asked by %s)\n", what, peer);
}

/* The iperf client's server: an IPv6 asker itself, else the default
 * gateway (the host, under QEMU's user networking); false without. */
static bool iperf_server(const struct http_request *req, ip_addr_t *to)
{
	if (req->peer && IP_IS_V6(req->peer)) {
		ip_addr_copy(*to, *req->peer);
		return true;
	}
	if (!netif_default)
		return false;
	ip_addr_copy_from_ip4(*to, *netif_ip4_gw(netif_default));
	return true;
}

int http_control_iperf(const struct http_request *req, const char *arg,
		       struct http_response *resp)
{
	static const char ok[] = "started\n";
	char text[IPADDR_STRLEN_MAX];
	int status = http_control_gate(req, resp), err;
	ip_addr_t to;
	char *end;
	long port;

	if (status)
		return status;
	port = strtol(arg, &end, 10);
	if (end == arg || *end || port <= 0 || port > 65535)
		return 400;
	if (!iperf_server(req, &to))
		return 503;
	err = app_iperf_client(&to, (uint16_t)port);
	if (err)
		return err == -2 ? 409 : 503;
	addr_text(&to, text, sizeof(text));
	http_control_log(req,
			 IP_IS_V6(&to) ? "iperf client to [%s]:%ld for 10 s"
				       : "iperf client to %s:%ld for 10 s",
			 text, port);
	resp->status = 200;
	resp->body = ok;
	resp->body_len = sizeof(ok) - 1;
	return 200;
}
