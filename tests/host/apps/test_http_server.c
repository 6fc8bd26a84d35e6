/*
 * The HTTP engine (apps/http_server.c with apps/http_parse.c) against a
 * client played through the fake transport of http_fake_tcp.h.
 *
 * The contract: every request is answered, in order, whatever the size
 * and the cut of the deliveries that bring it (hundreds pipelined in one
 * delivery, a stream cut at every byte boundary, a burst larger than the
 * receive window); no byte is acknowledged before the engine holds it in
 * its request buffer, and none is acknowledged and then dropped; a
 * request the engine refuses gets its status and the connection closes
 * after it, with no RST; the conformance table below (request smuggling,
 * framing, header syntax, the request line, Host) gets the status RFC
 * 9112 asks for; nothing is left allocated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define FAKE_FAIL(...) fail_msg(__VA_ARGS__)
#include "http_fake_tcp.h"

/* ---- the site: answers the path, so the order shows ---- */

/* GET, HEAD or POST of PATH: 200 with PATH as the body (a heap body,
 * as /stats.json's); POST to /get-only: 405, Allow: GET, HEAD. */
static void test_serve(const struct http_request *req,
		       struct http_response *resp)
{
	size_t n = strlen(req->path);
	char *body;

	if (req->method == HTTP_POST && strcmp(req->path, "/get-only") == 0) {
		resp->status = 405;
		resp->allow = "GET, HEAD";
		return;
	}
	body = mem_malloc((mem_size_t)n);
	memcpy(body, req->path, n);
	resp->status = 200;
	resp->body = body;
	resp->body_len = (uint32_t)n;
	resp->body_owned = body;
}

static void test_error(int status, struct http_response *resp)
{
	static const char text[] = "refused\n";

	resp->status = status;
	resp->body = text;
	resp->body_len = sizeof(text) - 1;
}

static const struct http_site test_site = {test_serve, test_error};

static long mem_at_start;

static int setup(void **state)
{
	(void)state;
	mem_at_start = fake_mem_live;
	return http_server_start(80, &test_site);
}

/* Whatever a test did, nothing the engine took is left. */
static int teardown(void **state)
{
	(void)state;
	if (fake_mem_live != mem_at_start)
		fail_msg("%ld blocks leaked", fake_mem_live - mem_at_start);
	return 0;
}

/* ---- the client: reading the answers ---- */

struct answer {
	int status;
	bool keep_alive; /* "Connection: keep-alive" (else close) */
	char allow[32];
	char body[64]; /* the first 63 bytes */
};

/* The value of header @name in the head [s, e), or NULL. */
static const char *header(const char *s, const char *e, const char *name,
			  size_t *len)
{
	size_t n = strlen(name);

	for (const char *p = s; p && p < e; p = memchr(p, '\n', e - p)) {
		p += *p == '\n';
		if (e - p > (long)n + 2 && memcmp(p, name, n) == 0 &&
		    p[n] == ':') {
			const char *v = p + n + 2,
				   *end = memchr(v, '\r', e - v);

			*len = (size_t)((end ? end : e) - v);
			return v;
		}
	}
	return NULL;
}

/* The whole answers in the output from *@pos on, at most @max; *@pos
 * moves past them. @head_only: answers to HEAD, without bodies. */
static int read_answers(const struct fake_conn *fc, size_t *pos,
			struct answer *a, int max, bool head_only)
{
	int n = 0;

	while (n < max && *pos < fc->out_len) {
		const char *s = fc->out + *pos,
			   *out_end = fc->out + fc->out_len;
		const char *e = memmem(s, out_end - s, "\r\n\r\n", 4), *v;
		size_t len, body = 0;

		if (!e)
			break;
		memset(&a[n], 0, sizeof(a[n]));
		assert_int_equal(sscanf(s, "HTTP/1.1 %d ", &a[n].status), 1);
		v = header(s, e, "Content-Length", &len);
		assert_non_null(v);
		if (!head_only)
			body = strtoul(v, NULL, 10);
		if ((size_t)(out_end - (e + 4)) < body)
			break;
		v = header(s, e, "Connection", &len);
		assert_non_null(v);
		a[n].keep_alive = len == 10 && memcmp(v, "keep-alive", 10) == 0;
		v = header(s, e, "Allow", &len);
		if (v)
			memcpy(a[n].allow, v, len < 31 ? len : 31);
		memcpy(a[n].body, e + 4, body < 63 ? body : 63);
		*pos = (size_t)(e + 4 + body - fc->out);
		n++;
	}
	return n;
}

/* The client reads until the server has nothing more to say. */
static void read_all(struct fake_conn *fc)
{
	while (fc->unacked)
		fake_ack(fc);
}

/*
 * A new connection sent @len bytes of @req in deliveries of @chunk bytes
 * (0: as many as the window takes), each a chain of @seg-byte pbufs (0:
 * one pbuf), the client reading every answer as it comes.
 */
static struct fake_conn *exchange(const char *req, size_t len, size_t chunk,
				  size_t seg)
{
	struct fake_conn *fc = fake_connect();
	size_t sent = 0;

	while (sent < len) {
		size_t want = chunk && chunk < len - sent ? chunk : len - sent;
		size_t n = fake_deliver(fc, req + sent, want, seg);

		read_all(fc);
		if (!n) /* the window was full: it must have opened now */
			n = fake_deliver(fc, req + sent, want, seg);
		if (!n)
			fail_msg("stuck after %zu of %zu bytes", sent, len);
		sent += n;
		assert_false(fc->reset);
	}
	read_all(fc);
	return fc;
}

/* ---- pipelining: every request answered, in order ---- */

/* @count requests "GET /rN HTTP/1.1" back to back, into @buf. */
static size_t pipeline(char *buf, size_t size, int count)
{
	size_t len = 0;

	for (int i = 0; i < count; i++)
		len += (size_t)snprintf(buf + len, size - len,
					"GET /r%d HTTP/1.1\r\nHost: a\r\n\r\n",
					i);
	assert_true(len < size);
	return len;
}

/* Every answer, in order: /r0, /r1, ... with the connection kept. */
static void assert_answers_in_order(struct fake_conn *fc, int count)
{
	struct answer a;
	size_t pos = 0;
	char want[64];

	for (int i = 0; i < count; i++) {
		if (read_answers(fc, &pos, &a, 1, false) != 1)
			fail_msg("%d answers of %d", i, count);
		snprintf(want, sizeof(want), "/r%d", i);
		assert_int_equal(a.status, 200);
		assert_string_equal(a.body, want);
		assert_true(a.keep_alive);
	}
	assert_int_equal(read_answers(fc, &pos, &a, 1, false), 0);
	assert_int_equal(fc->recved, fc->delivered); /* nothing left unread */
	assert_int_equal(fc->refusals, 0);
}

/* 40 GETs in 1,080 bytes, more than the 1 KiB request buffer: the
 * answer that was lost first (37 of 40 were answered). */
static void test_40_pipelined_requests_in_one_delivery(void **state)
{
	static char buf[4096];
	size_t len = pipeline(buf, sizeof(buf), 40);
	struct fake_conn *fc = exchange(buf, len, 0, 0);

	(void)state;
	assert_answers_in_order(fc, 40);
	assert_true(fake_open(fc));
	fake_drop(fc);
}

/* Hundreds in one delivery, as a chain of segment-sized pbufs (receive
 * coalescing) and as one pbuf. */
static void test_hundreds_pipelined_in_one_delivery(void **state)
{
	static char buf[40000];
	size_t len = pipeline(buf, sizeof(buf), 1000);

	(void)state;
	assert_true(len < TCP_WND);
	for (size_t seg = 0; seg <= 1460; seg += 1460) {
		struct fake_conn *fc = exchange(buf, len, 0, seg);

		assert_answers_in_order(fc, 1000);
		assert_true(fake_open(fc));
		fake_drop(fc);
	}
}

/* More than the receive window at once: the window closes while the
 * answers wait, and opens as they go. */
static void test_burst_larger_than_the_window(void **state)
{
	static char buf[200000];
	size_t len = pipeline(buf, sizeof(buf), 5000);
	struct fake_conn *fc = exchange(buf, len, 0, 1460);

	(void)state;
	assert_true(len > 3 * TCP_WND);
	assert_answers_in_order(fc, 5000);
	assert_true(fake_open(fc));
	fake_drop(fc);
}

/*
 * A client that does not read: what the engine acknowledged is always
 * what it answered plus at most one request buffer; the rest waits,
 * unacknowledged, and is answered once the client reads.
 */
static void test_nothing_acknowledged_beyond_the_request_buffer(void **state)
{
	static char buf[40000];
	size_t len = pipeline(buf, sizeof(buf), 1000), pos = 0, answered = 0;
	struct fake_conn *fc = fake_connect();
	struct answer a;

	(void)state;
	fc->pcb.snd_buf = 2000; /* a few answers fit, then it waits */
	assert_int_equal(fake_deliver(fc, buf, len, 1460), len);
	assert_true(fc->recved < fc->delivered);
	for (int i = 0; i < 1000;) {
		int n = read_answers(fc, &pos, &a, 1, false);

		if (n) {
			/* "GET /rN HTTP/1.1\r\nHost: a\r\n\r\n" */
			answered += 28 + (size_t)snprintf(NULL, 0, "%d", i);
			i++;
			continue;
		}
		assert_true(fc->recved <= answered + HTTP_REQ_MAX);
		if (!fc->unacked)
			fail_msg("no answer after %d of 1000", i);
		fake_ack(fc);
	}
	assert_int_equal(fc->recved, fc->delivered);
	fake_drop(fc);
}

/* ---- the cut of the deliveries changes nothing ---- */

/* Pipelined requests of several kinds (a body, an empty line between,
 * bare LF line ends, absolute-form), then a last one that closes. */
static const char mixed_stream[] =
	"GET /a HTTP/1.1\r\nHost: a\r\n\r\n"
	"POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nGET /x HTTP"
	"\r\n"
	"GET /c HTTP/1.1\nHost: a\nConnection: keep-alive\n\n"
	"GET http://a/d?q=1 HTTP/1.1\r\nHost: b\r\n\r\n"
	"GET /e HTTP/1.0\r\nConnection: close\r\n\r\n";

/* What the whole stream in one delivery gets: every answer, then the
 * close. */
static void assert_mixed_answers(struct fake_conn *fc)
{
	static const char *const bodies[] = {"/a", "/b", "/c", "/d", "/e"};
	struct answer a[6];
	size_t pos = 0;

	assert_int_equal(read_answers(fc, &pos, a, 6, false), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(a[i].status, 200);
		assert_string_equal(a[i].body, bodies[i]);
		assert_int_equal(a[i].keep_alive, i < 4);
	}
	assert_true(fc->closed);
	assert_false(fc->reset);
}

static void test_stream_cut_at_every_byte_boundary(void **state)
{
	size_t len = sizeof(mixed_stream) - 1;

	(void)state;
	for (size_t cut = 0; cut < len; cut++) {
		struct fake_conn *fc = fake_connect();

		assert_int_equal(fake_deliver(fc, mixed_stream, cut, 0), cut);
		fake_ack(fc);
		assert_int_equal(
			fake_deliver(fc, mixed_stream + cut, len - cut, 0),
			len - cut);
		fake_ack(fc);
		assert_mixed_answers(fc);
		fake_drop(fc);
	}
}

static void test_stream_one_byte_at_a_time(void **state)
{
	struct fake_conn *fc;

	(void)state;
	fc = exchange(mixed_stream, sizeof(mixed_stream) - 1, 1, 0);
	assert_mixed_answers(fc);
	fake_drop(fc);
	fc = exchange(mixed_stream, sizeof(mixed_stream) - 1, 0, 1);
	assert_mixed_answers(fc); /* one delivery of one-byte pbufs */
	fake_drop(fc);
}

/* ---- the conformance table ---- */

struct conformance {
	const char *name;
	const char *req; /* up to its NUL unless len says otherwise */
	size_t len;
	int statuses[3]; /* the answers, in order; 0 ends */
	bool closed;	 /* the server closes after the last one */
};

/* clang-format off */
#define H "Host: a\r\n"
#define OK1(name, req)               {name, req, 0, {200}, false}
#define CLOSED1(name, req)           {name, req, 0, {200}, true}
#define BAD(name, req, status)       {name, req, 0, {status}, true}
/* A request with a NUL in it: its length from sizeof. */
#define BAD_BYTES(name, req, status) {name, req, sizeof(req) - 1, {status}, true}
/* clang-format on */

static const struct conformance cases[] = {
	/* framing: where a body ends is never guessed */
	BAD("space before the colon (smuggling)",
	    "POST / HTTP/1.1\r\n" H "Content-Length : 24\r\n\r\n"
	    "GET /smuggled HTTP/1.1\r\n\r\n",
	    400),
	BAD("two different Content-Length",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5\r\n"
	    "Content-Length: 6\r\n\r\nhello!",
	    400),
	BAD("Content-Length repeated",
	    "POST / HTTP/1.1\r\n" H
	    "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
	    400),
	BAD("Content-Length list",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5, 5\r\n\r\nhello", 400),
	BAD("Content-Length with a sign",
	    "POST / HTTP/1.1\r\n" H "Content-Length: +5\r\n\r\nhello", 400),
	BAD("Content-Length not a number",
	    "POST / HTTP/1.1\r\n" H "Content-Length: five\r\n\r\n", 400),
	BAD("Content-Length empty",
	    "POST / HTTP/1.1\r\n" H "Content-Length:\r\n\r\n", 400),
	BAD("Transfer-Encoding with Content-Length",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n0\r\n\r\n",
	    400),
	BAD("Transfer-Encoding chunked",
	    "POST / HTTP/1.1\r\n" H
	    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	    501),
	BAD("Transfer-Encoding unknown",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: gzip, chunked\r\n\r\n",
	    501),
	BAD("Transfer-Encoding in HTTP/1.0",
	    "POST / HTTP/1.0\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	    400),
	BAD("body over HTTP_BODY_MAX",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 8193\r\n\r\n", 413),
	BAD("Content-Length past 32 bits",
	    "POST / HTTP/1.1\r\n" H
	    "Content-Length: 99999999999999999999\r\n\r\n",
	    413),
	{"body skipped, next request read",
	 "POST /p HTTP/1.1\r\n" H "Content-Length: 25\r\n\r\n"
	 "GET /in-body HTTP/1.1\r\n\r\n"
	 "GET /q HTTP/1.1\r\n" H "\r\n",
	 0,
	 {200, 200},
	 false},
	{"GET with a body",
	 "GET /g HTTP/1.1\r\n" H "Content-Length: 3\r\n\r\n"
	 "abcGET /h HTTP/1.1\r\n" H "\r\n",
	 0,
	 {200, 200},
	 false},
	OK1("POST with Content-Length 0",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 0\r\n\r\n"),
	OK1("Content-Length with leading zeros",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 002\r\n\r\nab"),
	/* header syntax */
	BAD("obs-fold", "GET / HTTP/1.1\r\n" H "X-A: 1\r\n 2\r\n\r\n", 400),
	BAD("obs-fold with a tab",
	    "GET / HTTP/1.1\r\n" H "X-A: 1\r\n\t2\r\n\r\n", 400),
	BAD("whitespace before the first header",
	    "GET / HTTP/1.1\r\n " H "\r\n", 400),
	BAD("tab before the colon", "GET / HTTP/1.1\r\n" H "X-A\t: 1\r\n\r\n",
	    400),
	BAD("header without a colon", "GET / HTTP/1.1\r\n" H "X-A 1\r\n\r\n",
	    400),
	BAD("empty header name", "GET / HTTP/1.1\r\n" H ": 1\r\n\r\n", 400),
	BAD("separator in a header name",
	    "GET / HTTP/1.1\r\n" H "X(A): 1\r\n\r\n", 400),
	BAD("bare CR in a value", "GET / HTTP/1.1\r\n" H "X-A: 1\r2\r\n\r\n",
	    400),
	BAD("bare CR ending a line", "GET / HTTP/1.1\r\n" H "X-A: 1\r\r\n\r\n",
	    400),
	BAD_BYTES("NUL in a value",
		  "GET / HTTP/1.1\r\n" H "X-A: 1\0002\r\n\r\n", 400),
	BAD_BYTES("NUL in the path", "GET /a\000b HTTP/1.1\r\n" H "\r\n", 400),
	BAD_BYTES("NUL in the method", "G\000T / HTTP/1.1\r\n" H "\r\n", 400),
	BAD_BYTES("NUL in a header name",
		  "GET / HTTP/1.1\r\n" H "X\000A: 1\r\n\r\n", 400),
	BAD("control character in a value",
	    "GET / HTTP/1.1\r\n" H "X-A: \001\r\n\r\n", 400),
	BAD("DEL in a value", "GET / HTTP/1.1\r\n" H "X-A: \177\r\n\r\n", 400),
	OK1("obs-text in a value",
	    "GET / HTTP/1.1\r\n" H "X-A: caf\303\251\r\n\r\n"),
	OK1("tab inside a value", "GET / HTTP/1.1\r\n" H "X-A: 1\t2\r\n\r\n"),
	OK1("field names ignore case", "POST / HTTP/1.1\r\nhOsT: a\r\n"
				       "content-LENGTH: 0\r\n\r\n"),
	/* Host (RFC 9112 section 3.2) */
	BAD("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400),
	BAD("two Host", "GET / HTTP/1.1\r\n" H H "\r\n", 400),
	BAD("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", 400),
	BAD("space in Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
	BAD("slash in Host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
	BAD("two Host in HTTP/1.0", "GET / HTTP/1.0\r\n" H H "\r\n", 400),
	CLOSED1("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n"),
	OK1("Host with a port", "GET / HTTP/1.1\r\nHost: a.b:8080\r\n\r\n"),
	OK1("Host an IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n"),
	/* the request line */
	BAD("unknown method", "PUT / HTTP/1.1\r\n" H "\r\n", 501),
	BAD("DELETE", "DELETE / HTTP/1.1\r\n" H "\r\n", 501),
	BAD("methods are case-sensitive", "get / HTTP/1.1\r\n" H "\r\n", 501),
	BAD("OPTIONS *", "OPTIONS * HTTP/1.1\r\n" H "\r\n", 501),
	BAD("CONNECT", "CONNECT a:443 HTTP/1.1\r\n" H "\r\n", 501),
	BAD("separator in the method", "G(T / HTTP/1.1\r\n" H "\r\n", 400),
	BAD("HTTP/2.0", "GET / HTTP/2.0\r\n" H "\r\n", 505),
	BAD("HTTP/0.9 named", "GET / HTTP/0.9\r\n\r\n", 505),
	OK1("HTTP/1.2 read as 1.1", "GET / HTTP/1.2\r\n" H "\r\n"),
	BAD("HTTP/9", "GET / HTTP/9\r\n\r\n", 400),
	BAD("HTTP/1", "GET / HTTP/1\r\n" H "\r\n", 400),
	BAD("HTTP/1.10", "GET / HTTP/1.10\r\n" H "\r\n", 400),
	BAD("lower-case http", "GET / http/1.1\r\n" H "\r\n", 400),
	BAD("no version (HTTP/0.9)", "GET /\r\n\r\n", 400),
	BAD("two spaces", "GET  / HTTP/1.1\r\n" H "\r\n", 400),
	BAD("space at the end", "GET / HTTP/1.1 \r\n" H "\r\n", 400),
	BAD("tab as separator", "GET\t/ HTTP/1.1\r\n" H "\r\n", 400),
	BAD("target without a slash", "GET a HTTP/1.1\r\n" H "\r\n", 400),
	BAD("fragment in the target", "GET /a#b HTTP/1.1\r\n" H "\r\n", 400),
	BAD("bad percent escape", "GET /%zz HTTP/1.1\r\n" H "\r\n", 400),
	BAD("cut percent escape", "GET /a% HTTP/1.1\r\n" H "\r\n", 400),
	BAD("raw UTF-8 in the target", "GET /caf\303\251 HTTP/1.1\r\n" H "\r\n",
	    400),
	BAD("absolute-form without host", "GET http:///a HTTP/1.1\r\n" H "\r\n",
	    400),
	OK1("percent escape", "GET /%41 HTTP/1.1\r\n" H "\r\n"),
	OK1("absolute-form", "GET http://a/x?y=1 HTTP/1.1\r\n" H "\r\n"),
	OK1("absolute-form without path",
	    "GET HTTP://a:80 HTTP/1.1\r\n" H "\r\n"),
	/* lines */
	OK1("bare LF line ends", "GET / HTTP/1.1\nHost: a\n\n"),
	OK1("empty lines before the request",
	    "\r\n\n\r\nGET / HTTP/1.1\r\n" H "\r\n"),
	/* persistence */
	CLOSED1("HTTP/1.1 Connection: close",
		"GET / HTTP/1.1\r\n" H "Connection: close\r\n\r\n"),
	CLOSED1("close among other tokens",
		"GET / HTTP/1.1\r\n" H
		"Connection: keep-alive, Upgrade,close\r\n\r\n"),
	OK1("HTTP/1.0 asking for keep-alive", "GET / HTTP/1.0\r\n"
					      "Connection: Keep-Alive\r\n\r\n"),
	/* pipelines */
	{"three pipelined",
	 "GET /1 HTTP/1.1\r\n" H "\r\nPOST /2 HTTP/1.1\r\n" H
	 "\r\nGET /3 HTTP/1.1\r\n" H "\r\n",
	 0,
	 {200, 200, 200},
	 false},
	{"a refused request ends the pipeline",
	 "GET /1 HTTP/1.1\r\n" H "\r\nGET /2 HTTP/2.0\r\n" H
	 "\r\nGET /3 HTTP/1.1\r\n" H "\r\n",
	 0,
	 {200, 505},
	 true},
	{"a POST answered 405 with Allow",
	 "POST /get-only HTTP/1.1\r\n" H
	 "Content-Length: 0\r\n\r\nGET /next HTTP/1.1\r\n" H "\r\n",
	 0,
	 {405, 200},
	 false},
};

/* The number of answers a case expects. */
static int expected_answers(const struct conformance *c)
{
	int n = 0;

	while (n < 3 && c->statuses[n])
		n++;
	return n;
}

/* Run one case in deliveries of @chunk bytes; check its answers. */
static void check_case(const struct conformance *c, size_t chunk)
{
	size_t len = c->len ? c->len : strlen(c->req), pos = 0;
	struct fake_conn *fc = exchange(c->req, len, chunk, 0);
	int want = expected_answers(c), got;
	struct answer a[4];

	got = read_answers(fc, &pos, a, 4, false);
	if (got != want)
		fail_msg("%s (cut every %zu): %d answers, want %d", c->name,
			 chunk, got, want);
	for (int i = 0; i < want; i++)
		if (a[i].status != c->statuses[i])
			fail_msg("%s (cut every %zu): answer %d is %d, want %d",
				 c->name, chunk, i, a[i].status,
				 c->statuses[i]);
	if (fc->closed != c->closed)
		fail_msg("%s: connection %s", c->name,
			 fc->closed ? "closed" : "kept");
	if (!c->closed && (a[want - 1].keep_alive != true))
		fail_msg("%s: the last answer says close", c->name);
	if (c->statuses[want - 1] == 405)
		assert_string_equal(a[want - 1].allow, "GET, HEAD");
	assert_false(fc->reset);
	fake_drop(fc);
}

static void test_conformance_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i], 0);
}

/* The same verdicts with every case cut into 1-, 2-, 3- and 7-byte
 * deliveries. */
static void test_conformance_table_cut(void **state)
{
	static const size_t chunks[] = {1, 2, 3, 7};

	(void)state;
	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			check_case(&cases[i], chunks[k]);
}

/* A head longer than the buffer whose request line fitted: 431, and the
 * connection closes without a RST although the rest is still coming. */
static void test_headers_over_the_buffer_get_431(void **state)
{
	static char req[2048];
	struct fake_conn *fc = fake_connect();
	struct answer a;
	size_t pos = 0, len;

	(void)state;
	len = (size_t)snprintf(req, sizeof(req),
			       "GET / HTTP/1.1\r\n" H "X-A: ");
	memset(req + len, 'b', sizeof(req) - len);
	assert_int_equal(fake_deliver(fc, req, sizeof(req), 1460), sizeof(req));
	fake_ack(fc);
	assert_int_equal(read_answers(fc, &pos, &a, 1, false), 1);
	assert_int_equal(a.status, 431);
	assert_false(a.keep_alive);
	assert_true(fc->closed);
	assert_false(fc->reset);
	fake_drop(fc);
}

/* A request line longer than the buffer: 414. */
static void test_request_line_over_the_buffer_gets_414(void **state)
{
	static char req[2048];
	struct fake_conn *fc = fake_connect();
	struct answer a;
	size_t pos = 0;

	(void)state;
	memset(req, 'a', sizeof(req));
	memcpy(req, "GET /", 5);
	assert_int_equal(fake_deliver(fc, req, sizeof(req), 1460), sizeof(req));
	fake_ack(fc);
	assert_int_equal(read_answers(fc, &pos, &a, 1, false), 1);
	assert_int_equal(a.status, 414);
	assert_true(fc->closed);
	assert_false(fc->reset);
	fake_drop(fc);
}

/* ---- the rest of a connection's life ---- */

static void test_head_answer_has_no_body(void **state)
{
	static const char req[] = "HEAD /h HTTP/1.1\r\n" H "\r\n";
	struct fake_conn *fc = exchange(req, sizeof(req) - 1, 0, 0);
	const char *end;

	(void)state;
	end = memmem(fc->out, fc->out_len, "\r\n\r\n", 4);
	assert_non_null(end);
	assert_int_equal(end + 4 - fc->out, fc->out_len);
	assert_non_null(
		memmem(fc->out, fc->out_len, "Content-Length: 2\r\n", 19));
	fake_drop(fc);
}

/* The client closes after its requests: every one is answered, then
 * the server closes too. */
static void test_peer_close_after_pipelined_requests(void **state)
{
	static char buf[8192];
	size_t len = pipeline(buf, sizeof(buf), 100);
	struct fake_conn *fc = fake_connect();

	(void)state;
	fc->pcb.snd_buf = 1000;
	fake_deliver(fc, buf, len, 1460);
	fake_fin(fc);
	read_all(fc);
	assert_true(fc->closed);
	assert_false(fc->reset);
	assert_answers_in_order(fc, 100);
	fake_drop(fc);
}

/* A half-sent request then the idle time-out: the server closes, with no
 * RST (the partial request was acknowledged into the buffer). */
static void test_idle_connection_with_a_partial_request_is_closed(void **state)
{
	static const char part[] = "GET /slow HTTP/1.1\r\nHo";
	struct fake_conn *fc = fake_connect();

	(void)state;
	fake_deliver(fc, part, sizeof(part) - 1, 0);
	for (int i = 0; i < HTTP_IDLE_POLLS && fake_open(fc); i++)
		fake_poll(fc);
	assert_true(fc->closed);
	assert_false(fc->reset);
	assert_int_equal(fc->out_len, 0);
	fake_drop(fc);
}

/* The client goes away while answers and unread requests wait: the
 * engine frees everything (teardown checks). */
static void test_reset_while_requests_wait_frees_everything(void **state)
{
	static char buf[8192];
	size_t len = pipeline(buf, sizeof(buf), 100);
	struct fake_conn *fc = fake_connect();

	(void)state;
	fc->pcb.snd_buf = 300;
	fake_deliver(fc, buf, len, 500);
	assert_true(fc->recved < fc->delivered);
	fake_drop(fc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_40_pipelined_requests_in_one_delivery, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_hundreds_pipelined_in_one_delivery, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_burst_larger_than_the_window, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_nothing_acknowledged_beyond_the_request_buffer,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_stream_cut_at_every_byte_boundary, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_stream_one_byte_at_a_time,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_conformance_table, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conformance_table_cut,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_request_line_over_the_buffer_gets_414, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_headers_over_the_buffer_get_431, setup, teardown),
		cmocka_unit_test_setup_teardown(test_head_answer_has_no_body,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_peer_close_after_pipelined_requests, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_idle_connection_with_a_partial_request_is_closed,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_reset_while_requests_wait_frees_everything, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
