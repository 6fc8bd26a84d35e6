/*
 * apps/http_parse.c, the request-head parser, on its own: what it fills
 * in for a request it accepts (method, path, query, version, whether the
 * connection stays, the body's length), that it waits for a whole head,
 * and how it names a head that did not fit. What it refuses is the
 * conformance table of test_http_server.c, which goes through the
 * engine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "apps/http_parse.c"

/* Parse @text (copied: the parser writes NULs); return what it said. */
static int parse(const char *text, struct http_request *req, char *buf,
		 size_t size)
{
	size_t len = strlen(text);

	assert_true(len < size);
	memcpy(buf, text, len + 1);
	return http_parse_request(buf, len, req);
}

static void test_origin_form_fields(void **state)
{
	static const char text[] = "GET /a/b?x=1&y HTTP/1.1\r\nHost: h\r\n\r\n";
	struct http_request req;
	char buf[128];

	(void)state;
	assert_int_equal(parse(text, &req, buf, sizeof(buf)), sizeof(text) - 1);
	assert_int_equal(req.method, HTTP_GET);
	assert_string_equal(req.path, "/a/b");
	assert_string_equal(req.query, "x=1&y");
	assert_int_equal(req.minor_version, 1);
	assert_true(req.keep_alive);
	assert_int_equal(req.body_len, 0);
	assert_null(req.peer);
}

static void test_absolute_form_takes_the_path(void **state)
{
	struct http_request req;
	char buf[128];

	(void)state;
	assert_true(parse("HEAD http://h:80/p?q HTTP/1.1\r\nHost: x\r\n\r\n",
			  &req, buf, sizeof(buf)) > 0);
	assert_int_equal(req.method, HTTP_HEAD);
	assert_string_equal(req.path, "/p");
	assert_string_equal(req.query, "q");
	assert_true(parse("GET http://h?q HTTP/1.1\r\nHost: x\r\n\r\n", &req,
			  buf, sizeof(buf)) > 0);
	assert_string_equal(req.path, "/");
	assert_string_equal(req.query, "q");
}

static void test_body_length_and_persistence(void **state)
{
	struct http_request req;
	char buf[128];

	(void)state;
	assert_true(parse("POST / HTTP/1.0\r\nContent-Length:  42 \r\n\r\n",
			  &req, buf, sizeof(buf)) > 0);
	assert_int_equal(req.method, HTTP_POST);
	assert_int_equal(req.body_len, 42);
	assert_false(req.keep_alive); /* HTTP/1.0 without keep-alive */
	assert_true(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
			  &req, buf, sizeof(buf)) > 0);
	assert_true(req.keep_alive);
	assert_true(parse("GET / HTTP/1.0\r\nConnection: keep-alive, close"
			  "\r\n\r\n",
			  &req, buf, sizeof(buf)) > 0);
	assert_false(req.keep_alive); /* close wins */
	assert_true(parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: CLOSE\r\n"
			  "\r\n",
			  &req, buf, sizeof(buf)) > 0);
	assert_false(req.keep_alive);
}

/* Every proper prefix of a head is "not yet"; the whole is a verdict. */
static void test_waits_for_the_whole_head(void **state)
{
	static const char text[] =
		"GET /w HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\nGET /next";
	size_t head = strlen("GET /w HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\n");
	struct http_request req;
	char buf[128];

	(void)state;
	for (size_t len = 0; len < head; len++) {
		memcpy(buf, text, sizeof(text));
		assert_int_equal(http_parse_request(buf, len, &req), 0);
	}
	memcpy(buf, text, sizeof(text));
	assert_int_equal(http_parse_request(buf, sizeof(text) - 1, &req), head);
}

static void test_refusals_name_their_status(void **state)
{
	struct http_request req;
	char buf[128];

	(void)state;
	assert_int_equal(
		parse("GET / HTTP/1.1\r\n\r\n", &req, buf, sizeof(buf)), -400);
	assert_int_equal(parse("BREW / HTTP/1.1\r\nHost: h\r\n\r\n", &req, buf,
			       sizeof(buf)),
			 -501);
	assert_int_equal(parse("GET / HTTP/3.0\r\nHost: h\r\n\r\n", &req, buf,
			       sizeof(buf)),
			 -505);
}

static void test_overflow_names_the_part_that_did_not_fit(void **state)
{
	(void)state;
	assert_int_equal(http_overflow_status("GET /aaaa", 9), 414);
	assert_int_equal(http_overflow_status("GET / HTTP/1.1\r\nX: aa", 21),
			 431);
}

static void test_empty_lines_before_a_request(void **state)
{
	(void)state;
	assert_int_equal(http_skip_empty_lines("\r\n\n\r\nGET", 8), 5);
	assert_int_equal(http_skip_empty_lines("\r", 1), 0);  /* LF to come */
	assert_int_equal(http_skip_empty_lines("\rX", 2), 0); /* a bare CR */
	assert_int_equal(http_skip_empty_lines("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_origin_form_fields),
		cmocka_unit_test(test_absolute_form_takes_the_path),
		cmocka_unit_test(test_body_length_and_persistence),
		cmocka_unit_test(test_waits_for_the_whole_head),
		cmocka_unit_test(test_refusals_name_their_status),
		cmocka_unit_test(test_overflow_names_the_part_that_did_not_fit),
		cmocka_unit_test(test_empty_lines_before_a_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
