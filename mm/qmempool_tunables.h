/*
 * qmempool tunables: every knob of the pool in one place, with its default
 * and the reason for it. Pool sizes themselves are arguments of
 * qmempool_create(); these are the fixed parts of the design.
 */
#ifndef MM_QMEMPOOL_TUNABLES_H
#define MM_QMEMPOOL_TUNABLES_H

/*
 * QMEMPOOL_BULK (16): the fewest objects moved per refill (sharedq or slab
 * -> localq) and per spill (localq -> sharedq, or -> slab), and the
 * smallest localq. A pool moves half its localq at a time (qmempool.h),
 * so a 16- or 32-slot localq moves 16. One compare-and-swap on the shared
 * queue then pays for 16 objects or more: Brouer's RFC measured the MPMC
 * queue at 9.5 ns per single element but 1.55 ns per element in bulks of
 * 16, close to the 1.1 ns of the SPSC queue.
 */
#define QMEMPOOL_BULK 16

/*
 * QMEMPOOL_REFILL_MULTIPLIER (2): the shared queue must hold at least this
 * many bulks, so that one CPU spilling a bulk while another refills one
 * does not find it full (which would send objects back to the slab only
 * to fetch them again). The RFC's rule: sharedq_sz >= BULK * 2.
 */
#define QMEMPOOL_REFILL_MULTIPLIER 2

/*
 * QMEMPOOL_MAX_QSZ: largest local or shared queue, the ALF queue's limit
 * (2^16 slots). A pool that needs more should be a slab cache.
 */
#define QMEMPOOL_MAX_QSZ ALF_QUEUE_MAX_SIZE

#endif /* MM_QMEMPOOL_TUNABLES_H */
