/*
 * The apps on top of the network stack (net/app_*.c), started by net_init()
 * as the command line's app= asks. Net CPU only, like everything that calls
 * into lwIP.
 */
#ifndef NET_APPS_H
#define NET_APPS_H

#include <stddef.h>
#include <stdint.h>

/* Apps (net/app_*.c). Each prints a line naming what it listens on. */
void app_echo_start(void);
void app_http_start(void);
/* Error pages the HTTP server sent, per status (400, 404, 501, 503), as
 * JSON. snprintf semantics. */
int app_http_stats_json(char *buf, size_t size);
void app_iperf_start(void);

struct http_response;
/* The profiler's HTTP answers (net/app_profile.c): for one of its paths,
 * fills @resp and returns 200, or returns the status of the error page to
 * send instead (400 bad rate, 503 no memory); 0 when @path is not its.
 * The HTTP engine's serve callback only (net CPU). */
int app_profile_serve(const char *path, struct http_response *resp);

struct ip4_addr;
/* Start lwiperf's 10 s TCP client test towards server:port (host order
 * port). Net CPU only. Returns 0, or -1 when it cannot start. */
int app_iperf_client(const struct ip4_addr *server, uint16_t port);

#endif /* NET_APPS_H */
