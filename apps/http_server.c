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
 *   recv:  bytes go into req[] (at most HTTP_REQ_MAX), acknowledged at once
 *          (tcp_recved), so the window never closes on a client.
 *   work:  while a whole request (up to its blank line) is buffered and no
 *          response is being queued, parse it, let the site fill in the
 *          response, queue it with tcp_write(): the head and the
 *          Connection line copied (with the checksum in the same pass),
 *          a static body by reference, an owned body copied and freed.
 *          What does not fit the send buffer now is queued from the sent
 *          callback. Pipelined requests are answered in order.
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
#include "lwip/mem.h"
#include "lwip/tcp.h"

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
	uint16_t req_len;
	char head[224]; /* a head the engine writes */
	char req[HTTP_REQ_MAX];
};

static const struct http_site *site;

static struct http_server_stats stats;

static const char conn_keep[] = "Connection: keep-alive\r\n\r\n";
static const char conn_close_line[] = "Connection: close\r\n\r\n";

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
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
	mem_free(c);
	stats.open--;
}

static err_t close_retry_poll(void *arg, struct tcp_pcb *pcb);

/* Detach from the PCB and close it (FIN after what is queued). lwIP
 * answers anything the peer still sends (tcp_recv_null). */
static void conn_close(struct http_conn *c)
{
	struct tcp_pcb *pcb = c->pcb;

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

/* ---- requests ---- */

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

static char lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* Whether the @n bytes at @s are @word, ignoring ASCII case. */
static bool same_word(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n && word[i]; i++)
		if (lower(s[i]) != word[i])
			return false;
	return i == n && !word[i];
}

/* Offset just past the empty line that ends the request head in @buf,
 * or -1 if it is not all there yet. Bare LF line ends are accepted. */
static int request_end(const char *buf, int len)
{
	for (int i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return i + 3;
	}
	return -1;
}

/* Scans one "Name: value" header line (no line end) for what the engine
 * needs: the Connection tokens, and whether a body follows (which we
 * cannot skip reliably, so the connection closes after the answer). */
static void parse_header(const char *s, size_t n, bool *close, bool *keep,
			 bool *body)
{
	const char *colon = memchr(s, ':', n), *v, *end = s + n;

	if (!colon)
		return;
	if (same_word(s, (size_t)(colon - s), "content-length")) {
		for (v = colon + 1; v < end; v++)
			if (*v >= '1' && *v <= '9')
				*body = true;
		return;
	}
	if (same_word(s, (size_t)(colon - s), "transfer-encoding")) {
		*body = true;
		return;
	}
	if (!same_word(s, (size_t)(colon - s), "connection"))
		return;
	for (v = colon + 1; v < end;) { /* comma-separated tokens */
		const char *t;

		while (v < end && (is_space(*v) || *v == ','))
			v++;
		for (t = v; t < end && *t != ',' && !is_space(*t); t++)
			;
		if (same_word(v, (size_t)(t - v), "close"))
			*close = true;
		else if (same_word(v, (size_t)(t - v), "keep-alive"))
			*keep = true;
		v = t;
	}
}

/*
 * The request line "METHOD /path[?query] HTTP/1.x" and the headers in
 * buf[0..end). Writes NULs into @buf to end the path and the query.
 * Return: 0 and @req, @keep_alive filled; or the status to answer (400
 * unreadable, 501 a method other than GET and HEAD).
 */
static int parse_request(char *buf, int end, struct http_request *req,
			 bool *keep_alive)
{
	char *line_end = memchr(buf, '\n', (size_t)end), *sp1, *sp2, *q;
	bool close = false, keep = false, body = false;
	size_t mlen;

	if (!line_end)
		return 400;
	sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
	if (!sp1)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1));
	if (!sp2 || sp1[1] != '/' || line_end - sp2 < 9 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || sp2[8] < '0' ||
	    sp2[8] > '9' || (sp2[9] != '\r' && sp2[9] != '\n'))
		return 400;
	mlen = (size_t)(sp1 - buf);
	if (mlen == 3 && memcmp(buf, "GET", 3) == 0)
		req->method = HTTP_GET;
	else if (mlen == 4 && memcmp(buf, "HEAD", 4) == 0)
		req->method = HTTP_HEAD;
	else
		return 501;
	req->minor_version = sp2[8] - '0';
	*sp2 = '\0';
	req->path = sp1 + 1;
	q = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
	if (q)
		*q++ = '\0';
	req->query = q ? q : sp2;
	for (char *s = line_end + 1; s < buf + end;) {
		char *e = memchr(s, '\n', (size_t)(buf + end - s));
		size_t n = (size_t)(e - s);

		if (n && s[n - 1] == '\r')
			n--;
		parse_header(s, n, &close, &keep, &body);
		s = e + 1;
	}
	*keep_alive = (req->minor_version >= 1 ? !close : keep) && !body;
	return 0;
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

	if (method == HTTP_GET && r->answer[c->keep_alive]) {
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
		int n = snprintf(c->head, sizeof(c->head),
				 "HTTP/1.1 %d %s\r\nServer: " HTTP_SERVER_AGENT
				 "\r\nContent-Type: %s\r\nContent-Length: "
				 "%lu\r\nCache-Control: no-cache\r\n",
				 r->status, reason(r->status),
				 r->content_type ? r->content_type
						 : "text/plain",
				 (unsigned long)r->body_len);
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

/* Answer the request in req[0..end) and drop it from the buffer. */
static void conn_start_response(struct http_conn *c, int end)
{
	struct http_request req = {0};
	struct http_response resp = {0};
	bool keep_alive = false;
	int err = end > 0 ? parse_request(c->req, end, &req, &keep_alive) : 400;

	if (c->requests++) /* counted first: /stats.json shows itself */
		stats.reused++;
	stats.requests++;
	if (err)
		site->error(err, &resp);
	else
		site->serve(&req, &resp);
	c->keep_alive = keep_alive && !err && !resp.close;
	conn_set_response(c, &resp, err ? HTTP_GET : req.method);
	conn_consume(c, end > 0 ? (unsigned int)end : c->req_len);
}

/* Skip the empty lines a client may send between requests. */
static void skip_blank_lines(struct http_conn *c)
{
	unsigned int i = 0;

	while (i < c->req_len && (c->req[i] == '\r' || c->req[i] == '\n'))
		i++;
	if (i)
		conn_consume(c, i);
}

/*
 * Drive the connection as far as it goes now: queue the response being
 * sent, then answer every whole request buffered after it.
 * Return: false if the connection was closed (@c is gone).
 */
static bool conn_work(struct http_conn *c)
{
	for (;;) {
		int end;

		if (c->busy) {
			if (!conn_push(c))
				return true;
			c->busy = false;
			body_give_back(c);
			if (!c->keep_alive) {
				conn_close(c);
				return false;
			}
		}
		skip_blank_lines(c);
		end = request_end(c->req, c->req_len);
		if (end < 0 && c->req_len == HTTP_REQ_MAX)
			end = 0; /* no request line fits: 400 */
		if (end < 0) {
			if (c->peer_closed) {
				conn_close(c);
				return false;
			}
			/* waiting: let lwIP recycle this PCB first */
			tcp_setprio(c->pcb, TCP_PRIO_MIN);
			return true;
		}
		tcp_setprio(c->pcb, TCP_PRIO_NORMAL);
		conn_start_response(c, end);
	}
}

/* ---- lwIP callbacks ---- */

static err_t conn_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
		       err_t err)
{
	struct http_conn *c = arg;
	uint16_t room, n;

	(void)err; /* always ERR_OK in lwIP 2.1 */
	if (!p) {
		c->peer_closed = true;
		conn_work(c);
		return ERR_OK;
	}
	room = (uint16_t)(HTTP_REQ_MAX - c->req_len);
	if (p->tot_len > room &&
	    (c->busy || request_end(c->req, c->req_len) >= 0))
		return ERR_MEM; /* answering: lwIP hands it back later */
	n = p->tot_len < room ? p->tot_len : room; /* past room: a 400 */
	pbuf_copy_partial(p, c->req + c->req_len, n, 0);
	c->req_len = (uint16_t)(c->req_len + n);
	c->idle_polls = 0;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
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
	*out = stats;
}
