/*
 * What the page_frag stress tests (stress_page_frag.c,
 * stress_page_frag_batch.c) share: a stamped fragment, the single-producer
 * single-consumer ring that carries it from the CPU that allocated it to
 * the CPU that frees it, the xorshift generator both draw from, and the
 * check of the stamp before the free.
 *
 * FRAG_RING_SLOTS (default 256) may be defined before including this.
 */
#ifndef MM_TEST_FRAG_RING_H
#define MM_TEST_FRAG_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mm.h"

#ifndef FRAG_RING_SLOTS
#define FRAG_RING_SLOTS 256
#endif

struct item {
	unsigned char *va;
	unsigned int len;
	unsigned char stamp; /* every byte of the fragment */
};

/* Single producer, single consumer. */
struct ring {
	_Atomic unsigned long head __attribute__((aligned(64)));
	_Atomic unsigned long tail __attribute__((aligned(64)));
	struct item slot[FRAG_RING_SLOTS];
};

static inline bool ring_push(struct ring *r, struct item it)
{
	unsigned long h = atomic_load_explicit(&r->head, memory_order_relaxed);

	if (h - atomic_load_explicit(&r->tail, memory_order_acquire) ==
	    FRAG_RING_SLOTS)
		return false;
	r->slot[h % FRAG_RING_SLOTS] = it;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

static inline bool ring_pop(struct ring *r, struct item *it)
{
	unsigned long t = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (t == atomic_load_explicit(&r->head, memory_order_acquire))
		return false;
	*it = r->slot[t % FRAG_RING_SLOTS];
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

static inline uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Check the stamp, then page_frag_free(); false (said on stderr) when a
 * byte changed: two live fragments overlapped. */
static inline bool item_check_and_free(struct item it)
{
	bool ok = true;

	for (unsigned int i = 0; i < it.len; i++) {
		if (it.va[i] != it.stamp) {
			fprintf(stderr, "stamp changed at %p+%u\n",
				(void *)it.va, i);
			ok = false;
			break;
		}
	}
	page_frag_free(it.va);
	return ok;
}

#endif /* MM_TEST_FRAG_RING_H */
