/*
 * lwIP's own unit-test suite (test/unit in the fetched source, run by
 * Check) on the host, with lwIP's memory behind our network glue
 * (net/net_mem.c) as in the kernel:
 *
 *	lwip_unittests native   kmalloc for the heap, one qmempool per memp
 *	                        type, on a simulated machine (mm_host_boot)
 *	lwip_unittests stock    lwIP's own heap and static pools, through
 *	                        the same glue: a test failing only in native
 *	                        mode is our allocators' (or glue's) fault
 *
 * The suites lwIP lists are all run; those that cannot apply here are
 * left out by the build (mk/lwip-unit.mk says which and why).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/console.h"
#include "mm/mm.h"
#include "mm_host.h"
#include "net/net_mem.h"
#include "net/net_numa.h"
#include "test_tcp_large.h"

/* lwIP's lwip_unittests.c main(), renamed by the build. */
int lwip_unittests_main(void);

/* The kernel's net/net_numa.c sets these from the command line; on the
 * host both stay "local" (0), which places nothing. */
struct net_numa_policy net_rx_policy, net_tx_policy;

/* net/'s per-instance state: one instance on the host. */
#include "tests/host/common/net_percpu_one.c"

/* net/ prints through kprintf. */
int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* Our own suites over our lwIP patches, after lwIP's (which initialised
 * lwIP), reported in lwip_glue_unittests.xml beside lwIP's report. */
static int run_glue_suites(void)
{
	SRunner *sr = srunner_create(tcp_large_suite());
	int failed;

	srunner_set_xml(sr, "lwip_glue_unittests.xml");
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "native";
	int rc;

	if (!strcmp(mode, "native")) {
		net_alloc_mode = NET_ALLOC_NATIVE;
	} else if (!strcmp(mode, "stock")) {
		net_alloc_mode = NET_ALLOC_STOCK;
	} else {
		fprintf(stderr, "usage: %s [native|stock]\n", argv[0]);
		return 2;
	}
	/* One node of 64 MiB, one CPU: lwIP's tests are single-threaded. */
	if (mm_host_boot(1, 64 << 20, 1, NULL) != 0)
		return 1;
	printf("lwip_unittests: net_alloc=%s\n", mode);
	rc = lwip_unittests_main();
	if (run_glue_suites() != 0)
		rc = 1;
	if (strcmp(net_alloc_name(), mode)) {
		fprintf(stderr, "lwip_unittests: ran as %s, not %s\n",
			net_alloc_name(), mode);
		rc = 1;
	}
	mm_host_shutdown();
	return rc;
}
