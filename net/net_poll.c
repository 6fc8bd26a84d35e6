/*
 * The packet work of every CPU (see net_poll.h).
 *
 * Each NIC queue pair is polled by its own CPU only. A round:
 *
 *   1. outside any lock: the driver's rx_poll takes received frames into
 *      the queue's batch (at most NET_RX_BATCH) and refills the ring from
 *      this CPU's napi_alloc_frag() cache, so RX buffers are allocated on
 *      the receiving CPU's node and no other CPU touches the RX ring;
 *   2. if there is anything for lwIP (parked frames, TX completions that
 *      have waited long enough, due timers, the link check), try the lwIP
 *      core lock; if this CPU gets it, under it: TX completions (the pbufs
 *      go back), lwIP's ethernet_input() of the batch (whose answers go
 *      out on this CPU's own TX queue), sys_check_timeouts() when due,
 *      unlock.
 *
 * A busy lock costs a round only the try. With frames parked or
 * completions to reap, the CPU joins the lock's waiters and reports
 * NET_POLL_SLEEP, so its poll loop may halt; the holder wakes it when it
 * lets go (core_lock.c). The frames stay parked and the ring holds the
 * rest meanwhile. Spinning instead (retrying every round, then waiting on
 * the lock after 1 ms) was measured against this: docs/multiqueue.md,
 * "Spinning or sleeping on a busy lock".
 */
#include "net_poll.h"

#include <stdatomic.h>
#include <stdint.h>

#include "busy_poll.h"
#include "core_lock.h"
#include "drivers/netdev.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "lwip/timeouts.h"
#include "net_addr_pub.h"
#include "net_config.h"
#include "instance_enter.h"
#include "net_instance.h"
#include "netif_glue.h"
#include "libc/stat_table.h"

/* The link state is read from the device this often (it costs a device
 * register access; under QEMU an exit from translated code). */
#define NET_LINK_MS	   100
/* TX completions alone take the lock after this long or this many frames
 * in flight (see tx_reap_due); until then the next round with frames
 * reaps them. */
#define NET_TX_REAP_NS	   1000000u
#define NET_TX_REAP_FRAMES 32
/* Longest time between two looks at lwIP's timer list while packets flow
 * (see timers_run). */
#define NET_TIMER_CHECK_MS 10
/* A queue without an interrupt that lets its CPU sleep asks to be polled
 * again this soon (the periodic tick's period it used to wait for). */
#define NET_POLL_NOIRQ_NS  10000000u

struct net_queue {
	struct netif *nif;
	struct netdev *dev;
	int q, cpu;
	uint64_t link_due_ms;
	uint64_t waiting_since_ns; /* first busy try of this wait, 0: none */
	uint64_t tx_seen_ns; /* first round that saw completions, 0: none */
	/* counters, written by this queue's CPU only */
	uint64_t busy_rounds, busy_ns, work;
	uint64_t deferred;    /* rounds that found the lock busy with work */
	uint64_t wait_max_ns; /* longest such wait, first try to lock */
	/* sleeping on the interrupt (net_poll_run) */
	bool irq;		 /* the queue has one (net_irq=on, irq_setup) */
	bool armed;		 /* unmasked, waiting for it */
	uint64_t irqs_at_arm;	 /* the queue's interrupt count when armed */
	uint64_t last_work_ns;	 /* end of the last round with work */
	int round_rx;		 /* RX descriptors the last round took */
	struct busy_poll spin;	 /* the busy-poll window (busy_poll.h) */
	uint64_t arms;		 /* times the interrupt was unmasked */
	uint64_t arm_found_work; /* ... and the look after it found work */
	uint64_t wakeups;	 /* rounds with work right after an arm */
	uint64_t empty_polls;	 /* rounds that found nothing */
	bool polled;   /* its first round ran: its RX ring is filled */
	bool moved_in; /* its CPU is on its instance's TLS block */
	int dev_index; /* netdev_get(dev_index) == dev */
} __attribute__((aligned(64)));

static struct net_queue queues[NET_MAX_POLLED];
static int nqueues;

/* Queues whose first round ran, and when the first queue's did. The
 * addresses are announced once every queue has filled its ring
 * (net_poll_on_primed); a queue whose CPU never polls must not keep the
 * announcement back for good: after NET_PRIME_WAIT_NS the first queue
 * announces anyway and names the late ones. */
#define NET_PRIME_WAIT_NS 1000000000u
static atomic_int queues_polled;
static uint64_t first_polled_ns;
static atomic_bool primed_announced;
static void (*primed_fn)(void);

void net_poll_on_primed(void (*fn)(void))
{
	primed_fn = fn;
}

static void announce_primed(void)
{
	struct net_instance_saved saved;

	if (atomic_exchange(&primed_announced, true) || !primed_fn)
		return;
	net_instance_enter(0, &saved); /* the announcing instance */
	primed_fn();
	net_instance_leave(&saved);
}

/* After queue i's round: the announcement, once every ring is filled. */
static void note_polled(struct net_queue *nq, int i, uint64_t now)
{
	if (!nq->polled) {
		nq->polled = true;
		if (i == 0)
			first_polled_ns = now;
		if (atomic_fetch_add(&queues_polled, 1) + 1 == nqueues)
			announce_primed();
		return;
	}
	if (i != 0 || atomic_load(&primed_announced) ||
	    now - first_polled_ns < NET_PRIME_WAIT_NS)
		return;
	for (int k = 0; k < nqueues; k++)
		if (!queues[k].polled)
			kprintf("net: queue %d (cpu %d) has not polled in %u "
				"ms: "
				"announcing the address anyway\n",
				k, queues[k].cpu, NET_PRIME_WAIT_NS / 1000000u);
	announce_primed();
}
/* Milliseconds (clock_ms) at which the instance's lwIP timers are next
 * checked; 0 at boot: at once. */
static NET_PERCPU _Atomic uint64_t timers_due_ms;

void net_poll_add(struct netif *nif, int dev_index, int only_q)
{
	struct netdev *dev = nif->state;

	for (int q = 0; q < dev->nqueues && nqueues < NET_MAX_POLLED; q++) {
		struct net_queue *nq;

		if (only_q >= 0 && q != only_q)
			continue;
		nq = &queues[nqueues++];
		*nq = (struct net_queue){.nif = nif,
					 .dev = dev,
					 .dev_index = dev_index,
					 .q = q,
					 .cpu = dev->queues[q].cpu,
					 .irq = dev->queues[q].irq_mode &&
						dev->ops->irq_arm};
		busy_poll_init(&nq->spin, (uint64_t)net_config.poll_us * 1000u,
			       net_config.poll_adapt);
	}
}

static bool timers_due(uint64_t now_ms)
{
	return now_ms >=
	       atomic_load_explicit(&timers_due_ms, memory_order_relaxed);
}

/*
 * Under the lock: when the check is due, run lwIP's due timers and
 * publish when to look again: at lwIP's next deadline, but at most
 * NET_TIMER_CHECK_MS later, since a timeout lwIP adds meanwhile (say the
 * TCP timer, started when a connection becomes active) is only seen at the
 * next check. lwIP's timers tick at 250 ms and more; 10 ms is the idle
 * CPU's tick. Checking only then, not every round, keeps sys_now() and
 * the timer list off the per-packet path.
 */
static void timers_run(uint64_t now_ms)
{
	u32_t sleep;

	if (!timers_due(now_ms))
		return;
	sys_check_timeouts();
	sleep = sys_timeouts_sleeptime();
	if (sleep > NET_TIMER_CHECK_MS)
		sleep = NET_TIMER_CHECK_MS;
	atomic_store_explicit(&timers_due_ms, now_ms + sleep,
			      memory_order_relaxed);
}

/* Under the lock, after a round with traffic: the traffic may have added
 * a timeout (a TCP timer), which the published time, computed when the
 * queues went idle, does not know: look again within NET_TIMER_CHECK_MS. */
static void timers_soon(uint64_t now_ms)
{
	if (atomic_load_explicit(&timers_due_ms, memory_order_relaxed) >
	    now_ms + NET_TIMER_CHECK_MS)
		atomic_store_explicit(&timers_due_ms,
				      now_ms + NET_TIMER_CHECK_MS,
				      memory_order_relaxed);
}

/*
 * Idle (the first queue's CPU, about to sleep): when must lwIP's timers
 * run next? Read it from the timer list itself if the lock is free (the
 * published time is at most NET_TIMER_CHECK_MS ahead and would wake the
 * CPU at 100 Hz), and publish it. In ns, for poll_deadline().
 */
static uint64_t timers_deadline_ns(uint64_t now_ns)
{
	uint64_t now_ms = now_ns / 1000000u;

	if (net_core_trylock()) {
		u32_t sleep = sys_timeouts_sleeptime();

		if (sleep > TIMER_IDLE_MAX_MS)
			sleep = TIMER_IDLE_MAX_MS;
		atomic_store_explicit(&timers_due_ms, now_ms + sleep,
				      memory_order_relaxed);
		net_core_unlock();
	}
	return atomic_load_explicit(&timers_due_ms, memory_order_relaxed) *
	       1000000u;
}

/*
 * Are this queue's TX completions worth a lock of their own? Not at once:
 * the next round with frames takes the lock anyway and reaps them in the
 * same hold (NAPI cleans TX in the RX poll for the same reason), which
 * saved a whole locked round per echoed datagram. Only when they have
 * waited NET_TX_REAP_NS, or NET_TX_REAP_FRAMES are in flight, does the
 * queue's CPU take the lock for them alone.
 */
static bool tx_reap_due(struct net_queue *nq, uint64_t now_ns)
{
	if (!nq->dev->ops->tx_pending(nq->dev, nq->q)) {
		nq->tx_seen_ns = 0;
		return false;
	}
	if (!nq->tx_seen_ns)
		nq->tx_seen_ns = now_ns;
	return now_ns - nq->tx_seen_ns >= NET_TX_REAP_NS ||
	       nq->dev->queues[nq->q].stats.tx_inflight >= NET_TX_REAP_FRAMES;
}

/* The lock for work that must not wait: parked frames or due
 * completions. If it is busy, join its waiters and sleep (*sleep set):
 * the holder wakes this CPU when it lets go. */
static bool lock_or_sleep(struct net_queue *nq, uint64_t now_ns, bool *sleep)
{
	if (net_core_trylock_or_sleep()) {
		if (nq->waiting_since_ns &&
		    now_ns - nq->waiting_since_ns > nq->wait_max_ns)
			nq->wait_max_ns = now_ns - nq->waiting_since_ns;
		nq->waiting_since_ns = 0;
		return true;
	}
	nq->deferred++;
	if (!nq->waiting_since_ns)
		nq->waiting_since_ns = now_ns;
	*sleep = true;
	return false;
}

/* Under the lock: the queue's share of lwIP's work. */
static int locked_round(struct net_queue *nq, uint64_t now_ms)
{
	int work = netif_glue_input(nq->nif, nq->q);

	nq->tx_seen_ns = 0;	 /* netif_glue_input reaped them */
	if (net_instance_percpu) /* an address DHCP gave instance 0 */
		net_addr_sync(nq->nif, nq->dev_index);
	if ((nq->q == 0 || net_instance_percpu) && now_ms >= nq->link_due_ms) {
		nq->link_due_ms = now_ms + NET_LINK_MS;
		netif_glue_link(nq->nif);
	}
	timers_run(now_ms);
	if (work)
		timers_soon(now_ms);
	return work;
}

int net_poll_queue(int i)
{
	struct net_queue *nq = &queues[i];
	uint64_t t0 = clock_ns(), now_ms = t0 / 1000000u;
	/* per-CPU stacks: frames other instances handed to this one first */
	int handed = net_instance_percpu
			     ? netif_glue_take_handed(nq->nif, nq->q)
			     : 0;
	int work = netif_glue_rx_poll(nq->nif, nq->q) + handed;
	bool sleep = false, locked;

	nq->round_rx = work;

	/* A link-change interrupt woke us: look at the link now. */
	if (nq->q == 0 && nq->dev->ops->link_changed &&
	    nq->dev->ops->link_changed(nq->dev))
		nq->link_due_ms = 0;

	if (netif_glue_parked(nq->nif, nq->q) || tx_reap_due(nq, t0))
		locked = lock_or_sleep(nq, t0, &sleep);
	else if (timers_due(now_ms) || ((nq->q == 0 || net_instance_percpu) &&
					now_ms >= nq->link_due_ms))
		locked = net_core_trylock(); /* else: next round */
	else
		locked = false;
	if (locked) {
		work += locked_round(nq, now_ms);
		net_core_unlock();
	}
	if (work) {
		nq->busy_rounds++;
		nq->busy_ns += clock_ns() - t0;
		nq->work += (uint64_t)work;
	}
	if (sleep)
		return NET_POLL_SLEEP;
	return work + (netif_glue_parked(nq->nif, nq->q) > 0);
}

/*
 * Busy-poll while traffic flows, sleep when it stops. Without interrupts
 * (net_irq=off) a halted CPU notices a frame only at its next timer tick
 * (10 ms), so the queue reports work for NET_SPIN_NS after its last frame
 * (its CPU spins through a burst), then lets the CPU halt.
 */
#define NET_SPIN_NS 200000000u

/* An interrupt-driven queue's round found work: mask the interrupt again
 * unless its handler already did (it counts as it masks). */
static void irq_found_work(struct net_queue *nq)
{
	const struct netdev_stats *st = &nq->dev->queues[nq->q].stats;

	nq->armed = false;
	nq->wakeups++;
	if (*(const volatile uint64_t *)&st->interrupts == nq->irqs_at_arm)
		nq->dev->ops->irq_disarm(nq->dev, nq->q);
}

/*
 * NAPI. While rounds find work the queue is polled with its interrupt
 * masked. The first round that finds nothing after the busy-poll window
 * (busy_poll.h: poll_us= after the last received frame, or none while
 * spinning finds nothing) unmasks it and looks at the rings once more (irq_arm): work
 * found there means "poll again" (it may have come before the unmask, and
 * then no interrupt would announce it); none means the CPU may halt, and
 * any later completion raises the interrupt, whose handler masks it and
 * wakes this CPU.
 *
 * Why no wake-up is lost between the look and the halt: the handler runs
 * on this CPU and sets its wake flag (poll_wake); the poll loop reads and
 * clears that flag with interrupts disabled and halts with "sti; hlt",
 * which lets no interrupt in between (kernel/poll.c). So an interrupt
 * that comes after irq_arm's look either sets the flag before the check
 * (the loop runs another round) or ends the hlt itself.
 */
__attribute__((noinline)) int net_poll_run(int i)
{
	struct net_queue *nq = &queues[i];
	int work = net_poll_queue(i);
	uint64_t now = clock_ns();

	if (!atomic_load_explicit(&primed_announced, memory_order_relaxed))
		note_polled(nq, i, now);
	if (nq->round_rx)
		busy_poll_frames(&nq->spin, now);
	if (work == NET_POLL_SLEEP)
		return 0; /* the lock holder wakes us */
	if (work > 0) {
		if (nq->armed)
			irq_found_work(nq);
		nq->last_work_ns = now;
		return work;
	}
	nq->empty_polls++;
	if (!nq->irq) {
		if (now - nq->last_work_ns < NET_SPIN_NS)
			return 1;
		poll_deadline(now + NET_POLL_NOIRQ_NS);
		return 0;
	}
	if (busy_poll_spin(&nq->spin, now))
		return 1;
	/* Going to sleep: completions that wait for company (tx_reap_due)
	 * get none now; reap them in the next round rather than let them
	 * pin their buffers until traffic comes back. */
	if (nq->tx_seen_ns > 1 && nq->dev->ops->tx_pending(nq->dev, nq->q)) {
		nq->tx_seen_ns = 1; /* due at once */
		return 1;
	}
	/* The handler masked the interrupt and woke us, but the round found
	 * nothing (say a TX completion not yet due): arm it again. */
	if (nq->armed && *(const volatile uint64_t *)&nq->dev->queues[nq->q]
					 .stats.interrupts != nq->irqs_at_arm)
		nq->armed = false;
	if (!nq->armed) {
		nq->armed = true;
		nq->arms++;
		nq->irqs_at_arm = nq->dev->queues[nq->q].stats.interrupts;
		if (nq->dev->ops->irq_arm(nq->dev, nq->q)) {
			nq->arm_found_work++;
			return 1;
		}
	}
	/* The first queue's CPU wakes for lwIP's timers (with a stack per
	 * CPU, each CPU for its own); the others sleep until their
	 * interrupt. */
	if (i == 0 || net_instance_percpu)
		poll_deadline(timers_deadline_ns(now));
	return 0;
}

/* The first round moves the CPU onto its instance's TLS block (per-CPU
 * stacks); net_poll_run is not inlined here, so no thread pointer it
 * uses was read before the move (net_instance.h). */
static int poller(void *arg)
{
	struct net_queue *nq = &queues[(int)(intptr_t)arg];

	if (!nq->moved_in) {
		net_instance_move_in();
		nq->moved_in = true;
	}
	return net_poll_run((int)(intptr_t)arg);
}

void net_poll_start(void)
{
	for (int i = 0; i < nqueues; i++)
		if (poll_register(queues[i].cpu, poller, (void *)(intptr_t)i,
				  "net") != 0)
			kprintf("net: cannot register the poller of queue %d "
				"on cpu %d\n",
				i, queues[i].cpu);
}

/*
 * The "poll" object of /stats.json: the busy time of every queue summed
 * (poll_totals), and each queue's counters read from struct net_queue
 * itself (poll_queue_stats; written by the queue's CPU only).
 */
struct poll_totals {
	uint64_t busy_rounds, busy_ns, work, spin_rounds, spin_ns;
};
static const struct stat_desc poll_total_stats[] = {
	STAT_COUNTER_AT(struct poll_totals, busy_rounds, "events",
			"poll rounds that did work, all queues"),
	STAT_COUNTER_AT(struct poll_totals, busy_ns, "ns",
			"time in those rounds, all queues"),
	STAT_COUNTER_AT(struct poll_totals, work, "events",
			"frames and completions handled, all queues"),
	STAT_COUNTER_AT(struct poll_totals, spin_rounds, "events",
			"empty rounds spent busy-polling, all queues"),
	STAT_COUNTER_AT(struct poll_totals, spin_ns, "ns",
			"time spent busy-polling, all queues"),
};

static void put_dev_name(struct strbuf *sb, const void *src)
{
	stat_json_string(sb, ((const struct net_queue *)src)->dev->name);
}

#define QUEUE(n, f, k, u, l)   STAT_NAMED(n, struct net_queue, f, k, u, l)
#define QUEUE_COUNTER(f, u, l) QUEUE(#f, f, STAT_KIND_COUNTER, u, l)
static const struct stat_desc poll_queue_stats[] = {
	STAT_FN("dev", put_dev_name, STAT_KIND_INFO, NULL, "", "the device"),
	QUEUE("queue", q, STAT_KIND_INFO, "", "the queue pair's number"),
	QUEUE("cpu", cpu, STAT_KIND_INFO, "", "the CPU that polls it"),
	QUEUE_COUNTER(busy_rounds, "events", "poll rounds that did work"),
	QUEUE_COUNTER(busy_ns, "ns", "time in those rounds"),
	QUEUE_COUNTER(work, "events", "frames and completions handled"),
	QUEUE_COUNTER(deferred, "events",
		      "rounds that found the core lock busy with work"),
	QUEUE("wait_max_ns", wait_max_ns, STAT_KIND_GAUGE, "ns",
	      "longest such wait, from the first try"),
	QUEUE("irq", irq, STAT_KIND_INFO, "",
	      "the queue sleeps on an interrupt (net_irq=on)"),
	QUEUE("irq_arms", arms, STAT_KIND_COUNTER, "events",
	      "times the interrupt was unmasked"),
	QUEUE_COUNTER(arm_found_work, "events",
		      "... and the look after it found work"),
	QUEUE_COUNTER(wakeups, "events", "rounds with work right after an arm"),
	QUEUE_COUNTER(empty_polls, "events", "rounds that found nothing"),
	QUEUE("spin_window_ns", spin.window_ns, STAT_KIND_GAUGE, "ns",
	      "busy-poll window now: poll_us=, or 0 (stopped: sleep at once)"),
	QUEUE("spin_rounds", spin.spin_rounds, STAT_KIND_COUNTER, "events",
	      "empty rounds spent busy-polling"),
	QUEUE("spin_ns", spin.spin_ns, STAT_KIND_COUNTER, "ns",
	      "time spent busy-polling"),
	QUEUE("spin_hits", spin.hits, STAT_KIND_COUNTER, "events",
	      "frames found busy-polling (each earns a credit)"),
	QUEUE("spin_misses", spin.misses, STAT_KIND_COUNTER, "events",
	      "busy-polls that ran out with nothing (each costs a credit)"),
	QUEUE("short_sleeps", spin.short_sleeps, STAT_KIND_COUNTER, "events",
	      "frames after the window, within poll_us= (restart a stopped "
	      "queue)"),
	QUEUE("long_sleeps", spin.long_sleeps, STAT_KIND_COUNTER, "events",
	      "frames later than poll_us= after the last"),
};
static const struct stat_group poll_groups[] = {
	STAT_GROUP("", poll_total_stats),
	STAT_GROUP("queues[]", poll_queue_stats),
};
const struct stat_schema net_poll_schema = STAT_SCHEMA(poll_groups);

int net_poll_stats_json(char *buf, size_t size)
{
	struct poll_totals t = {0};
	struct strbuf sb;

	for (int i = 0; i < nqueues; i++) {
		t.busy_rounds += queues[i].busy_rounds;
		t.busy_ns += queues[i].busy_ns;
		t.work += queues[i].work;
		t.spin_rounds += queues[i].spin.spin_rounds;
		t.spin_ns += queues[i].spin.spin_ns;
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, poll_total_stats,
			  STAT_TABLE_LEN(poll_total_stats), &t);
	strbuf_printf(&sb, ",\"queues\":[");
	for (int i = 0; i < nqueues; i++) {
		strbuf_printf(&sb, "%s{", i ? "," : "");
		stat_json_members(&sb, poll_queue_stats,
				  STAT_TABLE_LEN(poll_queue_stats), &queues[i]);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "]}");
	return strbuf_done(&sb);
}
