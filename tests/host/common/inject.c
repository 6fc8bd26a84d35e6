/* Host tests under failure injection: see inject.h. */
#include "inject.h"

#include <stdatomic.h>
#include <stdio.h>

#include "mm.h"

static atomic_ulong nulls;

bool mm_test_injecting(void)
{
	return atomic_load(&mm_fault_armed) != 0;
}

unsigned long mm_test_injected(void)
{
	unsigned long n = 0;

	for (int s = 0; s < MM_FAULT_NR_SITES; s++)
		n += mm_fault_injected((enum mm_fault_site)s);
	return n;
}

bool mm_test_null_ok(void)
{
	if (!mm_test_injecting())
		return false;
	atomic_fetch_add(&nulls, 1);
	return true;
}

unsigned long mm_test_nulls(void)
{
	return atomic_load(&nulls);
}

int mm_test_inject_check(const char *name)
{
	unsigned long injected = mm_test_injected();
	unsigned long got = atomic_exchange(&nulls, 0);

	if (!mm_test_injecting())
		return got != 0;
	printf("%s: injection: %lu injected, %lu NULLs taken\n", name, injected,
	       got);
	if (injected == 0 || got > injected) {
		fprintf(stderr, "%s: %lu NULLs for %lu injected failures\n",
			name, got, injected);
		return 1;
	}
	return 0;
}
