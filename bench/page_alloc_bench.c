/*
 * Page allocator benchmarks (make bench): what the per-CPU lists buy,
 * what alloc_pages_bulk buys, and glibc malloc and mmap for context, all
 * in one process and one run so the figures compare as ratios.
 *
 *   page_alloc_bench OUT.md OUT.json
 *
 * Each figure is the median of RUNS runs, in ns per operation (one
 * alloc+free pair, or per page where it says so). The host is noisy (a
 * shared 2-core VM; glibc's figures swung up to 1.8x between runs): read
 * the ratios, not the absolute values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_util.h"
#include "mm.h"
#include "mm_host.h"
#include "zone.h"

#define RUNS	  7
#define PAIRS	  500000
#define BURST_MAX 256

typedef double (*bench_fn)(void *arg);

static double median_runs(bench_fn fn, void *arg, int runs)
{
	double r[RUNS];
	for (int i = 0; i < runs; i++)
		r[i] = fn(arg);
	return bench_median(r, runs);
}

static double median_of(bench_fn fn, void *arg)
{
	return median_runs(fn, arg, bench_runs(RUNS));
}

/* ---- single thread ---- */

static double pair_order(void *arg)
{
	unsigned int order = *(unsigned int *)arg;
	long n = PAIRS >> (order > 2 ? 2 : order);
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		struct page *p = alloc_pages(GFP_KERNEL, order);
		bench_keep(p);
		__free_pages(p, order);
	}
	return (double)(bench_now_ns() - t0) / (double)n;
}

struct burst {
	unsigned int order; /* first, so pcp_vs_buddy can pass its order */
	int n;
};

/* Allocate n blocks, then free them all. Within `high` the per-CPU list
 * absorbs the burst; beyond it, refills and drains happen. */
static double burst_order(void *arg)
{
	const struct burst *b = arg;
	static struct page *p[BURST_MAX];
	long rounds = PAIRS / b->n >> (b->order > 2 ? 2 : b->order);
	uint64_t t0 = bench_now_ns();
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < b->n; i++)
			p[i] = alloc_pages(GFP_KERNEL, b->order);
		for (int i = 0; i < b->n; i++)
			__free_pages(p[i], b->order);
	}
	return (double)(bench_now_ns() - t0) / (double)(rounds * b->n);
}

static double bulk_n(void *arg)
{
	unsigned int n = *(unsigned int *)arg;
	static struct page *p[128];
	long rounds = PAIRS / n / 2;
	uint64_t t0 = bench_now_ns();
	for (long r = 0; r < rounds; r++) {
		unsigned int got = alloc_pages_bulk(GFP_KERNEL, n, p);
		for (unsigned int i = 0; i < got; i++)
			__free_pages(p[i], 0);
	}
	return (double)(bench_now_ns() - t0) / (double)(rounds * n);
}

static double single_n(void *arg)
{
	unsigned int n = *(unsigned int *)arg;
	static struct page *p[128];
	long rounds = PAIRS / n / 2;
	uint64_t t0 = bench_now_ns();
	for (long r = 0; r < rounds; r++) {
		for (unsigned int i = 0; i < n; i++)
			p[i] = alloc_pages(GFP_KERNEL, 0);
		for (unsigned int i = 0; i < n; i++)
			__free_pages(p[i], 0);
	}
	return (double)(bench_now_ns() - t0) / (double)(rounds * n);
}

static double malloc_pair(void *arg)
{
	size_t size = *(size_t *)arg;
	long n = PAIRS;
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		void *p = malloc(size);
		bench_keep(p);
		free(p);
	}
	return (double)(bench_now_ns() - t0) / (double)n;
}

struct mmap_arg {
	size_t size;
	bool touch;
};

static double mmap_pair(void *arg)
{
	const struct mmap_arg *a = arg;
	long n = 5000;
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		char *p = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a->touch)
			for (size_t o = 0; o < a->size; o += MM_PAGE_SIZE)
				p[o] = 1;
		munmap(p, a->size);
	}
	return (double)(bench_now_ns() - t0) / (double)n;
}

/* ---- two threads freeing each other's pages ---- */

#define RING	   256
#define CROSS_OPS  50000
#define CROSS_RUNS 3

struct ring {
	_Alignas(64) atomic_uint head;
	_Alignas(64) atomic_uint tail;
	_Alignas(64) void *slot[RING];
};

static bool ring_push(struct ring *r, void *p)
{
	unsigned int h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&r->tail, memory_order_acquire) == RING)
		return false;
	r->slot[h % RING] = p;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

static void *ring_pop(struct ring *r)
{
	unsigned int t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (t == atomic_load_explicit(&r->head, memory_order_acquire))
		return NULL;
	void *p = r->slot[t % RING];
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return p;
}

enum cross_kind { CROSS_HANDOFF, CROSS_PAGES, CROSS_MALLOC };

struct cross {
	enum cross_kind kind;
	struct ring rings[2];
	atomic_int ready;
};

struct cross_thread {
	struct cross *c;
	int cpu;
	pthread_t t;
};

static void *cross_get(enum cross_kind k)
{
	static char token[64];
	if (k == CROSS_PAGES)
		return alloc_pages(GFP_KERNEL, 0);
	if (k == CROSS_MALLOC)
		return malloc(MM_PAGE_SIZE);
	return token;
}

static void cross_put(enum cross_kind k, void *p)
{
	if (k == CROSS_PAGES)
		__free_pages(p, 0);
	else if (k == CROSS_MALLOC)
		free(p);
}

/* Allocate and send to the peer; free what the peer sent. */
static void *cross_work(void *arg)
{
	struct cross_thread *ct = arg;
	struct cross *c = ct->c;
	struct ring *out = &c->rings[ct->cpu], *in = &c->rings[!ct->cpu];
	bench_pin(ct->cpu);
	if (mm_host_set_cpu(ct->cpu))
		abort(); /* refused: the message says why */
	atomic_fetch_add(&c->ready, 1);
	while (atomic_load(&c->ready) < 2)
		;
	long sent = 0, got = 0;
	while (sent < CROSS_OPS || got < CROSS_OPS) {
		if (sent < CROSS_OPS) {
			void *p = cross_get(c->kind);
			for (int spins = 0; !ring_push(out, p); spins++) {
				void *q = ring_pop(in);
				if (q) {
					cross_put(c->kind, q);
					got++;
				} else if (spins > 256) {
					/* The peer is off its core (a shared
					 * machine): let it run. */
					sched_yield();
				}
			}
			sent++;
		}
		void *q = ring_pop(in);
		if (q) {
			cross_put(c->kind, q);
			got++;
		} else if (sent == CROSS_OPS) {
			sched_yield();
		}
	}
	return NULL;
}

static double cross_run(void *arg)
{
	static struct cross c;
	memset(&c, 0, sizeof(c));
	c.kind = *(enum cross_kind *)arg;
	struct cross_thread t[2] = {{&c, 0, 0}, {&c, 1, 0}};
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i].t, NULL, cross_work, &t[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i].t, NULL);
	return (double)(bench_now_ns() - t0) / CROSS_OPS;
}

/* ---- report ---- */

static FILE *md, *js;
static bool js_first = true;

static void js_put(const char *name, double ns)
{
	fprintf(js, "%s\n  \"%s\": %.2f", js_first ? "" : ",", name, ns);
	js_first = false;
}

static double measure(const char *json_name, bench_fn fn, void *arg)
{
	double ns = median_of(fn, arg);
	js_put(json_name, ns);
	return ns;
}

/* arg points to the order (first member of struct burst too). */
static void pcp_vs_buddy(const char *label, const char *key, bench_fn fn,
			 void *arg, double *pcp_out)
{
	char k[96];
	pcp_set_enabled(true);
	snprintf(k, sizeof(k), "%s_pcp_ns", key);
	double pcp = measure(k, fn, arg);
	pcp_set_enabled(false);
	snprintf(k, sizeof(k), "%s_buddy_ns", key);
	double buddy = measure(k, fn, arg);
	pcp_set_enabled(true);
	snprintf(k, sizeof(k), "%s_buddy_over_pcp", key);
	js_put(k, buddy / pcp);
	fprintf(md, "| %s | %.1f | %.1f | %.2f |\n", label, pcp, buddy,
		buddy / pcp);
	if (pcp_out)
		*pcp_out = pcp;
}

static void single_thread_section(double *order0)
{
	fprintf(md, "### Single thread: per-CPU lists vs buddy lists only\n\n"
		    "ns per alloc+free pair; \"buddy only\" switches the PCP "
		    "off (pcp_set_enabled(false)), so every call takes the "
		    "zone lock.\n\n"
		    "| case | PCP ns | buddy only ns | buddy / PCP |\n"
		    "| --- | ---: | ---: | ---: |\n");
	static unsigned int o0 = 0, o3 = 3;
	static struct burst b0s = {0, 64}, b0l = {0, 256}, b3s = {3, 16},
			    b3l = {3, 256};
	pcp_vs_buddy("order-0 alloc+free", "order0_pair", pair_order, &o0,
		     order0);
	pcp_vs_buddy("order-0, bursts of 64 (within high)", "order0_burst64",
		     burst_order, &b0s, NULL);
	pcp_vs_buddy("order-0, bursts of 256 (beyond high)", "order0_burst256",
		     burst_order, &b0l, NULL);
	pcp_vs_buddy("order-3 (32 KiB) alloc+free", "order3_pair", pair_order,
		     &o3, NULL);
	pcp_vs_buddy("order-3, bursts of 16 (within high)", "order3_burst16",
		     burst_order, &b3s, NULL);
	pcp_vs_buddy("order-3, bursts of 256 (beyond high)", "order3_burst256",
		     burst_order, &b3l, NULL);
	fprintf(md, "\n");
}

static void cross_section(void)
{
	static const char *const names[] = {
		"ring hand-off only (calibration)", "pages through the PCP",
		"pages, buddy lists only", "glibc malloc(4096)/free"};
	static const char *const keys[] = {"cross_handoff_ns", "cross_pcp_ns",
					   "cross_buddy_ns", "cross_malloc_ns"};
	enum cross_kind kinds[] = {CROSS_HANDOFF, CROSS_PAGES, CROSS_PAGES,
				   CROSS_MALLOC};
	double ns[4];
	for (int i = 0; i < 4; i++) {
		pcp_set_enabled(i != 2);
		ns[i] = median_runs(cross_run, &kinds[i], CROSS_RUNS);
		js_put(keys[i], ns[i]);
	}
	pcp_set_enabled(true);
	js_put("cross_buddy_over_pcp", ns[2] / ns[1]);
	fprintf(md,
		"### Two threads freeing each other's pages\n\n"
		"CPU 0 and CPU 1 (pinned to the two cores, one node) each "
		"allocate an order-0 page, pass it to the other through an "
		"SPSC ring and free what the other sent. ns per page per "
		"thread, median of %d runs; the first row is the ring alone "
		"(a cache-line hand-off between the cores), which dominates "
		"when the machine is busy.\n\n"
		"| case | ns/page | ratio to PCP |\n| --- | ---: | ---: |\n",
		CROSS_RUNS);
	for (int i = 0; i < 4; i++)
		fprintf(md, "| %s | %.1f | %.2f |\n", names[i], ns[i],
			ns[i] / ns[1]);
	fprintf(md, "\n");
}

static void bulk_section(double order0)
{
	static const unsigned int ns_[] = {1, 2, 4, 8, 16, 32, 64, 128};
	fprintf(md,
		"### alloc_pages_bulk + free, order 0, per page\n\n"
		"Bulk fills the array from this CPU's list, then the rest "
		"from the buddy lists under one zone-lock acquisition; frees "
		"are single __free_pages calls. \"loop\" allocates the same n "
		"pages one alloc_pages call each. Single order-0 alloc+free "
		"pair: %.1f ns.\n\n"
		"| n | bulk ns/page | loop ns/page | bulk / loop | bulk / pair "
		"|\n"
		"| ---: | ---: | ---: | ---: | ---: |\n",
		order0);
	for (size_t i = 0; i < sizeof(ns_) / sizeof(ns_[0]); i++) {
		unsigned int n = ns_[i];
		char k[64];
		snprintf(k, sizeof(k), "bulk_n%u_ns_per_page", n);
		double b = measure(k, bulk_n, &n);
		snprintf(k, sizeof(k), "loop_n%u_ns_per_page", n);
		double l = measure(k, single_n, &n);
		fprintf(md, "| %u | %.1f | %.1f | %.2f | %.2f |\n", n, b, l,
			b / l, b / order0);
	}
	fprintf(md, "\n");
}

static void context_section(double order0)
{
	size_t s4 = 4096, s32 = 32768;
	struct mmap_arg m4 = {4096, false}, m4t = {4096, true},
			m32 = {32768, false}, m32t = {32768, true};
	struct {
		const char *name, *key;
		bench_fn fn;
		void *arg;
	} rows[] = {
		{"glibc malloc+free 4 KiB", "malloc4k_ns", malloc_pair, &s4},
		{"glibc malloc+free 32 KiB", "malloc32k_ns", malloc_pair, &s32},
		{"mmap+munmap 4 KiB", "mmap4k_ns", mmap_pair, &m4},
		{"mmap+touch+munmap 4 KiB", "mmap4k_touch_ns", mmap_pair, &m4t},
		{"mmap+munmap 32 KiB", "mmap32k_ns", mmap_pair, &m32},
		{"mmap+touch+munmap 32 KiB", "mmap32k_touch_ns", mmap_pair,
		 &m32t},
	};
	fprintf(md, "### Context: glibc malloc and mmap, same sizes\n\n"
		    "| operation | ns/op | ratio to order-0 PCP pair |\n"
		    "| --- | ---: | ---: |\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double ns = measure(rows[i].key, rows[i].fn, rows[i].arg);
		fprintf(md, "| %s | %.1f | %.2f |\n", rows[i].name, ns,
			ns / order0);
	}
	fprintf(md, "\n");
}

/* ---- instruction counts (callgrind): deterministic, unlike the clock ---- */

enum instr_case { I_PAIR0, I_PAIR3, I_BULK64, I_LOOP64, NR_I_CASES };

/* Child side: boot a small machine and run `n` operations of one case. */
static int instr_child(int c, bool pcp, long n)
{
	static struct page *p[64];
	if (mm_host_boot(1, 16u << 20, 1, NULL))
		return 1;
	pcp_set_enabled(pcp);
	for (long i = 0; i < n; i++) {
		if (c == I_PAIR0 || c == I_PAIR3) {
			unsigned int order = c == I_PAIR0 ? 0 : 3;
			__free_pages(alloc_pages(GFP_KERNEL, order), order);
			continue;
		}
		if (c == I_BULK64)
			alloc_pages_bulk(GFP_KERNEL, 64, p);
		else
			for (int k = 0; k < 64; k++)
				p[k] = alloc_pages(GFP_KERNEL, 0);
		for (int k = 0; k < 64; k++)
			__free_pages(p[k], 0);
	}
	return 0;
}

/* Instructions callgrind counts for one child run, or -1. */
static double instr_run(int c, bool pcp, long n)
{
	char cmd[256], line[256];
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=callgrind --callgrind-out-file=/dev/null "
		 "/proc/%d/exe --instr %d %d %ld 2>&1",
		 (int)getpid(), c, pcp, n);
	FILE *f = popen(cmd, "r");
	double v = -1;
	while (f && fgets(line, sizeof(line), f)) {
		const char *k = strstr(line, "Collected :");
		if (k)
			v = strtod(k + strlen("Collected :"), NULL);
	}
	if (f)
		pclose(f);
	return v;
}

/* Per operation: the difference between n and 0 operations, over n. */
static double instr_per_op(int c, bool pcp)
{
	const long n = 4000;
	double with = instr_run(c, pcp, n), without = instr_run(c, pcp, 0);
	return with < 0 || without < 0 ? -1 : (with - without) / n;
}

static void instr_section(void)
{
	if (!bench_callgrind(md))
		return;
	double pair0 = instr_per_op(I_PAIR0, true);
	double pair0b = instr_per_op(I_PAIR0, false);
	double pair3 = instr_per_op(I_PAIR3, true);
	double pair3b = instr_per_op(I_PAIR3, false);
	double bulk = instr_per_op(I_BULK64, true) / 64;
	double loop = instr_per_op(I_LOOP64, true) / 64;
	js_put("instr_order0_pair_pcp", pair0);
	js_put("instr_order0_pair_buddy", pair0b);
	js_put("instr_order3_pair_pcp", pair3);
	js_put("instr_order3_pair_buddy", pair3b);
	js_put("instr_bulk64_per_page", bulk);
	js_put("instr_loop64_per_page", loop);
	fprintf(md,
		"### Instructions per operation (callgrind)\n\n"
		"Counted, not timed, so independent of the machine's load "
		"(and blind to the cost of atomic instructions and cache "
		"misses).\n\n"
		"| case | PCP | buddy only | buddy / PCP |\n"
		"| --- | ---: | ---: | ---: |\n"
		"| order-0 alloc+free | %.0f | %.0f | %.2f |\n"
		"| order-3 alloc+free | %.0f | %.0f | %.2f |\n\n"
		"| n = 64, per page | bulk | loop | bulk / loop |\n"
		"| --- | ---: | ---: | ---: |\n"
		"| alloc + free | %.0f | %.0f | %.2f |\n\n",
		pair0, pair0b, pair0b / pair0, pair3, pair3b, pair3b / pair3,
		bulk, loop, bulk / loop);
}

static void progress(const char *what)
{
	fflush(md);
	fflush(js);
	printf("page_alloc_bench: %s done\n", what);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--instr") == 0)
		return instr_child(atoi(argv[2]), atoi(argv[3]) != 0,
				   atol(argv[4]));
	if (argc != 3) {
		fprintf(stderr, "usage: %s OUT.md OUT.json\n", argv[0]);
		return 2;
	}
	md = fopen(argv[1], "w");
	js = fopen(argv[2], "w");
	if (!md || !js) {
		perror("page_alloc_bench");
		return 1;
	}
	if (mm_host_boot(1, 256u << 20, 2, NULL))
		return 1;
	mm_debug_set(false);
	bench_pin(0);
	fprintf(md,
		"## Page allocator (mm/buddy.c, mm/pcp.c)\n\n"
		"Host library, one simulated node of 256 MiB, 2 CPUs; "
		"median of %d runs.\n\n",
		bench_runs(RUNS));
	fprintf(js, "{");
	double order0 = 0;
	single_thread_section(&order0);
	progress("single thread");
	cross_section();
	progress("cross-CPU frees");
	bulk_section(order0);
	progress("bulk");
	context_section(order0);
	progress("context");
	instr_section();
	progress("instruction counts");
	fprintf(js, "\n}\n");
	fclose(md);
	fclose(js);
	mm_host_shutdown();
	printf("page_alloc_bench: wrote %s and %s\n", argv[1], argv[2]);
	return 0;
}
