/*
 * Packet capture at the netif (net/capture.c, docs/observe.md): the
 * frames each interface takes in and sends, both directions, kept in one
 * buffer and written out in pcap format (what tcpdump, tshark and
 * Wireshark read). A capture has a frame count, a snap length and a
 * filter on protocol and port; it stops by itself at its count.
 *
 * Off unless asked for: capture=1 at boot starts one with the
 * capture_* keys and serves /capture.pcap (apps/http_capture.c); the
 * shell's `capture` starts and stops them at any time. While none runs,
 * a frame costs one load and a branch (net_capturing()).
 */
#ifndef NET_CAPTURE_H
#define NET_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/netdev.h"

enum capture_dir { CAPTURE_RX, CAPTURE_TX };

/* 1 while a capture records. Written by net/capture.c only. */
extern atomic_uchar net_capture_on;

static inline bool net_capturing(void)
{
	return atomic_load_explicit(&net_capture_on, memory_order_relaxed);
}

/*
 * net_capture_frame - record one frame of dev, given as n pieces (a
 * received frame's buffers, a sent chain's scatter list), if it passes
 * the filter and fits. Call only when net_capturing(). Any CPU, poll
 * context (RX outside or inside the core lock, TX under it); takes the
 * capture's own spinlock with interrupts masked.
 */
void net_capture_frame(struct netdev *dev, enum capture_dir dir,
		       const struct netdev_sg *piece, int n);

/*
 * net_capture_start - a new capture of at most count frames, each cut
 * to snaplen bytes, of those that pass filter ("all", "arp", "icmp",
 * "ip", "ip6", "tcp", "udp", any of these with ":PORT", or "port:PORT").
 * The frames of the last capture are dropped. Poll context. Returns 0;
 * -1 for a bad argument (nothing changes); -2 when its buffer cannot be
 * allocated.
 */
int net_capture_start(unsigned long count, unsigned int snaplen,
		      const char *filter);

/* net_capture_stop - stop recording; the frames stay until the next
 * start. Any context. */
void net_capture_stop(void);

/* net_capture_filter_ok - is filter a filter net_capture_start takes? */
bool net_capture_filter_ok(const char *filter);

/* capture=1: start one from the capture_* keys. Boot CPU, once. */
void net_capture_boot(void);

/*
 * net_capture_pcap - the frames of the last capture as a pcap file
 * (microsecond timestamps since boot, Ethernet links). snprintf
 * semantics against size (buf may be NULL with size 0); while a capture
 * records, two calls may differ. Poll context, not concurrently with a
 * start.
 */
size_t net_capture_pcap(char *buf, size_t size);

/* net_capture_text - one line per frame of the last capture (time,
 * direction, interface, length, protocol, addresses and ports), at most
 * max lines. snprintf semantics. Poll context. */
int net_capture_text(char *buf, size_t size, unsigned long max);

/* The "capture" object of /stats.json and its description. */
int net_capture_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_capture_schema;

#endif
