/*
 * The reference build of lwIP's unit tests (build/lwip-unit/plain/):
 * lwIP's own test configuration untouched, its own heap (mem.c) and pools
 * (memp.c), none of our code. A test that fails through our glue
 * (tests/lwip/lwipopts.h) but passes here is the glue's or mm/'s fault.
 * One platform setting: MEM_ALIGNMENT 8, as the kernel's (lwIP's default
 * of 1 puts pool elements at odd addresses: UBSan's "member access within
 * misaligned address ... for type 'struct memp'" in memp.c).
 */
#ifndef TESTS_LWIP_PLAIN_LWIPOPTS_H
#define TESTS_LWIP_PLAIN_LWIPOPTS_H

#include "../../../third_party/lwip/test/unit/lwipopts.h"

#define MEM_ALIGNMENT 8

#endif /* TESTS_LWIP_PLAIN_LWIPOPTS_H */
