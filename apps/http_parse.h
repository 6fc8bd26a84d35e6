/*
 * The request-head parser of the HTTP engine (apps/http_server.c), on its
 * own: plain C over a byte buffer, no lwIP, so host tests and a fuzzer
 * drive it directly.
 *
 * It reads a request head as RFC 9112 writes it and refuses, rather than
 * guesses at, whatever a proxy in front of us could read differently:
 * that is how a request gets smuggled past the proxy inside another's
 * body. So a header line that starts with whitespace (obs-fold), a space
 * before the colon, a bare CR or a NUL anywhere, Content-Length given
 * twice or next to Transfer-Encoding, or an HTTP/1.1 request without
 * exactly one Host, is a 400; Transfer-Encoding alone is a 501 (no
 * resource of ours takes a body, so we decode no transfer coding: a
 * client with a body sends Content-Length). Line ends are CRLF; a bare LF
 * is taken as one (RFC 9112 section 2.2 allows it).
 */
#ifndef APPS_HTTP_PARSE_H
#define APPS_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_POST };

struct ip_addr;

/* One request, as parsed. The strings live in the parsed buffer. */
struct http_request {
	enum http_method method;
	const char *path;  /* from '/', NUL-terminated, no query */
	const char *query; /* after '?', NUL-terminated; "" if none */
	int minor_version; /* HTTP/1.<minor_version> */
	bool keep_alive;   /* the connection may stay open after the answer */
	uint32_t body_len; /* Content-Length (UINT32_MAX: more than that) */
	/* The client's address (lwIP's ip_addr_t), for a log line: set by
	 * the engine, NULL from the parser. */
	const struct ip_addr *peer;
};

/**
 * http_parse_request - parse the request head at the start of @buf.
 * @buf, @len: the bytes received so far, starting with the request line
 *	(empty lines before it skipped with http_skip_empty_lines()).
 * Writes NULs into @buf to end the path and the query.
 * Return: the head's length, request line to empty line, with @req
 * filled; 0 while the head is not complete; or minus the status to
 * answer before closing: -400 (malformed), -501 (a method or transfer
 * coding we do not implement), -505 (an HTTP version other than 1.x).
 */
int http_parse_request(char *buf, size_t len, struct http_request *req);

/* The bytes of empty lines (CRLF or LF) at the start of @buf, which a
 * server skips before a request line (RFC 9112 section 2.2). */
size_t http_skip_empty_lines(const char *buf, size_t len);

/* For a head that filled the whole request buffer (http_parse_request()
 * returned 0): 414 if the request line alone did not fit, else 431. */
int http_overflow_status(const char *buf, size_t len);

#endif /* APPS_HTTP_PARSE_H */
