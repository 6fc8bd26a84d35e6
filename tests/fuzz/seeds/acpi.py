#!/usr/bin/env python3
"""Seeds of tests/fuzz/fuzz_acpi.c and fuzz_aml.c: the ACPI tables QEMU
7.2 (SeaBIOS) builds, copied out of a guest's memory.

    python3 tests/fuzz/seeds/acpi.py NAME [QEMU ARGS...]

boots qemu-system-x86_64 with the arguments and no disk (SeaBIOS installs
the tables, then finds nothing to boot and waits), saves the F segment
(where the RSDP is) and the top MiB of RAM (where the tables are; give
-m 512M) with the monitor's pmemsave, follows RSDP -> RSDT -> tables ->
FADT -> DSDT, and writes tests/fuzz/corpus/acpi/NAME (fuzz_acpi's input:
a flag byte, then each table as two length bytes and its bytes; NAME-xsdt
the same behind an XSDT) and tests/fuzz/corpus/aml/NAME (the DSDT's AML,
after its 36-byte header). `acpi.py regress` writes the regress-*
inputs (what the fuzzer found read past). The corpus holds the output of:

    acpi.py q35-numa2 -machine q35 -smp 4 -m 512M \\
        -object memory-backend-ram,size=256M,id=m0 \\
        -numa node,nodeid=0,cpus=0-1,memdev=m0 \\
        -object memory-backend-ram,size=256M,id=m1 \\
        -numa node,nodeid=1,cpus=2-3,memdev=m1 \\
        -numa dist,src=0,dst=1,val=20 \\
        -device pxb-pcie,bus_nr=32,id=pxb1,numa_node=1
    acpi.py pc-smp2 -machine pc -smp 2 -m 512M
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOP = 0x1FF00000  # the last MiB below 512 MiB


def dump(args, tmp):
    sock = os.path.join(tmp, "mon.sock")
    q = subprocess.Popen(["qemu-system-x86_64", "-nodefaults", "-display",
                          "none", "-monitor", "unix:%s,server,nowait" % sock]
                         + args)
    time.sleep(3)
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    for cmd in ('pmemsave 0xE0000 0x20000 "%s/fseg"' % tmp,
                'pmemsave 0x%x 0x100000 "%s/top"' % (TOP, tmp), "quit"):
        s.send(cmd.encode() + b"\n")
        time.sleep(0.5)
    q.wait(timeout=10)
    return (open(tmp + "/fseg", "rb").read(), open(tmp + "/top", "rb").read())


def tables(fseg, top):
    def rd(addr, n):
        if 0xE0000 <= addr < 0x100000:
            return fseg[addr - 0xE0000:addr - 0xE0000 + n]
        return top[addr - TOP:addr - TOP + n]

    def table(addr):
        return rd(addr, struct.unpack_from("<I", rd(addr, 8), 4)[0])

    i = fseg.find(b"RSD PTR ")
    root = table(struct.unpack_from("<I", fseg, i + 16)[0])
    out = []
    for k in range(36, len(root), 4):
        t = table(struct.unpack_from("<I", root, k)[0])
        out.append(t)
        if t[:4] == b"FACP":
            out.append(table(struct.unpack_from("<I", t, 40)[0]))
    return out


def sdt(sig, body, length=None):
    """A table: its header (length and checksum are the harness's)."""
    return sig + bytes(32) + body if length is None else sig + bytes(length - 4)


def regress():
    """What the fuzzer found kernel/acpi.c reading past (its input
    format: the harness writes lengths and checksums)."""
    madt = struct.pack("<II", 0xFEE00000, 1) + bytes([0, 8, 0, 0, 1, 0, 0, 0])
    cases = {
        "regress-short-header": [sdt(b"APIC", b"", length=10)],
        "regress-madt-cut-entry": [sdt(b"APIC", madt + bytes([9, 8, 0, 0,
                                                              7, 0, 0, 0]))],
        "regress-fadt-short": [sdt(b"FACP", bytes(28))],
        "regress-slit-short": [sdt(b"SLIT", b"")],
        "regress-srat-short-entries": [sdt(b"SRAT", bytes(12) + bytes(
            [0, 12, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 20] + [0] * 18))],
        "regress-s5-at-the-end": [sdt(b"FACP", bytes(112)),
                                  sdt(b"DSDT", b"_S5_\x12\xc0\0\0\0\x02"
                                      b"\x0a\x05\x0a")],
    }
    d = os.path.join(ROOT, "tests/fuzz/corpus/acpi")
    for name, tabs in cases.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(b"\0" + b"".join(struct.pack("<H", len(t)) + t
                                     for t in tabs))


def main():
    if sys.argv[1] == "regress":
        regress()
        return
    name, args = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        tabs = tables(*dump(args, tmp))
    body = b"".join(struct.pack("<H", len(t)) + t for t in tabs)
    for d, data in (("acpi", [(name, b"\0" + body),
                              (name + "-xsdt", b"\1" + body)]),
                    ("aml", [(name, t[36:]) for t in tabs
                             if t[:4] == b"DSDT"])):
        os.makedirs(os.path.join(ROOT, "tests/fuzz/corpus", d), exist_ok=True)
        for n, b in data:
            with open(os.path.join(ROOT, "tests/fuzz/corpus", d, n), "wb") as f:
                f.write(b)
    print(name, " ".join(t[:4].decode() for t in tabs))


if __name__ == "__main__":
    main()
