/*
 * Fuzz harness of the page allocator (buddy lists, per-CPU lists, NUMA
 * fallback) against a reference model.
 *
 * The program (after the two machine bytes, fuzz_common.h): one opcode
 * byte, picked through ops[] below, then its arguments.
 *   CPU c            this thread becomes CPU c % cpus
 *   ALLOC g o        alloc_pages(gfp(g), order(o))
 *   ALLOC_NODE n g o alloc_pages_node(node(n), gfp(g), order(o))
 *   BULK g k         alloc_pages_bulk(gfp(g), k % 65, ...)
 *   FREE i           __free_pages of live block i (drops one reference)
 *   FREE_ADDR i      free_pages(address, order) of live block i
 *   GET i p          get_page on page p of block i (any page of a
 *                    compound block, else its head)
 *   PUT i p          put_page likewise (the last reference frees it)
 *   FREE_SOME k i    free k % 32 live blocks starting at i
 *   DRAIN            drain_all_pages, then the exact counters
 *   STATS            verify the free lists; the numastat and alloc_fail
 *                    counters against the model; the stats writers
 *   PCP              pcp_set_enabled(!on)
 *   DEBUG            mm_debug_set(!on)
 * gfp(g): bit 0 __GFP_ZERO, 1 __GFP_NORETRY, 2 __GFP_THISNODE, 3
 * __GFP_COMP, 4 __GFP_ATOMIC, and __GFP_NOWARN unless bits 3-7 are all
 * set. order(o): o % 4 if bit 7 is set, else o % 12 (11 is above
 * MAX_ORDER: refused). node(n): n % (nodes + 2): a node, then -1 (this
 * CPU's), then a node that does not exist (refused).
 *
 * The model: every live block with its order, node, references and
 * contents, in an interval set (no two live blocks overlap); a page
 * bitmap of what the model holds; the numastat counters as Linux defines
 * them. It checks each result:
 *  - a block is aligned to its order, on the node its address says, with
 *    refcount 1, zeroed if asked, compound heads and tails if asked;
 *  - placement: __GFP_THISNODE and __GFP_NORETRY stay on the preferred
 *    node; a block from another node is allowed only if every node before
 *    it in the preferred node's fallback order could not serve the order
 *    (its buddy lists have no such block and this CPU's list is empty);
 *  - a NULL is allowed only if no node the request may use could serve
 *    it, and, where the allocator drained first, only if the model itself
 *    holds no free aligned range of that order on those nodes (so the
 *    buddy lists never lose a free block);
 *  - after a drain, nr_free_pages() per node is the boot figure minus the
 *    model's pages; the free lists verify; numastat and alloc_fail match.
 * At the end every block is freed and every page must be back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "zone.h"

enum {
	OP_CPU,
	OP_ALLOC,
	OP_ALLOC_NODE,
	OP_BULK,
	OP_FREE,
	OP_FREE_ADDR,
	OP_GET,
	OP_PUT,
	OP_FREE_SOME,
	OP_DRAIN,
	OP_STATS,
	OP_PCP,
	OP_DEBUG,
};

/* Weights: allocation and free dominate, checks are frequent enough. */
static const uint8_t ops[] = {
	OP_CPU,	      OP_CPU,	     OP_ALLOC,	    OP_ALLOC,	   OP_ALLOC,
	OP_ALLOC,     OP_ALLOC_NODE, OP_ALLOC_NODE, OP_ALLOC_NODE, OP_BULK,
	OP_BULK,      OP_FREE,	     OP_FREE,	    OP_FREE,	   OP_FREE,
	OP_FREE_ADDR, OP_GET,	     OP_PUT,	    OP_PUT,	   OP_FREE_SOME,
	OP_DRAIN,     OP_STATS,	     OP_PCP,	    OP_DEBUG,
};

#define MAX_LIVE 2048

struct blk {
	struct page *page;
	unsigned int order;
	int nid;
	int refs;
	bool comp;
	uint64_t id;
};

static struct blk live[MAX_LIVE];
static int nlive;
static struct fz_set set;
/* Pages the model holds, by node, and a bitmap of them by pfn offset. */
static unsigned long held_node[MM_MAX_NODES];
static uint8_t *held_map[MM_MAX_NODES];
/* Expected numastat[node][item] and alloc_fail per node. */
static unsigned long numa_model[MM_MAX_NODES][NR_NUMA_STATS];
static unsigned long fail_model[MM_MAX_NODES];

/* ---- the model's page bitmap ------------------------------------------ */

static void mark(struct page *page, unsigned int order, bool held)
{
	struct zone *z = &mm_zones[page->nid];
	unsigned long off = page_to_pfn(page) - z->start_pfn;

	for (unsigned long i = 0; i < (1UL << order); i++)
		held_map[page->nid][off + i] = held;
	held_node[page->nid] += held ? (1UL << order) : -(1UL << order);
}

/* Was this frame given to the buddy lists at boot (not a hole, not the
 * mem_map)? A frame the allocator manages has no PG_reserved. */
static bool managed(struct zone *z, unsigned long off)
{
	return !(z->mem_map[off].flags & PG_reserved);
}

/* Does node nid have an aligned range of 2^order frames, all managed and
 * none held by the model? After a drain the buddy lists must have it. */
static bool model_has_free_range(int nid, unsigned int order)
{
	struct zone *z = &mm_zones[nid];
	unsigned long n = 1UL << order;

	for (unsigned long pfn = (z->start_pfn + n - 1) & ~(n - 1);
	     pfn + n <= z->start_pfn + z->spanned_pages; pfn += n) {
		unsigned long off = pfn - z->start_pfn, i;
		for (i = 0; i < n; i++)
			if (held_map[nid][off + i] || !managed(z, off + i))
				break;
		if (i == n)
			return true;
	}
	return false;
}

static void model_boot(void)
{
	for (int n = 0; n < fz_m.nodes; n++) {
		held_map[n] = calloc(mm_zones[n].spanned_pages, 1);
		held_node[n] = 0;
	}
	memset(numa_model, 0, sizeof(numa_model));
	memset(fail_model, 0, sizeof(fail_model));
	nlive = 0;
	fz_set_clear(&set);
}

static void model_end(void)
{
	for (int n = 0; n < fz_m.nodes; n++) {
		free(held_map[n]);
		held_map[n] = NULL;
	}
}

/* ---- decoding ------------------------------------------------------------ */

static gfp_t decode_gfp(uint8_t g)
{
	gfp_t gfp = 0;

	if (g & 1)
		gfp |= __GFP_ZERO;
	if (g & 2)
		gfp |= __GFP_NORETRY;
	if (g & 4)
		gfp |= __GFP_THISNODE;
	if (g & 8)
		gfp |= __GFP_COMP;
	if (g & 16)
		gfp |= __GFP_ATOMIC;
	if (g < 0xf8) /* a warning line now and then, not at every failure */
		gfp |= __GFP_NOWARN;
	return gfp;
}

static unsigned int decode_order(uint8_t o)
{
	return (o & 0x80) ? o % 4 : o % 12;
}

static int decode_node(uint8_t n)
{
	int v = n % (fz_m.nodes + 2);

	if (v == fz_m.nodes)
		return -1;
	if (v == fz_m.nodes + 1)
		return fz_m.nodes + n % 3; /* no such node */
	return v;
}

/* ---- checks of one allocation ------------------------------------------ */

/* numastat as Linux defines it, for pages landing on got. */
static void model_count_numa(int preferred, int got, unsigned long pages)
{
	if (got == preferred) {
		numa_model[got][NUMA_HIT] += pages;
	} else {
		numa_model[got][NUMA_MISS] += pages;
		numa_model[preferred][NUMA_FOREIGN] += pages;
	}
	numa_model[got][got == fz_m.cpu_node[fz_m.cpu] ? NUMA_LOCAL
						       : NUMA_OTHER] += pages;
}

/* A NULL for a request preferring pref: the page allocator's rules
 * (fz_check_page_null), and, after a drain, the model's own view. */
static void check_null(int pref, gfp_t gfp, unsigned int order)
{
	fz_check_page_null(pref, gfp, order);
	if (gfp & __GFP_NORETRY)
		return;
	for (int n = 0; n < fz_m.nodes; n++)
		FZ_CHECK(((gfp & __GFP_THISNODE) && n != pref) ||
				 !model_has_free_range(n, order),
			 "order %u failed after a drain, but the model sees a "
			 "free aligned range of that order on node %d",
			 order, n);
}

static void check_block(struct page *page, unsigned int order, gfp_t gfp)
{
	void *addr = page_address(page);
	int nid = page_to_nid(page);

	FZ_CHECK((page_to_pfn(page) & ((1UL << order) - 1)) == 0,
		 "order-%u block at pfn %#lx is not aligned", order,
		 page_to_pfn(page));
	FZ_CHECK(fz_addr_node(addr) == nid,
		 "block %p says node %d, its address is node %d's", addr, nid,
		 fz_addr_node(addr));
	FZ_CHECK(page_ref_count(page) == 1, "new block %p has refcount %d",
		 addr, page_ref_count(page));
	FZ_CHECK(!(page->flags & (PG_buddy | PG_pcp | PG_reserved | PG_slab)),
		 "new block %p has flags %#x", addr, page->flags);
	if ((gfp & __GFP_COMP) && order) {
		FZ_CHECK(page->flags & PG_head, "compound block %p: no PG_head",
			 addr);
		for (unsigned long i = 1; i < (1UL << order); i++)
			FZ_CHECK(compound_head(page + i) == page,
				 "compound block %p: page %lu has another head",
				 addr, i);
	}
	if (gfp & __GFP_ZERO)
		FZ_CHECK(fz_is_zero(addr, MM_PAGE_SIZE << order),
			 "__GFP_ZERO block %p (order %u) is not zeroed", addr,
			 order);
}

static void add_live(struct page *page, unsigned int order, gfp_t gfp)
{
	struct blk *b;

	check_block(page, order, gfp);
	FZ_CHECK(nlive < MAX_LIVE, "model full");
	b = &live[nlive++];
	*b = (struct blk){page,
			  order,
			  page_to_nid(page),
			  1,
			  (gfp & __GFP_COMP) && order,
			  fz_new_id()};
	fz_set_add(&set, page_address(page), MM_PAGE_SIZE << order, b->id,
		   "block");
	fz_fill(page_address(page), MM_PAGE_SIZE << order, b->id);
	mark(page, order, true);
}

/* ---- operations ---------------------------------------------------------- */

static void op_alloc(int nid_arg, gfp_t gfp, unsigned int order)
{
	int pref = nid_arg < 0 ? fz_m.cpu_node[fz_m.cpu] : nid_arg;
	unsigned long inj = fz_injected();
	struct page *page;
	bool injected;

	if (nlive >= MAX_LIVE) /* the model is full: skip, as op_bulk does */
		return;
	page = nid_arg == -2 ? alloc_pages(gfp, order)
			     : alloc_pages_node(nid_arg, gfp, order);
	injected = fz_injected() != inj;
	fz_ops++;
	fz_trace("alloc_pages%s(%d, gfp %#x, order %u) = %p (node %d)",
		 nid_arg == -2 ? "" : "_node", nid_arg, gfp, order,
		 page ? page_address(page) : NULL,
		 page ? page_to_nid(page) : -1);
	if (nid_arg == -2)
		pref = fz_m.cpu_node[fz_m.cpu];
	if (pref >= fz_m.nodes) {
		FZ_CHECK(!page, "alloc on node %d (of %d) succeeded", pref,
			 fz_m.nodes);
		return;
	}
	if (!page) {
		fail_model[pref]++;
		FZ_CHECK(order <= MAX_ORDER || !page, "order above MAX_ORDER");
		if (order <= MAX_ORDER && !injected)
			check_null(pref, gfp, order);
		return;
	}
	FZ_CHECK(order <= MAX_ORDER, "order %u above MAX_ORDER served", order);
	fz_check_page_placement(pref, page_to_nid(page), gfp, order, injected);
	model_count_numa(pref, page_to_nid(page), 1UL << order);
	add_live(page, order, gfp);
}

static void op_bulk(gfp_t gfp, unsigned int nr)
{
	struct page *pages[64];
	int pref = fz_m.cpu_node[fz_m.cpu];
	unsigned long inj = fz_injected();
	bool remote = false;
	unsigned int n;

	if (nlive + (int)nr > MAX_LIVE)
		return;
	n = alloc_pages_bulk(gfp, nr, pages);
	fz_ops++;
	fz_trace("alloc_pages_bulk(gfp %#x, %u) = %u", gfp, nr, n);
	FZ_CHECK(n <= nr, "bulk of %u returned %u", nr, n);
	if (n == 0 && nr)
		fail_model[pref]++;
	for (unsigned int i = 0; i < n; i++) {
		int got = page_to_nid(pages[i]);

		FZ_CHECK(got == pref ||
				 !(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
			 "bulk gfp %#x: page of node %d for node %d", gfp, got,
			 pref);
		if (got != pref)
			remote = true;
		model_count_numa(pref, got, 1);
		add_live(pages[i], 0, gfp & ~__GFP_COMP);
	}
	/* Another node's page only once this node's lists ran dry; if they
	 * hold pages again, a drain refilled them and the second pass then
	 * served the rest of the bulk from here. */
	FZ_CHECK(!remote || nr_free_pages_node(pref) == 0 ||
			 (n == nr && page_to_nid(pages[n - 1]) == pref),
		 "bulk took other nodes' pages while node %d has %lu free",
		 pref, nr_free_pages_node(pref));
	if (n < nr && fz_injected() == inj)
		check_null(pref, gfp, 0);
}

static void remove_live(int i)
{
	struct blk *b = &live[i];

	fz_check_fill(page_address(b->page), MM_PAGE_SIZE << b->order, b->id,
		      "block");
	FZ_CHECK(fz_set_remove(&set, (uintptr_t)page_address(b->page)),
		 "block %p not in the set", page_address(b->page));
	mark(b->page, b->order, false);
	live[i] = live[--nlive];
}

/* Drop one reference of live block i by way (0 __free_pages, 1
 * free_pages, 2 put_page on page p). */
static void op_free(int i, int way, unsigned int p)
{
	struct blk *b = &live[i];
	struct page *target = b->page;
	unsigned int order = b->order;

	if (way == 2 && b->comp)
		target = b->page + p % (1u << b->order);
	fz_ops++;
	fz_trace("%s(%p + %ld, order %u) refs %d",
		 way == 0   ? "__free_pages"
		 : way == 1 ? "free_pages"
			    : "put_page",
		 page_address(b->page), (long)(target - b->page), b->order,
		 b->refs);
	FZ_CHECK(page_ref_count(b->page) == b->refs,
		 "block %p: refcount %d, the model holds %d",
		 page_address(b->page), page_ref_count(b->page), b->refs);
	if (b->refs == 1)
		remove_live(i); /* check the contents before they go; b is
				   another block from here on */
	else
		b->refs--;
	if (way == 0)
		__free_pages(target, order);
	else if (way == 1)
		free_pages(page_address(target), order);
	else
		put_page(target);
}

static void op_get(int i, unsigned int p)
{
	struct blk *b = &live[i];
	struct page *target =
		b->comp ? b->page + p % (1u << b->order) : b->page;

	if (b->refs >= 8)
		return;
	fz_ops++;
	fz_trace("get_page(%p + %ld)", page_address(b->page),
		 (long)(target - b->page));
	get_page(target);
	b->refs++;
	FZ_CHECK(page_ref_count(b->page) == b->refs,
		 "block %p: refcount %d after get_page, the model holds %d",
		 page_address(b->page), page_ref_count(b->page), b->refs);
}

static void check_counters(bool drained)
{
	for (int n = 0; n < fz_m.nodes; n++) {
		if (drained)
			FZ_CHECK(nr_free_pages_node(n) + held_node[n] ==
					 fz_m.boot_free_node[n],
				 "node %d after a drain: %lu free + %lu held "
				 "by the model, %lu at boot",
				 n, nr_free_pages_node(n), held_node[n],
				 fz_m.boot_free_node[n]);
		else
			FZ_CHECK(nr_free_pages_node(n) + held_node[n] +
						 fz_pcp_pages(n) ==
					 fz_m.boot_free_node[n],
				 "node %d: %lu free + %lu held + %lu on "
				 "per-CPU lists, %lu at boot",
				 n, nr_free_pages_node(n), held_node[n],
				 fz_pcp_pages(n), fz_m.boot_free_node[n]);
		for (int s = 0; s < NR_NUMA_STATS; s++)
			FZ_CHECK(numa_stat_read(n, s) == numa_model[n][s],
				 "node %d numastat[%d] = %lu, the model "
				 "counted %lu",
				 n, s, numa_stat_read(n, s), numa_model[n][s]);
		FZ_CHECK(atomic_load(&mm_zones[n].alloc_fail) == fail_model[n],
			 "node %d alloc_fail %lu, the model counted %lu", n,
			 atomic_load(&mm_zones[n].alloc_fail), fail_model[n]);
	}
}

/* The statistics writers: snprintf semantics, whole text when it fits. */
static void check_writer(int (*fn)(char *, size_t), const char *name)
{
	static char buf[1 << 16];
	int need = fn(NULL, 0), got = fn(buf, sizeof(buf));

	FZ_CHECK(need > 0 && need == got && (size_t)got == strlen(buf),
		 "%s: length %d, then %d, text %zu", name, need, got,
		 strlen(buf));
	FZ_CHECK(fn(buf, 8) == need && strlen(buf) == 7,
		 "%s: a short buffer is not cut as snprintf does", name);
}

static void op_stats(void)
{
	long listed = mm_verify_free_lists();

	fz_ops++;
	fz_trace("stats");
	FZ_CHECK(listed >= 0 && (unsigned long)listed == nr_free_pages(),
		 "free lists list %ld pages, nr_free_pages says %lu", listed,
		 nr_free_pages());
	check_counters(false);
	check_writer(buddyinfo_json, "buddyinfo_json");
	check_writer(zoneinfo_text, "zoneinfo_text");
	check_writer(numastat_json, "numastat_json");
}

static void run_op(struct fz_in *in)
{
	int op = fz_pick(in, ops, sizeof(ops)), i;
	uint8_t a, b;

	switch (op) {
	case OP_CPU:
		fz_set_cpu(fz_u8(in));
		fz_trace("cpu %d", fz_m.cpu);
		break;
	case OP_ALLOC:
		a = fz_u8(in);
		op_alloc(-2, decode_gfp(a), decode_order(fz_u8(in)));
		break;
	case OP_ALLOC_NODE:
		i = decode_node(fz_u8(in));
		a = fz_u8(in);
		op_alloc(i, decode_gfp(a), decode_order(fz_u8(in)));
		break;
	case OP_BULK:
		a = fz_u8(in);
		op_bulk(decode_gfp(a), fz_u8(in) % 65);
		break;
	case OP_FREE:
	case OP_FREE_ADDR:
		i = (int)fz_u16(in);
		if (nlive)
			op_free(i % nlive, op == OP_FREE ? 0 : 1, 0);
		break;
	case OP_GET:
	case OP_PUT:
		i = (int)fz_u16(in);
		b = fz_u8(in);
		if (nlive && op == OP_GET)
			op_get(i % nlive, b);
		else if (nlive)
			op_free(i % nlive, 2, b);
		break;
	case OP_FREE_SOME:
		a = fz_u8(in) % 32;
		i = (int)fz_u16(in);
		for (; a && nlive; a--)
			op_free(i++ % nlive, a & 1, 0);
		break;
	case OP_DRAIN:
		drain_all_pages();
		fz_ops++;
		fz_trace("drain_all_pages");
		check_counters(true);
		break;
	case OP_STATS:
		op_stats();
		break;
	case OP_PCP:
		pcp_set_enabled(!atomic_load(&mm_pcp_enabled));
		fz_ops++;
		fz_trace("pcp %s", atomic_load(&mm_pcp_enabled) ? "on" : "off");
		break;
	case OP_DEBUG:
		mm_debug_set(!mm_debug_on());
		fz_trace("debug %s", mm_debug_on() ? "on" : "off");
		break;
	}
}

static void begin(struct fz_in *in)
{
	(void)in;
	model_boot();
}

static unsigned long end(void)
{
	while (nlive)
		op_free(nlive - 1, nlive & 1, 0);
	drain_all_pages();
	check_counters(true);
	model_end();
	return 0;
}

static const struct fz_harness harness = {"fuzz_pages", 2, begin, run_op, end};
FZ_HARNESS(harness)
