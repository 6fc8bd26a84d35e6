/*
 * net_boot: the kernel's hook (kernel/main.c calls it after the boot
 * report) that starts networking: PCI enumeration, the command line's
 * network keys, the NIC drivers and lwIP, and the poller that drives them.
 *
 * lwIP and the NIC queues belong to one CPU. We use the boot CPU: net_init()
 * runs here, so the lwIP state is created on the CPU that will use it, and
 * net_poll() is registered in this CPU's poll loop.
 */
#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "net.h"
#include "net_config.h"
#include "shell_net.h"

/*
 * Busy-poll while traffic flows, sleep when it stops. The NIC queues are
 * polled (no interrupts), so a halted CPU notices a frame only at its next
 * timer tick (10 ms); spinning all the time would instead burn a host CPU
 * per idle guest. So: report work for NET_SPIN_MS after the last frame,
 * which keeps the poll loop spinning through a burst (iperf, a 1 MiB echo),
 * then report idle and let the CPU halt until the next tick.
 */
#define NET_SPIN_MS 200

static int net_poller(void *arg)
{
	static uint64_t last_busy;
	uint64_t now = clock_ms();

	(void)arg;
	if (net_poll() > 0)
		last_busy = now;
	return now - last_busy < NET_SPIN_MS;
}

void net_boot(void)
{
	pci_init();
	net_config_parse();
	shell_net_register(); /* they say so themselves when there is no NIC */
	if (net_init() == 0)
		return;
	if (poll_register(this_cpu_id(), net_poller, NULL, "net") != 0)
		kprintf("net: cannot register the net poller\n");
}
