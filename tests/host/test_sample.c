/*
 * The host sampler (mm/host/mm_sample.h): one JSON line per interval and
 * per mark, with the allocators' sections, written from its own thread
 * while the program allocates; a first and a last sample however short
 * the run; started by MM_SAMPLE in the environment too; bad arguments
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm_test.h"

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/mm-sample-test-%d.jsonl",
		 (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	mm_sample_stop();
	unlink(path);
	return mm_test_teardown(state);
}

/* Lines in path; each must be one {...} object with every section. */
static int count_samples(const char *label, int *labelled)
{
	static char line[1 << 18];
	char want[64];
	FILE *f = fopen(path, "r");
	int n = 0;

	assert_non_null(f);
	snprintf(want, sizeof(want), "\"label\": \"%s\"", label);
	*labelled = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		assert_true(len > 2 && line[0] == '{' && line[len - 2] == '}');
		assert_int_equal(line[len - 1], '\n');
		assert_non_null(strstr(line, "\"t_ms\": "));
		assert_non_null(strstr(line, "\"buddyinfo\": {\"node0\""));
		assert_non_null(strstr(line, "\"zoneinfo\": {\"node0\""));
		assert_non_null(strstr(line, "\"pcp\":{\"cpu0\""));
		assert_non_null(strstr(line, "\"numastat\": {"));
		assert_non_null(strstr(line, "\"page_frag\": {"));
		assert_non_null(strstr(line, "\"slabinfo\": {"));
		*labelled += strstr(line, want) != NULL;
		n++;
	}
	fclose(f);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&t, NULL);
}

static void test_samples_every_interval_and_on_each_mark(void **state)
{
	int labelled;

	(void)state;
	mm_test_boot(2, 16, 2);
	assert_int_equal(mm_sample_start(path, 5), 0);
	for (int i = 0; i < 20; i++) {
		struct page *p = alloc_pages(GFP_KERNEL, (unsigned)(i & 3));
		sleep_ms(2);
		__free_pages(p, (unsigned)(i & 3));
	}
	mm_sample_mark("phase two");
	sleep_ms(20);
	mm_sample_stop();
	/* The thread sampled at least at start and every 5 ms of the
	 * ~60 ms run (a loaded machine may stretch it); the mark and the
	 * final sample are labelled. */
	int n = count_samples("phase two", &labelled);
	assert_true(n >= 4);
	assert_int_equal(labelled, 1);
	assert_int_equal(count_samples("end", &labelled), n);
	assert_int_equal(labelled, 1);
}

static void test_environment_starts_sampler_at_boot(void **state)
{
	int labelled;

	(void)state;
	setenv("MM_SAMPLE", path, 1);
	setenv("MM_SAMPLE_MS", "3", 1);
	mm_test_boot(1, 16, 1);
	unsetenv("MM_SAMPLE");
	unsetenv("MM_SAMPLE_MS");
	sleep_ms(15);
	mm_host_shutdown(); /* stops the sampler first */
	assert_true(count_samples("end", &labelled) >= 2);
	assert_int_equal(labelled, 1);
}

/* The README's example program is done in a millisecond, before the
 * sampler's thread first runs: the first sample is taken at the start. */
static void test_a_short_run_has_a_first_and_a_last_sample(void **state)
{
	int labelled;

	(void)state;
	mm_test_boot(1, 16, 1);
	assert_int_equal(mm_sample_start(path, 10000), 0);
	mm_sample_stop();
	assert_int_equal(count_samples("end", &labelled), 2);
	assert_int_equal(labelled, 1);
}

static void test_bad_arguments_and_second_start_are_refused(void **state)
{
	(void)state;
	mm_test_boot(1, 16, 1);
	assert_int_equal(mm_sample_start(path, 0), -1);
	assert_int_equal(mm_sample_start(path, 10001), -1);
	assert_int_equal(mm_sample_start(NULL, 10), -1);
	assert_int_equal(mm_sample_start("/nonexistent-dir/x", 10), -1);
	assert_int_equal(mm_sample_start(path, 10), 0);
	assert_int_equal(mm_sample_start(path, 10), -1);
	mm_sample_stop();
	mm_sample_stop();	      /* twice: harmless */
	mm_sample_mark("after stop"); /* ignored */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_samples_every_interval_and_on_each_mark, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_environment_starts_sampler_at_boot, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_a_short_run_has_a_first_and_a_last_sample, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_bad_arguments_and_second_start_are_refused, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
