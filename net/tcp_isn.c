/*
 * TCP initial sequence numbers (RFC 6528); see tcp_isn.h for why.
 *
 * The key comes from the CPU's random number generator (RDRAND) where it
 * has one, mixed with the time stamp counter; without RDRAND the time
 * stamp counter alone (read at the first connection, not at boot, so its
 * low bits carry the jitter of everything that ran before) is what there
 * is: weaker, but no longer a number anyone can read off a SYN-ACK.
 */
#include "tcp_isn.h"

#include <stdbool.h>

#include "kernel/arch.h"
#include "kernel/time.h"
#include "libc/siphash.h"

#define CPUID1_ECX_RDRAND (1u << 30)
#define RDRAND_TRIES	  10 /* Intel's advice: retry a few times */

static uint8_t isn_key[16];
static bool isn_keyed;

/* One 64-bit word from RDRAND, or 0 when it has none to give. */
static uint64_t rdrand64(void)
{
	for (int i = 0; i < RDRAND_TRIES; i++) {
		uint64_t v;
		uint8_t ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
		if (ok)
			return v;
	}
	return 0;
}

static void isn_draw_key(void)
{
	uint32_t a, b, c, d;
	bool hw;

	cpuid(1, 0, &a, &b, &c, &d);
	hw = c & CPUID1_ECX_RDRAND;
	for (int i = 0; i < 2; i++) {
		uint64_t w = rdtsc() * 0x9e3779b97f4a7c15ull;

		if (hw)
			w ^= rdrand64();
		for (int k = 0; k < 8; k++)
			isn_key[8 * i + k] = (uint8_t)(w >> (8 * k));
	}
	isn_keyed = true;
}

/* An address as bytes for the hash: 4 for IPv4, 16 for IPv6. */
static int put_addr(uint8_t *out, const ip_addr_t *ip)
{
	if (IP_IS_V6(ip)) {
		__builtin_memcpy(out, ip_2_ip6(ip)->addr, 16);
		return 16;
	}
	__builtin_memcpy(out, &ip_2_ip4(ip)->addr, 4);
	return 4;
}

u32_t net_tcp_isn(const ip_addr_t *local_ip, u16_t local_port,
		  const ip_addr_t *remote_ip, u16_t remote_port)
{
	uint8_t tuple[2 * 16 + 2 * 2];
	int n = 0;

	if (!isn_keyed)
		isn_draw_key();
	n += put_addr(tuple + n, local_ip);
	n += put_addr(tuple + n, remote_ip);
	__builtin_memcpy(tuple + n, &local_port, 2);
	__builtin_memcpy(tuple + n + 2, &remote_port, 2);
	return (u32_t)(clock_us() >> 2) +
	       (u32_t)siphash24(isn_key, tuple, (size_t)n + 4);
}
