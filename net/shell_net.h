/*
 * The network's shell commands (net/shell_net.c, net/shell_ping.c).
 */
#ifndef NET_SHELL_NET_H
#define NET_SHELL_NET_H

/* Adds ifconfig, netstat, stats and ping to the shell. Boot CPU, from
 * net_boot, whether or not a NIC came up (the commands say so). */
void shell_net_register(void);

#endif
