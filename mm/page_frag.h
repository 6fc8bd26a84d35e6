/*
 * Page fragment allocator: small buffers (packet data, socket TX bytes)
 * carved out of 32 KiB blocks, each block freed by reference count when its
 * last fragment comes back. See mm/page_frag.c (the cache) and
 * mm/page_frag_free.c (every free path) for the design, and
 * docs/page_frag.md for the walk-through and the measured figures.
 *
 * Three ways in:
 *  - a private struct page_frag_cache (zero-initialised = ready) with
 *    page_frag_alloc()/page_frag_alloc_align(): the caller serialises use of
 *    its own cache;
 *  - the TX-side page_frag_prepare/commit/probe/abort for writers that
 *    append data of unknown length (mm/page_frag_tx.c);
 *  - the per-CPU caches netdev_alloc_frag() (any context) and
 *    napi_alloc_frag() (poll context only) (mm/page_frag_percpu.c).
 * Every fragment, whatever way it came, is freed with page_frag_free() from
 * any CPU and any context.
 */
#ifndef MM_PAGE_FRAG_H
#define MM_PAGE_FRAG_H

#include "gfp.h"
#include "page_alloc.h"
#include "page_frag_tunables.h"
#include "platform.h"

/*
 * One fragment cache. encoded_block is the block's address with its size in
 * pages in the low bits (a block is page-aligned, so the low 12 bits are
 * free); 0 means "no block", and then the size reads as 0 so the first
 * allocation falls into the refill path with no extra test. offset is the
 * next free byte (upward carving; the first used byte when carving down).
 * pagecnt_bias is how many of the block's references the cache still holds
 * and may hand out, one per fragment. last_start is where the fragment
 * handed out last begins, so that page_frag_abort() can tell that very
 * fragment from any other range ending at offset; last_start == offset
 * means there is none (fresh block, or just aborted). Kept for upward
 * carving, which the TX API needs.
 *
 * refill_policy says which node the cache's new blocks come from (enum
 * page_frag_node_policy in the low byte, the node in the next): 0 is
 * "the allocating CPU's node", so a zeroed cache behaves as before. It is
 * the only field another CPU may write (page_frag_cache_set_policy), and
 * only refills read it. next_node is interleave's cursor, the cache's own.
 * Both fit in what was the struct's tail padding: it stays 24 bytes.
 */
struct page_frag_cache {
	uintptr_t encoded_block;
	unsigned int offset;
	unsigned int pagecnt_bias;
	unsigned int last_start;
	atomic_ushort refill_policy;
	unsigned short next_node;
};

/*
 * Where a cache's new blocks come from. Only new blocks: a block recycled
 * in place stays where it is, and a refill that finds its node out of
 * pages falls back to the nearest node with some (counted as
 * refills_remote here and as numa_miss/numa_foreign by the page
 * allocator).
 *  LOCAL       the node of the CPU that refills (the default; Dumazet,
 *              "net: allocate skbs on local node": buffers live briefly,
 *              so the CPU's own node beats the device's)
 *  NODE        one given node, whichever CPU refills (rx_alloc=node:N)
 *  DEVICE      the same, the node being the NIC's, as the stack found it
 *              (rx_alloc=device): kept apart from NODE only so that the
 *              statistics say why
 *  INTERLEAVE  round-robin over every node, one new block each
 */
enum page_frag_node_policy {
	PAGE_FRAG_NODE_LOCAL,
	PAGE_FRAG_NODE_FIXED,
	PAGE_FRAG_NODE_DEVICE,
	PAGE_FRAG_NODE_INTERLEAVE,
	PAGE_FRAG_NODE_NR_POLICIES
};

/*
 * What page_frag_prepare()/page_frag_probe() report: the free tail of the
 * cache's current block, starting at an aligned address.
 */
struct page_frag {
	struct page *page;   /* head page of the block */
	unsigned int offset; /* where va starts inside the block */
	unsigned int size;   /* bytes available from va to the block's end */
};

/*
 * page_frag_alloc_align - carve fragsz bytes aligned to align from nc.
 * @nc: the cache; the caller serialises all use of it.
 * @fragsz: 1..PAGE_FRAG_MAX_FRAGSZ bytes.
 * @gfp: flags for a refill from the page allocator.
 * @align: a power of two, at most one page.
 * Context: whatever the caller guarantees for nc; never sleeps.
 * Returns the fragment, or NULL when fragsz is 0 or larger than a page, when
 * align is not a power of two (each counted as an error), or when no memory
 * is left (counted as alloc_failed).
 */
void *page_frag_alloc_align_checked(struct page_frag_cache *nc,
				    unsigned int fragsz, gfp_t gfp,
				    unsigned int align);
/* The same, for an align already known to be good: align_mask is align-1. */
void *__page_frag_alloc_align(struct page_frag_cache *nc, unsigned int fragsz,
			      gfp_t gfp, unsigned int align_mask);

/*
 * A constant align (every caller's case) is checked here, at compile time,
 * so the call skips the run-time check: 13 instructions per 64-byte
 * aligned fragment (callgrind, push/pop of 12-byte fragments: 49 against
 * 36 for unaligned ones before). Any other align is checked at run time.
 */
static inline void *page_frag_alloc_align(struct page_frag_cache *nc,
					  unsigned int fragsz, gfp_t gfp,
					  unsigned int align)
{
	if (__builtin_constant_p(align) && align && !(align & (align - 1)) &&
	    align <= MM_PAGE_SIZE)
		return __page_frag_alloc_align(nc, fragsz, gfp, align - 1);
	return page_frag_alloc_align_checked(nc, fragsz, gfp, align);
}

/* page_frag_alloc - page_frag_alloc_align() with no alignment. */
void *page_frag_alloc(struct page_frag_cache *nc, unsigned int fragsz,
		      gfp_t gfp);

/*
 * page_frag_free - give back a fragment from any page_frag allocation.
 * Drops one reference on the block, batched per CPU (mm/page_frag_free.c:
 * the count is applied with one atomic subtract per block, not one per
 * fragment); the last reference frees the block through the page
 * allocator's shared free path (__free_pages: orders 0..3 go to this CPU's
 * per-CPU lists). A free that leaves only this CPU's pending references
 * on the block frees it at once; one whose block still has references
 * pending on other CPUs leaves it to their next flush
 * (page_frag_free_flush), to the next drain_all_pages() (which the page
 * allocator also runs when memory runs out), or, on the host, to the end
 * of their threads. Any CPU, any context. addr must be a pointer inside a
 * live fragment. An address outside every zone is reported (with the
 * caller's address) and ignored. With debug checks on, frees are not
 * batched.
 *
 * Misuse caught with debug checks on (mm/debug.h), each reported with the
 * caller's address, counted and refused, so no reference is dropped twice
 * and no block is recycled or freed under a live fragment:
 *  - a free whose block is already free, or is slab memory;
 *  - a second free of a fragment, or a free of an aborted one
 *    (MM_DBG_DOUBLE_FREE), and a free before the block's first fragment
 *    (MM_DBG_NOT_ALLOCATED), in blocks armed while the checks were on.
 * Why only those: a fragment has no header and the block's reference
 * count only counts fragments, so it cannot tell which fragment a free
 * belongs to. Debug mode keeps that record per block beside the count
 * (mm/page_frag_debug.c: where fragments start, which are live; a quarter
 * of the block's size, and every allocation from such a block takes the
 * slow path). So it is not detected:
 *  - in a block armed while the checks were off (nothing was recorded;
 *    that is what keeps the fast paths free of any debug test), or whose
 *    record could not be allocated;
 *  - after the checks went off and on while fragments were out: frees
 *    made meanwhile were not recorded, so a later double free of those
 *    fragments passes (a good free is never reported);
 *  - for a pointer into alignment padding or past the end of a fragment:
 *    only starts are recorded, so it counts for the fragment before it;
 *  - in the downward-carving build (PAGE_FRAG_CARVE_DOWN=1, benchmarks
 *    only), whose fast path never reads the block size;
 *  - a write to a freed fragment (the block is live until all are back).
 */
void page_frag_free(void *addr);

/*
 * page_frag_cache_drain - give up nc's block: this CPU's pending frees
 * are applied (page_frag_free_flush), then the references the cache still
 * holds are dropped in one go, so the block is freed now if no fragment is
 * out, or by the last page_frag_free() otherwise. nc is left empty and
 * reusable. Same context as the cache's users.
 */
void page_frag_cache_drain(struct page_frag_cache *nc);

/*
 * page_frag_free_flush - apply every free this CPU holds back in its batch
 * (one atomic subtract per block); blocks whose last references they were
 * go back to the page allocator. Any context; called while the batch is
 * busy (from an interrupt that landed in this CPU's batch code, or while
 * another CPU drains it) it does nothing. The kernel calls it when a poll
 * round found no work; a host thread's end calls it.
 */
void page_frag_free_flush(void);

/*
 * page_frag_free_flush_all - apply every CPU's batch from this one, also
 * while the others free: another CPU's batch under its lock, interrupts
 * masked, as drain_all_pages() empties the per-CPU lists (and
 * drain_all_pages() calls it first, the allocation slow path's too);
 * this CPU's as page_frag_free_flush() does. Any context. A CPU freeing
 * meanwhile goes on: into its batch, or the unbatched way when it needs
 * the lock the drain holds (counted as frees_busy).
 */
void page_frag_free_flush_all(void);

/*
 * page_frag_free_pending - fragments cpu's batch has counted but not yet
 * applied. For tests and reports; another CPU's figure is a snapshot only
 * while that CPU does not free. 0 for a cpu out of range.
 */
unsigned int page_frag_free_pending(int cpu);

/*
 * TX side (mm/page_frag_tx.c), for a writer that appends data of unknown
 * length, as a socket does: prepare, write, then commit what was used.
 */

/*
 * page_frag_prepare_align - make sure nc's current block has at least fragsz
 * free bytes at an align-aligned offset (refilling if not) and describe all
 * of the free space from there in *pf. Nothing is taken yet.
 * Returns the address to write to, or NULL (bad arguments or no memory,
 * counted as for page_frag_alloc_align()).
 */
void *page_frag_prepare_align(struct page_frag_cache *nc, unsigned int fragsz,
			      struct page_frag *pf, gfp_t gfp,
			      unsigned int align);
void *page_frag_prepare(struct page_frag_cache *nc, unsigned int fragsz,
			struct page_frag *pf, gfp_t gfp);

/*
 * page_frag_probe - like page_frag_prepare() but never refills: returns the
 * address and fills *pf if the current block has fragsz free bytes, NULL
 * otherwise. Nothing is taken. fragsz is checked as everywhere else (0 or
 * above PAGE_FRAG_MAX_FRAGSZ: NULL, counted as err_oversize); a request
 * that merely does not fit is not counted.
 */
void *page_frag_probe(struct page_frag_cache *nc, unsigned int fragsz,
		      struct page_frag *pf);

/*
 * page_frag_commit - take used bytes (1..pf->size) from the start of what
 * the last prepare/probe described, as one new fragment (one reference).
 * Returns true; false, with nothing taken and a tx_misuse count, when pf no
 * longer matches the cache (another allocation came in between) or used is
 * out of range.
 */
bool page_frag_commit(struct page_frag_cache *nc, const struct page_frag *pf,
		      unsigned int used);

/*
 * page_frag_commit_noref - like page_frag_commit() but takes no reference:
 * the bytes extend the fragment written just before (a socket coalescing
 * into its last skb fragment), which already holds one. Refused (false,
 * tx_misuse) when there is no such fragment in the current block: after a
 * refill, on a fresh cache or after an abort, the bytes would have no
 * reference at all.
 */
bool page_frag_commit_noref(struct page_frag_cache *nc,
			    const struct page_frag *pf, unsigned int used);

/*
 * page_frag_abort - give back the fragment nc handed out last, by alloc or
 * commit (va and fragsz exactly as returned and committed, a commit_noref
 * extension included), e.g. when copying user data into it failed. Its
 * bytes and its reference go back to the cache. One abort per fragment:
 * afterwards there is no "last fragment" until the next one is taken.
 * Returns true; false (tx_misuse, nothing changed) for anything else: an
 * older fragment, a part of one, a range spanning two, a second abort.
 */
bool page_frag_abort(struct page_frag_cache *nc, void *va, unsigned int fragsz);

/*
 * page_frag_cache_set_policy - choose where nc's new blocks come from.
 * @nc: the cache (any state: empty, or holding a block).
 * @policy: one of enum page_frag_node_policy.
 * @node: for FIXED and DEVICE, the node (0..mm_nr_nodes()-1); ignored
 * (pass -1) for LOCAL and INTERLEAVE.
 * Context: any, from any CPU, also while nc's owner allocates: the policy
 * is one relaxed atomic word that only refills read, so it takes effect
 * at nc's next new block. The block nc holds stays where it is.
 * Returns 0, or -1 with nothing changed (and a console line) for an
 * unknown policy or a node out of range.
 */
int page_frag_cache_set_policy(struct page_frag_cache *nc,
			       enum page_frag_node_policy policy, int node);

/*
 * page_frag_cache_get_policy - nc's refill policy; *node gets its node
 * (-1 for LOCAL and INTERLEAVE). Any context.
 */
enum page_frag_node_policy
page_frag_cache_get_policy(const struct page_frag_cache *nc, int *node);

/* page_frag_policy_name - "local", "node", "device", "interleave" (or
 * "?" for a value out of range). */
const char *page_frag_policy_name(enum page_frag_node_policy policy);

/*
 * Per-CPU caches (mm/page_frag_percpu.c). Both refill by their CPU's
 * refill policy: by default from the current CPU's NUMA node (another node
 * only when it has no page at all; see refills_remote).
 */

/*
 * netdev_alloc_frag_align / netdev_alloc_frag - a fragment from this CPU's
 * "any context" cache; interrupts are masked around it.
 * Context: any. Returns as page_frag_alloc_align().
 */
void *netdev_alloc_frag_align(unsigned int fragsz, unsigned int align);
void *netdev_alloc_frag(unsigned int fragsz);

/*
 * napi_alloc_frag_align / napi_alloc_frag - a fragment from this CPU's poll
 * context cache, with no guard at all (Duyck: ~11 ns saved per packet).
 * Context: poll context of the current CPU only (never from an interrupt
 * handler). Returns as page_frag_alloc_align().
 */
void *napi_alloc_frag_align(unsigned int fragsz, unsigned int align);
void *napi_alloc_frag(unsigned int fragsz);

/*
 * page_frag_percpu_drain - drain both per-CPU caches of cpu. Only while
 * that CPU does not use them (its own poll loop, or a quiescent system, e.g.
 * tests and shutdown).
 */
void page_frag_percpu_drain(int cpu);

/*
 * page_frag_percpu_set_policy - the refill policy of both per-CPU caches
 * (napi and netdev) of cpu: where the receive buffers that CPU allocates
 * come from. The network stack sets it at boot from rx_alloc=, for each
 * CPU that polls a NIC (DEVICE: node is that NIC's node).
 * Context: any, from any CPU (see page_frag_cache_set_policy); applies
 * from each cache's next new block. Returns 0, or -1 with nothing changed
 * (and a console line) for a cpu out of 0..MM_MAX_CPUS-1, an unknown
 * policy or a node out of range.
 */
int page_frag_percpu_set_policy(int cpu, enum page_frag_node_policy policy,
				int node);

/* page_frag_percpu_get_policy - cpu's policy (of its napi cache; the two
 * are set together), *node as page_frag_cache_get_policy. A cpu out of
 * range reads as LOCAL. Any context. */
enum page_frag_node_policy page_frag_percpu_get_policy(int cpu, int *node);

/*
 * Counters, summed over CPUs. Every field only grows.
 */
struct page_frag_stats {
	uint64_t fragments;	   /* fragments handed out (alloc, commit) */
	uint64_t refills_order3;   /* refills served by a 32 KiB block */
	uint64_t refills_order0;   /* refills served by one page */
	uint64_t order3_fallbacks; /* order-3 refused, order 0 tried */
	uint64_t refills_remote;   /* order-0 refills from another node than
				      the policy's: that one had no page */
	uint64_t recycles;	   /* block reused in place, no allocator */
	uint64_t frees;		   /* page_frag_free() calls */
	uint64_t remote_frees;	   /* ... on a CPU of another node */
	uint64_t blocks_returned;  /* blocks given back to the page allocator */
	uint64_t pages_returned;   /* ... counted in 4 KiB pages */
	uint64_t drains;	   /* page_frag_cache_drain() with a block */
	uint64_t err_oversize;	   /* fragsz 0 or larger than a page */
	uint64_t err_bad_align;	   /* align not a power of two or > page */
	uint64_t alloc_failed;	   /* no block of any order available */
	uint64_t tx_misuse;	   /* refused commit/abort */
	uint64_t free_atomics;	   /* locked operations the free side did on
				      blocks' counts (frees, batch flushes) */
	uint64_t frees_busy;	   /* frees that found this CPU's batch busy
				      (an interrupt in its batch code, or a
				      drain from another CPU): unbatched */
	/* new blocks by the node they came from (not recycles), the sum of
	 * refills_order3 and refills_order0 split by node */
	uint64_t refills_node[MM_MAX_NODES];
};

/*
 * page_frag_cpu_refills_node - new blocks that cpu's refills took from
 * node nid (0 for either out of range). Any context.
 */
uint64_t page_frag_cpu_refills_node(int cpu, int nid);

/* page_frag_stats_read - sum of every CPU's counters into *out. Any context. */
void page_frag_stats_read(struct page_frag_stats *out);

/*
 * page_frag_stats_text / page_frag_stats_json - the counters as text lines
 * or one JSON object: the sums, then (JSON) "cpu": {"cpu0": {...}, ...},
 * the same counters per CPU (the CPU that counted). snprintf semantics:
 * returns the length the whole text needs; writes at most size bytes,
 * NUL-terminated when size > 0. page_frag_schema describes every member
 * (libc/stat_table.h).
 */
int page_frag_stats_text(char *buf, size_t size);
int page_frag_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema page_frag_schema;

/*
 * page_frag_force_order0 - benchmark tunable: when on, refills skip the
 * order-3 attempt and take one page. Any context; affects later refills.
 * Off again on every boot (page_frag_forget_all).
 */
void page_frag_force_order0(bool on);

/*
 * page_frag_forget_all - drop every CPU's fragment caches (napi, netdev)
 * and zero the counters, without freeing anything. Only for a new machine:
 * mm_init() calls it, before the zones exist (the host's previous machine
 * and its blocks are gone by then).
 */
void page_frag_forget_all(void);

#endif /* MM_PAGE_FRAG_H */
