/*
 * The GDB stub's TCP transport (gdb=tcp:PORT): gdb attaches with
 * `target remote HOST:PORT`, one debugger at a time.
 *
 * lwIP runs only under its core lock, in poll context, so the CPU that
 * serves gdb (a stopped machine's master, in a trap or NMI handler)
 * cannot call it. Two byte rings stand between them: the serving CPU
 * reads what the receive callback put in one and writes into the other;
 * this file's poller, on the transport's CPU (CPU 0), moves the bytes in
 * and out of the connection. That CPU is never stopped (kernel/gdb_stop.c
 * leaves it running, and it does not halt while the machine is stopped),
 * and a CPU holding the core lock may not stop (it would keep it from
 * the transport's CPU), which may_stop tells the stub.
 *
 * While the machine runs, a Ctrl-C or the '$' of gdb's first packet
 * arriving on the connection asks another CPU, by NMI, to stop it
 * (gdb_break_in_elsewhere); a machine of one CPU cannot be stopped this
 * way. Bytes that arrive while it runs and ask nothing (the '+' after a
 * detach) are dropped.
 *
 * The debugger's packets must reach CPU 0: with several NIC queues, a
 * connection hashed to a queue another CPU polls stalls once that CPU is
 * stopped (docs/observe.md; net_queues=1 keeps every flow on CPU 0).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/gdb_stub.h"
#include "kernel/poll.h"
#include "lwip/tcp.h"
#include "net/core_lock.h"
#include "net/netif_glue.h"

#define IO_CPU	  0
#define RING_SIZE 8192 /* a power of two, above gdb's longest packet */

/* One direction: one producer CPU, one consumer CPU. */
struct byte_ring {
	char buf[RING_SIZE];
	atomic_uint head; /* written by the producer */
	atomic_uint tail; /* written by the consumer */
};

static struct byte_ring rx, tx; /* gdb -> stub, stub -> gdb */
static struct tcp_pcb *client;	/* the debugger's connection, or NULL */
static atomic_bool closed = true;

static unsigned int ring_used(struct byte_ring *r)
{
	return atomic_load(&r->head) - atomic_load(&r->tail);
}

static bool ring_put(struct byte_ring *r, char c)
{
	unsigned int h = atomic_load(&r->head);

	if (h - atomic_load(&r->tail) == RING_SIZE)
		return false;
	r->buf[h % RING_SIZE] = c;
	atomic_store(&r->head, h + 1);
	return true;
}

/* The oldest byte (-1 when empty); take: consume it too. */
static int ring_peek(struct byte_ring *r, bool take)
{
	unsigned int t = atomic_load(&r->tail);
	int c;

	if (t == atomic_load(&r->head))
		return -1;
	c = (unsigned char)r->buf[t % RING_SIZE];
	if (take)
		atomic_store(&r->tail, t + 1);
	return c;
}

/* ---- the serving CPU's side ---- */

static int tcp_read_byte(void)
{
	int c = ring_peek(&rx, true);

	if (c < 0 && atomic_load(&closed))
		return GDB_CLOSED;
	return c;
}

static void tcp_write_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n && !atomic_load(&closed); i++)
		while (!ring_put(&tx, s[i]) && !atomic_load(&closed))
			cpu_relax(); /* the transport's CPU drains it */
}

static int tcp_io_cpu(void)
{
	return IO_CPU;
}

static bool tcp_may_stop(void)
{
	return !net_core_held();
}

static const struct gdb_transport transport = {
	.name = "tcp",
	.read_byte = tcp_read_byte,
	.write = tcp_write_bytes,
	.io_cpu = tcp_io_cpu,
	.may_stop = tcp_may_stop,
};

/* ---- the transport's CPU: lwIP callbacks and the poller ---- */

static void drop_client(void)
{
	tcp_arg(client, NULL);
	tcp_recv(client, NULL);
	tcp_err(client, NULL);
	if (tcp_close(client) != ERR_OK)
		tcp_abort(client);
	client = NULL;
	atomic_store(&closed, true);
}

static err_t gdb_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	(void)err;
	if (!p) { /* the debugger closed */
		drop_client();
		return ERR_OK;
	}
	for (struct pbuf *q = p; q; q = q->next)
		for (u16_t i = 0; i < q->len; i++)
			(void)ring_put(&rx, ((char *)q->payload)[i]);
	tcp_recved(pcb, p->tot_len); /* a full ring drops: gdb resends */
	pbuf_free(p);
	poll_wake(IO_CPU);
	return ERR_OK;
}

static void gdb_err(void *arg, err_t err)
{
	(void)arg;
	(void)err;
	client = NULL; /* lwIP freed the pcb */
	atomic_store(&closed, true);
}

static err_t gdb_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (client) { /* one debugger at a time */
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	client = pcb;
	atomic_store(&rx.tail, atomic_load(&rx.head));
	atomic_store(&tx.tail, atomic_load(&tx.head));
	atomic_store(&closed, false);
	tcp_nagle_disable(pcb); /* a packet is small and waited for */
	tcp_recv(pcb, gdb_recv);
	tcp_err(pcb, gdb_err);
	return ERR_OK;
}

/* What the stub wrote, into the connection as far as it takes; bytes
 * leave the ring only once lwIP has them. */
static int send_pending(void)
{
	char chunk[512];
	unsigned int t = atomic_load(&tx.tail), n = 0;
	unsigned int avail = atomic_load(&tx.head) - t;

	if (!client)
		return 0;
	while (n < sizeof(chunk) && n < avail && n < tcp_sndbuf(client)) {
		chunk[n] = tx.buf[(t + n) % RING_SIZE];
		n++;
	}
	if (!n ||
	    tcp_write(client, chunk, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
		return 0;
	atomic_store(&tx.tail, t + n);
	tcp_output(client);
	return (int)n;
}

/* While the machine runs: a byte that asks for a stop asks a CPU to
 * stop it (again each round until one has); others are dropped. */
static void watch_for_break_in(void)
{
	int c;

	while ((c = ring_peek(&rx, false)) >= 0 && c != 0x03 && c != '$')
		(void)ring_peek(&rx, true);
	if (c >= 0)
		gdb_break_in_elsewhere(c);
}

static int gdb_tcp_poll(void *arg)
{
	int work = 0;

	(void)arg;
	if (!gdb_stopped() && ring_used(&rx))
		watch_for_break_in();
	if (ring_used(&tx) && net_core_trylock()) {
		work += send_pending();
		net_core_unlock();
	}
	/* a stop is served over this CPU: never halt while it lasts (the
	 * stop's NMI wakes it from a halt) */
	return work + (gdb_stopped() || ring_used(&tx) || ring_used(&rx));
}

void app_gdb_tcp_start(void)
{
	const char *v = cmdline_get("gdb");
	struct tcp_pcb *t, *l = NULL;
	long port;

	if (strncmp(v, "tcp:", 4))
		return;
	port = strtol(v + 4, NULL, 10);
	t = tcp_new_ip_type(IPADDR_TYPE_ANY);
	if (t && tcp_bind(t, IP_ANY_TYPE, (u16_t)port) == ERR_OK)
		l = tcp_listen(t);
	if (!l || poll_register(IO_CPU, gdb_tcp_poll, NULL, "gdb") ||
	    gdb_transport_register(&transport)) {
		kprintf("gdb: cannot listen on tcp/%ld: the stub stays off\n",
			port);
		return;
	}
	tcp_accept(l, gdb_accept);
	netif_glue_pin_tcp_port((uint16_t)port); /* a stack per CPU: here */
	kprintf("gdb: stub on tcp/%ld: gdb attaches with target remote "
		"HOST:%ld (docs/observe.md)\n",
		port, port);
}
