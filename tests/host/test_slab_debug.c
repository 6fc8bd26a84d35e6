/*
 * Slab debug detections: each is reported with the cache name and the
 * caller's address, counted, and survived. Reports are captured from
 * stderr so the tests can read them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mm.h"
#include "mm_host.h"

static int boot_debug(void **state)
{
	(void)state;
	int rc = mm_host_boot(1, 16u << 20, 1, NULL);
	mm_debug_set(true);
	mm_debug_set_quiet(false);
	return rc;
}

static int shutdown_machine(void **state)
{
	(void)state;
	mm_debug_set(false);
	slab_forget_all();
	mm_host_shutdown();
	return 0;
}

/* stderr capture: everything printed between begin and end. */
static char captured[4096];
static int saved_fd = -1;
static FILE *capture_file;

static void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	saved_fd = dup(2);
	dup2(fileno(capture_file), 2);
}

static const char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(capture_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	return captured;
}

/* The report names the cache and a caller inside function fn. */
static void assert_report(const char *out, const char *cache, void *fn)
{
	assert_non_null(strstr(out, cache));
	const char *c = strstr(out, "(caller ");
	assert_non_null(c);
	uintptr_t caller = (uintptr_t)strtoull(c + 8, NULL, 16);
	assert_true(caller > (uintptr_t)fn && caller < (uintptr_t)fn + 16384);
}

static struct slab_debug_counts counts(void)
{
	struct slab_debug_counts c;
	slab_debug_counts(&c);
	return c;
}

static void test_debug_flag_gives_red_zones_and_poison(void **state)
{
	static char buf[1 << 14];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-layout", 100, 0, 0, NULL);
	slabinfo_json(buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"debug\":true"));
	unsigned char *p = kmem_cache_alloc(s, 0);
	assert_int_equal(p[-1], 0xbb);	/* red zone before */
	assert_int_equal(p[100], 0xbb); /* red zone after */
	kmem_cache_free(s, p);
	assert_int_equal(p[0], 0x6b); /* poisoned while free */
	assert_int_equal(p[99], 0xa5);
}

static void test_double_free_is_reported_and_refused(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-double", 64, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, 0);
	kmem_cache_free(s, p);
	unsigned long before = counts().double_free;

	capture_begin();
	kmem_cache_free(s, p);
	const char *out = capture_end();
	assert_int_equal(counts().double_free, before + 1);
	assert_report(out, "dbg-double",
		      (void *)test_double_free_is_reported_and_refused);
	assert_non_null(strstr(out, "double free"));
	/* refused: the object is in the magazine once, not twice */
	void *a = kmem_cache_alloc(s, 0), *b = kmem_cache_alloc(s, 0);
	assert_ptr_equal(a, p);
	assert_ptr_not_equal(b, p);
}

static void test_write_past_the_end_is_reported(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-over", 100, 0, 0, NULL);
	char *p = kmem_cache_alloc(s, 0);
	unsigned long before = counts().redzone;

	p[100] = 'X'; /* one byte too far */
	capture_begin();
	kmem_cache_free(s, p);
	const char *out = capture_end();
	assert_int_equal(counts().redzone, before + 1);
	assert_report(out, "dbg-over",
		      (void *)test_write_past_the_end_is_reported);
	assert_non_null(strstr(out, "overflowed"));
	/* the red zone was repaired: the next cycle is clean */
	p = kmem_cache_alloc(s, 0);
	kmem_cache_free(s, p);
	assert_int_equal(counts().redzone, before + 1);
}

static void test_write_before_the_start_is_reported(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-under", 48, 0, 0, NULL);
	char *p = kmem_cache_alloc(s, 0);
	unsigned long before = counts().redzone;

	p[-3] = 0;
	capture_begin();
	kmem_cache_free(s, p);
	const char *out = capture_end();
	assert_int_equal(counts().redzone, before + 1);
	assert_report(out, "dbg-under",
		      (void *)test_write_before_the_start_is_reported);
	assert_non_null(strstr(out, "underflowed"));
}

/* The red zones reach a cache line each side: a 32-byte underflow of an
 * 8-byte object and a write 63 bytes past a 100-byte one are caught, each
 * counted as a red-zone report (mm_debug kind MM_DBG_RED_ZONE). */
static void test_red_zones_catch_a_word_under_and_a_line_over(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-wide", 8, 0, 0, NULL);
	struct kmem_cache *t = kmem_cache_create("dbg-line", 100, 0, 0, NULL);
	char *p = kmem_cache_alloc(s, 0);
	char *q = kmem_cache_alloc(t, 0);
	unsigned long before = counts().redzone;
	unsigned long kind = mm_debug_count(MM_DBG_RED_ZONE);

	p[-32] = 0;
	q[100 + 63] = 0;
	capture_begin();
	kmem_cache_free(s, p);
	kmem_cache_free(t, q);
	const char *out = capture_end();
	assert_int_equal(counts().redzone, before + 2);
	assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), kind + 2);
	assert_non_null(strstr(out, "underflowed"));
	assert_non_null(strstr(out, "overflowed"));
}

static void test_write_after_free_is_reported_at_next_alloc(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-uaf", 80, 0, 0, NULL);
	char *p = kmem_cache_alloc(s, 0);
	kmem_cache_free(s, p);
	unsigned long before = counts().poison;

	p[10] = 1; /* through a dangling pointer */
	capture_begin();
	char *q = kmem_cache_alloc(s, 0);
	const char *out = capture_end();
	assert_ptr_equal(q, p);
	assert_int_equal(counts().poison, before + 1);
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_report(out, "dbg-uaf",
		      (void *)test_write_after_free_is_reported_at_next_alloc);
	assert_non_null(strstr(out, "written after free"));
}

static void test_free_of_pointer_inside_object_is_refused(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dbg-inside", 64, 0, 0, NULL);
	char *p = kmem_cache_alloc(s, 0);
	unsigned long before = counts().invalid_free;

	capture_begin();
	kmem_cache_free(s, p + 8);
	const char *out = capture_end();
	assert_int_equal(counts().invalid_free, before + 1);
	assert_report(out, "dbg-inside",
		      (void *)test_free_of_pointer_inside_object_is_refused);
	kmem_cache_free(s, p); /* the real one still frees cleanly */
	assert_int_equal(counts().invalid_free, before + 1);
}

static void test_free_to_the_wrong_cache_is_refused(void **state)
{
	(void)state;
	struct kmem_cache *a = kmem_cache_create("dbg-a", 64, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("dbg-b", 64, 0, 0, NULL);
	void *p = kmem_cache_alloc(a, 0);
	unsigned long before = counts().invalid_free;

	capture_begin();
	kmem_cache_free(b, p);
	const char *out = capture_end();
	assert_int_equal(counts().invalid_free, before + 1);
	assert_report(out, "dbg-b",
		      (void *)test_free_to_the_wrong_cache_is_refused);
	kmem_cache_free(a, p);
}

static void test_kfree_double_free_is_reported(void **state)
{
	(void)state;
	void *p = kmalloc(300, 0);
	kfree(p);
	unsigned long before = counts().double_free;

	capture_begin();
	kfree(p);
	const char *out = capture_end();
	assert_int_equal(counts().double_free, before + 1);
	assert_report(out, "kmalloc-512",
		      (void *)test_kfree_double_free_is_reported);
}

static void test_destroy_with_outstanding_objects_names_the_cache(void **st)
{
	(void)st;
	struct kmem_cache *s = kmem_cache_create("dbg-busy", 64, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, 0);
	unsigned long before = counts().destroy_busy;

	capture_begin();
	kmem_cache_destroy(s);
	const char *out = capture_end();
	assert_int_equal(counts().destroy_busy, before + 1);
	assert_report(
		out, "dbg-busy",
		(void *)test_destroy_with_outstanding_objects_names_the_cache);
	assert_non_null(strstr(out, "1 objects still allocated"));
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

static int ctor_calls;
static void ctor(void *p)
{
	ctor_calls++;
	memset(p, 0x42, 32);
}

static void test_ctor_cache_is_not_poisoned_but_checked(void **state)
{
	(void)state;
	ctor_calls = 0;
	struct kmem_cache *s = kmem_cache_create("dbg-ctor", 32, 0, 0, ctor);
	unsigned char *p = kmem_cache_alloc(s, 0);
	int calls = ctor_calls;
	kmem_cache_free(s, p);
	assert_int_equal(p[0], 0x42); /* constructed state kept */
	p = kmem_cache_alloc(s, 0);
	assert_int_equal(ctor_calls, calls);
	unsigned long before = counts().redzone;
	p[32] = 0;
	capture_begin();
	kmem_cache_free(s, p);
	capture_end();
	assert_int_equal(counts().redzone, before + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, boot_debug, shutdown_machine)
		T(test_debug_flag_gives_red_zones_and_poison),
		T(test_double_free_is_reported_and_refused),
		T(test_write_past_the_end_is_reported),
		T(test_write_before_the_start_is_reported),
		T(test_red_zones_catch_a_word_under_and_a_line_over),
		T(test_write_after_free_is_reported_at_next_alloc),
		T(test_free_of_pointer_inside_object_is_refused),
		T(test_free_to_the_wrong_cache_is_refused),
		T(test_kfree_double_free_is_reported),
		T(test_destroy_with_outstanding_objects_names_the_cache),
		T(test_ctor_cache_is_not_poisoned_but_checked),
#undef T
	};
	return cmocka_run_group_tests_name("slab_debug", tests, NULL, NULL);
}
