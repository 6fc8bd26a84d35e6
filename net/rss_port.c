/*
 * The local port of an active open, steered back to its CPU (see
 * rss_port.h).
 *
 * The answers' hash input is remote address, local address, remote port,
 * local port. The Toeplitz hash is linear over XOR, so the hash of the
 * input with local port p is the hash with local port 0 XOR, for every
 * set bit of p, the key window at that bit's position: one full hash per
 * pick, then 16 window XORs per candidate port. A candidate is kept when
 * the redirection table's entry for its hash names the wanted queue and
 * the caller says no pcb uses it.
 */
#include "rss_port.h"

#include <string.h>

/* The hash of the answers' input with local port 0, and the key window
 * of each local-port bit (port_win[15]: the port's most significant). */
struct port_hash {
	uint32_t base;
	uint32_t port_win[16];
};

static void port_hash_init(const struct rss_port_query *q, struct port_hash *h)
{
	unsigned int alen = q->v6 ? 16 : 4;
	/* remote, local, remote port: the local port's first bit follows */
	unsigned int port_bit = (2 * alen + 2) * 8;

	h->base = q->v6 ? toeplitz_ipv6_ports(q->key, q->remote, q->local,
					      q->remote_port, 0)
			: toeplitz_ipv4_ports(q->key, q->remote, q->local,
					      q->remote_port, 0);
	for (unsigned int b = 0; b < 16; b++)
		h->port_win[15 - b] = toeplitz_key_window(q->key, port_bit + b);
}

static uint32_t port_hash(const struct port_hash *h, uint16_t port)
{
	uint32_t v = h->base;

	for (unsigned int b = 0; b < 16; b++)
		if ((port >> b) & 1u)
			v ^= h->port_win[b];
	return v;
}

/* Does the table name @queue anywhere? Without it no port can do. */
static bool table_names(const struct rss_port_query *q)
{
	for (int i = 0; i < q->table_len; i++)
		if (q->table[i] == q->queue)
			return true;
	return false;
}

uint16_t rss_port_pick(const struct rss_port_query *q, uint16_t first,
		       uint16_t last, uint16_t start, rss_port_in_use_fn in_use,
		       void *arg, unsigned int *checked)
{
	uint32_t span = (uint32_t)last - first + 1, mask;
	struct port_hash h;
	unsigned int n = 0;
	uint16_t port = 0;

	if (checked)
		*checked = 0;
	if (first == 0 || first > last || q->table_len <= 0 ||
	    (q->table_len & (q->table_len - 1)) || !table_names(q))
		return 0;
	if (start < first || start > last)
		start = first;
	mask = (uint32_t)q->table_len - 1;
	port_hash_init(q, &h);
	for (uint32_t i = 0; i < span; i++) {
		uint16_t p = (uint16_t)(first + (start - first + i) % span);

		n++;
		if (q->table[port_hash(&h, p) & mask] == q->queue &&
		    !in_use(p, arg)) {
			port = p;
			break;
		}
	}
	if (checked)
		*checked = n;
	return port;
}
