"""The GDB stub (kernel/gdb_*.c) over COM2 and over TCP
(apps/gdb_tcp.c), driven by Debian's gdb in batch mode as a person at a
debugging machine would drive it.

COM2 is a unix socket QEMU listens on (tools/qemu-run --com2), which gdb
opens as its remote device; COM1 stays the serial shell, so a test can
see the machine run on after gdb let it go. Those guests have no NIC:
the stub needs nothing but the UART. The TCP guests have virtio-net on
QEMU's user network, the stub's port forwarded from the host.
"""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

import conftest
from conftest import free_port

GDB = shutil.which("gdb")
pytestmark = pytest.mark.skipif(GDB is None, reason="no gdb (tools/setup-deps qemu)")

# gdb's wait for each reply: the stub answers within milliseconds, but a
# TCG guest on a loaded machine can lag by seconds.
REMOTE_TIMEOUT = 30


@pytest.fixture
def com2_dir():
    """A short folder for COM2's socket (a unix socket path must fit in
    108 bytes; a test's tmp_path may not)."""
    d = tempfile.mkdtemp(prefix="qemu-com2-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def boot(qemu, com2_dir, append="gdb=com2"):
    """A two-CPU guest with COM2 on a socket, at its shell prompt; returns
    (vm, console, socket path)."""
    path = os.path.join(com2_dir, "com2")
    vm = qemu.start(append=append, smp=2, serial_socket=True, com2="unix:" + path)
    con = vm.serial()
    con.expect(rb"shell: on COM1")
    return vm, con, path


def gdb_batch(vm, path, *commands, timeout=120):
    """gdb's output for one session on the kernel's symbols: attach to the
    stub at path, run commands, and detach unless they did."""
    args = [GDB, "-batch", "-nx", conftest.KERNEL,
            "-ex", "set remotetimeout %d" % REMOTE_TIMEOUT,
            "-ex", "target remote " + path]
    for c in commands:
        args += ["-ex", c]
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        vm.fail("gdb did not finish within %ss; it said:\n%s" % (timeout, e.stdout))
    return r.stdout + r.stderr


def printed(out, n):
    """The value gdb printed as $n."""
    m = re.search(r"^\$%d = (.*)$" % n, out, re.M)
    assert m, "no $%d in gdb's output:\n%s" % (n, out)
    return m.group(1)


def shell_answers(con):
    """The shell on COM1 still takes a command: the machine runs."""
    con.send(b"\r")
    con.expect(rb"shell> ")
    assert "node 0" in con.command("buddyinfo").lower()


def test_gdb_sees_each_cpu_as_a_thread_breaks_reads_and_detaches(qemu, com2_dir):
    vm, con, path = boot(qemu, com2_dir)
    assert re.search(r"^gdb: stub on COM2", vm.log(), re.M)
    out = gdb_batch(
        vm, path,
        "info threads",
        "print nr_cpus",
        "break timer_tick thread 1",
        "continue",
        "print cpus[0].ticks + cpus[1].ticks",
        "continue",
        "print cpus[0].ticks + cpus[1].ticks",
        "backtrace",
        "print/x $pc",
        "stepi",
        "print/x $pc",
        "set var cpus[1].idle_halts = 4242424242",
        "print cpus[1].idle_halts",
        "x/xg 0x7f0000000000",
        "delete",
        "detach")
    # every CPU a thread, both stopped (a CPU that did not answer the
    # stop's NMI would say "running: did not stop")
    threads = re.findall(r"^\*?\s+(\d+)\s+Thread \d+ \(cpu (\d+) apic \d+ node 0\)(.*)$", out,
                         re.M)
    assert sorted(t[1] for t in threads) == ["0", "1"], out
    assert "did not stop" not in out, out
    assert printed(out, 1) == "2", out
    # the breakpoint stops the machine in the function, called from the
    # interrupt dispatcher, twice: the machine ran between (ticks counted).
    # CPU 0's only: with both CPUs' ticks at once, the second stop could
    # be the other CPU's, reported before the first had counted its tick
    # (seen in CI: 1 and 1).
    assert len(re.findall(r"hit Breakpoint 1, timer_tick", out)) == 2, out
    assert int(printed(out, 3)) > int(printed(out, 2)), out
    # (the handler is called through kernel/vector.c's vector_call)
    assert re.search(r"^#1 .* in vector_call ", out, re.M), out
    # and the interrupt's entry tells gdb where the interrupted code's
    # frame is (boot/isr.S's call frame information): the unwind goes on
    # into the poll loop the tick interrupted
    assert re.search(r"^#\d+ .* in trap_dispatch .*\n#\d+  <signal handler called>\n"
                     r"#\d+  .*\n(#\d+ .*\n)*#\d+ .*poll_loop ",
                     out, re.M), out
    # one instruction stepped: the pc moved on
    assert printed(out, 4) != printed(out, 5), out
    # memory written and read back; an unmapped address is an error to
    # gdb, not a fault on the stopped machine
    assert printed(out, 6) == "4242424242", out
    assert "Cannot access memory at address 0x7f0000000000" in out, out
    assert re.search(r"Inferior 1 \(Remote target\) detached", out), out
    shell_answers(con)


def test_ctrl_c_stops_the_machine_and_gdb_attaches_again(qemu, com2_dir):
    vm, con, path = boot(qemu, com2_dir)
    # what gdb sends when its user presses Ctrl-C: the stop reply says
    # SIGINT and names the thread (CPU) that stopped
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.settimeout(REMOTE_TIMEOUT)
    s.sendall(b"\x03")
    reply = b""
    while not re.search(rb"\$T02thread:[12];#[0-9a-f]{2}", reply):
        chunk = s.recv(256)
        assert chunk, "COM2 closed; got %r" % reply
        reply += chunk
    s.sendall(b"+$D#44")  # detach
    reply = b""
    while b"$OK#9a" not in reply:
        chunk = s.recv(256)
        assert chunk, "COM2 closed; got %r" % reply
        reply += chunk
    s.sendall(b"+")  # in ack mode the stub waits for this before it lets go
    s.close()
    shell_answers(con)
    # a second debugger attaches to the running machine and finds it whole
    out = gdb_batch(vm, path, "info threads", "detach")
    assert len(re.findall(r"Thread \d+ \(cpu \d", out)) == 2, out
    shell_answers(con)


def test_lwip_thread_local_state_reads_through_the_gdb_helper(qemu, com2_dir):
    """lwIP's globals are thread-local (kernel/tls.h), which gdb cannot
    find on a bare machine by itself; tools/gdb_tls.py's $tls() reads
    them on a given CPU: lwIP's ephemeral port cursor, the same on both
    CPUs (they share one block today), and a plain global is refused by
    name."""
    vm, con, path = boot(qemu, com2_dir)
    out = gdb_batch(
        vm, path,
        "print tcp_port",  # gdb alone
        "source " + os.path.join(conftest.ROOT, "tools", "gdb_tls.py"),
        'print $tls("tcp_port")',
        'print $tls("tcp_port", 1)',
        'print $tls("lwip_stats", 0).tcp.drop',
        'print $tls("nr_cpus")',
        "detach")
    assert "Cannot find thread-local" in out, out
    port = int(printed(out, 1))
    assert 0xc000 <= port <= 0xffff, out
    assert int(printed(out, 2)) == port, out
    assert int(printed(out, 3)) >= 0, out
    assert "nr_cpus is not a thread-local variable" in out, out
    shell_answers(con)


def test_without_the_key_com2_gets_no_answer(qemu, com2_dir):
    vm, con, path = boot(qemu, com2_dir, append="")
    assert "gdb:" not in vm.log()
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.settimeout(0.2)
    s.sendall(b"\x03$?#3f")
    got, end = b"", time.monotonic() + 3
    while time.monotonic() < end:
        try:
            got += s.recv(256)
        except socket.timeout:
            pass
    s.close()
    assert got == b"", got
    shell_answers(con)


def boot_tcp(qemu):
    """A two-CPU guest with the stub on tcp/1234, reached at the returned
    host port, and TCP echo on the other returned port."""
    gdb_port, echo_port = free_port(), free_port()
    vm = qemu.start(append="gdb=tcp:1234", nic="virtio", smp=2,
                    hostfwd=["%d:1234" % gdb_port, "%d:7" % echo_port])
    vm.wait_for(r"^gdb: stub on tcp/1234")
    vm.wait_for(r"^net: listening ")
    return vm, gdb_port, echo_port


def echo_answers(port):
    """The network still works: TCP echo gives back what it got."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"still here")
        got = b""
        while len(got) < 10:
            chunk = s.recv(64)
            assert chunk, got
            got += chunk
    assert got == b"still here"


def test_gdb_over_tcp_stops_the_other_cpu_breaks_and_detaches(qemu):
    vm, gdb_port, echo_port = boot_tcp(qemu)
    out = gdb_batch(
        vm, "localhost:%d" % gdb_port,
        "info threads",
        "break timer_tick",
        "continue",
        "print cpus[1].ticks",
        "continue",
        "print cpus[1].ticks",
        "print nr_cpus",
        "delete",
        "detach")
    # CPU 0 carries the connection and runs on; CPU 1 is stopped
    assert re.search(r"Thread 1 \(cpu 0 apic \d+ node 0, running: it carries the debugger\)",
                     out), out
    assert re.search(r"Thread 2 \(cpu 1 apic \d+ node 0\)\s+\S", out), out
    # a breakpoint CPU 0 meets is stepped over; CPU 1's stop the machine
    assert len(re.findall(r"Thread 2 hit Breakpoint 1, timer_tick", out)) == 2, out
    assert int(printed(out, 2)) > int(printed(out, 1)), out
    assert printed(out, 3) == "2", out
    assert re.search(r"Inferior 1 \(Remote target\) detached", out), out
    echo_answers(echo_port)


def test_ctrl_c_over_tcp_stops_the_machine(qemu):
    vm, gdb_port, echo_port = boot_tcp(qemu)
    with socket.create_connection(("127.0.0.1", gdb_port), timeout=REMOTE_TIMEOUT) as s:
        s.sendall(b"\x03")
        reply = b""
        # the CPU the NMI asked (CPU 1, thread 2) stops the machine
        while not re.search(rb"\$T02thread:2;#[0-9a-f]{2}", reply):
            chunk = s.recv(256)
            assert chunk, "closed; got %r" % reply
            reply += chunk
        s.sendall(b"+$D#44")
        while b"$OK#9a" not in reply:
            chunk = s.recv(256)
            assert chunk, "closed; got %r" % reply
            reply += chunk
        s.sendall(b"+")
    echo_answers(echo_port)
