/*
 * The HTTP/1.1 request-head parser: http_parse.h says what it accepts.
 *
 * A head is parsed only once it is whole (up to its empty line), so the
 * verdict depends on its bytes alone, never on how TCP cut them into
 * segments. The request line comes first, then each header line; what
 * the headers say about the message (Host, Content-Length,
 * Transfer-Encoding, Connection) is gathered into struct fields and
 * judged once all are read.
 */
#include "http_parse.h"

#include <string.h>

/* One line of the head: [s, e), without its CRLF or LF. */
struct line {
	char *s, *e;
};

/* What the header lines said. */
struct fields {
	int content_lengths, hosts; /* how many times each was given */
	bool transfer_encoding;
	bool close, keep_alive; /* Connection tokens */
	bool bad;		/* a line broke the syntax: 400 */
	uint32_t body_len;
};

/* ---- characters (RFC 9110 section 5.6.2, RFC 3986) ---- */

/* The classes of every byte value, one bit each: a table built once from
 * the sets in char_classes_build(), so each byte of a head costs one
 * lookup rather than a scan of its set. */
enum {
	CH_TOKEN = 1,  /* a method or a field name */
	CH_TARGET = 2, /* the request target: path and query */
	CH_HOST = 4,   /* Host: a name or an IP literal, and a port */
	CH_VALUE = 8,  /* a field value: visible, obs-text, SP, HTAB */
};
static uint8_t char_class[256];

static void mark(const char *set, uint8_t cls)
{
	for (; *set; set++)
		char_class[(unsigned char)*set] |= cls;
}

static void char_classes_build(void)
{
	mark("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	     CH_TOKEN | CH_TARGET | CH_HOST);
	mark("!#$%&'*+-.^_`|~", CH_TOKEN);
	/* unreserved and sub-delims, and '%' of an escape */
	mark("-._~!$&'()*+,;=%", CH_TARGET | CH_HOST);
	mark(":@/?", CH_TARGET);
	mark(":[]", CH_HOST);
	for (int c = 0; c < 256; c++)
		if (c >= 0x80 || (c >= 0x20 && c != 0x7f) || c == '\t')
			char_class[c] |= CH_VALUE;
}

/* Whether every byte of [s, e) is of class @cls. */
static bool all_of(const char *s, const char *e, uint8_t cls)
{
	for (; s < e; s++)
		if (!(char_class[(unsigned char)*s] & cls))
			return false;
	return true;
}

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

static bool is_ows(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Whether the @n bytes at @s are @word (lower case), ignoring ASCII case. */
static bool same_word(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n && word[i]; i++) {
		char ch = s[i];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch != word[i])
			return false;
	}
	return i == n && !word[i];
}

/* ---- lines ---- */

/* The head's length in @buf (through its empty line), or 0 if the empty
 * line has not arrived. */
static size_t head_end(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		if (p < end && *p == '\n')
			return (size_t)(p + 1 - buf);
		if (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
			return (size_t)(p + 2 - buf);
	}
	return 0;
}

/* The line starting at @p (a LF ends it before @end); *@p moves past it. */
static struct line next_line(char **p, char *end)
{
	struct line l = {*p, memchr(*p, '\n', (size_t)(end - *p))};

	*p = l.e + 1;
	if (l.e > l.s && l.e[-1] == '\r')
		l.e--;
	return l;
}

/* ---- the request line: METHOD SP request-target SP HTTP-version ---- */

/* "HTTP/1.x": 0; another major version: -505; anything else: -400. */
static int parse_version(const char *s, const char *e, int *minor)
{
	if (e - s != 8 || memcmp(s, "HTTP/", 5) != 0 || s[5] < '0' ||
	    s[5] > '9' || s[6] != '.' || s[7] < '0' || s[7] > '9')
		return -400;
	if (s[5] != '1')
		return -505;
	*minor = s[7] - '0';
	return 0;
}

static int parse_method(const char *s, size_t n, enum http_method *m)
{
	if (n == 3 && memcmp(s, "GET", 3) == 0)
		*m = HTTP_GET;
	else if (n == 4 && memcmp(s, "HEAD", 4) == 0)
		*m = HTTP_HEAD;
	else if (n == 4 && memcmp(s, "POST", 4) == 0)
		*m = HTTP_POST;
	else
		return -501;
	return 0;
}

/* Every '%' in [s, e) starts a %XX escape. */
static bool escapes_ok(const char *s, const char *e)
{
	while ((s = memchr(s, '%', (size_t)(e - s))) != NULL) {
		if (e - s < 3 || !is_hex(s[1]) || !is_hex(s[2]))
			return false;
		s += 3;
	}
	return true;
}

/*
 * The target in [s, e): origin-form "/path?query", or absolute-form
 * "http://authority/path?query", which a server must accept (RFC 9112
 * section 3.2.2); its authority is not ours to check. Ends the path and
 * the query with NULs (*e is the space after the target).
 */
static int parse_target(char *s, char *e, struct http_request *req)
{
	char *q;

	if (!all_of(s, e, CH_TARGET) || !escapes_ok(s, e))
		return -400;
	req->path = NULL;
	if (e - s > 7 && same_word(s, 7, "http://")) {
		char *host = s + 7;

		for (s = host; s < e && *s != '/' && *s != '?'; s++)
			;
		if (s == host)
			return -400; /* an http URI needs a host */
		if (s == e || *s == '?')
			req->path = "/";
	} else if (s == e || *s != '/') {
		return -400;
	}
	*e = '\0';
	q = memchr(s, '?', (size_t)(e - s));
	if (q)
		*q++ = '\0';
	req->query = q ? q : e;
	if (!req->path)
		req->path = s;
	return 0;
}

/* Single spaces between the three parts; the checks in the order of the
 * statuses they answer: syntax (400), version (505), method (501). */
static int parse_request_line(struct line l, struct http_request *req)
{
	char *sp1 = memchr(l.s, ' ', (size_t)(l.e - l.s)), *sp2;
	int status;

	if (!sp1)
		return -400;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(l.e - sp1 - 1));
	if (!sp2 || memchr(sp2 + 1, ' ', (size_t)(l.e - sp2 - 1)) ||
	    sp1 == l.s || !all_of(l.s, sp1, CH_TOKEN))
		return -400;
	status = parse_version(sp2 + 1, l.e, &req->minor_version);
	if (!status)
		status = parse_method(l.s, (size_t)(sp1 - l.s), &req->method);
	if (!status)
		status = parse_target(sp1 + 1, sp2, req);
	return status;
}

/* ---- header lines: field-name ":" OWS field-value OWS ---- */

/* Content-Length's value: digits only (no sign, no list of values),
 * saturating at UINT32_MAX. */
static bool parse_length(const char *v, const char *e, uint32_t *len)
{
	uint64_t n = 0;

	if (v == e)
		return false;
	for (; v < e; v++) {
		if (*v < '0' || *v > '9')
			return false;
		n = n * 10 + (uint64_t)(*v - '0');
		if (n > UINT32_MAX)
			n = UINT32_MAX;
	}
	*len = (uint32_t)n;
	return true;
}

/* Connection's comma-separated tokens: close and keep-alive. */
static void parse_connection(const char *v, const char *e, struct fields *f)
{
	while (v < e) {
		const char *t;

		while (v < e && (is_ows(*v) || *v == ','))
			v++;
		for (t = v; t < e && *t != ',' && !is_ows(*t); t++)
			;
		if (same_word(v, (size_t)(t - v), "close"))
			f->close = true;
		else if (same_word(v, (size_t)(t - v), "keep-alive"))
			f->keep_alive = true;
		v = t;
	}
}

/* One header line. A line starting with whitespace (obs-fold) or with
 * whitespace before its colon has no token before the colon: bad. */
static void parse_field(struct line l, struct fields *f)
{
	char *colon = memchr(l.s, ':', (size_t)(l.e - l.s)), *v, *e = l.e;
	size_t n;

	if (!colon || colon == l.s || !all_of(l.s, colon, CH_TOKEN)) {
		f->bad = true;
		return;
	}
	n = (size_t)(colon - l.s);
	for (v = colon + 1; v < e && is_ows(*v); v++)
		;
	while (e > v && is_ows(e[-1]))
		e--;
	if (!all_of(v, e, CH_VALUE)) {
		f->bad = true;
	} else if (same_word(l.s, n, "content-length")) {
		f->content_lengths++;
		f->bad |= !parse_length(v, e, &f->body_len);
	} else if (same_word(l.s, n, "transfer-encoding")) {
		f->transfer_encoding = true;
	} else if (same_word(l.s, n, "host")) {
		f->hosts++;
		f->bad |= v == e || !all_of(v, e, CH_HOST);
	} else if (same_word(l.s, n, "connection")) {
		parse_connection(v, e, f);
	}
}

/* The message's framing and persistence from its fields (RFC 9112
 * sections 3.2, 6.1, 6.3, 9.3). */
static int judge_fields(const struct fields *f, struct http_request *req)
{
	if (f->bad || f->hosts > 1 || (req->minor_version >= 1 && !f->hosts) ||
	    f->content_lengths > 1)
		return -400;
	if (f->transfer_encoding)
		return f->content_lengths || req->minor_version == 0 ? -400
								     : -501;
	req->body_len = f->content_lengths ? f->body_len : 0;
	req->keep_alive =
		!f->close && (req->minor_version >= 1 || f->keep_alive);
	return 0;
}

int http_parse_request(char *buf, size_t len, struct http_request *req)
{
	size_t end = head_end(buf, len);
	struct fields f = {0};
	char *p = buf, *stop = buf + end;
	int status;

	if (!end)
		return 0;
	if (!char_class['a'])
		char_classes_build();
	req->peer = NULL;
	status = parse_request_line(next_line(&p, stop), req);
	if (status)
		return status;
	for (;;) {
		struct line l = next_line(&p, stop);

		if (l.s == l.e)
			break; /* the empty line */
		parse_field(l, &f);
	}
	status = judge_fields(&f, req);
	return status ? status : (int)end;
}

size_t http_skip_empty_lines(const char *buf, size_t len)
{
	size_t i = 0;

	for (;;) {
		if (i < len && buf[i] == '\n')
			i++;
		else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			i += 2;
		else
			return i;
	}
}

int http_overflow_status(const char *buf, size_t len)
{
	return memchr(buf, '\n', len) ? 431 : 414;
}
