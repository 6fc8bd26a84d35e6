/*
 * An HTTP/1.1 server on lwIP's raw TCP API: the connection engine (reading
 * requests, persistent connections, pipelining, sending, time-outs). The
 * request head itself is read by apps/http_parse.c. What to answer is the
 * site's business (apps/http_site.c): it passes a struct http_site to
 * http_server_start() and fills in a response for each request the
 * engine hands it.
 *
 * Connections persist as HTTP/1.1 says (RFC 9112 section 9.3): an
 * HTTP/1.1 request keeps the connection open unless it says
 * "Connection: close"; an HTTP/1.0 one closes it unless it says
 * "Connection: keep-alive". Every response carries Content-Length and a
 * Connection header that says which it will be. A request the engine
 * refuses (400, 413, 414, 431, 501, 505: http_parse.h says which) closes
 * the connection: the rest of the stream cannot be trusted. A request
 * body (Content-Length) is read and dropped: no resource of ours takes one.
 *
 * Net CPU only, like every lwIP call.
 */
#ifndef APPS_HTTP_SERVER_H
#define APPS_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http_parse.h"

/* The Server: header of every response, static pages included. */
#define HTTP_SERVER_AGENT "netkernel-lwIP/2.1.3"

/* ---- Tunables ---- */
/* The longest request head (request line and headers) a connection
 * buffers: browsers send 400-800 bytes; a longer one is answered 414
 * (its request line alone did not fit) or 431. What arrives while the
 * buffer is full stays unread and unacknowledged in lwIP's pbufs, so the
 * client's TCP window, not this buffer, bounds a pipelined burst. */
#define HTTP_REQ_MAX	   1024
/* The largest request body read (and dropped); a larger one is answered
 * 413. Our resources take none: this leaves room for a small form. */
#define HTTP_BODY_MAX	   8192
/* A static body up to this size is copied into the segment with the head
 * (the checksum computed in the same pass) rather than sent by reference:
 * a reference costs a PBUF_ROM pbuf and a chained segment, which cost
 * more than copying a page of this size. */
#define HTTP_COPY_MAX	   1460
/* lwIP calls our poll callback every 2 x 500 ms ... */
#define HTTP_POLL_INTERVAL 2
/* ... and an idle persistent connection is closed after 5 polls (5 s, as
 * Apache's KeepAliveTimeout): a browser's idle connections must not keep
 * lwIP's 16 TCP PCBs (MEMP_NUM_TCP_PCB) from new clients. */
#define HTTP_IDLE_POLLS	   5
/* A response that makes no progress for 60 polls (the peer stopped
 * reading) is aborted. */
#define HTTP_STALLED_POLLS 60

/* A request is a struct http_request (http_parse.h); its strings live in
 * the connection's buffer until the site returns. */

/*
 * The site's answer. Either @head is a complete status line and headers
 * without the Connection header and the blank line (a static page's,
 * compiled in), or @head is NULL and the engine writes the head from
 * @status and @content_type. @body (@body_len bytes) must stay valid until
 * the engine is done with it: static data, or a buffer from mem_malloc()
 * given as @body_owned, which the engine gives back once the bytes are
 * queued (it copies them into TCP's segments): to @body_release when set,
 * else to mem_free(). @close asks the
 * engine to close the connection after this response. @answer, when set,
 * holds the same answer whole (head, Connection line, empty line, body)
 * for a connection that closes [0] and one that stays [1]: the engine
 * queues the one it needs in a single tcp_write() (a compiled-in page's).
 * @allow, when set, is the Allow header of a 405 (RFC 9110 section
 * 15.5.6): the engine then writes the head itself, from @status and
 * @content_type, and ignores @head and @answer.
 */
struct http_response {
	const char *answer[2];
	uint16_t answer_len[2];
	const char *head;
	uint16_t head_len;
	int status;
	const char *content_type;
	const void *body;
	uint32_t body_len;
	void *body_owned;
	void (*body_release)(void *body_owned);
	const char *allow;
	bool close;
};

struct http_site {
	/* Fill @resp for @req (zeroed by the engine before the call). */
	void (*serve)(const struct http_request *req,
		      struct http_response *resp);
	/* Fill @resp with the page for @status: the engine's own answers
	 * for a request it refuses (400, 413, 414, 431, 501, 505) or a
	 * connection it has no memory for (503). */
	void (*error)(int status, struct http_response *resp);
};

/**
 * http_answer_body - fill @resp with a 200 of @type whose body is @len
 * bytes at @body, owned: the engine gives @body to @release once queued
 * (to mem_free() when @release is NULL).
 * Return: 200, for a serve function to return.
 */
int http_answer_body(struct http_response *resp, void *body, size_t len,
		     const char *type, void (*release)(void *body));

/* http_body_kfree - the @release of a body from kmalloc(). */
void http_body_kfree(void *body);

/**
 * http_answer_text - fill @resp with a 200 text/plain of a copy of @text
 * (short replies to actions: "stopped\n").
 * Return: 200, or 503 when there is no memory for the copy.
 */
int http_answer_text(struct http_response *resp, const char *text);

/**
 * http_server_start - listen on TCP @port and serve @site.
 * Return: 0, or -1 (printed) if lwIP cannot listen.
 * Context: net CPU, after lwip_init().
 */
int http_server_start(uint16_t port, const struct http_site *site);

/* The engine's counters, read by the site for its /stats.json section. */
struct http_server_stats {
	uint64_t connections; /* accepted */
	uint64_t requests;    /* served */
	uint64_t reused;      /* requests on a connection already used */
	uint64_t refused;     /* connections refused for lack of memory */
	uint64_t idle_closed; /* connections closed for being idle */
	uint64_t stalled;     /* connections aborted: an answer stalled */
	uint64_t held_back;   /* times received bytes waited unread */
	int64_t open;	      /* connections open now */
};

/* http_server_stats_read - a copy of the counters. Context: net CPU. */
void http_server_stats_read(struct http_server_stats *out);

#endif /* APPS_HTTP_SERVER_H */
