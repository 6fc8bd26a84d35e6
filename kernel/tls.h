/*
 * Thread-local storage for a kernel without threads: blocks of the
 * image's TLS template (its .tdata and .tbss), each reached through the
 * FS base, the way user programs reach theirs. What is declared
 * __thread (lwIP's state, through LWIP_PERCPU in net/arch/cc.h) has one
 * copy per block, and every access is one %fs-relative instruction
 * (the local-exec model, -ftls-model=local-exec).
 *
 * Every CPU starts on the one shared block (tls_init_cpu): the shared
 * stack, under its lock. With net_stack=percpu the network stack gives
 * each CPU that owns a NIC queue a block of its own, on its node
 * (tls_block_new; net/net_instance.c), and that CPU moves onto it.
 */
#ifndef KERNEL_TLS_H
#define KERNEL_TLS_H

#include <stddef.h>
#include <stdint.h>

/**
 * tls_block_size - bytes a TLS block takes (the template, aligned, and
 * the 8-byte self pointer at the thread pointer).
 */
size_t tls_block_size(void);

/**
 * tls_block_init - make @block (tls_block_size() bytes, 64-byte aligned)
 * a fresh copy of the template: .tdata's initial values, .tbss zeroed,
 * the self pointer set.
 * Return: the block's thread pointer, for tls_install().
 */
uintptr_t tls_block_init(void *block);

/**
 * tls_install - point the calling CPU's FS base at thread pointer @tp.
 */
void tls_install(uintptr_t tp);

/* tls_current - the calling CPU's thread pointer (the block's self
 * pointer, read through the FS base). */
uintptr_t tls_current(void);

/* tls_shared_thread_pointer - the shared block's thread pointer. */
uintptr_t tls_shared_thread_pointer(void);

/**
 * tls_block_new - a fresh block on NUMA node @node (kmalloc_node).
 * Return: its thread pointer, or 0 when memory ran out.
 */
uintptr_t tls_block_new(int node);

/* tls_block_of - the start of the block whose thread pointer is @tp. */
uintptr_t tls_block_of(uintptr_t tp);

/**
 * tls_init_cpu - give CPU @id its TLS: the shared block (set up by CPU
 * 0's call), checked by reading a variable of known initial value
 * through it.
 * Context: early boot on that CPU, before anything touches __thread data.
 */
void tls_init_cpu(int id);

#endif
