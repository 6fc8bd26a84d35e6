/*
 * bench=pages,slab,frag,qmempool,alfq,xcpu (or all): the allocators' fast
 * paths (and the ALF ring under qmempool) timed in the kernel, on the boot
 * CPU, with interrupts off; xcpu (frag_xcpu_bench.c) frees on CPU 1;
 * trace (trace_bench.c) times a trace point, its class off and on.
 *
 * Meant for QEMU with -icount shift=0 (tools/qemu-run --icount, `make
 * bench-kernel`): the virtual clock, and with it the TSC, then advances one
 * tick per guest instruction, so a figure is an instruction count per
 * operation and the same on every run and every host. That is what makes
 * in-guest figures worth having on a shared, noisy machine: they compare
 * our allocators with each other (ratios in the same boot), never with
 * wall-clock figures measured elsewhere. Without -icount the figures are
 * TSC ticks of a TCG guest: meaningless except as ratios.
 *
 * Each case warms up first (one untimed round: magazines, per-CPU lists,
 * fragment blocks filled), then times ROUNDS x BATCH operations and prints
 * one line: "bench: kernel CASE ops=N ticks=T per_op=X.YY". Every
 * allocated object is given back, so the cases leave no memory behind.
 */
#include "kernel/selftest/tests.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "mm/mm.h"
#include <stdbool.h>
#include <stdint.h>

CMDLINE_KEY(kernel, bench, "", cmdline_valid_list,
	    "pages|slab|frag|qmempool|alfq|xcpu|trace|net|all",
	    "in-kernel benchmarks to run");

#define BENCH_OPS 4096 /* operations per timed case */
#define BENCH_N	  256  /* the N(256) pattern: a NIC ring's clean-up */
#define BENCH_B	  16   /* bulk size: qmempool's refill, a NAPI budget/4 */

static void *objs[BENCH_N];
static struct page *pages[BENCH_B];

static void report(const char *name, unsigned long ops, uint64_t ticks)
{
	uint64_t x100 = ticks * 100 / (ops ? ops : 1);

	kprintf("bench: kernel %s ops=%lu ticks=%llu per_op=%llu.%02llu\n",
		name, ops, (unsigned long long)ticks,
		(unsigned long long)(x100 / 100),
		(unsigned long long)(x100 % 100));
}

/* Runs fn twice (warm-up, then timed) and reports the second run. */
static void run(const char *name, unsigned long (*fn)(void *), void *arg)
{
	uint64_t t0;
	unsigned long ops;

	fn(arg);
	t0 = rdtsc();
	ops = fn(arg);
	report(name, ops, rdtsc() - t0);
}

/* ---- pages ---- */

static unsigned long page_reuse(void *arg)
{
	unsigned int order = (unsigned int)(uintptr_t)arg;

	for (int i = 0; i < BENCH_OPS; i++) {
		struct page *p = alloc_pages(GFP_KERNEL, order);

		if (!p)
			return (unsigned long)i;
		__free_pages(p, order);
	}
	return BENCH_OPS;
}

static unsigned long page_bulk(void *arg)
{
	unsigned long ops = 0;

	(void)arg;
	for (int i = 0; i < BENCH_OPS / BENCH_B; i++) {
		unsigned int n = alloc_pages_bulk(GFP_KERNEL, BENCH_B, pages);

		for (unsigned int k = 0; k < n; k++)
			__free_pages(pages[k], 0);
		ops += n;
	}
	return ops;
}

static void bench_pages(void)
{
	run("page_order0_pcp", page_reuse, (void *)0);
	run("page_order3_pcp", page_reuse, (void *)3);
	run("page_bulk16_pcp", page_bulk, NULL);
	pcp_set_enabled(false);
	run("page_order0_buddy", page_reuse, (void *)0);
	run("page_order3_buddy", page_reuse, (void *)3);
	run("page_bulk16_buddy", page_bulk, NULL);
	pcp_set_enabled(true);
}

/* ---- slab and kmalloc ---- */

static unsigned long slab_reuse(void *arg)
{
	struct kmem_cache *s = arg;

	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = kmem_cache_alloc(s, GFP_KERNEL);

		if (!p)
			return (unsigned long)i;
		kmem_cache_free(s, p);
	}
	return BENCH_OPS;
}

static unsigned long slab_n256(void *arg)
{
	struct kmem_cache *s = arg;

	for (int r = 0; r < BENCH_OPS / BENCH_N; r++) {
		for (int i = 0; i < BENCH_N; i++)
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int i = 0; i < BENCH_N; i++)
			kmem_cache_free(s, objs[i]);
	}
	return BENCH_OPS;
}

static unsigned long slab_bulk(void *arg)
{
	struct kmem_cache *s = arg;
	unsigned long ops = 0;

	for (int r = 0; r < BENCH_OPS / BENCH_B; r++) {
		if (kmem_cache_alloc_bulk(s, GFP_KERNEL, BENCH_B, objs) !=
		    BENCH_B)
			break;
		kmem_cache_free_bulk(s, BENCH_B, objs);
		ops += BENCH_B;
	}
	return ops;
}

static unsigned long kmalloc_reuse(void *arg)
{
	(void)arg;
	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = kmalloc(256, GFP_KERNEL);

		if (!p)
			return (unsigned long)i;
		kfree(p);
	}
	return BENCH_OPS;
}

/* The same with the size known only at run time (read through a
 * volatile), so kmalloc cannot fold the class at compile time. */
static unsigned long kmalloc_var_reuse(void *arg)
{
	size_t size = *(volatile size_t *)arg;

	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = kmalloc(size, GFP_KERNEL);

		if (!p)
			return (unsigned long)i;
		kfree(p);
	}
	return BENCH_OPS;
}

static void bench_slab(void)
{
	static size_t var_size = 256;
	struct kmem_cache *s = kmem_cache_create("bench-256", 256, 0, 0, NULL);

	if (!s) {
		kprintf("bench: kernel slab: no cache\n");
		return;
	}
	run("slab_reuse", slab_reuse, s);
	run("slab_n256", slab_n256, s);
	run("slab_bulk16", slab_bulk, s);
	run("kmalloc256_reuse", kmalloc_reuse, NULL);
	run("kmalloc256_var_reuse", kmalloc_var_reuse, &var_size);
	kmem_cache_destroy(s);
}

/* ---- qmempool ---- */

static unsigned long qmp_reuse(void *arg)
{
	struct qmempool *pool = arg;

	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = qmempool_alloc_softirq(pool, GFP_ATOMIC);

		if (!p)
			return (unsigned long)i;
		qmempool_free_softirq(pool, p);
	}
	return BENCH_OPS;
}

static unsigned long qmp_reuse_any(void *arg)
{
	struct qmempool *pool = arg;

	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = qmempool_alloc(pool, GFP_ATOMIC);

		if (!p)
			return (unsigned long)i;
		qmempool_free(pool, p);
	}
	return BENCH_OPS;
}

static unsigned long qmp_n256(void *arg)
{
	struct qmempool *pool = arg;

	for (int r = 0; r < BENCH_OPS / BENCH_N; r++) {
		for (int i = 0; i < BENCH_N; i++)
			objs[i] = qmempool_alloc_softirq(pool, GFP_ATOMIC);
		for (int i = 0; i < BENCH_N; i++)
			qmempool_free_softirq(pool, objs[i]);
	}
	return BENCH_OPS;
}

static void bench_qmempool(void)
{
	struct kmem_cache *s = kmem_cache_create("bench-qmp", 256, 0, 0, NULL);
	/* the settings of Brouer's RFC benchmark (docs/references.md):
	 * (32, 128, 16) for reuse, (32, 256, 0) for N(256) */
	struct qmempool *a =
		s ? qmempool_create(32, 128, 16, s, GFP_KERNEL) : NULL;
	struct qmempool *b =
		s ? qmempool_create(32, 256, 0, s, GFP_KERNEL) : NULL;

	if (a && b) {
		run("qmempool_reuse", qmp_reuse, a);
		run("qmempool_reuse_guarded", qmp_reuse_any, a);
		run("qmempool_n256", qmp_n256, b);
	} else {
		kprintf("bench: kernel qmempool: no pool\n");
	}
	qmempool_destroy(a);
	qmempool_destroy(b);
	if (s)
		kmem_cache_destroy(s);
}

/* ---- page_frag ---- */

static unsigned long frag_napi(void *arg)
{
	(void)arg;
	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = napi_alloc_frag(256);

		if (!p)
			return (unsigned long)i;
		page_frag_free(p);
	}
	return BENCH_OPS;
}

static unsigned long frag_netdev(void *arg)
{
	(void)arg;
	for (int i = 0; i < BENCH_OPS; i++) {
		void *p = netdev_alloc_frag(256);

		if (!p)
			return (unsigned long)i;
		page_frag_free(p);
	}
	return BENCH_OPS;
}

/* N(256) with fragments: a ring's worth allocated, then freed. */
static unsigned long frag_n256(void *arg)
{
	(void)arg;
	for (int r = 0; r < BENCH_OPS / BENCH_N; r++) {
		for (int i = 0; i < BENCH_N; i++)
			objs[i] = napi_alloc_frag(256);
		for (int i = 0; i < BENCH_N; i++)
			page_frag_free(objs[i]);
	}
	return BENCH_OPS;
}

static void bench_frag(void)
{
	run("frag_napi_reuse", frag_napi, NULL);
	run("frag_netdev_reuse", frag_netdev, NULL);
	run("frag_napi_n256", frag_n256, NULL);
	page_frag_percpu_drain(this_cpu_id());
}

/* ---- ALF queue (the ring under qmempool) ---- */

struct alfq_case {
	struct alf_queue *q;
	bool sp; /* single producer/consumer calls, else multi */
	unsigned int bulk;
};

/* Per element: one enqueue and one dequeue of @bulk pointers at a time. */
static unsigned long alfq_run(void *arg)
{
	struct alfq_case *c = arg;
	unsigned long ops = 0;

	for (int r = 0; r < BENCH_OPS / (int)c->bulk; r++) {
		unsigned int in, out;

		if (c->sp) {
			in = alf_sp_enqueue(c->q, objs, c->bulk);
			out = alf_sc_dequeue(c->q, objs, c->bulk);
		} else {
			in = alf_mp_enqueue(c->q, objs, c->bulk);
			out = alf_mc_dequeue(c->q, objs, c->bulk);
		}
		if (in != c->bulk || out != c->bulk)
			break;
		ops += c->bulk;
	}
	return ops;
}

static void bench_alfq(void)
{
	static const char *const names[2][2] = {
		{"alfq_mpmc_single", "alfq_mpmc_bulk16"},
		{"alfq_spsc_single", "alfq_spsc_bulk16"},
	};

	for (int i = 0; i < BENCH_B; i++)
		objs[i] = &objs[i]; /* any non-NULL pointers */
	for (int sp = 0; sp < 2; sp++) {
		struct alfq_case c = {
			.q = alf_queue_alloc_node(
				512, sp ? ALF_SP_ENQ | ALF_SC_DEQ : 0,
				GFP_KERNEL, -1),
			.sp = sp,
		};

		if (!c.q) {
			kprintf("bench: kernel alfq: no queue\n");
			return;
		}
		c.bulk = 1;
		run(names[sp][0], alfq_run, &c);
		c.bulk = BENCH_B;
		run(names[sp][1], alfq_run, &c);
		alf_queue_free(c.q);
	}
}

void mm_bench_run(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} areas[] = {
		{"pages", bench_pages},	      {"slab", bench_slab},
		{"qmempool", bench_qmempool}, {"frag", bench_frag},
		{"alfq", bench_alfq},	      {"xcpu", bench_frag_xcpu},
		{"trace", bench_trace},
	};
	unsigned long flags;
	bool all = cmdline_has("bench", "all");

	if (!mm_is_ready())
		return;
	flags = irq_save();
	for (unsigned int i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (all || cmdline_has("bench", areas[i].name))
			areas[i].fn();
	irq_restore(flags);
}
