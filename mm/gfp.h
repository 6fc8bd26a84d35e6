/*
 * Allocation flags (gfp = "get free pages"), with Linux's names and meanings
 * restricted to what matters in this kernel: nothing here ever sleeps or
 * reclaims, so GFP_KERNEL and GFP_ATOMIC differ only in intent.
 */
#ifndef MM_GFP_H
#define MM_GFP_H

typedef unsigned int gfp_t;

#define __GFP_ZERO     0x01u /* zero the memory before returning it */
#define __GFP_NOWARN   0x02u /* fail quietly: no console line on failure */
/*
 * __GFP_NORETRY: one cheap try, on the preferred node only: no fallback to
 * other nodes and no drain of the per-CPU lists. Stricter than Linux (where
 * it only limits reclaim, and other nodes are still tried) on purpose: its
 * users are opportunistic (page_frag's order-3 refill), would rather have a
 * smaller local block than a remote one, and fall back themselves.
 */
#define __GFP_NORETRY  0x04u
#define __GFP_THISNODE 0x08u /* only the requested node, no fallback */
#define __GFP_COMP     0x10u /* compound: tail pages point at the head */
#define __GFP_ATOMIC   0x20u /* caller may be in interrupt context */

#define GFP_KERNEL 0u
#define GFP_ATOMIC (__GFP_ATOMIC | __GFP_NOWARN)

#endif /* MM_GFP_H */
