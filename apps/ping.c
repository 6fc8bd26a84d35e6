/*
 * The shell's `ping HOST [COUNT]`: ICMP echo through lwIP's raw API, with
 * iputils ping's output (a line per reply, then the statistics).
 *
 * It never blocks the poll loop: run_ping sends nothing itself, it starts
 * a shell job. Every shell round the job sends the next request when its
 * second has come (one per PING_INTERVAL_MS), prints the replies that
 * arrived, and ends after the last reply or PING_LINGER_MS after the last
 * request, or at Ctrl-C. Replies arrive in the raw PCB's receive callback,
 * from the network's poller (any CPU that owns a NIC queue, under the
 * lwIP core lock); it only records them (time, TTL) in slots the job
 * reads, so all printing happens in the shell's own round. The job takes
 * the core lock for its own calls into lwIP (PCB, send, remove).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "net/core_lock.h"
#include "kernel/shell.h"
#include "kernel/shell_words.h"
#include "kernel/time.h"
#include "lwip/inet_chksum.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/prot/icmp.h"
#include "lwip/prot/ip4.h"
#include "lwip/raw.h"
#include "ping.h"

#define PING_DATA	 56   /* payload bytes, as ping's default */
#define PING_MAX_COUNT	 100  /* requests one ping may send */
#define PING_INTERVAL_MS 1000 /* between requests, as ping's default */
#define PING_LINGER_MS	 1000 /* wait for replies after the last one */
/* After each request the job keeps the poll loop turning this long (or
 * until the reply is in), so the network poller sees the reply when it
 * comes rather than at the next 10 ms tick: the RTT printed is the RTT. */
#define PING_SPIN_MS	 100

struct ping_slot {
	uint64_t sent_us;
	uint64_t rtt_us;
	uint8_t ttl;
	atomic_int replies; /* 0: none yet; 2 or more: duplicates came */
	bool printed;
};

static struct {
	struct raw_pcb *pcb;
	ip_addr_t dst;
	char dst_text[16];
	uint16_t id;
	int count, sent, received, dups;
	uint64_t start_us, next_us;
	uint64_t rtt_min, rtt_max, rtt_sum, rtt_sum2;
	struct ping_slot slot[PING_MAX_COUNT + 1]; /* by sequence number */
} ping;

/* The raw PCB's receive callback (the network's poller): an echo reply
 * to one of our requests is recorded and eaten; anything else goes on
 * to lwIP's ICMP code. */
static u8_t ping_recv(void *arg, struct raw_pcb *pcb, struct pbuf *p,
		      const ip_addr_t *addr)
{
	const struct ip_hdr *iph = p->payload;
	struct icmp_echo_hdr h;
	uint16_t hl, seq;

	(void)arg;
	(void)pcb;
	if (p->len < IP_HLEN || !ip_addr_cmp(addr, &ping.dst))
		return 0;
	hl = IPH_HL_BYTES(iph);
	if (pbuf_copy_partial(p, &h, sizeof(h), hl) != sizeof(h) ||
	    h.type != ICMP_ER || lwip_ntohs(h.id) != ping.id)
		return 0;
	seq = lwip_ntohs(h.seqno);
	if (seq >= 1 && seq <= ping.sent) {
		struct ping_slot *s = &ping.slot[seq];

		if (atomic_load(&s->replies) == 0) {
			s->rtt_us = clock_us() - s->sent_us;
			s->ttl = IPH_TTL(iph);
		}
		atomic_fetch_add(&s->replies, 1);
	}
	pbuf_free(p);
	return 1;
}

static const char *err_name(err_t e)
{
	switch (e) {
	case ERR_RTE:
		return "no route to host";
	case ERR_MEM:
	case ERR_BUF:
		return "no memory";
	case ERR_IF:
		return "interface error";
	default:
		return "lwIP error";
	}
}

static void ping_send(uint64_t now)
{
	uint16_t seq = (uint16_t)(ping.sent + 1);
	uint16_t len = sizeof(struct icmp_echo_hdr) + PING_DATA;
	struct pbuf *p = pbuf_alloc(PBUF_IP, len, PBUF_RAM);
	struct icmp_echo_hdr *h;
	err_t e;

	ping.sent++;
	if (!p) {
		shell_printf("ping: icmp_seq=%u: no memory for the request\n",
			     seq);
		return;
	}
	h = p->payload;
	h->type = ICMP_ECHO;
	h->code = 0;
	h->id = lwip_htons(ping.id);
	h->seqno = lwip_htons(seq);
	for (int i = 0; i < PING_DATA; i++)
		((uint8_t *)(h + 1))[i] = (uint8_t)(0x10 + i);
	h->chksum = 0;
	h->chksum = inet_chksum(h, len);
	ping.slot[seq].sent_us = now;
	e = raw_sendto(ping.pcb, p, &ping.dst);
	pbuf_free(p);
	if (e != ERR_OK)
		shell_printf("ping: icmp_seq=%u: send failed (%s, %d)\n", seq,
			     err_name(e), e);
}

/* "0.512", "12.3", "123": ping's three significant digits, from us. */
static void ms_text(char *buf, size_t size, uint64_t us)
{
	if (us >= 100000)
		snprintf(buf, size, "%llu", (unsigned long long)(us / 1000));
	else if (us >= 10000)
		snprintf(buf, size, "%llu.%01llu",
			 (unsigned long long)(us / 1000),
			 (unsigned long long)(us % 1000 / 100));
	else if (us >= 1000)
		snprintf(buf, size, "%llu.%02llu",
			 (unsigned long long)(us / 1000),
			 (unsigned long long)(us % 1000 / 10));
	else
		snprintf(buf, size, "0.%03llu", (unsigned long long)us);
}

/* The replies recorded since the last round, one line each. */
static void print_replies(void)
{
	for (int seq = 1; seq <= ping.sent; seq++) {
		struct ping_slot *s = &ping.slot[seq];
		int n = atomic_load(&s->replies);
		char t[16];

		if (n == 0 || s->printed)
			continue;
		s->printed = true;
		ping.received++;
		ping.dups += n - 1;
		if (ping.received == 1 || s->rtt_us < ping.rtt_min)
			ping.rtt_min = s->rtt_us;
		if (s->rtt_us > ping.rtt_max)
			ping.rtt_max = s->rtt_us;
		ping.rtt_sum += s->rtt_us;
		ping.rtt_sum2 += s->rtt_us * s->rtt_us;
		ms_text(t, sizeof(t), s->rtt_us);
		shell_printf(
			"%d bytes from %s: icmp_seq=%d ttl=%u time=%s ms\n",
			(int)sizeof(struct icmp_echo_hdr) + PING_DATA,
			ping.dst_text, seq, s->ttl, t);
	}
}

static uint64_t isqrt(uint64_t v)
{
	uint64_t r = 0;

	for (uint64_t bit = 1ULL << 62; bit; bit >>= 2) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

static void print_summary(uint64_t now)
{
	char mn[16], av[16], mx[16], md[16];
	int loss =
		ping.sent ? (ping.sent - ping.received) * 100 / ping.sent : 0;

	shell_printf("\n--- %s ping statistics ---\n", ping.dst_text);
	shell_printf("%d packets transmitted, %d received, ", ping.sent,
		     ping.received);
	if (ping.dups)
		shell_printf("+%d duplicates, ", ping.dups);
	shell_printf("%d%% packet loss, time %llums\n", loss,
		     (unsigned long long)((now - ping.start_us) / 1000));
	if (ping.received == 0)
		return;
	uint64_t avg = ping.rtt_sum / (uint64_t)ping.received;
	uint64_t mean2 = ping.rtt_sum2 / (uint64_t)ping.received;

	ms_text(mn, sizeof(mn), ping.rtt_min);
	ms_text(av, sizeof(av), avg);
	ms_text(mx, sizeof(mx), ping.rtt_max);
	ms_text(md, sizeof(md),
		isqrt(mean2 > avg * avg ? mean2 - avg * avg : 0));
	shell_printf("rtt min/avg/max/mdev = %s/%s/%s/%s ms\n", mn, av, mx, md);
}

static void ping_finish(uint64_t now)
{
	print_replies();
	print_summary(now);
	net_core_lock();
	raw_remove(ping.pcb);
	net_core_unlock();
	ping.pcb = NULL;
}

/* Is the newest request still waiting for its reply, and recent? */
static bool reply_due(uint64_t now)
{
	const struct ping_slot *s = &ping.slot[ping.sent];

	return ping.sent > 0 && atomic_load(&s->replies) == 0 &&
	       now - s->sent_us < PING_SPIN_MS * 1000ULL;
}

static enum shell_job ping_job(void *arg, bool interrupted)
{
	uint64_t now = clock_us();

	(void)arg;
	print_replies();
	if (!interrupted && ping.sent < ping.count && now >= ping.next_us) {
		net_core_lock();
		ping_send(now);
		net_core_unlock();
		ping.next_us += PING_INTERVAL_MS * 1000ULL;
	}
	if (interrupted ||
	    (ping.sent == ping.count && (ping.received == ping.count ||
					 now - ping.slot[ping.sent].sent_us >=
						 PING_LINGER_MS * 1000ULL))) {
		ping_finish(now);
		return SHELL_JOB_DONE;
	}
	return reply_due(now) ? SHELL_JOB_SPIN : SHELL_JOB_WAIT;
}

static int run_ping(int argc, char **argv)
{
	static uint16_t runs;
	ip4_addr_t a;
	long count = 4;

	if (!ip4addr_aton(argv[1], &a)) {
		shell_printf("ping: '%s': not an IPv4 address (no DNS here)\n",
			     argv[1]);
		return -1;
	}
	if (argc > 2) {
		if (!shell_parse_count(argv[2], 1, PING_MAX_COUNT, &count)) {
			shell_printf("ping: bad count '%s' (1-%d)\n", argv[2],
				     PING_MAX_COUNT);
			return -1;
		}
	}
	memset(&ping, 0, sizeof(ping));
	net_core_lock();
	if (netif_default) {
		ping.pcb = raw_new(IP_PROTO_ICMP);
		if (ping.pcb)
			raw_recv(ping.pcb, ping_recv, NULL);
	}
	net_core_unlock();
	if (!netif_default) {
		shell_printf("ping: no network interface\n");
		return 0;
	}
	if (!ping.pcb) {
		shell_printf("ping: no memory for a raw PCB\n");
		return 0;
	}
	ip_addr_copy_from_ip4(ping.dst, a);
	ip4addr_ntoa_r(&a, ping.dst_text, sizeof(ping.dst_text));
	ping.id = (uint16_t)(0x5300 + ++runs); /* late replies of a previous
						  ping are not ours */
	ping.count = (int)count;
	ping.start_us = ping.next_us = clock_us();
	shell_printf("PING %s (%s) %d(%d) bytes of data.\n", ping.dst_text,
		     ping.dst_text, PING_DATA, PING_DATA + 8 + IP_HLEN);
	shell_job_start(ping_job, NULL);
	return 0;
}

static const struct shell_cmd cmd_ping = {
	"ping", "HOST [COUNT]", "ICMP echo, one a second (COUNT 1-100, 4)", 1,
	2,	run_ping};

void shell_ping_register(void)
{
	shell_register(&cmd_ping);
}
