/*
 * The HTTP server's static pages (apps/www/, listed in apps/www/pages.txt),
 * compiled into the image by tools/gen-http-pages (mk/www.mk) as one table
 * of complete answers. apps/http_site.c serves them.
 */
#ifndef APPS_HTTP_PAGES_H
#define APPS_HTTP_PAGES_H

#include <stdint.h>

#include "http_server.h"

/*
 * @head is the status line and headers (Server, Content-Type,
 * Content-Length, Cache-Control, Retry-After for 503), each ending in
 * CRLF, but neither the Connection header nor the empty line: the
 * engine adds those (http_server.h), as only it knows whether the
 * connection stays. For a body up to HTTP_COPY_MAX the table also has
 * the two whole answers, so that the engine queues a GET's answer with
 * one tcp_write() instead of three (head, Connection line, body).
 */
struct http_page {
	const char *path;
	uint16_t path_len;
	uint16_t status;
	const char *head;
	uint16_t head_len;
	const char *content_type; /* as in @head */
	const char *body;
	uint32_t body_len;
	/* The whole answer, head to body, for a connection that closes [0]
	 * or stays [1]; NULL for a body the server sends by reference. */
	const char *answer[2];
	uint16_t answer_len[2];
};

/* In pages.txt's order: the most fetched page first. */
extern const struct http_page http_pages[];
extern const unsigned int http_pages_count;

#endif /* APPS_HTTP_PAGES_H */
