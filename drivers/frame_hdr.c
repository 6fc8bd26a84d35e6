/*
 * frame_hdr: the L3/L4 layout of an outgoing frame and its pseudo-header
 * sum (frame_hdr.h). The checksum offload of every device works the same
 * way: the driver seeds the TCP/UDP sum field with the pseudo-header sum
 * (addresses, protocol, L4 length; folded, not inverted) and the device
 * sums from the L4 header to the end and stores the complement.
 */
#include "frame_hdr.h"

#include <string.h>

#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6
/* Ethernet + the longest IPv4 header + the fixed TCP header: the most
 * frame_find_l4 looks at. */
#define HDR_PEEK     (FRAME_ETH_HLEN + 60 + 20)

uint32_t frame_sg_read(const struct netdev_sg *sg, int nsg, uint32_t off,
		       uint8_t *out, uint32_t n)
{
	uint32_t got = 0;

	for (int i = 0; i < nsg && got < n; i++) {
		uint32_t len = sg[i].len, take;

		if (off >= len) {
			off -= len;
			continue;
		}
		take = len - off < n - got ? len - off : n - got;
		memcpy(out + got, (const uint8_t *)sg[i].addr + off, take);
		got += take;
		off = 0;
	}
	return got;
}

/* Store one byte at frame offset off (the frame is at least that long). */
static void sg_put(const struct netdev_sg *sg, int nsg, uint32_t off, uint8_t v)
{
	for (int i = 0; i < nsg; i++) {
		if (off < sg[i].len) {
			((uint8_t *)(uintptr_t)sg[i].addr)[off] = v;
			return;
		}
		off -= sg[i].len;
	}
}

/* The sum field's offset in an L4 header of protocol proto, l4len bytes
 * long; 0 when it is neither TCP nor UDP or too short. */
static uint32_t l4_field(uint8_t proto, uint32_t l4len)
{
	if (proto == FRAME_PROTO_TCP && l4len >= 20)
		return TCP_CSUM_OFF;
	if (proto == FRAME_PROTO_UDP && l4len >= 8)
		return UDP_CSUM_OFF;
	return 0;
}

/* The addresses' words (n bytes from b) added. */
static uint32_t words(const uint8_t *b, int n)
{
	uint32_t sum = 0;

	for (int i = 0; i < n; i += 2)
		sum += frame_be16(b + i);
	return sum;
}

static bool find_l4_ipv6(const uint8_t *b, uint32_t got, struct frame_l4 *f)
{
	const uint8_t *ip = b + FRAME_ETH_HLEN;

	if (got < FRAME_ETH_HLEN + FRAME_IPV6_HLEN || (ip[0] >> 4) != 6)
		return false;
	f->ipv6 = true;
	f->l4 = FRAME_ETH_HLEN + FRAME_IPV6_HLEN;
	f->l4len = frame_be16(ip + 4);
	f->proto = ip[6];
	f->addr_sum = words(ip + 8, 32);
	return true;
}

static bool find_l4_ipv4(const uint8_t *b, uint32_t got, struct frame_l4 *f)
{
	const uint8_t *ip = b + FRAME_ETH_HLEN;
	uint32_t ihl, tot;

	if (got < FRAME_ETH_HLEN + FRAME_IPV4_HLEN)
		return false;
	ihl = (ip[0] & 15u) * 4;
	tot = frame_be16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < FRAME_IPV4_HLEN || tot < ihl ||
	    (frame_be16(ip + 6) & FRAME_IP_FRAG_MASK))
		return false;
	f->ipv6 = false;
	f->l4 = FRAME_ETH_HLEN + ihl;
	f->l4len = tot - ihl;
	f->proto = ip[9];
	f->addr_sum = words(ip + 12, 8);
	return true;
}

bool frame_find_l4(const struct netdev_sg *sg, int nsg, struct frame_l4 *f)
{
	uint8_t b[HDR_PEEK];
	uint32_t got = frame_sg_read(sg, nsg, 0, b, sizeof(b)), type;
	bool found;

	if (got < FRAME_ETH_HLEN)
		return false;
	type = frame_be16(b + 12);
	if (type == FRAME_ETHTYPE_IPV6)
		found = find_l4_ipv6(b, got, f);
	else
		found = type == FRAME_ETHTYPE_IPV4 && find_l4_ipv4(b, got, f);
	if (!found)
		return false;
	f->l3 = FRAME_ETH_HLEN;
	f->field = l4_field(f->proto, f->l4len);
	/* The field must be inside the frame we were given. */
	return f->field && got >= f->l4 + f->field + 2;
}

uint16_t frame_pseudo_sum(const struct frame_l4 *f, uint32_t len)
{
	return (uint16_t)frame_fold(f->addr_sum + f->proto + (len & 0xffff) +
				    (len >> 16));
}

void frame_put_l4_sum(const struct netdev_sg *sg, int nsg,
		      const struct frame_l4 *f, uint16_t sum)
{
	sg_put(sg, nsg, f->l4 + f->field, (uint8_t)(sum >> 8));
	sg_put(sg, nsg, f->l4 + f->field + 1, (uint8_t)sum);
}
