/*
 * The shell's ping (net/shell_ping.c).
 */
#ifndef NET_SHELL_PING_H
#define NET_SHELL_PING_H

/* Adds `ping HOST [COUNT]` to the shell. Boot CPU, once. */
void shell_ping_register(void);

#endif
