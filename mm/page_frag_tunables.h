/*
 * Tunables of the page fragment allocator (mm/page_frag*.c), each with its
 * default and the reason for it. Compile-time ones can be overridden with
 * -D on the command line (the benchmark builds a second variant that way).
 */
#ifndef MM_PAGE_FRAG_TUNABLES_H
#define MM_PAGE_FRAG_TUNABLES_H

/*
 * Order of the block a refill asks for first: 3 (32 KiB). One refill then
 * serves 2730 12-byte fragments or 21 1500-byte frames, and an order-3 block
 * is still a size the per-CPU page lists keep (PCP_MAX_ORDER), so a freed
 * block is usually handed straight back to the next refill without touching
 * the buddy lists. Banerjee (docs/references.md, 2) measured 55.2 Gbit/s
 * with order-3 against 43.0 with order-0 on loopback UDP; here order-0-only
 * refills cost 1.5-8x more per 1500-byte fragment (docs/page_frag.md).
 */
#ifndef PAGE_FRAG_CACHE_MAX_ORDER
#define PAGE_FRAG_CACHE_MAX_ORDER 3
#endif

/*
 * Carving direction: 0 = upward from offset 0 (Linux since 6.13, the
 * default here), 1 = downward from the end of the block (Duyck's original).
 * The TX prepare/commit API (page_frag_tx.c) needs upward carving, because a
 * writer of unknown length grows its data toward higher addresses; the
 * downward variant exists only so the benchmark can compare the two fast
 * paths. Downward measured 2-4 instructions cheaper per fragment, with no
 * timed difference above the noise here (docs/page_frag.md).
 */
#ifndef PAGE_FRAG_CARVE_DOWN
#define PAGE_FRAG_CARVE_DOWN 0
#endif

/*
 * The free side's batch (page_frag_free.c): 1 = page_frag_free() adds the
 * fragment to a per-CPU count for its block and one atomic subtract later
 * applies the whole count; 0 = one atomic decrement per fragment (Linux's
 * put_page_testzero). The benchmark builds the 0 variant to compare in one
 * run; the product keeps 1.
 */
#ifndef PAGE_FRAG_FREE_BATCH
#define PAGE_FRAG_FREE_BATCH 1
#endif

/*
 * Blocks one CPU's free batch counts at once: 8, the last-freed block
 * (checked by address on every free) and a table of 7. A CPU freeing what
 * one cross-CPU producer allocated sees one block at a time (two at a
 * block change); a CPU freeing both caches' fragments of every CPU (the
 * selftest's pattern, RX and TX of several queues) sees up to 2 per CPU.
 * The whole batch is two cache lines, the table is searched only when a
 * free misses the last block, and what frees can hold back is bounded to
 * 8 blocks (256 KiB) per CPU until the next flush or drain_all_pages().
 */
#define PAGE_FRAG_FREE_BATCH_SLOTS 8

/*
 * Largest fragment: one page. A bigger request could never be guaranteed
 * after an order-0 fallback, so it is refused (NULL, counted) rather than
 * silently failing only under fragmentation.
 */
#define PAGE_FRAG_MAX_FRAGSZ MM_PAGE_SIZE

#endif /* MM_PAGE_FRAG_TUNABLES_H */
