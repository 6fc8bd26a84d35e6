/*
 * Fuzz harness of a received frame's way from the virtio-net device to
 * the point where the netif glue (net/netif_glue.c) would wrap it into a
 * pbuf for lwIP, with the real functions of each step:
 *
 *   1. drivers/virtio_net.c, vnet_rx_buf: the buffers the device filled,
 *      with the length it reported, the virtio-net header it wrote (flags,
 *      GSO type and size, csum_start/offset, num_buffers of a mergeable
 *      frame over several buffers and polls) judged by vnet_rx_check
 *      (drivers/virtio_net_offload.c), frames handed up as
 *      NETDEV_RX_MORE chains;
 *   2. what the glue does to each handed-up frame before lwIP: the
 *      software checksum check (net/rx_csum.c, over net/chksum.c, which
 *      is linked in as gcc builds it: mk/fuzz.mk says why) and the
 *      receive coalescing (net/rx_gro.c: parse, follows, the IPv4 sum of a
 *      frame the device vouched for, the head's rewrite; IPv4 and IPv6
 *      frames alike), decided as
 *      glue_input_coalesced decides (restated here: netif_glue.c itself
 *      needs lwIP's netif, pbuf and the core lock, see docs/testing.md);
 *   3. the same frame as the stack would send it, through the TX
 *      offloads' parsers: vnet_tx_csum and tcp_merge_parse, and the
 *      merging of consecutive segments (drivers/tcp_merge.c, IPv4 and
 *      IPv6 as virtio-net with HOST_TSO4/6 asks it, and
 *      drivers/virtio_net_gso.c's header).
 *
 * The input: one configuration byte (bit 0 MRG_RXBUF, bit 1 a modern 12-byte
 * header, bit 2 GUEST_CSUM, bit 3 GUEST_TSO4, bits 4-5 how a frame is cut
 * into a TX scatter list, bit 6 GUEST_TSO6), then buffers as the device
 * returns them: two bytes of the length it reports (may exceed the buffer),
 * then that many bytes it wrote (header and frame; fewer at the input's end,
 * the rest zero).
 *
 * Checked beyond ASan (each buffer is its own allocation, so reading
 * past a buffer is a report): every buffer is handed up or freed, once;
 * a frame handed up lies inside its buffers, is at most 1514 bytes (64
 * KiB with GUEST_TSO4/6) in at most NETDEV_RX_CHAIN_MAX buffers, and
 * carries CSUM_OK only when GUEST_CSUM was negotiated; net_rx_csum_verify
 * and net_gro_parse/net_gro_follows agree with references written from
 * their contracts (a byte-wise ones'-complement sum, the headers' fields);
 * a rewritten head says the joined length, has a right IPv4 sum (IPv4)
 * and differs from the original only there and in PSH; a merged TX header
 * (IPv4 or IPv6) has the merged length, a right IPv4 sum, the GSO type of
 * its family and the TCP sum field seeded with the pseudo-header's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"

#include "drivers/frame_hdr.c"
#include "drivers/tcp_merge.c"
#include "drivers/virtio_net.c"
#include "drivers/virtio_net_gso.c"
#include "drivers/virtio_net_offload.c"
#include "net/rx_csum.c"
#include "net/rx_gro.c"

#define MAX_BUFS 512 /* buffers one input may return */

/* ---- what the driver calls: the transport is not used here ---- */

int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, int n,
	      void *cookie)
{
	(void)vq;
	(void)bufs;
	(void)n;
	(void)cookie;
	return -1;
}

void *virtq_get(struct virtq *vq, uint32_t *len)
{
	(void)vq;
	(void)len;
	return NULL;
}

void virtq_kick(struct virtq *vq)
{
	(void)vq;
}

void virtq_publish(struct virtq *vq)
{
	(void)vq;
}

uint16_t virtio_pci_config16(struct virtio_pci *vp, unsigned int off)
{
	(void)vp;
	(void)off;
	return 0;
}

int vnet_set_rss_table(struct netdev *dev, const uint8_t *table, int n)
{
	(void)dev;
	(void)table;
	(void)n;
	return -1;
}

int vnet_irq_setup(struct netdev *dev)
{
	(void)dev;
	return -1;
}

bool vnet_irq_arm(struct netdev *dev, int q)
{
	(void)dev;
	(void)q;
	return false;
}

void vnet_irq_disarm(struct netdev *dev, int q)
{
	(void)dev;
	(void)q;
}

void *napi_alloc_frag(unsigned int size)
{
	(void)size;
	return NULL;
}

/* ---- the RX buffers: each one malloc'd, tracked until freed ---- */

static struct {
	uint8_t *mem; /* RX_BUF_SIZE bytes; the device writes after the
			 headroom */
	bool live;
} bufs[MAX_BUFS];
static int nbufs;

static int buf_of(const void *p)
{
	const uint8_t *b = p;

	for (int i = 0; i < nbufs; i++)
		if (bufs[i].live && b >= bufs[i].mem &&
		    b < bufs[i].mem + RX_BUF_SIZE)
			return i;
	return -1;
}

/* The driver gives a buffer back (any pointer into it, as page_frag). */
void page_frag_free(void *p)
{
	int i = buf_of(p);

	PZ_CHECK(i >= 0, "free of %p: not a live buffer", p);
	free(bufs[i].mem);
	bufs[i].live = false;
}

/* ---- references, from the contracts in rx_csum.h and rx_gro.h ---- */

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return be16(p) << 16 | be16(p + 2);
}

/* RFC 1071's sum, big-endian words, an odd byte padded. */
static uint64_t ref_sum(const uint8_t *p, size_t n, uint64_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += be16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint32_t ref_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static enum net_rx_csum ref_l4(uint64_t pseudo, const uint8_t *l4, size_t n)
{
	return ref_fold(ref_sum(l4, n, pseudo)) == 0xffff ? NET_RX_CSUM_GOOD
							  : NET_RX_CSUM_BAD;
}

static enum net_rx_csum ref_csum(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + 14;
	size_t room = len - 14;
	uint32_t hlen, tot, plen;

	if (len < 14)
		return NET_RX_CSUM_UNCHECKED;
	if (be16(f + 12) == 0x0800) {
		if (room < 20 || ip[0] >> 4 != 4)
			return NET_RX_CSUM_UNCHECKED;
		hlen = (ip[0] & 15u) * 4;
		tot = be16(ip + 2);
		if (hlen < 20 || tot > room || (be16(ip + 6) & 0x3fff))
			return NET_RX_CSUM_UNCHECKED;
		if (!(ip[9] == 6 && tot >= hlen + 20) &&
		    !(ip[9] == 17 && tot >= hlen + 8 && be16(ip + hlen + 6)))
			return NET_RX_CSUM_UNCHECKED;
		if (ref_fold(ref_sum(ip, hlen, 0)) != 0xffff)
			return NET_RX_CSUM_BAD;
		return ref_l4(ref_sum(ip + 12, 8, ip[9] + tot - hlen),
			      ip + hlen, tot - hlen);
	}
	if (be16(f + 12) == 0x86dd) {
		if (room < 40 || ip[0] >> 4 != 6)
			return NET_RX_CSUM_UNCHECKED;
		plen = be16(ip + 4);
		if (plen > room - 40 ||
		    !((ip[6] == 6 && plen >= 20) || (ip[6] == 17 && plen >= 8)))
			return NET_RX_CSUM_UNCHECKED;
		return ref_l4(ref_sum(ip + 8, 32, ip[6] + plen), ip + 40, plen);
	}
	return NET_RX_CSUM_UNCHECKED;
}

static bool ref_gro_parse(const uint8_t *f, size_t len, struct net_gro_seg *s)
{
	const uint8_t *ip = f + 14, *tcp;
	uint32_t ip_len, iphl, thl;

	if (len >= 54 && be16(f + 12) == 0x0800 && ip[0] == 0x45 &&
	    ip[9] == 6 && !(be16(ip + 6) & 0x3fff)) {
		ip_len = be16(ip + 2);
		iphl = 20;
	} else if (len >= 74 && be16(f + 12) == 0x86dd && ip[0] >> 4 == 6 &&
		   ip[6] == 6) { /* TCP right after the fixed header */
		ip_len = 40 + be16(ip + 4);
		iphl = 40;
	} else {
		return false;
	}
	tcp = ip + iphl;
	thl = (tcp[12] >> 4) * 4u;
	if (ip_len > len - 14 || ip_len > 0xffff || thl < 20 ||
	    iphl + thl >= ip_len || (tcp[13] & 0xe7) || !(tcp[13] & 0x10))
		return false;
	*s = (struct net_gro_seg){.seq = be32(tcp + 4),
				  .ip_len = (uint16_t)ip_len,
				  .tcp_off = (uint8_t)(14 + iphl),
				  .hdr_len = (uint16_t)(14 + iphl + thl),
				  .payload = (uint16_t)(ip_len - iphl - thl),
				  .flags = tcp[13]};
	return true;
}

/* The IP headers but for lengths, id and sum: IPv4 or IPv6. */
static bool ref_ip_same(const uint8_t *a, const uint8_t *b, bool ip6)
{
	if (ip6)
		return !memcmp(a, b, 18) &&	     /* Ethernet, 0-3 */
		       !memcmp(a + 20, b + 20, 2) && /* next hdr, hops */
		       !memcmp(a + 22, b + 22, 32);  /* addresses */
	return !memcmp(a, b, 16) &&		     /* Ethernet, IPv4 0-1 */
	       ((a[20] ^ b[20]) & 0x40) == 0 &&	     /* DF */
	       !memcmp(a + 22, b + 22, 2) &&	     /* TTL, protocol */
	       !memcmp(a + 26, b + 26, 8);	     /* addresses */
}

static bool ref_follows(const uint8_t *a, const struct net_gro_seg *head,
			uint32_t next, const uint8_t *b,
			const struct net_gro_seg *s)
{
	const uint8_t *ta = a + head->tcp_off, *tb = b + head->tcp_off;

	return s->seq == next && s->hdr_len == head->hdr_len &&
	       s->tcp_off == head->tcp_off &&
	       ref_ip_same(a, b, head->tcp_off == 54) &&
	       !memcmp(ta, tb, 4) &&		   /* ports */
	       !memcmp(ta + 8, tb + 8, 5) &&	   /* ack, data offset */
	       ((ta[13] ^ tb[13]) & ~0x08) == 0 && /* flags but PSH */
	       !memcmp(ta + 14, tb + 14, 2) &&	   /* window */
	       !memcmp(ta + 18, tb + 18, 2) &&	   /* urgent pointer */
	       !memcmp(ta + 20, tb + 20,
		       head->hdr_len - head->tcp_off - 20u); /* options */
}

/* ---- step 2: the glue's checks and coalescing ---- */

/* The run being coalesced: its first frame (a copy) and what follows. */
static struct {
	uint8_t *head; /* NULL: no run */
	struct net_gro_seg seg0;
	uint32_t next, ip_len;
	uint8_t flags;
	int segs;
} run;

static void run_end(void)
{
	uint8_t *h = run.head;
	uint16_t hl = run.seg0.hdr_len;
	bool ip6 = run.seg0.tcp_off == 54;
	/* the bytes the rewrite may change: the IP length (and the IPv4
	 * header sum), the TCP flags */
	unsigned int len_at = ip6 ? 18 : 16, sum_at = ip6 ? len_at : 24,
		     flags_at = run.seg0.tcp_off + 13u;
	uint8_t *was;

	if (h && run.segs > 1) {
		was = malloc(hl);
		memcpy(was, h, hl);
		net_gro_rewrite_head(h, (uint16_t)run.ip_len,
				     run.flags & NET_GRO_TCP_PSH);
		PZ_CHECK(be16(h + len_at) + (ip6 ? 40u : 0u) == run.ip_len,
			 "length %u, not %u", be16(h + len_at), run.ip_len);
		PZ_CHECK(net_gro_ip_sum_ok(h) &&
				 (ip6 ||
				  ref_fold(ref_sum(h + 14, 20, 0)) == 0xffff),
			 "rewritten head's IPv4 sum wrong");
		PZ_CHECK((h[flags_at] & NET_GRO_TCP_PSH) ==
				 (run.flags & NET_GRO_TCP_PSH),
			 "PSH %d", h[flags_at] & NET_GRO_TCP_PSH);
		for (unsigned int i = 0; i < hl; i++)
			PZ_CHECK(h[i] == was[i] || i == len_at ||
					 i == len_at + 1 || i == sum_at ||
					 i == sum_at + 1 || i == flags_at,
				 "head byte %u changed", i);
		free(was);
	}
	free(h);
	run.head = NULL;
}

/* One frame (contiguous, exactly len bytes) as the glue sees it. */
static void glue_frame(const uint8_t *f, uint32_t len, bool csum_ok, bool one)
{
	enum net_rx_csum r = net_rx_csum_verify(f, len);
	struct net_gro_seg s, ref;
	bool gro = net_gro_parse(f, len, &s), good;

	PZ_CHECK(r == ref_csum(f, len), "rx_csum %d, reference %d", r,
		 ref_csum(f, len));
	PZ_CHECK(gro == ref_gro_parse(f, len, &ref), "gro_parse %d", gro);
	if (gro)
		PZ_CHECK(s.seq == ref.seq && s.ip_len == ref.ip_len &&
				 s.hdr_len == ref.hdr_len &&
				 s.tcp_off == ref.tcp_off &&
				 s.payload == ref.payload &&
				 s.flags == ref.flags,
			 "gro_parse fields: seq %u len %u hdr %u pay %u", s.seq,
			 s.ip_len, s.hdr_len, s.payload);
	/* glue_rx_good: the device's word for TCP and the IPv4 header sum
	 * (IPv6 has none), or both checked here */
	good = gro && one &&
	       (csum_ok ? net_gro_ip_sum_ok(f) : r == NET_RX_CSUM_GOOD);
	if (run.head && good && run.segs < NET_GRO_MAX_SEGS &&
	    !(run.flags & NET_GRO_TCP_PSH) &&
	    run.ip_len + s.payload <= 0xffffu) {
		bool fol =
			net_gro_follows(run.head, &run.seg0, run.next, f, &s);

		PZ_CHECK(fol == ref_follows(run.head, &run.seg0, run.next, f,
					    &s),
			 "gro_follows %d", fol);
		if (fol) {
			run.next += s.payload;
			run.ip_len += s.payload;
			run.flags |= s.flags;
			run.segs++;
			return;
		}
	}
	run_end();
	if (good) {
		run.head = malloc(s.hdr_len);
		memcpy(run.head, f, s.hdr_len);
		run.seg0 = s;
		run.next = s.seq + s.payload;
		run.ip_len = s.ip_len;
		run.flags = s.flags;
		run.segs = 1;
	}
}

/* ---- step 3: the TX offloads' parsers on the same bytes ---- */

static struct tcp_merge_batch txb;
static uint8_t *tx_frames[VNET_GSO_SEGS]; /* the held frames' bytes */

static void tx_flush(void)
{
	uint8_t h[VNET_GSO_HDR_MAX];
	struct vnet_hdr vh;

	if (txb.nseg) {
		bool ip6 = be16(txb.hdr + 12) == 0x86dd;
		uint32_t t = ip6 ? 54 : 34,
			 tcp_len = txb.hlen - t + txb.payload;

		vnet_gso_headers(&txb, h, &vh);
		if (ip6)
			PZ_CHECK(be16(h + 18) == tcp_len, "merged length %u",
				 be16(h + 18));
		else
			PZ_CHECK(ref_fold(ref_sum(h + 14, 20, 0)) == 0xffff &&
					 be16(h + 16) == 20 + tcp_len,
				 "merged IPv4 sum or length %u", be16(h + 16));
		/* the seed: the pseudo-header's sum, folded, not inverted */
		PZ_CHECK(be16(h + t + 16) ==
				 ref_fold(ref_sum(h + (ip6 ? 22 : 26),
						  ip6 ? 32 : 8, 6 + tcp_len)),
			 "merged TCP sum seed");
		PZ_CHECK(
			vh.hdr_len == txb.hlen && vh.gso_size == txb.gso_size &&
				vh.csum_start == t &&
				vh.gso_type == (ip6 ? VIRTIO_NET_HDR_GSO_TCPV6
						    : VIRTIO_NET_HDR_GSO_TCPV4),
			"merged vnet header");
	}
	for (int i = 0; i < txb.nseg; i++)
		free(tx_frames[i]);
	txb.nseg = 0;
}

static void tx_frame(const uint8_t *f, uint32_t len, unsigned int cut)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct netdev_sg sg[3];
	struct tcp_merge_seg *g = malloc(sizeof(*g));
	struct vnet_hdr vh;
	uint32_t a = len ? (cut * 7u) % len : 0,
		 b = len ? (cut * 13u) % len : 0;
	int nsg = 0;

	memcpy(copy, f, len);
	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	/* one piece, or cut at a and b (empty pieces too, as lwIP never
	 * sends: the parsers must take them) */
	if (cut % 4 == 0) {
		sg[nsg++] = (struct netdev_sg){copy, len};
	} else {
		sg[nsg++] = (struct netdev_sg){copy, a};
		sg[nsg++] = (struct netdev_sg){copy + a, b - a};
		sg[nsg++] = (struct netdev_sg){copy + b, len - b};
	}
	if (vnet_tx_csum(&vh, sg, nsg))
		PZ_CHECK(vh.csum_start + vh.csum_offset + 2u <= len,
			 "sum field at %u+%u of %u", vh.csum_start,
			 vh.csum_offset, len);
	/* as virtio-net with HOST_TSO4 and HOST_TSO6 asks (vnet_gso_may_merge) */
	if (!tcp_merge_parse(sg, nsg, true, 1500, g) ||
	    g->hlen > VNET_GSO_HDR_MAX) {
		tx_flush();
		free(copy);
		free(g);
		return;
	}
	PZ_CHECK(g->hlen + g->payload == len && g->frame == len,
		 "gso_parse: %u + %u of %u", g->hlen, g->payload, len);
	if (txb.nseg && tcp_merge_continues(&txb, g)) {
		tx_frames[txb.nseg] = copy;
		if (tcp_merge_add(&txb, g, NULL))
			tx_flush();
	} else {
		tx_flush();
		tx_frames[0] = copy;
		if (tcp_merge_start(&txb, g, sg, nsg, NULL))
			tx_flush(); /* a large segment goes alone */
	}
	free(g);
}

/* ---- step 1's other end: the glue's rx callback ---- */

static struct {
	uint8_t *piece[VNET_MRG_MAX];
	uint32_t len[VNET_MRG_MAX];
	unsigned int flags;
	int n;
} frame;
static struct vnet vn;
static unsigned int tx_cut;

static void glue_rx_stand_in(struct netdev *dev, int q, void *p, uint32_t len,
			     unsigned int flags, uint32_t hash)
{
	int i = buf_of(p);
	uint32_t total = 0;
	uint8_t *flat;

	(void)dev;
	(void)hash;
	(void)q;
	PZ_CHECK(i >= 0 && (uint8_t *)p + len <= bufs[i].mem + RX_BUF_SIZE,
		 "piece of %u bytes outside its buffer", len);
	PZ_CHECK(!(flags & ~(NETDEV_RX_CSUM_OK | NETDEV_RX_MORE)), "flags 0x%x",
		 flags);
	PZ_CHECK(vn.rx_csum || !(flags & NETDEV_RX_CSUM_OK),
		 "CSUM_OK without GUEST_CSUM");
	PZ_CHECK(frame.n < VNET_MRG_MAX, "a frame of more than %d buffers",
		 VNET_MRG_MAX);
	PZ_CHECK(frame.n == 0 || (frame.flags & NETDEV_RX_CSUM_OK) ==
					 (flags & NETDEV_RX_CSUM_OK),
		 "one frame, two checksum verdicts");
	frame.piece[frame.n] = p;
	frame.len[frame.n++] = len;
	frame.flags = flags;
	if (flags & NETDEV_RX_MORE)
		return;
	for (int k = 0; k < frame.n; k++)
		total += frame.len[k];
	PZ_CHECK(total <= (vnet_has(vn.features, VIRTIO_NET_F_GUEST_TSO4) ||
					   vnet_has(vn.features,
						    VIRTIO_NET_F_GUEST_TSO6)
				   ? NETDEV_RX_BIG_MAX
				   : NETDEV_FRAME_MAX),
		 "a frame of %u bytes", total);
	flat = malloc(total ? total : 1);
	total = 0;
	for (int k = 0; k < frame.n; k++) {
		memcpy(flat + total, frame.piece[k], frame.len[k]);
		total += frame.len[k];
		page_frag_free(frame.piece[k]); /* as pbuf_free would */
	}
	pz_ops++;
	glue_frame(flat, total, flags & NETDEV_RX_CSUM_OK, frame.n == 1);
	tx_frame(flat, total, tx_cut++);
	free(flat);
	frame.n = 0;
}

/* ---- the harness ---- */

static void setup(uint8_t cfg)
{
	struct vnet_pair *pair = &vn.pairs[0];

	memset(&pair->chain, 0, sizeof(pair->chain));
	memset(&vn.dev.queues[0].stats, 0, sizeof(vn.dev.queues[0].stats));
	vn.mrg = cfg & 1;
	vn.hdr_len = vn.mrg || (cfg & 2) ? 12 : 10;
	vn.rx_csum = cfg & 4;
	vn.features = (vn.rx_csum ? 1ull << VIRTIO_NET_F_GUEST_CSUM : 0) |
		      (vn.mrg ? 1ull << VIRTIO_NET_F_MRG_RXBUF : 0) |
		      (cfg & 8 ? 1ull << VIRTIO_NET_F_GUEST_TSO4 : 0) |
		      (cfg & 64 ? 1ull << VIRTIO_NET_F_GUEST_TSO6 : 0);
	vn.dev.rx = glue_rx_stand_in;
	vn.dev.priv = &vn;
	tx_cut = (cfg >> 4) & 3;
	frame.n = 0;
	nbufs = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	struct pz_in in = {data, size, 0};

	if (!started) {
		pz_init("fuzz_rx_frame");
		started = true;
	}
	pz_input();
	setup(pz_u8(&in));
	while (pz_more(&in) && nbufs < MAX_BUFS) {
		uint32_t used = pz_u16(&in);
		const uint8_t *b;
		size_t n =
			pz_take(&in, used < RX_BUF_LEN ? used : RX_BUF_LEN, &b);
		uint8_t *mem = calloc(1, RX_BUF_SIZE);

		memcpy(mem + NETDEV_RX_HEADROOM, b, n);
		bufs[nbufs].mem = mem;
		bufs[nbufs++].live = true;
		vnet_rx_buf(&vn, 0, mem + NETDEV_RX_HEADROOM, used);
	}
	/* The input ends mid-frame: the driver still holds those buffers. */
	rx_chain_drop(&vn.pairs[0].chain);
	run_end();
	tx_flush();
	PZ_CHECK(frame.n == 0, "a frame handed up without its last buffer");
	for (int i = 0; i < nbufs; i++)
		PZ_CHECK(!bufs[i].live, "buffer %d neither handed up nor freed",
			 i);
	return 0;
}
