/*
 * Fuzz harness of the HTTP engine (apps/http_server.c with its parser,
 * apps/http_parse.c) through the fake transport of
 * tests/host/apps/http_fake_tcp.h: lwIP's own pbuf code, a fake TCP
 * connection, and a small site that answers each path with itself.
 *
 * The input is the byte stream a client sends, nothing else, so the
 * corpus reads as HTTP (tests/fuzz/corpus/http/). From a hash of it come
 * the cuts: the stream is sent once whole, then again on a new
 * connection in deliveries of 1 to 64 bytes (1 in 8 up to 2 KiB), each a
 * chain of pbufs of 1 to 1460 bytes, through a send buffer of 64 bytes to
 * 46 KiB that the client drains after some deliveries and not others
 * (the hash also says whether the client closes its side at the end).
 *
 * The model is the first run. The second must write the very same bytes
 * and end the connection the same way: an answer never depends on how TCP
 * cut the stream. And in both, after every event: the engine never
 * refuses a delivery; every byte received is either acknowledged or in
 * its unread pbufs (delivered - acknowledged == unread, so nothing is
 * acknowledged and then dropped); a close comes with every received byte
 * acknowledged (else lwIP would send a RST over the last answer); an
 * open connection that has answered all it can holds nothing unread; and
 * once the connection is gone, every pbuf and block is back (the fake
 * counts them). Each delivery is one operation in the summary line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define FAKE_FAIL(...) fz_fail(__VA_ARGS__)
#include "tests/host/apps/http_fake_tcp.h"
/* the engine's per-instance counters: one instance (host tests link
 * it; this harness is built alone) */
#include "tests/host/common/net_percpu_one.c"

/* ---- the site ---- */

/* A static body larger than the engine copies: sent by reference, in
 * pieces when the send buffer is small. */
static char big_body[3 * HTTP_COPY_MAX];

/* PATH: 200 with PATH as a heap body; /big: the static body; /close: the
 * server closes after it; POST /get-only: 405. */
static void fuzz_serve(const struct http_request *req,
		       struct http_response *resp)
{
	size_t n = strlen(req->path);
	char *body;

	if (req->method == HTTP_POST && strcmp(req->path, "/get-only") == 0) {
		resp->status = 405;
		resp->allow = "GET, HEAD";
		return;
	}
	resp->status = 200;
	resp->close = strcmp(req->path, "/close") == 0;
	if (strcmp(req->path, "/big") == 0) {
		resp->body = big_body;
		resp->body_len = sizeof(big_body);
		return;
	}
	body = mem_malloc((mem_size_t)n);
	if (!body)
		fz_fail("no memory for a body");
	memcpy(body, req->path, n);
	resp->body = body;
	resp->body_len = (uint32_t)n;
	resp->body_owned = body;
}

static void fuzz_error(int status, struct http_response *resp)
{
	static const char text[] = "refused\n";

	resp->status = status;
	resp->body = text;
	resp->body_len = sizeof(text) - 1;
}

static const struct http_site fuzz_site = {fuzz_serve, fuzz_error};

/* ---- the checks ---- */

/* Received bytes are acknowledged or unread, never both, never neither. */
static void check_accounting(const struct fake_conn *fc)
{
	const struct http_conn *c = fc->pcb.callback_arg;
	size_t unread;

	FZ_CHECK(fc->refusals == 0, "the engine refused a delivery");
	if (!fake_open(fc)) {
		FZ_CHECK(!fc->reset, "closed with %zu bytes unacknowledged",
			 fc->delivered - fc->recved);
		return;
	}
	unread = c->unread ? c->unread->tot_len : 0;
	FZ_CHECK(fc->delivered - fc->recved == unread,
		 "%zu delivered, %zu acknowledged, %zu unread", fc->delivered,
		 fc->recved, unread);
}

/* The client reads every answer (acknowledges until nothing comes). */
static void read_all(struct fake_conn *fc)
{
	while (fc->unacked) {
		fake_ack(fc);
		check_accounting(fc);
	}
}

/* ---- one run ---- */

/* xorshift64: the cuts, from the input's hash. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Send @data on a new connection: whole (@seed 0) or cut as @seed says.
 * Returns the connection, the client's view of it, once the server said
 * all it will.
 */
static struct fake_conn *run(const uint8_t *data, size_t size, uint64_t seed,
			     bool fin)
{
	struct fake_conn *fc = fake_connect();
	size_t sent = 0;

	if (seed)
		fc->pcb.snd_buf =
			(tcpwnd_size_t)(64 + next(&seed) % TCP_SND_BUF);
	while (sent < size) {
		size_t want = size - sent, seg = 0, n;

		if (seed) {
			uint64_t r = next(&seed);

			want = 1 + r % (r & 0x700 ? 64 : 2048);
			want = want < size - sent ? want : size - sent;
			seg = 1 + (r >> 16) % 1460;
		}
		n = fake_deliver(fc, data + sent, want, seg);
		if (!n) { /* the window is full: it opens as the client reads */
			read_all(fc);
			n = fake_deliver(fc, data + sent, want, seg);
			FZ_CHECK(n, "stuck after %zu of %zu bytes", sent, size);
		}
		fz_ops++;
		check_accounting(fc);
		if (!seed || next(&seed) % 4 == 0)
			read_all(fc); /* else the client lags behind */
		sent += n;
	}
	read_all(fc);
	if (fin) {
		fake_fin(fc);
		read_all(fc);
	}
	FZ_CHECK(!fake_open(fc) || fc->recved == fc->delivered,
		 "open, done, and %zu bytes still unread",
		 fc->delivered - fc->recved);
	return fc;
}

static void one_input(const uint8_t *data, size_t size)
{
	uint64_t hash = 14695981039346656037ull; /* FNV-1a */
	long mem = fake_mem_live;
	struct fake_conn *whole, *cut;

	for (size_t i = 0; i < size; i++)
		hash = (hash ^ data[i]) * 1099511628211ull;
	whole = run(data, size, 0, hash & 1);
	cut = run(data, size, hash | 2, hash & 1);
	FZ_CHECK(cut->out_len == whole->out_len &&
			 (!whole->out_len ||
			  memcmp(cut->out, whole->out, whole->out_len) == 0),
		 "cut stream answered %zu bytes, whole stream %zu",
		 cut->out_len, whole->out_len);
	FZ_CHECK(fake_open(cut) == fake_open(whole),
		 "whole stream %s, cut stream %s",
		 fake_open(whole) ? "open" : "closed",
		 fake_open(cut) ? "open" : "closed");
	fake_drop(whole);
	fake_drop(cut);
	FZ_CHECK(fake_mem_live == mem, "%ld blocks leaked",
		 fake_mem_live - mem);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_harness_init("fuzz_http");
	memset(big_body, 'b', sizeof(big_body));
	if (http_server_start(80, &fuzz_site))
		fz_fail("the engine did not start");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run_plain(one_input, data, size);
}
