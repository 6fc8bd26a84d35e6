/*
 * The registry of network devices: drivers add what they probed, the
 * stack binds a netif to each. Fixed-size, filled at boot, read-only after.
 */
#include "netdev.h"

#include <stddef.h>
#include <stdio.h>

#include "drv_port.h"
#include "libc/strbuf.h"

static struct netdev *netdevs[NETDEV_MAX];
static int nnetdevs;

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

/* Every counter, by name and place: one table for sums and JSON alike. */
/* clang-format off */
#define FIELD(f) {#f, offsetof(struct netdev_stats, f)}
/* clang-format on */
static const struct {
	const char *name;
	size_t off;
} fields[] = {
	FIELD(rx_packets),	  FIELD(rx_bytes),
	FIELD(rx_dropped),	  FIELD(rx_bad_len),
	FIELD(rx_refills),	  FIELD(rx_refill_fail),
	FIELD(rx_errors),	  FIELD(rx_missed),
	FIELD(rx_bufs_posted),	  FIELD(rx_bad_completions),
	FIELD(tx_packets),	  FIELD(tx_bytes),
	FIELD(tx_busy),		  FIELD(tx_completed),
	FIELD(tx_inflight),	  FIELD(tx_bad_completions),
	FIELD(link_changes),	  FIELD(rx_csum_valid),
	FIELD(rx_csum_partial),	  FIELD(rx_gso_frames),
	FIELD(rx_mrg_chains),	  FIELD(rx_bad_hdr),
	FIELD(tx_csum_offloaded), FIELD(interrupts),
	FIELD(rx_notifies),	  FIELD(rx_notifies_suppressed),
	FIELD(tx_notifies),	  FIELD(tx_notifies_suppressed),
	FIELD(tx_doorbells),	  FIELD(link_interrupts),
	FIELD(tx_gso_frames),	  FIELD(tx_gso_segs),
	FIELD(rx_csum_sw),	  FIELD(rx_csum_sw_bad),
	FIELD(rx_gro_packets),	  FIELD(rx_gro_segs),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(NFIELDS * sizeof(uint64_t) == sizeof(struct netdev_stats),
	       "every counter of struct netdev_stats is in fields[]");

static uint64_t *field(struct netdev_stats *s, size_t i)
{
	return (uint64_t *)((char *)s + fields[i].off);
}

static uint64_t field_of(const struct netdev_stats *s, size_t i)
{
	return *(const uint64_t *)((const char *)s + fields[i].off);
}

/* Adds every queue of dev into out. */
static void stats_add(const struct netdev *dev, struct netdev_stats *out)
{
	for (int q = 0; q < dev->nqueues; q++)
		for (size_t i = 0; i < NFIELDS; i++)
			*field(out, i) += field_of(&dev->queues[q].stats, i);
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

/* The counters of s as JSON members, without braces; bad_completions is
 * the two rings' sum (the name /stats.json has always used). */
static void stats_members(struct strbuf *sb, const struct netdev_stats *s)
{
	for (size_t i = 0; i < NFIELDS; i++)
		strbuf_printf(sb, "\"%s\":%llu,", fields[i].name,
			      (unsigned long long)field_of(s, i));
	strbuf_printf(sb, "\"bad_completions\":%llu",
		      (unsigned long long)(s->rx_bad_completions +
					   s->tx_bad_completions));
}

static void device_json(struct strbuf *sb, const struct netdev *d)
{
	struct netdev_stats sum;

	netdev_stats_sum(d, &sum);
	strbuf_printf(sb, "\"%s\":{\"kind\":\"%s\",\"offloads\":[", d->name,
		      d->kind);
	for (size_t i = 0, sep = 0; i < NOFFLOADS; i++)
		if (d->offloads & offload_names[i].bit)
			strbuf_printf(sb, "%s\"%s\"", sep++ ? "," : "",
				      offload_names[i].name);
	strbuf_printf(sb, "],");
	stats_members(sb, &sum);
	strbuf_printf(sb, ",\"queues\":[");
	for (int q = 0; q < d->nqueues; q++) {
		const struct netdev_queue *dq = &d->queues[q];

		strbuf_printf(sb,
			      "%s{\"queue\":%d,\"cpu\":%d,\"node\":%d,"
			      "\"irq\":\"%s\",\"vector\":%d,",
			      q ? "," : "", q, dq->cpu, dq->node,
			      dq->irq_mode ? dq->irq_mode : "poll",
			      dq->irq_mode ? dq->irq_vector : -1);
		stats_members(sb, &dq->stats);
		strbuf_printf(sb, "}");
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
