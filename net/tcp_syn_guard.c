/*
 * The SYN-flood guard: a full listen backlog evicts its oldest half-open
 * connection (net/tcp_syn_guard.h says why).
 */
#include "tcp_syn_guard.h"

#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/tcp.h"
#include "net_percpu.h"

static NET_PERCPU unsigned long syn_evicted; /* each instance's */

err_t net_tcp_syn_guard(struct tcp_pcb *pcb, const struct tcp_hdr *hdr)
{
	struct tcp_pcb_listen *lpcb = (struct tcp_pcb_listen *)pcb;
	struct tcp_pcb *p, *oldest = NULL;

	if ((TCPH_FLAGS(hdr) & (TCP_SYN | TCP_ACK | TCP_RST)) != TCP_SYN ||
	    lpcb->accepts_pending < lpcb->backlog)
		return ERR_OK;
	/* The oldest by creation: pcb->tmr is the tick of the last segment
	 * received, which for SYN_RCVD is the SYN (a retransmitted SYN
	 * refreshes it, as a live client's would). */
	for (p = tcp_active_pcbs; p; p = p->next)
		if (p->state == SYN_RCVD && p->listener == lpcb &&
		    (!oldest || (u32_t)(tcp_ticks - p->tmr) >
					(u32_t)(tcp_ticks - oldest->tmr)))
			oldest = p;
	if (oldest) {
		tcp_abandon(oldest, 1);
		syn_evicted++;
	}
	return ERR_OK;
}

unsigned long net_tcp_syn_evicted(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < net_instance_count; i++)
		sum += *NET_INSTANCE_VAR(i, syn_evicted);
	return sum;
}
