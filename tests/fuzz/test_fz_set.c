/*
 * The fuzz model's interval set (fz_set.c, a treap) against a brute-force
 * list with the same rules, over random inserts, removes, finds and
 * overlap queries, empty intervals included. A treap that lost or
 * misplaced a node would let a harness miss two owners of one byte, so
 * the model itself is tested here (make test-fuzz runs it first).
 *
 * The rules: an insert of [lo, lo + len) is refused when a live interval
 * starts inside it or starts below lo and reaches past it; an interval of
 * the same start as live ones (only an empty one can be) goes before
 * them; find(addr) looks at the last interval starting at or below addr;
 * remove(lo) takes the first interval starting at lo.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define MAXN 4096

/* The brute-force list, in the order of the set: by start, and among
 * equal starts the newest first. */
static struct fz_ival ref[MAXN];
static size_t nref;

static int ref_overlap(uintptr_t lo, size_t len)
{
	for (size_t i = 0; i < nref; i++)
		if ((ref[i].lo >= lo && ref[i].lo < lo + len) ||
		    (ref[i].lo < lo && ref[i].hi > lo))
			return (int)i;
	return -1;
}

static void ref_insert(uintptr_t lo, size_t len, uint64_t id)
{
	size_t i = 0;

	while (i < nref && ref[i].lo < lo)
		i++;
	for (size_t j = nref; j > i; j--)
		ref[j] = ref[j - 1];
	ref[i] = (struct fz_ival){lo, lo + len, id};
	nref++;
}

static bool ref_remove(uintptr_t lo)
{
	for (size_t i = 0; i < nref; i++) {
		if (ref[i].lo != lo)
			continue;
		for (; i + 1 < nref; i++)
			ref[i] = ref[i + 1];
		nref--;
		return true;
	}
	return false;
}

static const struct fz_ival *ref_find(uintptr_t addr)
{
	const struct fz_ival *last = NULL;

	for (size_t i = 0; i < nref && ref[i].lo <= addr; i++)
		last = &ref[i];
	return last && addr < last->hi ? last : NULL;
}

#define EXPECT(cond, ...)                                                 \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "test_fz_set: step %ld: ", step); \
			fz_fail(__VA_ARGS__);                             \
		}                                                         \
	} while (0)

int main(void)
{
	struct fz_set s = {0};
	long step = 0, inserted = 0, removed = 0, refused = 0;

	srand(7);
	for (int round = 0; round < 4; round++) {
		fz_set_clear(&s);
		nref = 0;
		/* round 3: lengths 0-2, many empty intervals and ties */
		size_t maxlen = round == 3 ? 3 : 40;
		for (int it = 0; it < 25000; it++, step++) {
			uintptr_t lo = (uintptr_t)(rand() % 20000);
			size_t len = (size_t)rand() % maxlen;
			struct fz_ival clash;

			if (rand() % 3 < 2 && nref < MAXN) {
				int hit = ref_overlap(lo, len);
				bool ok;

				EXPECT(fz_set_overlaps(&s, lo, len) ==
					       (hit >= 0),
				       "overlaps(%lu, %zu)", (unsigned long)lo,
				       len);
				ok = fz_set_insert(&s, lo, len, (uint64_t)it,
						   &clash);
				EXPECT(ok == (hit < 0),
				       "insert(%lu, %zu) gave %d",
				       (unsigned long)lo, len, ok);
				if (ok) {
					ref_insert(lo, len, (uint64_t)it);
					inserted++;
				} else {
					EXPECT(clash.lo < lo + len ||
						       clash.hi > lo,
					       "clash [%lu, %lu) does not "
					       "overlap",
					       (unsigned long)clash.lo,
					       (unsigned long)clash.hi);
					refused++;
				}
			} else if (nref) {
				uintptr_t key =
					rand() % 4 ? ref[rand() % nref].lo : lo;
				bool want = ref_remove(key);

				EXPECT(fz_set_remove(&s, key) == want,
				       "remove(%lu)", (unsigned long)key);
				removed += want;
			}
			uintptr_t addr = (uintptr_t)(rand() % 20100);
			const struct fz_ival *got = fz_set_find(&s, addr);
			const struct fz_ival *want = ref_find(addr);

			EXPECT(!got == !want && (!got || (got->lo == want->lo &&
							  got->hi == want->hi &&
							  got->id == want->id)),
			       "find(%lu)", (unsigned long)addr);
			EXPECT(s.n == nref, "%zu in the set, %zu in the list",
			       s.n, nref);
		}
	}
	free(s.t);
	printf("test_fz_set: %ld steps (%ld inserted, %ld refused, %ld "
	       "removed), the treap agreed with the list\n",
	       step, inserted, refused, removed);
	return 0;
}
