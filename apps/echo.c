/*
 * Echo service (RFC 862) on port 7, TCP and UDP, IPv4 and IPv6, on lwIP's
 * raw API.
 *
 * UDP: every datagram goes back to its sender as it came.
 * TCP: received bytes are queued back with tcp_write(); when the send
 * buffer is full the received pbuf chain is kept (not acknowledged to the
 * window) and retried from the sent callback, so a fast sender is slowed
 * by TCP flow control instead of losing data. The poll callback retries
 * too: when tcp_write() fails for want of memory with nothing in flight,
 * no sent callback ever comes, and without the poll the kept chain (the
 * received buffers) stayed held for good (seen at -m 8M after a flood:
 * one RX buffer never came back, or the guest went mute).
 */
#include <stdbool.h>

#include "apps.h"
#include "kernel/console.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"

#define ECHO_PORT	   7
#define ECHO_POLL_INTERVAL 2 /* lwIP's coarse timer ticks: 1 s */

struct echo_conn {
	struct pbuf *pending; /* received bytes not yet queued for sending */
	bool closing;
};

static void udp_echo_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p,
			  const ip_addr_t *addr, u16_t port)
{
	(void)arg;
	udp_sendto(pcb, p, addr, port);
	pbuf_free(p);
}

/* Returns ERR_ABRT if the pcb had to be aborted (a callback must then
 * return it to lwIP), else ERR_OK. */
static err_t echo_close(struct tcp_pcb *pcb, struct echo_conn *c)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
	if (c) {
		if (c->pending)
			pbuf_free(c->pending);
		mem_free(c);
	}
	if (tcp_close(pcb) == ERR_OK)
		return ERR_OK;
	tcp_abort(pcb);
	return ERR_ABRT;
}

/*
 * Queue as much of the pending chain as the send buffer takes. The bytes
 * queued leave the chain at once (pbuf_free_header), so it holds only
 * bytes not yet sent: at most the receive window (tcp_recved() reopens it
 * only for bytes queued). A chain that kept its consumed head while new
 * segments were appended grew past the 65,535 bytes a pbuf chain's 16-bit
 * tot_len counts, and whole segments of the echo were lost (seen on a tap,
 * where the host keeps the window full: 4 of 4 256 KiB echoes short).
 */
static err_t echo_flush(struct tcp_pcb *pcb, struct echo_conn *c)
{
	struct pbuf *q = c->pending;
	uint16_t room = tcp_sndbuf(pcb), done = 0;

	while (q && done < room) {
		uint16_t chunk =
			(uint16_t)(q->len < room - done ? q->len : room - done);

		/* tcp_write copies: the chain can go as soon as it returns. */
		if (chunk && tcp_write(pcb, q->payload, chunk,
				       TCP_WRITE_FLAG_COPY) != ERR_OK)
			break;
		done = (uint16_t)(done + chunk);
		if (chunk < q->len)
			break;
		q = q->next;
	}
	if (done) {
		tcp_recved(pcb, done);
		c->pending = pbuf_free_header(c->pending, done);
	}
	tcp_output(pcb);
	if (c->closing && !c->pending)
		return echo_close(pcb, c);
	return ERR_OK;
}

static err_t echo_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
		       err_t err)
{
	struct echo_conn *c = arg;

	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		c->closing = true;
		return c->pending ? ERR_OK : echo_close(pcb, c);
	}
	if (c->pending)
		pbuf_cat(c->pending, p);
	else
		c->pending = p;
	return echo_flush(pcb, c);
}

static err_t echo_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	(void)len;
	return echo_flush(pcb, arg);
}

/* Every second while the connection lives: retry a kept chain that a
 * failed tcp_write() left with nothing in flight to call echo_sent. */
static err_t echo_poll(void *arg, struct tcp_pcb *pcb)
{
	struct echo_conn *c = arg;

	return c && c->pending ? echo_flush(pcb, c) : ERR_OK;
}

static void echo_err(void *arg, err_t err)
{
	struct echo_conn *c = arg;

	(void)err;
	if (c) {
		if (c->pending)
			pbuf_free(c->pending);
		mem_free(c);
	}
}

static err_t echo_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct echo_conn *c;

	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	c = mem_calloc(1, sizeof(*c));
	if (!c)
		return ERR_MEM;
	tcp_arg(pcb, c);
	tcp_recv(pcb, echo_recv);
	tcp_sent(pcb, echo_sent);
	tcp_err(pcb, echo_err);
	tcp_poll(pcb, echo_poll, ECHO_POLL_INTERVAL);
	return ERR_OK;
}

void app_echo_start(void)
{
	/* Both families: an IPADDR_TYPE_ANY pcb bound to IP_ANY_TYPE takes
	 * IPv4 and IPv6 (IP_ADDR_ANY would make it IPv4 only). */
	struct udp_pcb *u = udp_new_ip_type(IPADDR_TYPE_ANY);
	struct tcp_pcb *t = tcp_new_ip_type(IPADDR_TYPE_ANY), *l = NULL;

	if (u && udp_bind(u, IP_ANY_TYPE, ECHO_PORT) == ERR_OK)
		udp_recv(u, udp_echo_recv, NULL);
	else
		kprintf("net: echo: cannot bind udp/%d\n", ECHO_PORT);
	if (t && tcp_bind(t, IP_ANY_TYPE, ECHO_PORT) == ERR_OK)
		l = tcp_listen(t);
	if (l)
		tcp_accept(l, echo_accept);
	else
		kprintf("net: echo: cannot listen on tcp/%d\n", ECHO_PORT);
}
