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
#include "net.h"
#include "net_config.h"
#include "net_poll.h"
#include "net_selftest.h"
#include "shell_net.h"

static int net_poller(void *arg)
{
	return net_poll_run((int)(intptr_t)arg);
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
