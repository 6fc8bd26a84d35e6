/*
 * A packet-like workload on the host library, to watch the allocators
 * over time (tools/mm-sample runs it with the sampler on; make plots
 * draws the result). Two simulated CPUs on two NUMA nodes, one thread
 * each, run NAPI-style rounds:
 *
 *   - RX: 32 buffers a round from napi_alloc_frag() (2 KiB, the 32 KiB
 *     block carved upward), each with a kmalloc()'d header of 64..1024
 *     bytes (slab churn), kept in flight in a ring of 512 packets; the
 *     oldest are freed, one in four by the other CPU (handed over through
 *     an ALF queue, as a TX completion on another CPU would be): remote
 *     frees for page_frag and the slab.
 *   - hold (phase 2): pages of order 0 (85%) and order 3 (15%) taken and
 *     replaced at random, up to 5000 live pages per CPU (~60% of its node): long-lived pages
 *     scattered through the zone, the way fragmentation builds.
 *   - release (phase 3): those pages freed in random order; RX goes on.
 *   - drain (phase 4): RX stops, every per-CPU cache is drained back to
 *     the buddy lists.
 *
 * Phases run for a fixed time (PHASE_MS each) and are marked in the
 * samples (mm_sample_mark), so the pictures show where each one starts.
 * Random choices come from a fixed seed per CPU, so the sequence of
 * operations is the same on every run; only their timing differs.
 *
 * Usage: packet_mix [phase_ms]     (default 300)
 */
#define _POSIX_C_SOURCE 200809L /* barriers, nanosleep under -std=c11 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mm.h"
#include "mm_host.h"

#define NODES	       2
#define NODE_BYTES     (64u << 20)
#define CPUS	       2
#define RX_BATCH       32
#define RX_INFLIGHT    512
#define RX_BUF	       2048
#define HOLD_MAX       5000
#define HOLD_PER_ROUND 8
#define HANDOFF_SLOTS  1024

enum phase { PH_RX, PH_HOLD, PH_RELEASE, PH_DRAIN, PH_DONE };
static const char *const phase_names[] = {"rx", "hold", "release", "drain"};

struct packet {
	void *data; /* napi_alloc_frag() */
	void *head; /* kmalloc() */
};

struct cpu_state {
	int cpu;
	uint64_t rng;
	struct packet ring[RX_INFLIGHT];
	unsigned int ring_head, ring_len;
	struct page *hold[HOLD_MAX];
	unsigned char hold_order[HOLD_MAX];
	unsigned int nr_hold;
	unsigned long rounds;
};

static struct cpu_state cpus[CPUS];
static struct alf_queue *handoff[CPUS]; /* packets for CPU i to free */
static _Atomic int phase;
static pthread_barrier_t barrier;

static uint32_t rnd(struct cpu_state *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return (uint32_t)(c->rng >> 16);
}

static void packet_free(struct packet *p)
{
	page_frag_free(p->data);
	kfree(p->head);
}

/* Free what the other CPU handed us. */
static void free_handed_over(struct cpu_state *c)
{
	void *objs[32];
	unsigned int n;

	while ((n = alf_mc_dequeue(handoff[c->cpu], objs, 32)) > 0)
		for (unsigned int i = 0; i < n; i++) {
			packet_free(objs[i]);
			free(objs[i]);
		}
}

/* Retire the oldest packet: freed here, or one in four by the peer. */
static void retire_oldest(struct cpu_state *c)
{
	struct packet *p = &c->ring[c->ring_head];

	c->ring_head = (c->ring_head + 1) % RX_INFLIGHT;
	c->ring_len--;
	if (rnd(c) % 4 == 0) {
		struct packet *copy = malloc(sizeof(*copy));

		if (copy) {
			*copy = *p;
			if (alf_mp_enqueue(handoff[(c->cpu + 1) % CPUS],
					   (void **)&copy, 1) == 1)
				return;
			free(copy);
		}
	}
	packet_free(p);
}

static void rx_round(struct cpu_state *c)
{
	for (int i = 0; i < RX_BATCH; i++) {
		struct packet p = {napi_alloc_frag(RX_BUF),
				   kmalloc(64 + rnd(c) % 961, GFP_ATOMIC)};

		if (!p.data || !p.head) {
			if (p.data)
				page_frag_free(p.data);
			kfree(p.head);
			continue;
		}
		if (c->ring_len == RX_INFLIGHT)
			retire_oldest(c);
		c->ring[(c->ring_head + c->ring_len) % RX_INFLIGHT] = p;
		c->ring_len++;
	}
	free_handed_over(c);
}

/* Replace a few held pages at random (phase 2). */
static void hold_round(struct cpu_state *c)
{
	for (int i = 0; i < HOLD_PER_ROUND; i++) {
		unsigned int order = rnd(c) % 100 < 85 ? 0 : 3;
		unsigned int slot = c->nr_hold < HOLD_MAX ? c->nr_hold++
							  : rnd(c) % HOLD_MAX;

		if (c->hold[slot])
			__free_pages(c->hold[slot], c->hold_order[slot]);
		c->hold[slot] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
		c->hold_order[slot] = (unsigned char)order;
	}
}

/* Free the held pages in random order, a few per round (phase 3). */
static void release_round(struct cpu_state *c)
{
	for (int i = 0; i < 4 * HOLD_PER_ROUND && c->nr_hold; i++) {
		unsigned int slot = rnd(c) % c->nr_hold;

		if (c->hold[slot])
			__free_pages(c->hold[slot], c->hold_order[slot]);
		c->nr_hold--;
		c->hold[slot] = c->hold[c->nr_hold];
		c->hold_order[slot] = c->hold_order[c->nr_hold];
		c->hold[c->nr_hold] = NULL;
	}
}

static void drain_cpu(struct cpu_state *c)
{
	while (c->ring_len)
		retire_oldest(c);
	release_round(c);
	while (c->nr_hold)
		release_round(c);
}

static void *cpu_main(void *arg)
{
	struct cpu_state *c = arg;
	int seen = PH_RX;

	if (mm_host_set_cpu(c->cpu))
		abort(); /* refused: the message says why */
	for (;;) {
		int ph = atomic_load(&phase);

		if (ph != seen) {
			if (ph == PH_DRAIN)
				drain_cpu(c);
			pthread_barrier_wait(&barrier); /* phase switched */
			pthread_barrier_wait(&barrier); /* main has marked */
			if (ph == PH_DONE)
				break;
			seen = ph;
		}
		if (ph == PH_DRAIN) {
			free_handed_over(c);
			continue;
		}
		rx_round(c);
		if (ph == PH_HOLD)
			hold_round(c);
		else if (ph == PH_RELEASE)
			release_round(c);
		c->rounds++;
	}
	free_handed_over(c);
	page_frag_percpu_drain(c->cpu);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&t, NULL);
}

/* Switch every CPU to phase ph and label the first sample of it. */
static void enter_phase(int ph)
{
	atomic_store(&phase, ph);
	pthread_barrier_wait(&barrier);
	if (ph == PH_DRAIN)
		drain_all_pages();
	if (ph < PH_DONE)
		mm_sample_mark(phase_names[ph]);
	pthread_barrier_wait(&barrier);
}

int main(int argc, char **argv)
{
	static const int cpu_node[CPUS] = {0, 1};
	long phase_ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
	pthread_t t[CPUS];

	if (phase_ms < 10 || phase_ms > 60000) {
		fprintf(stderr, "packet_mix: phase_ms %s: want 10..60000\n",
			argv[1]);
		return 2;
	}
	if (mm_host_boot(NODES, NODE_BYTES, CPUS, cpu_node))
		return 1;
	for (int i = 0; i < CPUS; i++) {
		handoff[i] = alf_queue_alloc(HANDOFF_SLOTS, GFP_KERNEL);
		if (!handoff[i])
			return 1;
	}
	pthread_barrier_init(&barrier, NULL, CPUS + 1);
	mm_sample_mark(phase_names[PH_RX]);
	for (int i = 0; i < CPUS; i++) {
		cpus[i] = (struct cpu_state){
			.cpu = i, .rng = 0x9e3779b97f4a7c15ull * (i + 1)};
		pthread_create(&t[i], NULL, cpu_main, &cpus[i]);
	}
	for (int ph = PH_HOLD; ph <= PH_DONE; ph++) {
		sleep_ms(phase_ms);
		enter_phase(ph);
	}
	for (int i = 0; i < CPUS; i++)
		pthread_join(t[i], NULL);
	drain_all_pages();
	mm_sample_mark("idle");
	printf("packet_mix: rounds cpu0=%lu cpu1=%lu\n", cpus[0].rounds,
	       cpus[1].rounds);
	for (int i = 0; i < CPUS; i++)
		alf_queue_free(handoff[i]);
	mm_host_shutdown();
	return 0;
}
