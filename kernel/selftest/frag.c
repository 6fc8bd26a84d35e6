/*
 * selftest=frag: napi_alloc_frag (every other one cache-line aligned) and
 * netdev_alloc_frag of mixed sizes on every CPU at once, freed by the next
 * CPU with page_frag_free; the fragment counters must add up. The shape
 * every allocator self-test follows is in mm_common.h.
 */
#include "kernel/selftest/tests.h"
#include "kernel/selftest/mm_common.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdint.h>

#define FRAG_N 512 /* fragments per CPU per cache */

static const unsigned int frag_sizes[] = {64, 256, 1500, 2048, 12, 4096};
#define NR_FRAG_SIZES (sizeof(frag_sizes) / sizeof(frag_sizes[0]))

struct frag_table {
	void *napi[FRAG_N];
	void *netdev[FRAG_N];
	unsigned long allocs;
};

static unsigned int frag_size(int i)
{
	return frag_sizes[i % NR_FRAG_SIZES];
}

/*
 * Fragments come from the node cpu's refill policy names (rx_alloc=,
 * mm/page_frag.h): the CPU's own node for local (the default), the
 * policy's node for node:N and device; any node for interleave.
 */
static void frag_check_node(const void *p, int cpu)
{
	int node, nid;
	enum page_frag_node_policy policy =
		page_frag_percpu_get_policy(cpu, &node);

	if (policy == PAGE_FRAG_NODE_LOCAL) {
		st_check_node("frag", p, cpu);
		return;
	}
	nid = page_to_nid(virt_to_head_page(p));
	if (policy != PAGE_FRAG_NODE_INTERLEAVE && nid != node)
		st_err("frag: cpu %d (rx_alloc=%s, node %d) got %p from node "
		       "%d",
		       cpu, page_frag_policy_name(policy), node, p, nid);
}

static void frag_alloc_cpu(void *arg)
{
	int cpu = this_cpu_id();
	struct frag_table *t = st_tables[cpu];

	(void)arg;
	for (int i = 0; i < FRAG_N; i++) {
		unsigned int size = frag_size(i);
		/* every other napi fragment cache-line aligned */
		void *a = (i & 1) ? napi_alloc_frag_align(size, 64)
				  : napi_alloc_frag(size);
		void *b = netdev_alloc_frag(size);

		t->napi[i] = a;
		t->netdev[i] = b;
		if (!a || !b) {
			st_err("frag: cpu %d: allocation of %u failed", cpu,
			       size);
			continue;
		}
		t->allocs += 2;
		if ((i & 1) && ((uintptr_t)a & 63))
			st_err("frag: aligned fragment %p not aligned", a);
		frag_check_node(a, cpu);
		frag_check_node(b, cpu);
		st_stamp(a, size, cpu, i);
		st_stamp(b, size, cpu, i);
	}
}

static void frag_free_cpu(void *arg)
{
	int owner = st_next_cpu(this_cpu_id());
	struct frag_table *t = st_tables[owner];

	(void)arg;
	for (int i = 0; i < FRAG_N; i++) {
		void *v[2] = {t->napi[i], t->netdev[i]};

		for (int k = 0; k < 2; k++) {
			if (!v[k])
				continue;
			if (!st_stamp_ok(v[k], frag_size(i), owner, i))
				st_err("frag: fragment %p of cpu %d "
				       "overwritten",
				       v[k], owner);
			page_frag_free(v[k]);
		}
	}
}

int selftest_frag(void)
{
	struct page_frag_stats s0, s1;
	unsigned long base, after, objs = 0;
	int failed;

	if (st_begin("frag", sizeof(struct frag_table)) < 0)
		return 1;
	base = st_quiesce(NULL);
	page_frag_stats_read(&s0);
	smp_call_all(frag_alloc_cpu, NULL);
	for (int c = 0; c < nr_cpus; c++)
		objs += ((struct frag_table *)st_tables[c])->allocs;
	smp_call_all(frag_free_cpu, NULL);
	after = st_quiesce(NULL);
	page_frag_stats_read(&s1);
	st_free_tables();
	if (s1.frees - s0.frees != objs || s1.fragments - s0.fragments != objs)
		st_err("frag: counters: fragments +%llu frees +%llu, expected "
		       "%lu",
		       (unsigned long long)(s1.fragments - s0.fragments),
		       (unsigned long long)(s1.frees - s0.frees), objs);
	failed = st_end("frag", "fragments", objs, base, after);
	if (failed)
		return failed;
	kprintf("selftest: frag PASS cpus=%d nodes=%d fragments=%lu "
		"refills=%llu refills_remote=%llu pages_returned=%llu "
		"free=%lu baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs,
		(unsigned long long)(s1.refills_order3 + s1.refills_order0 -
				     s0.refills_order3 - s0.refills_order0),
		(unsigned long long)(s1.refills_remote - s0.refills_remote),
		(unsigned long long)(s1.pages_returned - s0.pages_returned),
		after, base);
	return 0;
}
