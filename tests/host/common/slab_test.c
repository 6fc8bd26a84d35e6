/* Fixtures shared by the slab and kmalloc tests (slab_test.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "mm_host.h"
#include "slab_test.h"

int slab_test_boot_two_nodes(void **state)
{
	static const int cpu_node[2] = {0, 1};
	(void)state;
	int rc = mm_host_boot(2, 16u << 20, 2, cpu_node);
	mm_debug_set(false);
	return rc;
}

int slab_test_shutdown(void **state)
{
	(void)state;
	slab_forget_all();
	mm_host_shutdown();
	return 0;
}

unsigned long slab_test_settled_free_pages(void)
{
	drain_all_pages();
	return nr_free_pages();
}

long slab_test_field(const char *name, const char *key)
{
	static char buf[1 << 16];
	char pat[128];

	slabinfo_json(buf, sizeof(buf));
	snprintf(pat, sizeof(pat), "\"%s\":{", name);
	const char *obj = strstr(buf, pat);
	if (!obj)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *f = strstr(obj, pat);
	if (!f || f > strchr(obj, '}'))
		return -1;
	return strtol(f + strlen(pat), NULL, 10);
}
