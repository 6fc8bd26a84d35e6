/*
 * lwIP's unit tests on the host: lwIP's own test configuration
 * (test/unit/lwipopts.h in the fetched source), plus the memory set-up of
 * our network glue (net/net_mem.c), exactly as the kernel builds it
 * (net/lwipopts.h): mem_malloc() through net_heap_malloc(), memp_*()
 * through net/net_mem.c, lwIP's own heap and pools compiled a second time
 * under renamed functions. The test program picks the mode at run time
 * (net_alloc_mode): native (kmalloc, qmempool, page_frag from mm/) or
 * stock (lwIP's heap and static pools behind the same glue).
 */
#ifndef TESTS_LWIP_LWIPOPTS_H
#define TESTS_LWIP_LWIPOPTS_H

#include "../../third_party/lwip/test/unit/lwipopts.h"

#define MEM_ALIGNMENT 8

#ifdef NET_LWIP_STOCK_HEAP
#define MEM_LIBC_MALLOC 0
#define MEM_STATS	0
#define mem_init	lwip_stock_mem_init
#define mem_trim	lwip_stock_mem_trim
#define mem_malloc	lwip_stock_mem_malloc
#define mem_calloc	lwip_stock_mem_calloc
#define mem_free	lwip_stock_mem_free
#else
#include <stddef.h>
#define MEM_LIBC_MALLOC 1
#define mem_clib_malloc net_heap_malloc
#define mem_clib_free	net_heap_free
#define mem_clib_calloc net_heap_calloc
#define MEM_STATS	1
void *net_heap_malloc(size_t size);
void *net_heap_calloc(size_t count, size_t size);
void net_heap_free(void *ptr);
#endif

#ifdef NET_LWIP_STOCK_MEMP
#define memp_malloc lwip_stock_memp_malloc
#define memp_free   lwip_stock_memp_free
#define memp_init   lwip_stock_memp_init
#endif

/* The kernel's large-segment hook (net/lwipopts.h), answered here by
 * tests/lwip/test_tcp_large.c: 0 -- segments of one MSS, as lwIP's own
 * tests expect -- except while one of its tests runs. */
#if !defined(__ASSEMBLER__)
struct tcp_pcb;
unsigned short test_tcp_seg_max(const struct tcp_pcb *pcb);
#endif
#define LWIP_HOOK_TCP_SEG_MAX(pcb) test_tcp_seg_max(pcb)

#endif /* TESTS_LWIP_LWIPOPTS_H */
