/*
 * The shell's ping (apps/ping.c).
 */
#ifndef APPS_PING_H
#define APPS_PING_H

/* Adds `ping HOST [COUNT]` to the shell. Boot CPU, once. */
void shell_ping_register(void);

#endif
