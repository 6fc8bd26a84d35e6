/*
 * Which of the firmware's CPUs to start when the kernel may not start them
 * all (the smp= key, or MAX_CPUS): node by node, so no node is left
 * without CPUs while another has more than one (kernel/cpu_pick.c).
 */
#ifndef KERNEL_CPU_PICK_H
#define KERNEL_CPU_PICK_H

#include <stdbool.h>
#include "kernel/config.h"

/* What a choice left out. */
struct cpu_pick_left {
	int total;
	int node[MAX_NODES]; /* left out on each node */
};

/*
 * cpu_pick - choose at most max of the n CPUs the firmware lists, node[i]
 * being CPU i's node (0..nr_nodes-1). The boot CPU, index boot (-1 when
 * the list lacks it: it then takes one place, as node 0's), is always
 * chosen. The others go round the nodes, one CPU of each node in turn, in
 * list order within a node. Sets chosen[i] for each chosen CPU and fills
 * *left. Returns how many CPUs were chosen, the boot CPU included.
 * Plain C with no machine in it: any context.
 */
int cpu_pick(const int *node, int n, int boot, int max, int nr_nodes,
	     bool *chosen, struct cpu_pick_left *left);

#endif
