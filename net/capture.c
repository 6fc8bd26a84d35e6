/*
 * Packet capture at the netif (see capture.h): each frame that passes
 * the filter is copied, cut to the snap length, into one buffer, behind
 * a small header of our own (time, direction, interface); the writers
 * turn the buffer into a pcap file or into text lines.
 *
 * Several CPUs receive at once (one per queue) and TX runs under the
 * core lock, so the buffer takes a spinlock: a capture is a debugging
 * tool, and while none runs the frame path pays only net_capturing().
 * A record is complete before the frame count that covers it is
 * published (release order): a reader takes the count (acquire) and
 * reads those records without the lock. Starts and readers are
 * serialised by a second lock the frame path never takes.
 *
 * The buffer is allocated at each start for count frames of snaplen
 * bytes, at most CAPTURE_BUF_MAX; a frame that finds it full is dropped
 * and counted, so a capture keeps its beginning whole.
 */
#include "capture.h"

#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "libc/stat_table.h"
#include "libc/strbuf.h"
#include "mm/mm.h"
#include "wire_bytes.h"

/* The largest capture buffer: one block of the buddy allocator's largest
 * order (4 MiB), the most one allocation holds. */
#define CAPTURE_BUF_MAX	   (4u << 20)
/* Bytes of a frame the filter and the text lines look at: Ethernet,
 * a VLAN tag, an IPv6 header and a TCP/UDP port pair. */
#define CAPTURE_PEEK	   (14 + 4 + 40 + 4)
#define CAPTURE_FILTER_MAX 24

static bool valid_filter(const char *value, const char *allowed)
{
	(void)allowed;
	return net_capture_filter_ok(value);
}

CMDLINE_KEY(net, capture, "0", cmdline_valid_choice, "0|1",
	    "1: capture frames from the end of the boot and serve "
	    "/capture.pcap (docs/observe.md)");
CMDLINE_KEY(net, capture_count, "1000", cmdline_valid_uint, "1-1000000",
	    "frames a capture keeps (it stops by itself after them)");
CMDLINE_KEY(net, capture_snaplen, "1518", cmdline_valid_uint, "64-65535",
	    "bytes kept of each captured frame");
CMDLINE_KEY(net, capture_filter, "all", valid_filter,
	    "all|arp|icmp|ip|ip6|tcp|udp[:PORT]|port:PORT",
	    "the frames a capture keeps: a protocol, a port, or both");

/* Our header before each frame's bytes in the buffer. */
struct capture_rec {
	uint64_t ns;	   /* clock_ns() when it was seen */
	uint32_t orig_len; /* the frame's length */
	uint32_t caplen;   /* bytes kept */
	uint8_t dir;	   /* enum capture_dir */
	char nic[7];	   /* "eth0" */
};

enum capture_proto { P_ALL, P_ARP, P_ICMP, P_IP, P_IP6, P_TCP, P_UDP, P_ANY };

struct capture_filter {
	enum capture_proto proto; /* P_ANY: "port:N" (TCP or UDP) */
	unsigned int port;	  /* 0: any port */
};

atomic_uchar net_capture_on;
static spinlock_t write_lock = SPINLOCK_INIT; /* the frame path's */
static spinlock_t ctl_lock = SPINLOCK_INIT;   /* starts and readers */
static char *buf;
static size_t buf_size, used;
static atomic_ulong frames; /* records complete in buf */
static unsigned long count_max, dropped, passed_over;
static unsigned int snaplen;
static struct capture_filter filter;
static char filter_text[CAPTURE_FILTER_MAX];

static const char *const proto_names[] = {
	[P_ALL] = "all", [P_ARP] = "arp", [P_ICMP] = "icmp", [P_IP] = "ip",
	[P_IP6] = "ip6", [P_TCP] = "tcp", [P_UDP] = "udp",
};

/* Parses "PROTO", "PROTO:PORT" or "port:PORT" into *f; false if bad. */
static bool filter_parse(const char *text, struct capture_filter *f)
{
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	unsigned long port = 0;

	f->proto = P_ANY;
	for (int p = P_ALL; p < P_ANY; p++)
		if (strlen(proto_names[p]) == len &&
		    !strncmp(text, proto_names[p], len))
			f->proto = (enum capture_proto)p;
	if (f->proto == P_ANY &&
	    !(colon && len == 4 && !strncmp(text, "port", 4)))
		return false;
	if (colon) {
		const char *d = colon + 1;

		if (!*d || (f->proto != P_TCP && f->proto != P_UDP &&
			    f->proto != P_ANY))
			return false;
		for (; *d; d++) {
			if (*d < '0' || *d > '9')
				return false;
			port = port * 10 + (unsigned long)(*d - '0');
			if (port > 65535)
				return false;
		}
		if (!port)
			return false;
	}
	f->port = (unsigned int)port;
	return true;
}

bool net_capture_filter_ok(const char *text)
{
	struct capture_filter f;

	return text && strlen(text) < CAPTURE_FILTER_MAX &&
	       filter_parse(text, &f);
}

/* What the first bytes of a frame say: its protocol and ports. */
struct frame_view {
	unsigned int etype, ipproto, sport, dport, l3; /* l3: IP header */
	bool ip4, ip6;
};

static void frame_view(const uint8_t *h, size_t len, struct frame_view *v)
{
	unsigned int off = 14, l4 = 0;

	memset(v, 0, sizeof(*v));
	if (len < 14)
		return;
	v->etype = wire_be16(h + 12);
	if (v->etype == 0x8100 && len >= 18) { /* one VLAN tag */
		v->etype = wire_be16(h + 16);
		off = 18;
	}
	v->l3 = off;
	if (v->etype == 0x0800 && len >= off + 20) {
		v->ip4 = true;
		v->ipproto = h[off + 9];
		l4 = off + 4u * (h[off] & 0xfu);
	} else if (v->etype == 0x86dd && len >= off + 40) {
		v->ip6 = true;
		v->ipproto = h[off + 6];
		l4 = off + 40;
	}
	if ((v->ipproto == 6 || v->ipproto == 17) && l4 && len >= l4 + 4) {
		v->sport = wire_be16(h + l4);
		v->dport = wire_be16(h + l4 + 2);
	}
}

static bool filter_match(const struct capture_filter *f,
			 const struct frame_view *v)
{
	bool ip = v->ip4 || v->ip6;

	switch (f->proto) {
	case P_ALL:
		return true;
	case P_ARP:
		return v->etype == 0x0806;
	case P_IP:
		return v->ip4;
	case P_IP6:
		return v->ip6;
	case P_ICMP:
		return (v->ip4 && v->ipproto == 1) ||
		       (v->ip6 && v->ipproto == 58);
	case P_TCP:
	case P_UDP:
		if (!ip || v->ipproto != (f->proto == P_TCP ? 6u : 17u))
			return false;
		break;
	case P_ANY:
		if (!ip || (v->ipproto != 6 && v->ipproto != 17))
			return false;
		break;
	}
	return !f->port || v->sport == f->port || v->dport == f->port;
}

/* Copies up to max bytes of the pieces to dst; returns the bytes. */
static size_t gather(uint8_t *dst, size_t max, const struct netdev_sg *piece,
		     int n)
{
	size_t got = 0;

	for (int i = 0; i < n && got < max; i++) {
		size_t take =
			piece[i].len < max - got ? piece[i].len : max - got;

		memcpy(dst + got, piece[i].addr, take);
		got += take;
	}
	return got;
}

/* The string src cut to fit dst of size bytes, terminated. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static size_t rec_size(uint32_t caplen)
{
	return (sizeof(struct capture_rec) + caplen + 7) & ~(size_t)7;
}

/* Under write_lock: one record at the end of the buffer, or a drop. */
static void put_record(struct netdev *dev, enum capture_dir dir,
		       const struct netdev_sg *piece, int n, uint32_t len)
{
	uint32_t caplen = len < snaplen ? len : snaplen;
	unsigned long nf = atomic_load_explicit(&frames, memory_order_relaxed);
	struct capture_rec *r;

	if (nf >= count_max)
		return; /* the last one stopped it; a CPU was already in */
	if (used + rec_size(caplen) > buf_size) {
		dropped++;
		return;
	}
	r = (struct capture_rec *)(buf + used);
	r->ns = clock_ns();
	r->orig_len = len;
	r->caplen = caplen;
	r->dir = (uint8_t)dir;
	copy_text(r->nic, sizeof(r->nic), dev->name);
	gather((uint8_t *)(r + 1), caplen, piece, n);
	used += rec_size(caplen);
	atomic_store_explicit(&frames, nf + 1, memory_order_release);
	if (nf + 1 == count_max)
		atomic_store_explicit(&net_capture_on, 0, memory_order_relaxed);
}

void net_capture_frame(struct netdev *dev, enum capture_dir dir,
		       const struct netdev_sg *piece, int n)
{
	uint8_t peek[CAPTURE_PEEK];
	struct frame_view v;
	unsigned long flags;
	uint32_t len = 0;

	for (int i = 0; i < n; i++)
		len += piece[i].len;
	frame_view(peek, gather(peek, sizeof(peek), piece, n), &v);
	flags = spin_lock_irqsave(&write_lock);
	if (!net_capturing()) {
		/* stopped meanwhile */
	} else if (filter_match(&filter, &v)) {
		put_record(dev, dir, piece, n, len);
	} else {
		passed_over++;
	}
	spin_unlock_irqrestore(&write_lock, flags);
}

int net_capture_start(unsigned long count, unsigned int snap, const char *text)
{
	struct capture_filter f;
	size_t want = 0;
	char *nbuf;
	unsigned long flags;

	if (!count || snap < 64 || snap > 65535 || !net_capture_filter_ok(text))
		return -1;
	filter_parse(text, &f);
	if (count < CAPTURE_BUF_MAX / rec_size(snap))
		want = count * rec_size(snap);
	else
		want = CAPTURE_BUF_MAX;
	nbuf = kmalloc(want, GFP_KERNEL);
	if (!nbuf)
		return -2;
	spin_lock(&ctl_lock);
	net_capture_stop();
	flags = spin_lock_irqsave(&write_lock); /* no writer inside now */
	kfree(buf);
	buf = nbuf;
	buf_size = want;
	used = 0;
	dropped = passed_over = 0;
	count_max = count;
	snaplen = snap;
	filter = f;
	copy_text(filter_text, sizeof(filter_text), text);
	atomic_store_explicit(&frames, 0, memory_order_release);
	atomic_store_explicit(&net_capture_on, 1, memory_order_release);
	spin_unlock_irqrestore(&write_lock, flags);
	spin_unlock(&ctl_lock);
	return 0;
}

void net_capture_stop(void)
{
	atomic_store_explicit(&net_capture_on, 0, memory_order_release);
}

void net_capture_boot(void)
{
	int err;

	if (!cmdline_get_bool("capture"))
		return;
	err = net_capture_start(
		(unsigned long)cmdline_get_long("capture_count"),
		(unsigned int)cmdline_get_long("capture_snaplen"),
		cmdline_get("capture_filter"));
	if (err)
		kprintf("capture: capture=1 given, but no memory for it\n");
	else
		kprintf("capture: %lu frames of %u bytes, filter %s\n",
			count_max, snaplen, filter_text);
}

/* ---- writers ---- */

/* Appends len bytes to buf at *pos if they fit in size; counts them. */
static void put_bytes(char *out, size_t size, size_t *pos, const void *src,
		      size_t len)
{
	if (*pos + len <= size)
		memcpy(out + *pos, src, len);
	*pos += len;
}

static void put_u32(char *out, size_t size, size_t *pos, uint32_t v)
{
	put_bytes(out, size, pos, &v, 4); /* pcap: the writer's byte order */
}

size_t net_capture_pcap(char *out, size_t size)
{
	unsigned long n;
	size_t pos = 0, at = 0;

	spin_lock(&ctl_lock);
	n = atomic_load_explicit(&frames, memory_order_acquire);
	put_u32(out, size, &pos, 0xa1b2c3d4);	 /* microsecond timestamps */
	put_u32(out, size, &pos, 2u | 4u << 16); /* version 2.4 */
	put_u32(out, size, &pos, 0);		 /* GMT */
	put_u32(out, size, &pos, 0);		 /* sigfigs */
	put_u32(out, size, &pos, snaplen ? snaplen : 65535);
	put_u32(out, size, &pos, 1); /* LINKTYPE_ETHERNET */
	for (unsigned long i = 0; i < n; i++) {
		const struct capture_rec *r =
			(const struct capture_rec *)(buf + at);

		put_u32(out, size, &pos, (uint32_t)(r->ns / 1000000000u));
		put_u32(out, size, &pos, (uint32_t)(r->ns / 1000u % 1000000u));
		put_u32(out, size, &pos, r->caplen);
		put_u32(out, size, &pos, r->orig_len);
		put_bytes(out, size, &pos, r + 1, r->caplen);
		at += rec_size(r->caplen);
	}
	spin_unlock(&ctl_lock);
	return pos;
}

/* "udp 10.0.2.2:5000 > 10.0.2.15:7" and the like. */
static void put_summary(struct strbuf *sb, const uint8_t *h, uint32_t len)
{
	struct frame_view v;
	const char *name = "ip";

	frame_view(h, len < CAPTURE_PEEK ? len : CAPTURE_PEEK, &v);
	if (v.etype == 0x0806) {
		strbuf_printf(sb, "arp");
		return;
	}
	if (!v.ip4) {
		strbuf_printf(sb, v.ip6 ? "ip6 proto %u" : "ethertype %#x",
			      v.ip6 ? v.ipproto : v.etype);
		return;
	}
	if (v.ipproto == 1)
		name = "icmp";
	else if (v.ipproto == 6)
		name = "tcp";
	else if (v.ipproto == 17)
		name = "udp";
	h += v.l3;
	strbuf_printf(sb, "%s %u.%u.%u.%u:%u > %u.%u.%u.%u:%u", name, h[12],
		      h[13], h[14], h[15], v.sport, h[16], h[17], h[18], h[19],
		      v.dport);
}

int net_capture_text(char *out, size_t size, unsigned long max)
{
	unsigned long n;
	size_t at = 0;
	struct strbuf sb;

	strbuf_init(&sb, out, size);
	spin_lock(&ctl_lock);
	n = atomic_load_explicit(&frames, memory_order_acquire);
	for (unsigned long i = 0; i < n && i < max; i++) {
		const struct capture_rec *r =
			(const struct capture_rec *)(buf + at);

		strbuf_printf(&sb, "%llu.%06llu %s %s len=%u ",
			      (unsigned long long)(r->ns / 1000000000u),
			      (unsigned long long)(r->ns / 1000u % 1000000u),
			      r->nic, r->dir == CAPTURE_RX ? "in " : "out",
			      r->orig_len);
		put_summary(&sb, (const uint8_t *)(r + 1), r->caplen);
		strbuf_printf(&sb, "\n");
		at += rec_size(r->caplen);
	}
	spin_unlock(&ctl_lock);
	return strbuf_done(&sb);
}

/* ---- /stats.json: "capture" ---- */

struct capture_snap {
	bool running;
	unsigned long frames, bytes, dropped, passed_over, count;
	unsigned int snaplen;
	const char *filter;
};

static const struct stat_desc capture_stats[] = {
	STAT_GAUGE_AT(struct capture_snap, running, "",
		      "a capture records now"),
	STAT_GAUGE_AT(struct capture_snap, frames, "packets",
		      "frames the last capture holds"),
	STAT_GAUGE_AT(struct capture_snap, bytes, "bytes",
		      "buffer bytes they take (headers included)"),
	STAT_GAUGE_AT(
		struct capture_snap, dropped, "packets",
		"frames that passed the filter but found the buffer full"),
	STAT_GAUGE_AT(struct capture_snap, passed_over, "packets",
		      "frames the filter left out"),
	STAT_INFO_AT(struct capture_snap, count, "packets",
		     "frames the capture stops at"),
	STAT_INFO_AT(struct capture_snap, snaplen, "bytes",
		     "bytes kept of each frame"),
	STAT_INFO_AT(struct capture_snap, filter, "",
		     "the filter (docs/observe.md)"),
};
static const struct stat_group capture_groups[] = {
	STAT_GROUP("", capture_stats),
};
const struct stat_schema net_capture_schema = STAT_SCHEMA(capture_groups);

int net_capture_stats_json(char *out, size_t size)
{
	struct capture_snap o = {
		.running = net_capturing(),
		.frames = atomic_load_explicit(&frames, memory_order_acquire),
		.bytes = used,
		.dropped = dropped,
		.passed_over = passed_over,
		.count = count_max,
		.snaplen = snaplen,
		.filter = filter_text,
	};
	struct strbuf sb;

	strbuf_init(&sb, out, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, capture_stats, STAT_TABLE_LEN(capture_stats),
			  &o);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
