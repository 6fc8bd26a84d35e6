/*
 * Tunables of the page allocator, in one place (the lwIP opt.h idea): each
 * has its default and the reason for it. Change them here, rebuild, and the
 * benchmarks (make bench) show the effect.
 */
#ifndef MM_PAGE_ALLOC_TUNABLES_H
#define MM_PAGE_ALLOC_TUNABLES_H

/*
 * Per-CPU page lists (PCP), per order 0..PCP_MAX_ORDER, counted in blocks of
 * that order.
 *
 * batch: how many blocks move between a per-CPU list and the buddy lists in
 *   one zone-lock acquisition (refill when empty, drain when above high).
 *   The zone lock is the shared, contended cache line; taking it once per
 *   batch instead of once per page is the whole point of the PCP. 32 order-0
 *   pages (128 KiB) amortises the lock to a few ns per page while keeping
 *   the time the lock is held short (Linux settles on a similar batch, 63,
 *   for large zones).
 * high: the most blocks a list may keep; a free above it drains one batch.
 *   6 batches for order 0 (Linux's ratio too) lets a CPU that frees what
 *   another allocates (RX on one CPU, TX completion on another) absorb a
 *   burst without touching the zone lock. The larger orders keep fewer
 *   blocks so each list holds at most 512 KiB.
 */
#define PCP_BATCH_ORDER0 32
#define PCP_HIGH_ORDER0	 192
#define PCP_BATCH_ORDER1 16
#define PCP_HIGH_ORDER1	 64
#define PCP_BATCH_ORDER2 8
#define PCP_HIGH_ORDER2	 32
#define PCP_BATCH_ORDER3 4
#define PCP_HIGH_ORDER3	 16

/*
 * On a small zone, all CPUs' lists together may hold at most 1/PCP_ZONE_SHARE
 * of the zone's pages, so per-CPU caching cannot starve a small machine
 * (or a host test that boots 2 MiB nodes); high and batch shrink to fit.
 */
#define PCP_ZONE_SHARE 8

/*
 * PCP on at boot. pcp_set_enabled(false) switches every order to the buddy
 * lists directly: the benchmark uses it to measure what the PCP saves.
 */
#define PCP_ENABLED_DEFAULT 1

/*
 * Deferred struct page initialisation (mm/page_init.c).
 *
 * MM_BOOT_INIT_PAGES: usable pages per node whose struct pages mm_init()
 * writes at once (then up to the end of that MAX_ORDER block); the rest
 * of a bigger node follows in the background or on demand. 1 GiB: far
 * more than the boot and the network take before the background work is
 * under way (the kernel with a virtio NIC had used 352 pages, 1.4 MiB,
 * when its services listened), and nodes of up to 1 GiB, nearly every
 * QEMU test's, are whole at boot as before. Costs ~4 ms of boot under
 * QEMU -icount (4.2 million guest instructions per GiB of RAM:
 * docs/page_alloc.md).
 * MM_DEFERRED_CHUNK_PAGES: pages initialised per claim (a multiple of
 * the MAX_ORDER block). 32 MiB: 512 KiB of struct pages, ~0.13 million
 * guest instructions, short enough that a CPU's poll loop stays
 * responsive between chunks, long enough that the claim's lock is noise.
 */
#define MM_BOOT_INIT_PAGES	(1UL << (30 - MM_PAGE_SHIFT))
#define MM_DEFERRED_CHUNK_PAGES (8192UL)

/* Byte written over every freed page in debug mode: a use after free reads
 * 0x6b6b... (Linux's POISON_FREE), easy to spot in a dump. */
#define PAGE_POISON_BYTE 0x6b

#endif /* MM_PAGE_ALLOC_TUNABLES_H */
