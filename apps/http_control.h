/*
 * The HTTP actions that start work on the guest: POST /iperf-client/PORT
 * (apps/http_control.c) and POST /profile/start, /profile/stop
 * (apps/http_profile.c). Anyone who reaches port 80 reaches them, so they
 * pass one gate: off unless the command line says http_control=1 (403
 * with a page that says so), POST only (a GET must change nothing: 405),
 * one at a time (409 while the last one runs), arguments checked (400),
 * and one console line per action started, naming the client; a refused
 * request prints nothing. The read-only views (/stats.json, the
 * profiler's reports) are not actions: they stay GET.
 *
 * The HTTP site's serve callback only (net CPU).
 */
#ifndef APPS_HTTP_CONTROL_H
#define APPS_HTTP_CONTROL_H

#include <stdarg.h>

struct http_request;
struct http_response;

/**
 * http_control_gate - may @req start or stop an action?
 * Return: 0 if it may (the action then checks its arguments and whether
 * one runs already); else the status of our page to answer: 403
 * (http_control=1 not given), 405 (not a POST: @resp->allow is set).
 */
int http_control_gate(const struct http_request *req,
		      struct http_response *resp);

/* http_control_log - the console line of an action started for @req:
 * "http: control: WHAT (asked by ADDRESS)". */
__attribute__((format(printf, 2, 3))) void
http_control_log(const struct http_request *req, const char *fmt, ...);

/**
 * http_control_iperf - POST /iperf-client/PORT: lwiperf's 10 s client
 * test against PORT of the default gateway (the host, under QEMU's user
 * networking), or, for a request that came over IPv6, of its sender: the
 * guest->host half of the benchmarks, in either family.
 * @arg: what follows "/iperf-client/".
 * Return: 200 with @resp filled, or the status of our page to answer:
 * 403/405 (the gate), 400 (not a port), 409 (a client runs), 503 (it
 * cannot start: no gateway, no memory).
 */
int http_control_iperf(const struct http_request *req, const char *arg,
		       struct http_response *resp);

#endif /* APPS_HTTP_CONTROL_H */
