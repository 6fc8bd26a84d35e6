/*
 * What every allocator fuzz harness (tests/fuzz/fuzz_*.c) shares: reading
 * the fuzzer's bytes as a program, the simulated machine each input boots,
 * the reference model's building blocks (an interval set of live objects,
 * per-object contents), and the one way to report a disagreement.
 *
 * An input is a program. Its first two bytes describe the machine
 * (fz_boot below); every following operation is one opcode byte and its
 * argument bytes, each harness documenting its table at the top of its
 * file. Reading past the end yields zero bytes, so any input is a valid
 * program. Run a harness on one input with FUZZ_TRACE=1 to see the program
 * as it executes, one line per operation:
 *
 *	FUZZ_TRACE=1 build/fuzz/fuzz_pages crash-1234
 *
 * A model disagreement prints "MODEL MISMATCH", the harness, the
 * operation number and what disagreed, then aborts (libFuzzer keeps the
 * input). At exit each harness prints the operations it executed:
 * "fuzz_pages: 1234567 operations in 890 inputs, 0 model mismatches".
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mm.h"
#include "mm_host.h"

/* ---- the program ---------------------------------------------------- */

struct fz_in {
	const uint8_t *p;
	size_t n, pos;
};

static inline bool fz_more(const struct fz_in *in)
{
	return in->pos < in->n;
}

/* The next byte, 0 past the end. */
static inline uint8_t fz_u8(struct fz_in *in)
{
	return in->pos < in->n ? in->p[in->pos++] : 0;
}

static inline unsigned int fz_u16(struct fz_in *in)
{
	unsigned int lo = fz_u8(in);
	return lo | (unsigned int)fz_u8(in) << 8;
}

/* Pick an opcode through a weight table: ops[b % n]. */
static inline int fz_pick(struct fz_in *in, const uint8_t *ops, size_t n)
{
	return ops[fz_u8(in) % n];
}

/* ---- reporting ------------------------------------------------------- */

/* Set by each harness in fz_harness_init(). */
extern const char *fz_name;
/* Operations executed (the harness bumps it once per API call). */
extern uint64_t fz_ops;
/* FUZZ_TRACE=1: print each operation. */
extern bool fz_tracing;
/* Debug reports the program asked for (an API that reports by design,
 * e.g. destroying a busy cache); the teardown expects exactly these. */
extern unsigned long fz_expected_reports;

/* fz_harness_init - name the harness, read FUZZ_TRACE, print the summary
 * line at exit. Call from LLVMFuzzerInitialize. */
void fz_harness_init(const char *name);

/* fz_fail - report a model disagreement and abort. */
__attribute__((noreturn, format(printf, 1, 2))) void fz_fail(const char *fmt,
							     ...);

/* fz_trace - one line of the trace (only when FUZZ_TRACE=1). */
__attribute__((format(printf, 1, 2))) void fz_trace_line(const char *fmt, ...);
#define fz_trace(...)                               \
	do {                                        \
		if (mm_unlikely(fz_tracing))        \
			fz_trace_line(__VA_ARGS__); \
	} while (0)

/* FZ_CHECK(cond, "fmt", args...): a mismatch unless cond holds. */
#define FZ_CHECK(cond, ...)                                                 \
	do {                                                                \
		if (mm_unlikely(!(cond)))                                   \
			fz_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)
__attribute__((noreturn, format(printf, 4, 5))) void
fz_fail_at(const char *file, int line, const char *cond, const char *fmt, ...);

/*
 * FZ_CHECK_FORMAT(fn, buf): a text or JSON formatter of the snprintf kind
 * (int fn(char *, size_t)) says with (NULL, 0) the length it needs, then
 * writes exactly that many characters, NUL-terminated, into the array buf.
 */
#define FZ_CHECK_FORMAT(fn, buf)                                  \
	do {                                                      \
		int need_ = fn(NULL, 0);                          \
		FZ_CHECK(need_ < (int)sizeof(buf) &&              \
				 fn(buf, sizeof(buf)) == need_ && \
				 strlen(buf) == (size_t)need_,    \
			 #fn ": length %d", need_);               \
	} while (0)

/* ---- one harness ----------------------------------------------------- */

/*
 * What a harness does with each input; fz_run() does the rest, the same
 * for all: boot the machine the input describes (fz_boot, min_mib), call
 * begin (model reset; it may read bytes of its own), op until the input
 * is used up, end, then fz_teardown_check with what end returned: pages
 * the program may rightly leave held (the kmalloc caches' own structs).
 * begin may be NULL.
 */
struct fz_harness {
	const char *name; /* "fuzz_pages", for the summary line */
	int min_mib;	  /* memory per node: min_mib..min_mib+15 MiB */
	void (*begin)(struct fz_in *in);
	void (*op)(struct fz_in *in); /* decode and run one operation */
	unsigned long (*end)(void);   /* free everything; return held pages */
};

int fz_run(const struct fz_harness *h, const uint8_t *data, size_t size);

/*
 * fz_run_plain - for a harness of code that needs no machine (the HTTP
 * engine, fuzz_http.c): count the input, run @fn on it, then stop as
 * FUZZ_STOP_OPS asks, as fz_run() does.
 */
int fz_run_plain(void (*fn)(const uint8_t *data, size_t size),
		 const uint8_t *data, size_t size);

/* FZ_HARNESS(h): libFuzzer's two entry points for harness h. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#define FZ_HARNESS(h)                                                \
	int LLVMFuzzerInitialize(int *argc, char ***argv)            \
	{                                                            \
		(void)argc;                                          \
		(void)argv;                                          \
		fz_harness_init((h).name);                           \
		return 0;                                            \
	}                                                            \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) \
	{                                                            \
		return fz_run(&(h), data, size);                     \
	}

/* ---- the machine ----------------------------------------------------- */

struct fz_machine {
	int nodes, cpus;
	int cpu_node[MM_MAX_CPUS];
	int cpu;		 /* the simulated CPU this thread is now */
	unsigned long boot_free; /* nr_free_pages() at boot */
	unsigned long boot_free_node[MM_MAX_NODES];
	uintptr_t node_lo[MM_MAX_NODES], node_hi[MM_MAX_NODES]; /* addresses */
	bool debug;
};
extern struct fz_machine fz_m;

/*
 * fz_boot - boot the machine the input's first two bytes describe:
 *   byte 0: bits 0-1 nodes - 1 (1..4); bits 2-4 CPUs - 1 (1..8);
 *           bit 5 debug checks on; bit 6 CPUs round-robin over the nodes
 *           (else in blocks; a node may have no CPU); bit 7 a hole of
 *           1 MiB in node 0's memory.
 *   byte 1: bits 0-3 MiB per node - min_mib (min_mib..min_mib+15);
 *           bits 4-5 distances: 0 QEMU's 10/20, 1 linear (|a-b|), 2 a
 *           ring, 3 reversed (the highest node nearest);
 *           bits 6-7: 3 = per-CPU page lists off.
 * The thread becomes CPU 0. Fails (fz_fail) only if the boot does.
 */
void fz_boot(struct fz_in *in, int min_mib);

/* fz_set_cpu - this thread becomes simulated CPU cpu % fz_m.cpus. */
void fz_set_cpu(int cpu);

/* fz_addr_node - the node whose memory holds addr, or -1. */
int fz_addr_node(const void *addr);

/*
 * fz_node_can_serve - could node nid serve a block of this order right
 * now for CPU cpu, without a drain: its buddy lists have a block of that
 * order or larger, or (orders the per-CPU lists keep) cpu's list of that
 * order is not empty. What the page allocator tries on each node.
 */
bool fz_node_can_serve(int nid, unsigned int order, int cpu);

/*
 * fz_check_page_placement - a block of node got for a request preferring
 * node pref: __GFP_THISNODE and __GFP_NORETRY stay on pref; another node
 * is allowed only if every node ahead of it in pref's fallback order
 * could not serve the order (unless an injected failure explains it).
 */
void fz_check_page_placement(int pref, int got, gfp_t gfp, unsigned int order,
			     bool injected);

/*
 * fz_check_page_null - the page allocator returned NULL for a request
 * preferring pref: no node the request may use can serve the order, and
 * where the allocator drained first (no __GFP_NORETRY), no pages are left
 * on those nodes' per-CPU lists.
 */
void fz_check_page_null(int pref, gfp_t gfp, unsigned int order);

/* fz_pcp_pages - pages parked on every CPU's per-CPU lists of node nid. */
unsigned long fz_pcp_pages(int nid);

/*
 * fz_teardown_check - everything is freed: drain the per-CPU lists and
 * check that the buddy lists hold every page they held at boot but
 * held_pages (what the harness knows it still holds, e.g. the kmalloc
 * caches' own structs), that they are consistent, and that the debug
 * checks reported only fz_expected_reports. Then shut the machine down.
 */
void fz_teardown_check(unsigned long held_pages);

/*
 * fz_shrink_kmalloc - once every object is freed and every cache of the
 * harness destroyed: shrink every remaining cache (the kmalloc classes)
 * on every CPU and check that none keeps a slab. Returns the pages their
 * own structs still hold, for fz_teardown_check().
 */
unsigned long fz_shrink_kmalloc(void);

/* ---- the model -------------------------------------------------------- */

/*
 * An interval set: the live objects, [lo, hi) each with an id. Insert
 * refuses an interval that overlaps a live one (that is the model's
 * "two owners" check).
 *
 * A treap (a binary search tree on lo, heap-ordered on a pseudo-random
 * priority), nodes in one array linked by index. It was a sorted array:
 * each insert and remove moved the tail with memmove, which ASan runs as
 * a byte loop (__sanitizer::internal_memmove), 27 % of fuzz_pages' time
 * with a thousand blocks live. The treap is O(log n) and moves nothing.
 */
struct fz_ival {
	uintptr_t lo, hi;
	uint64_t id;
};
struct fz_tnode {
	struct fz_ival iv; /* first: fz_set_find returns &node->iv */
	uint32_t left, right, prio;
};
struct fz_set {
	struct fz_tnode *t; /* t[0] is the empty tree, never used */
	uint32_t root, free, used, cap;
	size_t n; /* intervals in the set */
};

/* Insert [lo, lo + len); on overlap returns false and *clash the live
 * one it overlaps. */
bool fz_set_insert(struct fz_set *s, uintptr_t lo, size_t len, uint64_t id,
		   struct fz_ival *clash);
/* Remove the interval starting at lo; false if there is none. */
bool fz_set_remove(struct fz_set *s, uintptr_t lo);
/* The interval holding addr, or NULL. */
const struct fz_ival *fz_set_find(const struct fz_set *s, uintptr_t addr);
/* Does any interval overlap [lo, lo + len)? */
bool fz_set_overlaps(const struct fz_set *s, uintptr_t lo, size_t len);
void fz_set_clear(struct fz_set *s);

/* fz_set_add - fz_set_insert that reports a clash as a mismatch. */
void fz_set_add(struct fz_set *s, const void *p, size_t len, uint64_t id,
		const char *what);

/*
 * Contents: each live object is filled with a pattern derived from its
 * id; the check on free finds any byte another owner (or the allocator)
 * wrote. Objects up to 16 KiB are filled whole; larger ones (page
 * blocks) in the first and last 64 bytes of every page.
 */
void fz_fill(void *p, size_t len, uint64_t id);
/* Returns the first offset that differs, or -1. */
long fz_verify(const void *p, size_t len, uint64_t id);
/* fz_verify that reports a difference as a mismatch. */
void fz_check_fill(const void *p, size_t len, uint64_t id, const char *what);
/* Is [p, p + len) all zero? */
bool fz_is_zero(const void *p, size_t len);

/* A fresh object id (never 0). */
uint64_t fz_new_id(void);

/*
 * Ballast: page blocks the harness takes from a node to push an
 * allocator into its fallback and failure paths. Every ballast block is
 * in the harness's interval set too, so an object handed out inside one
 * is a mismatch.
 */
void fz_ballast_take(struct fz_set *live, int nid, unsigned int order);
void fz_ballast_release(struct fz_set *live, unsigned int idx);
void fz_ballast_release_all(struct fz_set *live);

/*
 * Failure injection (mm/fault_inject.h): how many allocations it made
 * fail so far, all allocators together. A harness compares it before
 * and after an operation: an injected failure explains a NULL, and a
 * fallback it caused, that the model would otherwise refuse.
 */
unsigned long fz_injected(void);

#endif /* FUZZ_COMMON_H */
