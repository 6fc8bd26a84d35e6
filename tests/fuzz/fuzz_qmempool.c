/*
 * Fuzz harness of qmempool (per-CPU localq stack, per-node sharedq, slab
 * behind) against a reference model.
 *
 * The program (after the two machine bytes, fuzz_common.h): one opcode
 * byte, picked through ops[] below, then its arguments. One kmem_cache
 * (object size from a byte at the start: 8 + b * 4) feeds up to two pools.
 *   CPU c              this thread becomes CPU c % cpus
 *   CREATE k l s p     qmempool_create in slot k % 2 (if free): localq
 *                      16 << (l % 4), sharedq 64 << (s % 3), prealloc
 *                      p % 80 (a bad size when l or s >= 250)
 *   ALLOC k w g        w & 1: qmempool_alloc, else qmempool_alloc_softirq;
 *                      gfp(g)
 *   FREE i w c         free live object i into its pool, on CPU c % cpus
 *                      when w & 2 (a remote free if that CPU is on
 *                      another node), w & 1: qmempool_free, else _softirq
 *   FREE_SOME n c      free n % 48 live objects on CPU c % cpus
 *   CACHE_FREE i       kmem_cache_free of a live object straight into the
 *                      cache (allowed: objects belong to the cache)
 *   CACHE_ALLOC k      kmem_cache_alloc an object and free it into pool k
 *                      later (objects from the pool's cache are welcome)
 *   DESTROY k          qmempool_destroy; its objects still out then
 *                      belong to the cache (freed with kmem_cache_free)
 *   BALLAST n o        take an order o % 4 block of node n (THISNODE)
 *   UNBALLAST i        give ballast block i back
 *   STATS              the counters and queue contents against the model
 * gfp(g): bit 0 __GFP_NORETRY, bit 1 __GFP_THISNODE, always
 * __GFP_NOWARN.
 *
 * The model: every live object with its pool and node, in an interval
 * set with the ballast; each pool's allocations, frees, failures and
 * remote frees. It checks:
 *  - objects are aligned, in a slab of the pool's cache, never two owners,
 *    contents survive;
 *  - a CPU gets its own node's objects; another node's object only when
 *    the CPU's localq and its node's sharedq are empty and the slab had
 *    none of this node (its magazine and lists empty, no slab's worth of
 *    pages on the node);
 *  - every localq holds only its CPU's node's objects, every sharedq only
 *    its node's (the pool's NUMA rule), and never a live object;
 *  - qmempool_get_stats: alloc, alloc_fail and remote_free equal the
 *    model's, outstanding equals allocations minus frees;
 *  - at the end: every object freed, the pools destroyed, the cache
 *    destroyed and the kmalloc caches shrunk: every page back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "slab_internal.h"

enum {
	OP_CPU,
	OP_CREATE,
	OP_ALLOC,
	OP_FREE,
	OP_FREE_SOME,
	OP_CACHE_FREE,
	OP_CACHE_ALLOC,
	OP_DESTROY,
	OP_BALLAST,
	OP_UNBALLAST,
	OP_STATS,
};

static const uint8_t ops[] = {
	OP_CPU,		OP_CPU,	    OP_CPU,	OP_CREATE,    OP_ALLOC,
	OP_ALLOC,	OP_ALLOC,   OP_ALLOC,	OP_ALLOC,     OP_FREE,
	OP_FREE,	OP_FREE,    OP_FREE,	OP_FREE_SOME, OP_CACHE_FREE,
	OP_CACHE_ALLOC, OP_DESTROY, OP_BALLAST, OP_UNBALLAST, OP_STATS,
};

#define NR_POOLS 2
#define MAX_LIVE 4096

struct pool {
	struct qmempool *q;
	unsigned long allocs, frees, fails, remote;
};

struct obj {
	void *p;
	int pool; /* the pool it goes back to (-1: the cache) */
	uint64_t id;
};

static struct kmem_cache *cache;
static size_t obj_size;
static struct pool pools[NR_POOLS];
static struct obj live[MAX_LIVE];
static int nlive;
static struct fz_set set;

static gfp_t decode_gfp(uint8_t g)
{
	return __GFP_NOWARN | (g & 1 ? __GFP_NORETRY : 0) |
	       (g & 2 ? __GFP_THISNODE : 0);
}

static int obj_node(const void *p)
{
	return page_to_nid(virt_to_page(p));
}

static void add_live(void *p, int pool)
{
	struct obj *o;

	FZ_CHECK(nlive < MAX_LIVE, "model full");
	o = &live[nlive++];
	*o = (struct obj){p, pool, fz_new_id()};
	fz_set_add(&set, p, obj_size, o->id, "object");
	fz_fill(p, obj_size, o->id);
}

static struct obj take_live(int i)
{
	struct obj o = live[i];

	fz_check_fill(o.p, obj_size, o.id, "object");
	FZ_CHECK(fz_set_remove(&set, (uintptr_t)o.p),
		 "object %p not in the "
		 "set",
		 o.p);
	live[i] = live[--nlive];
	return o;
}

/* ---- the queues' contents ------------------------------------------------ */

/* A queued pointer must be node nid's, and not a live object. */
static void check_queued(void *p, int nid, const char *what, int index)
{
	FZ_CHECK(obj_node(p) == nid,
		 "%s %d holds %p of node %d (only node %d's allowed)", what,
		 index, p, obj_node(p), nid);
	FZ_CHECK(!fz_set_overlaps(&set, (uintptr_t)p, obj_size),
		 "%s %d holds %p, which is handed out", what, index, p);
}

static void check_queue(struct alf_queue *q, int nid, const char *what,
			int index)
{
	uint32_t t = atomic_load(&q->cons.tail), h = atomic_load(&q->prod.tail);

	for (uint32_t i = t; i != h; i++)
		check_queued(q->ring[i & q->mask], nid, what, index);
}

/* The localq: objs[0..count), never more than the pool's localq_sz. */
static void check_localq(const struct qmempool *q, struct qmempool_cpu *pc,
			 int cpu)
{
	uint32_t n = qmempool_localq_count(pc);

	FZ_CHECK(n <= q->localq_sz, "localq of cpu %d holds %u of %u slots",
		 cpu, n, q->localq_sz);
	for (uint32_t i = 0; i < n; i++)
		check_queued(pc->objs[i], pc->nid, "localq of cpu", cpu);
}

static void check_pool(int k)
{
	struct qmempool *q = pools[k].q;
	struct qmempool_stats st;

	for (int cpu = 0; cpu < q->nr_cpus; cpu++)
		check_localq(q, &q->cpu[cpu], cpu);
	for (int nid = 0; nid < q->nr_nodes; nid++)
		check_queue(q->sharedq[nid], nid, "sharedq of node", nid);
	qmempool_get_stats(q, &st);
	FZ_CHECK(st.alloc == pools[k].allocs &&
			 st.alloc_fail == pools[k].fails &&
			 st.remote_free == pools[k].remote,
		 "pool %d: alloc %lu fail %lu remote_free %lu, the model "
		 "counted %lu %lu %lu",
		 k, st.alloc, st.alloc_fail, st.remote_free, pools[k].allocs,
		 pools[k].fails, pools[k].remote);
	FZ_CHECK(st.outstanding == (long)(pools[k].allocs - pools[k].frees),
		 "pool %d: outstanding %ld, the model %lu allocs - %lu frees",
		 k, st.outstanding, pools[k].allocs, pools[k].frees);
}

/* ---- operations ------------------------------------------------------------ */

static void op_create(int k, uint8_t l, uint8_t s, uint8_t p)
{
	uint32_t lsz = l >= 250 ? 24 : 16u << (l % 4);
	uint32_t ssz = s >= 250 ? 48 : 64u << (s % 3);
	uint32_t pre = p % 80;
	bool ok = l < 250 && s < 250;

	if (pools[k].q)
		return;
	pools[k] = (struct pool){0};
	pools[k].q = qmempool_create(lsz, ssz, pre, cache, __GFP_NOWARN);
	fz_ops++;
	fz_trace("qmempool_create(%u, %u, %u) = %p in slot %d", lsz, ssz, pre,
		 (void *)pools[k].q, k);
	if (!ok)
		FZ_CHECK(!pools[k].q, "bad queue sizes %u/%u accepted", lsz,
			 ssz);
	if (pools[k].q)
		check_pool(k);
}

/* The slab could give this CPU no object of its node: its magazine and
 * its node's lists are empty and its node cannot serve a new slab. */
static bool slab_short_here(void)
{
	int nid = fz_m.cpu_node[fz_m.cpu];

	return cpu_avail(cache_cpu(cache, fz_m.cpu)) == 0 &&
	       cache->node[nid].free_objs == 0 &&
	       !fz_node_can_serve(nid, cache->order, fz_m.cpu);
}

static void op_alloc(int k, bool any_context, gfp_t gfp)
{
	struct pool *pl = &pools[k];
	struct qmempool_cpu *pc = &pl->q->cpu[fz_m.cpu];
	int nid = fz_m.cpu_node[fz_m.cpu];
	unsigned long inj = fz_injected();
	void *p = any_context ? qmempool_alloc(pl->q, gfp)
			      : qmempool_alloc_softirq(pl->q, gfp);

	fz_ops++;
	fz_trace("qmempool_alloc%s(pool %d, gfp %#x) = %p (node %d)",
		 any_context ? "" : "_softirq", k, gfp, p,
		 p ? obj_node(p) : -1);
	if (!p) {
		pl->fails++;
		return;
	}
	pl->allocs++;
	FZ_CHECK(virt_to_head_page(p)->slab_cache == cache &&
			 (uintptr_t)p % sizeof(void *) == 0,
		 "pool %d gave %p, not an object of its cache", k, p);
	if (obj_node(p) != nid)
		FZ_CHECK(!(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
			 "gfp %#x, yet cpu %d (node %d) got an object of node "
			 "%d",
			 gfp, fz_m.cpu, nid, obj_node(p));
	if (obj_node(p) != nid && fz_injected() == inj) {
		FZ_CHECK(qmempool_localq_count(pc) == 0 &&
				 alf_queue_count(pl->q->sharedq[nid]) == 0 &&
				 slab_short_here(),
			 "cpu %d (node %d) got %p of node %d while its localq "
			 "(%u), its sharedq (%u) or the slab had node %d's",
			 fz_m.cpu, nid, p, obj_node(p),
			 qmempool_localq_count(pc),
			 alf_queue_count(pl->q->sharedq[nid]), nid);
	}
	add_live(p, k);
}

static void op_free(int i, bool any_context)
{
	struct obj o = take_live(i);
	struct pool *pl = &pools[o.pool];

	fz_ops++;
	fz_trace("qmempool_free%s(pool %d, %p of node %d)",
		 any_context ? "" : "_softirq", o.pool, o.p, obj_node(o.p));
	if (fz_m.nodes > 1 && obj_node(o.p) != fz_m.cpu_node[fz_m.cpu])
		pl->remote++;
	pl->frees++;
	if (any_context)
		qmempool_free(pl->q, o.p);
	else
		qmempool_free_softirq(pl->q, o.p);
}

/* Free live object i whatever it belongs to. */
static void free_any(int i, uint8_t w)
{
	if (live[i].pool >= 0) {
		op_free(i, w & 1);
		return;
	}
	struct obj o = take_live(i);

	fz_ops++;
	fz_trace("kmem_cache_free(%p)", o.p);
	kmem_cache_free(cache, o.p);
}

static void op_cache_alloc(int k)
{
	void *p = kmem_cache_alloc(cache, __GFP_NOWARN);

	fz_ops++;
	fz_trace("kmem_cache_alloc = %p (for pool %d)", p, k);
	if (!p)
		return;
	/* The pool will count the free of an object it never handed out:
	 * so does the model (its outstanding goes down by one). */
	add_live(p, k);
}

static void op_destroy(int k)
{
	fz_ops++;
	fz_trace("qmempool_destroy(pool %d)", k);
	qmempool_destroy(pools[k].q);
	pools[k].q = NULL;
	for (int i = 0; i < nlive; i++)
		if (live[i].pool == k)
			live[i].pool = -1; /* the cache's from now on */
}

static int pick(uint8_t k)
{
	return pools[k % NR_POOLS].q ? k % NR_POOLS : -1;
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
	case OP_CREATE:
		k = fz_u8(in) % NR_POOLS;
		a = fz_u8(in);
		b = fz_u8(in);
		c = fz_u8(in);
		op_create(k, a, b, c);
		break;
	case OP_ALLOC:
		k = pick(fz_u8(in));
		a = fz_u8(in);
		b = fz_u8(in);
		if (k >= 0 && nlive < MAX_LIVE)
			op_alloc(k, a & 1, decode_gfp(b));
		break;
	case OP_FREE:
		i = (int)fz_u16(in);
		a = fz_u8(in);
		c = fz_u8(in);
		if (!nlive)
			break;
		if (a & 2)
			fz_set_cpu(c);
		free_any(i % nlive, a);
		break;
	case OP_FREE_SOME:
		a = fz_u8(in) % 48;
		fz_set_cpu(fz_u8(in));
		i = (int)fz_u16(in);
		for (; a && nlive; a--)
			free_any(i++ % nlive, a);
		break;
	case OP_CACHE_FREE:
		i = (int)fz_u16(in);
		if (nlive) {
			live[i % nlive].pool = -1;
			free_any(i % nlive, 0);
		}
		break;
	case OP_CACHE_ALLOC:
		k = pick(fz_u8(in));
		if (k >= 0 && nlive < MAX_LIVE)
			op_cache_alloc(k);
		break;
	case OP_DESTROY:
		k = pick(fz_u8(in));
		if (k >= 0)
			op_destroy(k);
		break;
	case OP_BALLAST:
		a = fz_u8(in);
		fz_ballast_take(&set, a % fz_m.nodes, fz_u8(in) % 4);
		break;
	case OP_UNBALLAST:
		fz_ballast_release(&set, fz_u8(in));
		break;
	case OP_STATS:
		fz_ops++;
		fz_trace("stats");
		for (k = 0; k < NR_POOLS; k++)
			if (pools[k].q)
				check_pool(k);
		break;
	}
}

static void begin(struct fz_in *in)
{
	obj_size = 8 + (size_t)fz_u8(in) * 4;
	cache = kmem_cache_create("fz_qmp", obj_size, 0, 0, NULL);
	FZ_CHECK(cache, "no cache on a fresh machine");
	memset(pools, 0, sizeof(pools));
	nlive = 0;
	fz_set_clear(&set);
}

static unsigned long end(void)
{
	while (nlive)
		free_any(nlive - 1, (uint8_t)nlive);
	for (int k = 0; k < NR_POOLS; k++)
		if (pools[k].q) {
			check_pool(k);
			op_destroy(k);
		}
	fz_ballast_release_all(&set);
	kmem_cache_destroy(cache);
	return fz_shrink_kmalloc();
}

static const struct fz_harness harness = {"fuzz_qmempool", 2, begin, run_op,
					  end};
FZ_HARNESS(harness)
