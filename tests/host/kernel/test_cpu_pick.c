/*
 * Choosing which CPUs start when a cap applies (kernel/cpu_pick.c): node
 * by node, the boot CPU always, the firmware's order kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/cpu_pick.c"

#define N 1024

static int node[N];
static bool chosen[N];
static struct cpu_pick_left left;

/* n CPUs listed node after node, per_node of each (a server's MADT). */
static void nodes_in_blocks(int n, int per_node)
{
	for (int i = 0; i < n; i++)
		node[i] = i / per_node;
}

static int chosen_on(int n, int nd)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += chosen[i] && node[i] == nd;
	return c;
}

static void test_no_cap_takes_every_cpu(void **state)
{
	(void)state;
	nodes_in_blocks(128, 64);
	assert_int_equal(cpu_pick(node, 128, 0, 256, 2, chosen, &left), 128);
	assert_int_equal(left.total, 0);
	for (int i = 0; i < 128; i++)
		assert_true(chosen[i]);
}

static void test_cap_takes_cpus_of_every_node_in_turn(void **state)
{
	(void)state;
	nodes_in_blocks(16, 8); /* smp=8 on two nodes of 8 */
	assert_int_equal(cpu_pick(node, 16, 0, 8, 2, chosen, &left), 8);
	assert_int_equal(chosen_on(16, 0), 4);
	assert_int_equal(chosen_on(16, 1), 4);
	/* the firmware's first CPUs of each node */
	for (int i = 0; i < 4; i++)
		assert_true(chosen[i] && chosen[8 + i]);
	assert_int_equal(left.total, 8);
	assert_int_equal(left.node[0], 4);
	assert_int_equal(left.node[1], 4);
}

static void test_limit_below_the_machine_leaves_no_node_empty(void **state)
{
	(void)state;
	nodes_in_blocks(1024, 128); /* 8 nodes of 128 past MAX_CPUS */
	assert_int_equal(cpu_pick(node, 1024, 0, 256, 8, chosen, &left), 256);
	for (int nd = 0; nd < 8; nd++) {
		assert_int_equal(chosen_on(1024, nd), 32);
		assert_int_equal(left.node[nd], 96);
	}
	assert_int_equal(left.total, 768);
}

static void test_boot_cpu_is_chosen_and_counts_for_its_node(void **state)
{
	(void)state;
	nodes_in_blocks(8, 4);
	/* booting on the second node's last CPU, room for 3 */
	assert_int_equal(cpu_pick(node, 8, 7, 3, 2, chosen, &left), 3);
	assert_true(chosen[7]);
	assert_int_equal(chosen_on(8, 0), 2);
	assert_int_equal(chosen_on(8, 1), 1);
}

static void test_one_cpu_is_the_boot_cpu_alone(void **state)
{
	(void)state;
	nodes_in_blocks(8, 4);
	assert_int_equal(cpu_pick(node, 8, 5, 1, 2, chosen, &left), 1);
	for (int i = 0; i < 8; i++)
		assert_int_equal(chosen[i], i == 5);
	assert_int_equal(left.node[0], 4);
	assert_int_equal(left.node[1], 3);
}

static void test_single_node_takes_the_first_in_firmware_order(void **state)
{
	(void)state;
	nodes_in_blocks(300, 300);
	assert_int_equal(cpu_pick(node, 300, 0, 256, 1, chosen, &left), 256);
	for (int i = 0; i < 300; i++)
		assert_int_equal(chosen[i], i < 256);
	assert_int_equal(left.node[0], 44);
}

static void
test_unequal_nodes_fill_the_bigger_once_the_small_is_done(void **state)
{
	static const int nodes[10] = {0, 0, 1, 1, 2, 3, 3, 3, 3, 3};

	(void)state;
	memcpy(node, nodes, sizeof(nodes));
	assert_int_equal(cpu_pick(node, 10, 0, 9, 4, chosen, &left), 9);
	assert_int_equal(chosen_on(10, 0), 2);
	assert_int_equal(chosen_on(10, 1), 2);
	assert_int_equal(chosen_on(10, 2), 1);
	assert_int_equal(chosen_on(10, 3), 4);
	assert_int_equal(left.node[3], 1);
}

static void test_boot_cpu_missing_from_the_list_takes_a_place(void **state)
{
	(void)state;
	nodes_in_blocks(4, 2);
	assert_int_equal(cpu_pick(node, 4, -1, 3, 2, chosen, &left), 3);
	/* it is node 0's first: node 1 gets the next place, then node 0 */
	assert_int_equal(chosen_on(4, 0), 1);
	assert_int_equal(chosen_on(4, 1), 1);
	assert_int_equal(left.total, 2);
}

static void test_bad_node_numbers_count_as_node_0(void **state)
{
	(void)state;
	node[0] = 0;
	node[1] = -3;
	node[2] = 99;
	assert_int_equal(cpu_pick(node, 3, 0, 2, 2, chosen, &left), 2);
	assert_true(chosen[0] && chosen[1] && !chosen[2]);
	assert_int_equal(left.node[0], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cap_takes_every_cpu),
		cmocka_unit_test(test_cap_takes_cpus_of_every_node_in_turn),
		cmocka_unit_test(
			test_limit_below_the_machine_leaves_no_node_empty),
		cmocka_unit_test(
			test_boot_cpu_is_chosen_and_counts_for_its_node),
		cmocka_unit_test(test_one_cpu_is_the_boot_cpu_alone),
		cmocka_unit_test(
			test_single_node_takes_the_first_in_firmware_order),
		cmocka_unit_test(
			test_unequal_nodes_fill_the_bigger_once_the_small_is_done),
		cmocka_unit_test(
			test_boot_cpu_missing_from_the_list_takes_a_place),
		cmocka_unit_test(test_bad_node_numbers_count_as_node_0),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
