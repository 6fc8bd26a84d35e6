/* The allocator self-tests' shared helpers (mm_common.h). */
#include "kernel/selftest/mm_common.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <string.h>

atomic_int st_errors;

static uint64_t stamp_of(int cpu, int i)
{
	return 0x5e1f7e5700000000ULL | ((uint64_t)cpu << 20) | (unsigned)i;
}

void st_stamp(void *p, size_t size, int cpu, int i)
{
	uint64_t v = stamp_of(cpu, i);

	memcpy(p, &v, size < 8 ? size : 8);
	if (size >= 16)
		memcpy((char *)p + size - 8, &v, 8);
}

int st_stamp_ok(const void *p, size_t size, int cpu, int i)
{
	uint64_t v = stamp_of(cpu, i), a = 0, b = 0;

	memcpy(&a, p, size < 8 ? size : 8);
	if (size < 8)
		return !memcmp(&a, &v, size);
	if (size >= 16)
		memcpy(&b, (const char *)p + size - 8, 8);
	return a == v && (size < 16 || b == v);
}

const size_t st_class_sizes[ST_NR_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192};
static struct kmem_cache *kmalloc_cache[ST_NR_CLASSES];

int st_find_kmalloc_caches(void)
{
	for (unsigned int c = 0; c < ST_NR_CLASSES; c++) {
		void *p = kmalloc(st_class_sizes[c], GFP_KERNEL);

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

	for (unsigned int c = 0; c < ST_NR_CLASSES; c++)
		kmem_cache_shrink(kmalloc_cache[c]);
	if (extra)
		kmem_cache_shrink(extra);
	page_frag_percpu_drain(this_cpu_id());
}

unsigned long st_quiesce(struct kmem_cache *extra)
{
	/* Deferred struct pages still reaching the free lists would move
	 * the count: all of them first. */
	mm_deferred_init_all();
	smp_call_all(quiesce_cpu, extra);
	drain_all_pages();
	return nr_free_pages();
}

void *st_tables[MAX_CPUS];

int st_alloc_tables(size_t size)
{
	for (int c = 0; c < nr_cpus; c++) {
		st_tables[c] = kmalloc_node(size, GFP_KERNEL | __GFP_ZERO,
					    cpu_to_mem(c));
		if (!st_tables[c])
			return -1;
	}
	return 0;
}

void st_free_tables(void)
{
	for (int c = 0; c < nr_cpus; c++) {
		kfree(st_tables[c]);
		st_tables[c] = NULL;
	}
}

int st_begin(const char *test, size_t table_size)
{
	atomic_store(&st_errors, 0);
	if (!mm_is_ready() || st_find_kmalloc_caches() < 0 ||
	    st_alloc_tables(table_size) < 0) {
		kprintf("selftest: %s FAIL (no allocator or no memory)\n",
			test);
		st_free_tables();
		return -1;
	}
	return 0;
}

int st_end(const char *test, const char *what, unsigned long objs,
	   unsigned long base, unsigned long after)
{
	int errors = atomic_load(&st_errors);

	if (after == base && !errors && objs != 0)
		return 0;
	kprintf("selftest: %s FAIL cpus=%d %s=%lu free=%lu baseline=%lu "
		"errors=%d\n",
		test, nr_cpus, what, objs, after, base, errors);
	return errors + (after != base) + (objs == 0);
}

int st_next_cpu(int cpu)
{
	return (cpu + 1) % nr_cpus;
}

/* Local means the CPU's memory node: its own, or the nearest with memory
 * when its node has none. */
void st_check_node(const char *test, const void *p, int cpu)
{
	int nid = page_to_nid(virt_to_head_page(p));

	if (nid != cpu_to_mem(cpu))
		st_err("%s: cpu %d (node %d, memory node %d) got %p from "
		       "node %d",
		       test, cpu, cpus[cpu].node, cpu_to_mem(cpu), p, nid);
}
