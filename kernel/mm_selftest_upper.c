/*
 * Boot self-tests of the allocators above the page allocator, on real
 * CPUs: selftest=slab, selftest=frag, selftest=qmempool.
 *
 * Each test has the same shape, which is what makes "every page came back"
 * checkable on a machine that also uses these allocators for itself:
 *
 *   1. quiesce: every CPU empties its own per-CPU caches (slab magazines,
 *      fragment caches) from its poll loop, then drain_all_pages();
 *      baseline = nr_free_pages().
 *   2. every CPU allocates at the same time (smp_call_async), stamps each
 *      object with its CPU and index, and checks size, alignment and node;
 *   3. every CPU checks and frees the objects of the next CPU (cross-CPU
 *      and, with two nodes, cross-node frees);
 *   4. quiesce again; nr_free_pages() must equal the baseline.
 *
 * The bookkeeping itself (the per-CPU pointer tables) is kmalloc'd on the
 * CPU's node before the baseline and freed after the comparison, so the
 * tests use kmalloc as the rest of the kernel does.
 */
#include "kernel/console.h"
#include "kernel/mm_boot.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/selftest.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* ---- shared helpers ---- */

static atomic_int errors;

/* Reports the first few problems; all are counted. */
#define st_err(fmt, ...)                                               \
	do {                                                           \
		if (atomic_fetch_add(&errors, 1) < 8)                  \
			kprintf("selftest: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

/* Runs fn(arg) on every CPU at the same time and waits for all. */
static void on_all_cpus(void (*fn)(void *), void *arg)
{
	for (int c = 1; c < nr_cpus; c++)
		smp_call_async(c, fn, arg);
	fn(arg);
	for (int c = 1; c < nr_cpus; c++)
		smp_call_wait(c);
}

static uint64_t stamp_of(int cpu, int i)
{
	return 0x5e1f7e5700000000ULL | ((uint64_t)cpu << 20) | (unsigned)i;
}

/* Stamps the first and last 8 bytes (or the only bytes) of an object. */
static void stamp(void *p, size_t size, int cpu, int i)
{
	uint64_t v = stamp_of(cpu, i);

	memcpy(p, &v, size < 8 ? size : 8);
	if (size >= 16)
		memcpy((char *)p + size - 8, &v, 8);
}

static int stamp_ok(const void *p, size_t size, int cpu, int i)
{
	uint64_t v = stamp_of(cpu, i), a = 0, b = 0;

	memcpy(&a, p, size < 8 ? size : 8);
	if (size < 8)
		return !memcmp(&a, &v, size);
	if (size >= 16)
		memcpy(&b, (const char *)p + size - 8, 8);
	return a == v && (size < 16 || b == v);
}

/* Every kmalloc cache (one object of each class tells its cache). */
static const size_t class_sizes[] = {8,	  16,  32,   64,   96,	 128, 192,
				     256, 512, 1024, 2048, 4096, 8192};
#define NR_CLASSES (sizeof(class_sizes) / sizeof(class_sizes[0]))
static struct kmem_cache *kmalloc_cache[NR_CLASSES];

static int find_kmalloc_caches(void)
{
	for (unsigned int c = 0; c < NR_CLASSES; c++) {
		void *p = kmalloc(class_sizes[c], GFP_KERNEL);

		if (!p)
			return -1;
		kmalloc_cache[c] = virt_to_head_page(p)->slab_cache;
		kfree(p);
	}
	return 0;
}

/* On each CPU: its magazines of the kmalloc caches, its fragment caches. */
static void quiesce_cpu(void *arg)
{
	struct kmem_cache *extra = arg;

	for (unsigned int c = 0; c < NR_CLASSES; c++)
		kmem_cache_shrink(kmalloc_cache[c]);
	if (extra)
		kmem_cache_shrink(extra);
	page_frag_percpu_drain(this_cpu_id());
}

static unsigned long quiesce(struct kmem_cache *extra)
{
	on_all_cpus(quiesce_cpu, extra);
	drain_all_pages();
	return nr_free_pages();
}

/* One table per CPU, kmalloc'd on that CPU's node. */
static void *tables[MAX_CPUS];

static int alloc_tables(size_t size)
{
	for (int c = 0; c < nr_cpus; c++) {
		tables[c] = kmalloc_node(size, GFP_KERNEL | __GFP_ZERO,
					 cpus[c].node);
		if (!tables[c])
			return -1;
	}
	return 0;
}

static void free_tables(void)
{
	for (int c = 0; c < nr_cpus; c++) {
		kfree(tables[c]);
		tables[c] = NULL;
	}
}

static int next_cpu(int cpu)
{
	return (cpu + 1) % nr_cpus;
}

/* Object on the node of the CPU that allocated it? */
static void check_node(const char *test, const void *p, int cpu)
{
	int nid = page_to_nid(virt_to_head_page(p));

	if (nid != cpus[cpu].node)
		st_err("%s: cpu %d (node %d) got %p from node %d", test, cpu,
		       cpus[cpu].node, p, nid);
}

/* ---- selftest=slab ---- */

#define SLAB_PER_CLASS 32  /* kmalloc objects per class per CPU */
#define SLAB_SINGLES   256 /* kmem_cache_alloc per CPU */
#define SLAB_BULK_A    16  /* one bulk: the qmempool refill size */
#define SLAB_BULK_B    300 /* more than a magazine and a slab */
#define SLAB_REUSE     2000
#define SLAB_OBJ_SIZE  256

/* Sizes past the classes: compound blocks from the page allocator. */
static const size_t big_sizes[] = {8193, 16384, 65536};
#define NR_BIG (sizeof(big_sizes) / sizeof(big_sizes[0]))

struct slab_table {
	void *kmalloc[NR_CLASSES][SLAB_PER_CLASS];
	void *big[NR_BIG];
	void *single[SLAB_SINGLES];
	void *bulk_a[SLAB_BULK_A];
	void *bulk_b[SLAB_BULK_B];
	void *node[MAX_NODES];
	unsigned long allocs;
};

static struct kmem_cache *st_cache;

/* Natural alignment of a kmalloc class: its largest power-of-two divisor. */
static size_t class_align(size_t size)
{
	size_t a = size & -size;

	return a > MM_PAGE_SIZE ? MM_PAGE_SIZE : a;
}

static void slab_alloc_kmalloc(struct slab_table *t, int cpu)
{
	for (unsigned int c = 0; c < NR_CLASSES; c++) {
		for (int i = 0; i < SLAB_PER_CLASS; i++) {
			/* odd sizes too: the class is the next one up */
			size_t size = (i & 1) ? class_sizes[c]
				      : c     ? class_sizes[c - 1] + 1
					      : 1;
			void *p = kmalloc(size, GFP_KERNEL);

			t->kmalloc[c][i] = p;
			if (!p) {
				st_err("slab: cpu %d: kmalloc(%zu) failed", cpu,
				       size);
				continue;
			}
			t->allocs++;
			if ((uintptr_t)p & (class_align(class_sizes[c]) - 1))
				st_err("slab: kmalloc(%zu) = %p misaligned",
				       size, p);
			if (ksize(p) != class_sizes[c])
				st_err("slab: ksize(kmalloc(%zu)) = %zu", size,
				       ksize(p));
			check_node("slab", p, cpu);
			stamp(p, class_sizes[c], cpu, i);
		}
	}
	for (unsigned int b = 0; b < NR_BIG; b++) {
		void *p = kmalloc(big_sizes[b], GFP_KERNEL);

		t->big[b] = p;
		if (!p || ((uintptr_t)p & (MM_PAGE_SIZE - 1))) {
			st_err("slab: kmalloc(%zu) = %p", big_sizes[b], p);
			continue;
		}
		t->allocs++;
		stamp(p, big_sizes[b], cpu, (int)b);
	}
}

static void slab_alloc_cache(struct slab_table *t, int cpu)
{
	for (int i = 0; i < SLAB_SINGLES; i++) {
		t->single[i] = kmem_cache_alloc(st_cache, GFP_KERNEL);
		if (t->single[i]) {
			t->allocs++;
			check_node("slab", t->single[i], cpu);
			stamp(t->single[i], SLAB_OBJ_SIZE, cpu, i);
		} else {
			st_err("slab: cpu %d: kmem_cache_alloc failed", cpu);
		}
	}
	if (kmem_cache_alloc_bulk(st_cache, GFP_KERNEL, SLAB_BULK_A,
				  t->bulk_a) != SLAB_BULK_A ||
	    kmem_cache_alloc_bulk(st_cache, GFP_KERNEL, SLAB_BULK_B,
				  t->bulk_b) != SLAB_BULK_B) {
		st_err("slab: cpu %d: bulk alloc failed", cpu);
		return; /* a failed bulk holds nothing; the table is zeroed */
	}
	t->allocs += SLAB_BULK_A + SLAB_BULK_B;
	for (int i = 0; i < SLAB_BULK_A; i++)
		stamp(t->bulk_a[i], SLAB_OBJ_SIZE, cpu, i);
	for (int i = 0; i < SLAB_BULK_B; i++) {
		check_node("slab", t->bulk_b[i], cpu);
		stamp(t->bulk_b[i], SLAB_OBJ_SIZE, cpu, i);
	}
	/* one object from every node, which must be that node's */
	for (int n = 0; n < mm_nr_nodes(); n++) {
		void *p = kmem_cache_alloc_node(st_cache, GFP_KERNEL, n);

		t->node[n] = p;
		if (!p) {
			st_err("slab: alloc_node(%d) failed", n);
			continue;
		}
		t->allocs++;
		if (page_to_nid(virt_to_head_page(p)) != n)
			st_err("slab: alloc_node(%d) gave node %d", n,
			       page_to_nid(virt_to_head_page(p)));
	}
}

static void slab_alloc_cpu(void *arg)
{
	int cpu = this_cpu_id();
	struct slab_table *t = tables[cpu];

	(void)arg;
	slab_alloc_kmalloc(t, cpu);
	slab_alloc_cache(t, cpu);
}

static void check_free_kmalloc(struct slab_table *t, int owner)
{
	for (unsigned int c = 0; c < NR_CLASSES; c++)
		for (int i = 0; i < SLAB_PER_CLASS; i++) {
			void *p = t->kmalloc[c][i];

			if (p && !stamp_ok(p, class_sizes[c], owner, i))
				st_err("slab: kmalloc-%zu object %p of cpu %d "
				       "overwritten",
				       class_sizes[c], p, owner);
			kfree(p);
			t->kmalloc[c][i] = NULL;
		}
	for (unsigned int b = 0; b < NR_BIG; b++) {
		if (t->big[b] &&
		    !stamp_ok(t->big[b], big_sizes[b], owner, (int)b))
			st_err("slab: big block %p of cpu %d overwritten",
			       t->big[b], owner);
		kfree(t->big[b]);
		t->big[b] = NULL;
	}
}

static void check_objs(void **objs, int n, int owner)
{
	for (int i = 0; i < n; i++)
		if (objs[i] && !stamp_ok(objs[i], SLAB_OBJ_SIZE, owner, i))
			st_err("slab: object %p of cpu %d overwritten", objs[i],
			       owner);
}

/* Frees the next CPU's objects: singles one by one, bulks as bulks. */
static void slab_free_cpu(void *arg)
{
	int owner = next_cpu(this_cpu_id());
	struct slab_table *t = tables[owner];

	(void)arg;
	check_free_kmalloc(t, owner);
	check_objs(t->single, SLAB_SINGLES, owner);
	for (int i = 0; i < SLAB_SINGLES; i++)
		kmem_cache_free(st_cache, t->single[i]);
	if (t->bulk_a[0]) {
		check_objs(t->bulk_a, SLAB_BULK_A, owner);
		check_objs(t->bulk_b, SLAB_BULK_B, owner);
		kmem_cache_free_bulk(st_cache, SLAB_BULK_A, t->bulk_a);
		kmem_cache_free_bulk(st_cache, SLAB_BULK_B, t->bulk_b);
	}
	for (int n = 0; n < MAX_NODES; n++)
		kmem_cache_free(st_cache, t->node[n]);
}

/* The fast path on every CPU: alloc one, free it, of each kind. */
static void slab_reuse_cpu(void *arg)
{
	(void)arg;
	for (int i = 0; i < SLAB_REUSE; i++) {
		void *a = kmem_cache_alloc(st_cache, GFP_KERNEL);
		void *b = kmalloc(class_sizes[i % NR_CLASSES], GFP_KERNEL);

		if (!a || !b)
			st_err("slab: cpu %d: reuse alloc failed",
			       this_cpu_id());
		kmem_cache_free(st_cache, a);
		kfree(b);
	}
}

static unsigned long tables_allocs(void)
{
	unsigned long n = 0;

	for (int c = 0; c < nr_cpus; c++)
		n += ((struct slab_table *)tables[c])->allocs;
	return n;
}

void selftest_slab(void)
{
	struct slab_debug_counts d0, d1;
	unsigned long base, after, objs = 0;

	atomic_store(&errors, 0);
	if (!mm_is_ready() || find_kmalloc_caches() < 0 ||
	    alloc_tables(sizeof(struct slab_table)) < 0) {
		kprintf("selftest: slab FAIL (no allocator or no memory)\n");
		free_tables();
		selftest_failed();
		return;
	}
	slab_debug_counts(&d0);
	base = quiesce(NULL);
	st_cache = kmem_cache_create("selftest-256", SLAB_OBJ_SIZE, 0,
				     SLAB_HWCACHE_ALIGN, NULL);
	if (st_cache) {
		on_all_cpus(slab_alloc_cpu, NULL);
		objs = tables_allocs();
		on_all_cpus(slab_free_cpu, NULL);
		on_all_cpus(slab_reuse_cpu, NULL);
		kmem_cache_destroy(st_cache);
	} else {
		st_err("slab: kmem_cache_create failed");
	}
	after = quiesce(NULL);
	slab_debug_counts(&d1);
	free_tables();
	if (d1.destroy_busy != d0.destroy_busy ||
	    d1.double_free != d0.double_free ||
	    d1.invalid_free != d0.invalid_free || d1.redzone != d0.redzone ||
	    d1.poison != d0.poison)
		st_err("slab: debug detections during the test");
	if (after != base || atomic_load(&errors) || objs == 0) {
		kprintf("selftest: slab FAIL cpus=%d objects=%lu free=%lu "
			"baseline=%lu errors=%d\n",
			nr_cpus, objs, after, base, atomic_load(&errors));
		selftest_failed();
		return;
	}
	kprintf("selftest: slab PASS cpus=%d nodes=%d objects=%lu free=%lu "
		"baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs, after, base);
}

/* ---- selftest=frag ---- */

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

static void frag_alloc_cpu(void *arg)
{
	int cpu = this_cpu_id();
	struct frag_table *t = tables[cpu];

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
		check_node("frag", a, cpu);
		check_node("frag", b, cpu);
		stamp(a, size, cpu, i);
		stamp(b, size, cpu, i);
	}
}

static void frag_free_cpu(void *arg)
{
	int owner = next_cpu(this_cpu_id());
	struct frag_table *t = tables[owner];

	(void)arg;
	for (int i = 0; i < FRAG_N; i++) {
		void *v[2] = {t->napi[i], t->netdev[i]};

		for (int k = 0; k < 2; k++) {
			if (!v[k])
				continue;
			if (!stamp_ok(v[k], frag_size(i), owner, i))
				st_err("frag: fragment %p of cpu %d "
				       "overwritten",
				       v[k], owner);
			page_frag_free(v[k]);
		}
	}
}

void selftest_frag(void)
{
	struct page_frag_stats s0, s1;
	unsigned long base, after, objs = 0;

	atomic_store(&errors, 0);
	if (!mm_is_ready() || find_kmalloc_caches() < 0 ||
	    alloc_tables(sizeof(struct frag_table)) < 0) {
		kprintf("selftest: frag FAIL (no allocator or no memory)\n");
		free_tables();
		selftest_failed();
		return;
	}
	base = quiesce(NULL);
	page_frag_stats_read(&s0);
	on_all_cpus(frag_alloc_cpu, NULL);
	for (int c = 0; c < nr_cpus; c++)
		objs += ((struct frag_table *)tables[c])->allocs;
	on_all_cpus(frag_free_cpu, NULL);
	after = quiesce(NULL);
	page_frag_stats_read(&s1);
	free_tables();
	if (s1.frees - s0.frees != objs || s1.fragments - s0.fragments != objs)
		st_err("frag: counters: fragments +%llu frees +%llu, expected "
		       "%lu",
		       (unsigned long long)(s1.fragments - s0.fragments),
		       (unsigned long long)(s1.frees - s0.frees), objs);
	if (after != base || atomic_load(&errors) || objs == 0) {
		kprintf("selftest: frag FAIL cpus=%d fragments=%lu free=%lu "
			"baseline=%lu errors=%d\n",
			nr_cpus, objs, after, base, atomic_load(&errors));
		selftest_failed();
		return;
	}
	kprintf("selftest: frag PASS cpus=%d nodes=%d fragments=%lu "
		"refills=%llu pages_returned=%llu free=%lu baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs,
		(unsigned long long)(s1.refills_order3 + s1.refills_order0 -
				     s0.refills_order3 - s0.refills_order0),
		(unsigned long long)(s1.pages_returned - s0.pages_returned),
		after, base);
}

/* ---- selftest=qmempool ---- */

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
	struct qmp_table *t = tables[cpu];

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
		check_node("qmempool", t->any[i], cpu);
		check_node("qmempool", t->poll[i], cpu);
		stamp(t->any[i], QMP_OBJ_SZ, cpu, i);
		stamp(t->poll[i], QMP_OBJ_SZ, cpu, i);
	}
}

static void qmp_free_cpu(void *arg)
{
	int owner = next_cpu(this_cpu_id());
	struct qmp_table *t = tables[owner];

	(void)arg;
	for (int i = 0; i < QMP_N; i++) {
		if (t->any[i] && !stamp_ok(t->any[i], QMP_OBJ_SZ, owner, i))
			st_err("qmempool: object %p of cpu %d overwritten",
			       t->any[i], owner);
		if (t->poll[i] && !stamp_ok(t->poll[i], QMP_OBJ_SZ, owner, i))
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
	on_all_cpus(qmp_alloc_cpu, NULL);
	for (int c = 0; c < nr_cpus; c++)
		*objs += ((struct qmp_table *)tables[c])->allocs;
	on_all_cpus(qmp_free_cpu, NULL);
	on_all_cpus(qmp_reuse_cpu, NULL);
	qmempool_get_stats(st_pool, st);
	/* every object given back: none handed out, none failed */
	if (st->outstanding != 0 || st->alloc_fail || st->alloc < *objs)
		st_err("qmempool: alloc=%lu outstanding=%ld alloc_fail=%lu",
		       st->alloc, st->outstanding, st->alloc_fail);
	if (mm_nr_nodes() > 1 && nr_cpus > 1 &&
	    cpus[0].node != cpus[nr_cpus - 1].node && !st->remote_free)
		st_err("qmempool: no remote frees counted across nodes");
}

void selftest_qmempool(void)
{
	struct qmempool_stats st = {0};
	struct kmem_cache *cache;
	unsigned long base, after, objs = 0;

	atomic_store(&errors, 0);
	if (!mm_is_ready() || find_kmalloc_caches() < 0 ||
	    alloc_tables(sizeof(struct qmp_table)) < 0) {
		kprintf("selftest: qmempool FAIL (no allocator or no "
			"memory)\n");
		free_tables();
		selftest_failed();
		return;
	}
	base = quiesce(NULL);
	cache = kmem_cache_create("selftest-qmp", QMP_OBJ_SZ, 0,
				  SLAB_HWCACHE_ALIGN, NULL);
	/* the prototype's fast-path settings: localq 32, sharedq 128,
	 * prealloc 16 */
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
	after = quiesce(NULL);
	free_tables();
	if (after != base || atomic_load(&errors) || objs == 0) {
		kprintf("selftest: qmempool FAIL cpus=%d objects=%lu free=%lu "
			"baseline=%lu errors=%d\n",
			nr_cpus, objs, after, base, atomic_load(&errors));
		selftest_failed();
		return;
	}
	kprintf("selftest: qmempool PASS cpus=%d nodes=%d objects=%lu "
		"localq_hit=%lu sharedq_refill=%lu slab_refill=%lu "
		"remote_free=%lu free=%lu baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs, st.localq_hit, st.sharedq_refill,
		st.slab_refill, st.remote_free, after, base);
}
