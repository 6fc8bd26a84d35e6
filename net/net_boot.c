/*
 * net_boot: the kernel's hook (kernel/main.c calls it after the boot
 * report) that starts networking: PCI enumeration, the command line's
 * network keys, the NIC drivers and lwIP, and the poller that drives them.
 *
 * net_init() runs on the boot CPU (CPU 0); then every NIC queue gets a
 * poller on its own CPU (queue i on CPU i, net_poll.c), which does that
 * queue's packet work and takes the lwIP core lock for lwIP's share.
 */
#include <stdint.h>

#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "net.h"
#include "net_config.h"
#include "net_poll.h"
#include "net_selftest.h"
#include "shell_net.h"

/*
 * Busy-poll while traffic flows, sleep when it stops. The NIC queues are
 * polled (no interrupts), so a halted CPU notices a frame only at its next
 * timer tick (10 ms); spinning all the time would instead burn a host CPU
 * per idle guest. So: report work for NET_SPIN_MS after the queue's last
 * frame, which keeps its CPU's poll loop spinning through a burst (iperf,
 * a 1 MiB echo), then report idle and let the CPU halt until the next
 * tick. Each queue keeps its own clock: a CPU whose queue is quiet halts
 * while the others spin.
 */
#define NET_SPIN_MS 200

static uint64_t last_busy_ms[NET_MAX_POLLED];

static int net_poller(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t now = clock_ms();

	int work = net_poll_queue(i);

	if (work == NET_POLL_SLEEP)
		return 0; /* the lock holder wakes us */
	if (work > 0)
		last_busy_ms[i] = now;
	return now - last_busy_ms[i] < NET_SPIN_MS;
}

void net_boot(void)
{
	pci_init();
	net_config_parse();
	shell_net_register(); /* they say so themselves when there is no NIC */
	net_selftest_register();
	if (net_init() == 0)
		return;
	for (int i = 0; i < net_poll_count(); i++)
		if (poll_register(net_poll_cpu(i), net_poller,
				  (void *)(intptr_t)i, "net") != 0)
			kprintf("net: cannot register the poller of queue %d "
				"on "
				"cpu %d\n",
				i, net_poll_cpu(i));
}
