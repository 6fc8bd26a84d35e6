/*
 * lwIP options for compiling lwIP's own checksum routines on the host as
 * the reference tests/host/net/test_chksum.c compares net/chksum.c with:
 * LWIP_CHKSUM is left unset, so core/inet_chksum.c defines
 * lwip_standard_chksum (lwIP's default algorithm) and, with
 * LWIP_CHECKSUM_ON_COPY, lwip_chksum_copy.
 */
#ifndef TEST_LWIP_REF_LWIPOPTS_H
#define TEST_LWIP_REF_LWIPOPTS_H

#define NO_SYS		      1
#define LWIP_NETCONN	      0
#define LWIP_SOCKET	      0
#define LWIP_IPV6	      0
#define LWIP_CHECKSUM_ON_COPY 1

#endif
