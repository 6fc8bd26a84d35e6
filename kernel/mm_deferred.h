/*
 * Deferred struct page initialisation in the kernel: the mm_deferred_init
 * key and the background pollers (mm/page_init.c does the work).
 */
#ifndef KERNEL_MM_DEFERRED_H
#define KERNEL_MM_DEFERRED_H

/* Boot CPU, before mm_init: how much mm_init initialises, from the key
 * (on: each node's first GiB; off: everything). */
void mm_deferred_setting(void);

/* Boot CPU, after mm_init: a poller on every CPU for the deferred rest,
 * which prints "mm: deferred struct pages done: ..." when all of it is on
 * the free lists. Nothing when nothing was deferred. */
void mm_deferred_start(void);

#endif
