/*
 * Deferred struct page initialisation, the kernel's half (mm/page_init.c
 * has the allocator's): the boot key, and a poller on every CPU that
 * initialises its own node's deferred memory a chunk per poll round, then
 * helps the nodes that have work left (a node without CPUs has only
 * helpers). The boot CPU joins once it enters its poll loop; until then
 * the other CPUs work while it boots, and an allocation that finds its
 * zone empty initialises the chunk it needs itself.
 */
#include "kernel/mm_deferred.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "mm/mm.h"
#include "mm/page_alloc_tunables.h"
#include <string.h>

CMDLINE_KEY(mm, mm_deferred_init, "on", cmdline_valid_choice, "on|off",
	    "struct pages past each node's first GiB initialised after boot "
	    "(off: all at boot)");

static atomic_bool done;
static uint64_t started_ms;

void mm_deferred_setting(void)
{
	bool on = !strcmp(cmdline_get("mm_deferred_init"), "on");

	mm_set_boot_init_pages(on ? MM_BOOT_INIT_PAGES : MM_INIT_ALL);
}

/* One chunk of this CPU's node, else of any node with work left; the
 * pages of span done (0: nothing left). Says once when all is done. */
static int deferred_poll(void *arg)
{
	int own = this_cpu()->node;
	unsigned long n;

	(void)arg;
	if (atomic_load_explicit(&done, memory_order_relaxed))
		return 0;
	n = mm_deferred_init_work(own, MM_DEFERRED_CHUNK_PAGES);
	for (int nid = 0; !n && nid < mm_nr_nodes(); nid++)
		n = mm_deferred_init_work(nid, MM_DEFERRED_CHUNK_PAGES);
	if (n)
		return 1;
	if (!mm_deferred_pages(-1) && !atomic_exchange(&done, true))
		kprintf("mm: deferred struct pages done: all %lu pages free "
			"%llu ms after mm_init\n",
			nr_free_pages(),
			(unsigned long long)(clock_ms() - started_ms));
	return 0;
}

void mm_deferred_start(void)
{
	started_ms = clock_ms();
	if (!mm_deferred_pages(-1)) {
		atomic_store(&done, true);
		return;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (poll_register(cpu, deferred_poll, NULL, "mm_deferred") < 0)
			kprintf("mm: cpu %d has no room for the deferred "
				"init poller\n",
				cpu);
}
