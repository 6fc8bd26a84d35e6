/*
 * lwIP's system layer for NO_SYS=1: the clock, diagnostics, assertions and
 * random numbers. No threads, semaphores or mailboxes exist here.
 */
#include <stdarg.h>
#include <stdint.h>

#include "kernel/console.h"
#include "kernel/time.h"
#include "lwip/arch.h"
#include "lwip/sys.h"
#include "net_percpu.h"

/*
 * lwIP's timeouts and TCP timers run off this. It reads the kernel clock
 * on every call rather than a cached tick: with NO_SYS a single
 * netif_poll() or sys_check_timeouts() can loop (with loopback, one
 * netif_poll keeps draining its queue), and it must see time move.
 */
u32_t sys_now(void)
{
	return (u32_t)clock_ms();
}

void net_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

/* A failed lwIP assertion is a bug in lwIP or our port: say where and keep
 * the system up (lwIP usually returns an error right after asserting). */
void net_assert_fail(const char *msg, const char *file, int line)
{
	kprintf("net: lwIP assertion \"%s\" failed at %s:%d\n", msg, file,
		line);
}

/* xorshift64*, seeded from the clock at first use: lwIP needs random
 * initial sequence numbers, ports and DHCP transaction ids, not crypto. */
uint32_t net_rand(void)
{
	static NET_PERCPU uint64_t state; /* each instance its own */
	uint32_t lo, hi;

	if (!state) {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		state = ((uint64_t)hi << 32 | lo) | 1;
	}
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return (uint32_t)((state * 0x2545f4914f6cdd1dull) >> 32);
}
