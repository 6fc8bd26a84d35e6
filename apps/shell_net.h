/*
 * The network's shell commands (apps/shell_net.c, apps/ping.c).
 */
#ifndef APPS_SHELL_NET_H
#define APPS_SHELL_NET_H

/* Adds ifconfig, netstat, stats and ping to the shell. Boot CPU, from
 * apps_boot, whether or not a NIC came up (the commands say so). */
void shell_net_register(void);

#endif
