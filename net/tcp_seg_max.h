/*
 * Large TCP segments: on a NIC that cuts TCP segments itself (TSO), lwIP
 * builds segments of several MSS and the device cuts them at the MTU,
 * instead of lwIP building one MSS at a time and the driver merging them
 * again (drivers/tcp_merge.c). Per byte sent, lwIP's per-segment work
 * (a segment and its header pbuf in tcp_write; headers, IP and the
 * driver's post in tcp_output; one unacked entry to free per ACK) is
 * paid once per large segment; measured in docs/offloads.md.
 *
 * The hook (LWIP_HOOK_TCP_SEG_MAX, our patch
 * net/lwip-patches/0014-tcp-large-segments-for-a-netif-that-cuts-them.patch)
 * only says how long a segment may be. The patch keeps TCP's rules: a
 * segment that does not fit the window is split at a multiple of the MSS
 * (without a copy where the data is held by reference or the cut falls
 * between pbufs), IP leaves it unfragmented, and retransmission splits it
 * the same way.
 */
#ifndef NET_TCP_SEG_MAX_H
#define NET_TCP_SEG_MAX_H

#include "lwip/tcp.h"

/**
 * net_tcp_seg_max - lwIP's LWIP_HOOK_TCP_SEG_MAX (net/lwipopts.h): the
 * most payload bytes one segment of @pcb may carry. tcp_seg_mss= MSS
 * when the netif the connection leaves by has a device that cuts
 * segments of its family (NETDEV_OFF_TSO4/TSO6) and the connection's MSS
 * is the one that netif's MTU gives (the device cuts at the MTU: only
 * then are its pieces the segments lwIP would have built); else
 * pcb->mss. Context: lwIP, under the core lock.
 */
u16_t net_tcp_seg_max(const struct tcp_pcb *pcb);

#endif /* NET_TCP_SEG_MAX_H */
