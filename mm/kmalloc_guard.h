/*
 * Red zones of kmalloc's large blocks in debug builds: see
 * mm/kmalloc_guard.c. Internal to mm/kmalloc.c.
 */
#ifndef MM_KMALLOC_GUARD_H
#define MM_KMALLOC_GUARD_H

#include <stddef.h>

#include "page.h"

/* The front guard: one page, so the pointer stays page-aligned. */
#define KMALLOC_GUARD_FRONT MM_PAGE_SIZE

/* kmalloc_guarded_bytes - bytes a guarded block of @size needs. */
size_t kmalloc_guarded_bytes(size_t size);

/*
 * kmalloc_guard_block - fill the guards of the block of 2^order pages at
 * @page (just allocated) around @size bytes, record @size in the head
 * page; returns the pointer to hand out.
 */
void *kmalloc_guard_block(struct page *page, size_t size, unsigned int order);

/* kmalloc_is_guarded - is the allocated large block at @page guarded? */
static inline bool kmalloc_is_guarded(const struct page *page)
{
	return page->private != 0;
}

/* kmalloc_guarded_size - the size asked for of a guarded block. */
static inline size_t kmalloc_guarded_size(const struct page *page)
{
	return page->private;
}

/*
 * kmalloc_guard_check - on kfree of the guarded block at @page (@obj the
 * pointer handed out): report a written guard (MM_DBG_RED_ZONE, with
 * @caller: kfree's caller) and forget the size. The block is freed
 * either way: its owner is done with it.
 */
void kmalloc_guard_check(struct page *page, const void *obj, void *caller);

#endif /* MM_KMALLOC_GUARD_H */
