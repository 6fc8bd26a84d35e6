/*
 * The lab driver: replays traces against two copies of the allocators
 * linked into this one program, the reference's (mm/) and the student's
 * (the reference with one file replaced), and prints what each measured
 * as one JSON object per trace on stdout.
 *
 * The two copies: mk/labs.mk links replay.c with each library's objects
 * into one relocatable object, keeps lab_replay its only global symbol
 * and renames it (ref_lab_replay, stu_lab_replay), so every other name
 * (alloc_pages, mm_zones, ...) is private to its copy and the two never
 * meet. Each replay runs in a child process of its own (fork), so a
 * crash or a hang of the student's code is reported, not suffered: the
 * child has LAB_TIMEOUT seconds.
 *
 * Per trace: one sampled run of each copy (the sampler's files for the
 * score's fragmentation and for the pictures, the peak of pages in use),
 * then --rounds timed runs of each, alternating (reference first in odd
 * rounds, the student's first in even ones), so that both see the same
 * machine at the same time: the speed is their ratio in this run. A
 * timed run replays a short trace several times over (TIMED_OPS). A
 * trace whose sampled run went wrong in either copy (a crash, an
 * overwritten object, inconsistent free lists, pages lost) is not timed.
 *
 * Usage: lab_trace [--rounds N] [--max-ops N] [--samples DIR]
 *                  [--timeout S] TRACE...
 */
#define _POSIX_C_SOURCE 200809L /* fork, sigaction names under -std=c11 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

int ref_lab_replay(const struct trace *t, const struct replay_opts *o,
		   struct replay_result *r);
int stu_lab_replay(const struct trace *t, const struct replay_opts *o,
		   struct replay_result *r);

typedef int (*replay_fn)(const struct trace *, const struct replay_opts *,
			 struct replay_result *);

static const struct {
	const char *name;
	replay_fn replay;
} copies[2] = {{"reference", ref_lab_replay}, {"yours", stu_lab_replay}};

static unsigned int timeout_s = 60;

/* Operations a timed run replays at least (a short trace goes round
 * again): ~20 ms here, long enough that timer and scheduler noise are a
 * small part of it. */
#define TIMED_OPS 300000

/* One run's outcome: the child's result, or why there is none. */
struct run {
	struct replay_result r;
	char failed[120]; /* "" when r is the child's */
};

/* Run one replay in a child process; its stdout goes to stderr, so that
 * stdout is the JSON alone. */
static void run_child(replay_fn replay, const struct trace *t,
		      const struct replay_opts *o, struct run *out)
{
	int fd[2];
	int status;

	memset(out, 0, sizeof(*out));
	if (pipe(fd)) {
		snprintf(out->failed, sizeof(out->failed), "no pipe");
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct replay_result r;
		close(fd[0]);
		dup2(2, 1);
		alarm(timeout_s);
		int ret = replay(t, o, &r);
		fflush(NULL);
		if (write(fd[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(3);
		_exit(ret ? 2 : 0);
	}
	close(fd[1]);
	ssize_t got = pid > 0 ? read(fd[0], &out->r, sizeof(out->r)) : -1;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		snprintf(out->failed, sizeof(out->failed), "no child process");
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(out->failed, sizeof(out->failed),
			 "still running after %u s: killed", timeout_s);
	else if (WIFSIGNALED(status))
		snprintf(out->failed, sizeof(out->failed),
			 "crashed: signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (got != (ssize_t)sizeof(out->r))
		snprintf(out->failed, sizeof(out->failed),
			 "ended (status %d) without a result",
			 WEXITSTATUS(status));
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_run(const struct run *run)
{
	const struct replay_result *r = &run->r;

	if (run->failed[0]) {
		printf("{\"failed\": ");
		json_string(run->failed);
		printf("}");
		return;
	}
	printf("{\"seconds\": %.6f, \"ops\": %lu, \"allocs\": %lu, "
	       "\"failed_allocs\": %lu, \"corrupt\": %lu, \"misaligned\": %lu, "
	       "\"managed\": %lu, \"peak_pages\": %lu, \"peak_live\": %lu, "
	       "\"end_pages\": %lu, \"after_pages\": %lu, \"verify\": %ld, "
	       "\"free_after\": %lu, \"error\": ",
	       r->seconds, r->ops, r->allocs, r->failed, r->corrupt,
	       r->misaligned, r->managed, r->peak_pages, r->peak_live,
	       r->end_pages, r->after_pages, r->verify, r->free_after);
	json_string(r->error);
	printf("}");
}

/* The sampled run and the timed rounds of one trace, as one JSON line. */
static void run_trace(const char *path, const struct trace *t, int rounds,
		      const char *samples_dir)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t name_len = strcspn(base, ".");
	char samples[2][4096];
	struct run run;
	unsigned long after[2] = {0, 0};
	bool timed = true;

	printf("{\"trace\": \"%.*s\", \"ops\": %zu, \"objects\": %zu",
	       (int)name_len, base, t->nr_ops, t->nr_objects);
	for (int c = 0; c < 2; c++) {
		struct replay_opts o = {.nr_samples = 100};
		if (samples_dir) {
			snprintf(samples[c], sizeof(samples[c]),
				 "%s/%.*s-%s.jsonl", samples_dir, (int)name_len,
				 base, copies[c].name);
			o.samples = samples[c];
		}
		run_child(copies[c].replay, t, &o, &run);
		timed = timed && !run.failed[0] && !run.r.error[0];
		after[c] = run.r.after_pages;
		printf(", \"%s\": {\"sampled\": ", copies[c].name);
		json_run(&run);
		printf(", \"samples\": ");
		json_string(samples_dir ? samples[c] : "");
		printf("}");
	}
	/* No timing for a copy that went wrong: its speed means nothing. */
	timed = timed && after[1] <= after[0];
	printf(", \"rounds\": [");
	for (int i = 0; timed && i < rounds; i++) {
		/* Each timed run replays at least TIMED_OPS operations. */
		struct replay_opts o = {.repeat = TIMED_OPS / (t->nr_ops + 1) +
						  1};
		printf("%s{", i ? ", " : "");
		for (int k = 0; k < 2; k++) {
			int c = (i + k) % 2; /* alternate who goes first */
			run_child(copies[c].replay, t, &o, &run);
			printf("%s\"%s\": ", k ? ", " : "", copies[c].name);
			json_run(&run);
		}
		printf("}");
	}
	printf("]}\n");
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr, "usage: lab_trace [--rounds N] [--max-ops N] "
			"[--samples DIR] [--timeout S] TRACE...\n");
	return 2;
}

int main(int argc, char **argv)
{
	int rounds = 3, i;
	size_t max_ops = 0;
	const char *samples_dir = NULL;

	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--max-ops"))
			max_ops = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--samples"))
			samples_dir = argv[i + 1];
		else if (!strcmp(argv[i], "--timeout"))
			timeout_s = (unsigned int)atoi(argv[i + 1]);
		else
			return usage();
	}
	if (i == argc || rounds < 0 || rounds > 100 || timeout_s < 1)
		return usage();
	for (; i < argc; i++) {
		struct trace t;
		if (trace_load(argv[i], max_ops, &t)) {
			trace_free(&t);
			return 1;
		}
		run_trace(argv[i], &t, rounds, samples_dir);
		trace_free(&t);
	}
	return 0;
}
