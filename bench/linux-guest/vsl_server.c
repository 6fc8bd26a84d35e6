/*
 * vsl_server: the Linux reference guest's event-driven server, so that the
 * side-by-side benchmark (tools/bench-vs-linux) does not compare our kernel
 * only against busybox httpd, which forks one process per request.
 *
 * One thread, one epoll set, non-blocking sockets, level-triggered:
 *
 *   tcp/8080  HTTP/1.1 with keep-alive (and pipelining): GET / and
 *             /index.html answer the page in INDEX_PATH (the same bytes
 *             our kernel serves at GET /); GET /proc/NAME answers that
 *             /proc file (the benchmark reads /proc/stat, /proc/uptime and
 *             /proc/net/dev through it); POST /iperf-client/PORT starts
 *             `iperf -c ASKER -p PORT -t 10` (the guest->host test, as
 *             our kernel's POST /iperf-client/PORT starts lwiperf's 10 s
 *             client) and answers "started\n". ASKER is the address the
 *             request came from: 10.0.2.2 under QEMU's user networking,
 *             the host's side of a tap, an IPv6 host when asked over
 *             IPv6. Requests carry no body.
 *   tcp/7     echo: bytes read are written back; while the peer does not
 *             read, the connection stops reading (flow control, no loss).
 *   udp/7     echo: every datagram goes back to its sender.
 *
 * HTTP and UDP echo also listen on IPv6 (sockets of their own, so the
 * IPv4 path stays as it was) when the kernel has it.
 *
 * When an iperf client exits, one line goes to stderr (the serial console):
 * "iperf: done-client HOST:PORT status=S" (HOST in brackets when it is an
 * IPv6 address) — the line the benchmark
 * waits for, as it waits for lwiperf's report line from our kernel.
 *
 * Built on the host with `gcc -O2 -static` (tools/build-linux-guest) so the
 * initramfs needs no C library for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define HTTP_PORT   8080
#define ECHO_PORT   7
#define INDEX_PATH  "/www/index.html"
#define IPERF_PATH  "/usr/bin/iperf"
#define MAX_FDS	    4096
#define IN_SIZE	    4096  /* request head bytes buffered per connection */
#define OUT_SIZE    32768 /* answer bytes buffered; echo chunk size */
#define PROC_MAX    16384 /* largest /proc file or index page served */
#define MAX_CLIENTS 8	  /* iperf clients remembered for their report */

enum conn_kind {
	CONN_FREE,
	CONN_LISTEN_HTTP,
	CONN_LISTEN_ECHO,
	CONN_HTTP,
	CONN_ECHO,
	CONN_UDP,
	CONN_SIGNAL
};

struct conn {
	enum conn_kind kind;
	size_t in_len;
	size_t out_len, out_off;
	bool close_after; /* close once out is sent (Connection: close) */
	bool out_waiting; /* registered for EPOLLOUT instead of EPOLLIN */
	struct sockaddr_storage peer; /* an HTTP connection's asker */
	char in[IN_SIZE];
	char out[OUT_SIZE];
};

static struct conn *conns[MAX_FDS];
static int epfd;
static char *index_body;
static size_t index_len;
static struct {
	pid_t pid;
	int port;
	char host[INET6_ADDRSTRLEN + 2]; /* as the report line prints it */
} clients[MAX_CLIENTS];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * Registers fd for events ev; kind says what it is. Returns 0 or -1. A
 * slot's buffers are allocated the first time its fd number is used and
 * kept after close, so a new connection costs no malloc (the kernel hands
 * out the lowest free fd number, so few slots are ever allocated).
 */
static int watch(int fd, enum conn_kind kind, unsigned ev)
{
	struct epoll_event e = {.events = ev, .data.fd = fd};
	struct conn *c;

	if (fd < 0 || fd >= MAX_FDS) {
		fprintf(stderr, "vsl_server: fd %d over the table\n", fd);
		return -1;
	}
	if (!conns[fd])
		conns[fd] = malloc(sizeof(*conns[fd]));
	c = conns[fd];
	if (!c) {
		fprintf(stderr, "vsl_server: out of memory for fd %d\n", fd);
		return -1;
	}
	c->kind = kind;
	c->in_len = c->out_len = c->out_off = 0;
	c->close_after = c->out_waiting = false;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
		perror("vsl_server: epoll_ctl add");
		c->kind = CONN_FREE;
		return -1;
	}
	return 0;
}

/* Closing an fd also removes it from the epoll set. */
static void drop(int fd)
{
	conns[fd]->kind = CONN_FREE;
	close(fd);
}

static void set_events(int fd, unsigned ev)
{
	struct epoll_event e = {.events = ev, .data.fd = fd};

	epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &e);
}

static int bound_socket(int type, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_ANY)};
	int one = 1;
	int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("vsl_server: socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("vsl_server: bind");
	if (type == SOCK_STREAM && listen(fd, 128) < 0)
		die("vsl_server: listen");
	return fd;
}

/* A socket of type on IPv6's any address (IPV6_V6ONLY, so the IPv4
 * socket above keeps IPv4's path exactly as before); -1 when the kernel
 * has no IPv6. The benchmark's IPv6 rows (tools/bench-vs-linux) use it. */
static int bound_socket6(int type, int port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6,
				 .sin6_port = htons((uint16_t)port),
				 .sin6_addr = IN6ADDR_ANY_INIT};
	int one = 1;
	int fd = socket(AF_INET6, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 128) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads the index page once; the server refuses to start without it. */
static void load_index(const char *path)
{
	FILE *f = fopen(path, "rb");

	if (!f)
		die(path);
	index_body = malloc(PROC_MAX);
	if (!index_body)
		die("vsl_server: malloc");
	index_len = fread(index_body, 1, PROC_MAX, f);
	fclose(f);
}

/* Sends what is queued in c->out. Returns false when fd was closed. */
static bool flush_out(int fd, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			if (!c->out_waiting)
				set_events(fd, EPOLLOUT);
			c->out_waiting = true;
			return true;
		}
		if (n <= 0) {
			drop(fd);
			return false;
		}
		c->out_off += (size_t)n;
	}
	c->out_len = c->out_off = 0;
	if (c->close_after) {
		drop(fd);
		return false;
	}
	if (c->out_waiting)
		set_events(fd, EPOLLIN);
	c->out_waiting = false;
	return true;
}

/* Appends one HTTP answer to c->out. Returns false if it does not fit. */
static bool queue_answer(struct conn *c, const char *status, const char *type,
			 const char *body, size_t len)
{
	size_t room = sizeof(c->out) - c->out_len;
	int h = snprintf(c->out + c->out_len, room,
			 "HTTP/1.1 %s\r\nServer: vsl_server\r\n"
			 "Content-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: %s\r\n\r\n",
			 status, type, len,
			 c->close_after ? "close" : "keep-alive");

	if (h < 0 || (size_t)h + len > room)
		return false;
	memcpy(c->out + c->out_len + h, body, len);
	c->out_len += (size_t)h + len;
	return true;
}

static void remember_client(pid_t pid, int port, const char *host, bool v6)
{
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i].pid == 0) {
			clients[i].pid = pid;
			clients[i].port = port;
			snprintf(clients[i].host, sizeof(clients[i].host),
				 v6 ? "[%s]" : "%s", host);
			return;
		}
	}
	fprintf(stderr, "vsl_server: iperf client %d not tracked\n", pid);
}

/* The address text of an IPv4 or IPv6 peer into host; false if neither. */
static bool peer_text(const struct sockaddr_storage *peer, char *host,
		      size_t size)
{
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)peer;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)peer;

	if (peer->ss_family == AF_INET)
		return inet_ntop(AF_INET, &v4->sin_addr, host, size) != NULL;
	if (peer->ss_family == AF_INET6)
		return inet_ntop(AF_INET6, &v6->sin6_addr, host, size) != NULL;
	return false;
}

/* Starts iperf's 10 s client test to the asker c->peer. Returns 0 or -1. */
static int start_iperf_client(const struct conn *c, const char *arg)
{
	char *end;
	long port = strtol(arg, &end, 10);
	char portstr[8], host[INET6_ADDRSTRLEN];
	bool v6 = c->peer.ss_family == AF_INET6;
	pid_t pid;

	if (end == arg || port <= 0 || port > 65535 ||
	    !peer_text(&c->peer, host, sizeof(host)))
		return -1;
	snprintf(portstr, sizeof(portstr), "%ld", port);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(IPERF_PATH, "iperf", "-c", host, "-p", portstr, "-t",
		      "10", v6 ? "-V" : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	remember_client(pid, (int)port, host, v6);
	return 0;
}

/* Reads /proc/NAME (no "..") into buf. Returns its length or -1. */
static ssize_t read_proc(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t len = 0, n;
	int fd;

	if (strstr(name, "..") ||
	    snprintf(path, sizeof(path), "/proc/%s", name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)len < size && (n = read(fd, buf + len, size - len)) > 0)
		len += n;
	close(fd);
	return len;
}

/* Answers one request (GET or POST) for path into c->out: POST for
 * /iperf-client/, GET for the rest. Returns false if it did not fit. */
static bool answer(struct conn *c, const char *method, const char *path)
{
	static char procbuf[PROC_MAX];
	static const char started[] = "started\n", bad[] = "bad port\n";
	static const char missing[] = "not found\n", wrong[] = "method\n";
	bool post = strcmp(method, "POST") == 0;
	ssize_t n;

	if (post != (strncmp(path, "/iperf-client/", 14) == 0))
		return queue_answer(c, "405 Method Not Allowed", "text/plain",
				    wrong, sizeof(wrong) - 1);

	if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
		return queue_answer(c, "200 OK", "text/html", index_body,
				    index_len);
	if (strncmp(path, "/proc/", 6) == 0) {
		n = read_proc(path + 6, procbuf, sizeof(procbuf));
		if (n >= 0)
			return queue_answer(c, "200 OK", "text/plain", procbuf,
					    (size_t)n);
	}
	if (strncmp(path, "/iperf-client/", 14) == 0) {
		if (start_iperf_client(c, path + 14) == 0)
			return queue_answer(c, "200 OK", "text/plain", started,
					    sizeof(started) - 1);
		return queue_answer(c, "200 OK", "text/plain", bad,
				    sizeof(bad) - 1);
	}
	return queue_answer(c, "404 Not Found", "text/plain", missing,
			    sizeof(missing) - 1);
}

/* True if the request head asks to close: "Connection: close", or
 * HTTP/1.0 without "Connection: keep-alive". */
static bool wants_close(const char *head)
{
	bool http10 = strstr(head, "HTTP/1.0\r\n") != NULL;

	if (strcasestr(head, "\r\nConnection: close"))
		return true;
	return http10 && !strcasestr(head, "\r\nConnection: keep-alive");
}

/*
 * Answers every complete request head in c->in (pipelining), keeping the
 * partial tail. Returns false when the connection must be dropped (a
 * malformed or oversized request, a method other than GET and POST).
 */
static bool parse_requests(struct conn *c)
{
	char *start = c->in, *end;

	c->in[c->in_len] = '\0';
	while (!c->close_after && (end = strstr(start, "\r\n\r\n"))) {
		char method[8], path[512];

		*end = '\0';
		if (sscanf(start, "%7s %511s HTTP/", method, path) != 2 ||
		    (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0))
			return false;
		c->close_after = wants_close(start);
		if (!answer(c, method, path))
			return false;
		start = end + 4;
	}
	c->in_len -= (size_t)(start - c->in);
	memmove(c->in, start, c->in_len);
	return c->in_len < sizeof(c->in) - 1;
}

static void http_readable(int fd, struct conn *c)
{
	ssize_t n =
		recv(fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, 0);

	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		drop(fd);
		return;
	}
	c->in_len += (size_t)n;
	if (!parse_requests(c)) {
		drop(fd);
		return;
	}
	flush_out(fd, c);
}

/* Echo: read a chunk only when the previous one has gone out. */
static void echo_readable(int fd, struct conn *c)
{
	ssize_t n = recv(fd, c->out, sizeof(c->out), 0);

	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		drop(fd);
		return;
	}
	c->out_len = (size_t)n;
	c->out_off = 0;
	flush_out(fd, c);
}

static void udp_readable(int fd, struct conn *c)
{
	struct sockaddr_storage from; /* IPv4 or IPv6 */
	socklen_t flen = sizeof(from);
	ssize_t n = recvfrom(fd, c->out, sizeof(c->out), 0,
			     (struct sockaddr *)&from, &flen);

	if (n >= 0)
		sendto(fd, c->out, (size_t)n, 0, (struct sockaddr *)&from,
		       flen);
}

static void accept_all(int lfd, enum conn_kind kind)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int one = 1;
	int fd;

	while ((fd = accept4(lfd, (struct sockaddr *)&peer, &plen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (watch(fd, kind, EPOLLIN) < 0)
			close(fd);
		else
			conns[fd]->peer = peer;
		plen = sizeof(peer);
	}
}

/* SIGCHLD: report each finished iperf client on the console. */
static void reap_children(int sfd)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (clients[i].pid != pid)
				continue;
			fprintf(stderr, "iperf: done-client %s:%d status=%d\n",
				clients[i].host, clients[i].port,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			clients[i].pid = 0;
		}
	}
}

static void dispatch(int fd, unsigned ev)
{
	struct conn *c = conns[fd];

	if (!c || c->kind == CONN_FREE)
		return;
	switch (c->kind) {
	case CONN_LISTEN_HTTP:
		accept_all(fd, CONN_HTTP);
		break;
	case CONN_LISTEN_ECHO:
		accept_all(fd, CONN_ECHO);
		break;
	case CONN_UDP:
		udp_readable(fd, c);
		break;
	case CONN_SIGNAL:
		reap_children(fd);
		break;
	case CONN_HTTP:
	case CONN_ECHO:
		if (ev & EPOLLOUT)
			flush_out(fd, c);
		else if (c->kind == CONN_HTTP)
			http_readable(fd, c);
		else
			echo_readable(fd, c);
		break;
	default:
		break;
	}
}

static int child_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		die("vsl_server: signalfd");
	return fd;
}

/* Usage: vsl_server [INDEX_PATH]  (default /www/index.html) */
int main(int argc, char **argv)
{
	struct epoll_event ev[64];
	int udp6, http6;

	signal(SIGPIPE, SIG_IGN);
	load_index(argc > 1 ? argv[1] : INDEX_PATH);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		die("vsl_server: epoll_create1");
	if (watch(bound_socket(SOCK_STREAM, HTTP_PORT), CONN_LISTEN_HTTP,
		  EPOLLIN) < 0 ||
	    watch(bound_socket(SOCK_STREAM, ECHO_PORT), CONN_LISTEN_ECHO,
		  EPOLLIN) < 0 ||
	    watch(bound_socket(SOCK_DGRAM, ECHO_PORT), CONN_UDP, EPOLLIN) < 0 ||
	    watch(child_signals(), CONN_SIGNAL, EPOLLIN) < 0)
		return 1;
	udp6 = bound_socket6(SOCK_DGRAM, ECHO_PORT);
	if (udp6 >= 0 && watch(udp6, CONN_UDP, EPOLLIN) < 0)
		return 1;
	http6 = bound_socket6(SOCK_STREAM, HTTP_PORT);
	if (http6 >= 0 && watch(http6, CONN_LISTEN_HTTP, EPOLLIN) < 0)
		return 1;
	fprintf(stderr, "vsl_server: listening tcp/%d tcp/%d udp/%d\n",
		HTTP_PORT, ECHO_PORT, ECHO_PORT);
	for (;;) {
		int n = epoll_wait(epfd, ev, 64, -1);

		if (n < 0 && errno != EINTR)
			die("vsl_server: epoll_wait");
		for (int i = 0; i < n; i++)
			dispatch(ev[i].data.fd, ev[i].events);
	}
}
