"""Shared helpers for the QEMU integration tests.

Every test boots the kernel through tools/qemu-run (the runner `make run`
uses), with the serial console written to a file the test reads. Use the
`qemu` fixture:

    def test_something(qemu):
        vm = qemu.start(append="exit_after_boot=1", smp=4)
        vm.wait_for(r"boot: ready")          # regex on the serial log
        assert vm.wait_exit() == 0           # qemu-run's status

or the one-shot form for boot-to-exit tests:

        log = qemu.boot(append="exit_after_boot=1")   # asserts status 0

Every wait is bounded (a timeout is a failure whose message carries the
serial log); every QEMU the fixture started is stopped at teardown, and the
serial log of a failed test is printed. Networking tests pass nic=, net=,
hostfwd=[...], mac=, netns= as keyword arguments (see QemuFactory.start).

To type into the serial shell, start with serial_socket=True: COM1 is then
a unix socket (tools/qemu-run --serial-socket; the guest starts once the
fixture has connected), vm.serial() is the console on it, and what it
receives is also the serial log that wait_for and log() read:

        vm = qemu.start(append="nic=none", serial_socket=True)
        con = vm.serial()
        con.send(b"\r"); con.expect(rb"shell> ")
        out = con.command("buddyinfo")       # text between echo and prompt
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QEMU_RUN = os.path.join(ROOT, "tools", "qemu-run")
KERNEL = os.path.join(ROOT, "build", "kernel.elf")
ISO = os.path.join(ROOT, "build", "kernel.iso")
TEST_ISO = os.path.join(ROOT, "build", "kernel-test.iso")
PXE_TEST = os.path.join(ROOT, "build", "pxe-test")  # make pxe's, no command line

# Bounds under TCG on a shared 2-core machine (measured there: -kernel boots
# in ~0.2 s, a GRUB ISO in ~0.6 s, OVMF in ~5.5 s); generous so a loaded
# machine does not fail a test, small enough that a hang fails quickly.
BOOT_TIMEOUT = 60
UEFI_TIMEOUT = 180


# Host-forward ports: tools/hostports.py says how they are picked.
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemu_guest  # noqa: E402
from hostports import free_port, free_udp_port  # noqa: E402,F401


def qemu_version():
    """(major, minor) of the qemu-system-x86_64 first on PATH (the one
    tools/qemu-run starts), or (0, 0) when it cannot say."""
    try:
        out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0, 0)
    m = re.search(r"version (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def skip_unless_qemu_has(nic):
    """Skips the running test when the QEMU first on PATH has no model of
    nic: igb (the 82576) came with QEMU 8.0."""
    have = qemu_version()
    if nic == "igb" and have < (8, 0):
        pytest.skip("needs QEMU 8 or later (the igb model); this is %d.%d: "
                    "put /opt/qemu10/bin first on PATH" % have)


def needs_qemu(major, what):
    """Skips a test on a QEMU older than major, saying what it lacks."""
    have = qemu_version()
    return pytest.mark.skipif(have < (major, 0), reason="needs QEMU %d or later (%s); "
                              "this is %d.%d: put /opt/qemu10/bin first on PATH"
                              % (major, what, have[0], have[1]))


class SerialConsole:
    """COM1 through QEMU's unix socket. A thread keeps reading it (a client
    that stops reading fills the socket, and then the guest's UART waits
    on every byte) and appends what it reads to the VM's serial log. This
    stream is the exact record of what the guest sent: QEMU 7.2's own
    logfile copy of a socket chardev repeats bytes that met a full socket
    (7 extra bytes in a 7.7 KB boot and help), which is why the log is
    written here."""

    def __init__(self, vm, path, timeout=BOOT_TIMEOUT):
        self.vm = vm
        self.log = open(vm.log_path, "ab", buffering=0)
        self.buf = bytearray()
        self.pos = 0  # what expect() has consumed
        self.lock = threading.Lock()
        end = time.monotonic() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX)
            try:
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > end or vm.proc.poll() is not None:
                    pytest.fail("no serial socket at %s\n%s" % (path, vm.describe()),
                                pytrace=False)
                time.sleep(0.05)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                if self.log.closed:
                    return
                self.buf.extend(data)
                self.log.write(data)

    def received(self):
        with self.lock:
            return bytes(self.buf)

    def send(self, data):
        self.sock.sendall(data)

    def fail(self, msg):
        tail = self.received()[self.pos:][-3000:]
        pytest.fail("%s\n--- serial stream after the last match ---\n%r\n%s"
                    % (msg, tail, self.vm.describe()), pytrace=False)

    def expect(self, pattern, timeout=BOOT_TIMEOUT):
        """Waits for bytes regex pattern in what arrived since the last
        match; returns the match and consumes up to its end."""
        rx = re.compile(pattern, re.S)
        end = time.monotonic() + timeout
        while True:
            data = self.received()
            m = rx.search(data, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.monotonic() > end:
                self.fail("timeout after %ss waiting for %r" % (timeout, pattern))
            if self.vm.proc.poll() is not None:
                # What QEMU wrote before it exited may still be on its way
                # through the socket: the reader ends at the socket's end.
                # (The guest printed "shell: powering off" and QEMU was
                # gone before the reader had passed it on: a failure.)
                self.reader.join(5)
                m = rx.search(self.received(), self.pos)
                if m:
                    self.pos = m.end()
                    return m
                self.fail("QEMU exited (status %s) before %r" % (self.vm.proc.returncode,
                                                                 pattern))
            time.sleep(0.02)

    def quiet(self, seconds):
        """Bytes that arrived in the next `seconds` (consumed)."""
        time.sleep(seconds)
        data = self.received()[self.pos:]
        self.pos += len(data)
        return data

    def command(self, line, timeout=BOOT_TIMEOUT):
        """Types line and Enter at a prompt; returns the output (text,
        LF line ends) between the echoed line and the next prompt."""
        self.send(line.encode() + b"\r")
        m = self.expect(re.escape(line.encode()) + rb"\r\n(.*?)shell> ", timeout)
        return m.group(1).decode(errors="replace").replace("\r\n", "\n")

    def close(self):
        self.sock.close()
        with self.lock:
            self.log.close()


class Qemu(qemu_guest.Guest):
    """One QEMU instance started through tools/qemu-run (tools/qemu_guest.py
    says how): a failure fails the test, with the whole serial log."""

    log_tail = None

    def __init__(self, workdir, name, serial_socket=False, **options):
        # a unix socket path must fit in 108 bytes: a test's tmp_path may
        # not, so the socket gets a short folder of its own
        self.sock_dir = tempfile.mkdtemp(prefix="qemu-com1-") if serial_socket else None
        self.sock_path = os.path.join(self.sock_dir, "com1") if serial_socket else None
        self.console = None
        super().__init__(os.path.join(workdir, name + ".serial.log"),
                         serial_socket=self.sock_path, **options)
        if serial_socket:  # the guest waits for this connection
            self.console = SerialConsole(self, self.sock_path)

    def fail(self, msg):
        pytest.fail("%s\n%s" % (msg, self.describe()), pytrace=False)

    def elapsed(self):
        return time.monotonic() - self.started

    def serial(self):
        """The SerialConsole on COM1 (start with serial_socket=True)."""
        if not self.console:
            pytest.fail("start the VM with serial_socket=True", pytrace=False)
        return self.console

    def guest_view(self):
        """The guest's own counters over COM1 (the shell's stats command),
        for a failure message when the network no longer answers."""
        if not self.console:
            return ""
        try:
            self.console.send(b"\r")
            self.console.expect(rb"shell> ", 10)
            return "--- shell stats over COM1 ---\n" + self.console.command("stats", 20)
        except BaseException as e:  # pytest.fail raises outside Exception
            return "--- shell stats over COM1: no answer (%s) ---" % str(e)[:200]

    def kill(self):
        self.stop()
        if self.console:
            self.console.close()
        if self.sock_dir:
            shutil.rmtree(self.sock_dir, ignore_errors=True)


class QemuFactory:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.vms = []

    def start(self, append="", smp=1, mem=None, machine=None, numa=(),
              numa_dist=(), srat=(), iso=None, uefi=False, nic="none", net=None,
              hostfwd=(), mac=None, extra=(), kernel=KERNEL,
              debug_exit=True, initrd=None, nic_pxb=None, serial_socket=False,
              queues=None, netns=None, pxe=None, cpu=None, com2=None):
        """Boots one QEMU. nic defaults to none (boot tests need no NIC).
        serial_socket: COM1 on a unix socket too, for vm.serial(). netns:
        qemu-run runs inside that network namespace (net="tap:tap0").
        pxe: DIR[:FILE], boot from the network (tools/qemu-run --pxe).
        cpu: the CPU model (qemu-run's default: max). com2: COM2 on a
        socket QEMU listens on, tcp:PORT or unix:PATH (tools/qemu-run
        --com2; the GDB stub's port)."""
        if iso:
            boot = dict(iso=iso)
        elif pxe:
            boot = dict(pxe=pxe)
        else:
            boot = dict(kernel=kernel, append=append, initrd=initrd)
        vm = Qemu(str(self.tmp_path), "vm%d" % len(self.vms), serial_socket,
                  smp=smp, nic=nic, uefi=uefi, no_debug_exit=not debug_exit, mem=mem,
                  machine=machine, numa=list(numa), numa_dist=list(numa_dist),
                  srat=list(srat),  # our own SRAT instead of --numa (tools/qemu-run)
                  net=net, queues=queues, hostfwd=list(hostfwd), mac=mac,
                  nic_pxb=nic_pxb,  # the NIC behind a pxb-pcie on that node
                  netns=netns, cpu=cpu, com2=com2, qemu_args=extra, **boot)
        self.vms.append(vm)
        return vm

    def boot(self, timeout=BOOT_TIMEOUT, expect_status=0, **kw):
        """Boots to exit (append should hold exit_after_boot=1); asserts
        qemu-run's status and returns the serial log."""
        vm = self.start(**kw)
        status = vm.wait_exit(timeout)
        if status != expect_status:
            pytest.fail("qemu-run exited with %s, expected %s\n%s"
                        % (status, expect_status, vm.describe()), pytrace=False)
        return vm.log()

    def cleanup(self, failed):
        for vm in self.vms:
            vm.kill()
            if failed:
                print("\n===== %s\n%s" % (vm.log_path, vm.describe()))


# `make test` runs these QEMU tests in two phases: first every test not
# marked "serial", several at once (pytest-xdist, one QEMU per worker),
# then the serial ones one at a time on an otherwise quiet machine. A test
# is serial when what it checks depends on the guest getting the CPU time
# it asks for: frames sent at a fixed rate that the guest must take in
# (hostile floods: the rate is what one TCG guest keeps up with), a
# lasting squeeze or a flood that must be seen to last or to clear within
# seconds (net_oom, memory_pressure), TCP timers whose spacing is checked
# (tcp_conformance: retransmission backoff, fast retransmit before the
# timer could), interrupt and idle accounting over a
# wall-clock window (irq, irq_intel), sampling rates (profile), a browser
# redrawing every second (dashboard), or many vCPUs or thousands of
# connections that take the machine on their own (net_multiqueue,
# net_connections, vs_linux; test_numa's 16 to 18 nodes with a vCPU
# each), or guests of tens or hundreds of GiB (the big_memory ones: QEMU
# touches host memory for every struct page the guest initialises, up to
# 4 GiB at -m 256G, and the host is shared, so one such guest at a time).
# Every other test waits on the guest's own
# answers, so beside another it only runs slower. Entries are file names,
# or file::test for one test of a file.
SERIAL = {
    "test_hostile.py", "test_ipv6.py::test_hostile_ipv6_leaves_ping6_answering_and_buffers_back",
    "test_net_oom.py", "test_memory_pressure.py", "test_irq.py", "test_irq_intel.py",
    "test_profile.py", "test_dashboard.py", "test_net_multiqueue.py",
    "test_net_connections.py", "test_vs_linux.py", "test_tcp_ooseq.py",
    "test_tcp_conformance.py",
    # 128 to 288 vCPUs: each takes both host cores for 5-12 s
    "test_cpus.py::test_128_cpus_on_two_nodes_all_start_and_both_nodes_get_cpus",
    "test_cpus.py::test_256_cpus_start_in_x2apic_mode",
    "test_cpus.py::test_past_max_cpus_each_node_keeps_cpus_and_ids_above_255_start",
    "test_numa.py::test_sixteen_nodes_each_keep_their_cpu_and_memory",
    "test_numa.py::test_nodes_beyond_the_limit_fold_into_the_nearest_by_slit",
    "test_numa.py::test_without_slit_a_node_beyond_the_limit_folds_into_node_0_said",
    "test_big_memory.py::test_72_gib_on_pc_uses_all_of_it_with_1_gib_pages",
    "test_big_memory.py::test_256_gib_on_q35_without_1_gib_pages_maps_with_2_mib_pages",
    "test_big_memory.py::test_256_gib_on_pc_brings_the_network_up",
    "test_big_memory.py::test_two_40_gib_nodes_each_get_their_own_memory",
}
# Files whose tests share one guest (a module-scoped fixture) or results
# (test_net_cost's figures, measured by its first tests and compared by
# the later ones): each runs whole on one xdist worker (--dist loadgroup).
ONE_WORKER = {"test_net_cost.py", "test_shell.py", "test_ipv6.py"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "serial: run alone, not beside other QEMU tests (conftest.py SERIAL)")


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.fspath.basename
        if name in SERIAL or "%s::%s" % (name, item.originalname) in SERIAL:
            item.add_marker(pytest.mark.serial)
        if name in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(name))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def qemu(request, tmp_path):
    for path in (KERNEL,):
        if not os.path.exists(path):
            pytest.fail("%s missing: run make" % path)
    f = QemuFactory(tmp_path)
    yield f
    rep = getattr(request.node, "rep_call", None)
    f.cleanup(failed=rep is not None and rep.failed)
