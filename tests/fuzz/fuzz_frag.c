/*
 * Fuzz harness of the page fragment allocator (private caches, the TX
 * prepare/commit/probe/abort API, the per-CPU napi and netdev caches)
 * against a reference model.
 *
 * The program (after the two machine bytes, fuzz_common.h): one opcode
 * byte, picked through ops[] below, then its arguments. A cache c % 6 is
 * one of four private caches (0-3) or this CPU's napi (4) or netdev (5)
 * cache.
 *   CPU x                this thread becomes CPU x % cpus
 *   ALLOC c s a g        page_frag_alloc_align(size(s), align(a), gfp(g))
 *                        (a == 0: page_frag_alloc; napi/netdev_alloc_frag*)
 *   FREE i o x           page_frag_free(fragment i + o % its length) on
 *                        CPU x % cpus (a remote free across nodes)
 *   DRAIN c              page_frag_cache_drain; for 4/5
 *                        page_frag_percpu_drain(this CPU)
 *   PREPARE c s a g      page_frag_prepare_align (private caches)
 *   PROBE c s            page_frag_probe
 *   COMMIT c u           page_frag_commit(the last prepare, used(u))
 *   NOREF c u            page_frag_commit_noref
 *   ABORT c w            page_frag_abort of the last fragment (w % 4 !=
 *                        0), or of a wrong range (an older fragment, part
 *                        of the last), which must be refused
 *   POLICY c p n         set the refill policy p % 5 (4: bad) node n
 *   ORDER0               page_frag_force_order0(!on)
 *   BALLAST n o          take an order o % 4 block of node n (THISNODE)
 *   UNBALLAST i          give ballast block i back
 *   STATS                page_frag_stats against the model; the writers
 * size(s): 0, 1, 2, 63, 64, 1500, 4096, 4097 for s < 8, else 1 + s * 17 %
 * 4096; align(a): 1 << (a % 13), or a bad one (0 is "none"; a >= 250:
 * 3, 8192); gfp(g): bit 0 __GFP_NORETRY, 1 __GFP_THISNODE, 2
 * __GFP_ZERO; always __GFP_NOWARN. used(u): 0, 1, the prepared size, the
 * room, the room + 1, or u % room.
 *
 * The model: every live fragment (its cache, block, id) in an interval set
 * with the ballast; per cache the block it carves now, its last fragment
 * (abortable or extendable) and what its last prepare described; the
 * counters. It checks:
 *  - a fragment is aligned, inside one block of order 0 or 3, overlaps
 *    nothing live, keeps its contents until freed;
 *  - what prepare and probe describe is aligned, reaches the block's end,
 *    holds the size asked, and overlaps no live fragment;
 *  - commit succeeds exactly when its contract says it must (right after
 *    a prepare, 1..room bytes) and is refused when it must be (0 or too
 *    many bytes, nothing prepared, the block gone); abort and commit_noref
 *    likewise; a refusal is counted (tx_misuse) and takes nothing;
 *  - a new block comes from the node its policy names (local: the CPU's;
 *    node N; interleave: the cache's cursor), another node's only when
 *    that node could not serve a page; a NULL only when no node the
 *    request may use could;
 *  - bad sizes and alignments are refused and counted; the fragments,
 *    frees, remote frees, drains, failures and misuse counters equal the
 *    model's;
 *  - at the end every fragment is freed and every cache drained: every
 *    page is back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

enum {
	OP_CPU,
	OP_ALLOC,
	OP_FREE,
	OP_DRAIN,
	OP_PREPARE,
	OP_PROBE,
	OP_COMMIT,
	OP_NOREF,
	OP_ABORT,
	OP_POLICY,
	OP_ORDER0,
	OP_BALLAST,
	OP_UNBALLAST,
	OP_STATS,
};

static const uint8_t ops[] = {
	OP_CPU,	      OP_CPU,	  OP_ALLOC,   OP_ALLOC,	 OP_ALLOC,  OP_ALLOC,
	OP_ALLOC,     OP_FREE,	  OP_FREE,    OP_FREE,	 OP_FREE,   OP_FREE,
	OP_DRAIN,     OP_PREPARE, OP_PREPARE, OP_PROBE,	 OP_COMMIT, OP_COMMIT,
	OP_NOREF,     OP_ABORT,	  OP_ABORT,   OP_POLICY, OP_ORDER0, OP_BALLAST,
	OP_UNBALLAST, OP_STATS,
};

#define NR_PRIVATE 4
#define MAX_LIVE   4096

/* What commit may do with the last prepare of a cache. */
enum pf_state { PF_MUST_FAIL, PF_MUST_WORK, PF_EITHER };

struct mcache {
	struct page_frag_cache *nc; /* NULL for the per-CPU ones */
	void *block;		    /* the block it carves now, or NULL */
	int last;		    /* its last fragment (index), or -1 */
	struct page_frag pf;	    /* its last prepare / probe */
	void *pf_va;
	unsigned int pf_asked;
	enum pf_state pf_state;
	int policy, node; /* what the model set */
	bool last_freed;  /* its last fragment was freed, not aborted */
};

struct frag {
	char *va;
	unsigned int len;
	int cache; /* model cache index, or -1 once it is not the last */
	uint64_t id;
};

static struct page_frag_cache private_nc[NR_PRIVATE];
/* 0-3 private; 4 + 2 * cpu napi, 5 + 2 * cpu netdev. */
static struct mcache mc[NR_PRIVATE + 2 * MM_MAX_CPUS];
static struct frag live[MAX_LIVE];
static int nlive;
static struct fz_set set;
static struct page_frag_stats base, want; /* counters at boot, expected */
static bool order0;

static int cache_index(uint8_t c)
{
	c %= 6;
	return c < NR_PRIVATE ? c : NR_PRIVATE + 2 * fz_m.cpu + (c - 4);
}

static bool is_napi(int k)
{
	return k >= NR_PRIVATE && !((k - NR_PRIVATE) & 1);
}

/* ---- decoding ------------------------------------------------------------- */

static unsigned int decode_size(uint8_t s)
{
	static const unsigned int picks[8] = {0,  1,	2,    63,
					      64, 1500, 4096, 4097};

	return s < 8 ? picks[s] : 1 + (unsigned int)s * 17 % 4096;
}

static unsigned int decode_align(uint8_t a)
{
	if (a >= 250)
		return a & 1 ? 3 : 8192;
	return a ? 1u << (a % 13) : 0;
}

static gfp_t decode_gfp(uint8_t g)
{
	return __GFP_NOWARN | (g & 1 ? __GFP_NORETRY : 0) |
	       (g & 2 ? __GFP_THISNODE : 0) | (g & 4 ? __GFP_ZERO : 0);
}

static bool size_ok(unsigned int sz)
{
	return sz >= 1 && sz <= PAGE_FRAG_MAX_FRAGSZ;
}

static bool align_ok(unsigned int a)
{
	return a && !(a & (a - 1)) && a <= MM_PAGE_SIZE;
}

/* ---- blocks and placement ------------------------------------------------- */

static struct page *block_of(const void *va)
{
	return virt_to_head_page(va);
}

static size_t block_bytes(struct page *head)
{
	return MM_PAGE_SIZE << head->order;
}

/* The node a refill of cache k should use now (-1: the model cannot say,
 * interleave of a per-CPU cache, whose cursor it cannot read). */
static int refill_node(int k)
{
	struct mcache *m = &mc[k];

	switch (m->policy) {
	case PAGE_FRAG_NODE_FIXED:
	case PAGE_FRAG_NODE_DEVICE:
		return m->node;
	case PAGE_FRAG_NODE_INTERLEAVE:
		if (!m->nc)
			return -1;
		return m->nc->next_node < fz_m.nodes ? m->nc->next_node : 0;
	default:
		return fz_m.cpu_node[fz_m.cpu];
	}
}

/* Cache k now carves block (NULL: none); a new one must sit where its
 * policy said (expect), unless that node had no page and gfp let the
 * refill look elsewhere. */
static void note_block(int k, void *block, int expect, gfp_t gfp, bool injected)
{
	struct mcache *m = &mc[k];

	if (block && block != m->block && expect >= 0) {
		int got = fz_addr_node(block);
		FZ_CHECK(got == expect ||
				 !(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
			 "cache %d: gfp %#x, a new block of node %d for node "
			 "%d",
			 k, gfp, got, expect);
		FZ_CHECK(got == expect || injected ||
				 !fz_node_can_serve(expect, 0, fz_m.cpu),
			 "cache %d: a new block of node %d, its policy says "
			 "node %d, which can serve a page",
			 k, got, expect);
	}
	if (block != m->block) {
		if (m->last >= 0)
			live[m->last].cache = -1; /* no longer abortable */
		m->last = -1;
		m->last_freed = false;
	}
	m->block = block;
}

/* A refill of cache k failed (gfp as the caller gave it). */
static void check_refill_null(int expect, gfp_t gfp, bool injected)
{
	if (injected || expect < 0)
		return;
	fz_check_page_null(expect, gfp & ~__GFP_ZERO, 0);
}

/* ---- the live fragments --------------------------------------------------- */

static void check_frag(const void *va, unsigned int len, unsigned int align)
{
	struct page *head = block_of(va);
	char *base = page_address(head);

	FZ_CHECK(head && (head->order == 0 || head->order == 3),
		 "fragment %p: block of order %d", va, head ? head->order : -1);
	FZ_CHECK((const char *)va >= base &&
			 (const char *)va + len <= base + block_bytes(head),
		 "fragment %p + %u leaves its block %p (order %u)", va, len,
		 (void *)base, head->order);
	FZ_CHECK((uintptr_t)va % (align ? align : 1) == 0,
		 "fragment %p not %u-aligned", va, align);
}

static int add_frag(char *va, unsigned int len, int k)
{
	struct frag *f;

	FZ_CHECK(nlive < MAX_LIVE, "model full");
	f = &live[nlive];
	*f = (struct frag){va, len, k, fz_new_id()};
	fz_set_add(&set, va, len, f->id, "fragment");
	fz_fill(va, len, f->id);
	want.fragments++;
	if (mc[k].last >= 0)
		live[mc[k].last].cache = -1;
	mc[k].last = nlive;
	mc[k].last_freed = false;
	return nlive++;
}

/* Remove fragment i from the model (contents checked), keeping every
 * cache's "last" index right as the array shrinks. */
static struct frag take_frag(int i)
{
	struct frag f = live[i];

	fz_check_fill(f.va, f.len, f.id, "fragment");
	FZ_CHECK(fz_set_remove(&set, (uintptr_t)f.va),
		 "fragment %p not in "
		 "the set",
		 (void *)f.va);
	if (f.cache >= 0 && mc[f.cache].last == i) {
		mc[f.cache].last = -1;
		mc[f.cache].last_freed = true; /* op_abort clears it again */
	}
	live[i] = live[--nlive];
	if (i != nlive && live[i].cache >= 0 && mc[live[i].cache].last == nlive)
		mc[live[i].cache].last = i;
	return f;
}

/* ---- operations ------------------------------------------------------------ */

static void *do_alloc(int k, unsigned int sz, unsigned int align, gfp_t gfp)
{
	struct mcache *m = &mc[k];

	if (m->nc)
		return align ? page_frag_alloc_align(m->nc, sz, gfp, align)
			     : page_frag_alloc(m->nc, sz, gfp);
	if (is_napi(k))
		return align ? napi_alloc_frag_align(sz, align)
			     : napi_alloc_frag(sz);
	return align ? netdev_alloc_frag_align(sz, align)
		     : netdev_alloc_frag(sz);
}

/* Bad arguments: the refusal each entry point counts. */
static bool refused_args(unsigned int sz, unsigned int align, bool check_align)
{
	if (!size_ok(sz)) {
		want.err_oversize++;
		return true;
	}
	if (check_align && !align_ok(align)) {
		want.err_bad_align++;
		return true;
	}
	return false;
}

static void op_alloc(int k, unsigned int sz, unsigned int align, gfp_t gfp)
{
	struct mcache *m = &mc[k];
	int expect = refill_node(k);
	unsigned long inj = fz_injected();
	char *va;

	if (!m->nc)
		gfp = GFP_ATOMIC; /* what the per-CPU caches ask with */
	va = do_alloc(k, sz, align, gfp);
	fz_ops++;
	fz_trace("cache %d: alloc(%u, align %u, gfp %#x) = %p", k, sz, align,
		 gfp, (void *)va);
	if (refused_args(sz, align, align != 0)) {
		FZ_CHECK(!va, "bad size %u / align %u accepted", sz, align);
		return;
	}
	if (!va) {
		want.alloc_failed++;
		check_refill_null(expect, gfp, fz_injected() != inj);
		note_block(k, NULL, -1, 0, true);
		/* The failed refill let go of the block (__page_frag_refill):
		 * room prepared in it is gone, a commit must be refused. */
		m->pf_state = PF_MUST_FAIL;
		return;
	}
	check_frag(va, sz, align);
	note_block(k, page_address(block_of(va)), expect, gfp,
		   fz_injected() != inj);
	m->pf_state = PF_EITHER;
	add_frag(va, sz, k);
}

static void op_free(int i, uint8_t off, uint8_t cpu)
{
	struct frag f;
	int nid;

	fz_set_cpu(cpu);
	f = take_frag(i);
	nid = fz_addr_node(f.va);
	fz_ops++;
	fz_trace("page_frag_free(%p + %u) (node %d)", (void *)f.va, off % f.len,
		 nid);
	want.frees++;
	if (nid != fz_m.cpu_node[fz_m.cpu])
		want.remote_frees++;
	page_frag_free(f.va + off % f.len);
}

static void op_drain(int k)
{
	int cpu = fz_m.cpu, first = NR_PRIVATE + 2 * cpu;

	fz_ops++;
	if (mc[k].nc) {
		fz_trace("page_frag_cache_drain(cache %d)", k);
		if (mc[k].block)
			want.drains++;
		page_frag_cache_drain(mc[k].nc);
		note_block(k, NULL, -1, 0, true);
		mc[k].pf_state = PF_MUST_FAIL;
		return;
	}
	fz_trace("page_frag_percpu_drain(%d)", cpu);
	page_frag_percpu_drain(cpu);
	for (int j = first; j < first + 2; j++) {
		if (mc[j].block)
			want.drains++;
		note_block(j, NULL, -1, 0, true);
	}
}

/* The free room prepare/probe described must be free. */
static void check_room(int k, void *va, const struct page_frag *pf,
		       unsigned int sz, unsigned int align)
{
	struct page *head = block_of(va);

	FZ_CHECK(pf->page == head &&
			 (char *)page_address(head) + pf->offset == va,
		 "cache %d: prepare says page %p offset %u, va %p", k,
		 (void *)pf->page, pf->offset, va);
	FZ_CHECK(pf->offset + pf->size == block_bytes(head) && pf->size >= sz,
		 "cache %d: prepared room %u at %u of a %zu-byte block for %u",
		 k, pf->size, pf->offset, block_bytes(head), sz);
	FZ_CHECK((uintptr_t)va % align == 0, "prepared %p not %u-aligned", va,
		 align);
	FZ_CHECK(!fz_set_overlaps(&set, (uintptr_t)va, pf->size),
		 "cache %d: prepared room [%p, +%u) overlaps a live fragment",
		 k, va, pf->size);
}

static void after_prepare(int k, void *va, const struct page_frag *pf,
			  unsigned int sz, int expect, gfp_t gfp, bool injected)
{
	struct mcache *m = &mc[k];

	note_block(k, page_address(pf->page), expect, gfp, injected);
	if (pf->offset == 0) {
		/* A fresh block: nothing in it is the last fragment. */
		if (m->last >= 0)
			live[m->last].cache = -1;
		m->last = -1;
		m->last_freed = false;
	}
	m->pf = *pf;
	m->pf_va = va;
	m->pf_asked = sz;
	m->pf_state = PF_MUST_WORK;
}

static void op_prepare(int k, unsigned int sz, unsigned int align, gfp_t gfp)
{
	struct mcache *m = &mc[k];
	int expect = refill_node(k);
	unsigned long inj = fz_injected();
	struct page_frag pf;
	void *va =
		page_frag_prepare_align(m->nc, sz, &pf, gfp, align ? align : 1);

	fz_ops++;
	fz_trace("cache %d: prepare(%u, align %u) = %p (room %u)", k, sz, align,
		 va, va ? pf.size : 0);
	if (refused_args(sz, align ? align : 1, true)) {
		FZ_CHECK(!va, "prepare: bad size %u / align %u accepted", sz,
			 align);
		return;
	}
	if (!va) {
		want.alloc_failed++;
		check_refill_null(expect, gfp, fz_injected() != inj);
		note_block(k, NULL, -1, 0, true);
		m->pf_state = PF_MUST_FAIL;
		return;
	}
	check_room(k, va, &pf, sz, align ? align : 1);
	after_prepare(k, va, &pf, sz, expect, gfp, fz_injected() != inj);
}

static void op_probe(int k, unsigned int sz)
{
	struct page_frag pf;
	void *va = page_frag_probe(mc[k].nc, sz, &pf);

	fz_ops++;
	fz_trace("cache %d: probe(%u) = %p", k, sz, va);
	if (refused_args(sz, 1, false)) {
		FZ_CHECK(!va, "probe: bad size %u accepted", sz);
		return;
	}
	if (!va)
		return; /* no block, or no room: nothing changed */
	FZ_CHECK(mc[k].block == page_address(block_of(va)),
		 "probe found block %p, the cache carves %p",
		 page_address(block_of(va)), mc[k].block);
	check_room(k, va, &pf, sz, 1);
	after_prepare(k, va, &pf, sz, -1, 0, true);
}

static unsigned int decode_used(const struct mcache *m, uint8_t u)
{
	switch (u % 8) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return m->pf_asked;
	case 3:
		return m->pf.size;
	case 4:
		return m->pf.size + 1;
	default:
		return m->pf.size ? 1 + u % m->pf.size : 1;
	}
}

static void op_commit(int k, uint8_t u)
{
	struct mcache *m = &mc[k];
	unsigned int used = decode_used(m, u);
	bool fits = used >= 1 && used <= m->pf.size;
	bool ok = page_frag_commit(m->nc, &m->pf, used);

	fz_ops++;
	fz_trace("cache %d: commit(%u of %u) = %d (state %d)", k, used,
		 m->pf.size, ok, m->pf_state);
	if (!fits || m->pf_state == PF_MUST_FAIL)
		FZ_CHECK(!ok, "commit of %u (room %u, state %d) accepted", used,
			 m->pf.size, m->pf_state);
	else if (m->pf_state == PF_MUST_WORK)
		FZ_CHECK(ok, "commit of %u right after its prepare refused",
			 used);
	if (!ok) {
		want.tx_misuse++;
		return;
	}
	check_frag(m->pf_va, used, 1);
	add_frag(m->pf_va, used, k);
	m->pf_state = PF_MUST_FAIL; /* the offset moved past it */
}

static void op_noref(int k, uint8_t u)
{
	struct mcache *m = &mc[k];
	unsigned int used = decode_used(m, u);
	bool fits = used >= 1 && used <= m->pf.size;
	int last = m->last;
	bool ok;

	/* Extending a freed fragment would leave bytes with no reference:
	 * the contract forbids it, so the program never asks. */
	if (m->last_freed)
		return;
	ok = page_frag_commit_noref(m->nc, &m->pf, used);
	fz_ops++;
	fz_trace("cache %d: commit_noref(%u of %u) = %d (last %d, state %d)", k,
		 used, m->pf.size, ok, last, m->pf_state);
	if (!fits || m->pf_state == PF_MUST_FAIL || last < 0)
		FZ_CHECK(!ok,
			 "commit_noref of %u (room %u, state %d, last %d) "
			 "accepted",
			 used, m->pf.size, m->pf_state, last);
	else if (m->pf_state == PF_MUST_WORK)
		FZ_CHECK(ok,
			 "commit_noref of %u after its prepare, with a "
			 "last fragment, refused",
			 used);
	if (!ok) {
		want.tx_misuse++;
		return;
	}
	/* The last fragment now ends where the committed bytes end. */
	struct frag *f = &live[last];
	char *end = (char *)m->pf_va + used;

	fz_check_fill(f->va, f->len, f->id, "fragment");
	FZ_CHECK(fz_set_remove(&set, (uintptr_t)f->va), "last not in the set");
	f->len = (unsigned int)(end - f->va);
	check_frag(f->va, f->len, 1);
	fz_set_add(&set, f->va, f->len, f->id, "extended fragment");
	fz_fill(f->va, f->len, f->id);
	m->pf_state = PF_MUST_FAIL;
}

static void op_abort(int k, uint8_t w)
{
	struct mcache *m = &mc[k];
	int last = m->last;
	char *va;
	unsigned int len;
	bool right = last >= 0 && w % 4 != 0, ok;

	if (last >= 0) {
		va = live[last].va;
		len = live[last].len;
		if (!right && len > 1)
			len--; /* part of the last: must be refused */
		else if (!right)
			va++; /* not where it starts */
	} else {
		/* Any live fragment of another cache or an older one. */
		if (!nlive)
			return;
		va = live[w % nlive].va;
		len = live[w % nlive].len;
	}
	ok = page_frag_abort(m->nc, va, len);
	fz_ops++;
	fz_trace("cache %d: abort(%p, %u) = %d (last %d)", k, (void *)va, len,
		 ok, last);
	FZ_CHECK(ok == right, "abort of %s: %s",
		 right ? "the last fragment" : "a wrong range",
		 ok ? "accepted" : "refused");
	if (!ok) {
		want.tx_misuse++;
		return;
	}
	take_frag(last);
	m->last = -1;
	m->last_freed = false;
	m->pf_state = PF_EITHER;
}

static void op_policy(int k, uint8_t p, uint8_t n)
{
	int policy = p % 5, node = n % (fz_m.nodes + 1); /* nodes: bad */
	bool fixed = policy == PAGE_FRAG_NODE_FIXED ||
		     policy == PAGE_FRAG_NODE_DEVICE;
	bool ok = policy < PAGE_FRAG_NODE_NR_POLICIES &&
		  (!fixed || node < fz_m.nodes);
	int r, first = k, count = 1;

	mm_debug_set_quiet(true);
	if (mc[k].nc) {
		r = page_frag_cache_set_policy(mc[k].nc, policy, node);
	} else {
		r = page_frag_percpu_set_policy(fz_m.cpu, policy, node);
		first = NR_PRIVATE + 2 * fz_m.cpu;
		count = 2;
	}
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("cache %d: set_policy(%d, %d) = %d", k, policy, node, r);
	FZ_CHECK(r == (ok ? 0 : -1), "set_policy(%d, node %d) returned %d",
		 policy, node, r);
	for (int j = first; ok && j < first + count; j++) {
		mc[j].policy = policy;
		mc[j].node = fixed ? node : -1;
	}
}

static void check_stats(void)
{
	struct page_frag_stats st;

	page_frag_stats_read(&st);
#define PF_CHECK(field)                                                        \
	FZ_CHECK(st.field - base.field == want.field,                          \
		 "page_frag_stats." #field " went up by %llu, the model says " \
		 "%llu",                                                       \
		 (unsigned long long)(st.field - base.field),                  \
		 (unsigned long long)want.field)
	PF_CHECK(fragments);
	PF_CHECK(frees);
	PF_CHECK(remote_frees);
	PF_CHECK(drains);
	PF_CHECK(err_oversize);
	PF_CHECK(err_bad_align);
	PF_CHECK(alloc_failed);
	PF_CHECK(tx_misuse);
#undef PF_CHECK
}

static void op_stats(void)
{
	static char buf[1 << 16];

	fz_ops++;
	fz_trace("stats");
	check_stats();
	FZ_CHECK_FORMAT(page_frag_stats_json, buf);
	FZ_CHECK_FORMAT(page_frag_stats_text, buf);
}

static void run_op(struct fz_in *in)
{
	int op = fz_pick(in, ops, sizeof(ops)), k, i;
	uint8_t a, b, c;

	switch (op) {
	case OP_CPU:
		fz_set_cpu(fz_u8(in));
		fz_trace("cpu %d", fz_m.cpu);
		break;
	case OP_ALLOC:
	case OP_PREPARE:
		k = cache_index(fz_u8(in));
		a = fz_u8(in);
		b = fz_u8(in);
		c = fz_u8(in);
		if (nlive >= MAX_LIVE)
			break;
		if (op == OP_ALLOC || !mc[k].nc)
			op_alloc(k, decode_size(a), decode_align(b),
				 decode_gfp(c));
		else
			op_prepare(k, decode_size(a), decode_align(b),
				   decode_gfp(c));
		break;
	case OP_FREE:
		i = (int)fz_u16(in);
		a = fz_u8(in);
		b = fz_u8(in);
		if (nlive)
			op_free(i % nlive, a, b);
		break;
	case OP_DRAIN:
		op_drain(cache_index(fz_u8(in)));
		break;
	case OP_PROBE:
	case OP_COMMIT:
	case OP_NOREF:
	case OP_ABORT:
		k = fz_u8(in) % NR_PRIVATE;
		a = fz_u8(in);
		if (op == OP_PROBE)
			op_probe(k, decode_size(a));
		else if (op == OP_COMMIT && nlive < MAX_LIVE)
			op_commit(k, a);
		else if (op == OP_NOREF)
			op_noref(k, a);
		else if (op == OP_ABORT)
			op_abort(k, a);
		break;
	case OP_POLICY:
		k = cache_index(fz_u8(in));
		a = fz_u8(in);
		op_policy(k, a, fz_u8(in));
		break;
	case OP_ORDER0:
		order0 = !order0;
		page_frag_force_order0(order0);
		fz_trace("force_order0 %d", order0);
		break;
	case OP_BALLAST:
		a = fz_u8(in);
		fz_ballast_take(&set, a % fz_m.nodes, fz_u8(in) % 4);
		break;
	case OP_UNBALLAST:
		fz_ballast_release(&set, fz_u8(in));
		break;
	case OP_STATS:
		op_stats();
		break;
	}
}

static void begin(struct fz_in *in)
{
	(void)in;
	memset(private_nc, 0, sizeof(private_nc));
	memset(mc, 0, sizeof(mc));
	for (int k = 0; k < NR_PRIVATE + 2 * MM_MAX_CPUS; k++) {
		mc[k].nc = k < NR_PRIVATE ? &private_nc[k] : NULL;
		mc[k].last = -1;
		mc[k].node = -1;
	}
	nlive = 0;
	fz_set_clear(&set);
	page_frag_stats_read(&base);
	memset(&want, 0, sizeof(want));
	order0 = false;
}

static unsigned long end(void)
{
	while (nlive)
		op_free(nlive - 1, 0, (uint8_t)nlive);
	for (int k = 0; k < NR_PRIVATE; k++)
		op_drain(k);
	for (int cpu = 0; cpu < fz_m.cpus; cpu++) {
		fz_set_cpu(cpu);
		op_drain(NR_PRIVATE + 2 * cpu);
		page_frag_percpu_set_policy(cpu, PAGE_FRAG_NODE_LOCAL, -1);
	}
	page_frag_force_order0(false);
	check_stats();
	fz_ballast_release_all(&set);
	return 0;
}

static const struct fz_harness harness = {"fuzz_frag", 2, begin, run_op, end};
FZ_HARNESS(harness)
