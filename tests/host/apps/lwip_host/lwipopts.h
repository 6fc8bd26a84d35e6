/*
 * lwIP's options for compiling the HTTP engine (apps/http_server.c) and
 * lwIP's own core/pbuf.c on the host, against the fake transport of
 * tests/host/apps/http_fake_tcp.h: a dual stack, as in the kernel (the
 * engine hands the site the peer's ip_addr_t), and the kernel's segment
 * size, receive window and send buffer (net/lwipopts.h).
 */
#ifndef TEST_LWIP_HOST_LWIPOPTS_H
#define TEST_LWIP_HOST_LWIPOPTS_H

#define NO_SYS		      1
#define LWIP_NETCONN	      0
#define LWIP_SOCKET	      0
#define LWIP_IPV4	      1
#define LWIP_IPV6	      1
#define LWIP_TCP	      1
#define LWIP_STATS	      0
#define SYS_LIGHTWEIGHT_PROT  0
#define LWIP_CHECKSUM_ON_COPY 0
/* No out-of-sequence queue: pbuf.c would then reach into tcp.c. */
#define TCP_QUEUE_OOSEQ	      0
#define MEM_ALIGNMENT	      8
/* Over 64000: mem_size_t is 32 bits, as in the kernel. */
#define MEM_SIZE	      (1024 * 1024)

#define TCP_MSS		 1460
#define TCP_WND		 (32 * TCP_MSS)
#define TCP_SND_BUF	 (32 * TCP_MSS)
#define TCP_SND_QUEUELEN (4 * TCP_SND_BUF / TCP_MSS)

#endif
