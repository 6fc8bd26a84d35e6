/*
 * The profiler's sampling half: sessions, and the sample every timer tick
 * takes of the code it interrupted.
 *
 * Each CPU samples itself from its own LAPIC timer interrupt into its own
 * buffer (kernel/profile_internal.h), so the interrupt path takes no lock
 * and touches no other CPU's cache lines. A buffer fills and then drops
 * (counted): a report never races the writer for a slot, and what was
 * sampled stays readable until the next session.
 *
 * A sample is the interrupted PC plus a frame-pointer walk (the kernel is
 * built with -fno-omit-frame-pointer): each frame pointer must lie inside
 * this CPU's stack, above the previous one, and each return address
 * inside the kernel's text, so a corrupt or foreign rbp ends the walk and
 * never faults. The walk is bounded by PROFILE_FRAMES.
 *
 * What this cannot see: code that runs with interrupts masked (interrupt
 * handlers, irq_save sections, spinlock_irqsave) takes the tick only when
 * it unmasks, so its time lands on the instruction after the unmask.
 * Ticks that find the CPU halted in the idle loop are counted apart
 * ("idle"), not stored.
 */
#include "kernel/profile.h"
#include "kernel/apic.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/profile_internal.h"
#include "kernel/spinlock.h"
#include "kernel/trap_frame.h"
#include "kernel/vector.h"
#include "mm/mm.h"

extern char __kernel_start[], __text_end[];
extern char boot_stack[], boot_stack_top[];

struct profile_cpu profile_cpus[MAX_CPUS];
unsigned int profile_capacity;
atomic_uint profile_session;
atomic_uint profile_hz;
unsigned int profile_rate;
spinlock_t profile_lock = SPINLOCK_INIT;
unsigned long profile_alloc_failures;

CMDLINE_KEY(kernel, profile, "0", cmdline_valid_choice, "0|1",
	    "sample every CPU from its timer from the end of the boot "
	    "(docs/profiling.md)");
CMDLINE_KEY(kernel, profile_hz, "997", cmdline_valid_uint, "10-5000",
	    "profiler samples per second per CPU (prime: no lockstep with "
	    "periodic work)");
/* 32768 samples of 128 bytes: 4 MiB, one buddy block of the largest
 * order (MAX_ORDER) */
CMDLINE_KEY(kernel, profile_samples, "8192", cmdline_valid_uint, "64-32768",
	    "profiler buffer per CPU, in samples of 128 bytes");

static bool in_text(uint64_t addr)
{
	return addr >= (uintptr_t)__kernel_start &&
	       addr < (uintptr_t)__text_end;
}

/* The stack this CPU runs on: the boot CPU's from boot/header.S, the
 * others' from kernel/smp.c. */
static void cpu_stack(const struct cpu *c, uintptr_t *lo, uintptr_t *hi)
{
	if (c->stack_top) {
		*hi = c->stack_top;
		*lo = c->stack_top - KSTACK_SIZE;
	} else {
		*lo = (uintptr_t)boot_stack;
		*hi = (uintptr_t)boot_stack_top;
	}
}

/* The idle loop halts with "sti; hlt" (kernel/arch.h): a tick that woke
 * it returns to the byte after the hlt (0xF4), which follows an sti
 * (0xFB). No other instruction sequence ends in those two bytes where a
 * tick can land. */
static bool pc_is_idle(uint64_t rip)
{
	const uint8_t *ip = (const uint8_t *)(uintptr_t)rip;

	return in_text(rip - 2) && rip <= (uintptr_t)__text_end &&
	       ip[-2] == 0xFB && ip[-1] == 0xF4;
}

/*
 * Where the interrupted function has not built its frame yet (at its
 * first instruction, or right after its push %rbp) or has taken it down
 * (at its ret), rbp is still its caller's frame and the walk would skip
 * the caller: its return address is on top of the stack instead. Returns
 * that address, or 0.
 */
static uint64_t leaf_caller(const struct trap_frame *f, uintptr_t lo,
			    uintptr_t hi)
{
	const uint8_t *ip = (const uint8_t *)(uintptr_t)f->rip;
	uintptr_t off, at;
	uint64_t ret;

	if (!ksym_lookup(f->rip, &off))
		return 0;
	if (off == 0 || ip[0] == 0xC3) /* ret */
		at = f->rsp;
	else if (off == 1 && ip[-1] == 0x55) /* push %rbp */
		at = f->rsp + 8;
	else
		return 0;
	if (at < lo || at > hi - 8 || (at & 7))
		return 0;
	ret = *(const uint64_t *)at;
	return in_text(ret) ? ret : 0;
}

static void sample_take(struct profile_sample *s, const struct trap_frame *f,
			uintptr_t lo, uintptr_t hi)
{
	uint64_t rbp = f->rbp, ret = leaf_caller(f, lo, hi);
	unsigned int n = 0;

	s->flags = 0;
	s->pc[n++] = in_text(f->rip) ? (uint32_t)f->rip : 0;
	if (ret)
		s->pc[n++] = (uint32_t)ret;
	/* every step moves rbp up inside [lo, hi): the walk ends */
	while (rbp >= lo && rbp <= hi - 16 && !(rbp & 7)) {
		const uint64_t *fp = (const uint64_t *)(uintptr_t)rbp;

		if (!in_text(fp[1]))
			break;
		if (n == PROFILE_FRAMES) {
			s->flags |= PROFILE_SAMPLE_TRUNCATED;
			break;
		}
		s->pc[n++] = (uint32_t)fp[1];
		if (fp[0] <= rbp)
			break;
		rbp = fp[0];
	}
	s->depth = (uint16_t)n;
}

/* Counters written only by their own CPU: a plain load and store, no
 * locked instruction in the interrupt path. */
static void bump(atomic_ulong *v)
{
	atomic_store_explicit(v,
			      atomic_load_explicit(v, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static void cpu_session_reset(struct profile_cpu *p, unsigned int session)
{
	atomic_store_explicit(&p->head, 0, memory_order_relaxed);
	atomic_store_explicit(&p->idle, 0, memory_order_relaxed);
	atomic_store_explicit(&p->dropped, 0, memory_order_relaxed);
	atomic_store_explicit(&p->truncated, 0, memory_order_relaxed);
	atomic_store_explicit(&p->session, session, memory_order_release);
}

unsigned int profile_tick(const struct trap_frame *f)
{
	unsigned int hz =
		atomic_load_explicit(&profile_hz, memory_order_acquire);
	unsigned int session, head;
	struct profile_cpu *p;
	uintptr_t lo, hi;

	if (!hz || !f)
		return 0;
	p = &profile_cpus[this_cpu_id()];
	session = atomic_load_explicit(&profile_session, memory_order_relaxed);
	if (atomic_load_explicit(&p->session, memory_order_relaxed) != session)
		cpu_session_reset(p, session);
	if (pc_is_idle(f->rip)) {
		bump(&p->idle);
		return hz;
	}
	head = atomic_load_explicit(&p->head, memory_order_relaxed);
	if (head == profile_capacity || !p->buf) {
		bump(&p->dropped);
		return hz;
	}
	cpu_stack(this_cpu(), &lo, &hi);
	sample_take(&p->buf[head], f, lo, hi);
	if (p->buf[head].flags & PROFILE_SAMPLE_TRUNCATED)
		bump(&p->truncated);
	atomic_store_explicit(&p->head, head + 1, memory_order_release);
	return hz;
}

/* Every CPU's buffer, once, on that CPU's node. Called with profile_lock
 * held and sampling stopped, so no tick reads a half-set pointer. */
static int buffers_alloc(void)
{
	unsigned int want = (unsigned int)cmdline_get_long("profile_samples");
	size_t bytes = (size_t)want * sizeof(struct profile_sample);
	unsigned int order = 0;

	if (profile_capacity)
		return 0;
	while (((size_t)MM_PAGE_SIZE << order) < bytes)
		order++;
	for (int c = 0; c < nr_cpus; c++) {
		struct page *pg;

		if (profile_cpus[c].buf)
			continue;
		pg = alloc_pages_node(cpus[c].node, GFP_KERNEL, order);
		if (!pg) {
			profile_alloc_failures++;
			kprintf("profile: no memory for %u samples on cpu %d "
				"(%zu KiB); not started\n",
				want, c, bytes / 1024);
			return -1;
		}
		profile_cpus[c].buf = page_address(pg);
	}
	profile_capacity = want;
	return 0;
}

int profile_start(unsigned int hz)
{
	int err = 0;

	if (hz < PROFILE_HZ_MIN || hz > PROFILE_HZ_MAX)
		return -1;
	spin_lock(&profile_lock);
	atomic_store_explicit(&profile_hz, 0, memory_order_release);
	if (buffers_alloc() == 0) {
		profile_rate = hz;
		atomic_fetch_add_explicit(&profile_session, 1,
					  memory_order_relaxed);
		atomic_store_explicit(&profile_hz, hz, memory_order_release);
	} else {
		err = -2;
	}
	spin_unlock(&profile_lock);
	/* A tickless idle CPU would see the new rate only at its next
	 * deadline: wake every other one (this one is awake), so its tick
	 * comes back and switches. */
	if (!err)
		lapic_broadcast_ipi(VEC_WAKE);
	if (!err)
		kprintf("profile: session %u: every CPU at %u Hz, %u samples "
			"each\n",
			atomic_load(&profile_session), hz, profile_capacity);
	return err;
}

bool profile_sampling(void)
{
	return atomic_load_explicit(&profile_hz, memory_order_relaxed) != 0;
}

void profile_stop(void)
{
	atomic_store_explicit(&profile_hz, 0, memory_order_release);
}

void profile_boot(void)
{
	if (!cmdline_get_bool("profile"))
		return;
	if (profile_start((unsigned int)cmdline_get_long("profile_hz")) != 0)
		kprintf("profile: profile=1 given, but sampling did not "
			"start\n");
}
