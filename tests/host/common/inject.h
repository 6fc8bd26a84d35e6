/*
 * Host tests under failure injection (make test-host-inject runs them with
 * MM_FAULT armed, see mm/fault_inject.h). A test calls these where it gets
 * NULL from an allocator: without injection a NULL is a failure of the
 * test; with it, a NULL is what an injected failure looks like, and the
 * test carries on with one object fewer. At the end the test checks that
 * every NULL it took was explained by an injected failure, and then its
 * usual checks (every page back, counters equal) hold all the same.
 */
#ifndef MM_TEST_INJECT_H
#define MM_TEST_INJECT_H

#include <stdbool.h>

/* Is any injection site armed (MM_FAULT at boot, or mm_fault_set)? */
bool mm_test_injecting(void);

/* Failures injected so far at every site together. */
unsigned long mm_test_injected(void);

/* An allocation returned NULL: true (counted) when injection is armed, so
 * the caller skips the object; false when the NULL is a real failure.
 * Any thread. */
bool mm_test_null_ok(void);

/* NULLs mm_test_null_ok() accepted since the last boot's check. */
unsigned long mm_test_nulls(void);

/*
 * mm_test_inject_check - once the test's work is done, before shutdown:
 * under injection there must have been injected failures, and no more
 * NULLs than injected failures (an injected page failure may be absorbed
 * by a fallback, so fewer is fine). Prints one line with the figures as
 * "NAME: injection: N injected, M NULLs taken", and starts the count of
 * NULLs again (the next boot's). Returns 0 when fine (also without
 * injection), 1 otherwise.
 */
int mm_test_inject_check(const char *name);

#endif /* MM_TEST_INJECT_H */
