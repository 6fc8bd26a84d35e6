/*
 * The host world's allocator sampler (mm_sample.h): one thread, one file,
 * one JSON line per sample built from the allocators' own *_json writers.
 *
 * A sample is written under one mutex, by the sampler thread on its timer
 * or by mm_sample_mark() in the caller's thread, so lines never mix. The
 * thread sleeps on a condition variable with a CLOCK_MONOTONIC deadline,
 * so mm_sample_stop() ends it at once rather than after an interval.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm.h"
#include "mm_sample.h"

/* Largest sample: slabinfo grows ~700 bytes per cache; 256 KiB holds a
 * few hundred caches. A section that does not fit is written as null. */
#define SAMPLE_BYTES (256u << 10)

typedef int (*json_fn)(char *buf, size_t size);

static const struct {
	const char *name;
	json_fn fn;
} sample_sections[] = {
	{"buddyinfo", buddyinfo_json}, {"zoneinfo", zoneinfo_json},
	{"numastat", numastat_json},   {"page_frag", page_frag_stats_json},
	{"slabinfo", slabinfo_json},
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop;
	FILE *out;
	unsigned int interval_ms;
	struct timespec t0;
	char buf[SAMPLE_BYTES];
} smp = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Write one sample line; smp.lock held. */
static void sample_write(const char *label)
{
	fprintf(smp.out, "{\"t_ms\": %.3f, \"label\": ", ms_since(&smp.t0));
	if (label) {
		fputc('"', smp.out);
		for (const char *c = label; *c; c++)
			if (*c != '"' && *c != '\\' &&
			    (unsigned char)*c >= 0x20)
				fputc(*c, smp.out);
		fputc('"', smp.out);
	} else {
		fputs("null", smp.out);
	}
	for (size_t i = 0;
	     i < sizeof(sample_sections) / sizeof(sample_sections[0]); i++) {
		int n = sample_sections[i].fn(smp.buf, sizeof(smp.buf));

		fprintf(smp.out, ", \"%s\": %s", sample_sections[i].name,
			n >= 0 && (size_t)n < sizeof(smp.buf) ? smp.buf
							      : "null");
	}
	fputs("}\n", smp.out);
}

static void deadline_after(struct timespec *t, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* One sample per interval after the first, which mm_sample_start() took. */
static void *sampler_thread(void *arg)
{
	struct timespec next;

	(void)arg;
	pthread_mutex_lock(&smp.lock);
	while (!smp.stop) {
		deadline_after(&next, smp.interval_ms);
		while (!smp.stop &&
		       pthread_cond_timedwait(&smp.wake, &smp.lock, &next) == 0)
			; /* woken early, not stopped: keep the deadline */
		if (!smp.stop)
			sample_write(NULL);
	}
	pthread_mutex_unlock(&smp.lock);
	return NULL;
}

int mm_sample_start(const char *path, unsigned int interval_ms)
{
	pthread_condattr_t ca;
	int ret = -1;

	if (!path || interval_ms < 1 || interval_ms > 10000) {
		fprintf(stderr,
			"mm_sample_start: want a path and 1..10000 ms "
			"(got %u)\n",
			interval_ms);
		return -1;
	}
	pthread_mutex_lock(&smp.lock);
	if (smp.running) {
		fprintf(stderr, "mm_sample_start: already sampling\n");
		goto out;
	}
	smp.out = fopen(path, "w");
	if (!smp.out) {
		perror(path);
		goto out;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&smp.wake, &ca);
	pthread_condattr_destroy(&ca);
	smp.interval_ms = interval_ms;
	smp.stop = false;
	clock_gettime(CLOCK_MONOTONIC, &smp.t0);
	/* The first sample here, not in the new thread: a program that is
	 * done before the thread first runs still gets it, and with the last
	 * one (mm_sample_stop) a line to draw. */
	sample_write(NULL);
	if (pthread_create(&smp.thread, NULL, sampler_thread, NULL)) {
		fprintf(stderr, "mm_sample_start: no thread\n");
		fclose(smp.out);
		goto out;
	}
	smp.running = true;
	ret = 0;
out:
	pthread_mutex_unlock(&smp.lock);
	return ret;
}

void mm_sample_mark(const char *label)
{
	pthread_mutex_lock(&smp.lock);
	if (smp.running && !smp.stop)
		sample_write(label ? label : "");
	pthread_mutex_unlock(&smp.lock);
}

void mm_sample_stop(void)
{
	pthread_mutex_lock(&smp.lock);
	if (!smp.running) {
		pthread_mutex_unlock(&smp.lock);
		return;
	}
	smp.stop = true;
	pthread_cond_signal(&smp.wake);
	pthread_mutex_unlock(&smp.lock);
	pthread_join(smp.thread, NULL);
	pthread_mutex_lock(&smp.lock);
	sample_write("end");
	fclose(smp.out);
	smp.out = NULL;
	pthread_cond_destroy(&smp.wake);
	smp.running = false;
	pthread_mutex_unlock(&smp.lock);
}

void mm_sample_from_env(void)
{
	const char *path = getenv("MM_SAMPLE");
	const char *ms = getenv("MM_SAMPLE_MS");
	long interval = ms ? strtol(ms, NULL, 10) : 10;

	if (!path || !*path)
		return;
	if (interval < 1 || interval > 10000) {
		fprintf(stderr, "MM_SAMPLE_MS=%s: want 1..10000; using 10\n",
			ms);
		interval = 10;
	}
	mm_sample_start(path, (unsigned int)interval);
}
