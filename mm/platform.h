/*
 * The mm platform seam: the only window mm/ has onto the machine.
 *
 * Every file in mm/ compiles in two worlds. In the kernel, CPUs are real,
 * "physical memory" is identity-mapped RAM and interrupts exist. On a Linux
 * host, each simulated NUMA node is one mmap'd region and each pthread says
 * which simulated CPU it is. This header is the contract; each world supplies
 * <mm_port.h> (kernel/mm_port/mm_port.h, mm/host/mm_port.h) with the inline
 * fast-path pieces (current CPU, interrupt guard, relax hint) and a C file
 * with the rest (kernel/mm_port/platform.c, mm/host/platform.c). Nothing else in mm/ may tell the two worlds apart.
 *
 * Addresses: in both worlds a page's address is the address the allocator
 * hands out, and pfn = address >> MM_PAGE_SHIFT. The kernel identity-maps RAM
 * so that is also the physical (DMA) address; on the host it is simply the
 * mmap'd address.
 */
#ifndef MM_PLATFORM_H
#define MM_PLATFORM_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MM_PAGE_SHIFT 12
#define MM_PAGE_SIZE  (1UL << MM_PAGE_SHIFT)
#define MM_CACHE_LINE 64
#define MM_MAX_CPUS   256 /* kernel/config.h MAX_CPUS says what it costs */
#define MM_MAX_NODES  (MM_MAX_NODE_ID + 1)
#define MM_MAX_RANGES 64

/* NUMA nodes have ids 0..MM_MAX_NODE_ID: 16 nodes cover today's servers
 * (two to eight sockets, some split into sub-NUMA clusters); every
 * per-node array in mm/ is sized by MM_MAX_NODES. Boot keys that take a
 * node id print their range from this number, so the two never differ. */
#define MM_MAX_NODE_ID 15

#define mm_likely(x)	       __builtin_expect(!!(x), 1)
#define mm_unlikely(x)	       __builtin_expect(!!(x), 0)
#define __mm_cacheline_aligned __attribute__((aligned(MM_CACHE_LINE)))
/*
 * mm_hide_ptr - make p opaque to the optimiser (Linux's OPTIMIZER_HIDE_VAR;
 * no instruction). For a per-CPU pointer &array[cpu] whose fields are
 * atomics: without it GCC addresses each field as array + cpu * size +
 * offset, which its atomic accesses take only as a separate lea each
 * (6 of page_frag_free's 27 instructions, objdump); with it each field is
 * one offset from the pointer.
 */
#define mm_hide_ptr(p)	       __asm__("" : "+r"(p))

/* One block of usable memory, [start, end), owned by NUMA node nid. */
struct mm_range {
	uintptr_t start;
	uintptr_t end;
	int nid;
};

/*
 * Provided by each world (C file). Topology is fixed once mm_init() runs.
 */
int mm_nr_cpus(void);
int mm_nr_nodes(void);
int mm_cpu_to_node(int cpu);
/* SLIT-style distance: 10 for a node to itself, larger is farther. */
int mm_node_distance(int from, int to);
/* Fills out[] with the usable ranges handed to the buddy allocator at boot;
 * returns how many. Reserved memory (kernel image, boot data, ACPI tables,
 * the first MiB) is never in this list. */
int mm_platform_ranges(struct mm_range *out, int max);
/* Console/stderr output for reports (debug detections, warnings). */
void mm_vprintf(const char *fmt, va_list ap);
int mm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap);
/*
 * mm_symbolize - a code address as text for a report: "function+0xoff"
 * where the world has a symbol table (the kernel's ksyms), else the
 * address in hex. Writes at most @len bytes (NUL-terminated) to @buf and
 * returns @buf. Any context: no locks, no allocation.
 */
const char *mm_symbolize(const void *addr, char *buf, size_t len);
/*
 * mm_trace_emit - record one event of an mm/ trace point (mm/mm_trace.h):
 * the description ev (libc/trace_event.h), its phase (enum trace_phase)
 * and values. Called only while ev's class records, so it is never on a
 * path that runs with tracing off. The kernel records it in this CPU's
 * trace buffer (kernel/trace.h); the host hands it to the test that
 * asked (mm_host_trace_hook). Any context: no locks, no allocation.
 */
struct trace_desc;
void mm_trace_emit(const struct trace_desc *ev, int phase, uint64_t a,
		   uint64_t b, uint64_t c, uint32_t d);

/*
 * Provided by each world inline in <mm_port.h>:
 *   static inline int mm_this_cpu(void);       id of the CPU running now,
 *	always 0..mm_nr_cpus()-1: every allocator sizes and indexes its
 *	per-CPU arrays by it (the kernel numbers the CPUs it started; the
 *	host's mm_host_set_cpu refuses any other number)
 *   static inline unsigned long mm_irq_save(void);
 *   static inline void mm_irq_restore(unsigned long flags);
 *   static inline void mm_cpu_relax(void);     spin-wait hint
 *   static inline void mm_cpu_counter_add(atomic_ulong *c, unsigned long n);
 *	add n to a per-CPU counter that only this CPU writes, in one step
 *	an interrupt on this CPU cannot split (a handler may count on the
 *	same counter), without a locked instruction; other CPUs only read
 *	it, with relaxed loads. Linux's this_cpu_add().
 */
#include <mm_port.h>

static inline int mm_this_node(void)
{
	return mm_cpu_to_node(mm_this_cpu());
}

__attribute__((format(printf, 1, 2))) static inline void
mm_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mm_vprintf(fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4))) static inline int
mm_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = mm_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/*
 * Spinlock, the same in both worlds: test-and-test-and-set on a C11 atomic.
 * Callers that can race with interrupt handlers take it with interrupts
 * masked (mm_spin_lock_irqsave).
 */
typedef struct {
	atomic_uint locked;
} mm_spinlock_t;

#define MM_SPINLOCK_INIT \
	{                \
		0        \
	}

static inline void mm_spin_init(mm_spinlock_t *l)
{
	atomic_init(&l->locked, 0);
}

static inline bool mm_spin_trylock(mm_spinlock_t *l)
{
	return atomic_load_explicit(&l->locked, memory_order_relaxed) == 0 &&
	       atomic_exchange_explicit(&l->locked, 1, memory_order_acquire) ==
		       0;
}

/*
 * mm_spin_trylock_once - one exchange, no look first: for a lock that is
 * free nearly every time (a CPU's own per-CPU list), where the
 * test-and-test-and-set load of mm_spin_trylock() is an extra instruction
 * on every call and saves nothing.
 */
static inline bool mm_spin_trylock_once(mm_spinlock_t *l)
{
	return atomic_exchange_explicit(&l->locked, 1, memory_order_acquire) ==
	       0;
}

/*
 * mm_spin_lock_wait - the contended half of mm_spin_lock, out of line
 * (mm/spin_wait.c): spin until the lock is ours, and record the wait as
 * a span of the lock class while it traces (the lock's address and the
 * caller that waited).
 */
void mm_spin_lock_wait(mm_spinlock_t *l);

static inline void mm_spin_lock(mm_spinlock_t *l)
{
	if (mm_likely(mm_spin_trylock(l)))
		return;
	mm_spin_lock_wait(l);
}

static inline void mm_spin_unlock(mm_spinlock_t *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

static inline unsigned long mm_spin_lock_irqsave(mm_spinlock_t *l)
{
	unsigned long flags = mm_irq_save();
	mm_spin_lock(l);
	return flags;
}

static inline void mm_spin_unlock_irqrestore(mm_spinlock_t *l,
					     unsigned long flags)
{
	mm_spin_unlock(l);
	mm_irq_restore(flags);
}

#endif /* MM_PLATFORM_H */
