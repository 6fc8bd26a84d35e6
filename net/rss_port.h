/*
 * The local port of a connection the guest opens, chosen so that the
 * NIC's receive-side scaling steers the answers back to the CPU that
 * opened it (what mTCP and F-Stack do): the answers' Toeplitz hash
 * covers the remote address and port, the local address and the local
 * port, and only the last is ours to choose.
 */
#ifndef NET_RSS_PORT_H
#define NET_RSS_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "toeplitz.h"

/* A flow the guest opens, and the device's RSS state it will meet. */
struct rss_port_query {
	const uint8_t *key;   /* the device's key, TOEPLITZ_KEY_LEN bytes */
	const uint8_t *table; /* its redirection table: a queue per entry */
	int table_len;	      /* entries, a power of two */
	int queue;	      /* the queue the answers should reach */
	bool v6;	      /* addresses of 16 bytes, else 4 */
	const uint8_t *local, *remote; /* network order */
	uint16_t remote_port;
};

/* Is @port in use by some connection or listener (the caller's rule)? */
typedef bool (*rss_port_in_use_fn)(uint16_t port, void *arg);

/**
 * rss_port_pick - a local port in [@first, @last] that is not in use and
 * whose answers (source @q->remote:@q->remote_port, destination
 * @q->local:port) hash to an entry of @q->table naming @q->queue.
 * @start: where the search begins (in the range; the caller randomises
 *	   it, RFC 6056), walking up and wrapping from @last to @first.
 * @checked: if not NULL, set to the candidate ports looked at.
 *
 * Returns the first such port, 0 when none in the range is (the table
 * names @q->queue nowhere, or every port that would is in use). Costs
 * one full hash, then about 16 XORs a candidate; about table_len /
 * (entries naming the queue) candidates are looked at on average.
 * Context: any; calls @in_use.
 */
uint16_t rss_port_pick(const struct rss_port_query *q, uint16_t first,
		       uint16_t last, uint16_t start, rss_port_in_use_fn in_use,
		       void *arg, unsigned int *checked);

#endif /* NET_RSS_PORT_H */
