/*
 * The 16550 UART's registers, as offsets from its I/O base (the PC's
 * COM1 at 0x3F8 and COM2 at 0x2F8), and the bits the kernel uses: the
 * console's COM1 (kernel/serial.c) and the GDB stub's COM2
 * (kernel/gdb_com2.c).
 */
#ifndef KERNEL_UART_REGS_H
#define KERNEL_UART_REGS_H

#define UART_RBR 0 /* receive buffer (read) / transmit holding (write) */
#define UART_IER 1 /* interrupt enable */
#define UART_IIR 2 /* interrupt identification (read) / FIFO control */
#define UART_LCR 3 /* line control */
#define UART_MCR 4 /* modem control */
#define UART_LSR 5 /* line status */
#define UART_SCR 7 /* scratch: a 16450 or later has it */

#define UART_LCR_DLAB	   0x80 /* the first two registers: the divisor */
#define UART_LCR_8N1	   0x03
#define UART_FCR_ENABLE	   0x07 /* FIFOs on and cleared, trigger at 1 */
#define UART_IER_RX	   0x01 /* received data available (and timeout) */
#define UART_LSR_DATA	   0x01
#define UART_LSR_ERRORS	   0x1E /* overrun, parity, framing, break */
#define UART_LSR_OVERRUN   0x02
#define UART_LSR_THR_EMPTY 0x20
#define UART_MCR_DTR_RTS   0x03
#define UART_MCR_OUT2	   0x08 /* gates the UART's interrupt line on a PC */

#endif
