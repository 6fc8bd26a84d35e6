/*
 * apps_boot: the composition root above the kernel. kernel/main.c calls it
 * once the kernel is up (CPUs, memory, interrupts, the boot report); it
 * brings up what sits on top, in layer order: the PCI bus and the network
 * stack (net_init: NICs, lwIP, addresses), then the apps the command line's
 * app= names, then the pollers that drive the NIC queues. The stack never
 * starts or announces an app: this file does both.
 *
 * Everything here runs on the boot CPU (CPU 0) before any poller runs, so
 * nothing else calls into lwIP yet; the apps still start under the lwIP
 * core lock, which lwIP asserts (LWIP_ASSERT_CORE_LOCKED).
 */
#include <stdint.h>

#include "apps.h"
#include "drivers/pci.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "net/core_lock.h"
#include "net/capture.h"
#include "net/net.h"
#include "net/instance_enter.h"
#include "net/net_instance.h"
#include "net/net_config.h"
#include "net/net_mem.h"
#include "net/net_poll.h"
#include "net/net_selftest.h"
#include "shell_capture.h"
#include "shell_net.h"

#define APP_ECHO  1u
#define APP_HTTP  2u
#define APP_IPERF 4u

/* app=: the apps to start (APP_* bits). */
static unsigned int apps_on;

CMDLINE_KEY(apps, app, "echo,http,iperf", cmdline_valid_list,
	    "echo|http|iperf|none", "network services to start");
CMDLINE_KEY(
	apps, http_hostport, "", cmdline_valid_uint, "1-65535",
	"host port forwarded to HTTP (printed as the curl command to type)");
CMDLINE_KEY(apps, echo_hostport, "", cmdline_valid_uint, "1-65535",
	    "host port forwarded to echo (printed as the nc command to type)");
CMDLINE_KEY(apps, iperf_hostport, "", cmdline_valid_uint, "1-65535",
	    "host port forwarded to iperf (printed as the iperf command to "
	    "type)");

static void apps_config_parse(void)
{
	apps_on = 0;
	if (cmdline_has("app", "echo"))
		apps_on |= APP_ECHO;
	if (cmdline_has("app", "http"))
		apps_on |= APP_HTTP;
	if (cmdline_has("app", "iperf"))
		apps_on |= APP_IPERF;
}

/* A host port `make run` forwarded to guest port @key's app, or 0. */
static long hostport(const char *key, unsigned int app)
{
	return (apps_on & app) && cmdline_given(key) ? cmdline_get_long(key)
						     : 0;
}

/*
 * `make run` forwards host ports to the guest and tells us which ones
 * (http_hostport= etc.), so the console can say exactly what to type on
 * the host once the services are really listening.
 */
static void announce_host_commands(void)
{
	long http = hostport("http_hostport", APP_HTTP);
	long iperf = hostport("iperf_hostport", APP_IPERF);
	long echo = hostport("echo_hostport", APP_ECHO);

	if (http) {
		kprintf("net: on the host: curl http://localhost:%ld/  and  "
			"curl http://localhost:%ld/stats.json\n",
			http, http);
		kprintf("net: in a browser: http://localhost:%ld/dashboard\n",
			http);
	}
	if (iperf)
		kprintf("net: on the host: iperf -c localhost -p %ld -t 5\n",
			iperf);
	if (echo)
		kprintf("net: on the host: nc localhost %ld  (TCP echo; "
			"nc -u localhost %ld for UDP)\n",
			echo, echo);
}

/* The line tests and `make run` wait for: once the first interface has
 * its address, what listens. Called by net/ (net_set_ready_hook). */
static void announce_services(void)
{
	kprintf("net: listening%s%s%s%s net_alloc=%s\n",
		apps_on & APP_ECHO ? " tcp/7 udp/7" : "",
		apps_on & APP_HTTP ? " tcp/80" : "",
		apps_on & APP_IPERF ? " tcp/5001" : "", " icmp",
		net_alloc_name());
	announce_host_commands();
}

/*
 * Every service listens in every stack instance (one, or one per CPU
 * with net_stack=percpu): a connection is served by the instance its
 * flow reaches. netconsole and the GDB stub are one-of-a-kind: instance
 * 0's, the stub's port pinned there (net/flow_owner.h).
 */
static void apps_start(void)
{
	for (int i = 0; i < net_instance_count; i++) {
		struct net_instance_saved saved;

		net_instance_enter(i, &saved);
		if (apps_on & APP_ECHO)
			app_echo_start();
		if (apps_on & APP_HTTP) {
			if (i == 0)
				app_http_start();
			else
				app_http_listen();
		}
		if (apps_on & APP_IPERF)
			app_iperf_start();
		if (i == 0) {
			app_netconsole_start();
			app_gdb_tcp_start();
		}
		net_instance_leave(&saved);
	}
}

void apps_boot(void)
{
	pci_init();
	net_config_parse();
	apps_config_parse();
	shell_net_register(); /* they say so themselves when there is no NIC */
	shell_capture_register();
	net_selftest_register();
	net_set_ready_hook(announce_services);
	if (net_init() == 0)
		return;
	apps_start();
	net_capture_boot();
	net_poll_start();
}
