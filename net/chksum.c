/*
 * The Internet checksum (RFC 1071) for lwIP, x86-64: 64-bit words added
 * with carry.
 *
 * Why: the checksum was the largest single cost of a TCP segment. With
 * lwIP's default routine (lwip_standard_chksum, 16 bits per add) a full
 * 1460-byte segment took 3,854 of the 5,835 guest instructions a received
 * segment cost (iperf host->guest, virtio, tools/insn-profile), and 3,932
 * of 7,539 per sent one.
 *
 * How: the ones'-complement sum of 16-bit words is the same as the
 * ones'-complement sum of 64-bit words folded down to 16 bits (2^16 = 1
 * modulo 2^16 - 1, which divides 2^64 - 1), so the loop adds eight bytes
 * per instruction with `adc`, the carry of each add going into the next
 * and the last one wrapped around. 64 bytes per loop pass; the tail is
 * summed as 32/16/8-byte pieces and one last word assembled from the
 * remaining 0-7 bytes (zero above them, so an odd last byte is the low
 * byte of its 16-bit word, as RFC 1071 pads it).
 *
 * No alignment work: x86 loads from any address, and lwIP's contract pairs
 * the bytes from the first one whatever the address (lwIP's routine reads
 * aligned 16-bit words and swaps the result back for an odd start; reading
 * from the first byte gives that result directly).
 *
 * Byte order: the words are read little-endian and the sum is returned as
 * read; the checksum is byte-order independent (RFC 1071 section 2(B)),
 * which is what lwIP relies on when it stores the inverted sum as is.
 */
#include "chksum.h"

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v)); /* one mov: x86 loads unaligned */
	return v;
}

/* The 0-7 bytes at @p as one little-endian word, zero above them. */
static inline uint64_t load_tail(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	if (n & 4) {
		uint32_t w;

		__builtin_memcpy(&w, p, 4);
		v = w;
		p += 4;
	}
	if (n & 2) {
		uint16_t w;

		__builtin_memcpy(&w, p, 2);
		v |= (uint64_t)w << ((n & 4) * 8);
		p += 2;
	}
	if (n & 1)
		v |= (uint64_t)*p << ((n & 6) * 8);
	return v;
}

/*
 * 256 bytes per pass: 32 adds chained through the carry flag, which also
 * runs from one pass into the next (lea and dec leave it alone), so one
 * add of the last carry ends the loop: 35 instructions per 256 bytes
 * against 48 in 64-byte passes (a 1460-byte segment: 297 guest
 * instructions in net_chksum_acc before, tools/insn-profile).
 */
static uint64_t sum_256(const unsigned char *p, size_t passes, uint64_t sum)
{
	if (!passes)
		return sum;
	__asm__("clc\n"
		"1:\n\t"
		".irp o, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, "
		"104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, "
		"200, 208, 216, 224, 232, 240, 248\n\t"
		"adcq \\o(%[p]), %[s]\n\t"
		".endr\n\t"
		"leaq 256(%[p]), %[p]\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"adcq $0, %[s]"
		: [s] "+r"(sum), [p] "+r"(p), [n] "+r"(passes)
		: "m"(*(const unsigned char(*)[])p)
		: "cc");
	return sum;
}

/* 64 bytes per pass: eight adds chained through the carry flag. */
static uint64_t sum_blocks(const unsigned char *p, size_t blocks, uint64_t sum)
{
	for (; blocks; blocks--, p += 64)
		__asm__("addq 0(%[p]), %[s]\n\t"
			"adcq 8(%[p]), %[s]\n\t"
			"adcq 16(%[p]), %[s]\n\t"
			"adcq 24(%[p]), %[s]\n\t"
			"adcq 32(%[p]), %[s]\n\t"
			"adcq 40(%[p]), %[s]\n\t"
			"adcq 48(%[p]), %[s]\n\t"
			"adcq 56(%[p]), %[s]\n\t"
			"adcq $0, %[s]"
			: [s] "+r"(sum)
			: [p] "r"(p), "m"(*(const unsigned char(*)[64])p)
			: "cc");
	return sum;
}

/* The last 0-63 bytes. */
static uint64_t sum_tail(const unsigned char *p, size_t n, uint64_t sum)
{
	for (; n >= 8; n -= 8, p += 8)
		sum = net_chksum_add64(sum, load64(p));
	return net_chksum_add64(sum, load_tail(p, n));
}

uint64_t net_chksum_acc(const void *data, size_t len, uint64_t sum)
{
	const unsigned char *p = data;

	sum = sum_256(p, len / 256, sum);
	p += len & ~(size_t)255;
	sum = sum_blocks(p, (len & 255) / 64, sum);
	return sum_tail(p + (len & 192), len & 63, sum);
}

uint16_t net_chksum(const void *data, int len)
{
	if (len <= 0)
		return 0;
	return net_chksum_fold(net_chksum_acc(data, (size_t)len, 0));
}

/* 32 bytes per pass: each word loaded once, stored and added. */
static uint64_t copy_sum_blocks(unsigned char *d, const unsigned char *s,
				size_t blocks, uint64_t sum)
{
	uint64_t t;

	for (; blocks; blocks--, d += 32, s += 32)
		__asm__("movq 0(%[s]), %[t]\n\t"
			"movq %[t], 0(%[d])\n\t"
			"addq %[t], %[sum]\n\t"
			"movq 8(%[s]), %[t]\n\t"
			"movq %[t], 8(%[d])\n\t"
			"adcq %[t], %[sum]\n\t"
			"movq 16(%[s]), %[t]\n\t"
			"movq %[t], 16(%[d])\n\t"
			"adcq %[t], %[sum]\n\t"
			"movq 24(%[s]), %[t]\n\t"
			"movq %[t], 24(%[d])\n\t"
			"adcq %[t], %[sum]\n\t"
			"adcq $0, %[sum]"
			: [sum] "+r"(sum), [t] "=&r"(t),
			  "=m"(*(unsigned char(*)[32])d)
			: [d] "r"(d), [s] "r"(s),
			  "m"(*(const unsigned char(*)[32])s)
			: "cc");
	return sum;
}

uint16_t net_chksum_copy(void *dst, const void *src, uint16_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t n = len, head = n & ~(size_t)31;
	uint64_t sum = copy_sum_blocks(d, s, n / 32, 0);

	d += head;
	s += head;
	n -= head;
	__builtin_memcpy(d, s, n); /* 0-31 bytes */
	return net_chksum_fold(sum_tail(d, n, sum));
}
