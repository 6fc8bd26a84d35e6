/*
 * Slab allocator tunables: every knob of mm/slab*.c and mm/kmalloc.c in one
 * place, each with its default and the reason for it.
 */
#ifndef MM_SLAB_TUNABLES_H
#define MM_SLAB_TUNABLES_H

/*
 * Per-CPU magazine capacity (object pointers) by object size. The magazine
 * is the whole fast path, so it should hold a full burst: the "N(256)"
 * pattern of a NIC ring (allocate 256 buffers, free 256) then never leaves
 * it once warm. Larger objects get smaller magazines so a CPU does not sit
 * on too much memory: at most ~512 KiB per CPU per cache for 8 KiB objects.
 */
#define SLAB_CPU_CAP_SMALL   256 /* objects up to SLAB_CPU_SMALL_SIZE */
#define SLAB_CPU_SMALL_SIZE  256
#define SLAB_CPU_CAP_MEDIUM  128 /* objects up to SLAB_CPU_MEDIUM_SIZE */
#define SLAB_CPU_MEDIUM_SIZE 1024
#define SLAB_CPU_CAP_LARGE   64 /* larger objects */

/*
 * Objects moved per refill (node lists -> magazine) and per flush (magazine
 * -> node lists), as a fraction of the capacity: half, so that a CPU that
 * alternates between allocating and freeing around a boundary does not pay
 * a node-lock round trip on every call (the classic magazine ping-pong).
 */
#define SLAB_CPU_BATCH_DIV 2

/*
 * Empty slabs each node keeps per cache before returning further empty
 * slabs to the page allocator. Two absorb a burst that frees and
 * re-allocates around a slab boundary without a page-allocator round trip;
 * more would hide memory from other caches and from the page allocator.
 */
#define SLAB_NODE_EMPTY_RESERVE 2

/*
 * Slab size: the smallest order (up to SLAB_MAX_ORDER) that holds at least
 * SLAB_MIN_OBJECTS objects and wastes at most 1/SLAB_WASTE_DIV of the slab.
 * Order 3 is the largest order the per-CPU page lists keep, so slab pages
 * never need the buddy lock in the common case. 16 objects per slab means
 * a refill of 128 objects touches at most 8 slabs.
 */
#define SLAB_MAX_ORDER	 3
#define SLAB_MIN_OBJECTS 16
#define SLAB_WASTE_DIV	 16

/* Largest object a cache may hold (the largest kmalloc class). */
#define SLAB_MAX_SIZE (8u * 1024u)

/*
 * Debug layout (MM_DEBUG or SLAB_RED_ZONE/SLAB_POISON): red zones before
 * and after each object, filled with a pattern that is checked on free.
 * One cache line each side: an underflow of a word or more and an
 * overflow of up to a cache line are caught (16 bytes missed a 32-byte
 * underflow of an 8-byte object); an overrun that jumps further is
 * caught only if it lands in another red zone.
 */
#define SLAB_REDZONE_BYTES 64

#endif /* MM_SLAB_TUNABLES_H */
