/*
 * net/net_percpu.h for a build with no kernel under it (the host's unit
 * tests of net/ and apps/ code, linked into every host test, and
 * included by lwIP's unit-test main): one instance, and every __thread
 * variable is its own and only copy. The kernel has net/net_instance.c.
 */
#include <string.h>

#include "net/net_percpu.h"

int net_instance_count = 1;

void *net_instance_var(int i, const void *var)
{
	(void)i;
	return (void *)var;
}

void net_instance_sum_u64(void *out, const void *var, size_t bytes)
{
	memcpy(out, var, bytes);
}
