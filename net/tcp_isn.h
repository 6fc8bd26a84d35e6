/*
 * TCP initial sequence numbers as RFC 6528 asks: ISN = M + F(local
 * address, local port, remote address, remote port, key), M a clock that
 * ticks every 4 microseconds, F SipHash-2-4 (libc/siphash.h) under a
 * 128-bit key drawn at the first connection.
 *
 * Why: without this hook lwIP counts its ISNs up from 6510 by its TCP
 * timer's ticks, the same sequence for every peer (four SYNs in a row got
 * 22038, 22704, 22926, 23370): anyone who opens one connection can guess
 * the numbers of the next, someone else's, and forge segments it takes as
 * that peer's (RFC 6528 section 1). The keyed hash gives each address and
 * port pair a sequence space no other pair reveals; the clock moves a
 * reused pair's numbers on past its old connection's (RFC 9293 3.4.1).
 */
#ifndef NET_TCP_ISN_H
#define NET_TCP_ISN_H

#include "lwip/ip_addr.h"

/**
 * net_tcp_isn - lwIP's LWIP_HOOK_TCP_ISN (net/lwipopts.h): the initial
 * sequence number of a new connection between (@local_ip, @local_port)
 * and (@remote_ip, @remote_port), ports in host order. The first call
 * draws the key. Context: lwIP, under the core lock.
 */
u32_t net_tcp_isn(const ip_addr_t *local_ip, u16_t local_port,
		  const ip_addr_t *remote_ip, u16_t remote_port);

#endif /* NET_TCP_ISN_H */
