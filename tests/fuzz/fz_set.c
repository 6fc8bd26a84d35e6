/*
 * The model's interval set (fuzz_common.h): a treap, a binary search tree
 * on each interval's start, heap-ordered on a pseudo-random priority, so
 * its expected depth is O(log n) whatever order the allocator hands out
 * addresses in. Nodes live in one array and link by index: growing the
 * array moves no link. Its own file so tests/fuzz/test_fz_set.c can check
 * it against a brute-force list without the rest of the model.
 */
#include <stdlib.h>

#include "fuzz_common.h"

/* Priorities from a fixed xorshift sequence: the same program builds the
 * same tree, so a run replays exactly. */
static uint32_t treap_prio(void)
{
	static uint32_t x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static uint32_t node_new(struct fz_set *s, uintptr_t lo, uintptr_t hi,
			 uint64_t id)
{
	uint32_t i;

	if (s->free) {
		i = s->free;
		s->free = s->t[i].left;
	} else {
		if (s->used == 0)
			s->used = 1; /* index 0 is the empty tree */
		if (s->used >= s->cap) {
			s->cap = s->cap ? 2 * s->cap : 256;
			s->t = realloc(s->t, s->cap * sizeof(*s->t));
			if (!s->t)
				fz_fail("out of host memory for the interval "
					"set");
		}
		i = s->used++;
	}
	s->t[i] = (struct fz_tnode){{lo, hi, id}, 0, 0, treap_prio()};
	return i;
}

/* The interval with the largest lo below addr (strictly), or 0. */
static uint32_t node_below(const struct fz_set *s, uintptr_t addr)
{
	uint32_t i = s->root, best = 0;

	while (i) {
		if (s->t[i].iv.lo < addr) {
			best = i;
			i = s->t[i].right;
		} else {
			i = s->t[i].left;
		}
	}
	return best;
}

/* The interval with the smallest lo at or above addr, or 0. */
static uint32_t node_at_or_above(const struct fz_set *s, uintptr_t addr)
{
	uint32_t i = s->root, best = 0;

	while (i) {
		if (s->t[i].iv.lo >= addr) {
			best = i;
			i = s->t[i].left;
		} else {
			i = s->t[i].right;
		}
	}
	return best;
}

/* The live interval overlapping [lo, lo + len), or 0. */
static uint32_t node_overlapping(const struct fz_set *s, uintptr_t lo,
				 size_t len)
{
	uint32_t above = node_at_or_above(s, lo), below = node_below(s, lo);

	if (above && s->t[above].iv.lo < lo + len)
		return above;
	if (below && s->t[below].iv.hi > lo)
		return below;
	return 0;
}

/* Insert node x under tree i; returns the new root of that subtree. An
 * interval of the same start as others (only an empty one can be) goes
 * before them, as it did in the sorted array. */
static uint32_t treap_insert(struct fz_set *s, uint32_t i, uint32_t x)
{
	struct fz_tnode *t;
	uint32_t c;

	if (!i)
		return x;
	t = s->t;
	if (t[x].iv.lo <= t[i].iv.lo) {
		c = treap_insert(s, t[i].left, x);
		t[i].left = c;
		if (t[c].prio > t[i].prio) { /* rotate right */
			t[i].left = t[c].right;
			t[c].right = i;
			return c;
		}
	} else {
		c = treap_insert(s, t[i].right, x);
		t[i].right = c;
		if (t[c].prio > t[i].prio) { /* rotate left */
			t[i].right = t[c].left;
			t[c].left = i;
			return c;
		}
	}
	return i;
}

/* Join two trees, every lo of a below every lo of b. */
static uint32_t treap_merge(struct fz_set *s, uint32_t a, uint32_t b)
{
	if (!a || !b)
		return a ? a : b;
	if (s->t[a].prio > s->t[b].prio) {
		s->t[a].right = treap_merge(s, s->t[a].right, b);
		return a;
	}
	s->t[b].left = treap_merge(s, a, s->t[b].left);
	return b;
}

/* Remove the first node of tree i starting at lo (*gone = its index, or
 * 0); the first, as the sorted array did, if several start there. */
static uint32_t treap_remove(struct fz_set *s, uint32_t i, uintptr_t lo,
			     uint32_t *gone)
{
	if (!i)
		return 0;
	if (lo <= s->t[i].iv.lo)
		s->t[i].left = treap_remove(s, s->t[i].left, lo, gone);
	if (*gone || lo < s->t[i].iv.lo)
		return i;
	if (lo > s->t[i].iv.lo) {
		s->t[i].right = treap_remove(s, s->t[i].right, lo, gone);
		return i;
	}
	*gone = i;
	return treap_merge(s, s->t[i].left, s->t[i].right);
}

bool fz_set_overlaps(const struct fz_set *s, uintptr_t lo, size_t len)
{
	return node_overlapping(s, lo, len) != 0;
}

bool fz_set_insert(struct fz_set *s, uintptr_t lo, size_t len, uint64_t id,
		   struct fz_ival *clash)
{
	uint32_t hit = node_overlapping(s, lo, len);

	if (hit) {
		*clash = s->t[hit].iv;
		return false;
	}
	s->root = treap_insert(s, s->root, node_new(s, lo, lo + len, id));
	s->n++;
	return true;
}

bool fz_set_remove(struct fz_set *s, uintptr_t lo)
{
	uint32_t gone = 0;

	s->root = treap_remove(s, s->root, lo, &gone);
	if (!gone)
		return false;
	s->t[gone].left = s->free;
	s->free = gone;
	s->n--;
	return true;
}

const struct fz_ival *fz_set_find(const struct fz_set *s, uintptr_t addr)
{
	uint32_t i = node_below(s, addr + 1);

	if (i && s->t[i].iv.lo <= addr && addr < s->t[i].iv.hi)
		return &s->t[i].iv;
	return NULL;
}

void fz_set_clear(struct fz_set *s)
{
	s->root = 0;
	s->free = 0;
	s->used = 0;
	s->n = 0;
}
