/*
 * The classic allocator misuse programs, each in its own child process,
 * against our kmalloc (normal build and mm_debug on) or a peer's malloc
 * (glibc, jemalloc, tcmalloc, mimalloc: the same source, linked against
 * each). One line per case: RESULT <allocator> <case> <outcome>, where
 * the outcome is what the allocator did about the misuse:
 *
 *   aborted     the process was stopped (a signal: glibc's abort, a
 *               segfault inside the allocator)
 *   reported    ours: counted and printed (mm_debug_total), the bad
 *               free refused, the process going on
 *   two-owners  nothing said, and later allocations handed one block to
 *               two owners (or handed out the bad pointer itself)
 *   silent      nothing said, nothing visibly broken (yet)
 *
 * make misuse-table builds the five programs and writes the table
 * (bench/misuse_table.py). A comparison, not a test: the peers' answers
 * depend on their versions and tunables.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef MISUSE_SLAB
#include "mm.h"
#include "mm_host.h"
#define obj_alloc(n) kmalloc((n), GFP_KERNEL)
#define obj_free(p)  kfree(p)
static unsigned long reports(void)
{
	return mm_debug_total();
}
#else
#define obj_alloc(n) malloc(n)
#define obj_free(p)  free(p)
static unsigned long reports(void)
{
	return 0;
}
#endif

#define DRAW 8

enum outcome { SILENT = 10, TWO_OWNERS, REPORTED };

/* DRAW allocations of size: two alike, or one equal to bad? */
static int two_owners(size_t size, const void *bad)
{
	void *p[DRAW];
	int dup = 0;

	for (int i = 0; i < DRAW; i++) {
		p[i] = obj_alloc(size);
		dup |= p[i] == bad;
		for (int j = 0; j < i; j++)
			dup |= p[i] == p[j];
	}
	return dup;
}

static volatile unsigned char *sink;

static int c_double_free(void)
{
	void *p = obj_alloc(64);
	obj_free(p);
	/* cppcheck-suppress doubleFree */
	obj_free(p);
	return two_owners(64, NULL);
}

static int c_aba(void)
{
	void *a = obj_alloc(64), *b = obj_alloc(64);
	obj_free(a);
	obj_free(b);
	/* cppcheck-suppress doubleFree */
	obj_free(a);
	return two_owners(64, NULL);
}

static int c_inside(void)
{
	char *p = obj_alloc(64);
	/* cppcheck-suppress invalidFree */
	obj_free(p + 1);
	return two_owners(64, p + 1);
}

static int c_stack(void)
{
	char buf[64] = {0};
	sink = (unsigned char *)buf;
	obj_free(buf + 16);
	return two_owners(64, buf + 16);
}

static int c_overflow(void)
{
	unsigned char *p = obj_alloc(64);
	memset(p + 64, 'A', 64); /* a cache line past the end */
	obj_free(p);
	return two_owners(64, NULL);
}

static int c_underflow(void)
{
	uint64_t *p = obj_alloc(64);
	/* cppcheck-suppress negativeIndex */
	p[-1] = 0;
	obj_free(p);
	return two_owners(64, NULL);
}

static int c_uaf(void)
{
	volatile unsigned char *p = obj_alloc(64);
	obj_free((void *)p);
	p[10] = 1;
	return two_owners(64, NULL);
}

static int c_large_overflow(void)
{
	unsigned char *p = obj_alloc(10000);
	/* cppcheck-suppress arrayIndexOutOfBounds */
	p[10000] = 0; /* one byte */
	obj_free(p);
	return two_owners(10000, NULL);
}

static int c_large_uaf(void)
{
	volatile unsigned char *p = obj_alloc(10000);
	obj_free((void *)p);
	p[9000] = 1;
	return two_owners(10000, NULL);
}

static int c_large_double_free(void)
{
	void *p = obj_alloc(256 << 10);
	obj_free(p);
	/* cppcheck-suppress doubleFree */
	obj_free(p);
	return two_owners(256 << 10, NULL);
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{"double_free", c_double_free},
	{"double_free_aba", c_aba},
	{"free_inside_object", c_inside},
	{"free_stack_address", c_stack},
	{"overflow_cache_line_64", c_overflow},
	{"underflow_word_64", c_underflow},
	{"write_after_free_64", c_uaf},
	{"overflow_1_byte_10000", c_large_overflow},
	{"write_after_free_10000", c_large_uaf},
	{"double_free_256k", c_large_double_free},
};

static void boot(int debug)
{
#ifdef MISUSE_SLAB
	if (mm_host_boot(1, 64u << 20, 1, NULL))
		exit(1);
	mm_debug_set(debug);
	mm_debug_set_quiet(true);
#else
	(void)debug;
#endif
}

static const char *run(int i, int debug)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		boot(debug);
		int dup = cases[i].fn();
		/* two owners is the worse outcome, even after a report */
		_exit(dup ? TWO_OWNERS : reports() ? REPORTED : SILENT);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		return "aborted";
	switch (WEXITSTATUS(st)) {
	case TWO_OWNERS:
		return "two-owners";
	case REPORTED:
		return "reported";
	case SILENT:
		return "silent";
	}
	return "error";
}

int main(void)
{
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
#ifdef MISUSE_SLAB
		printf("RESULT slab %s %s\n", cases[i].name, run((int)i, 0));
		printf("RESULT slab-debug %s %s\n", cases[i].name,
		       run((int)i, 1));
#else
		printf("RESULT %s %s %s\n", MISUSE_NAME, cases[i].name,
		       run((int)i, 0));
#endif
	}
	return 0;
}
