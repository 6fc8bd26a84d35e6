/*
 * A SYN flood must not take every TCP pcb. lwIP has no SYN cookies: each
 * SYN to a listener makes a pcb in SYN_RCVD, and one from a source that
 * never answers lives about 20 s (lwIP's TCP_SYN_RCVD_TIMEOUT). Before
 * this guard, 500 SYNs from such sources took all 16 pcbs, and for those
 * 20 s every new connection (HTTP, echo, the guest's own iperf client)
 * was refused: the mixed soak load's guest->host iperf answered 503.
 *
 * So each listener holds at most its backlog of half-open connections
 * (TCP_LISTEN_BACKLOG, 64 by default: net/lwipopts.h), which leaves most of
 * the pool to everything else; and a SYN that finds its listener's backlog
 * full evicts that listener's oldest half-open connection (with an RST)
 * instead of being dropped, as BSD's SYN cache drops its oldest entry: a
 * real client that retries gets through a flood within its first retries.
 */
#ifndef NET_TCP_SYN_GUARD_H
#define NET_TCP_SYN_GUARD_H

#include "lwip/tcp.h"

/**
 * net_tcp_syn_guard - lwIP's LWIP_HOOK_TCP_INPACKET_PCB for a segment to a
 * listening @pcb (net/lwipopts.h calls it only for those): when @hdr is a
 * SYN and the listener's backlog is full, abandon its oldest SYN_RCVD pcb
 * and count it. Always ERR_OK: lwIP then handles the SYN as usual.
 * Context: lwIP input, under the core lock.
 */
err_t net_tcp_syn_guard(struct tcp_pcb *pcb, const struct tcp_hdr *hdr);

/** net_tcp_syn_evicted - half-open connections evicted since boot. */
unsigned long net_tcp_syn_evicted(void);

#endif
