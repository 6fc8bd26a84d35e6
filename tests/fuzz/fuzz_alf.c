/*
 * Fuzz harness of the ALF queue against a model queue (a plain FIFO).
 *
 * The program (after the two machine bytes, fuzz_common.h): one opcode
 * byte, picked through ops[] below, then its arguments.
 *   CREATE k s f w     queue in slot k % 4 (if free): size 1 << (s % 15),
 *                      or a bad size (s >= 240: 0, 3, 1 << 17), flags
 *                      f % 4 (ALF_SP_ENQ | ALF_SC_DEQ; f & 4: an unknown
 *                      flag), made by w % 3: alf_queue_alloc_node on node
 *                      w / 3 % nodes, alf_queue_alloc (flags 0), or
 *                      alf_queue_init in memory of our own
 *   FREE k             alf_queue_free (whatever it still holds)
 *   ENQ k kind n       kind % 3: alf_mp_enqueue, alf_sp_enqueue,
 *                      __alf_sp_enqueue_one; n: 0..255 (n >= 192: up to
 *                      size + 2, to hit "exactly full" and "one too many")
 *   DEQ k kind n       kind % 3: alf_mc_dequeue, alf_sc_dequeue,
 *                      __alf_sc_dequeue_one
 *   INDEX k i          alf_queue_set_index to one of 2^32 - 1 - (i % 64),
 *                      i * 2^24 (near the 32-bit wrap, or anywhere)
 *   CPU c              this thread becomes CPU c % cpus
 *   DEBUG              mm_debug_set(!on)
 * The single-producer/consumer calls are made on any queue: on one thread
 * they must behave like the multi ones; on a queue created without the
 * flag, with debug checks on, each must also be reported (exactly once).
 *
 * The model: each queue's size and a FIFO of the values enqueued (each a
 * distinct non-NULL pointer-sized value). It checks enqueue is all or
 * nothing (n when n fits, else 0; 0 for n == 0), dequeue returns
 * min(n, count) values, oldest first, exactly the ones enqueued; count,
 * empty and avail_space after every call; set_index only on an empty
 * queue; bad sizes and flags refused; alloc_node's memory on its node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

enum { OP_CREATE, OP_FREE, OP_ENQ, OP_DEQ, OP_INDEX, OP_CPU, OP_DEBUG };

static const uint8_t ops[] = {
	OP_CREATE, OP_FREE, OP_ENQ, OP_ENQ,   OP_ENQ, OP_ENQ,	OP_DEQ,
	OP_DEQ,	   OP_DEQ,  OP_DEQ, OP_INDEX, OP_CPU, OP_DEBUG,
};

#define NR_SLOTS  4
#define MAX_BURST 512

struct mq {
	struct alf_queue *q;
	void *mem; /* our own memory, for alf_queue_init */
	uint32_t size;
	unsigned int flags;
	/* The model FIFO: a ring of values, head..tail. */
	uintptr_t *v;
	size_t head, count;
	uintptr_t next; /* the next value to enqueue */
};

static struct mq qs[NR_SLOTS];

static uint32_t decode_size(uint8_t s)
{
	static const uint32_t bad[3] = {0, 3, 1u << 17};

	return s >= 240 ? bad[s % 3] : 1u << (s % 15);
}

static void check_state(const struct mq *m)
{
	unsigned int count = alf_queue_count(m->q);

	FZ_CHECK(count == m->count, "queue of %u: count %u, model %zu", m->size,
		 count, m->count);
	FZ_CHECK(alf_queue_empty(m->q) == (m->count == 0),
		 "queue of %u: empty says %d with %zu in it", m->size,
		 alf_queue_empty(m->q), m->count);
	FZ_CHECK(alf_queue_avail_space(m->q) == m->size - m->count,
		 "queue of %u: avail_space %u, model %zu", m->size,
		 alf_queue_avail_space(m->q), m->size - m->count);
	FZ_CHECK(alf_queue_size(m->q) == m->size, "size %u, model %u",
		 alf_queue_size(m->q), m->size);
}

static void op_create(int k, uint32_t size, uint8_t f, uint8_t w)
{
	struct mq *m = &qs[k];
	int how = w % 3, nid = (w / 3) % fz_m.nodes;
	/* alf_queue_alloc makes a multi-producer, multi-consumer queue */
	unsigned int flags = how == 1 ? 0 : (f & 3) | (f & 4 ? 0x40 : 0);
	bool ok = size && !(size & (size - 1)) && size <= ALF_QUEUE_MAX_SIZE &&
		  !(flags & 0x40);

	if (m->q)
		return;
	if (how == 0) {
		m->q = alf_queue_alloc_node(size, flags,
					    __GFP_THISNODE | __GFP_NOWARN, nid);
	} else if (how == 1) {
		m->q = alf_queue_alloc(size, __GFP_NOWARN);
	} else if (alf_queue_bytes(size)) {
		if (posix_memalign(&m->mem, MM_CACHE_LINE,
				   alf_queue_bytes(size)))
			fz_fail("no host memory");
		if (alf_queue_init(m->mem, size, flags) == 0)
			m->q = m->mem;
	} else {
		FZ_CHECK(alf_queue_init(NULL, size, flags) == -1,
			 "alf_queue_init took size %u", size);
	}
	fz_ops++;
	fz_trace("create queue %d: size %u flags %#x by %s (node %d) = %p", k,
		 size, flags,
		 how == 0   ? "alloc_node"
		 : how == 1 ? "alloc"
			    : "init",
		 nid, (void *)m->q);
	if (!ok) {
		FZ_CHECK(!m->q, "bad size %u / flags %#x accepted", size,
			 flags);
		free(m->mem);
		m->mem = NULL;
		return;
	}
	if (!m->q) /* out of memory for the ring */
		return;
	if (how == 0)
		FZ_CHECK(fz_addr_node(m->q) == nid,
			 "alloc_node(node %d, THISNODE) ring on node %d", nid,
			 fz_addr_node(m->q));
	m->size = size;
	m->flags = flags;
	m->v = malloc(size * sizeof(*m->v));
	m->head = m->count = 0;
	m->next = 8;
	check_state(m);
}

static void op_free(int k)
{
	struct mq *m = &qs[k];

	alf_queue_free(m->q);
	fz_ops++;
	fz_trace("free queue %d", k);
	free(m->mem);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* Was this call an SP/SC one on a queue without the flag, with checks on
 * (then exactly one report is due)? */
static unsigned long misuse(const struct mq *m, int kind, unsigned int flag)
{
	return kind == 1 && !(m->flags & flag) && mm_debug_on();
}

static void op_enq(int k, int kind, unsigned int n)
{
	struct mq *m = &qs[k];
	void *in[MAX_BURST];
	unsigned long reports = mm_debug_total(),
		      due = misuse(m, kind, ALF_SP_ENQ);
	unsigned int got, want;

	if (kind == 2)
		n = 1;
	if (n > MAX_BURST)
		n = MAX_BURST;
	want = n && n <= m->size - m->count ? n : 0;
	for (unsigned int i = 0; i < n; i++)
		in[i] = (void *)(m->next + 8 * i);
	mm_debug_set_quiet(true);
	if (kind == 0)
		got = alf_mp_enqueue(m->q, in, n);
	else if (kind == 1)
		got = alf_sp_enqueue(m->q, in, n);
	else
		got = __alf_sp_enqueue_one(m->q, in[0]);
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("queue %d: %s(%u) = %u (held %zu of %u)", k,
		 kind == 0   ? "mp_enqueue"
		 : kind == 1 ? "sp_enqueue"
			     : "sp_enqueue_one",
		 n, got, m->count, m->size);
	FZ_CHECK(got == want,
		 "queue of %u holding %zu: enqueue of %u moved %u, "
		 "all or nothing says %u",
		 m->size, m->count, n, got, want);
	FZ_CHECK(mm_debug_total() == reports + due,
		 "enqueue kind %d on flags %#x: %lu reports, %lu due", kind,
		 m->flags, mm_debug_total() - reports, due);
	fz_expected_reports += due;
	for (unsigned int i = 0; i < got; i++)
		m->v[(m->head + m->count++) % m->size] = (uintptr_t)in[i];
	m->next += 8 * (uintptr_t)n;
	check_state(m);
}

static void op_deq(int k, int kind, unsigned int n)
{
	struct mq *m = &qs[k];
	void *out[MAX_BURST];
	unsigned long reports = mm_debug_total(),
		      due = misuse(m, kind, ALF_SC_DEQ);
	unsigned int got, want;

	if (kind == 2)
		n = 1;
	if (n > MAX_BURST)
		n = MAX_BURST;
	want = n < m->count ? n : (unsigned int)m->count;
	mm_debug_set_quiet(true);
	if (kind == 0) {
		got = alf_mc_dequeue(m->q, out, n);
	} else if (kind == 1) {
		got = alf_sc_dequeue(m->q, out, n);
	} else {
		out[0] = __alf_sc_dequeue_one(m->q);
		got = out[0] != NULL;
	}
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("queue %d: %s(%u) = %u (held %zu)", k,
		 kind == 0   ? "mc_dequeue"
		 : kind == 1 ? "sc_dequeue"
			     : "sc_dequeue_one",
		 n, got, m->count);
	FZ_CHECK(got == want, "queue holding %zu: dequeue of %u gave %u",
		 m->count, n, got);
	FZ_CHECK(mm_debug_total() == reports + due,
		 "dequeue kind %d on flags %#x: %lu reports, %lu due", kind,
		 m->flags, mm_debug_total() - reports, due);
	fz_expected_reports += due;
	for (unsigned int i = 0; i < got; i++) {
		uintptr_t v = m->v[m->head];

		FZ_CHECK((uintptr_t)out[i] == v,
			 "dequeue %u of %u: %#lx, FIFO order says %#lx", i, got,
			 (unsigned long)(uintptr_t)out[i], (unsigned long)v);
		m->head = (m->head + 1) % m->size;
		m->count--;
	}
	check_state(m);
}

static void op_index(int k, uint8_t i)
{
	struct mq *m = &qs[k];
	uint32_t index = i & 0x80 ? (uint32_t)i << 24 : 0xffffffffu - (i % 64);
	int r = alf_queue_set_index(m->q, index);

	fz_ops++;
	fz_trace("queue %d: set_index(%#x) = %d (held %zu)", k, index, r,
		 m->count);
	FZ_CHECK(r == (m->count ? -1 : 0),
		 "set_index on a queue holding %zu returned %d", m->count, r);
	check_state(m);
}

static int pick(uint8_t k)
{
	return qs[k % NR_SLOTS].q ? k % NR_SLOTS : -1;
}

/* n: small mostly; from 192 on, around the queue's size. */
static unsigned int decode_n(const struct mq *m, uint8_t b)
{
	return b < 192 ? b % 40 : m->size - 2 + b % 5;
}

static void run_op(struct fz_in *in)
{
	int op = fz_pick(in, ops, sizeof(ops)), k, kind;
	uint8_t a, b, c;

	switch (op) {
	case OP_CREATE:
		k = fz_u8(in) % NR_SLOTS;
		a = fz_u8(in);
		b = fz_u8(in);
		c = fz_u8(in);
		op_create(k, decode_size(a), b, c);
		break;
	case OP_FREE:
		k = pick(fz_u8(in));
		if (k >= 0)
			op_free(k);
		break;
	case OP_ENQ:
	case OP_DEQ:
		k = pick(fz_u8(in));
		kind = fz_u8(in) % 3;
		a = fz_u8(in);
		if (k >= 0 && op == OP_ENQ)
			op_enq(k, kind, decode_n(&qs[k], a));
		else if (k >= 0)
			op_deq(k, kind, decode_n(&qs[k], a));
		break;
	case OP_INDEX:
		k = pick(fz_u8(in));
		a = fz_u8(in);
		if (k >= 0)
			op_index(k, a);
		break;
	case OP_CPU:
		fz_set_cpu(fz_u8(in));
		break;
	case OP_DEBUG:
		mm_debug_set(!mm_debug_on());
		fz_trace("debug %s", mm_debug_on() ? "on" : "off");
		break;
	}
}

static unsigned long end(void)
{
	for (int k = 0; k < NR_SLOTS; k++)
		if (qs[k].q)
			op_free(k);
	return fz_shrink_kmalloc(); /* the rings were kmalloc'd */
}

static const struct fz_harness harness = {"fuzz_alf", 2, NULL, run_op, end};
FZ_HARNESS(harness)
