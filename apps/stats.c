/*
 * /stats.json: one JSON document with every counter the system keeps:
 * the guest's uptime (so clients compute rates in guest time), the
 * allocators' own *_json functions (buddyinfo, zoneinfo with the PCP
 * lists, numastat, slabinfo, the allocators' misuse reports by kind,
 * qmempool, page_frag, failure injection), the NICs' counters (with one
 * entry per queue), our lwIP memory glue, its memory-pressure recovery
 * and TCP's out-of-order bounds, the poll rounds of every queue,
 * the lwIP core lock, lwIP's own statistics, and the serial shell's.
 */
#include <stdio.h>
#include <string.h>

#include "drivers/netdev.h"
#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/cpu_stats.h"
#include "kernel/shell.h"
#include "lwip/sys.h"
#include "mm/mm.h"
#include "apps.h"
#include "stats.h"
#include "net/net.h"
#include "net/core_lock.h"
#include "net/lwip_stats.h"
#include "net/net_ip6.h"
#include "net/net_mem.h"
#include "net/net_poll.h"
#include "net/net_numa.h"
#include "net/net_oom.h"
#include "net/tcp_ooseq.h"

typedef int (*json_fn)(char *buf, size_t size);

static int uptime_json(char *buf, size_t size);

struct stats_section {
	const char *name;
	json_fn fn;
};

static const struct stats_section sections[] = {
	{"uptime_ms", uptime_json}, /* first: clients take rates from it */
	{"buddyinfo", buddyinfo_json},
	{"zoneinfo", zoneinfo_json},
	{"numastat", numastat_json},
	{"slabinfo", slabinfo_json},
	{"mm_debug", mm_debug_json}, /* misuse reports by kind */
	{"qmempool", qmempool_stats_json},
	{"page_frag", page_frag_stats_json},
	{"fault_inject", mm_fault_json},
	{"cpus", cpustat_json},
	{"nic", netdev_stats_json},
	{"net_mem", net_mem_stats_json},
	{"net_numa", net_numa_json},
	{"net_oom", net_oom_stats_json},
	{"tcp_ooseq", net_tcp_ooseq_stats_json},
	{"poll", net_poll_stats_json},
	{"core_lock", net_core_lock_stats_json},
	{"lwip", net_lwip_stats_json},
	{"ip6", net_ip6_json}, /* addresses; lwIP's IPv6 counters are in lwip */
	{"pci", pci_json},
	{"shell", shell_stats_json},
};

#define NSECTIONS ((int)(sizeof(sections) / sizeof(sections[0])))

/* Sections the apps add at boot (stats_section_add): an app's counters
 * are its own business, and the composer names no app. */
#define STATS_APP_SECTIONS 4
static struct stats_section app_sections[STATS_APP_SECTIONS];
static int napp_sections;

int stats_section_add(const char *name, int (*fn)(char *buf, size_t size))
{
	if (napp_sections == STATS_APP_SECTIONS) {
		kprintf("stats: no room for section %s\n", name);
		return -1;
	}
	app_sections[napp_sections].name = name;
	app_sections[napp_sections].fn = fn;
	napp_sections++;
	return 0;
}

#define CLAMP(n, size) ((n) < (size) ? (n) : (size))
#define APPEND(...)                                                         \
	(n += (size_t)snprintf(buf + CLAMP(n, size), size - CLAMP(n, size), \
			       __VA_ARGS__))

/* Milliseconds since boot (lwIP's clock, the one its timers use). */
static int uptime_json(char *buf, size_t size)
{
	return snprintf(buf, size, "%lu", (unsigned long)sys_now());
}

/*
 * One section. A section must return the length it would write (snprintf
 * semantics); one that returns less than it wrote would make the document
 * shorter than its bytes and cut it off, so trust the bytes, and say once
 * which section misreported.
 */
static size_t section(const struct stats_section *sec, bool *reported,
		      char *buf, size_t size)
{
	int r = sec->fn(buf, size);
	size_t wrote = size ? strnlen(buf, size) : 0;

	if (r < 0 || (size_t)r < wrote) {
		if (!*reported) {
			*reported = true;
			kprintf("net: stats section %s returned %d but wrote "
				"%lu bytes\n",
				sec->name, r, (unsigned long)wrote);
		}
		return wrote;
	}
	return (size_t)r;
}

int stats_json(char *buf, size_t size)
{
	static bool reported[NSECTIONS + STATS_APP_SECTIONS];
	size_t n = 0;

	APPEND("{");
	for (int i = 0; i < NSECTIONS + napp_sections; i++) {
		const struct stats_section *sec =
			i < NSECTIONS ? &sections[i]
				      : &app_sections[i - NSECTIONS];

		APPEND("%s\"%s\":", i ? "," : "", sec->name);
		n += section(sec, &reported[i], buf + CLAMP(n, size),
			     size - CLAMP(n, size));
	}
	APPEND("}\n");
	return (int)n;
}
