/*
 * Frame-pointer backtraces (kernel/backtrace.h): the kernel is built with
 * -fno-omit-frame-pointer, so each frame begins with the caller's frame
 * pointer and the return address; the walk follows that chain and names
 * each address with the kernel's own symbol table (kernel/ksyms).
 */
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/ksyms.h"

extern char __kernel_start[], __kernel_end[];

/* A frame pointer we may follow: aligned, inside the identity map of the
 * first 4 GiB where the kernel image and its stacks live. */
static int frame_ok(uint64_t rbp)
{
	return rbp >= 0x1000 && rbp < (4ULL << 30) - 16 && !(rbp & 7);
}

/* A return address is looked up one byte back: after a call to a
 * noreturn function such as panic() it is already the first byte of the
 * next function. */
void backtrace_print_frame(int n, uint64_t addr, bool return_address)
{
	uintptr_t off;
	const char *name = ksym_lookup((uintptr_t)addr - return_address, &off);

	if (name)
		kprintf("  #%d 0x%016lx %s+0x%lx\n", n, (unsigned long)addr,
			name, (unsigned long)(off + return_address));
	else
		kprintf("  #%d 0x%016lx\n", n, (unsigned long)addr);
}

int backtrace_collect(uint64_t rbp, uint64_t *out, int max)
{
	int n = 0;

	while (n < max && frame_ok(rbp)) {
		const uint64_t *fp = (const uint64_t *)(uintptr_t)rbp;

		if (fp[1] < (uintptr_t)__kernel_start ||
		    fp[1] >= (uintptr_t)__kernel_end)
			break; /* left the kernel: the AP trampoline, garbage */
		out[n++] = fp[1];
		if (fp[0] <= rbp)
			break; /* stacks grow down: callers are higher */
		rbp = fp[0];
	}
	return n;
}

void backtrace_print(uint64_t rbp)
{
	uint64_t ret[BACKTRACE_MAX];
	int n = backtrace_collect(rbp, ret, BACKTRACE_MAX);

	kprintf("backtrace:\n");
	for (int i = 0; i < n; i++)
		backtrace_print_frame(i, ret[i], true);
}
