/* What the fuzz harnesses share: see fuzz_common.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fault_inject.h"
#include "slab_internal.h"
#include "zone.h"

const char *fz_name = "fuzz";
uint64_t fz_ops;
bool fz_tracing;
unsigned long fz_expected_reports;
struct fz_machine fz_m;

static uint64_t fz_inputs;
static uint64_t fz_next_id;
/* FUZZ_STOP_OPS=N: stop once N operations ran (0: no such stop). */
static uint64_t fz_stop_ops;
static bool fz_summary_done;

static void fz_summary(void)
{
	if (fz_summary_done)
		return;
	fz_summary_done = true;
	fprintf(stderr,
		"%s: %llu operations in %llu inputs, 0 model mismatches\n",
		fz_name, (unsigned long long)fz_ops,
		(unsigned long long)fz_inputs);
}

void fz_harness_init(const char *name)
{
	const char *t = getenv("FUZZ_TRACE");

	const char *stop = getenv("FUZZ_STOP_OPS");

	fz_name = name;
	fz_tracing = t && *t && *t != '0';
	fz_stop_ops = stop ? strtoull(stop, NULL, 10) : 0;
	atexit(fz_summary);
}

/*
 * Once FUZZ_STOP_OPS operations ran, after a whole input: the summary,
 * then SIGUSR1, libFuzzer's request to exit gracefully (it finishes the
 * input it is in, prints its final stats and exits 0 with _Exit, so
 * atexit handlers do not run: the summary goes first).
 */
static void fz_maybe_stop(void)
{
	if (!fz_stop_ops || fz_ops < fz_stop_ops || fz_summary_done)
		return;
	fz_summary();
	raise(SIGUSR1);
}

void fz_fail_at(const char *file, int line, const char *cond, const char *fmt,
		...)
{
	va_list ap;

	fprintf(stderr,
		"%s: MODEL MISMATCH at operation %llu of input %llu (%s:%d: "
		"%s): ",
		fz_name, (unsigned long long)fz_ops,
		(unsigned long long)fz_inputs, file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr,
		"%s: MODEL MISMATCH at operation %llu of input %llu: ", fz_name,
		(unsigned long long)fz_ops, (unsigned long long)fz_inputs);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void fz_trace_line(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  #%llu cpu%d ", (unsigned long long)fz_ops, fz_m.cpu);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the machine ----------------------------------------------------- */

static int distance_of(int variant, int nodes, int a, int b)
{
	int d = a > b ? a - b : b - a;

	if (a == b)
		return 10;
	switch (variant) {
	case 1:
		return 10 + 10 * d; /* linear: 0-1-2-3 */
	case 2:
		return 10 + 10 * (d < nodes - d ? d : nodes - d); /* ring */
	case 3:
		return 10 + 10 * (nodes - b); /* the highest node nearest */
	default:
		return 20;
	}
}

static void record_node_spans(void)
{
	struct mm_range r[MM_MAX_RANGES];
	int n = mm_platform_ranges(r, MM_MAX_RANGES);

	for (int i = 0; i < MM_MAX_NODES; i++) {
		fz_m.node_lo[i] = UINTPTR_MAX;
		fz_m.node_hi[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		if (r[i].start < fz_m.node_lo[r[i].nid])
			fz_m.node_lo[r[i].nid] = r[i].start;
		if (r[i].end > fz_m.node_hi[r[i].nid])
			fz_m.node_hi[r[i].nid] = r[i].end;
	}
}

void fz_boot(struct fz_in *in, int min_mib)
{
	uint8_t b0 = fz_u8(in), b1 = fz_u8(in);
	int dist[MM_MAX_NODES * MM_MAX_NODES];
	struct mm_host_hole hole = {
		.nid = 0, .offset = 1 << 20, .len = 1 << 20};
	struct mm_host_config c = {0};

	fz_inputs++;
	memset(&fz_m, 0, sizeof(fz_m));
	fz_m.nodes = 1 + (b0 & 3);
	fz_m.cpus = 1 + ((b0 >> 2) & 7);
	fz_m.debug = (b0 >> 5) & 1;
	for (int i = 0; i < fz_m.cpus; i++)
		fz_m.cpu_node[i] = (b0 & 0x40) ? i % fz_m.nodes
					       : i * fz_m.nodes / fz_m.cpus;
	for (int a = 0; a < fz_m.nodes; a++)
		for (int b = 0; b < fz_m.nodes; b++)
			dist[a * fz_m.nodes + b] =
				distance_of((b1 >> 4) & 3, fz_m.nodes, a, b);
	c.nr_nodes = fz_m.nodes;
	c.nr_cpus = fz_m.cpus;
	c.bytes_per_node = (size_t)(min_mib + (b1 & 15)) << 20;
	c.cpu_to_node = fz_m.cpu_node;
	c.distance = dist;
	c.holes = &hole;
	c.nr_holes = (b0 & 0x80) && c.bytes_per_node >= (3u << 20);
	c.keep_memory = true; /* no page faults per input */
	if (mm_host_boot_config(&c) != 0)
		fz_fail("boot of %d nodes x %zu bytes, %d cpus failed",
			c.nr_nodes, c.bytes_per_node, c.nr_cpus);
	mm_debug_set(fz_m.debug);
	mm_debug_set_quiet(false);
	mm_debug_reset_counts();
	fz_expected_reports = 0;
	if ((b1 >> 6) == 3)
		pcp_set_enabled(false);
	record_node_spans();
	fz_m.boot_free = nr_free_pages();
	for (int n = 0; n < fz_m.nodes; n++)
		fz_m.boot_free_node[n] = nr_free_pages_node(n);
	fz_trace("boot %d nodes x %zu MiB%s, %d cpus, distances %d, debug %d, "
		 "pcp %s: %lu pages free",
		 fz_m.nodes, c.bytes_per_node >> 20,
		 c.nr_holes ? " (1 MiB hole in node 0)" : "", fz_m.cpus,
		 (b1 >> 4) & 3, fz_m.debug, (b1 >> 6) == 3 ? "off" : "on",
		 fz_m.boot_free);
}

void fz_set_cpu(int cpu)
{
	fz_m.cpu = cpu % fz_m.cpus;
	if (mm_host_set_cpu(fz_m.cpu) != 0)
		fz_fail("mm_host_set_cpu(%d) of %d CPUs refused", fz_m.cpu,
			fz_m.cpus);
}

int fz_addr_node(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;

	for (int n = 0; n < fz_m.nodes; n++)
		if (a >= fz_m.node_lo[n] && a < fz_m.node_hi[n])
			return n;
	return -1;
}

bool fz_node_can_serve(int nid, unsigned int order, int cpu)
{
	struct zone *z = &mm_zones[nid];

	for (unsigned int o = order; o <= MAX_ORDER; o++)
		if (z->free_area[o].nr_free)
			return true;
	return order <= PCP_MAX_ORDER && atomic_load(&mm_pcp_enabled) &&
	       z->pcp[cpu].count[order] > 0;
}

void fz_check_page_placement(int pref, int got, gfp_t gfp, unsigned int order,
			     bool injected)
{
	int order_of[MM_MAX_NODES], nr = numa_node_order(pref, order_of);

	if (got == pref)
		return;
	FZ_CHECK(!(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
		 "gfp %#x preferring node %d got a block of node %d", gfp, pref,
		 got);
	if (injected)
		return;
	for (int i = 0; i < nr && order_of[i] != got; i++)
		FZ_CHECK(!fz_node_can_serve(order_of[i], order, fz_m.cpu),
			 "order %u from node %d though node %d (before it "
			 "in node %d's fallback order) could serve it",
			 order, got, order_of[i], pref);
}

void fz_check_page_null(int pref, gfp_t gfp, unsigned int order)
{
	bool drained = !(gfp & __GFP_NORETRY);
	bool one_node = gfp & (__GFP_THISNODE | __GFP_NORETRY);

	for (int n = 0; n < fz_m.nodes; n++) {
		if (one_node && n != pref)
			continue;
		FZ_CHECK(!fz_node_can_serve(n, order, fz_m.cpu),
			 "order %u (gfp %#x, node %d) failed though node %d "
			 "can serve it",
			 order, gfp, pref, n);
		FZ_CHECK(!drained || fz_pcp_pages(n) == 0,
			 "order %u failed after a drain, but node %d has %lu "
			 "pages on per-CPU lists",
			 order, n, fz_pcp_pages(n));
	}
}

unsigned long fz_pcp_pages(int nid)
{
	unsigned long pages = 0;

	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++)
			pages += (unsigned long)mm_zones[nid].pcp[cpu].count[o]
				 << o;
	return pages;
}

int fz_run(const struct fz_harness *h, const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size, 0};

	fz_boot(&in, h->min_mib);
	if (h->begin)
		h->begin(&in);
	while (fz_more(&in))
		h->op(&in);
	fz_teardown_check(h->end());
	fz_maybe_stop();
	return 0;
}

int fz_run_plain(void (*fn)(const uint8_t *data, size_t size),
		 const uint8_t *data, size_t size)
{
	fz_inputs++;
	fn(data, size);
	fz_maybe_stop();
	return 0;
}

void fz_teardown_check(unsigned long held_pages)
{
	long listed;

	drain_all_pages();
	for (int n = 0; n < fz_m.nodes; n++)
		FZ_CHECK(fz_pcp_pages(n) == 0,
			 "node %d: %lu pages still on per-CPU lists after a "
			 "drain",
			 n, fz_pcp_pages(n));
	FZ_CHECK(nr_free_pages() + held_pages == fz_m.boot_free,
		 "after teardown %lu pages free + %lu held, %lu at boot",
		 nr_free_pages(), held_pages, fz_m.boot_free);
	listed = mm_verify_free_lists();
	FZ_CHECK(listed >= 0 && (unsigned long)listed == nr_free_pages(),
		 "free lists list %ld pages, nr_free_pages says %lu", listed,
		 nr_free_pages());
	FZ_CHECK(mm_debug_total() == fz_expected_reports,
		 "the debug checks reported %lu misuses, the program made %lu",
		 mm_debug_total(), fz_expected_reports);
	mm_debug_set(false);
	mm_host_shutdown();
}

unsigned long fz_shrink_kmalloc(void)
{
	struct list_head *pos;
	unsigned long held = 0;

	for (int cpu = 0; cpu < fz_m.cpus; cpu++) {
		fz_set_cpu(cpu);
		list_for_each (pos, &slab_caches) {
			kmem_cache_shrink(
				list_entry(pos, struct kmem_cache, list));
		}
	}
	list_for_each (pos, &slab_caches) {
		struct kmem_cache *s = list_entry(pos, struct kmem_cache, list);
		unsigned long slabs = 0;

		FZ_CHECK(!strncmp(s->name, "kmalloc-", 8),
			 "cache %s still listed after its destroy", s->name);
		for (int n = 0; n < MM_MAX_NODES; n++)
			slabs += s->node[n].nr_slabs;
		FZ_CHECK(slabs == 0, "%s keeps %lu slabs with nothing in use",
			 s->name, slabs);
		held += 1UL << s->alloc_order;
	}
	return held;
}

void fz_set_add(struct fz_set *s, const void *p, size_t len, uint64_t id,
		const char *what)
{
	struct fz_ival c;

	if (!fz_set_insert(s, (uintptr_t)p, len, id, &c))
		fz_fail("%s [%p, +%zu) (id %llu) overlaps live object "
			"[%#lx, %#lx) (id %llu): two owners",
			what, p, len, (unsigned long long)id,
			(unsigned long)c.lo, (unsigned long)c.hi,
			(unsigned long long)c.id);
}

/* ---- contents -------------------------------------------------------- */

/*
 * The pattern: byte off of object id is byte (off & 7) of the word
 * id * golden + (off >> 3). Written and checked a word at a time (the
 * byte loop was 40% of a harness's time), with memcpy for objects that
 * start at any address (fragments).
 */
static inline uint64_t pattern_word(uint64_t id, size_t off)
{
	return id * 0x9e3779b97f4a7c15ull + (off >> 3);
}

static inline uint8_t pattern_byte(uint64_t id, size_t off)
{
	return (uint8_t)(pattern_word(id, off) >> (8 * (off & 7)));
}

/* Objects up to this size are filled whole; larger ones (page blocks) in
 * the first and last 64 bytes of each page. */
#define FZ_FULL_FILL (16u << 10)

/*
 * The two loops below are most of the model's time (verify_range alone
 * was 14 % of fuzz_pages' samples) and run without ASan's shadow checks:
 * every object lives in the simulated nodes' memory, anonymous mmaps
 * ASan knows nothing of (it sees them as all addressable), so the check
 * of each load could never report. What it could have caught, an object
 * reaching outside the nodes, in_nodes() checks instead.
 */
#define FZ_NO_ASAN __attribute__((no_sanitize("address")))

FZ_NO_ASAN static void fill_range(uint8_t *p, size_t from, size_t to,
				  uint64_t id)
{
	size_t i = from;

	for (; i < to && (i & 7); i++)
		p[i] = pattern_byte(id, i);
	for (; i + 8 <= to; i += 8) {
		uint64_t w = pattern_word(id, i);
		memcpy(p + i, &w, 8);
	}
	for (; i < to; i++)
		p[i] = pattern_byte(id, i);
}

FZ_NO_ASAN static long verify_range(const uint8_t *p, size_t from, size_t to,
				    uint64_t id)
{
	size_t i = from;

	for (; i + 8 <= to && !(i & 7); i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		if (w != pattern_word(id, i))
			break; /* find the byte below */
	}
	for (; i < to; i++)
		if (p[i] != pattern_byte(id, i))
			return (long)i;
	return -1;
}

/* Large objects: the first and last 64 bytes of each page-sized step,
 * clamped to [0, len): the object need not start on a page (a committed
 * TX fragment is any size), and nothing past its end is touched. */
static void sample_step(size_t pg, size_t len, size_t *head_end,
			size_t *tail_from, size_t *tail_end)
{
	size_t end = pg + MM_PAGE_SIZE < len ? pg + MM_PAGE_SIZE : len;

	*head_end = pg + 64 < end ? pg + 64 : end;
	*tail_end = end;
	*tail_from = end - 64 > *head_end ? end - 64 : *head_end;
}

/* Is [p, p + len) inside one simulated node's memory? */
static bool in_nodes(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	for (int n = 0; n < fz_m.nodes; n++)
		if (a >= fz_m.node_lo[n] && len <= fz_m.node_hi[n] - a &&
		    a < fz_m.node_hi[n])
			return true;
	return false;
}

void fz_fill(void *p, size_t len, uint64_t id)
{
	size_t head_end, tail_from, tail_end;

	FZ_CHECK(in_nodes(p, len),
		 "object %p (%zu bytes, id %llu) is not inside one node's "
		 "memory",
		 p, len, (unsigned long long)id);
	if (len <= FZ_FULL_FILL) {
		fill_range(p, 0, len, id);
		return;
	}
	for (size_t pg = 0; pg < len; pg += MM_PAGE_SIZE) {
		sample_step(pg, len, &head_end, &tail_from, &tail_end);
		fill_range(p, pg, head_end, id);
		fill_range(p, tail_from, tail_end, id);
	}
}

long fz_verify(const void *p, size_t len, uint64_t id)
{
	size_t head_end, tail_from, tail_end;
	long bad;

	if (len <= FZ_FULL_FILL)
		return verify_range(p, 0, len, id);
	for (size_t pg = 0; pg < len; pg += MM_PAGE_SIZE) {
		sample_step(pg, len, &head_end, &tail_from, &tail_end);
		bad = verify_range(p, pg, head_end, id);
		if (bad < 0)
			bad = verify_range(p, tail_from, tail_end, id);
		if (bad >= 0)
			return bad;
	}
	return -1;
}

void fz_check_fill(const void *p, size_t len, uint64_t id, const char *what)
{
	long bad = fz_verify(p, len, id);

	if (bad >= 0)
		fz_fail("%s %p (%zu bytes, id %llu): byte %ld is %#x, its "
			"owner wrote %#x: someone else wrote into a live "
			"object",
			what, p, len, (unsigned long long)id, bad,
			((const uint8_t *)p)[bad],
			pattern_byte(id, (size_t)bad));
}

bool fz_is_zero(const void *p, size_t len)
{
	static const uint8_t zero[4096];
	const uint8_t *b = p;

	for (; len >= sizeof(zero); b += sizeof(zero), len -= sizeof(zero))
		if (memcmp(b, zero, sizeof(zero)))
			return false;
	return !memcmp(b, zero, len);
}

uint64_t fz_new_id(void)
{
	return ++fz_next_id;
}

/* ---- ballast --------------------------------------------------------- */

#define FZ_BALLAST_MAX 256
static struct {
	struct page *page;
	unsigned int order;
} ballast[FZ_BALLAST_MAX];
static unsigned int nr_ballast;

void fz_ballast_take(struct fz_set *live, int nid, unsigned int order)
{
	struct page *p;

	if (nr_ballast == FZ_BALLAST_MAX)
		return;
	p = alloc_pages_node(nid, __GFP_THISNODE | __GFP_NOWARN, order);
	fz_trace("ballast: alloc_pages_node(%d, THISNODE, %u) = %p", nid, order,
		 p ? page_address(p) : NULL);
	if (!p)
		return;
	FZ_CHECK(page_to_nid(p) == nid, "ballast block of node %d from node %d",
		 nid, page_to_nid(p));
	fz_set_add(live, page_address(p), MM_PAGE_SIZE << order, 0,
		   "ballast block");
	ballast[nr_ballast].page = p;
	ballast[nr_ballast++].order = order;
}

void fz_ballast_release(struct fz_set *live, unsigned int idx)
{
	if (!nr_ballast)
		return;
	idx %= nr_ballast;
	fz_trace("ballast: free %p order %u", page_address(ballast[idx].page),
		 ballast[idx].order);
	FZ_CHECK(
		fz_set_remove(live, (uintptr_t)page_address(ballast[idx].page)),
		"ballast block %p not in the live set",
		page_address(ballast[idx].page));
	__free_pages(ballast[idx].page, ballast[idx].order);
	ballast[idx] = ballast[--nr_ballast];
}

void fz_ballast_release_all(struct fz_set *live)
{
	while (nr_ballast)
		fz_ballast_release(live, 0);
}

unsigned long fz_injected(void)
{
	unsigned long n = 0;

	for (int site = 0; site < MM_FAULT_NR_SITES; site++)
		n += mm_fault_injected(site);
	return n;
}
