"""How many CPUs start and which: big machines, caps, x2APIC, the MP table.

Each test boots to exit with the SMP and interrupt self-tests (every CPU
answers a call and ticks; the PIT's interrupt arrives where it was routed)
and no NIC, and reads the boot report. The big machines (128 to 288
vCPUs) take both host cores for 5-12 s each: they run serially
(conftest.py SERIAL). x2APIC needs QEMU 10 (7.2's TCG filters it out):
those tests skip on older QEMU and say so. No test asserts a time: boot
times per size are in docs/machines.md.
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import KERNEL, UEFI_TIMEOUT, needs_qemu
from test_boot import report_value

CHECKS = "exit_after_boot=1 selftest=smp,irq nic=none"
# The big machines run 128-288 vCPUs on this host's 2 cores: each vCPU
# gets a hundredth of a core, so poll rounds of 500 ms by the guest's
# clock are the host's doing, not the guest's. Their stall reports (a
# backtrace each, over the serial port, under the console lock) once
# slowed the 288-vCPU boot past BIG_TIMEOUT in CI. These tests count
# CPUs; the stall detector has tests of its own (test_stall.py).
BIG = CHECKS + " stall_ms=0"
BIG_TIMEOUT = 180  # 288 vCPUs boot in ~12 s alone; a loaded host is slower


def node_cpus(log, node):
    m = re.search(r"^node %d: cpus=(\S+) " % node, log, re.M)
    assert m, "no node %d line:\n%s" % (node, log)
    return m.group(1)


def passes(log, cpus):
    assert re.search(r"^selftest: smp PASS cpus=%d " % cpus, log, re.M), log
    assert re.search(r"^selftest: irq PASS ", log, re.M), log
    assert re.search(r"^smp: late=0 parked=0$", log, re.M), log


def test_128_cpus_on_two_nodes_all_start_and_both_nodes_get_cpus(qemu):
    log = qemu.boot(append=BIG, smp=128, numa=["0-63:256M", "64-127:256M"],
                    timeout=BIG_TIMEOUT)
    assert report_value(log, "cpus") == 128
    assert node_cpus(log, 0) == "0-63" and node_cpus(log, 1) == "64-127"
    assert "left out" not in log, log
    passes(log, 128)


def test_the_smallest_memory_starts_every_cpu(qemu):
    """Stacks come with the CPUs that exist: the image holds none for the
    256 slots (they made it ~14 MiB and an 8 MiB machine hung in the
    boot), so 8 MiB starts four CPUs."""
    log = qemu.boot(append=CHECKS, smp=4, mem="8M")
    assert report_value(log, "cpus") == 4
    passes(log, 4)


def test_each_cpus_stacks_are_on_its_own_node(qemu):
    """The SMP self-test checks every CPU runs on its own slot's stack and
    that the stack lies in its node's memory; node 1's CPUs fail it if
    their stacks come from node 0."""
    log = qemu.boot(append=CHECKS, smp=4, numa=["0-1:256M", "2-3:256M"])
    assert node_cpus(log, 0) == "0-1" and node_cpus(log, 1) == "2-3"
    assert not re.search(r"^smp: cpu \d+ runs as", log, re.M), log
    passes(log, 4)


@needs_qemu(10, "x2APIC under TCG")
def test_256_cpus_start_in_x2apic_mode(qemu):
    log = qemu.boot(append=BIG, smp=256, machine="q35", timeout=BIG_TIMEOUT)
    assert re.search(r"^boot: tsc=.* apic=x2apic ", log, re.M), log
    assert report_value(log, "cpus") == 256
    assert re.search(r"^cpu 255: apic=255 node=0$", log, re.M), log
    # APIC id 255 is the broadcast id of an IOAPIC entry or MSI
    assert re.search(r"^irq: 1 cpus have apic ids above 254: their device interrupts "
                     r"arrive on a cpu of their node", log, re.M), log
    assert re.search(r"^selftest: irq PASS .* cpu=0 .*for the last cpu", log, re.M), log
    passes(log, 256)


@needs_qemu(10, "x2APIC under TCG")
def test_past_max_cpus_each_node_keeps_cpus_and_ids_above_255_start(qemu):
    """288 CPUs on two nodes of 144 (APIC ids 144-287 on node 1): MAX_CPUS
    (256) takes 128 of each, and node 1's reach APIC id 271, which only
    x2APIC can start and SRAT's x2APIC affinity entries place."""
    log = qemu.boot(append=BIG, smp=288, machine="q35",
                    numa=["0-143:256M", "144-287:256M"], timeout=BIG_TIMEOUT)
    assert re.search(r"^smp: 32 of 288 cpus left out by MAX_CPUS=256: "
                     r"16 on node 0, 16 on node 1$", log, re.M), log
    assert node_cpus(log, 0) == "0-127" and node_cpus(log, 1) == "128-255"
    assert re.search(r"^cpu 255: apic=271 node=1$", log, re.M), log
    assert re.search(r"^irq: 17 cpus have apic ids above 254", log, re.M), log
    passes(log, 256)


def test_smp_cap_takes_cpus_from_every_node(qemu):
    log = qemu.boot(append=CHECKS + " smp=8", smp=16, numa=["0-7:256M", "8-15:256M"])
    assert re.search(r"^smp: 8 of 16 cpus left out by smp=8: 4 on node 0, 4 on node 1$",
                     log, re.M), log
    assert node_cpus(log, 0) == "0-3" and node_cpus(log, 1) == "4-7"
    for cpu, apic in ((3, 3), (4, 8), (7, 11)):
        assert re.search(r"^cpu %d: apic=%d node=%d$" % (cpu, apic, cpu // 4), log, re.M), log
    passes(log, 8)


@pytest.mark.parametrize("machine", ["pc", "q35"])
def test_acpi_off_takes_cpus_and_ioapic_from_the_mp_table(qemu, machine):
    # SeaBIOS lists the first CPU of each socket only: one socket per CPU
    log = qemu.boot(append=CHECKS + " acpi=off", smp="4,sockets=4", machine=machine)
    assert re.search(r"^acpi: off \(acpi=off\)$", log, re.M), log
    assert re.search(r"^mp: table at 0x[0-9a-f]+ \(pointer at 0x[0-9a-f]+, MPS 1\.4\): "
                     r"4 cpus, 1 ioapics, \d+ interrupts, 0 entries left out$", log, re.M), log
    assert re.search(r"^acpi: ioapic id=0 addr=0xfec00000 gsi_base=0$", log, re.M), log
    assert report_value(log, "cpus") == 4
    passes(log, 4)


def test_mp_table_lists_one_cpu_per_socket(qemu):
    """-smp 4 is one socket of four cores: SeaBIOS's table has one CPU."""
    log = qemu.boot(append=CHECKS + " acpi=off", smp=4)
    assert re.search(r"^mp: table .*: 1 cpus, 1 ioapics", log, re.M), log
    passes(log, 1)


@needs_qemu(10, "x2APIC under TCG")
def test_x2apic_mode_on_a_small_machine_and_xapic_when_told(qemu):
    log = qemu.boot(append=CHECKS, smp=4)
    assert re.search(r"^boot: tsc=.* apic=x2apic ", log, re.M), log
    passes(log, 4)
    log = qemu.boot(append=CHECKS + " x2apic=off", smp=4)
    assert re.search(r"^boot: tsc=.* apic=xapic ", log, re.M), log
    passes(log, 4)


def test_without_acpi_or_mp_table_one_cpu_and_no_ioapic(qemu, tmp_path):
    """OVMF leaves no MP table, and acpi=off hides its ACPI tables."""
    if not shutil.which("grub-mkrescue") or not os.path.exists("/usr/share/OVMF"):
        pytest.skip("needs grub-mkrescue and OVMF (tools/setup-deps kernel)")
    iso_dir = tmp_path / "iso"
    (iso_dir / "boot" / "grub").mkdir(parents=True)
    shutil.copy(KERNEL, iso_dir / "boot" / "kernel.elf")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "boot", "grub.cfg")) as f:
        cfg = f.read().replace("multiboot2 /boot/kernel.elf",
                               "multiboot2 /boot/kernel.elf exit_after_boot=1 acpi=off "
                               "selftest=smp nic=none")
    (iso_dir / "boot" / "grub" / "grub.cfg").write_text(cfg)
    iso = str(tmp_path / "acpi-off.iso")
    subprocess.run(["grub-mkrescue", "-o", iso, str(iso_dir)], check=True,
                   capture_output=True, timeout=120)
    log = qemu.boot(iso=iso, uefi=True, smp=2, timeout=UEFI_TIMEOUT)
    assert re.search(r"^boot: no ACPI MADT and no MP table: one cpu, no IOAPIC", log,
                     re.M), log
    assert "acpi: ioapic" not in log
    assert report_value(log, "cpus") == 1
    assert re.search(r"^selftest: smp PASS cpus=1 ", log, re.M), log
