/*
 * Replaying a trace against the allocators (struct trace: trace.h). The
 * lab driver links this file into each copy of the library, the
 * reference's and the student's, so the same code drives both.
 *
 * One replay boots the trace's machine, runs every operation in order on
 * the CPU the trace says (one thread that changes its simulated CPU: the
 * per-CPU state is the CPUs', not the threads'), and shuts the machine
 * down. Every object gets a tag written at its start and end (its number)
 * and checked at its free: two live objects that share memory show up
 * there. Page blocks must be aligned to their size (the buddy
 * invariant). With samples set, the sampler (mm/host/mm_sample.h) takes
 * nr_samples samples spread over the trace, one at each phase mark, one
 * at the end and one after the clean-up; the peak of pages in use is then
 * read after every operation. Timed runs leave both off: they time the
 * operations alone, and replay a short trace several times over, so that
 * what is timed lasts long enough to measure.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mm.h"
#include "mm_host.h"
#include "trace.h"
#include "zone.h"

/* Every allocation the replay makes asks this: no warning on failure
 * (an adversarial trace fails allocations on purpose). */
#define REPLAY_GFP (GFP_KERNEL | __GFP_NOWARN)

struct object {
	void *addr;	   /* NULL: failed, freed or not yet allocated */
	struct page *page; /* a page block's head */
	uint32_t size;	   /* bytes asked for */
	uint8_t kind;	   /* TRACE_PAGES, TRACE_FRAG or TRACE_KMALLOC */
	uint8_t order;	   /* a page block's */
};

struct replay {
	const struct trace *t;
	struct replay_result *r;
	struct object *obj;
	size_t next_obj;
	unsigned long live;
	FILE *ops_file; /* the operation of each sample (samples.ops) */
	int cpu;
};

static void replay_error(struct replay *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void replay_error(struct replay *rp, const char *fmt, ...)
{
	va_list ap;

	if (rp->r->error[0])
		return; /* the first one says most */
	va_start(ap, fmt);
	vsnprintf(rp->r->error, sizeof(rp->r->error), fmt, ap);
	va_end(ap);
}

static const char *kind_name(unsigned int kind)
{
	return kind == TRACE_PAGES  ? "page block"
	       : kind == TRACE_FRAG ? "fragment"
				    : "kmalloc object";
}

/* The tag: the object's number, at its start and (room permitting) end. */
static void tag_write(const struct object *o, uint64_t tag)
{
	size_t n = o->size < 8 ? o->size : 8;

	memcpy(o->addr, &tag, n);
	if (o->size >= 16)
		memcpy((char *)o->addr + o->size - 8, &tag, 8);
}

static bool tag_ok(const struct object *o, uint64_t tag)
{
	size_t n = o->size < 8 ? o->size : 8;
	uint64_t end;

	if (memcmp(o->addr, &tag, n))
		return false;
	if (o->size < 16)
		return true;
	memcpy(&end, (char *)o->addr + o->size - 8, 8);
	return end == tag;
}

static void replay_alloc(struct replay *rp, unsigned int kind, uint32_t arg)
{
	struct object *o = &rp->obj[rp->next_obj];

	o->kind = (uint8_t)kind;
	rp->r->allocs++;
	if (kind == TRACE_PAGES) {
		o->order = (uint8_t)arg;
		o->size = (uint32_t)MM_PAGE_SIZE << arg;
		o->page = alloc_pages(REPLAY_GFP, arg);
		o->addr = o->page ? page_address(o->page) : NULL;
		if (o->addr && ((uintptr_t)o->addr & (o->size - 1))) {
			rp->r->misaligned++;
			replay_error(rp,
				     "object %zu: an order-%u block at %p is "
				     "not aligned to its size",
				     rp->next_obj, arg, o->addr);
		}
	} else {
		o->size = arg;
		o->addr = kind == TRACE_FRAG ? napi_alloc_frag(arg)
					     : kmalloc(arg, REPLAY_GFP);
	}
	if (o->addr) {
		tag_write(o, rp->next_obj);
		rp->live += o->size;
	} else {
		rp->r->failed++;
	}
	rp->next_obj++;
}

static void replay_free(struct replay *rp, size_t id)
{
	struct object *o = &rp->obj[id];

	if (!o->addr)
		return; /* its allocation failed */
	if (!tag_ok(o, id)) {
		rp->r->corrupt++;
		replay_error(rp,
			     "object %zu (%s of %u bytes at %p) was "
			     "overwritten while live: another allocation "
			     "shares its memory",
			     id, kind_name(o->kind), o->size, o->addr);
	}
	if (o->kind == TRACE_PAGES)
		__free_pages(o->page, o->order);
	else if (o->kind == TRACE_FRAG)
		page_frag_free(o->addr);
	else
		kfree(o->addr);
	rp->live -= o->size;
	o->addr = NULL;
}

static void replay_set_cpu(struct replay *rp, int cpu)
{
	if (cpu == rp->cpu)
		return;
	if (mm_host_set_cpu(cpu))
		replay_error(rp, "the machine refused CPU %d", cpu);
	else
		rp->cpu = cpu;
}

static void replay_op(struct replay *rp, const struct trace_op *op)
{
	switch (op->kind) {
	case TRACE_CPU:
		replay_set_cpu(rp, (int)op->arg);
		break;
	case TRACE_PAGES:
	case TRACE_FRAG:
	case TRACE_KMALLOC:
		replay_alloc(rp, op->kind, op->arg);
		break;
	case TRACE_FREE:
		replay_free(rp, op->arg);
		break;
	case TRACE_DRAIN:
		drain_all_pages();
		break;
	case TRACE_FRAG_DRAIN:
		page_frag_percpu_drain((int)op->arg);
		break;
	}
}

static unsigned long pages_in_use(const struct replay *rp)
{
	return rp->r->managed - nr_free_pages();
}

/* A sample now, labelled, and the operation it follows in samples.ops. */
static void replay_sample(struct replay *rp, const char *label, size_t op)
{
	if (!rp->ops_file)
		return;
	mm_sample_mark(label);
	fprintf(rp->ops_file, "%zu\n", op);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The operations, timed; with sampling on, the peak and the samples. */
static void replay_ops(struct replay *rp, unsigned int nr_samples)
{
	const struct trace *t = rp->t;
	size_t every = nr_samples ? t->nr_ops / nr_samples + 1 : 0;
	double t0 = now();

	for (size_t i = 0; i < t->nr_ops; i++) {
		const struct trace_op *op = &t->ops[i];

		if (op->kind == TRACE_MARK) {
			replay_sample(rp, t->marks[op->arg], i);
			continue;
		}
		replay_op(rp, op);
		rp->r->ops++;
		if (!rp->ops_file)
			continue;
		unsigned long used = pages_in_use(rp);
		if (used > rp->r->peak_pages)
			rp->r->peak_pages = used;
		if (rp->live > rp->r->peak_live)
			rp->r->peak_live = rp->live;
		if ((i + 1) % every == 0)
			replay_sample(rp, "", i + 1);
	}
	rp->r->seconds += now() - t0;
}

/* Free what the trace left live; the next pass starts at object 0. */
static void replay_free_all(struct replay *rp)
{
	for (size_t id = 0; id < rp->next_obj; id++)
		replay_free(rp, id);
	rp->next_obj = 0;
}

/* Free what the trace left live, give back what every CPU's caches
 * hold, and check the free lists. */
static void replay_clean_up(struct replay *rp)
{
	replay_free_all(rp);
	for (int cpu = 0; cpu < rp->t->nr_cpus; cpu++) {
		replay_set_cpu(rp, cpu);
		kmem_cache_shrink_all();
		page_frag_percpu_drain(cpu);
	}
	replay_set_cpu(rp, 0);
	drain_all_pages();
	rp->r->after_pages = pages_in_use(rp);
	rp->r->free_after = nr_free_pages();
	rp->r->verify = mm_verify_free_lists();
	if (rp->r->verify != (long)rp->r->free_after)
		replay_error(rp,
			     "the free lists are inconsistent after the "
			     "trace: mm_verify_free_lists() says %ld, "
			     "nr_free_pages() %lu",
			     rp->r->verify, rp->r->free_after);
}

/*
 * Map every page of a node's memory now (MADV_POPULATE_WRITE: nothing is
 * written), so that a timed run pays for the allocator's work and not for
 * the host's first touch of each page, which costs more than most
 * allocations. A kernel without it (before Linux 5.14) refuses, and
 * both copies then pay the same faults.
 */
static void replay_prefault(struct zone *z)
{
	if (!z->spanned_pages)
		return;
	void *start = page_address(zone_pfn_page(z, z->start_pfn));
	madvise(start, z->spanned_pages * MM_PAGE_SIZE, MADV_POPULATE_WRITE);
}

static int replay_boot(struct replay *rp)
{
	const struct trace *t = rp->t;

	if (mm_host_boot(t->nr_nodes, (size_t)t->mib_per_node << 20, t->nr_cpus,
			 t->cpu_node)) {
		replay_error(rp,
			     "mm_host_boot() failed (its message is above)");
		return -1;
	}
	for (int n = 0; n < t->nr_nodes; n++) {
		rp->r->managed += nr_managed_pages_node(n);
		replay_prefault(&mm_zones[n]);
	}
	rp->cpu = 0;
	return 0;
}

/* Open the sampler and its operation index (samples with ".ops"). */
static int replay_sampler_open(struct replay *rp, const char *samples)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.ops", samples);
	rp->ops_file = fopen(path, "w");
	/* Ten seconds between timed samples: longer than a replay, so
	 * every sample is one replay_sample() took. */
	if (!rp->ops_file || mm_sample_start(samples, 10000)) {
		replay_error(rp, "cannot write %s", samples);
		if (rp->ops_file)
			fclose(rp->ops_file);
		rp->ops_file = NULL;
		return -1;
	}
	fputs("0\n", rp->ops_file); /* mm_sample_start's own sample */
	return 0;
}

/*
 * lab_replay - replay trace t on a freshly booted machine, filling *r:
 * o->repeat times over when more than 1 (seconds, operations and
 * allocations add up over the passes; between two passes whatever the
 * trace left live is freed).
 * Returns 0 once the machine is shut down again, -1 if it could not be
 * booted or sampled (r->error says which).
 */
int lab_replay(const struct trace *t, const struct replay_opts *o,
	       struct replay_result *r)
{
	struct replay rp = {.t = t, .r = r};

	memset(r, 0, sizeof(*r));
	rp.obj = calloc(t->nr_objects + 1, sizeof(*rp.obj));
	if (!rp.obj || replay_boot(&rp)) {
		free(rp.obj);
		return -1;
	}
	if (o->samples && replay_sampler_open(&rp, o->samples)) {
		mm_host_shutdown();
		free(rp.obj);
		return -1;
	}
	for (unsigned int pass = 1; pass < o->repeat; pass++) {
		replay_ops(&rp, 0);
		replay_free_all(&rp);
	}
	replay_ops(&rp, o->samples ? o->nr_samples : 0);
	r->end_pages = pages_in_use(&rp);
	replay_sample(&rp, "end of trace", t->nr_ops);
	replay_clean_up(&rp);
	replay_sample(&rp, "clean-up", t->nr_ops);
	if (rp.ops_file) {
		mm_sample_stop(); /* its last sample, "end" */
		fprintf(rp.ops_file, "%zu\n", t->nr_ops);
		fclose(rp.ops_file);
	}
	mm_host_shutdown();
	free(rp.obj);
	return 0;
}
