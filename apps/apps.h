/*
 * The apps on top of the network stack (echo.c, http_site.c, iperf.c,
 * http_profile.c, http_control.c in this folder), started by apps_boot() (boot.c) as the
 * command line's app= asks. Net CPU only, like everything that calls into
 * lwIP.
 */
#ifndef APPS_APPS_H
#define APPS_APPS_H

#include <stddef.h>
#include <stdint.h>

/* The apps. Each prints a line naming what it listens on. */
void app_echo_start(void);
void app_http_start(void);
/* app_http_start's listener alone, for each further stack instance
 * (net_stack=percpu); its statistics are the first one's. */
void app_http_listen(void);
void app_iperf_start(void);
/* netconsole=A.B.C.D:PORT: the log as UDP from now on (netconsole.c);
 * nothing when the key is off. Boot, under the core lock. */
void app_netconsole_start(void);
/* gdb=tcp:PORT: the GDB stub's TCP transport (gdb_tcp.c); nothing for
 * another value. Boot, under the core lock. */
void app_gdb_tcp_start(void);

struct http_request;
struct http_response;
/* The profiler's HTTP answers (apps/http_profile.c): for one of its paths,
 * fills @resp and returns 200, or returns the status of the error page to
 * send instead (400 bad rate, 503 no memory, the control gate's 403, 405
 * and 409: apps/http_control.h); 0 when the path is not its. The HTTP
 * engine's serve callback only (net CPU). */
int app_profile_serve(const struct http_request *req,
		      struct http_response *resp);
/* The tracer's (apps/http_trace.c), the same way: 400 bad classes, 403
 * trace= not given at boot (or the control gate's), 405, 503. */
int app_trace_serve(const struct http_request *req, struct http_response *resp);
/* Packet capture's (apps/http_capture.c), the same way: 403 capture=1
 * not given at boot (or the control gate's), 405, 503. */
int app_capture_serve(const struct http_request *req,
		      struct http_response *resp);

struct ip_addr;
/* Start lwiperf's 10 s TCP client test towards server:port (IPv4 or
 * IPv6; host order port). Net CPU only. Returns 0, -1 when it cannot
 * start, -2 while the client started before still runs (one at a
 * time). */
int app_iperf_client(const struct ip_addr *server, uint16_t port);

#endif /* APPS_APPS_H */
