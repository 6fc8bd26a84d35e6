/* The shell's `capture` command (apps/shell_capture.c). */
#ifndef APPS_SHELL_CAPTURE_H
#define APPS_SHELL_CAPTURE_H

/* Adds it to the shell's table. Boot CPU, once, before the shell runs. */
void shell_capture_register(void);

#endif
