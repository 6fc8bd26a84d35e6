/*
 * TLS blocks on the FS base (see tls.h).
 *
 * Layout (x86-64's "variant II"): the thread pointer (FS base) points
 * just past the block's copy of the template, and each __thread
 * variable sits at a fixed negative offset from it that the linker
 * computes (x@tpoff). At the thread pointer itself is a pointer to
 * itself: code that takes a variable's address reads %fs:0 and adds the
 * offset. linker.ld pads the template to a multiple of 64 bytes, so the
 * thread pointer is simply the block's start plus the template's size.
 *
 * The shared block is static (.bss), so CPU 0 has its TLS before the
 * allocators exist; 32 KiB holds the template (lwIP's state and the
 * stack's own per-instance state, about 11 KiB) twice over, for the
 * boot's two-block check, and a larger template is refused at boot with
 * its size.
 */
#include "kernel/tls.h"

#include <string.h>

#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "mm/mm.h"

extern char __tdata_start[], __tdata_end[], __tls_end[];

#define TLS_SHARED_MAX	(32 * 1024)
#define TLS_CANARY_SEED 0x7c5e1d0a2f39b48dull

/* In .tdata: read through the FS base, it proves the offsets right. */
static __thread volatile uint64_t tls_canary = TLS_CANARY_SEED;

static uint8_t tls_shared[TLS_SHARED_MAX] __attribute__((aligned(64)));
static uintptr_t tls_shared_tp;

static size_t tls_template_size(void)
{
	return (size_t)((uintptr_t)__tls_end - (uintptr_t)__tdata_start);
}

size_t tls_block_size(void)
{
	return tls_template_size() + 64; /* the self pointer, padded */
}

uintptr_t tls_block_init(void *block)
{
	size_t tdata =
		(size_t)((uintptr_t)__tdata_end - (uintptr_t)__tdata_start);
	size_t all = tls_template_size();
	uintptr_t tp = (uintptr_t)block + all;

	memcpy(block, __tdata_start, tdata);
	memset((uint8_t *)block + tdata, 0, all - tdata);
	*(uintptr_t *)tp = tp;
	return tp;
}

void tls_install(uintptr_t tp)
{
	wrmsr(MSR_FS_BASE, tp);
}

uintptr_t tls_current(void)
{
	uintptr_t tp;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

uintptr_t tls_shared_thread_pointer(void)
{
	return tls_shared_tp;
}

uintptr_t tls_block_new(int node)
{
	/* kmalloc's classes are powers of two: a block of a few KiB is
	 * aligned to its size, more than the 64 bytes the template asks. */
	void *block = kmalloc_node(tls_block_size(), GFP_KERNEL, node);

	return block ? tls_block_init(block) : 0;
}

uintptr_t tls_block_of(uintptr_t tp)
{
	return tp - tls_template_size();
}

/* The calling CPU reads @want through its FS base, or the boot stops. */
static void tls_expect(int id, uint64_t want, const char *what)
{
	if (tls_canary != want)
		panic("tls: cpu %d reads 0x%lx through its FS base (%s), not "
		      "0x%lx",
		      id, (unsigned long)tls_canary, what, (unsigned long)want);
}

/*
 * What a stack per CPU will stand on, checked once at boot: a second
 * block (in the shared block's unused tail) starts as a fresh copy of
 * the template, and a write through one block is not seen through the
 * other. Returns the template's size for the report.
 */
static size_t tls_check_two_blocks(void)
{
	size_t size = tls_block_size();
	uintptr_t second;

	if (2 * size > sizeof(tls_shared))
		return 0; /* no room to check in; said in the report */
	second = tls_block_init(tls_shared + size);
	tls_install(second);
	tls_expect(0, TLS_CANARY_SEED, "a second, fresh block");
	tls_canary = 1;
	tls_install(tls_shared_tp);
	tls_expect(0, TLS_CANARY_SEED,
		   "the first block, after a write to "
		   "the second");
	tls_install(second);
	tls_expect(0, 1, "the second block, written");
	tls_install(tls_shared_tp);
	return size;
}

void tls_init_cpu(int id)
{
	if (id == 0) {
		if (tls_block_size() > sizeof(tls_shared))
			panic("tls: template of %lu bytes, room for %lu",
			      (unsigned long)tls_template_size(),
			      (unsigned long)sizeof(tls_shared) - 64);
		tls_shared_tp = tls_block_init(tls_shared);
	}
	tls_install(tls_shared_tp);
	cpus[id].tls_block = (uintptr_t)tls_shared;
	tls_expect(id, TLS_CANARY_SEED, "the shared block");
	if (id == 0)
		kprintf("tls: template %lu bytes (%lu initialised), every cpu "
			"on one block; %s\n",
			(unsigned long)tls_template_size(),
			(unsigned long)((uintptr_t)__tdata_end -
					(uintptr_t)__tdata_start),
			tls_check_two_blocks() ? "two blocks stay apart"
					       : "two blocks not checked");
}
