/*
 * net_boot: the kernel's hook (kernel/main.c calls it after the boot
 * report) that starts networking: PCI enumeration, the command line's
 * network keys, the NIC drivers and lwIP, and the poller that drives them.
 *
 * lwIP and the NIC queues belong to one CPU. We use the boot CPU: net_init()
 * runs here, so the lwIP state is created on the CPU that will use it, and
 * net_poll() is registered in this CPU's poll loop.
 */
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "drv_port.h"
#include "net.h"
#include "pci.h"

/* Work done = 1 so the poll loop keeps spinning while networking is up:
 * we have no NIC interrupts (polled virtqueues), so halting until the
 * next timer tick would add up to a tick of latency to every packet. */
static int net_poller(void *arg)
{
	(void)arg;
	net_poll();
	return 1;
}

void net_boot(void)
{
	pci_init();
	net_config_parse();
	if (net_init() == 0)
		return;
	if (poll_register(this_cpu_id(), net_poller, NULL, "net") != 0)
		drv_printf("net: cannot register the net poller\n");
}
