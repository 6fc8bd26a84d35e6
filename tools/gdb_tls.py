"""gdb: read the kernel's thread-local variables (lwIP's state) on a CPU.

lwIP's globals are __thread (net/lwip-patches/0016-*, kernel/tls.h): each
lives at a fixed offset in a TLS block that a CPU's FS base points at.
gdb cannot find such a variable in a bare-metal image by itself ("Cannot
find thread-local variables on this target"). This adds $tls(NAME[,
CPU]), the variable NAME as CPU (default 0) sees it, from the offset gdb
knows (`info address NAME`) and the start of the CPU's block, which the
kernel keeps in cpus[CPU].tls_block:

    (gdb) source tools/gdb_tls.py
    (gdb) print $tls("tcp_port")
    (gdb) print *$tls("tcp_active_pcbs")
    (gdb) print $tls("lwip_stats", 1).tcp.recv

Works over the kernel's own stub (gdb=com2, gdb=tcp) and QEMU's (-s).
"""
import re

import gdb  # noqa: E402  (gdb's own module: this file runs inside gdb)


class Tls(gdb.Function):
    """$tls(NAME[, CPU]): the thread-local variable NAME on CPU (default 0)."""

    def __init__(self):
        super().__init__("tls")

    def invoke(self, name, cpu=0):
        name = name.string()
        info = gdb.execute("info address " + name, to_string=True)
        m = re.search(r"at offset (0x[0-9a-f]+|\d+) in the thread-local storage", info)
        if not m:
            raise gdb.GdbError("%s is not a thread-local variable: %s" % (name, info.strip()))
        sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
        if sym is None:
            raise gdb.GdbError("no symbol %s" % name)
        block = int(gdb.parse_and_eval("cpus[%d].tls_block" % int(cpu)))
        if block == 0:
            raise gdb.GdbError("cpu %d has no TLS block yet" % int(cpu))
        addr = block + int(m.group(1), 0)
        return gdb.Value(addr).cast(sym.type.pointer()).dereference()


Tls()
