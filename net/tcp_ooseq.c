/*
 * Out-of-order TCP data: bounded per connection, reclaimed when the
 * receive buffers run out.
 *
 * A segment that arrives past a hole in its connection's sequence space
 * waits on the connection's out-of-order queue (pcb->ooseq) until the
 * hole is filled, and it waits in the receive buffer it came in, whatever
 * its length: in native mode the 2 KiB fragment the NIC wrote, in stock
 * mode a PBUF_POOL pbuf. Either mode has PBUF_POOL_SIZE such buffers.
 * Unbounded, one connection to the echo port that sent 600 one-byte
 * segments past a two-byte hole (30 KB on the wire, every 0.5 s) held
 * all 512 in native mode, and from then on every frame was dropped, ARP,
 * ping and HTTP alike: the guest stopped answering 2 s into the attack.
 * Stock mode got by only because lwIP frees a queue when its PBUF_POOL
 * is found empty, which native receive never uses (docs/net-memory.md).
 *
 * Two bounds now, the same in both modes:
 *
 *  - per connection, in lwIP: after queueing a segment, lwIP drops the
 *    queue's tail (its highest sequence numbers) past TCP_OOSEQ_MAX_PBUFS
 *    buffers or TCP_OOSEQ_MAX_BYTES bytes (net/lwipopts.h: a window of
 *    full-sized segments passes); the sender retransmits it. lwIP asks
 *    net_tcp_ooseq_pbufs_limit() for the bound just before, which counts
 *    what will go, as lwIP keeps no count of it.
 *  - over all connections: when a received frame finds every receive
 *    buffer held, net/net_mem.c has whole queues dropped here before it
 *    gives up on the frame, the connection heard from least recently
 *    first (pcb->tmr, the tick of its last segment: lwIP itself takes
 *    silence for staleness and drops the queue of a connection silent
 *    for six retransmission timeouts, TCP_OOSEQ_TIMEOUT), until half the
 *    buffers are free. lwIP's own reclaim
 *    (PBUF_POOL_FREE_OOSEQ) is off, so stock mode takes the same way.
 */
#include "tcp_ooseq.h"

#include <stdint.h>

#include "libc/stat_table.h"
#include "libc/strbuf.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "net_percpu.h"

struct ooseq_state {
	unsigned int max_pbufs, max_bytes; /* the bounds, for the reader */
	uint64_t trims, trimmed_pbufs;
	uint64_t reclaims, reclaimed_queues, reclaimed_pbufs;
	unsigned int largest_queue_pbufs; /* kept by one connection, ever */
};
/* Each stack instance's own (net/net_percpu.h); /stats.json sums. */
static NET_PERCPU struct ooseq_state ooseq = {.max_pbufs = TCP_OOSEQ_MAX_PBUFS,
					      .max_bytes = TCP_OOSEQ_MAX_BYTES};

unsigned short net_tcp_ooseq_pbufs_limit(const struct tcp_pcb *pcb)
{
	const struct tcp_seg *s;
	uint32_t bytes = 0;
	unsigned int pbufs = 0, kept = 0;

	/* The walk lwIP is about to make: it stops at the first segment
	 * that takes the queue past either bound and frees it and the rest. */
	for (s = pcb->ooseq; s; s = s->next) {
		bytes += s->p->tot_len;
		pbufs += pbuf_clen(s->p);
		if (bytes > TCP_OOSEQ_MAX_BYTES || pbufs > TCP_OOSEQ_MAX_PBUFS)
			break;
		kept = pbufs;
	}
	if (s) {
		ooseq.trims++;
		for (; s; s = s->next)
			ooseq.trimmed_pbufs += pbuf_clen(s->p);
	}
	if (kept > ooseq.largest_queue_pbufs)
		ooseq.largest_queue_pbufs = kept;
	return TCP_OOSEQ_MAX_PBUFS;
}

/* The connection heard from least recently that has a queue, or NULL.
 * On a tie the later one in lwIP's list, which tcp_input keeps in order
 * of the last segment received. */
static struct tcp_pcb *oldest_with_ooseq(void)
{
	struct tcp_pcb *oldest = NULL;

	for (struct tcp_pcb *p = tcp_active_pcbs; p; p = p->next)
		if (p->ooseq &&
		    (!oldest || (u32_t)(tcp_ticks - p->tmr) >=
					(u32_t)(tcp_ticks - oldest->tmr)))
			oldest = p;
	return oldest;
}

unsigned int net_tcp_ooseq_reclaim(unsigned int want)
{
	unsigned int freed = 0;
	struct tcp_pcb *pcb;

	ooseq.reclaims++;
	while (freed < want && (pcb = oldest_with_ooseq()) != NULL) {
		for (const struct tcp_seg *s = pcb->ooseq; s; s = s->next)
			freed += pbuf_clen(s->p);
		tcp_free_ooseq(pcb);
		ooseq.reclaimed_queues++;
	}
	ooseq.reclaimed_pbufs += freed;
	return freed;
}

/* The "tcp_ooseq" object of /stats.json, read from the state itself. */
#define OOSEQ_COUNTER(f, u, l) STAT_COUNTER_AT(struct ooseq_state, f, u, l)
static const struct stat_desc ooseq_stats[] = {
	STAT_INFO_AT(struct ooseq_state, max_pbufs, "buffers",
		     "most receive buffers one connection's queue keeps"),
	STAT_INFO_AT(struct ooseq_state, max_bytes, "bytes",
		     "most bytes one connection's queue keeps"),
	OOSEQ_COUNTER(trims, "events", "queues cut back to the bounds"),
	OOSEQ_COUNTER(trimmed_pbufs, "buffers", "buffers those cuts dropped"),
	STAT_GAUGE_AT(struct ooseq_state, largest_queue_pbufs, "buffers",
		      "most buffers one connection's queue has kept"),
	OOSEQ_COUNTER(reclaims, "events",
		      "receive buffers ran out: queues dropped"),
	OOSEQ_COUNTER(reclaimed_queues, "queues",
		      "whole queues dropped, least recently heard first"),
	OOSEQ_COUNTER(reclaimed_pbufs, "buffers", "buffers those gave back"),
};
static const struct stat_group ooseq_groups[] = {
	STAT_GROUP("", ooseq_stats),
};
const struct stat_schema net_tcp_ooseq_schema = STAT_SCHEMA(ooseq_groups);

int net_tcp_ooseq_stats_json(char *buf, size_t size)
{
	struct ooseq_state sum = ooseq;
	struct strbuf sb;

	sum.trims = sum.trimmed_pbufs = sum.reclaims = 0;
	sum.reclaimed_queues = sum.reclaimed_pbufs = 0;
	sum.largest_queue_pbufs = 0;
	for (int i = 0; i < net_instance_count; i++) {
		const struct ooseq_state *o = NET_INSTANCE_VAR(i, ooseq);

		sum.trims += o->trims;
		sum.trimmed_pbufs += o->trimmed_pbufs;
		sum.reclaims += o->reclaims;
		sum.reclaimed_queues += o->reclaimed_queues;
		sum.reclaimed_pbufs += o->reclaimed_pbufs;
		if (o->largest_queue_pbufs > sum.largest_queue_pbufs)
			sum.largest_queue_pbufs = o->largest_queue_pbufs;
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, ooseq_stats, STAT_TABLE_LEN(ooseq_stats), &sum);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
