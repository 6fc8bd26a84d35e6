/*
 * Our own Check suite over lwIP's large-segment patch
 * (net/lwip-patches/0014), run by tests/lwip/main.c beside lwIP's suites.
 */
#ifndef TESTS_LWIP_TEST_TCP_LARGE_H
#define TESTS_LWIP_TEST_TCP_LARGE_H

#include "lwip_check.h"
#include "lwip/arch.h"

struct tcp_pcb;

Suite *tcp_large_suite(void);

/* LWIP_HOOK_TCP_SEG_MAX of the test build (tests/lwip/lwipopts.h): 0 (no
 * large segments) except while a tcp_large test runs. */
u16_t test_tcp_seg_max(const struct tcp_pcb *pcb);

#endif /* TESTS_LWIP_TEST_TCP_LARGE_H */
