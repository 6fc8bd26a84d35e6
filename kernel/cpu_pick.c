/*
 * Choosing CPUs node by node. Firmware lists CPUs in its own order, on a
 * server usually socket after socket, so starting the first N it lists
 * (smp=N, or MAX_CPUS on a bigger machine) leaves whole nodes without a
 * CPU: their memory then has no local user and their NICs no local
 * poller. Instead the choice goes round: every node with CPUs gets one,
 * then every node that has more gets a second, and so on. The boot CPU
 * counts as its node's first. Within a node the firmware's order is kept
 * (on most machines it puts the first thread of each core first), and so
 * is the order of the chosen CPUs: CPU ids stay in firmware order.
 * Round-robin rather than proportional shares: nodes of a machine are
 * nearly always the same size, and then the two agree; with unequal
 * nodes round-robin still gives each node a CPU before any gets a second.
 */
#include "kernel/cpu_pick.h"

#include <string.h>

/* CPU i's node, as a number the arrays can hold: a bad one is node 0. */
static int node_of(const int *node, int i, int nr_nodes)
{
	return node[i] >= 0 && node[i] < nr_nodes ? node[i] : 0;
}

/* The first CPU of node nd at index from or later that is not chosen,
 * or -1. */
static int next_on_node(const int *node, int n, int nr_nodes, int nd, int from,
			const bool *chosen)
{
	for (int i = from; i < n; i++)
		if (node_of(node, i, nr_nodes) == nd && !chosen[i])
			return i;
	return -1;
}

int cpu_pick(const int *node, int n, int boot, int max, int nr_nodes,
	     bool *chosen, struct cpu_pick_left *left)
{
	int have[MAX_NODES] = {0}, from[MAX_NODES] = {0};
	int taken = 1;	  /* the boot CPU */
	int unchosen = n; /* of the list */

	if (nr_nodes < 1 || nr_nodes > MAX_NODES)
		nr_nodes = 1;
	memset(left, 0, sizeof(*left));
	for (int i = 0; i < n; i++)
		chosen[i] = false;
	if (boot >= 0 && boot < n) {
		chosen[boot] = true;
		have[node_of(node, boot, nr_nodes)] = 1;
		unchosen--;
	} else {
		have[0] = 1;
	}
	/* Round r gives one more CPU to each node that has fewer than r and
	 * CPUs left; from round 2 on every node with CPUs left has fewer, so
	 * each round takes at least one until none is left. */
	for (int r = 1; taken < max && unchosen > 0; r++) {
		for (int nd = 0; nd < nr_nodes && taken < max; nd++) {
			int i;

			if (have[nd] >= r)
				continue;
			i = next_on_node(node, n, nr_nodes, nd, from[nd],
					 chosen);
			if (i < 0)
				continue;
			chosen[i] = true;
			from[nd] = i + 1;
			have[nd]++;
			taken++;
			unchosen--;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!chosen[i]) {
			left->node[node_of(node, i, nr_nodes)]++;
			left->total++;
		}
	}
	return taken;
}
