/*
 * Instructions per slab and kmalloc operation on the host, counted by
 * callgrind (`make slab-instr`): the host twin of the guest's -icount
 * figures (kernel/selftest/mm_bench.c), for the same cases, so that a
 * change to the fast path can be measured in both worlds.
 *
 *   slab_reuse     kmem_cache_alloc + kmem_cache_free of 256 bytes
 *   slab_n256      allocate 256, free 256 (per object)
 *   slab_bulk16    kmem_cache_alloc_bulk + free_bulk of 16 (per object)
 *   kmalloc256     kmalloc(256) + kfree, the size a constant
 *   kmalloc256_var the same with the size known only at run time
 *   kmalloc64k     kmalloc(64 KiB) + kfree: a block from the page allocator
 *
 * Method: each case runs under valgrind --tool=callgrind with
 * --toggle-collect on its function, twice, for N and 2N operations (after
 * the same warm-up); the difference divided by N is the cost of one
 * operation, exactly, with start-up and warm-up cancelled out. Counted,
 * not timed: blind to cache misses and to what an atomic costs, but the
 * same on every run however loaded the machine is.
 *
 * Usage: slab_instr            print the table (runs valgrind on itself)
 *        slab_instr CASE N     run one case for N operations (the child)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm.h"
#include "mm_host.h"

#define WARM_OPS 4096
#define BASE_OPS 20000L

static struct kmem_cache *cache;
static void *objs[256];
static volatile size_t var_size = 256;

#define NOINLINE __attribute__((noinline))

NOINLINE static void case_slab_reuse(long n)
{
	for (long i = 0; i < n; i++)
		kmem_cache_free(cache, kmem_cache_alloc(cache, GFP_KERNEL));
}

NOINLINE static void case_slab_n256(long n)
{
	for (long r = 0; r < n / 256; r++) {
		for (int i = 0; i < 256; i++)
			objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		for (int i = 0; i < 256; i++)
			kmem_cache_free(cache, objs[i]);
	}
}

NOINLINE static void case_slab_bulk16(long n)
{
	for (long r = 0; r < n / 16; r++) {
		if (kmem_cache_alloc_bulk(cache, GFP_KERNEL, 16, objs) != 16)
			abort();
		kmem_cache_free_bulk(cache, 16, objs);
	}
}

NOINLINE static void case_kmalloc256(long n)
{
	for (long i = 0; i < n; i++)
		kfree(kmalloc(256, GFP_KERNEL));
}

NOINLINE static void case_kmalloc256_var(long n)
{
	size_t size = var_size;

	for (long i = 0; i < n; i++)
		kfree(kmalloc(size, GFP_KERNEL));
}

NOINLINE static void case_kmalloc64k(long n)
{
	for (long i = 0; i < n; i++)
		kfree(kmalloc(64 << 10, GFP_KERNEL));
}

static const struct {
	const char *name;
	void (*fn)(long);
} cases[] = {
	{"slab_reuse", case_slab_reuse},
	{"slab_n256", case_slab_n256},
	{"slab_bulk16", case_slab_bulk16},
	{"kmalloc256", case_kmalloc256},
	{"kmalloc256_var", case_kmalloc256_var},
	{"kmalloc64k", case_kmalloc64k},
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static int child(const char *name, long n)
{
	if (mm_host_boot(1, 64 << 20, 1, NULL))
		return 1;
	cache = kmem_cache_create("bench-256", 256, 0, 0, NULL);
	if (!cache)
		return 1;
	for (size_t i = 0; i < NR_CASES; i++) {
		if (strcmp(cases[i].name, name))
			continue;
		cases[i].fn(WARM_OPS); /* warm-up, counted in both runs */
		cases[i].fn(n);
		return 0;
	}
	return 2;
}

/* Instructions callgrind collected inside case_NAME for n operations,
 * or -1. */
static double collected(const char *name, long n)
{
	char cmd[512], line[256];
	double v = -1;

	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=callgrind --callgrind-out-file=/dev/null "
		 "--toggle-collect=case_%s /proc/%d/exe %s %ld 2>&1",
		 name, (int)getpid(), name, n);
	FILE *f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *k = strstr(line, "Collected :");
		if (k)
			v = strtod(k + strlen("Collected :"), NULL);
	}
	if (f && pclose(f) != 0)
		v = -1;
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 3)
		return child(argv[1], atol(argv[2]));
	if (system("valgrind --version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "slab_instr: valgrind is not installed\n");
		return 1;
	}
	printf("| case | instructions per operation (callgrind) |\n"
	       "| --- | ---: |\n");
	for (size_t i = 0; i < NR_CASES; i++) {
		long n = BASE_OPS;
		double a = collected(cases[i].name, n);
		double b = collected(cases[i].name, 2 * n);
		if (a < 0 || b < 0) {
			printf("| %s | failed |\n", cases[i].name);
			continue;
		}
		printf("| %s | %.2f |\n", cases[i].name, (b - a) / (double)n);
	}
	return 0;
}
