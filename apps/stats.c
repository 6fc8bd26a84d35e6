/*
 * /stats.json: one JSON document with every counter the system keeps:
 * the guest's uptime (so clients compute rates in guest time), the
 * allocators' own *_json functions (buddyinfo, zoneinfo with the PCP
 * lists, numastat, slabinfo, the allocators' misuse reports by kind,
 * qmempool, page_frag, failure injection), the NICs' counters (with one
 * entry per queue), our lwIP memory glue, its memory-pressure recovery
 * and TCP's out-of-order bounds, the poll rounds of every queue,
 * the lwIP core lock, lwIP's own statistics, and the serial shell's.
 *
 * /stats-schema.json describes it: each section's writer publishes the
 * tables it writes from (libc/stat_table.h), and stats_schema_json()
 * walks them, so a value's unit, kind and label are said where its
 * writer names it and nowhere else.
 */
#include <stdio.h>
#include <string.h>

#include "drivers/netdev.h"
#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/cpu_stats.h"
#include "kernel/shell.h"
#include "kernel/trace.h"
#include "lwip/sys.h"
#include "mm/mm.h"
#include "apps.h"
#include "stats.h"
#include "net/capture.h"
#include "net/net.h"
#include "net/core_lock.h"
#include "net/lwip_stats.h"
#include "net/net_ip6.h"
#include "net/net_stacks_stats.h"
#include "net/net_mem.h"
#include "net/net_poll.h"
#include "net/net_numa.h"
#include "net/net_oom.h"
#include "net/tcp_ooseq.h"
#include "libc/stat_table.h"

typedef int (*json_fn)(char *buf, size_t size);

/* Milliseconds since boot (lwIP's clock, the one its timers use): the
 * section's whole value is this one number. */
struct uptime_snap {
	unsigned long ms;
};
static const struct stat_desc uptime_stats[] = {
	STAT_NAMED("", struct uptime_snap, ms, STAT_KIND_COUNTER, "ms",
		   "time since boot (lwIP's clock): what rates divide by"),
};
static const struct stat_group uptime_groups[] = {
	STAT_GROUP("", uptime_stats),
};
static const struct stat_schema uptime_schema = STAT_SCHEMA(uptime_groups);

static int uptime_json(char *buf, size_t size)
{
	struct uptime_snap o = {sys_now()};
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	stat_json_value(&sb, &uptime_stats[0], &o);
	return strbuf_done(&sb);
}

/* A member of the document: its writer, and the description of what it
 * writes (libc/stat_table.h). */
struct stats_section {
	const char *name;
	json_fn fn;
	const struct stat_schema *schema;
};

static const struct stats_section sections[] = {
	/* first: clients take rates from it */
	{"uptime_ms", uptime_json, &uptime_schema},
	{"buddyinfo", buddyinfo_json, &buddyinfo_schema},
	{"zoneinfo", zoneinfo_json, &zoneinfo_schema},
	{"numastat", numastat_json, &numastat_schema},
	{"slabinfo", slabinfo_json, &slabinfo_schema},
	/* misuse reports by kind */
	{"mm_debug", mm_debug_json, &mm_debug_schema},
	{"qmempool", qmempool_stats_json, &qmempool_schema},
	{"page_frag", page_frag_stats_json, &page_frag_schema},
	{"fault_inject", mm_fault_json, &mm_fault_schema},
	{"cpus", cpustat_json, &cpustat_schema},
	{"nic", netdev_stats_json, &netdev_stats_schema},
	{"net_mem", net_mem_stats_json, &net_mem_schema},
	{"net_numa", net_numa_json, &net_numa_schema},
	{"net_oom", net_oom_stats_json, &net_oom_schema},
	{"tcp_ooseq", net_tcp_ooseq_stats_json, &net_tcp_ooseq_schema},
	{"poll", net_poll_stats_json, &net_poll_schema},
	{"core_lock", net_core_lock_stats_json, &net_core_lock_schema},
	/* one lwIP or one per CPU, and what they handed each other */
	{"stacks", net_stacks_stats_json, &net_stacks_schema},
	{"lwip", net_lwip_stats_json, &net_lwip_schema},
	/* addresses; lwIP's IPv6 counters are in lwip */
	{"ip6", net_ip6_json, &net_ip6_schema},
	{"pci", pci_json, &pci_schema},
	{"shell", shell_stats_json, &shell_stats_schema},
	{"trace", trace_stats_json, &trace_stats_schema},
	{"capture", net_capture_stats_json, &net_capture_schema},
};

#define NSECTIONS ((int)(sizeof(sections) / sizeof(sections[0])))

/* Sections the apps add at boot (stats_section_add): an app's counters
 * are its own business, and the composer names no app. */
#define STATS_APP_SECTIONS 4
static struct stats_section app_sections[STATS_APP_SECTIONS];
static int napp_sections;

int stats_section_add(const char *name, int (*fn)(char *buf, size_t size),
		      const struct stat_schema *schema)
{
	if (napp_sections == STATS_APP_SECTIONS) {
		kprintf("stats: no room for section %s\n", name);
		return -1;
	}
	app_sections[napp_sections] = (struct stats_section){name, fn, schema};
	napp_sections++;
	return 0;
}

/*
 * One section. A section must return the length it would write (snprintf
 * semantics); one that returns less than it wrote would make the document
 * shorter than its bytes and cut it off, so trust the bytes, and say once
 * which section misreported.
 */
static size_t section(const struct stats_section *sec, bool *reported,
		      struct strbuf *sb)
{
	char *buf = strbuf_tail(sb);
	size_t size = strbuf_room(sb);
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
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	for (int i = 0; i < NSECTIONS + napp_sections; i++) {
		const struct stats_section *sec =
			i < NSECTIONS ? &sections[i]
				      : &app_sections[i - NSECTIONS];

		strbuf_printf(&sb, "%s\"%s\":", i ? "," : "", sec->name);
		strbuf_skip(&sb, section(sec, &reported[i], &sb));
	}
	strbuf_printf(&sb, "}\n");
	return strbuf_done(&sb);
}

int stats_schema_json(char *buf, size_t size)
{
	struct strbuf sb;
	bool first = true;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	for (int i = 0; i < NSECTIONS + napp_sections; i++) {
		const struct stats_section *sec =
			i < NSECTIONS ? &sections[i]
				      : &app_sections[i - NSECTIONS];

		stat_schema_json(&sb, sec->name, sec->schema, &first);
	}
	strbuf_printf(&sb, "}\n");
	return strbuf_done(&sb);
}
