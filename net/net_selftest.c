/*
 * selftest=net: the counters that show where packets and their memory
 * went, printed as part of the boot self-test report, after a short check
 * that needs no traffic. Registered by apps_boot (kernel/ may not call into
 * net/); the shell's `selftest net` prints the same report after traffic.
 *
 * The report: one line per NIC queue (its CPU and node, packets, bytes,
 * drops, refills), numastat per node (Linux's meanings), remote frees per
 * allocator (page_frag, our qmempools, slab, and native RX pbufs freed on
 * another CPU than the one that received them), and the lwIP core lock's
 * acquisitions, contention and unlocked calls.
 *
 * The check: every queue is owned by a CPU that exists, no CPU owns two
 * queues of one device, each node's numastat adds up (numa_hit + numa_miss
 * and local_node + other_node both count the pages allocated on the node,
 * so they are equal; the sum of numa_miss over nodes equals the sum of
 * numa_foreign), and lwIP was never entered without the core lock. Other
 * CPUs may allocate while the counters are read, so numastat is read until
 * two reads agree.
 */
#include <stdio.h>
#include <string.h>

#include "drivers/netdev.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/selftest/selftest.h"
#include "mm/mm.h"
#include "mm/zone.h"
#include "core_lock.h"
#include "net_mem.h"
#include "net_selftest.h"

#define NUMASTAT_TRIES 16

static int report_queues(const struct netdev *d)
{
	int failed = 0;

	for (int q = 0; q < d->nqueues; q++) {
		const struct netdev_queue *nq = &d->queues[q];
		const struct netdev_stats *s = &nq->stats;

		kprintf("selftest: net queue %s.%d cpu=%d node=%d "
			"rx_packets=%llu rx_bytes=%llu tx_packets=%llu "
			"tx_bytes=%llu rx_dropped=%llu tx_busy=%llu "
			"refills=%llu refill_fail=%llu posted=%llu\n",
			d->name, q, nq->cpu, nq->node,
			(unsigned long long)s->rx_packets,
			(unsigned long long)s->rx_bytes,
			(unsigned long long)s->tx_packets,
			(unsigned long long)s->tx_bytes,
			(unsigned long long)s->rx_dropped,
			(unsigned long long)s->tx_busy,
			(unsigned long long)s->rx_refills,
			(unsigned long long)s->rx_refill_fail,
			(unsigned long long)s->rx_bufs_posted);
		if (nq->cpu < 0 || nq->cpu >= nr_cpus) {
			kprintf("selftest: net FAIL %s.%d on cpu %d of %d\n",
				d->name, q, nq->cpu, nr_cpus);
			failed++;
		}
		for (int p = 0; p < q; p++)
			if (d->queues[p].cpu == nq->cpu) {
				kprintf("selftest: net FAIL %s.%d and .%d both "
					"on cpu %d\n",
					d->name, p, q, nq->cpu);
				failed++;
			}
	}
	return failed;
}

static void numastat_read(unsigned long v[][NR_NUMA_STATS], int nodes)
{
	for (int n = 0; n < nodes; n++)
		for (int i = 0; i < NR_NUMA_STATS; i++)
			v[n][i] = numa_stat_read(n, (enum numa_stat)i);
}

/* Reads until two reads agree (other CPUs may be allocating). */
static int report_numastat(void)
{
	static unsigned long a[MM_MAX_NODES][NR_NUMA_STATS];
	static unsigned long b[MM_MAX_NODES][NR_NUMA_STATS];
	unsigned long miss = 0, foreign = 0;
	int nodes = mm_nr_zones, tries = 0, failed = 0;

	numastat_read(a, nodes);
	do {
		numastat_read(b, nodes);
		if (memcmp(a, b, sizeof(a)) == 0)
			break;
		numastat_read(a, nodes);
	} while (++tries < NUMASTAT_TRIES);
	for (int n = 0; n < nodes; n++) {
		const unsigned long *v = a[n];

		kprintf("selftest: net numastat node=%d numa_hit=%lu "
			"numa_miss=%lu numa_foreign=%lu local_node=%lu "
			"other_node=%lu\n",
			n, v[NUMA_HIT], v[NUMA_MISS], v[NUMA_FOREIGN],
			v[NUMA_LOCAL], v[NUMA_OTHER]);
		miss += v[NUMA_MISS];
		foreign += v[NUMA_FOREIGN];
		if (tries < NUMASTAT_TRIES &&
		    v[NUMA_HIT] + v[NUMA_MISS] !=
			    v[NUMA_LOCAL] + v[NUMA_OTHER]) {
			kprintf("selftest: net FAIL node %d: hit+miss %lu != "
				"local+other %lu\n",
				n, v[NUMA_HIT] + v[NUMA_MISS],
				v[NUMA_LOCAL] + v[NUMA_OTHER]);
			failed++;
		}
	}
	if (tries < NUMASTAT_TRIES && miss != foreign) {
		kprintf("selftest: net FAIL numa_miss %lu != numa_foreign "
			"%lu\n",
			miss, foreign);
		failed++;
	}
	return failed;
}

static int report_locks_and_frees(void)
{
	struct net_core_lock_totals lock;
	struct page_frag_stats frag;

	page_frag_stats_read(&frag);
	kprintf("selftest: net remote_frees page_frag=%llu qmempool=%lu "
		"slab=%lu rx_other_cpu=%llu\n",
		(unsigned long long)frag.remote_frees,
		net_mem_qmempool_remote_frees(), slab_remote_frees(),
		(unsigned long long)net_mem_stats.rx_frees_other_cpu);
	net_core_lock_totals(&lock);
	kprintf("selftest: net core_lock acquired=%llu busy=%llu waits=%llu "
		"cpus=%d unlocked_calls=%llu\n",
		(unsigned long long)lock.acquired,
		(unsigned long long)lock.busy, (unsigned long long)lock.waits,
		lock.cpus_acquired, (unsigned long long)lock.unlocked_calls);
	if (lock.unlocked_calls) {
		kprintf("selftest: net FAIL lwIP entered %llu times without "
			"the core lock\n",
			(unsigned long long)lock.unlocked_calls);
		return 1;
	}
	return 0;
}

static int selftest_net(void)
{
	int failed = 0, queues = 0;

	for (int i = 0; i < netdev_count(); i++) {
		failed += report_queues(netdev_get(i));
		queues += netdev_get(i)->nqueues;
	}
	failed += report_numastat();
	failed += report_locks_and_frees();
	kprintf("selftest: net %s nics=%d queues=%d nodes=%d cpus=%d\n",
		failed ? "FAIL" : "PASS", netdev_count(), queues, mm_nr_zones,
		nr_cpus);
	return failed;
}

void net_selftest_register(void)
{
	if (selftest_register("net", selftest_net, true) != 0)
		kprintf("net: no self-test slot left for 'net'\n");
}
