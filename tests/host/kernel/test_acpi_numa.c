/*
 * NUMA nodes from SRAT and SLIT (kernel/acpi_numa.c, compiled in) on
 * tables built here byte by byte in the layout ACPI 6.5 (5.2.16, 5.2.17)
 * gives them: node ids in domain order whatever the entry order, every
 * node of the limit with its distances, and each domain beyond
 * MAX_NODES folded into the nearest node by SLIT, its CPUs and memory
 * with it, never left silently on node 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/acpi_numa.c"

struct acpi_info acpi;

static char printed[2048];

int kprintf(const char *fmt, ...)
{
	size_t n = strlen(printed);
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(printed + n, sizeof(printed) - n, fmt, ap);
	va_end(ap);
	return r;
}

/* ---------------------------------------------------- table builders */

#define MIB (1ULL << 20)

static uint8_t srat[8192], slit[SLIT_MATRIX + 32 * 32];
static size_t srat_len;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void srat_begin(void)
{
	memset(srat, 0, sizeof(srat));
	memcpy(srat, "SRAT", 4);
	srat_len = SRAT_ENTRIES;
	put32(srat + 4, (uint32_t)srat_len);
}

static uint8_t *srat_entry(uint8_t type, uint8_t len)
{
	uint8_t *p = srat + srat_len;

	assert_true(srat_len + len <= sizeof(srat));
	p[0] = type;
	p[1] = len;
	srat_len += len;
	put32(srat + 4, (uint32_t)srat_len);
	return p;
}

/* A local APIC affinity entry (type 0): domain bits 0-7 and 8-31 apart. */
static void srat_cpu(uint32_t pxm, uint8_t apic_id)
{
	uint8_t *p = srat_entry(0, 16);

	p[2] = (uint8_t)pxm;
	p[3] = apic_id;
	put32(p + 4, 1); /* enabled */
	p[9] = (uint8_t)(pxm >> 8);
	p[10] = (uint8_t)(pxm >> 16);
	p[11] = (uint8_t)(pxm >> 24);
}

/* An x2APIC affinity entry (type 2). */
static void srat_x2apic(uint32_t pxm, uint32_t apic_id)
{
	uint8_t *p = srat_entry(2, 24);

	put32(p + 4, pxm);
	put32(p + 8, apic_id);
	put32(p + 12, 1);
}

static void srat_mem(uint32_t pxm, uint64_t base, uint64_t len)
{
	uint8_t *p = srat_entry(1, 40);

	put32(p + 2, pxm);
	put64(p + 8, base);
	put64(p + 16, len);
	put32(p + 28, 1);
}

/* An n x n SLIT: 10 on the diagonal, far elsewhere; near() sets pairs. */
static void slit_begin(int n, uint8_t far)
{
	memset(slit, 0, sizeof(slit));
	memcpy(slit, "SLIT", 4);
	put32(slit + 4, (uint32_t)(SLIT_MATRIX + n * n));
	put64(slit + 36, (uint64_t)n);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			slit[SLIT_MATRIX + a * n + b] = a == b ? 10 : far;
}

static void slit_set(int a, int b, uint8_t d)
{
	int n = (int)table_u64(slit + 36);

	slit[SLIT_MATRIX + a * n + b] = d;
	slit[SLIT_MATRIX + b * n + a] = d;
}

/* CPUs as the MADT found them: APIC id = index. */
static int setup(void **state)
{
	(void)state;
	memset(&acpi, 0, sizeof(acpi));
	printed[0] = '\0';
	acpi.nr_cpus = 32;
	for (int c = 0; c < acpi.nr_cpus; c++)
		acpi.apic_ids[c] = (uint32_t)c;
	return 0;
}

/* Domains 0..n-1, domain d with CPU d and 16 MiB at d * 16 MiB. */
static void one_cpu_and_16mib_per_domain(int n)
{
	srat_begin();
	for (int d = 0; d < n; d++)
		srat_cpu((uint32_t)d, (uint8_t)d);
	for (int d = 0; d < n; d++)
		srat_mem((uint32_t)d, (uint64_t)d * 16 * MIB, 16 * MIB);
}

/* What acpi_init leaves for acpi_numa_init: the tables it found. */
static void numa_init(const uint8_t *srat_table, const uint8_t *slit_table)
{
	acpi.srat = srat_table;
	acpi.slit = slit_table;
	acpi_numa_init();
}

static int mem_node_at(uint64_t base)
{
	for (int i = 0; i < acpi.nr_mem; i++)
		if (acpi.mem[i].base == base)
			return acpi.mem[i].node;
	fail_msg("no SRAT memory range at 0x%llx", (unsigned long long)base);
	return -1;
}

/* ------------------------------------------------------------ tests */

static void test_node_ids_follow_domain_order_not_entry_order(void **state)
{
	(void)state;
	srat_begin();
	srat_mem(7, 0, 16 * MIB);
	srat_cpu(7, 0);
	srat_x2apic(3, 1);
	srat_mem(3, 16 * MIB, 16 * MIB);
	srat_cpu(0x105, 2); /* domain 261: bits 8-31 in their own bytes */
	numa_init(srat, NULL);
	assert_true(acpi.has_srat);
	assert_int_equal(acpi.nr_nodes, 3);
	assert_int_equal(acpi.domains[0].pxm, 3);
	assert_int_equal(acpi.domains[1].pxm, 7);
	assert_int_equal(acpi.domains[2].pxm, 0x105);
	assert_int_equal(acpi.cpu_node[0], 1);
	assert_int_equal(acpi.cpu_node[1], 0);
	assert_int_equal(acpi.cpu_node[2], 2);
	assert_int_equal(mem_node_at(0), 1);
	assert_int_equal(mem_node_at(16 * MIB), 0);
	assert_int_equal(acpi_domain_node(0x105), 2);
	assert_int_equal(acpi_domain_node(4), -1);
}

static void test_max_nodes_domains_are_all_nodes_with_slit(void **state)
{
	(void)state;
	one_cpu_and_16mib_per_domain(MAX_NODES);
	slit_begin(MAX_NODES, 20);
	slit_set(0, MAX_NODES - 1, 31);
	numa_init(srat, slit);
	assert_int_equal(acpi.nr_nodes, MAX_NODES);
	assert_int_equal(acpi.nr_domains, MAX_NODES);
	assert_true(acpi.has_slit);
	assert_int_equal(acpi.distance[MAX_NODES - 1][MAX_NODES - 1], 10);
	assert_int_equal(acpi.distance[0][MAX_NODES - 1], 31);
	assert_int_equal(acpi.distance[MAX_NODES - 1][0], 31);
	assert_int_equal(acpi.distance[3][4], 20);
	for (int d = 0; d < MAX_NODES; d++) {
		assert_int_equal(acpi.cpu_node[d], d);
		assert_int_equal(mem_node_at((uint64_t)d * 16 * MIB), d);
		assert_false(acpi.domains[d].folded);
	}
	assert_string_equal(printed, "");
}

/* Domain 16 is nearest to node 5; domain 17 is as near to nodes 2 and 4
 * (the lower id wins); everything of theirs goes there, nothing to 0. */
static void test_domains_beyond_the_limit_fold_into_the_nearest(void **state)
{
	(void)state;
	one_cpu_and_16mib_per_domain(MAX_NODES + 2);
	slit_begin(MAX_NODES + 2, 30);
	slit_set(16, 5, 12);
	slit_set(16, 6, 14);
	slit_set(17, 4, 15);
	slit_set(17, 2, 15);
	numa_init(srat, slit);
	assert_int_equal(acpi.nr_nodes, MAX_NODES);
	assert_int_equal(acpi.nr_domains, MAX_NODES + 2);
	assert_true(acpi.domains[16].folded);
	assert_int_equal(acpi.domains[16].node, 5);
	assert_int_equal(acpi.domains[16].distance, 12);
	assert_int_equal(acpi.domains[16].bytes, 16 * MIB);
	assert_int_equal(acpi.domains[16].cpus, 1);
	assert_int_equal(acpi.domains[17].node, 2);
	assert_int_equal(acpi.domains[17].distance, 15);
	assert_int_equal(acpi.cpu_node[16], 5);
	assert_int_equal(acpi.cpu_node[17], 2);
	assert_int_equal(mem_node_at(16 * 16 * MIB), 5);
	assert_int_equal(mem_node_at(17 * 16 * MIB), 2);
	assert_int_equal(acpi_domain_node(16), 5);
	assert_int_equal(acpi_domain_node(17), 2);
	/* node 0 has its own CPU and memory only */
	for (int c = 1; c < MAX_NODES + 2; c++)
		assert_int_not_equal(acpi.cpu_node[c], 0);
	assert_int_equal(acpi.srat_entries_lost, 0);
}

static void test_without_slit_folded_domains_go_to_node_0_said(void **state)
{
	(void)state;
	one_cpu_and_16mib_per_domain(MAX_NODES + 1);
	numa_init(srat, NULL);
	assert_false(acpi.has_slit);
	assert_int_equal(acpi.distance[0][MAX_NODES - 1], 20);
	assert_int_equal(acpi.distance[MAX_NODES - 1][MAX_NODES - 1], 10);
	assert_true(acpi.domains[MAX_NODES].folded);
	assert_int_equal(acpi.domains[MAX_NODES].node, 0);
	assert_int_equal(acpi.domains[MAX_NODES].distance, 0);
	assert_int_equal(acpi.cpu_node[MAX_NODES], 0);
}

static void test_bad_slit_is_ignored_and_not_used_to_fold(void **state)
{
	(void)state;
	one_cpu_and_16mib_per_domain(MAX_NODES + 1);
	slit_begin(MAX_NODES + 1, 20);
	slit_set(MAX_NODES, 7, 11);
	slit[SLIT_MATRIX + 3 * (MAX_NODES + 1) + 3] = 11; /* node 3 to itself */
	numa_init(srat, slit);
	assert_false(acpi.has_slit);
	assert_non_null(strstr(printed, "acpi: SLIT distance 11 from node 3 "
					"to 3 is invalid, SLIT ignored\n"));
	assert_int_equal(acpi.domains[MAX_NODES].node, 0);
}

static void test_short_slit_is_ignored(void **state)
{
	(void)state;
	one_cpu_and_16mib_per_domain(2);
	slit_begin(2, 20);
	put32(slit + 4, SLIT_MATRIX + 3);
	numa_init(srat, slit);
	assert_false(acpi.has_slit);
	assert_non_null(strstr(printed, "acpi: SLIT too short, ignored\n"));
}

static void test_slit_without_srat_is_ignored(void **state)
{
	(void)state;
	slit_begin(2, 20);
	numa_init(NULL, slit);
	assert_false(acpi.has_srat);
	assert_int_equal(acpi.nr_nodes, 1);
	assert_int_equal(acpi.distance[0][0], 10);
	assert_non_null(strstr(printed, "SLIT without SRAT, ignored"));
}

/* More memory ranges than acpi.mem holds: the rest are counted (the
 * boot report says their memory stays on node 0), not dropped silently. */
static void test_memory_ranges_past_the_table_are_counted(void **state)
{
	(void)state;
	srat_begin();
	for (int i = 0; i < ACPI_MAX_MEM + 3; i++)
		srat_mem(1, (uint64_t)i * MIB, MIB);
	numa_init(srat, NULL);
	assert_int_equal(acpi.nr_mem, ACPI_MAX_MEM);
	assert_int_equal(acpi.srat_entries_lost, 3);
}

static void test_disabled_entries_make_no_domain(void **state)
{
	(void)state;
	srat_begin();
	srat_cpu(0, 0);
	srat_cpu(4, 1);
	put32(srat + SRAT_ENTRIES + 16 + 4, 0); /* the second one disabled */
	numa_init(srat, NULL);
	assert_int_equal(acpi.nr_nodes, 1);
	assert_int_equal(acpi_domain_node(4), -1);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_node_ids_follow_domain_order_not_entry_order),
		T(test_max_nodes_domains_are_all_nodes_with_slit),
		T(test_domains_beyond_the_limit_fold_into_the_nearest),
		T(test_without_slit_folded_domains_go_to_node_0_said),
		T(test_bad_slit_is_ignored_and_not_used_to_fold),
		T(test_short_slit_is_ignored),
		T(test_slit_without_srat_is_ignored),
		T(test_memory_ranges_past_the_table_are_counted),
		T(test_disabled_entries_make_no_domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
