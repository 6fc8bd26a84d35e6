/*
 * The HTTP engine (apps/http_server.c, apps/http_parse.c) on the host,
 * against a fake of the few lwIP TCP calls it makes: the host tests
 * (test_http_server.c) and the fuzzer (tests/fuzz/fuzz_http.c) play the
 * client through it. Included by exactly one .c file per binary, after
 * lwIP's options (tests/host/apps/lwip_host/lwipopts.h) are on the
 * include path.
 *
 * What is real: the engine, its parser, and lwIP's own pbuf code
 * (core/pbuf.c), so the engine's pbuf chains are cut and freed as in the
 * kernel. What is fake: the connection. fake_deliver() hands the engine
 * bytes as TCP would, as a chain of pbufs, never more than the receive
 * window leaves room for (TCP_WND less what was delivered and not yet
 * acknowledged with tcp_recved()); tcp_write() appends to the
 * connection's output while its send buffer has room; fake_ack() is the
 * client acknowledging all of it. The fake records what a client would
 * see: every byte written, whether and how the connection ended, and
 * whether lwIP would have reset it (a close with unacknowledged received
 * bytes sends a RST). A delivery the engine refuses is kept and offered
 * again, as lwIP does with its refused_data.
 *
 * The client's calls are static inline: each binary uses some of them.
 *
 * A misuse of the fake's contract (a byte acknowledged twice, a write
 * on a closed connection) is FAKE_FAIL (abort by default; a cmocka test
 * defines it as fail_msg before including this file).
 */
#ifndef TESTS_HOST_APPS_HTTP_FAKE_TCP_H
#define TESTS_HOST_APPS_HTTP_FAKE_TCP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glibc's <endian.h> (through <stdlib.h>) defines BYTE_ORDER as lwIP's
 * port header (net/arch/cc.h) does: let the port's definition stand. */
#undef BYTE_ORDER
#include "apps/http_parse.c"
#include "apps/http_server.c"
#include "third_party/lwip/src/core/pbuf.c"

#ifndef FAKE_FAIL
#define FAKE_FAIL(...)                          \
	do {                                    \
		fprintf(stderr, "http fake: "); \
		fprintf(stderr, __VA_ARGS__);   \
		fprintf(stderr, "\n");          \
		abort();                        \
	} while (0)
#endif

/* One client connection, as the client sees it. */
struct fake_conn {
	struct tcp_pcb pcb;	  /* what the engine holds */
	size_t delivered, recved; /* bytes handed over; acknowledged */
	char *out;		  /* every byte the engine wrote */
	size_t out_len, out_cap;
	size_t unacked; /* of out: not yet acknowledged by the client */
	bool closed;	/* tcp_close() */
	bool aborted;	/* tcp_abort() */
	bool reset;	/* closed with received bytes unacknowledged */
	/* A delivery the engine refused (its recv callback said ERR_MEM):
	 * lwIP keeps it and offers it again before anything new. */
	struct pbuf *refused;
	unsigned long refusals;
};

static tcp_accept_fn fake_accept;
static struct tcp_pcb fake_listener;
static long fake_mem_live; /* mem_malloc() blocks not freed */
static char fake_console[4096];

/* ---- lwIP's port hooks (net/arch/cc.h) ---- */

void net_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void net_assert_fail(const char *msg, const char *file, int line)
{
	FAKE_FAIL("lwIP assert %s at %s:%d", msg, file, line);
}

uint32_t net_rand(void)
{
	return 4; /* chosen by a fair dice roll */
}

int kprintf(const char *fmt, ...)
{
	size_t used = strlen(fake_console);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(fake_console + used, sizeof(fake_console) - used, fmt,
		      ap);
	va_end(ap);
	return n;
}

/* ---- memory: lwIP's heap and pools, from malloc ---- */

void *mem_malloc(mem_size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p)
		fake_mem_live++;
	return p;
}

void mem_free(void *mem)
{
	if (!mem)
		return;
	fake_mem_live--;
	free(mem);
}

void *mem_trim(void *mem, mem_size_t size)
{
	(void)size;
	return mem; /* pbuf_realloc's shrink: keeping the block is allowed */
}

void *memp_malloc(memp_t type)
{
	(void)type; /* pbufs of the pools: the fake makes none */
	return mem_malloc(sizeof(struct pbuf) + PBUF_POOL_BUFSIZE);
}

void memp_free(memp_t type, void *mem)
{
	(void)type;
	mem_free(mem);
}

/* ---- the TCP calls the engine makes ---- */

static inline struct fake_conn *fake_of(struct tcp_pcb *pcb)
{
	return (struct fake_conn *)pcb; /* pcb is the first member */
}

struct tcp_pcb *tcp_new_ip_type(u8_t type)
{
	(void)type;
	return &fake_listener;
}

err_t tcp_bind(struct tcp_pcb *pcb, const ip_addr_t *ipaddr, u16_t port)
{
	(void)pcb;
	(void)ipaddr;
	(void)port;
	return ERR_OK;
}

struct tcp_pcb *tcp_listen_with_backlog(struct tcp_pcb *pcb, u8_t backlog)
{
	(void)backlog;
	return pcb;
}

void tcp_accept(struct tcp_pcb *pcb, tcp_accept_fn accept)
{
	(void)pcb;
	fake_accept = accept;
}

void tcp_arg(struct tcp_pcb *pcb, void *arg)
{
	pcb->callback_arg = arg;
}

void tcp_recv(struct tcp_pcb *pcb, tcp_recv_fn recv)
{
	pcb->recv = recv;
}

void tcp_sent(struct tcp_pcb *pcb, tcp_sent_fn sent)
{
	pcb->sent = sent;
}

void tcp_err(struct tcp_pcb *pcb, tcp_err_fn err)
{
	pcb->errf = err;
}

void tcp_poll(struct tcp_pcb *pcb, tcp_poll_fn poll, u8_t interval)
{
	pcb->poll = poll;
	pcb->pollinterval = interval;
}

void tcp_setprio(struct tcp_pcb *pcb, u8_t prio)
{
	pcb->prio = prio;
}

err_t tcp_write(struct tcp_pcb *pcb, const void *data, u16_t len, u8_t apiflags)
{
	struct fake_conn *fc = fake_of(pcb);

	(void)apiflags;
	if (fc->closed || fc->aborted)
		FAKE_FAIL("tcp_write on a closed connection");
	if (len > pcb->snd_buf)
		return ERR_MEM;
	if (fc->out_len + len > fc->out_cap) {
		fc->out_cap = (fc->out_len + len) * 2;
		fc->out = realloc(fc->out, fc->out_cap);
	}
	memcpy(fc->out + fc->out_len, data, len);
	fc->out_len += len;
	fc->unacked += len;
	pcb->snd_buf = (tcpwnd_size_t)(pcb->snd_buf - len);
	return ERR_OK;
}

void tcp_recved(struct tcp_pcb *pcb, u16_t len)
{
	struct fake_conn *fc = fake_of(pcb);

	if (fc->recved + len > fc->delivered)
		FAKE_FAIL("tcp_recved of %u bytes: only %zu unacknowledged",
			  len, fc->delivered - fc->recved);
	fc->recved += len;
}

err_t tcp_close(struct tcp_pcb *pcb)
{
	struct fake_conn *fc = fake_of(pcb);

	fc->closed = true;
	fc->reset = fc->recved != fc->delivered;
	return ERR_OK;
}

void tcp_abort(struct tcp_pcb *pcb)
{
	struct fake_conn *fc = fake_of(pcb);

	fc->aborted = true;
	if (pcb->errf) /* lwIP tells the owner the PCB is gone */
		pcb->errf(pcb->callback_arg, ERR_ABRT);
}

/* ---- the client's side ---- */

/* A new connection, accepted by the engine (http_server_start() first). */
static inline struct fake_conn *fake_connect(void)
{
	struct fake_conn *fc = calloc(1, sizeof(*fc));

	fc->pcb.state = ESTABLISHED;
	fc->pcb.snd_buf = TCP_SND_BUF;
	IP_ADDR4(&fc->pcb.remote_ip, 10, 0, 2, 2);
	if (fake_accept(NULL, &fc->pcb, ERR_OK) != ERR_OK)
		fc->aborted = true;
	return fc;
}

/* Whether the engine still holds the connection. */
static inline bool fake_open(const struct fake_conn *fc)
{
	return !fc->closed && !fc->aborted;
}

/* Hand @p to the engine, as lwIP's tcp_input() does; after the close,
 * lwIP acknowledges and drops what comes (tcp_recv_null), and so does
 * this. Returns false if the engine refused it (kept in fc->refused). */
static inline bool fake_recv(struct fake_conn *fc, struct pbuf *p)
{
	if (fc->closed) {
		fc->recved += p->tot_len;
		pbuf_free(p);
		return true;
	}
	if (fc->pcb.recv(fc->pcb.callback_arg, &fc->pcb, p, ERR_OK) == ERR_OK)
		return true;
	fc->refusals++;
	fc->refused = p;
	return false;
}

/* Offer the refused delivery again. Returns true when none is left. */
static inline bool fake_retry_refused(struct fake_conn *fc)
{
	struct pbuf *p = fc->refused;

	if (!p || fc->aborted)
		return !p;
	fc->refused = NULL;
	return fake_recv(fc, p);
}

/*
 * fake_deliver - hand the engine up to @len bytes of @data, as many as the
 * receive window takes, in one delivery: a chain of pbufs of @seg bytes
 * (the last shorter; 0: one pbuf). Nothing new is taken while a refused
 * delivery is still refused. Returns the bytes delivered.
 */
static inline size_t fake_deliver(struct fake_conn *fc, const void *data,
				  size_t len, size_t seg)
{
	size_t room = TCP_WND - (fc->delivered - fc->recved), done = 0;
	struct pbuf *chain = NULL;

	if (!fake_retry_refused(fc))
		return 0;
	if (len > room)
		len = room;
	if (!len || fc->aborted)
		return 0;
	if (seg == 0)
		seg = len;
	while (done < len) {
		size_t n = len - done < seg ? len - done : seg;
		struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)n, PBUF_RAM);

		memcpy(p->payload, (const char *)data + done, n);
		if (chain)
			pbuf_cat(chain, p);
		else
			chain = p;
		done += n;
	}
	fc->delivered += len;
	fake_recv(fc, chain);
	return len;
}

/* The client acknowledges everything written: the send buffer is free
 * again and the engine hears of it (its sent callback). */
static inline void fake_ack(struct fake_conn *fc)
{
	size_t n = fc->unacked;

	if (!n)
		return;
	fc->unacked = 0;
	fc->pcb.snd_buf = (tcpwnd_size_t)(fc->pcb.snd_buf + n);
	if (fake_open(fc) && fc->pcb.sent)
		fc->pcb.sent(fc->pcb.callback_arg, &fc->pcb, (u16_t)n);
	fake_retry_refused(fc);
}

/* The client closes its side (FIN). */
static inline void fake_fin(struct fake_conn *fc)
{
	if (fake_open(fc))
		fc->pcb.recv(fc->pcb.callback_arg, &fc->pcb, NULL, ERR_OK);
}

/* One of lwIP's polls (every HTTP_POLL_INTERVAL x 500 ms); lwIP's
 * timers offer a refused delivery again too. */
static inline void fake_poll(struct fake_conn *fc)
{
	fake_retry_refused(fc);
	if (fake_open(fc) && fc->pcb.poll)
		fc->pcb.poll(fc->pcb.callback_arg, &fc->pcb);
}

/* The client goes away: the engine lets go of what it held. */
static inline void fake_drop(struct fake_conn *fc)
{
	if (fake_open(fc))
		tcp_abort(&fc->pcb);
	if (fc->refused)
		pbuf_free(fc->refused);
	free(fc->out);
	free(fc);
}

#endif /* TESTS_HOST_APPS_HTTP_FAKE_TCP_H */
