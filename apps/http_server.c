/*
 * The HTTP/1.1 connection engine. See http_server.h for what it promises.
 *
 * Why our own and not lwIP's httpd: httpd keeps a connection open only
 * when the request says "Connection: keep-alive" (HTTP/1.0's rule), so an
 * HTTP/1.1 client such as wrk, which sends no Connection header, got a new
 * connection per request; and its static responses are fixed bytes, which
 * cannot say whether the connection stays. A connection costs lwIP a PCB,
 * three segments of handshake and teardown and a TIME_WAIT; keeping it
 * for the next request costs nothing.
 *
 * One connection is one struct http_conn (from mem_malloc: lwIP's heap in
 * net_alloc=stock, kmalloc in native), made at accept, freed at close:
 *
 *   recv:  lwIP's pbufs are kept as they come, unread. Bytes move from
 *          them into req[] (at most HTTP_REQ_MAX) only when no response
 *          is being queued and req[] has room, and only the bytes moved
 *          are acknowledged (tcp_recved). So a pipelined burst larger
 *          than req[] waits in its pbufs, and a client that sends faster
 *          than it reads the answers sees its window close: no byte is
 *          ever acknowledged and then dropped.
 *   work:  while a whole request head is in req[] and no response is
 *          being queued, parse it (apps/http_parse.c), let the site fill
 *          in the response, queue it with tcp_write(): the head and the
 *          Connection line copied (with the checksum in the same pass),
 *          a static body by reference, an owned body copied and freed.
 *          What does not fit the send buffer now is queued from the sent
 *          callback, which then goes on with the next request.
 *          Pipelined requests are answered in order; a request's body is
 *          skipped.
 *   close: after a response that ends the connection, when the peer has
 *          closed its side and nothing is left to answer, or after
 *          HTTP_IDLE_POLLS seconds idle. An idle persistent connection has
 *          lwIP's lowest priority, so a new client can take its PCB when
 *          all are in use (tcp_alloc kills lower priorities first).
 */
#include "http_server.h"

#include <stdio.h>
#include <string.h>

#include "kernel/console.h"
#include "mm/mm.h"
#include "lwip/mem.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "net/net_percpu.h"

/* The unread pbufs of a connection are one chain, whose tot_len is a
 * u16_t: they never exceed the receive window, as none is acknowledged. */
_Static_assert(TCP_WND <= 0xffff, "unread bytes must fit a pbuf chain");

/* A run of bytes to queue; flags are tcp_write()'s (copy or reference). */
struct http_piece {
	const char *data;
	uint32_t len;
	uint8_t flags;
};

struct http_conn {
	struct tcp_pcb *pcb;
	struct http_piece out[3];     /* head, Connection line, body */
	int nout, next;		      /* pieces; the first not fully queued */
	void *body_owned;	      /* given back once queued: */
	void (*body_release)(void *); /* to this, or mem_free() */
	bool busy;		      /* a response is being queued */
	bool keep_alive;  /* ... and the connection stays after it */
	bool peer_closed; /* FIN received */
	uint8_t idle_polls;
	uint32_t requests;
	struct pbuf *unread; /* received, not yet in req[] nor acknowledged */
	uint32_t body_left;  /* of the last request's body, still to skip */
	uint16_t req_len;
	char head[256]; /* a head the engine writes */
	char req[HTTP_REQ_MAX];
};

static const struct http_site *site;

/* Each stack instance's own (net/net_percpu.h): the reader sums them. */
static NET_PERCPU struct http_server_stats stats;

static const char conn_keep[] = "Connection: keep-alive\r\n\r\n";
static const char conn_close_line[] = "Connection: close\r\n\r\n";

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 409:
		return "Conflict";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Unknown";
	}
}

static void body_give_back(struct http_conn *c)
{
	if (c->body_owned) {
		if (c->body_release)
			c->body_release(c->body_owned);
		else
			mem_free(c->body_owned);
	}
	c->body_owned = NULL;
	c->body_release = NULL;
}

static void conn_free(struct http_conn *c)
{
	body_give_back(c);
	if (c->unread)
		pbuf_free(c->unread);
	mem_free(c);
	stats.open--;
}

static err_t close_retry_poll(void *arg, struct tcp_pcb *pcb);

/*
 * Detach from the PCB and close it (FIN after what is queued). What the
 * peer sent that we will not read is acknowledged and dropped first:
 * lwIP answers the close of a connection with unacknowledged data with a
 * RST, which would destroy the answer still in flight. lwIP does the same
 * with anything the peer still sends (tcp_recv_null).
 */
static void conn_close(struct http_conn *c)
{
	struct tcp_pcb *pcb = c->pcb;

	if (c->unread)
		tcp_recved(pcb, c->unread->tot_len);
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
	conn_free(c);
	if (tcp_close(pcb) != ERR_OK) /* no memory for the FIN: retry */
		tcp_poll(pcb, close_retry_poll, 1);
}

/* Still no memory for the FIN: lwIP polls again in half a second. */
static err_t close_retry_poll(void *arg, struct tcp_pcb *pcb)
{
	(void)arg;
	tcp_close(pcb);
	return ERR_OK;
}

/* ---- responses ---- */

/* Queue as much of the response as TCP takes now. Return: true when all
 * of it is queued. */
static bool conn_push(struct http_conn *c)
{
	for (; c->next < c->nout; c->next++) {
		struct http_piece *pc = &c->out[c->next];

		while (pc->len) {
			uint32_t n = pc->len, room = tcp_sndbuf(c->pcb);

			if (n > room)
				n = room;
			if (n > 0xffff) /* tcp_write() takes a u16_t */
				n = 0xffff;
			if (n == 0 || tcp_write(c->pcb, pc->data, (u16_t)n,
						pc->flags) != ERR_OK)
				return false; /* the sent callback goes on */
			pc->data += n;
			pc->len -= n;
		}
	}
	return true;
}

/* The pieces of @resp, which answers request number c->requests. */
static void conn_set_response(struct http_conn *c, struct http_response *r,
			      enum http_method method)
{
	const char *conn = c->keep_alive ? conn_keep : conn_close_line;

	if (r->allow) /* the head must carry it: write our own */
		r->head = NULL;
	if (method == HTTP_GET && r->answer[c->keep_alive] && !r->allow) {
		/* One write of the whole answer: each tcp_write() costs about
		 * 200 guest instructions, and each copied piece its own
		 * checksum tail. */
		c->out[0] = (struct http_piece){r->answer[c->keep_alive],
						r->answer_len[c->keep_alive],
						TCP_WRITE_FLAG_COPY};
		c->nout = 1;
		c->next = 0;
		c->body_owned = r->body_owned;
		c->body_release = r->body_release;
		c->busy = true;
		return;
	}
	if (!r->head) {
		int n = snprintf(
			c->head, sizeof(c->head),
			"HTTP/1.1 %d %s\r\nServer: " HTTP_SERVER_AGENT
			"\r\nContent-Type: %s\r\nContent-Length: "
			"%lu\r\nCache-Control: no-cache\r\n%s%s%s",
			r->status, reason(r->status),
			r->content_type ? r->content_type : "text/plain",
			(unsigned long)r->body_len, r->allow ? "Allow: " : "",
			r->allow ? r->allow : "", r->allow ? "\r\n" : "");
		r->head = c->head;
		r->head_len = (uint16_t)(n < (int)sizeof(c->head)
						 ? n
						 : (int)sizeof(c->head) - 1);
	}
	c->out[0] =
		(struct http_piece){r->head, r->head_len, TCP_WRITE_FLAG_COPY};
	c->out[1] = (struct http_piece){
		conn,
		(uint32_t)(c->keep_alive ? sizeof(conn_keep)
					 : sizeof(conn_close_line)) -
			1,
		TCP_WRITE_FLAG_COPY};
	c->out[2] = (struct http_piece){
		r->body, method == HTTP_HEAD ? 0 : r->body_len,
		r->body_owned || r->body_len <= HTTP_COPY_MAX
			? TCP_WRITE_FLAG_COPY
			: 0};
	c->nout = 3;
	c->next = 0;
	c->body_owned = r->body_owned;
	c->body_release = r->body_release;
	c->busy = true;
}

/* Drop the first @n buffered bytes (at most all of them). */
static void conn_consume(struct http_conn *c, unsigned int n)
{
	if (n > c->req_len)
		n = c->req_len;
	c->req_len = (uint16_t)(c->req_len - n);
	memmove(c->req, c->req + n, c->req_len);
}

/*
 * Move received bytes into req[] as far as it has room, and acknowledge
 * them: from here on they are the connection's to answer.
 */
static void conn_pull(struct http_conn *c)
{
	uint16_t room = (uint16_t)(HTTP_REQ_MAX - c->req_len), n;

	if (!c->unread || !room)
		return;
	n = c->unread->tot_len < room ? c->unread->tot_len : room;
	pbuf_copy_partial(c->unread, c->req + c->req_len, n, 0);
	c->req_len = (uint16_t)(c->req_len + n);
	c->unread = pbuf_free_header(c->unread, n);
	tcp_recved(c->pcb, n);
}

/* Drop what comes between two request heads: the rest of the last
 * request's body, then the empty lines a client may send. */
static void conn_skip(struct http_conn *c)
{
	for (;;) {
		uint32_t n;

		conn_pull(c);
		if (c->body_left) {
			n = c->body_left < c->req_len ? c->body_left
						      : c->req_len;
			c->body_left -= n;
		} else {
			n = http_skip_empty_lines(c->req, c->req_len);
		}
		if (!n)
			return;
		conn_consume(c, n);
	}
}

/*
 * Answer the request at the start of req[]: @end is what
 * http_parse_request() said of it, 0 for a head that filled req[]. A
 * refused request is answered with the site's page for its status, and
 * the connection closes after it; an accepted one is dropped from req[]
 * and its body, if any, skipped.
 */
static void conn_start_response(struct http_conn *c, int end,
				struct http_request *req)
{
	struct http_response resp = {0};
	int status = end < 0 ? -end : 0;

	if (end == 0)
		status = http_overflow_status(c->req, c->req_len);
	else if (end > 0 && req->body_len > HTTP_BODY_MAX)
		status = 413;
	if (c->requests++) /* counted first: /stats.json shows itself */
		stats.reused++;
	stats.requests++;
	if (status) {
		site->error(status, &resp);
	} else {
		req->peer = &c->pcb->remote_ip;
		site->serve(req, &resp);
	}
	c->keep_alive = !status && req->keep_alive && !resp.close;
	conn_set_response(c, &resp, status ? HTTP_GET : req->method);
	if (status) {
		conn_consume(c, c->req_len);
	} else {
		conn_consume(c, (unsigned int)end);
		c->body_left = req->body_len;
	}
}

/*
 * Drive the connection as far as it goes now: queue the response being
 * sent, then answer every whole request received after it.
 * Return: false if the connection was closed (@c is gone).
 */
static bool conn_work(struct http_conn *c)
{
	for (;;) {
		struct http_request req;
		int end;

		if (c->busy) {
			if (!conn_push(c))
				break;
			c->busy = false;
			body_give_back(c);
			if (!c->keep_alive) {
				conn_close(c);
				return false;
			}
		}
		conn_skip(c);
		end = http_parse_request(c->req, c->req_len, &req);
		if (end == 0 && c->req_len < HTTP_REQ_MAX) {
			/* all received bytes are in req[] (it has room) */
			if (c->peer_closed) {
				conn_close(c);
				return false;
			}
			/* waiting: let lwIP recycle this PCB first */
			tcp_setprio(c->pcb, TCP_PRIO_MIN);
			break;
		}
		tcp_setprio(c->pcb, TCP_PRIO_NORMAL);
		conn_start_response(c, end, &req);
	}
	if (c->unread)
		stats.held_back++;
	return true;
}

/* ---- lwIP callbacks ---- */

/* Keep what arrives, unread and unacknowledged until conn_work()
 * moves it into req[]; a NULL @p is the peer's FIN. */
static err_t conn_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
		       err_t err)
{
	struct http_conn *c = arg;

	(void)pcb;
	(void)err; /* always ERR_OK in lwIP 2.1 */
	if (!p) {
		c->peer_closed = true;
	} else {
		if (c->unread)
			pbuf_cat(c->unread, p);
		else
			c->unread = p;
		c->idle_polls = 0;
	}
	conn_work(c);
	return ERR_OK;
}

static err_t conn_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct http_conn *c = arg;

	(void)pcb;
	(void)len;
	c->idle_polls = 0;
	if (c->busy)
		conn_work(c);
	return ERR_OK;
}

static err_t conn_poll(void *arg, struct tcp_pcb *pcb)
{
	struct http_conn *c = arg;

	if (c->idle_polls < 255)
		c->idle_polls++;
	if (c->busy) {
		if (!conn_work(c)) /* retries a write that found no memory */
			return ERR_OK;
		if (c->busy && c->idle_polls >= HTTP_STALLED_POLLS) {
			stats.stalled++;
			tcp_arg(pcb,
				NULL); /* conn_err must not free it again */
			conn_free(c);
			tcp_abort(pcb);
			return ERR_ABRT;
		}
	} else if (c->idle_polls >= HTTP_IDLE_POLLS) {
		stats.idle_closed++;
		conn_close(c);
	}
	return ERR_OK;
}

/* The PCB is gone (reset, or killed by lwIP for a new connection). */
static void conn_err(void *arg, err_t err)
{
	(void)err;
	if (arg)
		conn_free(arg);
}

/* No memory for the connection's state: answer the site's 503 page and
 * close, with nothing kept. */
static err_t refuse(struct tcp_pcb *pcb)
{
	struct http_response r = {0};

	stats.refused++;
	site->error(503, &r);
	if (!r.head ||
	    tcp_write(pcb, r.head, r.head_len, TCP_WRITE_FLAG_COPY) != ERR_OK ||
	    tcp_write(pcb, conn_close_line, sizeof(conn_close_line) - 1, 0) !=
		    ERR_OK ||
	    tcp_write(pcb, r.body, (u16_t)r.body_len, 0) != ERR_OK ||
	    tcp_close(pcb) != ERR_OK) {
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	return ERR_OK;
}

static err_t conn_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct http_conn *c;

	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	c = mem_malloc(sizeof(*c));
	if (!c)
		return refuse(pcb);
	memset(c, 0, offsetof(struct http_conn, head));
	c->pcb = pcb;
	stats.connections++;
	stats.open++;
	tcp_arg(pcb, c);
	tcp_recv(pcb, conn_recv);
	tcp_sent(pcb, conn_sent);
	tcp_err(pcb, conn_err);
	tcp_poll(pcb, conn_poll, HTTP_POLL_INTERVAL);
	/* Responses are written whole: no small writes for Nagle to merge,
	 * and a persistent connection's next answer must not wait for the
	 * ACK of the last one. */
	tcp_nagle_disable(pcb);
	return ERR_OK;
}

int http_server_start(uint16_t port, const struct http_site *s)
{
	struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_ANY), *lpcb;

	if (!pcb || tcp_bind(pcb, IP_ANY_TYPE, port) != ERR_OK) {
		kprintf("net: http: cannot bind tcp/%u\n", port);
		if (pcb)
			tcp_close(pcb);
		return -1;
	}
	lpcb = tcp_listen(pcb);
	if (!lpcb) {
		kprintf("net: http: cannot listen on tcp/%u\n", port);
		tcp_close(pcb);
		return -1;
	}
	site = s;
	tcp_accept(lpcb, conn_accept);
	return 0;
}

void http_server_stats_read(struct http_server_stats *out)
{
	net_instance_sum_u64(out, &stats, sizeof(*out));
}

int http_answer_body(struct http_response *resp, void *body, size_t len,
		     const char *type, void (*release)(void *body))
{
	resp->status = 200;
	resp->content_type = type;
	resp->body = body;
	resp->body_len = (uint32_t)len;
	resp->body_owned = body;
	resp->body_release = release;
	return 200;
}

void http_body_kfree(void *body)
{
	kfree(body);
}

int http_answer_text(struct http_response *resp, const char *text)
{
	size_t len = strlen(text);
	char *copy = kmalloc(len + 1, GFP_KERNEL);

	if (!copy)
		return 503;
	memcpy(copy, text, len + 1);
	return http_answer_body(resp, copy, len, "text/plain", http_body_kfree);
}
