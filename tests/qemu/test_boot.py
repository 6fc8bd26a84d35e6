"""Boot paths, topology report, command line and fault reports.

Each test boots under TCG and waits on the serial log with a bound; a
failure shows the log (tests/qemu/conftest.py).
"""
import json
import os
import re
import socket
import subprocess
import time

import pytest

from conftest import ISO, TEST_ISO, UEFI_TIMEOUT, free_port, needs_qemu
from test_net import NET_TIMEOUT, free_udp_port, random_mac

EXIT = "exit_after_boot=1"


def report_value(log, key):
    m = re.search(r"^boot: cpus=(\d+) nodes=(\d+) memory=(\d+)MiB\s*$", log, re.M)
    assert m, "no summary line in:\n" + log
    return {"cpus": int(m.group(1)), "nodes": int(m.group(2)),
            "memory": int(m.group(3))}[key]


def test_kernel_boots_with_qemu_kernel_option_on_pc(qemu):
    log = qemu.boot(append=EXIT, machine="pc")
    assert "multiboot1" in log
    assert re.search(r"^boot: cpus=1 nodes=1 memory=512MiB\s*$", log, re.M)
    assert "boot: exit_after_boot=1, exiting" in log


def test_kernel_boots_with_qemu_kernel_option_on_q35_and_finds_ecam(qemu):
    log = qemu.boot(append=EXIT, machine="q35")
    assert re.search(r"^acpi: pci ecam segment=0 buses=0-255 base=0x[0-9a-f]+", log, re.M)
    assert "boot: ready" in log


@pytest.mark.parametrize("machine", ["pc", "q35"])
def test_grub_iso_boots_under_seabios(qemu, machine):
    assert os.path.exists(TEST_ISO), "run make build/kernel-test.iso"
    log = qemu.boot(iso=TEST_ISO, machine=machine)
    assert "multiboot2, GRUB" in log
    assert re.search(r"^boot: console=serial,vga 80x25\s*$", log, re.M)
    assert re.search(r"^boot: cpus=1 nodes=1 memory=512MiB\s*$", log, re.M)


def test_grub_iso_boots_under_uefi_with_framebuffer_console(qemu):
    log = qemu.boot(iso=TEST_ISO, uefi=True, timeout=UEFI_TIMEOUT)
    assert "multiboot2, GRUB" in log
    assert re.search(r"^boot: console=serial,framebuffer \d+x\d+x(24|32)", log, re.M)
    assert "boot: ready" in log


def test_iso_from_make_iso_boots_and_stays_up_in_its_poll_loop(qemu):
    assert os.path.exists(ISO), "run make iso"
    vm = qemu.start(iso=ISO, smp=2)
    vm.wait_for(r"^boot: ready")
    # the image's own words: every NIC the kernel drives, whichever it is
    assert 'boot: cmdline="nic=all"' in vm.log()
    assert vm.proc.poll() is None, vm.describe()


def iso_stats(vm, http):
    r = subprocess.run(["curl", "-sS", "-f", "-m", "20", "http://127.0.0.1:%d/stats.json" % http],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, "curl: %s\n%s" % (r.stderr.decode(), vm.describe())
    return json.loads(r.stdout)


@pytest.mark.parametrize("firmware", ["seabios", "ovmf"])
def test_iso_from_make_iso_networks_on_interrupts(qemu, firmware):
    """The ISO users boot (make iso: no command line, so DHCP and the
    default services) under each firmware: DHCP over user-net gives the
    address, HTTP answers through a host forward, and a quiet-link UDP
    echo is answered on the queue's interrupt, whose counter grows."""
    assert os.path.exists(ISO), "run make iso"
    http, uecho = free_port(), free_udp_port()
    vm = qemu.start(iso=ISO, smp=2, nic="virtio", uefi=firmware == "ovmf", mac=random_mac(),
                    hostfwd=["%d:80" % http, "udp:%d:7" % uecho])
    vm.wait_for(r"^net: eth0 up ip=10\.0\.2\.15/24 .* nic=virtio$",
                NET_TIMEOUT + (UEFI_TIMEOUT if firmware == "ovmf" else 0))
    vm.wait_for(r"^net: listening", NET_TIMEOUT)
    log = vm.log()
    assert "multiboot2, GRUB" in log
    assert re.search(r"^virtio-net: eth0 queue 0: msix vector 0x[0-9a-f]+ cpu 0$", log, re.M), \
        vm.describe()
    before = iso_stats(vm, http)
    answered = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(10)
        for i in range(4):
            time.sleep(0.3)  # past the busy-poll window: the queue sleeps
            s.sendto(b"iso %d" % i, ("127.0.0.1", uecho))
            try:
                answered += s.recvfrom(2048)[0] == b"iso %d" % i
            except socket.timeout:
                pass
    assert answered == 4, vm.describe()
    after = iso_stats(vm, http)
    q0, q1 = before["nic"]["eth0"]["queues"][0], after["nic"]["eth0"]["queues"][0]
    assert q1["irq"] == "msix"
    assert q1["interrupts"] - q0["interrupts"] >= 4, (q0, q1)


@needs_qemu(8, "the igb model")
@pytest.mark.parametrize("firmware", ["seabios", "ovmf"])
def test_iso_networks_on_an_igb_nic(qemu, firmware):
    """The ISO on a machine whose NIC is the 82576 (q35): its command line
    says nic=all, so the igb driver binds it, DHCP gives the address and
    HTTP answers, with the queue on MSI-X."""
    assert os.path.exists(ISO), "run make iso"
    http = free_port()
    vm = qemu.start(iso=ISO, smp=2, nic="igb", uefi=firmware == "ovmf", mac=random_mac(),
                    hostfwd=["%d:80" % http])
    vm.wait_for(r"^net: eth0 up ip=10\.0\.2\.15/24 .* nic=igb$",
                NET_TIMEOUT + (UEFI_TIMEOUT if firmware == "ovmf" else 0))
    vm.wait_for(r"^net: listening", NET_TIMEOUT)
    assert re.search(r"^igb: eth0 queue 0: msix vector 0x[0-9a-f]+ cpu 0$", vm.log(), re.M), \
        vm.describe()
    stats = iso_stats(vm, http)
    assert stats["nic"]["eth0"]["kind"] == "igb"
    assert stats["nic"]["eth0"]["rx_packets"] > 0


def test_single_cpu_boot_reports_one_cpu(qemu):
    log = qemu.boot(append=EXIT, smp=1)
    assert report_value(log, "cpus") == 1
    assert re.search(r"^cpu 0: apic=0 node=0\s*$", log, re.M)


def test_four_cpus_all_start_and_reach_their_poll_loops(qemu):
    log = qemu.boot(append=EXIT + " selftest=smp", smp=4)
    assert report_value(log, "cpus") == 4
    for c in range(4):
        assert re.search(r"^cpu %d: apic=%d node=0\s*$" % (c, c), log, re.M)
    assert re.search(r"^selftest: smp PASS cpus=4", log, re.M)
    # selftest=smp has each CPU check it is the one its slot says (LAPIC
    # id, stack); none was given up on.
    assert re.search(r"^smp: late=0 parked=0$", log, re.M), log
    assert "runs as apic" not in log
    # lwIP's state is thread-local (kernel/tls.c): every CPU found the
    # template's values through its FS base (else the boot stops), and a
    # second block, as a stack per CPU would have, stays apart
    m = re.search(r"^tls: template (\d+) bytes \((\d+) initialised\), every cpu on "
                  r"one block; two blocks stay apart$", log, re.M)
    assert m and int(m.group(1)) % 64 == 0 and 0 < int(m.group(2)) <= int(m.group(1)), log


def test_cpus_that_miss_their_start_window_park_and_take_no_slot(qemu):
    """smp_wait_ms=0 gives every AP no time at all, so each wakes after
    the boot CPU has given up on it and reused its slot, its stack and
    the trampoline's parameter block for the next AP: the case of a vCPU
    descheduled past its window. Each late AP must find no start meant
    for it, halt, and be counted; none may run in a slot, and the boot
    CPU carries on alone."""
    log = qemu.boot(append=EXIT + " selftest=smp smp_wait_ms=0", smp=4)
    for apic in (1, 2, 3):
        assert "smp: cpu with apic id %d did not start" % apic in log, log
    assert report_value(log, "cpus") == 1
    assert re.search(r"^smp: late=3 parked=3$", log, re.M), log
    assert "runs as apic" not in log and "gave up on it" not in log, log
    assert re.search(r"^selftest: smp PASS cpus=1", log, re.M), log


def test_poll_loop_statistics_are_valid_json_per_cpu(qemu):
    import json
    log = qemu.boot(append=EXIT + " selftest=smp", smp=2,
                    numa=["0:256M", "1:256M"])
    m = re.search(r"^selftest: smp cpustat=(\{.*\})\s*$", log, re.M)
    assert m, log
    stats = json.loads(m.group(1))
    assert sorted(stats) == ["cpu0", "cpu1"]
    assert stats["cpu1"]["node"] == 1
    # the other CPU ran its poll loop and slept in it between ticks
    assert stats["cpu1"]["polls"] > 0 and stats["cpu1"]["idle_halts"] > 0
    assert stats["cpu1"]["ticks"] > 0


def test_two_numa_nodes_are_reported_as_qemu_was_told(qemu):
    log = qemu.boot(append=EXIT, smp=4, numa=["0-1:256M", "2-3:256M"])
    assert re.search(r"^boot: cpus=4 nodes=2 memory=512MiB\s*$", log, re.M)
    assert re.search(r"^node 0: cpus=0-1 memory=256MiB\s*$", log, re.M)
    assert re.search(r"^node 1: cpus=2-3 memory=256MiB\s*$", log, re.M)
    for c, n in ((0, 0), (1, 0), (2, 1), (3, 1)):
        assert re.search(r"^cpu %d: apic=%d node=%d\s*$" % (c, c, n), log, re.M)
    assert re.search(r"^node 1: range 0x10000000-0x", log, re.M)


def test_uneven_numa_nodes_keep_their_sizes_and_cpus(qemu):
    log = qemu.boot(append=EXIT, smp=3, numa=["0:128M", "1-2:384M"])
    assert re.search(r"^boot: cpus=3 nodes=2 memory=512MiB\s*$", log, re.M)
    assert re.search(r"^node 0: cpus=0 memory=128MiB\s*$", log, re.M)
    assert re.search(r"^node 1: cpus=1-2 memory=384MiB\s*$", log, re.M)


def test_slit_distances_are_reported_when_qemu_gives_them(qemu):
    log = qemu.boot(append=EXIT, smp=2, numa=["0:256M", "1:256M"],
                    numa_dist=["0:1:21"])
    assert "SLIT" in log
    assert re.search(r"^node 0: distance=10,21\s*$", log, re.M)
    assert re.search(r"^node 1: distance=21,10\s*$", log, re.M)


def test_without_slit_distances_are_marked_assumed(qemu):
    log = qemu.boot(append=EXIT, smp=2, numa=["0:256M", "1:256M"])
    assert re.search(r"^node 0: distance=10,20 \(no SLIT: assumed\)\s*$", log, re.M)


def test_memory_above_4gib_is_found_and_mapped(qemu):
    log = qemu.boot(append=EXIT, mem="4608M")
    assert report_value(log, "memory") == 4608
    assert re.search(r"^node 0: range 0x100000000-0x", log, re.M)


def test_page_fault_prints_exception_report_and_fails(qemu):
    log = qemu.boot(append=EXIT + " selftest=fault", expect_status=1)
    assert "exception: page fault (vector 14) on cpu 0, error code 0x2" in log
    assert re.search(r"cr2 0x0000008000000000 \(not present, write\)", log)
    assert re.search(r"rip [0-9a-f]{16}", log)
    # the faulting function and its callers, by name
    assert re.search(r"^faulting instruction:\s*\n  #0 0x[0-9a-f]{16} fault_here\+0x", log, re.M)
    assert re.search(r"^backtrace:\s*$\n  #0 0x[0-9a-f]{16} selftests_run\+0x", log, re.M)
    assert re.search(r"^  #1 0x[0-9a-f]{16} kmain\+0x", log, re.M)
    assert "cpu 0 halted" in log


def test_panic_prints_message_and_backtrace_and_fails(qemu):
    log = qemu.boot(append=EXIT + " selftest=panic", expect_status=1)
    assert "panic: selftest: panic requested on the command line" in log
    assert re.search(r"^  rsp [0-9a-f]{16}  rbp [0-9a-f]{16}  rflags [0-9a-f]{16}", log, re.M)
    # the function that called panic, then the self-test runner that called it
    assert re.search(r"^backtrace:\s*$\n  #0 0x[0-9a-f]{16} panic_here\+0x[0-9a-f]+\s*$\n"
                     r"  #1 0x[0-9a-f]{16} selftests_run\+0x", log, re.M)


def test_unknown_command_line_key_is_reported_and_boot_continues(qemu):
    log = qemu.boot(append=EXIT + " colour=blue")
    assert "cmdline: unknown key 'colour', ignored" in log
    assert "boot: ready" in log


def test_bad_command_line_value_is_reported_and_default_used(qemu):
    log = qemu.boot(append=EXIT + " nic=token-ring rx_alloc=far")
    assert ("cmdline: bad value 'token-ring' for nic (expected virtio|e1000|e1000e|igb|all|none), "
            "using default 'virtio'") in log
    assert "cmdline: bad value 'far' for rx_alloc" in log
    assert "boot: ready" in log


def test_command_line_is_echoed_in_the_report(qemu):
    log = qemu.boot(append=EXIT + " ip=10.0.2.15/24 gw=10.0.2.2")
    assert 'boot: cmdline="exit_after_boot=1 ip=10.0.2.15/24 gw=10.0.2.2"' in log
    assert "cmdline:" not in log.replace('boot: cmdline=', '')


def test_idle_kernel_keeps_running_in_its_poll_loop(qemu):
    vm = qemu.start(append="", smp=2)
    vm.wait_for(r"^boot: ready")
    # no exit_after_boot: the kernel must still be alive a moment later
    import time
    time.sleep(0.5)
    assert vm.proc.poll() is None, vm.describe()


def test_fault_on_another_cpu_is_reported_with_that_cpu(qemu):
    log = qemu.boot(append=EXIT + " selftest=fault_ap", smp=4,
                    expect_status=1)
    assert "exception: page fault (vector 14) on cpu 3, error code 0x2" in log
    assert "cpu 3 halted" in log


def test_isa_interrupt_reaches_the_chosen_cpu_through_the_ioapic(qemu):
    # the PIT's IRQ 0, which QEMU's MADT overrides to GSI 2
    log = qemu.boot(append=EXIT + " selftest=irq", smp=2)
    m = re.search(r"^selftest: irq PASS vector=0x[0-9a-f]+ cpu=1 interrupts=(\d+)",
                  log, re.M)
    assert m, log
    assert int(m.group(1)) > 0


def slit_table(path, distances):
    """An ACPI SLIT for two proximity domains (QEMU fixes the checksum)."""
    import struct
    body = struct.pack("<Q", 2) + bytes(distances)
    hdr = struct.pack("<4sIBB6s8sI4sI", b"SLIT", 36 + len(body), 1, 0,
                      b"TESTOE", b"TESTTABL", 1, b"TEST", 1)
    with open(path, "wb") as f:
        f.write(hdr + body)
    return str(path)


def test_slit_from_the_firmware_is_used_as_given(qemu, tmp_path):
    table = slit_table(tmp_path / "slit.aml", [10, 30, 30, 10])
    log = qemu.boot(append=EXIT, smp=2, numa=["0:256M", "1:256M"],
                    extra=["-acpitable", "file=" + table])
    assert re.search(r"^node 0: distance=10,30\s*$", log, re.M)


def test_invalid_slit_is_reported_and_not_trusted(qemu, tmp_path):
    table = slit_table(tmp_path / "slit.aml", [10, 5, 5, 10])
    log = qemu.boot(append=EXIT, smp=2, numa=["0:256M", "1:256M"],
                    extra=["-acpitable", "file=" + table])
    assert "acpi: SLIT distance 5 from node 0 to 1 is invalid, SLIT ignored" in log
    assert re.search(r"^node 0: distance=10,20 \(no SLIT: assumed\)\s*$", log, re.M)


def test_kernel_snprintf_matches_known_answers(qemu):
    log = qemu.boot(append=EXIT + " selftest=printf")
    assert re.search(r"^selftest: printf PASS n=\d+\s*$", log, re.M), log


def test_tsc_is_calibrated_by_the_hpet_when_acpi_lists_one(qemu):
    log = qemu.boot(append=EXIT + " selftest=smp", smp=2)
    assert re.search(r"^boot: tsc=\d+MHz \(by hpet\)", log, re.M)
    assert re.search(r"^selftest: smp PASS", log, re.M)


def test_tsc_is_calibrated_by_the_pit_without_hpet(qemu):
    log = qemu.boot(append=EXIT + " selftest=smp", smp=2,
                    extra=["-machine", "hpet=off"])
    assert "HPET" not in log
    assert re.search(r"^boot: tsc=\d+MHz \(by pit\)", log, re.M)
    assert re.search(r"^selftest: smp PASS", log, re.M)


@pytest.mark.parametrize("machine", ["pc", "q35"])
def test_without_debug_exit_the_kernel_powers_off_through_acpi(qemu, machine):
    # as on a real PC: no isa-debug-exit, so exit_after_boot takes ACPI S5
    log = qemu.boot(append=EXIT, machine=machine, debug_exit=False)
    assert "boot: exit_after_boot=1, exiting" in log
    assert "power-off failed" not in log


def test_without_debug_exit_a_fault_resets_the_machine(qemu):
    # -no-reboot turns the kernel's reset into QEMU exiting
    log = qemu.boot(append=EXIT + " selftest=fault", debug_exit=False)
    assert "exception: page fault" in log
    assert "power-off failed" not in log


def test_smp_key_limits_the_cpus_started(qemu):
    log = qemu.boot(append=EXIT + " smp=2", smp=4)
    assert report_value(log, "cpus") == 2
    assert re.search(r"^smp: 2 of 4 cpus left out by smp=2: 2 on node 0$", log, re.M), log
    assert re.search(r"^cpu 1: apic=1 node=0$", log, re.M), log
