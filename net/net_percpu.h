/*
 * The storage class of the stack's per-instance state, and how a reader
 * reaches another instance's copy (net_instance.h has the design). Apart
 * from net_instance.h so that files built on the host too (net_mem.c,
 * under lwIP's unit tests) need nothing of the kernel: there, one
 * instance, and every variable is its own copy.
 */
#ifndef NET_NET_PERCPU_H
#define NET_NET_PERCPU_H

#include <stdbool.h>
#include <stddef.h>

/* The storage class of the stack's own per-instance state. */
#define NET_PERCPU __thread

/* The number of instances (1 in shared mode): set at boot, read-only
 * after. */
extern int net_instance_count;

/**
 * net_instance_var - where __thread variable @var (its address as the
 * caller sees it) lives in instance @i's block. For readers of another
 * instance's counters; the owner may be writing them (relaxed reads).
 */
void *net_instance_var(int i, const void *var);
#define NET_INSTANCE_VAR(i, var) \
	((__typeof__(&(var)))net_instance_var((i), &(var)))

/**
 * net_instance_sum_u64 - @out (@bytes, a whole number of 64-bit
 * counters) = the sum over the instances of __thread object @var.
 */
void net_instance_sum_u64(void *out, const void *var, size_t bytes);

#endif /* NET_NET_PERCPU_H */
