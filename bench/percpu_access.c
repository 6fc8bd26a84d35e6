/*
 * What reaching per-CPU state costs, four ways, on the host CPU: the
 * loops a per-CPU lwIP would run on every access to one of its globals.
 *
 *  plain   - a global, as lwIP's state is today (one shared instance);
 *  tls     - a __thread variable: local-exec TLS, an %fs-relative access,
 *            the same instruction form a kernel's %gs per-CPU area gives
 *            (lwIP's globals made thread-local, each CPU's copy at its
 *            segment base);
 *  self    - load the per-CPU area's address from %fs:0, then the field:
 *            the tree's this_cpu()->field today (%gs:0 in the kernel);
 *  context - a pointer to the instance passed down as an argument (a
 *            patch giving every lwIP function a context).
 *
 * Each loop reads, adds to and writes back one variable per iteration,
 * with a compiler barrier so every access really happens. Prints the
 * median ns per iteration of 7 runs. Build and run:
 *   cc -O2 -static -o /tmp/percpu_access bench/percpu_access.c
 *   /tmp/percpu_access
 * objdump -d /tmp/percpu_access shows each loop's instructions; the
 * instructions per iteration, counted (the host's -icount):
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg \
 *	/tmp/percpu_access 1000000
 *   callgrind_annotate /tmp/cg | grep loop_
 * (each loop ran 7 x 10^6 iterations).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 200000000L /* or argv[1] */
#define RUNS  7

struct stack_state {
	struct stack_state *self; /* offset 0, as struct cpu's */
	uint64_t counter;
};

uint64_t plain_counter;
__thread uint64_t tls_counter;
__thread struct stack_state tls_area;

#define BARRIER() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void loop_plain(long n)
{
	for (long i = 0; i < n; i++) {
		plain_counter += (uint64_t)i;
		BARRIER();
	}
}

__attribute__((noinline)) void loop_tls(long n)
{
	for (long i = 0; i < n; i++) {
		tls_counter += (uint64_t)i;
		BARRIER();
	}
}

static inline struct stack_state *self_area(void)
{
	struct stack_state *s;

	__asm__ volatile("movq %%fs:tls_area@tpoff, %0" : "=r"(s));
	return s;
}

__attribute__((noinline)) void loop_self(long n)
{
	for (long i = 0; i < n; i++) {
		self_area()->counter += (uint64_t)i;
		BARRIER();
	}
}

__attribute__((noinline)) void loop_context(struct stack_state *ctx, long n)
{
	for (long i = 0; i < n; i++) {
		ctx->counter += (uint64_t)i;
		BARRIER();
	}
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *names[] = {"plain", "tls", "self", "context"};
	long iters = argc > 1 ? atol(argv[1]) : ITERS;
	double t[4][RUNS];

	tls_area.self = &tls_area;
	for (int r = 0; r < RUNS; r++)
		for (int v = 0; v < 4; v++) {
			double t0 = now_ns();

			switch (v) {
			case 0:
				loop_plain(iters);
				break;
			case 1:
				loop_tls(iters);
				break;
			case 2:
				loop_self(iters);
				break;
			default:
				loop_context(&tls_area, iters);
			}
			t[v][r] = (now_ns() - t0) / (double)iters;
		}
	for (int v = 0; v < 4; v++) {
		qsort(t[v], RUNS, sizeof(double), cmp);
		printf("%-8s %.3f ns/iteration (median of %d, min %.3f)\n",
		       names[v], t[v][RUNS / 2], RUNS, t[v][0]);
	}
	printf("check %llu %llu %llu\n", (unsigned long long)plain_counter,
	       (unsigned long long)tls_counter,
	       (unsigned long long)tls_area.counter);
	return 0;
}
