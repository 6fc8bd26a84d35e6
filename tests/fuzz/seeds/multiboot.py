#!/usr/bin/env python3
"""Seeds of tests/fuzz/fuzz_multiboot.c, in its input format: the
information QEMU 7.2's -kernel (multiboot 1) and GRUB 2.06's multiboot2
command leave for a guest of 128 MiB (-m 128), field by field as those
loaders fill them (QEMU's e820 map, GRUB's tag order), and a few edges.

    python3 tests/fuzz/seeds/multiboot.py tests/fuzz/corpus/multiboot
"""
import os
import struct
import sys

# QEMU's e820 table for -m 128 on the pc machine (SeaBIOS's view).
E820 = [(0x0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
        (0x100000, 0x7EE0000, 1), (0x7FE0000, 0x20000, 2),
        (0xFFFC0000, 0x40000, 2)]


def mb1(cmdline, mmap=E820, mods=(), flags=0x24F, loader=b"qemu"):
    info = bytearray(120)
    # flags, mem_lower, mem_upper, boot_device
    struct.pack_into("<IIII", info, 0, flags, 639, 130944, 0x8000FFFF)
    body = bytearray()
    for base, length, typ in mmap:
        body += struct.pack("<IQQI", 20, base, length, typ)
    out = bytearray([0]) + info
    out += bytes([len(cmdline)]) + cmdline
    out += bytes([len(mods)]) + b"".join(struct.pack("<IIII", s, e, 0, 0)
                                         for s, e in mods)
    out += struct.pack("<H", len(body)) + body
    out += bytes([len(loader)]) + loader
    return bytes(out)


def tag(typ, payload):
    t = struct.pack("<II", typ, 8 + len(payload)) + payload
    return t + bytes(-len(t) % 8)


def rsdp_v1():
    r = bytearray(b"RSD PTR " + bytes(1) + b"BOCHS " + bytes([0]) +
                  struct.pack("<I", 0x7FE14D2))
    r[8] = -sum(r) & 0xFF
    return bytes(r)


def rsdp_v2():
    r = bytearray(b"RSD PTR " + bytes(1) + b"BOCHS " + bytes([2]) +
                  struct.pack("<IIQ", 0x7FE14D2, 36, 0x7FE1500) + bytes(4))
    r[8] = -sum(r[:20]) & 0xFF
    r[32] = -sum(r) & 0xFF
    return bytes(r)


def mb2(cmdline, fb="ega", rsdp=rsdp_v1()):
    tags = tag(1, cmdline + b"\0")
    tags += tag(2, b"GRUB 2.06-13+deb12u1\0")
    tags += tag(10, struct.pack("<HHIHHHHH", 0xF000, 0x5C, 0xFD8C, 0x3,
                                0xF000, 0, 0xFFFF, 0xFFFF))  # APM
    tags += tag(4, struct.pack("<II", 639, 130944))  # basic meminfo
    tags += tag(5, struct.pack("<III", 0xE0, 0xFFFFFFFF, 0xFFFFFFFF))
    tags += tag(6, struct.pack("<II", 24, 0) + b"".join(
        struct.pack("<QQII", b, l, t, 0) for b, l, t in E820))
    if fb == "ega":
        tags += tag(8, struct.pack("<QIIIBBH", 0xB8000, 160, 80, 25, 16, 2,
                                   0))
    else:  # a 1024x768x32 framebuffer, as under OVMF
        tags += tag(8, struct.pack("<QIIIBBHBBBBBB", 0x80000000, 4096, 1024,
                                   768, 32, 1, 0, 16, 8, 8, 8, 0, 8))
    tags += tag(14 if rsdp[15] < 2 else 15, rsdp)
    tags += tag(21, struct.pack("<I", 0x100000))  # load base address
    tags += struct.pack("<II", 0, 8)  # the end tag
    return bytes([1]) + tags


SEEDS = {
    "qemu-kernel-mb1": mb1(b"/kernel.elf exit_after_boot=1"),
    "qemu-kernel-mb1-module": mb1(b"k nic=e1000", mods=[(0x200000, 0x201000)],
                                  flags=0x24F),
    "qemu-kernel-mb1-noflags": mb1(b"", flags=0),
    "grub-mb2-bios": mb2(b"/boot/kernel.elf"),
    "grub-mb2-uefi": mb2(b"/boot/kernel.elf smp=2", fb="rgb",
                         rsdp=rsdp_v2()),
}


def mb1_raw_map(body):
    """Multiboot 1 with only a memory map, of these bytes."""
    info = bytearray(120)
    struct.pack_into("<I", info, 0, 1 << 6)
    return (bytes([0]) + info + bytes(2) + struct.pack("<H", len(body)) +
            body + bytes(1))


# What the fuzzer found the parser reading past (kernel/multiboot.c).
SEEDS.update({
    "regress-mb1-entry-cut": mb1_raw_map(
        struct.pack("<IQQI", 20, 0, 0x9FC00, 1) + struct.pack("<IQQ", 20, 0,
                                                               1)),
    "regress-mb1-size-wraps": mb1_raw_map(
        struct.pack("<IQQI", 0xFFFFFFFC, 0, 0x9FC00, 1)),
    "regress-mb2-tag-past-end": bytes([1]) + struct.pack("<III", 6, 1000, 24),
    "regress-mb2-rsdp1-says-rev2": bytes([1]) + tag(14, rsdp_v2()[:20]),
    "regress-mb2-cmdline-no-nul": bytes([1]) + tag(1, b"smp=2abc"),
})

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
