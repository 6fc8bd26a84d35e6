/*
 * A trace recorder for a workload built on the host library: each call
 * the workload makes to the allocators is written down, in the order the
 * calls happened, as one line of a trace (format: labs/traces/README.md).
 *
 * Nothing in the workload or the library changes. mk/labs.mk compiles
 * the workload (bench/packet_mix.c) and renames, in its object file only,
 * the calls below to rec_NAME (objcopy --redefine-sym): those calls, and
 * no call the library makes inside itself, land here, are recorded, and
 * go on to the real function.
 *
 * Threads: a call is recorded under one mutex, an allocation after it
 * returned and a free before it is made, so a block freed on one CPU and
 * handed out again on another appears in that order. The trace is
 * written when the workload shuts its machine down, to the file named by
 * LAB_TRACE_OUT, with the comment lines of LAB_TRACE_HEADER first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "mm_host.h"

#define SLOTS (1u << 18) /* open addressing: live objects, address -> id */

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int rec_cpu; /* the thread's CPU, as it said */
static int last_cpu = -1;
static unsigned long nr_objects;
static struct slot {
	const void *key;
	unsigned long id;
} slots[SLOTS];
static FILE *rec_out; /* a memory stream until the machine shuts down */
static char *rec_buf;
static size_t rec_len;
static char machine[256];

/* Where key's search starts: 18 bits of a multiplicative hash. */
static size_t slot_home(const void *key)
{
	return ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull >> 46;
}

static size_t slot_of(const void *key)
{
	size_t i = slot_home(key);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (SLOTS - 1);
	return i;
}

/* Delete slot i, moving back the entries after it that hashed before it
 * (linear probing's deletion, so every lookup still finds its key). */
static void slot_delete(size_t i)
{
	size_t j = i;

	slots[i].key = NULL;
	for (;;) {
		j = (j + 1) & (SLOTS - 1);
		if (!slots[j].key)
			return;
		size_t home = slot_home(slots[j].key);
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			slots[i] = slots[j];
			slots[j].key = NULL;
			i = j;
		}
	}
}

static FILE *out(void)
{
	if (!rec_out)
		rec_out = open_memstream(&rec_buf, &rec_len);
	if (rec_out && last_cpu != rec_cpu) {
		fprintf(rec_out, "c %d\n", rec_cpu);
		last_cpu = rec_cpu;
	}
	return rec_out;
}

/* An allocation that returned key (NULL: failed, still an object). */
static void record_alloc(char op, unsigned long arg, const void *key)
{
	pthread_mutex_lock(&rec_lock);
	FILE *f = out();
	if (f)
		fprintf(f, "%c %lu\n", op, arg);
	if (key) {
		size_t i = slot_of(key);
		slots[i].key = key;
		slots[i].id = nr_objects;
	}
	nr_objects++;
	pthread_mutex_unlock(&rec_lock);
}

/* A free of key, if it is an object the workload allocated. */
static void record_free(const void *key)
{
	pthread_mutex_lock(&rec_lock);
	size_t i = slot_of(key);
	FILE *f = slots[i].key ? out() : NULL;
	if (f) {
		fprintf(f, "x %lu\n", nr_objects - slots[i].id);
		slot_delete(i);
	}
	pthread_mutex_unlock(&rec_lock);
}

/* An operation that allocates nothing: its whole line. */
static void record_line(const char *line)
{
	pthread_mutex_lock(&rec_lock);
	FILE *f = out();
	if (f)
		fputs(line, f);
	pthread_mutex_unlock(&rec_lock);
}

int rec_mm_host_boot(int nr_nodes, size_t bytes_per_node, int nr_cpus,
		     const int *cpu_to_node)
{
	int n = snprintf(machine, sizeof(machine), "machine %d %zu %d ",
			 nr_nodes, bytes_per_node >> 20, nr_cpus);
	for (int c = 0; c < nr_cpus && n < (int)sizeof(machine) - 8; c++)
		n += snprintf(machine + n, sizeof(machine) - (size_t)n, "%s%d",
			      c ? "," : "", cpu_to_node[c]);
	return mm_host_boot(nr_nodes, bytes_per_node, nr_cpus, cpu_to_node);
}

int rec_mm_host_set_cpu(int cpu)
{
	int ret = mm_host_set_cpu(cpu);

	if (!ret)
		rec_cpu = cpu;
	return ret;
}

/* Writes the trace out: the workload is done with its machine. */
void rec_mm_host_shutdown(void)
{
	const char *path = getenv("LAB_TRACE_OUT");
	const char *header = getenv("LAB_TRACE_HEADER");
	FILE *f;

	if (rec_out && path && (f = fopen(path, "w"))) {
		fclose(rec_out);
		rec_out = NULL;
		if (header)
			fprintf(f, "%s\n", header);
		fprintf(f, "%s\n", machine);
		fwrite(rec_buf, 1, rec_len, f);
		fclose(f);
	} else {
		fprintf(stderr, "record: no trace written (LAB_TRACE_OUT=%s)\n",
			path ? path : "");
	}
	mm_host_shutdown();
}

struct page *rec_alloc_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	record_alloc('p', order, page);
	return page;
}

void rec___free_pages(struct page *page, unsigned int order)
{
	record_free(page);
	__free_pages(page, order);
}

void *rec_napi_alloc_frag(unsigned int fragsz)
{
	void *p = napi_alloc_frag(fragsz);

	record_alloc('f', fragsz, p);
	return p;
}

void rec_page_frag_free(void *addr)
{
	record_free(addr);
	page_frag_free(addr);
}

void *rec___kmalloc(size_t size, gfp_t gfp)
{
	void *p = __kmalloc(size, gfp);

	record_alloc('k', size, p);
	return p;
}

void rec_kfree(const void *obj)
{
	if (obj)
		record_free(obj);
	kfree(obj);
}

void rec_drain_all_pages(void)
{
	record_line("D\n");
	drain_all_pages();
}

void rec_page_frag_percpu_drain(int cpu)
{
	char line[32];

	snprintf(line, sizeof(line), "d %d\n", cpu);
	record_line(line);
	page_frag_percpu_drain(cpu);
}

void rec_mm_sample_mark(const char *label)
{
	char line[128];

	if (label && *label) {
		snprintf(line, sizeof(line), "m %s\n", label);
		record_line(line);
	}
	mm_sample_mark(label);
}
