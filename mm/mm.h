/*
 * Umbrella header of the mm library: everything a program or the kernel
 * needs to use the allocators. Each allocator's own header documents it.
 */
#ifndef MM_MM_H
#define MM_MM_H

#include "alf_queue.h"
#include "debug.h"
#include "fault_inject.h"
#include "gfp.h"
#include "mm_stats.h"
#include "page_alloc.h"
#include "page_frag.h"
#include "platform.h"
#include "qmempool.h"
#include "slab.h"

#endif /* MM_MM_H */
