/*
 * The contended half of the seam's spinlock (mm_spin_lock in
 * mm/platform.h): test-and-test-and-set, spinning on a plain load so the
 * line is only read while another CPU holds it. Out of line: a lock taken
 * at once never reaches it, and the inline half stays a trylock.
 *
 * While the lock class traces, the wait is a span ("spin_wait") on the
 * waiting CPU, from its first failed try to the acquisition, named by
 * the lock's address and the function that waited: the lock waits of the
 * zone, node-list and kernel locks show on the CPU's timeline.
 */
#include "mm_trace.h"

TRACE_EVENT(ev_spin_wait, TRACE_LOCK, "spin_wait", {"lock", TRACE_HEX},
	    {"caller", TRACE_SYM});

void mm_spin_lock_wait(mm_spinlock_t *l)
{
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	mm_trace_begin(&ev_spin_wait, (uintptr_t)l, caller, 0, 0);
	while (!mm_spin_trylock(l)) {
		while (atomic_load_explicit(&l->locked, memory_order_relaxed))
			mm_cpu_relax();
	}
	mm_trace_end(&ev_spin_wait, (uintptr_t)l, caller, 0, 0);
}
