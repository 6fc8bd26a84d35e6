/*
 * Stack instances (see net_instance.h).
 *
 * The blocks: instance 0 is the shared block CPU 0 boots on, so its
 * state exists before the allocators do; instance i > 0 is a block
 * kmalloc'd on CPU i's node, a fresh copy of the TLS template (lwIP's
 * initial values, zeroed counters) with net_instance_home set to i.
 * Queue i's CPU is CPU i (drivers give queue i to CPU i), so instance,
 * queue and CPU share a number.
 *
 * Moving in: CPU i's FS base is a register of CPU i, so only CPU i can
 * point it at block i; its net poller does so before its first round
 * (net_poll.c). Everything CPU 0 set up in instance i at boot (lwIP's
 * init, the netifs, the listeners) it did by entering the block, which
 * is memory like any other.
 */
#include "net_instance.h"

#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/tls.h"
#include "mm/mm.h"
#include "net_handoff.h"

NET_PERCPU int net_instance_home = -1;
int net_instance_count = 1;
bool net_instance_percpu;

/* a hand-off ring for every instance there can be */
_Static_assert(NET_HANDOFF_MAX >= NET_INSTANCES_MAX, "net_handoff.h's bound");

static uintptr_t instance_tp[NET_INSTANCES_MAX];

int net_instances_setup(int n)
{
	if (n > NET_INSTANCES_MAX)
		n = NET_INSTANCES_MAX;
	instance_tp[0] = tls_shared_thread_pointer();
	for (int i = 1; i < n; i++) {
		instance_tp[i] = tls_block_new(cpus[i].node);
		if (!instance_tp[i]) {
			kprintf("net: net_stack=percpu: no memory for cpu "
				"%d's stack, one shared stack instead\n",
				i);
			return 1; /* the blocks made so far are never used */
		}
	}
	net_instance_count = n;
	net_instance_percpu = true; /* before NET_INSTANCE_VAR: its blocks */
	net_instance_home = 0;	    /* in the shared block: instance 0's */
	for (int i = 1; i < n; i++)
		*NET_INSTANCE_VAR(i, net_instance_home) = i;
	return n;
}

uintptr_t net_instance_tp(int i)
{
	return net_instance_percpu ? instance_tp[i]
				   : tls_shared_thread_pointer();
}

int net_instance_node(int i)
{
	if (!net_instance_percpu || i == 0)
		return -1;
	return page_to_nid(
		virt_to_head_page((const void *)tls_block_of(instance_tp[i])));
}

int net_instance_here(void)
{
	return net_instance_home > 0 ? net_instance_home : 0;
}

void net_instance_move_in(void)
{
	int cpu = this_cpu_id();

	if (!net_instance_percpu || cpu >= net_instance_count ||
	    tls_current() == instance_tp[cpu])
		return;
	tls_install(instance_tp[cpu]);
	cpus[cpu].tls_block = tls_block_of(instance_tp[cpu]);
}

void *net_instance_var(int i, const void *var)
{
	return (void *)(net_instance_tp(i) + ((uintptr_t)var - tls_current()));
}

void net_instance_sum_u64(void *out, const void *var, size_t bytes)
{
	uint64_t *sum = out;

	for (size_t k = 0; k < bytes / 8; k++)
		sum[k] = 0;
	for (int i = 0; i < net_instance_count; i++) {
		const uint64_t *v = net_instance_var(i, var);

		for (size_t k = 0; k < bytes / 8; k++)
			sum[k] += v[k];
	}
}
