/*
 * Kernel spinlocks: the mm seam's lock (mm/platform.h), so the kernel and
 * the allocators share one proven implementation. Take the _irqsave form
 * when an interrupt handler on the same CPU may take the same lock.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "mm/platform.h"

typedef mm_spinlock_t spinlock_t;
#define SPINLOCK_INIT		     MM_SPINLOCK_INIT
#define spin_init(l)		     mm_spin_init(l)
#define spin_lock(l)		     mm_spin_lock(l)
#define spin_trylock(l)		     mm_spin_trylock(l)
#define spin_unlock(l)		     mm_spin_unlock(l)
#define spin_lock_irqsave(l)	     mm_spin_lock_irqsave(l)
#define spin_unlock_irqrestore(l, f) mm_spin_unlock_irqrestore(l, f)

#endif
