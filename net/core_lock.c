/*
 * The lwIP core lock (see core_lock.h), and its statistics.
 *
 * Why one lock. lwIP keeps its state (PCB lists, pools, timers, ARP
 * table, pbuf reference counts) in globals with no locking of its own;
 * NO_SYS=1 leaves serialisation to us. Each CPU polls its own NIC queue
 * pair outside any lock (RX reap and refill from its own napi_alloc_frag
 * cache), then takes this lock once per batch of up to 64 frames and
 * runs, under it, the TX completions, lwIP's input of the batch and the
 * timers when they are due. docs/multiqueue.md compares it with the other
 * shape, lwIP on one CPU fed through rings, and gives the measurements.
 *
 * Why trylock, and sleep. Poll-context callers never spin: a CPU that
 * finds the lock held keeps its batch (the ring holds what did not fit),
 * joins the waiters (one bit per CPU) and lets its poll loop halt; the
 * holder, at unlock, wakes every waiter (poll_wake: a flag, and an IPI to
 * a halted CPU) and they try again. On this project's usual host (QEMU
 * TCG, more vCPUs than host cores) a spinning vCPU steals the host core
 * the holder needs to finish, and a halted one gives it back: measured
 * with 4 queues on 4 vCPUs, sleeping instead of spinning (then waiting
 * after 1 ms) cut trylock failures 10-20 times, halved the mean hold and
 * the host CPU spent per frame, and raised every rate (docs/multiqueue.md).
 *
 * Statistics are per CPU, each CPU writing only its own cache line:
 * acquired, busy (trylock failures), waits and wait_ns (net_core_lock),
 * hold_ns and hold_max_ns (from acquisition to release). Hold times are
 * kept in TSC cycles (one rdtsc at each end, on the per-packet path) and
 * turned into nanoseconds only when printed.
 */
#include "core_lock.h"

#include <stdatomic.h>

#include "drivers/netdev.h"
#include "kernel/arch.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "libc/stat_table.h"
#include "net_instance.h"

/*
 * The lock and what it guards are per instance (NET_PERCPU, see
 * net_instance.h): with one shared instance, one lock for every CPU as
 * described above; with a stack per CPU, each instance's own, taken by
 * its home CPU for each batch and by another CPU only on a control path
 * (net_instance_enter). Such an acquisition, by a CPU other than the
 * instance's home (or any, in shared mode), is one of a lock shared
 * between CPUs: counted apart ("shared", "shared_hold_ns"), it is what
 * the serial fraction is measured from (tools/bench-serial).
 */
static NET_PERCPU spinlock_t core_lock = SPINLOCK_INIT;
/* The holder's CPU id, -1 when free: for net_core_held() and the assert. */
NET_PERCPU atomic_int net_core_owner = -1;
static NET_PERCPU uint64_t core_since_tsc; /* written by the holder only */
static NET_PERCPU bool core_hold_shared;   /* ... and so is this */
static atomic_ulong unlocked_calls;
/* CPUs that found the lock busy with frames waiting, and sleep until the
 * holder wakes them at unlock: one bit per CPU, 64 CPUs to a word. */
#define WAITER_WORDS ((MAX_CPUS + 63) / 64)
static NET_PERCPU atomic_ulong core_waiters[WAITER_WORDS];

struct core_lock_cpu {
	uint64_t acquired, busy, waits, wait_ns;
	uint64_t hold_tsc, hold_max_tsc;  /* cycles */
	uint64_t shared, shared_hold_tsc; /* of a lock shared between CPUs */
} __attribute__((aligned(64)));
static struct core_lock_cpu lock_stats[MAX_CPUS];

static void core_acquired(void)
{
	int cpu = this_cpu_id();

	atomic_store_explicit(&net_core_owner, cpu, memory_order_relaxed);
	core_since_tsc = rdtsc();
	lock_stats[cpu].acquired++;
	core_hold_shared = net_instance_home != cpu;
	if (core_hold_shared)
		lock_stats[cpu].shared++;
}

bool net_core_trylock(void)
{
	if (!spin_trylock(&core_lock)) {
		lock_stats[this_cpu_id()].busy++;
		return false;
	}
	core_acquired();
	return true;
}

bool net_core_trylock_or_sleep(void)
{
	atomic_ulong *word;
	unsigned long bit;

	if (spin_trylock(&core_lock)) {
		core_acquired();
		return true;
	}
	word = &core_waiters[this_cpu_id() / 64];
	bit = 1ul << (this_cpu_id() % 64);
	atomic_fetch_or(word, bit);
	/* The holder may have released it before seeing our bit: try again,
	 * so that a miss here is always followed by a wake-up. */
	if (spin_trylock(&core_lock)) {
		atomic_fetch_and(word, ~bit);
		core_acquired();
		return true;
	}
	lock_stats[this_cpu_id()].busy++;
	return false;
}

void net_core_lock(void)
{
	uint64_t t0;

	if (spin_trylock(&core_lock)) {
		core_acquired();
		return;
	}
	t0 = clock_ns();
	spin_lock(&core_lock);
	lock_stats[this_cpu_id()].waits++;
	lock_stats[this_cpu_id()].wait_ns += clock_ns() - t0;
	core_acquired();
}

/* TX queues to notify before the lock goes (net_core_tx_flush_later),
 * guarded by the lock itself. */
#define CORE_TX_FLUSH_MAX 16
static NET_PERCPU struct {
	struct netdev *dev;
	int q;
} tx_flush[CORE_TX_FLUSH_MAX];
static NET_PERCPU int ntx_flush;

static void tx_flush_all(void)
{
	for (int i = 0; i < ntx_flush; i++)
		tx_flush[i].dev->ops->tx_flush(tx_flush[i].dev, tx_flush[i].q);
	ntx_flush = 0;
}

void net_core_tx_flush_later(struct netdev *dev, int q)
{
	for (int i = 0; i < ntx_flush; i++)
		if (tx_flush[i].dev == dev && tx_flush[i].q == q)
			return;
	if (ntx_flush == CORE_TX_FLUSH_MAX)
		tx_flush_all();
	tx_flush[ntx_flush].dev = dev;
	tx_flush[ntx_flush].q = q;
	ntx_flush++;
}

/* Wakes the waiters of word i of core_waiters (CPUs 64 i to 64 i + 63). */
static void wake_waiters(int i)
{
	unsigned long w;

	if (!atomic_load_explicit(&core_waiters[i], memory_order_relaxed))
		return;
	w = atomic_exchange(&core_waiters[i], 0);
	while (w) {
		poll_wake(i * 64 + __builtin_ctzl(w));
		w &= w - 1;
	}
}

void net_core_unlock(void)
{
	struct core_lock_cpu *st = &lock_stats[this_cpu_id()];
	uint64_t held;

	tx_flush_all();
	held = rdtsc() - core_since_tsc;

	st->hold_tsc += held;
	if (core_hold_shared)
		st->shared_hold_tsc += held;
	if (held > st->hold_max_tsc)
		st->hold_max_tsc = held;
	atomic_store_explicit(&net_core_owner, -1, memory_order_relaxed);
	spin_unlock(&core_lock);
	/* Store (unlock) then load (waiters): x86 may let the load pass the
	 * store, so a CPU that joined the waiters and then found the lock
	 * still held would not be woken. The waiter's side is a locked
	 * fetch_or, a full barrier; this fence is the holder's. */
	atomic_thread_fence(memory_order_seq_cst);
	for (int i = 0; i < (nr_cpus + 63) / 64; i++)
		wake_waiters(i);
}

void net_core_unlocked_call(const void *caller)
{
	if (atomic_fetch_add(&unlocked_calls, 1) == 0)
		kprintf("net: lwIP called without the core lock on cpu %d "
			"from %p\n",
			this_cpu_id(), caller);
}

/* TSC cycles to nanoseconds, without overflow for long totals. */
static unsigned long long tsc_to_ns(uint64_t cycles)
{
	uint64_t hz = tsc_hz() ? tsc_hz() : 1;

	return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

/*
 * The "core_lock" object of /stats.json: the calls made without the lock,
 * then one lock_stats object for all CPUs ("total") and one per CPU
 * ("cpu": {"cpu0": ...}), its cycles turned into nanoseconds.
 */
struct lock_snap {
	uint64_t acquired, busy, waits, wait_ns;
	unsigned long long hold_ns, hold_max_ns;
	uint64_t shared;
	unsigned long long shared_hold_ns;
};
static const struct stat_desc lock_stats_desc[] = {
	STAT_COUNTER_AT(struct lock_snap, acquired, "events",
			"times the CPU took the lock"),
	STAT_COUNTER_AT(struct lock_snap, busy, "events",
			"tries that found it held (trylock failed)"),
	STAT_COUNTER_AT(struct lock_snap, waits, "events",
			"times the CPU waited for it"),
	STAT_COUNTER_AT(struct lock_snap, wait_ns, "ns", "time spent waiting"),
	STAT_COUNTER_AT(struct lock_snap, hold_ns, "ns", "time it was held"),
	STAT_GAUGE_AT(struct lock_snap, hold_max_ns, "ns", "longest hold"),
	STAT_COUNTER_AT(
		struct lock_snap, shared, "events",
		"acquisitions of a lock shared between CPUs: every one "
		"in shared mode, another CPU's instance in per-CPU mode"),
	STAT_COUNTER_AT(struct lock_snap, shared_hold_ns, "ns",
			"time such a lock was held"),
};
struct lock_calls {
	unsigned long unlocked_calls;
};
static const struct stat_desc lock_call_stats[] = {
	STAT_COUNTER_AT(struct lock_calls, unlocked_calls, "calls",
			"calls into lwIP without the lock (a bug if not 0)"),
};
static const struct stat_group lock_groups[] = {
	STAT_GROUP("", lock_call_stats),
	STAT_GROUP("total", lock_stats_desc),
	STAT_GROUP("cpu.*", lock_stats_desc),
};
const struct stat_schema net_core_lock_schema = STAT_SCHEMA(lock_groups);

static void lock_object(struct strbuf *sb, const struct core_lock_cpu *s)
{
	struct lock_snap o = {
		.acquired = s->acquired,
		.busy = s->busy,
		.waits = s->waits,
		.wait_ns = s->wait_ns,
		.hold_ns = tsc_to_ns(s->hold_tsc),
		.hold_max_ns = tsc_to_ns(s->hold_max_tsc),
		.shared = s->shared,
		.shared_hold_ns = tsc_to_ns(s->shared_hold_tsc),
	};

	strbuf_printf(sb, "{");
	stat_json_members(sb, lock_stats_desc, STAT_TABLE_LEN(lock_stats_desc),
			  &o);
	strbuf_printf(sb, "}");
}

void net_core_lock_totals(struct net_core_lock_totals *out)
{
	*out = (struct net_core_lock_totals){
		.unlocked_calls = atomic_load(&unlocked_calls)};
	for (int c = 0; c < nr_cpus; c++) {
		out->acquired += lock_stats[c].acquired;
		out->busy += lock_stats[c].busy;
		out->waits += lock_stats[c].waits;
		out->shared += lock_stats[c].shared;
		out->cpus_acquired += lock_stats[c].acquired > 0;
	}
}

int net_core_lock_stats_json(char *buf, size_t size)
{
	struct core_lock_cpu sum = {0};
	struct lock_calls calls = {atomic_load(&unlocked_calls)};
	struct strbuf sb;

	for (int c = 0; c < nr_cpus; c++) {
		const struct core_lock_cpu *s = &lock_stats[c];

		sum.acquired += s->acquired;
		sum.busy += s->busy;
		sum.waits += s->waits;
		sum.wait_ns += s->wait_ns;
		sum.hold_tsc += s->hold_tsc;
		sum.shared += s->shared;
		sum.shared_hold_tsc += s->shared_hold_tsc;
		if (s->hold_max_tsc > sum.hold_max_tsc)
			sum.hold_max_tsc = s->hold_max_tsc;
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, lock_call_stats, STAT_TABLE_LEN(lock_call_stats),
			  &calls);
	strbuf_printf(&sb, ",\"total\":");
	lock_object(&sb, &sum);
	strbuf_printf(&sb, ",\"cpu\":{");
	for (int c = 0; c < nr_cpus; c++) {
		strbuf_printf(&sb, "%s\"cpu%d\":", c ? "," : "", c);
		lock_object(&sb, &lock_stats[c]);
	}
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
