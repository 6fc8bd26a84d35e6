/*
 * The log ring (kernel/log_ring.h): a byte array indexed by position mod
 * LOG_RING_SIZE, and two counters. head is what readers may read; before
 * a write touches the array, reserved says how far it will reach. A
 * reader copies, then looks at reserved: if a write in flight (or done
 * since) reached the slots it copied, the copy is stale and it tries
 * again from further on. The writer never waits, as a seqlock's.
 */
#include "kernel/log_ring.h"
#include <stdatomic.h>

static volatile char ring[LOG_RING_SIZE];
static _Atomic uint64_t head;	  /* bytes readable */
static _Atomic uint64_t reserved; /* bytes written or being written */
static void (*_Atomic notifier)(void);

void log_ring_append(const char *s, size_t n)
{
	uint64_t h = atomic_load_explicit(&head, memory_order_relaxed);
	void (*fn)(void);

	if (n > LOG_RING_SIZE / 2) { /* keep a reader's retry simple */
		s += n - LOG_RING_SIZE / 2;
		n = LOG_RING_SIZE / 2;
	}
	atomic_store_explicit(&reserved, h + n, memory_order_relaxed);
	atomic_thread_fence(memory_order_release); /* reserved, then bytes */
	for (size_t i = 0; i < n; i++)
		ring[(h + i) % LOG_RING_SIZE] = s[i];
	atomic_store_explicit(&head, h + n, memory_order_release);
	fn = atomic_load(&notifier);
	if (fn)
		fn();
}

void log_ring_set_notifier(void (*fn)(void))
{
	atomic_store(&notifier, fn);
}

uint64_t log_ring_head(void)
{
	return atomic_load_explicit(&head, memory_order_acquire);
}

size_t log_ring_read(uint64_t *pos, char *buf, size_t n, uint64_t *lost)
{
	uint64_t p = *pos;

	*lost = 0;
	for (;;) {
		uint64_t h = atomic_load_explicit(&head, memory_order_acquire);
		uint64_t k, r;

		if (h - p > LOG_RING_SIZE) { /* overwritten: skip ahead */
			*lost += h - LOG_RING_SIZE - p;
			p = h - LOG_RING_SIZE;
		}
		k = h - p < n ? h - p : n;
		for (uint64_t i = 0; i < k; i++)
			buf[i] = ring[(p + i) % LOG_RING_SIZE];
		atomic_thread_fence(memory_order_acquire); /* bytes, then */
		r = atomic_load_explicit(&reserved, memory_order_relaxed);
		if (r > LOG_RING_SIZE && p < r - LOG_RING_SIZE) {
			/* a write reached what was copied: from the oldest
			 * byte no write can reach */
			*lost += r - LOG_RING_SIZE - p;
			p = r - LOG_RING_SIZE;
			continue;
		}
		*pos = p + k;
		return (size_t)k;
	}
}
