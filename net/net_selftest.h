/*
 * selftest=net (net_selftest.c): the per-queue, numastat, remote-free and
 * core-lock counters in the boot self-test report.
 */
#ifndef NET_SELFTEST_H
#define NET_SELFTEST_H

/* net_selftest_register - add "net" to the self-tests. Boot CPU, from
 * apps_boot, before selftests_run. */
void net_selftest_register(void);

#endif
