/*
 * Stack instances: one lwIP for every CPU (net_stack=shared, the default)
 * or one per CPU that owns a NIC queue (net_stack=percpu).
 *
 * An instance is a TLS block (kernel/tls.h): lwIP's state is __thread
 * (LWIP_PERCPU), and so is the stack's own per-instance state below
 * (NET_PERCPU), the core lock included. A CPU is in the instance whose
 * block its FS base points at. In shared mode every CPU is on the one
 * shared block: one lwIP, one lock, as before. In per-CPU mode queue i's
 * CPU moves onto block i at its first poll round, and from then on its
 * packets, its lock and its lwIP are its own; a CPU without a queue
 * stays on block 0 (the shared block is instance 0's).
 *
 * Control paths (the shell's netstat and ping, starting the apps, the
 * address DHCP gives) reach another CPU's instance by entering it:
 * net_instance_enter() points the caller's FS base at that block and
 * takes that instance's lock, as its own CPU does for each batch. Those
 * acquisitions cross CPUs and are counted as such (core_lock.c); the
 * packet path never makes one. docs/percpu-stack.md has the whole map.
 *
 * The one rule of switching: a function that calls net_instance_enter()
 * or _leave() must not touch __thread data itself, only through calls
 * to functions that are not inlined into it. The compiler takes the
 * thread pointer (%fs:0, which taking a __thread variable's address
 * reads) for constant within a function, as it is for a thread, and may
 * load it once before the switch: both instances then got instance 0's
 * netif at boot, before this rule.
 */
#ifndef NET_NET_INSTANCE_H
#define NET_NET_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "net_percpu.h"

/* Most instances: one per queue pair of a NIC. */
#define NET_INSTANCES_MAX 16

/* The home CPU of the instance the caller is in; -1 in shared mode. */
extern NET_PERCPU int net_instance_home;

/* Whether there is a stack per CPU (net_instance_count of them): set by
 * net_instances_setup() at boot, read-only after. */
extern bool net_instance_percpu;

/**
 * net_instances_setup - per-CPU mode with @n instances (n >= 1): a TLS
 * block for each of CPUs 1..n-1 on its node, each marked with its home;
 * instance 0 is the shared block, CPU 0's.
 * Return: n, or 1 (shared mode kept, said why) when a block could not
 * be had. Context: boot, CPU 0, before lwIP starts.
 */
int net_instances_setup(int n);

/* net_instance_tp - the thread pointer of instance @i. */
uintptr_t net_instance_tp(int i);

/* net_instance_node - the NUMA node instance @i's TLS block is on; -1
 * for instance 0's, which is in the kernel image. */
int net_instance_node(int i);

/* net_instance_here - the index of the instance the caller is in. */
int net_instance_here(void);

/**
 * net_instance_move_in - the calling CPU moves onto its own instance's
 * block, when it has one (per-CPU mode, CPU < count); else nothing.
 * Context: its net poller, before its first round touches the stack.
 */
void net_instance_move_in(void);

/* net_tx_cpu - the CPU whose TX queue the caller sends on: the home of
 * its instance (whose lock guards that queue), or its own in shared
 * mode. */
static inline int net_tx_cpu(void)
{
	return net_instance_home >= 0 ? net_instance_home : this_cpu_id();
}

#endif /* NET_NET_INSTANCE_H */
