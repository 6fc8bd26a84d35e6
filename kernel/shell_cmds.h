/*
 * The kernel's own shell commands (kernel/shell_cmds.c): the allocators'
 * statistics in Linux's /proc layouts, boot self-tests, reboot and
 * poweroff, and the tracer's (kernel/trace_shell.c).
 */
#ifndef KERNEL_SHELL_CMDS_H
#define KERNEL_SHELL_CMDS_H

/* Adds them to the shell's table. Boot CPU, once, before apps_boot (so
 * `help` lists them before the network's). */
void shell_cmds_register(void);

#endif
