/*
 * Fixtures shared by the slab and kmalloc tests: a fresh two-node machine
 * per test, and readers for the figures the tests assert on.
 */
#ifndef SLAB_TEST_H
#define SLAB_TEST_H

/* cmocka setup: 2 nodes of 16 MiB, CPU 0 on node 0 and CPU 1 on node 1,
 * debug checks off (the layouts the tests assert are the plain ones). */
int slab_test_boot_two_nodes(void **state);
/* cmocka teardown: forget every cache, then unmap the machine. */
int slab_test_shutdown(void **state);
/* Free pages once every per-CPU page list is back in the buddy lists. */
unsigned long slab_test_settled_free_pages(void);
/* The number under "key" in cache name's slabinfo_json object, or -1. */
long slab_test_field(const char *name, const char *key);

#endif /* SLAB_TEST_H */
