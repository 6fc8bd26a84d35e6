/*
 * An allocation trace, read once by the lab driver (lab_trace.c) and
 * replayed by both copies of the allocators in it, the reference's and
 * the student's (replay.c). The file format is described in
 * labs/traces/README.md; in memory a trace is one array of operations,
 * every free already resolved to the number of the allocation it frees.
 *
 * This header names no allocator type: each copy of the library is its
 * own world, and only these plain structs cross between them.
 */
#ifndef LABS_TRACE_H
#define LABS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_NODES 8
#define TRACE_MAX_CPUS	16
#define TRACE_MAX_MARKS 64

enum trace_op_kind {
	TRACE_CPU,	  /* the next operations run on CPU arg */
	TRACE_PAGES,	  /* alloc_pages(order arg): the next object */
	TRACE_FRAG,	  /* napi_alloc_frag(arg bytes): the next object */
	TRACE_KMALLOC,	  /* kmalloc(arg bytes): the next object */
	TRACE_FREE,	  /* free object number arg, the way it came */
	TRACE_DRAIN,	  /* drain_all_pages() */
	TRACE_FRAG_DRAIN, /* page_frag_percpu_drain(CPU arg) */
	TRACE_MARK,	  /* a phase begins: marks[arg] names it */
};

struct trace_op {
	uint8_t kind;
	uint32_t arg;
};

struct trace {
	int nr_nodes;
	int mib_per_node;
	int nr_cpus;
	int cpu_node[TRACE_MAX_CPUS];
	struct trace_op *ops;
	size_t nr_ops;
	size_t nr_objects; /* allocations, so object numbers 0..nr_objects-1 */
	char *marks[TRACE_MAX_MARKS];
	int nr_marks;
};

/*
 * trace_load - read a trace file (gzip-compressed if its name ends in
 * .gz), keeping its first max_ops operations (0: all): a replay frees
 * what is still live where the trace ends. Returns 0, or -1 with a
 * message naming the file and line on stderr (a malformed line, or a
 * free of an object that is not live).
 */
int trace_load(const char *path, size_t max_ops, struct trace *t);

void trace_free(struct trace *t);

/* What one replay of a trace measured (replay.c). */
struct replay_result {
	double seconds;		  /* the operations alone, not boot or checks */
	unsigned long ops;	  /* operations replayed */
	unsigned long allocs;	  /* allocations asked for */
	unsigned long failed;	  /* of them, those that returned NULL */
	unsigned long corrupt;	  /* objects found overwritten at their free */
	unsigned long misaligned; /* page blocks not aligned to their size */
	unsigned long managed;	  /* pages the machine gave the allocator */
	unsigned long peak_pages; /* most pages off the buddy free lists */
	unsigned long peak_live;  /* most bytes live at once, as asked for */
	unsigned long end_pages;  /* pages off the free lists at the end */
	unsigned long after_pages; /* the same once everything was freed
				       and every cache drained */
	long verify;		   /* mm_verify_free_lists() then */
	unsigned long free_after;  /* nr_free_pages() then */
	char error[200];	   /* the first thing that went wrong, or "" */
};

/* How to replay. */
struct replay_opts {
	const char *samples;	 /* sampler file (mm_sample.h), or NULL */
	unsigned int nr_samples; /* samples to take through the trace */
	unsigned int repeat;	 /* passes over the trace (0 or 1: one) */
};

#endif /* LABS_TRACE_H */
