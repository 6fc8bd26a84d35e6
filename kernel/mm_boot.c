/*
 * The page allocator at boot. mm_init() takes the ranges the seam reports
 * (kernel/mm_port/platform.c: the memory map split by SRAT node, minus the
 * kernel, boot data and ACPI tables) and builds one zone per node.
 */
#include "kernel/mm_boot.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/mm_deferred.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "mm/mm.h"
#include <string.h>

/* mm/ may not include kernel headers: its keys are declared here, where
 * the kernel hands their values to the allocators. */
CMDLINE_KEY(mm, mm_debug, "0", cmdline_valid_choice, "0|1",
	    "allocator debug checks");

/* A failure-injection spec (mm/fault_inject.h has the syntax). */
static bool valid_fault_spec(const char *v, const char *allowed)
{
	(void)allowed;
	return mm_fault_spec_ok(v);
}

#define FAULT_ALLOWED "off|every:N|random:1-100[,seed:S][,times:T]"
/* One per mm_fault_site_name(), armed by mm_boot_arm_faults(). */
CMDLINE_KEY(mm, fail_page_alloc, "off", valid_fault_spec, FAULT_ALLOWED,
	    "failure injection into the page allocator, armed after boot");
CMDLINE_KEY(mm, failslab, "off", valid_fault_spec, FAULT_ALLOWED,
	    "failure injection into slab caches and kmalloc, armed after boot");
CMDLINE_KEY(mm, fail_qmempool, "off", valid_fault_spec, FAULT_ALLOWED,
	    "failure injection into qmempool, armed after boot");
CMDLINE_KEY(mm, fail_page_frag, "off", valid_fault_spec, FAULT_ALLOWED,
	    "failure injection into page_frag (RX buffers), armed after boot");

static uint64_t init_ms; /* how long mm_init took */

void mm_boot(void)
{
	uint64_t t0 = clock_ms();
	int r;

	mm_debug_set(cmdline_get_bool("mm_debug"));
	mm_deferred_setting();
	r = mm_init();
	init_ms = clock_ms() - t0;
	if (r < 0) {
		kprintf("mm: no memory for the page allocator\n");
		return;
	}
	mm_deferred_start();
	/* kmalloc creates its classes on first use: do it now, after SMP
	 * bring-up, so every cache has a magazine for every started CPU and
	 * the boot report lists them. */
	kfree(kmalloc(8, GFP_KERNEL));
}

void mm_boot_arm_faults(void)
{
	for (int site = 0; site < MM_FAULT_NR_SITES; site++) {
		const char *name = mm_fault_site_name(site);
		const char *spec = cmdline_get(name);

		/* cmdline checked the spec: a refusal here is a bug. */
		if (!strcmp(spec, "off") || mm_fault_set(site, spec) < 0)
			continue;
		kprintf("mm: failure injection %s=%s armed\n", name, spec);
	}
}

/*
 * A statistics text (the NAME_text(buf, size) shape) in a kmalloc'd
 * buffer, or NULL. The length is asked first; the slack covers counters
 * that grow a digit between the two calls.
 */
static char *stats_text(int (*fn)(char *, size_t))
{
	for (int tries = 0; tries < 3; tries++) {
		size_t size = (size_t)fn(NULL, 0) + 256;
		char *buf = kmalloc(size, GFP_KERNEL);

		if (!buf)
			return NULL;
		if ((size_t)fn(buf, size) < size)
			return buf;
		kfree(buf);
	}
	return NULL;
}

/* Next line of text (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **pos)
{
	char *line = *pos, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = line + strlen(line);
	}
	return line;
}

/* Splits a line into up to max whitespace-separated words, in place. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (*line == ' ')
			line++;
		if (!*line)
			break;
		w[n++] = line;
		while (*line && *line != ' ')
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/* One "slab: NAME size=OBJSZ objs=ACTIVE/TOTAL slabs=N cpu=C" line per
 * cache, from slabinfo_text's words: name active total slot per pgs
 * ": tunables" l b s ": slabdata" active_slabs slabs avail ": stats"
 * object_size cpu_cached ... (the header lines are skipped). */
static void report_slab(void)
{
	char *text = stats_text(slabinfo_text), *pos = text, *line, *w[20];
	int caches = 0;

	if (!text) {
		kprintf("slab: no memory for the report\n");
		return;
	}
	while ((line = next_line(&pos))) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8) ||
		    split_words(line, w, 20) < 20)
			continue;
		kprintf("slab: %s size=%s objs=%s/%s slabs=%s "
			"pages_per_slab=%s "
			"cpu_cached=%s\n",
			w[0], w[18], w[1], w[2], w[14], w[5], w[19]);
		caches++;
	}
	kfree(text);
	kprintf("slab: caches=%d\n", caches);
}

/* Pools registered so far: one line each from qmempool_stats_text. */
static void report_qmempool(void)
{
	char *text = stats_text(qmempool_stats_text), *pos = text, *line;
	int pools = 0;

	if (!text) {
		kprintf("qmempool: no memory for the report\n");
		return;
	}
	while ((line = next_line(&pos))) {
		if (line[0] == '#' || !line[0])
			continue;
		kprintf("qmempool: %s\n", line);
		pools++;
	}
	kfree(text);
	kprintf("qmempool: pools=%d\n", pools);
}

static void report_page_frag(void)
{
	struct page_frag_stats st;

	page_frag_stats_read(&st);
	kprintf("page_frag: fragments=%llu frees=%llu refills_order3=%llu "
		"refills_order0=%llu recycles=%llu pages_returned=%llu "
		"errors=%llu\n",
		(unsigned long long)st.fragments, (unsigned long long)st.frees,
		(unsigned long long)st.refills_order3,
		(unsigned long long)st.refills_order0,
		(unsigned long long)st.recycles,
		(unsigned long long)st.pages_returned,
		(unsigned long long)(st.err_oversize + st.err_bad_align +
				     st.alloc_failed + st.tx_misuse));
}

/*
 * Boot-report lines of the allocators built on the page allocator. The
 * slab, page_frag and qmempool work each add their line(s) HERE, after the
 * page allocator's, in the same "NAME: key=value ..." form.
 */
static void mm_report_more(void)
{
	report_slab();
	report_page_frag();
	report_qmempool();
}

void mm_boot_report(void)
{
	if (!mm_is_ready())
		return;
	for (int n = 0; n < mm_nr_nodes(); n++)
		kprintf("mm: node %d free=%lu pages managed=%lu pages\n", n,
			nr_free_pages_node(n), nr_managed_pages_node(n));
	kprintf("mm: free=%lu pages debug=%s\n", nr_free_pages(),
		mm_debug_on() ? "on" : "off");
	kprintf("mm: init=%llums deferred=%lu pages (mm_deferred_init=%s)\n",
		(unsigned long long)init_ms, mm_deferred_pages(-1),
		cmdline_get("mm_deferred_init"));
	char misuse[256];
	mm_debug_json(misuse, sizeof(misuse));
	kprintf("mm: misuse reports %s\n", misuse);
	mm_report_more();
}
