/*
 * selftest=qmempool: a pool over a 256-byte cache, allocated from with
 * both entry points on every CPU at once, freed by the next CPU, then the
 * poll-context fast path; every object must come back. The shape every
 * allocator self-test follows is in mm_common.h.
 */
#include "kernel/selftest/tests.h"
#include "kernel/selftest/mm_common.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdint.h>

#define QMP_N	   256 /* objects per CPU per entry point */
#define QMP_REUSE  2000
#define QMP_OBJ_SZ 256

struct qmp_table {
	void *any[QMP_N];  /* qmempool_alloc */
	void *poll[QMP_N]; /* qmempool_alloc_softirq */
	unsigned long allocs;
};

static struct qmempool *st_pool;

static void qmp_alloc_cpu(void *arg)
{
	int cpu = this_cpu_id();
	struct qmp_table *t = st_tables[cpu];

	(void)arg;
	for (int i = 0; i < QMP_N; i++) {
		t->any[i] = qmempool_alloc(st_pool, GFP_ATOMIC);
		/* the calls run in poll context (boot CPU: interrupts off) */
		t->poll[i] = qmempool_alloc_softirq(st_pool, GFP_ATOMIC);
		if (!t->any[i] || !t->poll[i]) {
			st_err("qmempool: cpu %d: allocation failed", cpu);
			continue;
		}
		t->allocs += 2;
		st_check_node("qmempool", t->any[i], cpu);
		st_check_node("qmempool", t->poll[i], cpu);
		st_stamp(t->any[i], QMP_OBJ_SZ, cpu, i);
		st_stamp(t->poll[i], QMP_OBJ_SZ, cpu, i);
	}
}

static void qmp_free_cpu(void *arg)
{
	int owner = st_next_cpu(this_cpu_id());
	struct qmp_table *t = st_tables[owner];

	(void)arg;
	for (int i = 0; i < QMP_N; i++) {
		if (t->any[i] && !st_stamp_ok(t->any[i], QMP_OBJ_SZ, owner, i))
			st_err("qmempool: object %p of cpu %d overwritten",
			       t->any[i], owner);
		if (t->poll[i] &&
		    !st_stamp_ok(t->poll[i], QMP_OBJ_SZ, owner, i))
			st_err("qmempool: object %p of cpu %d overwritten",
			       t->poll[i], owner);
		qmempool_free(st_pool, t->any[i]);
		qmempool_free_softirq(st_pool, t->poll[i]);
	}
}

static void qmp_reuse_cpu(void *arg)
{
	(void)arg;
	for (int i = 0; i < QMP_REUSE; i++) {
		void *p = qmempool_alloc_softirq(st_pool, GFP_ATOMIC);

		if (!p)
			st_err("qmempool: cpu %d: reuse alloc failed",
			       this_cpu_id());
		qmempool_free_softirq(st_pool, p);
	}
}

static void qmp_run(struct qmempool_stats *st, unsigned long *objs)
{
	smp_call_all(qmp_alloc_cpu, NULL);
	for (int c = 0; c < nr_cpus; c++)
		*objs += ((struct qmp_table *)st_tables[c])->allocs;
	smp_call_all(qmp_free_cpu, NULL);
	smp_call_all(qmp_reuse_cpu, NULL);
	qmempool_get_stats(st_pool, st);
	/* every object given back: none handed out, none failed */
	if (st->outstanding != 0 || st->alloc_fail || st->alloc < *objs)
		st_err("qmempool: alloc=%lu outstanding=%ld alloc_fail=%lu",
		       st->alloc, st->outstanding, st->alloc_fail);
	if (mm_nr_nodes() > 1 && nr_cpus > 1 &&
	    cpu_to_mem(0) != cpu_to_mem(nr_cpus - 1) && !st->remote_free)
		st_err("qmempool: no remote frees counted across nodes");
}

int selftest_qmempool(void)
{
	struct qmempool_stats st = {0};
	struct kmem_cache *cache;
	unsigned long base, after, objs = 0;
	int failed;

	if (st_begin("qmempool", sizeof(struct qmp_table)) < 0)
		return 1;
	base = st_quiesce(NULL);
	cache = kmem_cache_create("selftest-qmp", QMP_OBJ_SZ, 0,
				  SLAB_HWCACHE_ALIGN, NULL);
	/* the fast-path settings of Brouer's RFC benchmark
	 * (docs/references.md): localq 32, sharedq 128, prealloc 16 */
	st_pool =
		cache ? qmempool_create(32, 128, 16, cache, GFP_KERNEL) : NULL;
	if (st_pool) {
		qmp_run(&st, &objs);
		qmempool_destroy(st_pool);
	} else {
		st_err("qmempool: create failed");
	}
	st_pool = NULL;
	if (cache)
		kmem_cache_destroy(cache);
	after = st_quiesce(NULL);
	st_free_tables();
	failed = st_end("qmempool", "objects", objs, base, after);
	if (failed)
		return failed;
	kprintf("selftest: qmempool PASS cpus=%d nodes=%d objects=%lu "
		"localq_hit=%lu sharedq_refill=%lu slab_refill=%lu "
		"remote_free=%lu free=%lu baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs, st.localq_hit, st.sharedq_refill,
		st.slab_refill, st.remote_free, after, base);
	return 0;
}
