/*
 * selftest=slab: kmalloc of every class and past the classes, a 256-byte
 * cache with single, bulk and per-node allocations, on every CPU at once,
 * freed by the next CPU; then the fast path. The shape every allocator
 * self-test follows is in mm_common.h.
 */
#include "kernel/selftest/tests.h"
#include "kernel/selftest/mm_common.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdint.h>

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
	void *kmalloc[ST_NR_CLASSES][SLAB_PER_CLASS];
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
	for (unsigned int c = 0; c < ST_NR_CLASSES; c++) {
		for (int i = 0; i < SLAB_PER_CLASS; i++) {
			/* odd sizes too: the class is the next one up */
			size_t size = (i & 1) ? st_class_sizes[c]
				      : c     ? st_class_sizes[c - 1] + 1
					      : 1;
			void *p = kmalloc(size, GFP_KERNEL);

			t->kmalloc[c][i] = p;
			if (!p) {
				st_err("slab: cpu %d: kmalloc(%zu) failed", cpu,
				       size);
				continue;
			}
			t->allocs++;
			if ((uintptr_t)p & (class_align(st_class_sizes[c]) - 1))
				st_err("slab: kmalloc(%zu) = %p misaligned",
				       size, p);
			if (ksize(p) != st_class_sizes[c])
				st_err("slab: ksize(kmalloc(%zu)) = %zu", size,
				       ksize(p));
			st_check_node("slab", p, cpu);
			st_stamp(p, st_class_sizes[c], cpu, i);
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
		st_stamp(p, big_sizes[b], cpu, (int)b);
	}
}

static void slab_alloc_cache(struct slab_table *t, int cpu)
{
	for (int i = 0; i < SLAB_SINGLES; i++) {
		t->single[i] = kmem_cache_alloc(st_cache, GFP_KERNEL);
		if (t->single[i]) {
			t->allocs++;
			st_check_node("slab", t->single[i], cpu);
			st_stamp(t->single[i], SLAB_OBJ_SIZE, cpu, i);
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
		st_stamp(t->bulk_a[i], SLAB_OBJ_SIZE, cpu, i);
	for (int i = 0; i < SLAB_BULK_B; i++) {
		st_check_node("slab", t->bulk_b[i], cpu);
		st_stamp(t->bulk_b[i], SLAB_OBJ_SIZE, cpu, i);
	}
	/* one object from every node, which must be that node's (a node
	 * without memory falls back: any node will do) */
	for (int n = 0; n < mm_nr_nodes(); n++) {
		void *p = kmem_cache_alloc_node(st_cache, GFP_KERNEL, n);

		t->node[n] = p;
		if (!p) {
			st_err("slab: alloc_node(%d) failed", n);
			continue;
		}
		t->allocs++;
		if (nr_managed_pages_node(n) &&
		    page_to_nid(virt_to_head_page(p)) != n)
			st_err("slab: alloc_node(%d) gave node %d", n,
			       page_to_nid(virt_to_head_page(p)));
	}
}

static void slab_alloc_cpu(void *arg)
{
	int cpu = this_cpu_id();
	struct slab_table *t = st_tables[cpu];

	(void)arg;
	slab_alloc_kmalloc(t, cpu);
	slab_alloc_cache(t, cpu);
}

static void check_free_kmalloc(struct slab_table *t, int owner)
{
	for (unsigned int c = 0; c < ST_NR_CLASSES; c++)
		for (int i = 0; i < SLAB_PER_CLASS; i++) {
			void *p = t->kmalloc[c][i];

			if (p && !st_stamp_ok(p, st_class_sizes[c], owner, i))
				st_err("slab: kmalloc-%zu object %p of cpu %d "
				       "overwritten",
				       st_class_sizes[c], p, owner);
			kfree(p);
			t->kmalloc[c][i] = NULL;
		}
	for (unsigned int b = 0; b < NR_BIG; b++) {
		if (t->big[b] &&
		    !st_stamp_ok(t->big[b], big_sizes[b], owner, (int)b))
			st_err("slab: big block %p of cpu %d overwritten",
			       t->big[b], owner);
		kfree(t->big[b]);
		t->big[b] = NULL;
	}
}

static void check_objs(void **objs, int n, int owner)
{
	for (int i = 0; i < n; i++)
		if (objs[i] && !st_stamp_ok(objs[i], SLAB_OBJ_SIZE, owner, i))
			st_err("slab: object %p of cpu %d overwritten", objs[i],
			       owner);
}

/* Frees the next CPU's objects: singles one by one, bulks as bulks. */
static void slab_free_cpu(void *arg)
{
	int owner = st_next_cpu(this_cpu_id());
	struct slab_table *t = st_tables[owner];

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
		void *b =
			kmalloc(st_class_sizes[i % ST_NR_CLASSES], GFP_KERNEL);

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
		n += ((struct slab_table *)st_tables[c])->allocs;
	return n;
}

int selftest_slab(void)
{
	struct slab_debug_counts d0, d1;
	unsigned long base, after, objs = 0;
	int failed;

	if (st_begin("slab", sizeof(struct slab_table)) < 0)
		return 1;
	slab_debug_counts(&d0);
	base = st_quiesce(NULL);
	st_cache = kmem_cache_create("selftest-256", SLAB_OBJ_SIZE, 0,
				     SLAB_HWCACHE_ALIGN, NULL);
	if (st_cache) {
		smp_call_all(slab_alloc_cpu, NULL);
		objs = tables_allocs();
		smp_call_all(slab_free_cpu, NULL);
		smp_call_all(slab_reuse_cpu, NULL);
		kmem_cache_destroy(st_cache);
	} else {
		st_err("slab: kmem_cache_create failed");
	}
	after = st_quiesce(NULL);
	slab_debug_counts(&d1);
	st_free_tables();
	if (d1.destroy_busy != d0.destroy_busy ||
	    d1.double_free != d0.double_free ||
	    d1.invalid_free != d0.invalid_free || d1.redzone != d0.redzone ||
	    d1.poison != d0.poison)
		st_err("slab: debug detections during the test");
	failed = st_end("slab", "objects", objs, base, after);
	if (failed)
		return failed;
	kprintf("selftest: slab PASS cpus=%d nodes=%d objects=%lu free=%lu "
		"baseline=%lu\n",
		nr_cpus, mm_nr_nodes(), objs, after, base);
	return 0;
}
