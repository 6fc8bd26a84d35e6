/*
 * The registry of network devices: drivers add what they probed, the
 * stack binds a netif to each. Fixed-size, filled at boot, read-only after.
 */
#include "netdev.h"

#include <stdio.h>

#include "drv_port.h"

static struct netdev *netdevs[NETDEV_MAX];
static int nnetdevs;

int netdev_register(struct netdev *dev)
{
	if (nnetdevs == NETDEV_MAX) {
		drv_printf("netdev: more than %d devices, one ignored\n",
			   NETDEV_MAX);
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

/* Appends to buf at *n with snprintf semantics (never past size). */
#define APPEND(...)                                         \
	(n += (size_t)snprintf(buf + (n < size ? n : size), \
			       n < size ? size - n : 0, __VA_ARGS__))

int netdev_stats_json(char *buf, size_t size)
{
	size_t n = 0;

	APPEND("{");
	for (int i = 0; i < nnetdevs; i++) {
		const struct netdev *d = netdevs[i];
		const struct netdev_stats *s = &d->stats;

		APPEND("%s\"%s\":{\"kind\":\"%s\",\"rx_packets\":%llu,"
		       "\"rx_bytes\":%llu,\"rx_dropped\":%llu,"
		       "\"rx_bad_len\":%llu,\"rx_refill_fail\":%llu,"
		       "\"rx_errors\":%llu,\"rx_missed\":%llu,"
		       "\"rx_bufs_posted\":%llu,\"tx_packets\":%llu,"
		       "\"tx_bytes\":%llu,\"tx_busy\":%llu,"
		       "\"tx_completed\":%llu,\"tx_inflight\":%llu,"
		       "\"bad_completions\":%llu,\"link_changes\":%llu}",
		       i ? "," : "", d->name, d->kind,
		       (unsigned long long)s->rx_packets,
		       (unsigned long long)s->rx_bytes,
		       (unsigned long long)s->rx_dropped,
		       (unsigned long long)s->rx_bad_len,
		       (unsigned long long)s->rx_refill_fail,
		       (unsigned long long)s->rx_errors,
		       (unsigned long long)s->rx_missed,
		       (unsigned long long)s->rx_bufs_posted,
		       (unsigned long long)s->tx_packets,
		       (unsigned long long)s->tx_bytes,
		       (unsigned long long)s->tx_busy,
		       (unsigned long long)s->tx_completed,
		       (unsigned long long)s->tx_inflight,
		       (unsigned long long)s->bad_completions,
		       (unsigned long long)s->link_changes);
	}
	APPEND("}");
	return (int)n;
}
