/*
 * lwIP configuration for this kernel. Every option set here differs from
 * lwIP's default (src/include/lwip/opt.h) and says why.
 *
 * The shape: lwIP runs bare (NO_SYS) inside the poll loops of the CPUs
 * that own NIC queues, each entering it only while holding the one lwIP
 * core lock (net/core_lock.c), so lwIP itself sees one thread. Memory:
 * net/net_mem.c decides at boot (net_alloc=stock|native) whether lwIP's heap
 * and pools are lwIP's own (a static heap, static pools, received frames
 * copied into PBUF_POOL) or ours (kmalloc, qmempool, zero-copy page_frag
 * pbufs). The compile-time switches below are set so that both are possible
 * in one binary: see net/net_mem.c for how.
 */
#ifndef NET_LWIPOPTS_H
#define NET_LWIPOPTS_H

/* ---- System: bare, one CPU at a time under the core lock ---- */
/* No threads or semaphores: lwIP is driven from the poll loops. */
#define NO_SYS		     1
/* lwIP's own critical sections (SYS_ARCH_PROTECT around pbuf reference
 * counts, memp pools, netif lists) guard against a second thread or an
 * interrupt handler entering lwIP. Neither exists: every entry runs under
 * the core lock, never from an interrupt handler, so the lock already
 * serialises those sections, and they stay empty. Nothing outside lwIP
 * touches a pbuf: drivers see (address, length) pairs, and a received
 * frame becomes a pbuf only under the lock (net/netif_glue.c). */
#define SYS_LIGHTWEIGHT_PROT 0
/* lwIP checks at its entry points (netif, tcp, udp, timeouts, ...) that
 * the caller holds the core lock; a call without it is counted and
 * reported (net/core_lock.c). */
#ifndef __ASSEMBLER__
#include "core_lock.h"
#endif
#define LWIP_ASSERT_CORE_LOCKED() NET_ASSERT_CORE_LOCKED()
/* The sequential and socket APIs need threads. */
#define LWIP_NETCONN		  0
#define LWIP_SOCKET		  0

/* lwIP copies small fixed-size things (MAC addresses in every Ethernet
 * header it writes, IP headers) with SMEMCPY. The kernel is built
 * -ffreestanding, so a plain memcpy is always a call; the builtin turns a
 * constant size into a few moves (a call for any other size). */
#define SMEMCPY(dst, src, len) __builtin_memcpy(dst, src, len)

/* ---- Memory ---- */
/* x86_64: keep heap and pool objects 8-byte aligned (lwIP assumes 4). */
#define MEM_ALIGNMENT 8
/* mem_malloc() goes to net_heap_malloc() (net/net_mem.c), which picks the
 * stock heap or kmalloc at run time; lwIP's hook for "use a malloc from
 * elsewhere" is MEM_LIBC_MALLOC. The stock heap is lwIP's own mem.c
 * compiled a second time with NET_LWIP_STOCK_HEAP defined (mk/net.mk):
 * then it is the classic heap, its functions renamed lwip_stock_mem_*, and
 * its statistics off so lwIP's counters (kept by the wrapper) do not count
 * each allocation twice. */
#ifdef NET_LWIP_STOCK_HEAP
#define MEM_LIBC_MALLOC 0
#define MEM_STATS	0
#define mem_init	lwip_stock_mem_init
#define mem_trim	lwip_stock_mem_trim
#define mem_malloc	lwip_stock_mem_malloc
#define mem_calloc	lwip_stock_mem_calloc
#define mem_free	lwip_stock_mem_free
#else
#define MEM_LIBC_MALLOC 1
#define mem_clib_malloc net_heap_malloc
#define mem_clib_free	net_heap_free
#define mem_clib_calloc net_heap_calloc
/* Off by default with MEM_LIBC_MALLOC; on, mem.c's wrapper counts the
 * heap bytes in use for both modes alike. */
#define MEM_STATS	1
#endif
#ifndef __ASSEMBLER__
#include <stddef.h>
void *net_heap_malloc(size_t size);
void *net_heap_calloc(size_t count, size_t size);
void net_heap_free(void *ptr);
#endif
/* memp_malloc()/memp_free()/memp_init() are ours too (net/net_mem.c):
 * lwIP's memp.c, with its static pools, is built with NET_LWIP_STOCK_MEMP
 * defined (mk/net.mk) so these three are renamed there, and our versions
 * send each call to the stock pools or to one qmempool per pool type.
 * lwIP has no hook for this, hence the renaming. */
#ifdef NET_LWIP_STOCK_MEMP
#define memp_malloc lwip_stock_memp_malloc
#define memp_free   lwip_stock_memp_free
#define memp_init   lwip_stock_memp_init
#endif
/* Size of the stock heap (default 1600 bytes is for microcontrollers): it
 * holds TCP_SND_BUF-sized send queues of PBUF_RAM segments for a few
 * connections plus lwiperf and HTTP connection state. */
#define MEM_SIZE (1024 * 1024)

/* Pools: sized for a few bulk TCP connections, not a microcontroller.
 * Each count bounds its pool in BOTH modes: net/net_mem.c refuses a
 * native allocation past it, as a full static pool would, because lwIP
 * recycles only on that failure (tcp_alloc() kills the oldest TIME_WAIT
 * PCB when MEMP_TCP_PCB is exhausted). /stats.json shows each pool's
 * limit and limit_hits. */
/* MEMP_NUM_SYS_TIMEOUT: DHCP, ARP, TCP, IPv6 ND/MLD/reassembly, lwiperf. */
#define MEMP_NUM_PBUF		 256 /* PBUF_ROM/REF: static pages, our TX refs */
/* TCP pcbs: the listeners' backlogs of half-open connections (64 each for
 * echo and HTTP, 1 for iperf: apps/iperf.c, net/tcp_syn_guard.h) still leave
 * 127 for established connections when a SYN flood fills them all: a load
 * generator's 64 keep-alive connections (wrk -c64) fit one stack. A bound,
 * not a reservation: native mode allocates a pcb when lwIP asks for one. */
#define MEMP_NUM_TCP_PCB	 256
#define MEMP_NUM_TCP_SEG	 512 /* must be >= TCP_SND_QUEUELEN (init.c) */
#define MEMP_NUM_SYS_TIMEOUT	 20
/* Stock RX copies each frame into PBUF_POOL pbufs: enough for a full receive
 * window per connection plus the NIC's in-flight frames. Native RX pbufs
 * (custom, zero copy) are bounded by the same count. */
#define PBUF_POOL_SIZE		 512
/* Received frames become custom pbufs in native mode (net/net_mem.c). */
#define LWIP_SUPPORT_CUSTOM_PBUF 1

/* ---- Protocols ---- */
/* Raw PCBs: the shell's ping (apps/ping.c) sends and receives ICMP
 * echo through one. */
#define LWIP_RAW	     1
/* The default boot is ip=dhcp (QEMU user-net hands out 10.0.2.15). */
#define LWIP_DHCP	     1
/* Skip probing the offered address with ARP: saves a second of boot and
 * QEMU's user-net never hands out a taken address. */
#define DHCP_DOES_ARP_CHECK  0
/* IPv6 beside IPv4 (dual stack): every app's pcb is IPADDR_TYPE_ANY. lwIP's
 * defaults then bring ICMPv6, neighbour discovery (with a 20-packet queue
 * while a neighbour is resolved, MEMP_NUM_ND6_QUEUE), MLD (4 groups:
 * all-nodes and the solicited-node groups of our addresses), router
 * solicitation and SLAAC (LWIP_IPV6_AUTOCONFIG: a global address from a
 * router advertisement's prefix), 3 addresses per netif, fragmentation
 * and reassembly. DHCPv6 stays off: SLAAC or ip6= give the address, and
 * nothing here needs a DNS server. */
#define LWIP_IPV6	     1
/* On x86_64 the reassembly helper struct (two pointers and offsets, 24
 * bytes) does not fit in the 8-byte fragment header it is written over;
 * lwIP asserts sizeof(struct ip6_reass_helper) <= IP6_FRAG_HLEN unless it
 * first copies the header aside (IPV6_FRAG_COPYHEADER). */
#define IPV6_FRAG_COPYHEADER 1
/* Reassembly, bounded in time, datagrams and buffers (IPv4's and IPv6's
 * share the two counts): a fragmented datagram waits at most 15 s (lwIP's
 * default 60 s lets a sender of lone first fragments pin buffers for a
 * minute; IPv4's IP_REASS_MAXAGE is 15); at most 5 datagrams
 * (MEMP_NUM_REASSDATA, lwIP's default) and 48 received frames
 * (IP_REASS_MAX_PBUFS) are held, which lets one 65,535-byte datagram
 * through (45 fragments of 1,448 bytes) and keeps 464 of the 512 RX
 * pbufs (PBUF_POOL_SIZE) for everything else. Past either count lwIP
 * drops the oldest datagram (counted: ip6_frag.drop / ip_frag.drop). */
#define IPV6_REASS_MAXAGE    15
#define MEMP_NUM_REASSDATA   5
#define IP_REASS_MAX_PBUFS   48
/* gw6= on the command line: lwIP has no static IPv6 route, but asks this
 * hook for the next hop of an off-link destination (net/net_ip6.c). */
#ifndef __ASSEMBLER__
struct netif;
struct ip6_addr;
const struct ip6_addr *net_ip6_gateway(struct netif *nif,
				       const struct ip6_addr *dest);
#endif
#define LWIP_HOOK_ND6_GET_GW(nif, dest) net_ip6_gateway(nif, dest)
/* Neighbour discovery's defences (net/nd6_guard.c, docs/ipv6.md): every ND
 * message passes RFC 4861's validity checks before lwIP uses it, and lwIP
 * tells us what it ignored or gave up on, to count. Both hooks are ours
 * (net/lwip-patches/0005, 0006). */
#ifndef __ASSEMBLER__
#include "nd6_guard.h"
#endif
#define LWIP_HOOK_ND6_INPUT(p, inp) net_nd6_accept(p, inp)
#define LWIP_HOOK_ND6_NOTE(event)   net_nd6_note(NET_ND6_##event)
/* An RA may not change the ND timers or the link MTU: lwIP took its
 * reachable time unbounded (a forged RA with 0xffffffff ms kept a lied-
 * about MAC believed for 49 days) and its MTU option could only lower
 * the MTU, for good. Our links are Ethernet with lwIP's RFC defaults. */
#define LWIP_ND6_ALLOW_RA_UPDATES   0

/* A SYN flood holds at most a listener's backlog of pcbs, and a SYN to a
 * full backlog evicts the oldest half-open one (net/tcp_syn_guard.c). 64:
 * a client that opens 64 connections at once (wrk -c64) has all its SYNs
 * half-open together, and with 8 the guard evicted 56 of them. */
#define TCP_LISTEN_BACKLOG	   1
#define TCP_DEFAULT_LISTEN_BACKLOG 64
#ifndef __ASSEMBLER__
struct tcp_pcb;
struct tcp_hdr;
signed char net_tcp_syn_guard(struct tcp_pcb *pcb, const struct tcp_hdr *hdr);
signed char net_tcp_gro_ack(struct tcp_pcb *pcb, const struct tcp_hdr *hdr);
#endif
/* Initial sequence numbers no peer can predict (RFC 6528): a keyed hash
 * of the connection's addresses and ports plus a clock (net/tcp_isn.c).
 * lwIP's own counted up from 6510, the same for everyone. */
#ifndef __ASSEMBLER__
struct ip_addr;
unsigned int net_tcp_isn(const struct ip_addr *local_ip,
			 unsigned short local_port,
			 const struct ip_addr *remote_ip,
			 unsigned short remote_port);
#endif
#define LWIP_HOOK_TCP_ISN(local_ip, local_port, remote_ip, remote_port) \
	net_tcp_isn((local_ip), (local_port), (remote_ip), (remote_port))
/* The local port of a connection the guest opens: one whose answers the
 * NIC's RSS steers back to the opening CPU (net/rss_steer.c; the hook is
 * ours, net/lwip-patches/0012). */
#ifndef __ASSEMBLER__
struct netif;
unsigned short net_tcp_connect_port(struct tcp_pcb *pcb, struct netif *nif);
#endif
#define LWIP_HOOK_TCP_CONNECT_PORT(pcb, nif) net_tcp_connect_port((pcb), (nif))
/* Segments of several MSS for a NIC that cuts them itself (TSO):
 * net/tcp_seg_max.c says how long; the hook is ours,
 * net/lwip-patches/0014. */
#ifndef __ASSEMBLER__
unsigned short net_tcp_seg_max(const struct tcp_pcb *pcb);
#endif
#define LWIP_HOOK_TCP_SEG_MAX(pcb) net_tcp_seg_max(pcb)
/* A segment of an existing connection: net_tcp_gro_ack (net/netif_glue.c) has
 * lwIP acknowledge a packet the glue joined from several segments at once,
 * and one out of order once per segment, as if they had come apart. */
#define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
	((pcb)->state == LISTEN ? net_tcp_syn_guard((pcb), (hdr))      \
				: net_tcp_gro_ack((pcb), (hdr)))

/* ---- TCP: tuned for bulk transfer (iperf, 1 MiB echo) ---- */
/* A full Ethernet frame per segment (the default 536 is the IPv4 minimum,
 * which would triple the per-byte packet cost). */
#define TCP_MSS		 1460
/* Window and send buffer 32 segments (~46 KiB): the default 4 segments
 * stalls on every ACK round trip through QEMU's user-net. Larger was
 * tried and measured no better: window scaling with a 251 KiB window and
 * a 128 KiB send buffer (user-net's libslirp offers no scaling, so it got
 * 64 KiB) gave iperf host->guest native 151 -> 94 Mbit/s on virtio and
 * 247 -> 306 on e1000 (medians of 4-6 interleaved rounds on a loaded
 * host: within the noise), and the same busy-poll instructions per
 * received segment (2,451 -> 2,467, tools/insn-profile). See
 * bench/netfast/. */
#define TCP_WND		 (32 * TCP_MSS)
#define TCP_SND_BUF	 (32 * TCP_MSS)
/* Segments queued for sending: lwIP's own formula, restated because
 * TCP_SND_BUF changed (MEMP_NUM_TCP_SEG must stay >= this). */
#define TCP_SND_QUEUELEN (4 * TCP_SND_BUF / TCP_MSS)

/* Out-of-order data (net/tcp_ooseq.c). A segment past a hole waits in the
 * receive buffer it came in, whatever its length, so one connection could
 * hold every buffer with one-byte segments. lwIP drops the tail of a
 * connection's queue past either bound. Both let a whole window of
 * full-sized segments wait behind one lost segment: 32 buffers (one per
 * full-sized segment, in either mode) and TCP_WND bytes. What lies past
 * them the sender retransmits; one connection holds at most 32 of the
 * 512 receive buffers (PBUF_POOL_SIZE). The hook counts what lwIP drops. */
#define TCP_OOSEQ_MAX_PBUFS	   (TCP_WND / TCP_MSS)
#define TCP_OOSEQ_MAX_BYTES	   TCP_WND
#define TCP_OOSEQ_PBUFS_LIMIT(pcb) net_tcp_ooseq_pbufs_limit(pcb)
#ifndef __ASSEMBLER__
unsigned short net_tcp_ooseq_pbufs_limit(const struct tcp_pcb *pcb);
#endif
/* Connections together: when a received frame finds every receive buffer
 * held, net/net_mem.c has out-of-order queues dropped (net/tcp_ooseq.c),
 * in both allocator modes. lwIP's own way (drop one queue when PBUF_POOL
 * is found empty, from the next timer check) would serve stock mode only:
 * native receive buffers are not PBUF_POOL. */
#define PBUF_POOL_FREE_OOSEQ 0

/* ---- Netif ---- */
/* net/netif_glue.c announces "eth0 up ip=..." from the status callback. */
#define LWIP_NETIF_STATUS_CALLBACK     1
/* net/net_ip6.c logs each IPv6 address when duplicate address detection
 * lets it be used; lwIP reports that only through this callback. */
#define LWIP_NETIF_EXT_STATUS_CALLBACK 1
/* DHCP sends a host name, handy in a DHCP server's lease list. */
#define LWIP_NETIF_HOSTNAME	       1

/* ---- Checksums: in software, or by the NIC where it offers it ---- */
/* Per netif, and per received frame: net/netif_glue.c turns off TCP/UDP sum
 * generation on a NIC that fills them (virtio-net CSUM) and the checks
 * for a frame the NIC vouched for (GUEST_CSUM). */
#define LWIP_CHECKSUM_CTRL_PER_NETIF	1
/* No sum in tcp_write(). With it on, tcp_write() sums every byte it
 * queues (folded into the copy, or a pass of its own over data queued
 * by reference), before it can know which netif will send them: on a
 * NIC that fills the sums the pass is wasted. Sent by the guest's iperf
 * client (by reference) under -icount, per 1460 bytes: virtio-net with
 * HOST_TSO4 3,086 -> 2,756 guest instructions, igb (TSO) 3,108 -> 2,784,
 * and e1000, which fills no sums (tcp_output sums each segment once,
 * headers and data in one pass, instead of combining a sum per write),
 * 3,245 -> 3,067 (docs/offloads.md, "Instructions per sent byte"). */
#define LWIP_CHECKSUM_ON_COPY		0
/* Our x86-64 routine (net/chksum.c: 64-bit adds with carry, 64 bytes per
 * loop pass) instead of lwIP's 16-bit loop, which took 3,854 of the 5,835
 * guest instructions of a received 1460-byte segment; and the copy with
 * the sum in the same pass, which tcp_write() would use for its copies
 * with LWIP_CHECKSUM_ON_COPY (off, above). */
#define LWIP_CHKSUM			net_chksum
#define LWIP_CHKSUM_COPY(dst, src, len) net_chksum_copy(dst, src, len)
#ifndef __ASSEMBLER__
#include "chksum.h"
#endif

/* ---- Statistics ---- */
/* lwIP's defaults already keep every counter we show in /stats.json
 * (LWIP_STATS, MEM/MEMP/LINK/IP/TCP/UDP/ICMP_STATS are all on), but as
 * 16-bit counters that wrap within a second of iperf: make them 32-bit. */
#define LWIP_STATS_LARGE 1

/* ---- Apps ---- */
/* lwiperf reports each test through a callback; no extra options. HTTP is
 * ours (apps/http_server.c), not lwIP's httpd. */

#endif /* NET_LWIPOPTS_H */
