/*
 * The address instance 0 publishes (see net_addr_pub.h): a sequence
 * count per device, odd while the writer is in the middle; a reader that
 * finds it odd, or changed after it read the fields, tries again at its
 * next round.
 */
#include "net_addr_pub.h"

#include <stdatomic.h>

#include "drivers/netdev.h"
#include "lwip/netif.h"
#include "net_percpu.h"

static struct {
	_Atomic uint32_t seq;
	_Atomic uint32_t ip, mask, gw;
} published[NETDEV_MAX];

/* The sequence count each instance last applied, by device. */
static NET_PERCPU uint32_t applied[NETDEV_MAX];

void net_addr_publish(int dev_index, uint32_t ip, uint32_t mask, uint32_t gw)
{
	uint32_t seq;

	if (dev_index < 0 || dev_index >= NETDEV_MAX)
		return;
	seq = atomic_load_explicit(&published[dev_index].seq,
				   memory_order_relaxed);
	atomic_store_explicit(&published[dev_index].seq, seq + 1,
			      memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&published[dev_index].ip, ip,
			      memory_order_relaxed);
	atomic_store_explicit(&published[dev_index].mask, mask,
			      memory_order_relaxed);
	atomic_store_explicit(&published[dev_index].gw, gw,
			      memory_order_relaxed);
	atomic_store_explicit(&published[dev_index].seq, seq + 2,
			      memory_order_release);
}

void net_addr_sync(struct netif *nif, int dev_index)
{
	uint32_t seq, ip, mask, gw;
	ip4_addr_t a, m, g;

	if (dev_index < 0 || dev_index >= NETDEV_MAX)
		return;
	seq = atomic_load_explicit(&published[dev_index].seq,
				   memory_order_acquire);
	if (seq == applied[dev_index] || (seq & 1))
		return;
	ip = atomic_load_explicit(&published[dev_index].ip,
				  memory_order_relaxed);
	mask = atomic_load_explicit(&published[dev_index].mask,
				    memory_order_relaxed);
	gw = atomic_load_explicit(&published[dev_index].gw,
				  memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&published[dev_index].seq,
				 memory_order_relaxed) != seq)
		return;
	applied[dev_index] = seq;
	ip4_addr_set_u32(&a, ip);
	ip4_addr_set_u32(&m, mask);
	ip4_addr_set_u32(&g, gw);
	netif_set_addr(nif, &a, &m, &g);
}
