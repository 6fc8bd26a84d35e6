/*
 * The lwIP core lock: lwIP is not SMP-safe, so every call into it, from
 * any CPU, runs while that CPU holds its instance's lock: one lock for
 * every CPU in shared mode, one per instance with net_stack=percpu
 * (net_instance.h). net/core_lock.c has the design and the measurements
 * behind it. It also guards the instance's NIC TX queues (netdev.h's
 * "TX guard") and the memory glue's counters.
 *
 * Poll-context callers take it with net_core_trylock(): a CPU that finds
 * it busy keeps its work for its next round instead of spinning. Boot
 * code and rare callers take it with net_core_lock().
 */
#ifndef NET_CORE_LOCK_H
#define NET_CORE_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel/percpu.h"
#include "net_instance.h"

/**
 * net_core_trylock - take the lock if it is free.
 * Context: poll context or boot; never from an interrupt handler; not
 * when this CPU already holds it (the lock does not nest).
 * Return: true when this CPU now holds it; false (counted as "busy")
 * when another CPU does.
 */
bool net_core_trylock(void);

/**
 * net_core_trylock_or_sleep - net_core_trylock(), but when the lock is
 * busy this CPU is put on the waiters, and the holder wakes it
 * (poll_wake) when it lets go: the caller may let its CPU halt.
 * Context and return as net_core_trylock.
 */
bool net_core_trylock_or_sleep(void);

/**
 * net_core_lock - take the lock, spinning while another CPU holds it
 * (the wait is counted and timed). Same context as net_core_trylock.
 */
void net_core_lock(void);

/* net_core_unlock - release it; only by the CPU that holds it. */
void net_core_unlock(void);

struct netdev;
/*
 * net_core_tx_flush_later - dev's TX queue q has frames whose device
 * notification its driver leaves to tx_flush (drivers/netdev.h): call it
 * once, just before the lock is let go, however many frames were sent in
 * the hold. Under the lock.
 */
void net_core_tx_flush_later(struct netdev *dev, int q);

/* The CPU holding the calling CPU's instance's lock, -1 when free
 * (written by the holder). */
extern NET_PERCPU atomic_int net_core_owner;

/* net_core_held - does the calling CPU hold the lock? Any context. */
static inline bool net_core_held(void)
{
	return atomic_load_explicit(&net_core_owner, memory_order_relaxed) ==
	       this_cpu_id();
}

/* A call into lwIP without the lock: counted (core_lock.unlocked_calls in
 * /stats.json), the first one reported with @caller. */
void net_core_unlocked_call(const void *caller);

/**
 * NET_ASSERT_CORE_LOCKED - lwIP's LWIP_ASSERT_CORE_LOCKED() (lwipopts.h),
 * at lwIP's entry points: inline, two loads and a compare when the lock
 * is held (lwIP calls it several times per packet).
 */
#define NET_ASSERT_CORE_LOCKED()                                             \
	do {                                                                 \
		if (__builtin_expect(!net_core_held(), 0))                   \
			net_core_unlocked_call(__builtin_return_address(0)); \
	} while (0)

/* Acquisitions, trylock failures, waits and hold times, per CPU and in
 * total, as JSON, and its description (libc/stat_table.h). snprintf
 * semantics. Any context. */
int net_core_lock_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_core_lock_schema;

/* The lock's counters summed over the CPUs (the boot report of the net
 * self-test prints them). Any context; relaxed reads. */
struct net_core_lock_totals {
	uint64_t acquired, busy, waits, unlocked_calls;
	uint64_t shared;   /* of a lock shared between CPUs (core_lock.c) */
	int cpus_acquired; /* CPUs that took the lock at least once */
};
void net_core_lock_totals(struct net_core_lock_totals *out);

#endif /* NET_CORE_LOCK_H */
