/*
 * iperf2-compatible server on TCP port 5001, IPv4 and IPv6: lwIP's
 * lwiperf. Each finished test prints one line, e.g. "iperf: done
 * 10.0.2.2:45678 bytes=... ms=... kbps=..." (an IPv6 peer in brackets,
 * "[fe80::1]:45678"), which benchmarks and tests read. A session that lwIP ended
 * itself (a RST, retransmissions exhausted) has no pcb left to name its
 * peer (net/lwip-patches/0001-*): a client session then names the server
 * it was started against (kept in client_server: a client's report has
 * it as its argument), a server session prints "-" instead of the peer.
 * One client runs at a time: its report (done or aborted, lwiperf
 * reports every end) frees the place. A client's report whose pcb is
 * still there ends with its local port, " local_port=49153": the port
 * the stack chose so the answers reach the opening CPU (net/rss_steer.c).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "apps.h"
#include "kernel/console.h"
#include "lwip/apps/lwiperf.h"
#include "net/net_ip6.h"

/* A client session runs; cleared by its report. Atomic: with a stack
 * per CPU two instances may be asked at once. */
static atomic_bool client_running;
/* The running client's server, IPv4 or IPv6, for its report. */
static struct {
	ip_addr_t addr;
	u16_t port;
} client_server;

static const char *report_name(enum lwiperf_report_type t)
{
	switch (t) {
	case LWIPERF_TCP_DONE_SERVER:
		return "done";
	case LWIPERF_TCP_DONE_CLIENT:
		return "done-client";
	case LWIPERF_TCP_ABORTED_LOCAL:
		return "aborted-local";
	case LWIPERF_TCP_ABORTED_LOCAL_DATAERROR:
		return "aborted-dataerror";
	case LWIPERF_TCP_ABORTED_LOCAL_TXERROR:
		return "aborted-txerror";
	case LWIPERF_TCP_ABORTED_REMOTE:
		return "aborted-remote";
	default:
		return "unknown";
	}
}

static void iperf_report(void *arg, enum lwiperf_report_type type,
			 const ip_addr_t *local_addr, u16_t local_port,
			 const ip_addr_t *remote_addr, u16_t remote_port,
			 u64_t bytes, u32_t ms, u32_t kbps)
{
	uint32_t ip;
	char text[IP6ADDR_STRLEN_MAX], local[20] = "";

	(void)local_addr;
	if (arg) /* only a client session has an argument: its server */
		client_running = false;
	if (arg && remote_addr && local_port)
		snprintf(local, sizeof(local), " local_port=%u", local_port);
	if (!remote_addr && arg) { /* a client whose pcb is gone */
		remote_addr = &client_server.addr;
		remote_port = client_server.port;
	}
	if (!remote_addr) {
		kprintf("iperf: %s - bytes=%llu ms=%u kbps=%u\n",
			report_name(type), (unsigned long long)bytes, ms, kbps);
		return;
	}
	if (IP_IS_V6(remote_addr)) {
		kprintf("iperf: %s [%s]:%u bytes=%llu ms=%u kbps=%u%s\n",
			report_name(type),
			net_ip6_text(ip_2_ip6(remote_addr), text, sizeof(text)),
			remote_port, (unsigned long long)bytes, ms, kbps,
			local);
		return;
	}
	ip = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(remote_addr)));
	kprintf("iperf: %s %u.%u.%u.%u:%u bytes=%llu ms=%u kbps=%u%s\n",
		report_name(type), ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		ip & 255, remote_port, (unsigned long long)bytes, ms, kbps,
		local);
}

int app_iperf_client(const ip_addr_t *server, uint16_t port)
{
	if (!server || ip_addr_isany(server))
		return -1;
	if (atomic_exchange(&client_running, true))
		return -2;
	ip_addr_copy(client_server.addr, *server);
	client_server.port = port;
	/* Set first: a connect that fails at once reports (and clears it)
	 * from inside the start. */
	if (!lwiperf_start_tcp_client(&client_server.addr, port, LWIPERF_CLIENT,
				      iperf_report, &client_server)) {
		client_running = false;
		kprintf("net: iperf: cannot connect to port %u\n", port);
		return -1;
	}
	return 0;
}

void app_iperf_start(void)
{
	/* lwiperf_start_tcp_server_default() binds IP_ADDR_ANY, which on a
	 * dual stack is IPv4's any: IP_ANY_TYPE takes both families. */
	if (!lwiperf_start_tcp_server(IP_ANY_TYPE, LWIPERF_TCP_PORT_DEFAULT,
				      iperf_report, NULL))
		kprintf("net: iperf: cannot listen on tcp/5001\n");
}
