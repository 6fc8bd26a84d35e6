/*
 * Cross-thread stress of the page fragment cache: two simulated CPUs on two
 * nodes, each allocating fragments (napi, netdev, a private cache, and the
 * TX prepare/commit path; random sizes and alignments), stamping them and
 * passing them through a ring to the other CPU, which checks the stamp and
 * frees them. Meanwhile each CPU's caches recycle and refill blocks whose
 * fragments the other CPU is freeing. A stamp that changed means two live
 * fragments overlapped; at the end every page must be back. Under
 * failure injection (make test-host-inject) a refused fragment is skipped
 * and the same checks hold for those sent.
 * Runs plain, under ThreadSanitizer and under AddressSanitizer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug.h"
#include "inject.h"
#include "mm.h"
#include "mm_host.h"

#if defined(__SANITIZE_THREAD__)
#define PER_THREAD 60000
#elif defined(__SANITIZE_ADDRESS__)
#define PER_THREAD 200000
#else
#define PER_THREAD 300000
#endif
#define FRAG_RING_SLOTS 1024

#include "frag_ring.h"

static struct ring rings[2]; /* rings[i]: CPU i -> CPU 1-i */
static atomic_int failures;
static long per_thread; /* fragments each CPU sends in this phase */
/* Fragments each CPU did send (fewer than per_thread when injected
 * failures refused some), and whether it has sent its last. */
static atomic_long sent[2];
static atomic_bool done[2];

static void check_and_free(struct item it)
{
	if (!item_check_and_free(it))
		atomic_fetch_add(&failures, 1);
}

/* One fragment by one of the four ways in; NULL only on failure. */
static unsigned char *get_fragment(struct page_frag_cache *nc, uint64_t r,
				   unsigned int len)
{
	unsigned int align = 1u << (r >> 8) % 8;
	struct page_frag pf;
	unsigned char *va;

	switch (r % 4) {
	case 0:
		return napi_alloc_frag_align(len, align);
	case 1:
		return netdev_alloc_frag(len);
	case 2:
		return page_frag_alloc_align(nc, len, GFP_KERNEL, align);
	default:
		va = page_frag_prepare(nc, len, &pf, GFP_KERNEL);
		if (va && !page_frag_commit(nc, &pf, len))
			return NULL;
		return va;
	}
}

static void *cpu_thread(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	struct ring *out = &rings[cpu], *in = &rings[1 - cpu];
	struct page_frag_cache nc = {0};
	uint64_t seed = 0x9e3779b97f4a7c15ull * (unsigned)(cpu + 1);
	long received = 0;
	struct item it;

	if (mm_host_set_cpu(cpu))
		abort(); /* refused: the message says why */
	for (long n = 0; n < per_thread; n++) {
		uint64_t r = next_rand(&seed);
		unsigned int len = 1 + (unsigned int)(r >> 20) % 2048;

		it.va = get_fragment(&nc, r, len);
		if (!it.va && mm_test_null_ok())
			continue; /* an injected failure: one fragment fewer */
		if (!it.va) {
			fprintf(stderr, "cpu %d: allocation failed\n", cpu);
			atomic_fetch_add(&failures, 1);
			break;
		}
		it.len = len;
		it.stamp = (unsigned char)(r >> 40);
		memset(it.va, it.stamp, len);
		atomic_fetch_add(&sent[cpu], 1);
		while (!ring_push(out, it)) {
			struct item back;

			if (atomic_load(&failures))
				return NULL; /* the other side may be gone */

			if (ring_pop(in, &back)) {
				check_and_free(back);
				received++;
			}
		}
		if (ring_pop(in, &it)) {
			check_and_free(it);
			received++;
		}
	}
	page_frag_cache_drain(&nc);
	atomic_store(&done[cpu], true);
	while (!(atomic_load(&done[1 - cpu]) &&
		 received == atomic_load(&sent[1 - cpu])) &&
	       !atomic_load(&failures)) {
		if (ring_pop(in, &it)) {
			check_and_free(it);
			received++;
		}
	}
	/* Done freeing: this CPU's batched frees reach their blocks, as the
	 * kernel's poll loop applies them before it halts. */
	page_frag_free_flush();
	return NULL;
}

/*
 * One phase: both CPUs send n fragments each; afterwards every page must be
 * back and every fragment counted as freed once. With debug on, the page
 * allocator also poisons freed blocks and checks every free.
 */
static void run_phase(long n, bool debug)
{
	struct page_frag_stats a, b;
	unsigned long free0;
	pthread_t t[2];

	mm_debug_set(debug);
	mm_debug_reset_counts();
	drain_all_pages();
	free0 = nr_free_pages();
	page_frag_stats_read(&a);
	per_thread = n;
	for (int i = 0; i < 2; i++) {
		atomic_store(&sent[i], 0);
		atomic_store(&done[i], false);
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, cpu_thread, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	page_frag_percpu_drain(0);
	page_frag_percpu_drain(1);
	drain_all_pages();
	page_frag_stats_read(&b);
	if (nr_free_pages() != free0) {
		fprintf(stderr, "pages leaked: %lu free, %lu before\n",
			nr_free_pages(), free0);
		atomic_fetch_add(&failures, 1);
	}
	if (b.frees - a.frees != b.fragments - a.fragments ||
	    b.frees - a.frees != (unsigned long)(atomic_load(&sent[0]) +
						 atomic_load(&sent[1])) ||
	    (!mm_test_injecting() &&
	     b.frees - a.frees != 2ul * (unsigned long)n)) {
		fprintf(stderr, "counted %llu fragments, %llu frees\n",
			(unsigned long long)(b.fragments - a.fragments),
			(unsigned long long)(b.frees - a.frees));
		atomic_fetch_add(&failures, 1);
	}
	if (mm_debug_total()) {
		fprintf(stderr, "%lu debug reports\n", mm_debug_total());
		atomic_fetch_add(&failures, 1);
	}
	printf("stress_page_frag: debug %d: %ld fragments, %llu recycles, "
	       "%llu refills, %d failures\n",
	       debug, 2 * n, (unsigned long long)(b.recycles - a.recycles),
	       (unsigned long long)(b.refills_order3 - a.refills_order3 +
				    b.refills_order0 - a.refills_order0),
	       atomic_load(&failures));
	mm_debug_set(false);
}

int main(void)
{
	static const int cpu_to_node[2] = {0, 1};

	if (mm_host_boot(2, 32u << 20, 2, cpu_to_node)) {
		fprintf(stderr, "boot failed\n");
		return 1;
	}
	run_phase(PER_THREAD, false);
	if (!atomic_load(&failures))
		run_phase(PER_THREAD / 4, true);
	if (mm_test_inject_check("stress_page_frag"))
		atomic_fetch_add(&failures, 1);
	mm_host_shutdown();
	return atomic_load(&failures) ? 1 : 0;
}
