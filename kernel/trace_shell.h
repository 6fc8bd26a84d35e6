/*
 * The shell's `trace` command (kernel/trace_shell.c): the tracer's
 * status, start, stop and document at the serial console.
 */
#ifndef KERNEL_TRACE_SHELL_H
#define KERNEL_TRACE_SHELL_H

/* Adds it to the shell's table. Boot CPU, once, before the shell runs. */
void trace_shell_register(void);

#endif
