"""tools/irq_figures.py, the measuring code under tools/bench-irq and
tools/bench-vs-linux's interrupt and idle figures, against real host
processes: finding QEMU below its wrapper, CPU accounting of a busy and a
sleeping process, and the host floor's echo (no QEMU)."""
import os
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import irq_figures  # noqa: E402


@pytest.fixture
def fake_qemu(tmp_path):
    """sh (standing in for tools/qemu-run) with a child whose executable
    is named qemu-system-x86_64 (a copy of sleep)."""
    exe = tmp_path / "qemu-system-x86_64"
    shutil.copy(shutil.which("sleep"), exe)
    proc = subprocess.Popen(["sh", "-c", "%s 30; true" % exe])
    yield proc
    for child in irq_figures.children(proc.pid):  # by pid, before sh goes
        os.kill(child, 9)
    proc.kill()
    proc.wait()


def test_qemu_pid_finds_the_qemu_process_below_its_wrapper(fake_qemu):
    pid = irq_figures.qemu_pid(fake_qemu.pid, timeout=5)
    assert pid is not None and pid != fake_qemu.pid
    assert irq_figures.comm(pid) == "qemu-system-x86"  # comm keeps 15 characters
    with open("/proc/%d/stat" % pid) as f:
        assert int(f.read().rsplit(")", 1)[1].split()[1]) == fake_qemu.pid


def test_qemu_pid_is_none_without_one():
    proc = subprocess.Popen(["sleep", "5"])
    try:
        assert irq_figures.qemu_pid(proc.pid, timeout=0.3) is None
    finally:
        proc.kill()
        proc.wait()


def test_idle_cpu_tells_a_spinning_process_from_a_sleeping_one():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleep = subprocess.Popen(["sleep", "5"])
    try:
        time.sleep(0.2)
        busy = irq_figures.idle_cpu(spin.pid, 1.0)
        idle = irq_figures.idle_cpu(sleep.pid, 1.0)
    finally:
        spin.kill()
        sleep.kill()
        spin.wait()
        sleep.wait()
    assert 0.9 < busy["window_s"] < 3
    # on a loaded 2-core host the spinner still gets a share; the sleeper none
    assert busy["sched_pct"] > 5 and busy["stat_pct"] > 0
    assert idle["sched_pct"] < 1 and idle["stat_pct"] == 0


def test_host_floor_answers_every_quiet_and_busy_echo():
    f = irq_figures.host_floor(quiet_n=3, busy_n=50, gap_s=0.05, jitter_s=0.01)
    assert f["quiet"]["n"] == 3 and f["quiet"]["lost"] == 0
    assert f["busy"]["n"] == 50 and f["busy"]["lost"] == 0
    for s in f.values():
        assert 0 < s["median"] <= s["p99"] <= s["max"]


def test_echo_series_counts_a_silent_peer_as_lost():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as mute:
        mute.bind(("127.0.0.1", 0))  # receives, never answers
        rtts, lost = irq_figures.echo_series(mute.getsockname(), 2, timeout=0.1)
    assert rtts == [] and lost == 2
    assert irq_figures.summary(rtts, lost) == {"median": None, "p99": None, "max": None,
                                               "n": 0, "lost": 2}


def test_echo_warm_up_runs_for_its_time_and_counts_answers():
    import socket
    with irq_figures.HostEchoServer() as srv:
        t0 = time.monotonic()
        n = irq_figures.echo_warm_up(srv.addr, 0.2)
        took = time.monotonic() - t0
    assert n > 10 and 0.2 <= took < 1.5
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as mute:
        mute.bind(("127.0.0.1", 0))  # receives, never answers
        assert irq_figures.echo_warm_up(mute.getsockname(), 0.2, timeout=0.05) == 0


def test_echoes_go_over_ipv6_to_an_ipv6_address():
    """bench-vs-linux's IPv6 series calls these with the guest's address."""
    import socket
    import threading
    srv = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    srv.bind(("::1", 0))
    srv.settimeout(5)

    def serve():
        try:
            while True:
                d, a = srv.recvfrom(2048)
                srv.sendto(d, a)
        except OSError:  # timeout after the client is done, or closed
            pass
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    addr = ("::1", srv.getsockname()[1])
    assert irq_figures.family(addr) == socket.AF_INET6
    assert irq_figures.family(("127.0.0.1", 7)) == socket.AF_INET
    assert irq_figures.echo_warm_up(addr, 0.1) > 0
    rtts, lost = irq_figures.echo_series(addr, 20)
    srv.close()
    assert len(rtts) == 20 and lost == 0


def test_p99_is_the_sample_at_index_n_times_0_99():
    assert irq_figures.p99(list(range(1000, 0, -1))) == 991
    assert irq_figures.p99([5.0]) == 5.0


def test_thread_seconds_names_each_thread_of_a_process():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        threads = irq_figures.thread_seconds(spin.pid)
    finally:
        spin.kill()
        spin.wait()
    assert threads[spin.pid][0] == os.path.basename(sys.executable)[:15]
    assert threads[spin.pid][1] > 0


def test_thread_groups_split_vcpus_main_loop_and_the_rest():
    before = {1: ("qemu-system-x86", 1.0), 2: ("CPU 0/TCG", 2.0), 3: ("CPU 1/TCG", 2.0),
              4: ("worker", 0.5)}
    # thread 4 ended (its time is gone), thread 5 started inside the window
    after = {1: ("qemu-system-x86", 1.25), 2: ("CPU 0/TCG", 3.0), 3: ("CPU 1/TCG", 2.5),
             5: ("call_rcu", 0.125)}
    assert irq_figures.thread_groups(before, after) == {"vcpus": 1.5, "vcpu_max": 1.0,
                                                       "main": 0.25, "other": 0.125}
