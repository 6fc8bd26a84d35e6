/*
 * The registry of network devices: drivers add what they probed, the
 * stack binds a netif to each. Fixed-size (NETDEV_MAX), filled at boot,
 * read-only after; the NICs found past it are named, not bound.
 */
#include "netdev.h"

#include <stddef.h>
#include <stdio.h>

#include "drv_port.h"
#include "libc/stat_table.h"
#include "pci.h"

/* Left-out NICs named in the boot line; more are counted. */
#define LEFT_OUT_NAMED 8
#define LEFT_OUT_NAME  40

static struct netdev *netdevs[NETDEV_MAX];
static int nnetdevs;
static char left_out[LEFT_OUT_NAMED][LEFT_OUT_NAME];
static int nleft_out;

bool netdev_room(void)
{
	return nnetdevs < NETDEV_MAX;
}

void netdev_left_out(const char *kind, const struct pci_dev *d)
{
	if (nleft_out < LEFT_OUT_NAMED) {
		char *name = left_out[nleft_out];
		int n = d->segment ? snprintf(name, LEFT_OUT_NAME,
					      "%04x:", d->segment)
				   : 0;

		snprintf(name + n, LEFT_OUT_NAME - (size_t)n,
			 "%02x:%02x.%x %s %04x:%04x", d->bus, d->dev, d->fn,
			 kind, d->vendor, d->device);
	}
	nleft_out++;
}

void netdev_report_left_out(void)
{
	char line[LEFT_OUT_NAMED * (LEFT_OUT_NAME + 2) + 32];
	struct strbuf sb;

	if (!nleft_out)
		return;
	strbuf_init(&sb, line, sizeof(line));
	for (int i = 0; i < nleft_out && i < LEFT_OUT_NAMED; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", left_out[i]);
	if (nleft_out > LEFT_OUT_NAMED)
		strbuf_printf(&sb, " and %d more", nleft_out - LEFT_OUT_NAMED);
	strbuf_done(&sb);
	drv_printf("netdev: NETDEV_MAX=%d devices bound, %d left out: %s\n",
		   NETDEV_MAX, nleft_out, line);
}

int netdev_register(struct netdev *dev)
{
	if (nnetdevs == NETDEV_MAX) {
		drv_printf("netdev: more than %d devices, one ignored\n",
			   NETDEV_MAX);
		return -1;
	}
	if (dev->nqueues < 1 || dev->nqueues > NETDEV_MAX_QUEUES) {
		drv_printf("netdev: %d queues (1..%d), device ignored\n",
			   dev->nqueues, NETDEV_MAX_QUEUES);
		return -1;
	}
	snprintf(dev->name, sizeof(dev->name), "eth%d", nnetdevs);
	netdevs[nnetdevs++] = dev;
	return 0;
}

int netdev_count(void)
{
	return nnetdevs;
}

struct netdev *netdev_get(int i)
{
	return i >= 0 && i < nnetdevs ? netdevs[i] : NULL;
}

/*
 * Every counter of struct netdev_stats: one table for the sums, the JSON
 * of a device's totals and of each queue, and /stats-schema.json. What
 * the fields' comments in netdev.h explain at length, the labels say in
 * a line.
 */
#define NETDEV_COUNTER(f, u, l) STAT_COUNTER_AT(struct netdev_stats, f, u, l)
#define NETDEV_GAUGE(f, u, l)	STAT_GAUGE_AT(struct netdev_stats, f, u, l)
const uint8_t netdev_rss_default_key[NETDEV_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

int netdev_rss_table_fill(struct netdev *dev, const uint8_t *table, int n)
{
	/* a power of two up to the table's length divides it exactly */
	if (n < 1 || n > dev->rss_table_len || (n & (n - 1)))
		return -1;
	for (int i = 0; i < n; i++)
		if (table[i] >= dev->nqueues)
			return -1;
	for (int i = 0; i < dev->rss_table_len; i++)
		dev->rss_table[i] = table[i % n];
	return 0;
}

static const struct stat_desc netdev_counters[] = {
	NETDEV_COUNTER(rx_packets, "packets", "frames received"),
	NETDEV_COUNTER(rx_bytes, "bytes", "bytes received"),
	NETDEV_COUNTER(rx_dropped, "packets",
		       "frames dropped: the stack had no memory, or link down"),
	NETDEV_COUNTER(rx_bad_len, "packets",
		       "frames of a length the driver refuses"),
	NETDEV_COUNTER(rx_refills, "buffers", "buffers posted to the ring"),
	NETDEV_COUNTER(rx_refill_fail, "events",
		       "napi_alloc_frag() found no buffer"),
	NETDEV_COUNTER(rx_errors, "packets", "frames the device flagged bad"),
	NETDEV_COUNTER(rx_missed, "packets",
		       "frames the device had no buffer for"),
	NETDEV_GAUGE(rx_bufs_posted, "buffers",
		     "RX buffers the device holds now"),
	NETDEV_COUNTER(rx_bad_completions, "events",
		       "RX completions naming a buffer never given"),
	NETDEV_COUNTER(tx_packets, "packets",
		       "frames sent as the stack gave them (one the device "
		       "cuts counts once: tx_gso_segs)"),
	NETDEV_COUNTER(tx_bytes, "bytes", "bytes sent"),
	NETDEV_COUNTER(tx_busy, "packets", "frames refused: ring full"),
	NETDEV_COUNTER(
		tx_bad_len, "packets",
		"frames refused: over the MTU and not cut by the device"),
	NETDEV_COUNTER(tx_completed, "packets", "frames the device finished"),
	NETDEV_GAUGE(tx_inflight, "packets",
		     "frames given to the device, not yet done"),
	NETDEV_COUNTER(tx_bad_completions, "events",
		       "TX completions naming a buffer never given"),
	NETDEV_COUNTER(link_changes, "events", "link went up or down"),
	NETDEV_COUNTER(rx_csum_valid, "packets",
		       "frames whose sum the device checked"),
	NETDEV_COUNTER(rx_csum_partial, "packets",
		       "frames that never crossed a wire (NEEDS_CSUM)"),
	NETDEV_COUNTER(rx_gso_frames, "packets",
		       "coalesced TCP segments from the device"),
	NETDEV_COUNTER(rx_mrg_chains, "packets",
		       "frames over more than one buffer"),
	NETDEV_COUNTER(rx_bad_hdr, "packets",
		       "frames with a malformed device header: dropped"),
	NETDEV_COUNTER(tx_csum_offloaded, "packets",
		       "frames whose sum the device fills"),
	NETDEV_COUNTER(interrupts, "events",
		       "interrupts that woke the queue's CPU"),
	NETDEV_COUNTER(rx_notifies, "events", "RX ring kicks sent"),
	NETDEV_COUNTER(rx_notifies_suppressed, "events",
		       "RX kicks the device said it needs none of"),
	NETDEV_COUNTER(tx_notifies, "events", "TX ring kicks sent"),
	NETDEV_COUNTER(tx_notifies_suppressed, "events",
		       "TX kicks the device said it needs none of"),
	NETDEV_COUNTER(tx_doorbells, "events", "TX tail register writes"),
	NETDEV_COUNTER(link_interrupts, "events", "link changes signalled"),
	NETDEV_COUNTER(tx_gso_frames, "packets",
		       "frames posted for the device to cut (TSO)"),
	NETDEV_COUNTER(tx_gso_segs, "packets",
		       "TCP segments the device cuts them into"),
	NETDEV_COUNTER(tx_large_segs, "packets",
		       "TCP segments longer than the MSS the stack built for "
		       "the device to cut (tcp_seg_mss=)"),
	NETDEV_COUNTER(rx_csum_sw, "packets",
		       "frames the glue checked in software: sums right"),
	NETDEV_COUNTER(rx_csum_sw_bad, "packets",
		       "frames the glue checked in software: sums wrong"),
	NETDEV_COUNTER(rx_gro_packets, "packets",
		       "packets the glue joined from TCP segments"),
	NETDEV_COUNTER(rx_gro_segs, "packets", "the frames in those packets"),
	NETDEV_COUNTER(rx_rss_hashed, "packets",
		       "frames the device hashed for RSS"),
	NETDEV_COUNTER(rx_rss_other_queue, "packets",
		       "hashed frames on another queue than the table names"),
	NETDEV_COUNTER(rx_rss_hash_checked, "packets",
		       "hashed frames whose hash the stack computed again"),
	NETDEV_COUNTER(rx_rss_hash_mismatch, "packets",
		       "of those, frames where the stack's hash differs"),
	NETDEV_COUNTER(tcp_port_steered, "events",
		       "opened here with a port whose answers come here"),
	NETDEV_COUNTER(tcp_port_unsteered, "events",
		       "opened here with the port left to lwIP (RSS on)"),
	NETDEV_COUNTER(rx_other_cpu, "packets",
		       "frames handed up on another CPU than the queue's"),
};
_Static_assert(STAT_TABLE_LEN(netdev_counters) * sizeof(uint64_t) ==
		       sizeof(struct netdev_stats),
	       "every counter of struct netdev_stats is in netdev_counters[]");

/* Adds every queue of dev into out. */
static void stats_add(const struct netdev *dev, struct netdev_stats *out)
{
	for (int q = 0; q < dev->nqueues; q++)
		for (size_t i = 0; i < STAT_TABLE_LEN(netdev_counters); i++) {
			size_t off = netdev_counters[i].off;
			const char *from = (const char *)&dev->queues[q].stats;

			*(uint64_t *)((char *)out + off) +=
				*(const uint64_t *)(from + off);
		}
}

void netdev_stats_sum(const struct netdev *dev, struct netdev_stats *out)
{
	*out = (struct netdev_stats){0};
	stats_add(dev, out);
}

void netdev_stats_sum_all(struct netdev_stats *out)
{
	*out = (struct netdev_stats){0};
	for (int i = 0; i < netdev_count(); i++)
		stats_add(netdev_get(i), out);
}

/* The offloads a device does for the stack, as /stats.json names them. */
static const struct {
	unsigned int bit;
	const char *name;
} offload_names[] = {
	{NETDEV_OFF_TX_CSUM, "tx_csum"},
	{NETDEV_OFF_RX_CSUM, "rx_csum"},
	{NETDEV_OFF_RX_BIG, "rx_big"},
};
#define NOFFLOADS (sizeof(offload_names) / sizeof(offload_names[0]))

/* What a device and a queue are, beside their counters. */
struct device_snap {
	const char *kind;
	unsigned int offloads;
	const struct netdev *dev; /* for the RSS table */
};
struct queue_snap {
	int queue, cpu, node;
	const char *irq;
	int vector;
};

static void put_offloads(struct strbuf *sb, const void *src)
{
	const struct device_snap *d = src;

	strbuf_printf(sb, "[");
	for (size_t i = 0, sep = 0; i < NOFFLOADS; i++)
		if (d->offloads & offload_names[i].bit)
			strbuf_printf(sb, "%s\"%s\"", sep++ ? "," : "",
				      offload_names[i].name);
	strbuf_printf(sb, "]");
}

/* The redirection table as the device holds it: [] without RSS. */
static void put_rss_table(struct strbuf *sb, const void *src)
{
	const struct netdev *dev = ((const struct device_snap *)src)->dev;

	strbuf_printf(sb, "[");
	for (int i = 0; i < dev->rss_table_len; i++)
		strbuf_printf(sb, "%s%u", i ? "," : "", dev->rss_table[i]);
	strbuf_printf(sb, "]");
}

static const struct stat_desc device_stats[] = {
	STAT_INFO_AT(struct device_snap, kind, "", "the driver"),
	STAT_FN("offloads", put_offloads, STAT_KIND_INFO, "offload", "",
		"what the device does for the stack"),
	STAT_FN("rss_table", put_rss_table, STAT_KIND_INFO, "entry", "",
		"RSS: the queue each entry of the redirection table names"),
};
static const struct stat_desc queue_stats[] = {
	STAT_INFO_AT(struct queue_snap, queue, "", "the queue pair's number"),
	STAT_INFO_AT(struct queue_snap, cpu, "", "the CPU that polls it"),
	STAT_INFO_AT(struct queue_snap, node, "",
		     "its NUMA node: rings and RX buffers come from there"),
	STAT_INFO_AT(struct queue_snap, irq, "",
		     "how it signals work: msix, msi, intx or poll"),
	STAT_INFO_AT(struct queue_snap, vector, "",
		     "its interrupt vector (-1: none)"),
};
/* The two rings' bad completions summed: the name /stats.json has always
 * used, after the counters. */
struct bad_snap {
	uint64_t bad_completions;
};
static const struct stat_desc bad_stats[] = {
	STAT_COUNTER_AT(struct bad_snap, bad_completions, "events",
			"completions naming a buffer never given (RX + TX)"),
};
static const struct stat_group netdev_groups[] = {
	STAT_GROUP("*", device_stats),
	STAT_GROUP("*", netdev_counters),
	STAT_GROUP("*", bad_stats),
	STAT_GROUP("*.queues[]", queue_stats),
	STAT_GROUP("*.queues[]", netdev_counters),
	STAT_GROUP("*.queues[]", bad_stats),
};
const struct stat_schema netdev_stats_schema = STAT_SCHEMA(netdev_groups);

/* ",counters...,bad_completions" of s. */
static void counters_json(struct strbuf *sb, const struct netdev_stats *s)
{
	struct bad_snap bad = {s->rx_bad_completions + s->tx_bad_completions};

	strbuf_printf(sb, ",");
	stat_json_members(sb, netdev_counters, STAT_TABLE_LEN(netdev_counters),
			  s);
	strbuf_printf(sb, ",");
	stat_json_members(sb, bad_stats, STAT_TABLE_LEN(bad_stats), &bad);
}

static void queue_json(struct strbuf *sb, const struct netdev_queue *dq, int q)
{
	struct queue_snap o = {
		.queue = q,
		.cpu = dq->cpu,
		.node = dq->node,
		.irq = dq->irq_mode ? dq->irq_mode : "poll",
		.vector = dq->irq_mode ? dq->irq_vector : -1,
	};

	strbuf_printf(sb, "{");
	stat_json_members(sb, queue_stats, STAT_TABLE_LEN(queue_stats), &o);
	counters_json(sb, &dq->stats);
	strbuf_printf(sb, "}");
}

static void device_json(struct strbuf *sb, const struct netdev *d)
{
	struct netdev_stats sum;
	struct device_snap o = {
		.kind = d->kind, .offloads = d->offloads, .dev = d};

	netdev_stats_sum(d, &sum);
	strbuf_printf(sb, "\"%s\":{", d->name);
	stat_json_members(sb, device_stats, STAT_TABLE_LEN(device_stats), &o);
	counters_json(sb, &sum);
	strbuf_printf(sb, ",\"queues\":[");
	for (int q = 0; q < d->nqueues; q++) {
		strbuf_printf(sb, "%s", q ? "," : "");
		queue_json(sb, &d->queues[q], q);
	}
	strbuf_printf(sb, "]}");
}

int netdev_stats_json(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	for (int i = 0; i < nnetdevs; i++) {
		strbuf_printf(&sb, "%s", i ? "," : "");
		device_json(&sb, netdevs[i]);
	}
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
